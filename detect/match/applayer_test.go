package match

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// TestAppLayerProtocolModes follows src/detect-app-layer-protocol.c:
// DetectAppLayerProtocolPacketMatch (reference §3.7): the default mode compares the
// protocol of the packet's direction, final the flow's, original the one before a change,
// either both directions, to_server / to_client one; the comparison is AppProtoEquals (http
// matches HTTP/1 and HTTP/2, dcerpc matches SMB); a negated match never matches while the
// compared protocol is unknown. The mode is given as the option's value ("http,final"), as
// Suricata's parser takes it.
func TestAppLayerProtocolModes(t *testing.T) {
	http1, dns, smb, unk := applayer.ProtoHTTP1, applayer.ProtoDNS, applayer.ProtoSMB, applayer.ProtoUnknown
	for _, c := range []struct {
		value   string
		negated bool
		dir     flow.Direction
		ts, tc  applayer.Proto // ProtoDir
		final   applayer.Proto
		orig    applayer.Proto
		want    bool
	}{
		{"http", false, flow.ToServer, http1, unk, http1, unk, true},
		{"http", false, flow.ToClient, http1, unk, http1, unk, false}, // to-client side not detected
		{"http", true, flow.ToClient, http1, unk, http1, unk, false},  // negated, unknown: no match
		{"dns", true, flow.ToServer, http1, http1, http1, unk, true},
		{"http", true, flow.ToServer, http1, http1, http1, unk, false},
		{"http2", false, flow.ToServer, applayer.ProtoHTTP2, unk, applayer.ProtoHTTP2, unk, true},
		{"http", false, flow.ToServer, applayer.ProtoHTTP2, unk, unk, unk, true}, // http is either version
		{"dcerpc", false, flow.ToServer, smb, smb, smb, unk, true},
		{"http,final", false, flow.ToClient, unk, unk, http1, unk, true},
		{"dns,final", true, flow.ToServer, http1, http1, unk, unk, false},
		{"http,to_server", false, flow.ToClient, http1, unk, unk, unk, true},
		{"http,to_client", false, flow.ToServer, http1, unk, unk, unk, false},
		{"http,to_client", true, flow.ToServer, http1, unk, unk, unk, false},
		{"http,either", false, flow.ToServer, unk, http1, unk, unk, true},
		{"dns,either", true, flow.ToServer, unk, unk, unk, unk, false},
		{"dns,either", true, flow.ToServer, unk, http1, unk, unk, true},
		{"http,original", false, flow.ToServer, dns, dns, dns, http1, true},
		{"http,original", true, flow.ToServer, dns, dns, dns, unk, false},
		{"failed", false, flow.ToServer, applayer.ProtoFailed, unk, applayer.ProtoFailed, unk, true},
		{"unknown", false, flow.ToServer, unk, unk, unk, unk, true},
	} {
		chk, err := compileAppLayerProtocol(&rules.Option{Name: "app-layer-protocol", Value: c.value, Negated: c.negated}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		fa := &applayer.FlowApp{ProtoDir: [2]applayer.Proto{c.ts, c.tc}, Proto: c.final, ProtoOrig: c.orig}
		in := &Input{P: &decode.Packet{}, F: flow.NewDetached(), Dir: c.dir, App: fa}
		if got := chk.match(in); got != c.want {
			t.Errorf("%sapp-layer-protocol:%s dir %d ts %s tc %s final %s orig %s: %v, want %v", neg(c.negated), c.value,
				c.dir, c.ts, c.tc, c.final, c.orig, got, c.want)
		}
		if chk.match(&Input{P: &decode.Packet{}, Dir: c.dir, App: fa}) {
			t.Errorf("%s matched a packet without a flow", c.value)
		}
	}
	for _, bad := range []struct {
		value   string
		negated bool
	}{{"unknown", true}, {"nosuch", false}, {"http,sideways", false}} {
		if _, err := compileAppLayerProtocol(&rules.Option{Name: "app-layer-protocol", Value: bad.value, Negated: bad.negated}, nil); err == nil {
			t.Errorf("%s%s accepted", neg(bad.negated), bad.value)
		}
	}
}

func neg(b bool) string {
	if b {
		return "!"
	}
	return ""
}

// TestAppLayerProtocolPDOnly: a protocol-detection-only rule (SignatureIsPDOnly) checks the
// keyword only on a packet with a direction's detection-done flag; a rule with other
// keywords checks it on every packet.
func TestAppLayerProtocolPDOnly(t *testing.T) {
	pd := compile(t, "app-layer-protocol:http;", nil)
	other := compile(t, "app-layer-protocol:http; ttl:64;", nil)
	fa := &applayer.FlowApp{ProtoDir: [2]applayer.Proto{applayer.ProtoHTTP1, applayer.ProtoHTTP1}}
	in := &Input{P: &decode.Packet{IPVersion: 4, TTL: 64}, F: flow.NewDetached(), App: fa}
	if pd.Match(in) || !other.Match(in) {
		t.Errorf("without detection-done: pd-only %v, other %v", pd.Match(in), other.Match(in))
	}
	fa.DetectDone[flow.ToClient] = true
	if !pd.Match(in) {
		t.Error("pd-only rule did not match on the detection-done packet")
	}
}

// TestAppLayerPacketEvent: app-layer-event:<name> without a protocol is a packet match on
// the packet's app-layer events (src/detect-app-layer-event.c: DetectAppLayerEventPktMatch).
func TestAppLayerPacketEvent(t *testing.T) {
	m := compile(t, "app-layer-event:applayer_wrong_direction_first_data;", nil)
	fa := &applayer.FlowApp{}
	in := &Input{P: &decode.Packet{}, F: flow.NewDetached(), App: fa}
	if m.Match(in) {
		t.Error("matched without the event")
	}
	fa.Events.Set(applayer.EventWrongDirectionFirstData)
	if !m.Match(in) {
		t.Error("no match with the event")
	}
	if m.Match(&Input{P: &decode.Packet{}}) {
		t.Error("matched without app layer")
	}
}
