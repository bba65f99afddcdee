package rules

// Type returns Suricata's classification of the rule (SignatureSetType): app_tx for rules
// with an app-layer hook or app-layer buffers, pd_only for rules that only check
// app-layer-protocol, ip_only (or like_ip_only when an address is negated) for rules with only
// IP-only compatible keywords, de_only for decoder-event rules, pkt/stream/pkt_stream for
// payload rules by what they inspect, app_layer for app-layer rules without inspection, and
// pkt otherwise.
func (r *Rule) Type() RuleType {
	if r.typ == TypeNotSet {
		r.typ = r.computeType()
	}
	return r.typ
}

// dynamicBuffers returns the rule's sticky (non payload) buffers.
func (r *Rule) dynamicBuffers() []*Buffer {
	var out []*Buffer
	for _, b := range r.Buffers {
		if b.Name != "pkt_data" && b.Name != listBase64 {
			out = append(out, b)
		}
	}
	return out
}

func (r *Rule) payloadMatches() bool {
	for _, b := range r.Buffers {
		if b.Name == "pkt_data" && len(b.Matches) > 0 {
			return true
		}
	}
	return false
}

func (r *Rule) computeType() RuleType {
	if r.Header.Protocol.AppHook {
		return TypeAppTx
	}
	bufs := r.dynamicBuffers()
	hasPmatch := r.payloadMatches()
	noApp := r.AppProto == "" && !r.Header.Protocol.AppHook && r.Header.Protocol.Hook == ""
	if noApp && !hasPmatch && len(bufs) == 0 && r.isPDOnly() {
		return TypePDOnly
	}
	if noApp && !hasPmatch && len(bufs) == 0 && !r.appLayerFlag && r.ToServer == r.ToClient {
		if ipOnly := r.isIPOnly(); ipOnly {
			if r.Header.Src.Negated || r.Header.Dst.Negated {
				return TypeLikeIPOnly
			}
			return TypeIPOnly
		}
	}
	if noApp && !hasPmatch && len(bufs) == 0 && r.isDEOnly() {
		return TypeDEOnly
	}
	hasPacketBuf, hasAppBuf := false, false
	for _, b := range bufs {
		if bufferInfo(b.Name).packet {
			hasPacketBuf = true
		} else {
			hasAppBuf = true
		}
	}
	switch {
	case hasPacketBuf:
		return TypePkt
	case hasAppBuf:
		return TypeAppTx
	case hasPmatch:
		switch {
		case r.RequirePacket && !r.RequireStream:
			return TypePkt
		case r.RequireStream && !r.RequirePacket:
			return TypeStream
		}
		return TypePktStream
	case len(r.Matches) > 0:
		return TypePkt
	case r.appLayerFlag:
		return TypeAppLayer
	}
	return TypePkt
}

func (r *Rule) isIPOnly() bool {
	for _, list := range [][]*Option{r.Matches, r.PostMatches} {
		for _, m := range list {
			kw := Lookup(m.Name)
			if kw == nil || kw.Flags&KwIPOnlyCompat == 0 {
				return false
			}
			if fb, ok := m.Arg.(*Flowbit); ok && fb.Cmd != "set" {
				return false
			}
		}
	}
	return true
}

func (r *Rule) isPDOnly() bool {
	if len(r.Matches) == 0 {
		return false
	}
	pd := false
	for _, m := range r.Matches {
		switch m.Name {
		case "app-layer-protocol":
			pd = true
		case "flowbits":
			if fb, ok := m.Arg.(*Flowbit); !ok || fb.Cmd != "set" {
				return false
			}
		case "flow":
			f := m.Arg.(*Flow)
			if f.Established || f.NotEstablished || f.Stateless || f.OnlyFrag || f.NoFrag {
				return false
			}
		default:
			if kw := Lookup(m.Name); kw == nil || kw.Flags&KwIPOnlyCompat == 0 {
				return false
			}
		}
	}
	return pd
}

func (r *Rule) isDEOnly() bool {
	de := false
	for _, m := range r.Matches {
		if kw := Lookup(m.Name); kw == nil || kw.Flags&KwDEOnlyCompat == 0 {
			return false
		}
		if m.Name == "decode-event" {
			de = true
		}
	}
	return de
}
