package stream

import (
	"reflect"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

var tfoOpt = []byte{34, 2}

// TCP Fast Open: SYN data is reassembled and the SYN is stream-established (SV
// tcp-fastopen-01); a SYN/ACK acking only the SYN ignores the data.
func TestTFO(t *testing.T) {
	c := newConv(t, defaultConfig())
	r := c.send(pkt{flags: fSYN, seq: cISN, opts: tfoOpt, data: "GET / HTTP/1.1\r\n\r\n"})
	if !r.Added || !r.StreamEst || r.Established || c.state() != flow.TCPSynSent {
		t.Fatalf("TFO SYN: %+v state %v", r, c.state())
	}
	c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 19})
	if c.state() != flow.TCPSynRecv || len(c.events()) != 0 {
		t.Fatalf("SYN/ACK: state %v events %v", c.state(), c.events())
	}
	c.send(pkt{flags: fACK, seq: cISN + 19, ack: sISN + 1})
	if c.state() != flow.TCPEstablished {
		t.Fatalf("state %v", c.state())
	}
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 19})
	c.send(pkt{flags: fACK, seq: cISN + 19, ack: sISN + 1})
	if got := c.raw(flow.ToServer, true); !reflect.DeepEqual(got, []string{"GET / HTTP/1.1\r\n\r\n"}) {
		t.Errorf("raw %q", got)
	}

	c = newConv(t, defaultConfig())
	c.send(pkt{flags: fSYN, seq: cISN, opts: tfoOpt, data: "abc"})
	c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1})
	if !c.hasEvent(decode.EventStream3WHSSynAckTFODataIgnored) || c.state() != flow.TCPSynRecv {
		t.Errorf("events %v state %v", c.events(), c.state())
	}
	if !c.tr.SessionReuse(c.f, &decode.Packet{TCPFlags: fSYN, TCPSeq: cISN}, flow.ToServer) {
		t.Errorf("SYN after ignored TFO data is no reuse")
	}
}

// The 4-way handshake: SYN, SYN from the server, SYN/ACK from the client, ACK (SV
// tcp-split-handshake-01-4whs).
func Test4WHS(t *testing.T) {
	c := newConv(t, defaultConfig())
	runSteps(t, c, []step{
		{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
		{k: pkt{fromServer: true, flags: fSYN, seq: sISN}, state: flow.TCPSynSent},
		{k: pkt{flags: fSA, seq: cISN, ack: sISN + 1}, state: flow.TCPSynRecv},
		{k: pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 1}, state: flow.TCPEstablished},
		{k: pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "hello"}, est: true, state: flow.TCPEstablished, added: true},
	})
	c = newConv(t, defaultConfig())
	runSteps(t, c, []step{
		{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
		{k: pkt{fromServer: true, flags: fSYN, seq: sISN}, state: flow.TCPSynSent},
		{k: pkt{flags: fSA, seq: cISN, ack: sISN + 3}, state: flow.TCPSynSent,
			events: []string{"stream.4whs_synack_with_wrong_ack"}, inv: true},
		{k: pkt{flags: fSA, seq: cISN + 3, ack: sISN + 1}, state: flow.TCPSynSent,
			events: []string{"stream.4whs_synack_with_wrong_syn"}, inv: true},
	})
}

// Timestamps: both sides negotiated, an older TSval is rejected (a stream error) with
// pkt_invalid_timestamp (SV bug-3286-02-linux-evasion).
func TestTimestamps(t *testing.T) {
	c := newConv(t, defaultConfig())
	c.send(pkt{flags: fSYN, seq: cISN, ts: &[2]uint32{100, 0}})
	c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1, ts: &[2]uint32{500, 100}})
	c.send(pkt{flags: fACK, seq: cISN + 1, ack: sISN + 1, ts: &[2]uint32{101, 500}})
	if c.state() != flow.TCPEstablished || len(c.events()) != 0 {
		t.Fatalf("state %v events %v", c.state(), c.events())
	}
	r := c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "old", ts: &[2]uint32{50, 500}})
	if !c.hasEvent(decode.EventStreamPktInvalidTimestamp) || !r.Invalid || r.Added {
		t.Errorf("old TS: events %v %+v", c.events(), r)
	}
	r = c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "new", ts: &[2]uint32{102, 500}})
	if len(c.events()) != 0 || !r.Added {
		t.Errorf("new TS: events %v %+v", c.events(), r)
	}
	// A SYN/ACK echoing another timestamp than the SYN's: liberal timestamps let it pass.
	c = newConv(t, defaultConfig())
	c.send(pkt{flags: fSYN, seq: cISN, ts: &[2]uint32{100, 0}})
	c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1, ts: &[2]uint32{500, 99}})
	if c.state() != flow.TCPSynRecv {
		t.Errorf("state %v", c.state())
	}
}

