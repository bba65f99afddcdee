package applayer

import "github.com/meerkat-ids/meerkat/flow"

// The UDP app layer (src/app-layer.c: AppLayerHandleUdp): every datagram of a direction whose
// protocol is not known yet goes to protocol detection (the UDP patterns, then the UDP
// probing parsers of the flow's ports); once either direction found a protocol, datagrams go
// whole to its parser, one Parse call each.

// initUDP sets up the UDP detection of the registered protocols (NewLayer).
func (l *Layer) initUDP() {
	for p, ps := range parsers {
		if ps == nil || !l.cfg.Protocols[p].Enabled {
			continue
		}
		u := ps.udp()
		if u == nil {
			continue
		}
		l.udp[p] = u
		pc := &l.cfg.Protocols[p]
		ports := pc.UDPPorts
		if ps.UDP == nil {
			ports = pc.Ports // a UDP-only protocol's detection-ports
		}
		l.udpDP[p], l.udpSP[p] = ports[0], ports[1]
		if l.udpDP[p] == nil && l.udpSP[p] == nil && u.Ports != "" {
			if pl, ok := parsePorts(u.Ports); ok {
				l.udpDP[p] = pl.has
			}
		}
	}
}

// UDP hands the app layer the payload of a UDP datagram of flow f, direction dir
// (AppLayerHandleUdp). It reports whether detection reversed the flow (the first datagram
// was a response: PacketSwap, FlowSwap): the caller swaps the flow's and the packet's
// direction; the payload was parsed as the other direction's.
func (l *Layer) UDP(f *flow.Flow, dir Dir, payload []byte) (reversed bool) {
	fa := l.flows.At(f)
	fa.udp = true
	if fa.Disabled || fa.ProtoDir[0] == ProtoFailed && fa.ProtoDir[1] == ProtoFailed {
		return false
	}
	fa.dp, fa.sp = f.DstPort, f.SrcPort
	if fa.ProtoDir[dir] != ProtoUnknown {
		if fa.Proto.Known() {
			l.parseUDP(f, fa, dir, payload)
		}
		return false
	}
	p, rev := l.detectUDP(fa, dir, payload)
	other := fa.ProtoDir[1-dir]
	if p == ProtoUnknown {
		if other != ProtoUnknown {
			fa.Proto = other // the recognised side decides
			fa.ProtoDir[dir] = other
		} else {
			fa.ProtoDir[dir] = ProtoFailed
		}
	} else {
		fa.ProtoDir[dir] = p
		if other != ProtoUnknown && other != ProtoFailed {
			if other != p {
				// the data already went to the other side's parser: the flow keeps it
				fa.Events.Set(EventMismatchProtocolBothDirections)
			}
		} else {
			fa.Proto = p
		}
	}
	if other == ProtoUnknown {
		// the flow's first datagram: the flow is counted (app_layer.flow.<proto> or
		// failed_udp)
		if fa.Proto == ProtoUnknown {
			fa.Proto = ProtoFailed
		}
		if !fa.counted {
			fa.counted = true
			if fa.Proto == ProtoFailed {
				l.Counters.FailedUDP++
			} else {
				l.Counters.FlowsUDP[fa.Proto]++
			}
		}
	}
	if fa.Proto.Known() {
		if rev {
			fa.ProtoDir[0], fa.ProtoDir[1] = fa.ProtoDir[1], fa.ProtoDir[0]
			fa.doneNext[0], fa.doneNext[1] = fa.doneNext[1], fa.doneNext[0]
			fa.DetectDone[0], fa.DetectDone[1] = fa.DetectDone[1], fa.DetectDone[0]
			dir = 1 - dir
			reversed = true
		}
		l.parseUDP(f, fa, dir, payload)
	}
	// Detection ran in one direction only: both are flagged done (FlagPacketFlow for
	// STREAM_TOSERVER and STREAM_TOCLIENT).
	l.flagDone(fa, dir, flow.ToServer)
	l.flagDone(fa, dir, flow.ToClient)
	return reversed
}

// parseUDP hands one datagram to the flow's parser, making its state first.
func (l *Layer) parseUDP(f *flow.Flow, fa *flowApp, dir Dir, payload []byte) {
	if fa.State == nil && fa.Parser == nil {
		l.startState(f, fa, fa.Proto)
	}
	l.parse(fa, dir, dir, payload, 0)
}

// detectUDP is AppLayerProtoDetectGetProto for a datagram: the UDP patterns, then the probing
// parsers (AppLayerProtoDetectPPGetProto): the other direction's protocol first, then those
// registered for the flow's destination port or its source port; with stream.midstream the
// ports are tried the other way round too. rev says the prober found the datagram to be of
// the other direction.
func (l *Layer) detectUDP(fa *flowApp, d Dir, data []byte) (Proto, bool) {
	for p, u := range l.udp {
		if u == nil {
			continue
		}
		for _, pat := range u.Patterns[d] {
			if pat.match(data) {
				return Proto(p), false
			}
		}
	}
	if o := fa.ProtoDir[1-d]; o.Known() && o < protoMax && l.udp[o] != nil {
		if p, rev, ok := l.probeUDP(o, d, data); ok {
			return p, rev
		}
	}
	dp, sp := fa.dp, fa.sp
	for pass := 0; pass < 2; pass++ {
		for p, u := range l.udp {
			if u == nil {
				continue
			}
			if dpm, spm := l.udpDP[p], l.udpSP[p]; (dpm != nil || spm != nil) &&
				!(dpm != nil && dpm(dp) || spm != nil && spm(sp)) {
				continue
			}
			if got, rev, ok := l.probeUDP(Proto(p), d, data); ok {
				return got, rev
			}
		}
		if !l.cfg.Midstream {
			break
		}
		dp, sp = sp, dp // no match + midstream: retry the other direction's ports
	}
	return ProtoUnknown, false
}

// probeUDP runs protocol p's UDP prober of direction d on data.
func (l *Layer) probeUDP(p Proto, d Dir, data []byte) (Proto, bool, bool) {
	u := l.udp[p]
	probe := u.Probe[d]
	if probe == nil || len(data) < u.ProbeMin {
		return ProtoUnknown, false, false
	}
	switch probe(data[:min(len(data), max(u.ProbeMax, u.ProbeMin))]) {
	case ProbeMatch:
		return p, false, true
	case ProbeMatchReverse:
		return p, true, true
	}
	return ProtoUnknown, false, false
}

// udp reports whether a registered protocol runs over UDP (the failed_udp counter is
// written then).
func (c *Counters) udp() bool {
	for _, ps := range parsers {
		if ps != nil && ps.OnUDP() {
			return true
		}
	}
	return false
}
