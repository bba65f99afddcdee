package detect

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/detect/payload"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/rules"
)

// compile turns one parsed rule into one compiled rule, or two for a `<>` rule (Suricata
// duplicates those with source and destination swapped).
func (e *Engine) compile(r *rules.Rule) ([]*Rule, error) {
	h := &r.Header
	if gaps := missing(r, true); len(gaps) > 0 {
		return nil, gaps[0]
	}
	if r.Firewall && !e.firewall {
		return nil, fmt.Errorf("firewall rule outside firewall mode")
	}
	if !r.Firewall && len(h.Actions) != 1 {
		return nil, fmt.Errorf("action lists are only valid in firewall rules")
	}
	c := &Rule{Src: r, Action: alert.Action(h.Actions[0].Flags()), NoAlert: r.NoAlert}
	if r.Alert && c.Action&alert.ActionPass != 0 {
		c.Action |= alert.ActionAlert // pass rule with the alert keyword: its match is logged
	}
	if r.Firewall {
		// Firewall rules: every action of the list; drop does not imply alert, the alert
		// keyword or a secondary alert action asks for one.
		c.fw, c.scope, c.table = true, h.Scope, firewall.RuleTable(r)
		c.Action = alert.Action(h.ActionFlags(true))
		if r.Alert {
			c.Action |= alert.ActionAlert
		}
	}
	if len(h.Protocol.IPProtos) == 0 {
		c.anyProto = true
	}
	for _, p := range h.Protocol.IPProtos {
		c.ipProtos[p>>6] |= 1 << (p & 63)
		if p == decode.ProtoTCP || p == decode.ProtoUDP || p == decode.ProtoSCTP {
			c.portProto = true
		}
	}
	c.ipv4Only, c.ipv6Only = h.Protocol.IPv4Only, h.Protocol.IPv6Only
	c.src, c.dst, c.sp, c.dp = cloneAddress(h.Src), cloneAddress(h.Dst), clonePort(h.SrcPort), clonePort(h.DstPort)
	var err error
	if c.match, err = match.Compile(r, e.names); err != nil {
		return nil, err
	}
	if c.post, err = match.CompilePost(r, e.names); err != nil {
		return nil, err
	}
	if b := r.Buffer("pkt_data"); b != nil && len(b.Matches) > 0 {
		if c.payload, err = payload.CompileRule(r, b); err != nil {
			return nil, err
		}
		c.needPayload = true
	}
	if b := r.Buffer("tcp.hdr"); b != nil && len(b.Matches) > 0 {
		if c.tcpHdr, err = payload.CompileRule(r, b); err != nil {
			return nil, err
		}
	}
	if c.frames, err = compileFrames(r); err != nil {
		return nil, err
	}
	if c.tx, err = compileTx(r, e.names); err != nil {
		return nil, err
	}
	if c.tx != nil {
		c.needPayload = false // no packet mask for stateful rules (DetectRulePacketRules)
	}
	c.alproto, _ = ruleAppProto(r)
	c.stream = streamModeOf(r)
	if c.frames != nil {
		// DetectRunFrames runs on flow-end pseudo packets too (the frames still open there).
		c.stream.notOnPseudo = false
	}
	for _, o := range r.Matches {
		if o.Name != "dsize" {
			continue
		}
		if m, ok := o.Arg.(rules.IntMatch); ok {
			switch {
			case m.Op == "=" && m.A == 0:
				c.needNoPayload = true
			case m.Op == "=", m.Op == ">", m.Op == ">=", m.Op == "!=", m.Op == "<>":
				c.needPayload = true
			}
		}
	}
	c.tags = compileTags(r.Tags)
	if len(c.tags) > 0 {
		e.hasTags = true
	}
	// The flow_start hook limits a rule without a fast pattern to the first packet of each
	// flow direction (Suricata checks it in the non-prefilter engine only), firewall or not.
	c.flowStart = h.Protocol.Hook == "flow_start"
	c.ipOnly = r.Type() == rules.TypeIPOnly
	c.deOnly = r.Type() == rules.TypeDEOnly
	for _, o := range r.Matches {
		if ev, ok := match.DecodeEvent(o); ok {
			c.event = ev
			break
		}
	}
	switch h.Scope {
	case rules.ScopeFlow:
		c.toFlow = true
	case rules.ScopeAuto:
		switch r.Type() {
		case rules.TypeIPOnly, rules.TypeLikeIPOnly, rules.TypePDOnly, rules.TypeAppLayer, rules.TypeAppTx:
			c.toFlow = true
		}
	}
	c.severity = r.Severity(e.cfg.Classifications)
	out := []*Rule{c}
	if h.Direction == rules.DirBoth && !sameSides(h) {
		rev := *c
		rev.src, rev.dst, rev.sp, rev.dp = c.dst, c.src, c.dp, c.sp
		if c.tx != nil {
			// The build resolves each engine's list in place: each side has its own.
			tx := *c.tx
			tx.protos = slices.Clone(tx.protos)
			for i := range tx.protos {
				tx.protos[i].engines = slices.Clone(tx.protos[i].engines)
			}
			rev.tx = &tx
		}
		out = append(out, &rev)
	}
	for _, o := range out {
		o.srcAll, o.dstAll = o.src != nil && o.src.HoldsAll(), o.dst != nil && o.dst.HoldsAll()
		o.src4, o.dst4 = makeV4Ranges(o.src), makeV4Ranges(o.dst)
		o.synNoToClient = r.ToServer && r.ToClient && synOnly(r) && len(o.dp.Ranges) > 0 &&
			o.dp.Ranges[0] != (rules.PortRange{First: 0, Last: 65535})
	}
	return out, nil
}