// A zero-window probe is accepted. Its ACK does not raise est_ack_zwp_data: Suricata 8.0.6
// clears the probe flag (ZWP_TS / ZWP_TC) on every packet of the other direction before the
// state handler that would test it runs (StreamTcpPacket), so the event is never set.
func TestZeroWindowProbe(t *testing.T) {
	c := established(t, defaultConfig())
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 4, zeroWin: true})
	r := c.send(pkt{flags: fACK, seq: cISN + 4, ack: sISN + 1, data: "d"})
	if !r.Added {
		t.Fatalf("probe not added: %+v %v", r, c.events())
	}
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 5, zeroWin: true})
	if c.hasEvent(decode.EventStreamEstAckZWPData) {
		t.Errorf("events %v", c.events())
	}
}

func TestSessionReuse(t *testing.T) {
	cfg := defaultConfig()
	syn := func(seq uint32) *decode.Packet { return &decode.Packet{TCPFlags: fSYN, TCPSeq: seq} }
	c := newConv(t, cfg)
	if !c.tr.SessionReuse(c.f, syn(cISN), flow.ToServer) {
		t.Error("no session: SYN is reuse")
	}
	c.handshake(cISN, sISN)
	if c.tr.SessionReuse(c.f, syn(cISN+99), flow.ToServer) {
		t.Error("established: SYN is no reuse")
	}
	c.send(pkt{flags: fRST, seq: cISN + 1})
	if !c.tr.SessionReuse(c.f, syn(cISN+99), flow.ToServer) {
		t.Error("closed: SYN is reuse")
	}
	if c.tr.SessionReuse(c.f, syn(cISN), flow.ToServer) {
		t.Error("same ISN: retransmission, no reuse")
	}
	if c.tr.SessionReuse(c.f, &decode.Packet{TCPFlags: fSA, TCPSeq: 9}, flow.ToClient) {
		t.Error("SYN/ACK without midstream is no reuse")
	}
}

// Resent SYNs are queued: a SYN/ACK may answer an earlier one; past max-syn-queued the
// oldest is evicted with 3whs_syn_flood. SYN/ACKs with other ISNs are queued in SYN_RECV
// and the final ACK picks the one it answers; past max-synack-queued, 3whs_synack_flood.
func TestSynQueues(t *testing.T) {
	c := newConv(t, defaultConfig())
	c.send(pkt{flags: fSYN, seq: cISN})
	c.send(pkt{flags: fSYN, seq: cISN + 5000})
	c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1})
	if c.state() != flow.TCPSynRecv || len(c.events()) != 0 {
		t.Fatalf("SYN/ACK for the first SYN: state %v events %v", c.state(), c.events())
	}
	if n, _ := c.tr.StreamSize(c.f, Client); n != 1 {
		t.Errorf("client ISN not the answered one: size %d", n)
	}

	c = newConv(t, defaultConfig())
	for i := 0; i < 11; i++ {
		c.send(pkt{flags: fSYN, seq: cISN})
		if got := c.hasEvent(decode.EventStream3WHSSynFlood); got != (i == 11) {
			t.Errorf("SYN %d: syn_flood %v", i+1, got)
		}
	}
	c.send(pkt{flags: fSYN, seq: cISN})
	if !c.hasEvent(decode.EventStream3WHSSynFlood) {
		t.Errorf("12th SYN: no syn_flood (%v)", c.events())
	}

	c = newConv(t, defaultConfig())
	c.send(pkt{flags: fSYN, seq: cISN})
	c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1})
	for i := 1; i <= 6; i++ {
		c.send(pkt{fromServer: true, flags: fSA, seq: sISN + uint32(i)*1000, ack: cISN + 1})
		if got := c.hasEvent(decode.EventStream3WHSSynAckFlood); got != (i == 6) {
			t.Errorf("SYN/ACK %d: synack_flood %v", i, got)
		}
	}
	c.send(pkt{flags: fACK, seq: cISN + 1, ack: sISN + 3001})
	if c.state() != flow.TCPEstablished || len(c.events()) != 0 {
		t.Errorf("ACK of a queued SYN/ACK: state %v events %v", c.state(), c.events())
	}
	c.tr.Release(c.f)
	if c.tr.SessionMemuse() != 0 {
		t.Errorf("memuse %d", c.tr.SessionMemuse())
	}
}
