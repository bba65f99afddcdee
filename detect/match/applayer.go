package match

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// The app-layer keywords that match on the packet: app-layer-protocol and the packet-level
// form of app-layer-event (an event name without a protocol). The protocol-bound
// app-layer-event (http.<name>) is a transaction engine of package detect.
func init() {
	compilers["app-layer-protocol"] = compileAppLayerProtocol
	compilers["app-layer-event"] = compileAppLayerPacketEvent
}

// alprotoMode is the flow protocol app-layer-protocol compares (the keyword's second
// argument).
type alprotoMode uint8

const (
	alprotoDirection alprotoMode = iota // the protocol detected in the packet's direction
	alprotoFinal                        // the flow's protocol
	alprotoEither                       // either direction's
	alprotoToServer
	alprotoToClient
	alprotoOrig // the protocol before a protocol change
)

// alprotoCheck is app-layer-protocol (src/detect-app-layer-protocol.c:
// DetectAppLayerProtocolPacketMatch).
type alprotoCheck struct {
	proto   applayer.Proto
	negated bool
	mode    alprotoMode
	// pdOnly: the rule is protocol-detection-only (SignatureIsPDOnly): it is checked only on
	// the packet that carries a direction's "detection done" flag.
	pdOnly bool
}

// compileAppLayerProtocol parses "[!]name[,mode]" (Value holds it without the '!').
func compileAppLayerProtocol(o *rules.Option, _ *Names) (check, error) {
	name, mode, hasMode := strings.Cut(strings.TrimSpace(o.Value), ",")
	name = strings.TrimSpace(name)
	c := &alprotoCheck{negated: o.Negated}
	switch name {
	case "failed":
		c.proto = applayer.ProtoFailed
	case "unknown":
		if o.Negated {
			return nil, fmt.Errorf("app-layer-protocol keyword can't use negation with protocol 'unknown'")
		}
		c.proto = applayer.ProtoUnknown
	default:
		p, ok := applayer.ProtoByName(name)
		if !ok || p == applayer.ProtoUnknown {
			return nil, fmt.Errorf("app-layer-protocol keyword supplied with unknown protocol %q", name)
		}
		c.proto = p
	}
	if hasMode {
		switch strings.TrimSpace(mode) {
		case "direction":
			c.mode = alprotoDirection
		case "final":
			c.mode = alprotoFinal
		case "original":
			c.mode = alprotoOrig
		case "either":
			c.mode = alprotoEither
		case "to_server":
			c.mode = alprotoToServer
		case "to_client":
			c.mode = alprotoToClient
		default:
			return nil, fmt.Errorf("app-layer-protocol keyword mode %q is invalid", mode)
		}
	}
	return c, nil
}

// match compares the flow's protocols as Suricata does: a negated match never matches while
// the compared protocol is still unknown; "either" compares both directions.
func (c *alprotoCheck) match(in *Input) bool {
	if in.F == nil {
		return false
	}
	var fa applayer.FlowApp // a flow without app layer: every protocol unknown
	if in.App != nil {
		fa = *in.App
	}
	if c.pdOnly && !fa.DetectDone[flow.ToServer] && !fa.DetectDone[flow.ToClient] {
		return false
	}
	var have applayer.Proto
	switch c.mode {
	case alprotoDirection:
		have = fa.ProtoDir[in.Dir]
	case alprotoFinal:
		have = fa.Proto
	case alprotoOrig:
		have = fa.ProtoOrig
	case alprotoToServer:
		have = fa.ProtoDir[flow.ToServer]
	case alprotoToClient:
		have = fa.ProtoDir[flow.ToClient]
	case alprotoEither:
		ts, tc := fa.ProtoDir[flow.ToServer], fa.ProtoDir[flow.ToClient]
		if c.negated && ts == applayer.ProtoUnknown && tc == applayer.ProtoUnknown {
			return false
		}
		return (applayer.Equals(c.proto, ts) || applayer.Equals(c.proto, tc)) != c.negated
	}
	if c.negated && have == applayer.ProtoUnknown {
		return false
	}
	return applayer.Equals(c.proto, have) != c.negated
}

// packetEventCheck is app-layer-event:<name> for a packet-level event
// (src/detect-app-layer-event.c: DetectAppLayerEventPktMatch).
type packetEventCheck struct{ ev applayer.PacketEvent }

func compileAppLayerPacketEvent(o *rules.Option, _ *Names) (check, error) {
	ev, ok := applayer.PacketEventByName(strings.TrimSpace(o.Value))
	if !ok {
		return nil, notSupported("app-layer-event")
	}
	return packetEventCheck{ev}, nil
}

func (c packetEventCheck) match(in *Input) bool { return in.App != nil && in.App.Events.Has(c.ev) }

// markPDOnly tells the app-layer-protocol checks of a protocol-detection-only rule to match
// only on packets that carry a "detection done" flag.
func (m *Matcher) markPDOnly() {
	for _, c := range m.checks {
		if a, ok := c.(*alprotoCheck); ok {
			a.pdOnly = true
		}
	}
}
