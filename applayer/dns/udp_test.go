package dns

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

func udpLayer(t *testing.T, midstream bool, srcPort, dstPort uint16) (*applayer.Layer, *flow.Flow) {
	t.Helper()
	cfg, err := applayer.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Midstream = midstream
	f := &flow.Flow{SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"),
		SrcPort: srcPort, DstPort: dstPort, Proto: 17}
	return applayer.NewLayer(cfg), f
}

func datagram(l *applayer.Layer, f *flow.Flow, dir applayer.Dir, b []byte) (*applayer.FlowApp, bool) {
	l.Begin(f, dir)
	rev := l.UDP(f, dir, b)
	if rev {
		f.Reverse()
		dir = 1 - dir
	}
	return l.Ready(f, dir), rev
}

// TestUDPJunkFirst is AppLayerHandleUdp with a junk first request (test
// dns-udp-junkrequest-first): the to-server side fails, the server's response is detected,
// and the client's next request goes to the parser.
func TestUDPJunkFirst(t *testing.T) {
	l, f := udpLayer(t, false, 40000, 53)
	fa, _ := datagram(l, f, flow.ToServer, bytes.Repeat([]byte{0x30}, 40))
	if fa.Proto != applayer.ProtoFailed || fa.ProtoDir[flow.ToServer] != applayer.ProtoFailed || fa.State != nil {
		t.Fatalf("after junk: %v %v", fa.Proto, fa.ProtoDir)
	}
	fa, _ = datagram(l, f, flow.ToClient, googleResponse())
	if fa.Proto != applayer.ProtoDNS || fa.State == nil || fa.State.TxCount() != 1 || !fa.Updated[flow.ToClient] {
		t.Fatalf("after the response: %v %v", fa.Proto, fa.ProtoDir)
	}
	fa, _ = datagram(l, f, flow.ToServer, googleQuery())
	if fa.State.TxCount() != 2 || !fa.State.TxAt(1).(*Tx).Request || !fa.Updated[flow.ToServer] {
		t.Fatalf("the request after: %d txs", fa.State.TxCount())
	}
	if l.Counters.FailedUDP != 1 || l.Counters.FlowsUDP[applayer.ProtoDNS] != 0 || l.Counters.TxsUDP[applayer.ProtoDNS] != 2 {
		t.Errorf("counters failed %d dns %d txs %d", l.Counters.FailedUDP, l.Counters.FlowsUDP[applayer.ProtoDNS], l.Counters.TxsUDP[applayer.ProtoDNS])
	}
}

// TestUDPReversed: a flow whose first datagram is a response from port 53 is reversed when
// stream.midstream lets the probers try the ports the other way round (test
// dns-reversed-udp-1); without midstream it is not DNS.
func TestUDPReversed(t *testing.T) {
	l, f := udpLayer(t, true, 53, 40000)
	fa, rev := datagram(l, f, flow.ToServer, googleResponse())
	if !rev || f.SrcPort != 40000 || fa.Proto != applayer.ProtoDNS || fa.ProtoDir != [2]applayer.Proto{applayer.ProtoUnknown, applayer.ProtoDNS} {
		t.Fatalf("rev %v ports %d>%d %v %v", rev, f.SrcPort, f.DstPort, fa.Proto, fa.ProtoDir)
	}
	if tx := fa.State.TxAt(0).(*Tx); tx.Request || !fa.Updated[flow.ToClient] {
		t.Error("the response is not a to-client tx")
	}
	l, f = udpLayer(t, false, 53, 40000)
	if fa, rev := datagram(l, f, flow.ToServer, googleResponse()); rev || fa.Proto != applayer.ProtoFailed {
		t.Errorf("without midstream: rev %v %v", rev, fa.Proto)
	}
}

// TestUDPNotPort: a DNS message off the detection ports is not detected.
func TestUDPNotPort(t *testing.T) {
	l, f := udpLayer(t, false, 40000, 5353)
	fa, _ := datagram(l, f, flow.ToServer, googleQuery())
	if fa.Proto != applayer.ProtoFailed {
		t.Errorf("port 5353: %v", fa.Proto)
	}
	// Both sides failed: the flow is given up.
	fa, _ = datagram(l, f, flow.ToClient, googleResponse())
	if fa.Proto != applayer.ProtoFailed || fa.State != nil {
		t.Errorf("after the other side: %v", fa.Proto)
	}
}

// TestUDPRequestsFreed: on a flow of unanswered requests the request txs are freed once the
// to-server side is done with them: they are never inspected to the client, so the
// to-client inspect id does not hold them (AppLayerParserTransactionsCleanup).
func TestUDPRequestsFreed(t *testing.T) {
	l, f := udpLayer(t, false, 40000, 53)
	for i := range 3 {
		fa, _ := datagram(l, f, flow.ToServer, googleQuery())
		fa.InspectID[flow.ToServer] = uint64(i + 1) // what detection's tx stage does
		l.End(f, flow.ToServer, false, true, func(applayer.Tx) bool { return true })
		if n := fa.State.TxCount(); n != 0 {
			t.Fatalf("request %d: %d live txs", i, n)
		}
	}
}
