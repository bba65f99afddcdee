package applayer

import (
	"net/netip"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

func expectFlow(src, dst string, sp, dp uint16) *flow.Flow {
	return &flow.Flow{SrcIP: netip.MustParseAddr(src), DstIP: netip.MustParseAddr(dst), SrcPort: sp, DstPort: dp}
}

// TestExpectations follows AppLayerExpectationCreate/Handle: the address pair in either
// order, a 0 source port matching any, the direction, one use per expectation, the 30 s
// expiry, and at most 10 per pair (the oldest dropped).
func TestExpectations(t *testing.T) {
	var e Expectations
	ctl := expectFlow("10.0.0.1", "10.0.0.2", 40000, 21)
	e.Create(ctl, flow.ToClient, 0, 5000, ProtoFTPData, "retr", 100)
	// Active mode: the server connects back, so the data flow's addresses are reversed.
	data := expectFlow("10.0.0.2", "10.0.0.1", 20, 5000)
	if p, _ := e.Handle(data, flow.ToServer, 101); p != ProtoUnknown {
		t.Fatalf("wrong direction matched: %v", p)
	}
	if p, d := e.Handle(data, flow.ToClient, 101); p != ProtoFTPData || d != "retr" {
		t.Fatalf("got %v %v", p, d)
	}
	if p, _ := e.Handle(data, flow.ToClient, 101); p != ProtoUnknown || e.Len() != 0 {
		t.Fatalf("expectation used twice: %v, %d left", p, e.Len())
	}
	e.Create(ctl, flow.ToClient, 0, 5001, ProtoFTPData, nil, 100)
	if p, _ := e.Handle(expectFlow("10.0.0.1", "10.0.0.2", 1, 5002), flow.ToClient, 131); p != ProtoUnknown || e.Len() != 0 {
		t.Fatalf("expired expectation kept: %d", e.Len())
	}
	for i := range 12 {
		e.Create(ctl, flow.ToServer, 0, uint16(6000+i), ProtoFTPData, i, 200)
	}
	if e.Len() != ExpectMaxPerPair {
		t.Fatalf("%d expectations for one pair", e.Len())
	}
	if p, _ := e.Handle(expectFlow("10.0.0.1", "10.0.0.2", 1, 6000), flow.ToServer, 200); p != ProtoUnknown {
		t.Errorf("the oldest expectation was not dropped")
	}
	if p, d := e.Handle(expectFlow("10.0.0.1", "10.0.0.2", 1, 6011), flow.ToServer, 200); p != ProtoFTPData || d != 11 {
		t.Errorf("newest: %v %v", p, d)
	}
	e.Clean(ctl)
	if e.Len() != 0 {
		t.Errorf("Clean left %d", e.Len())
	}
}