// cloneAddress and clonePort copy a header field into fresh memory, so a rule's fields sit next
// to its compiled form rather than wherever the parser put them.
// v4Ranges is an address field's IPv4 ranges as numbers, sorted and disjoint.
type v4Ranges []struct{ first, last uint32 }

func makeV4Ranges(a *rules.Address) v4Ranges {
	if a == nil || len(a.V4) == 0 {
		return nil
	}
	out := make(v4Ranges, len(a.V4))
	for i, r := range a.V4 {
		out[i].first, out[i].last = addr4(r.First), addr4(r.Last)
	}
	return out
}

// contains reports whether ip is in one of the ranges (a binary search for the first range
// whose end is not below ip).
func (rs v4Ranges) contains(ip uint32) bool {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].last < ip {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(rs) && rs[lo].first <= ip
}

// addr4 is an IPv4 address as a number; a must be an IPv4 address.
func addr4(a netip.Addr) uint32 {
	b := a.As4()
	return binary.BigEndian.Uint32(b[:])
}

func cloneAddress(a *rules.Address) *rules.Address {
	if a == nil {
		return nil
	}
	c := *a
	c.V4 = append([]rules.IPRange(nil), a.V4...)
	c.V6 = append([]rules.IPRange(nil), a.V6...)
	return &c
}

func clonePort(p *rules.Port) *rules.Port {
	if p == nil {
		return nil
	}
	c := *p
	c.Ranges = append([]rules.PortRange(nil), p.Ranges...)
	return &c
}

// sameSides reports whether a `<>` rule's two sides are the same addresses and ports:
// Suricata then treats it as unidirectional (SigHasSameSourceAndDestination), so it is not
// doubled and alerts once.
func sameSides(h *rules.Header) bool {
	if !h.SrcPort.Any || !h.DstPort.Any {
		if !slices.Equal(h.SrcPort.Ranges, h.DstPort.Ranges) {
			return false
		}
	}
	if !h.Src.Any || !h.Dst.Any {
		if !slices.Equal(h.Src.V4, h.Dst.V4) || !slices.Equal(h.Src.V6, h.Dst.V6) {
			return false
		}
	}
	return true
}
