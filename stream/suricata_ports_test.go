package stream

import (
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// Ports of Suricata 8.0.6's src/tests/stream-tcp.c unit tests, checking the session
// fields those tests check.

func (c *conv) ssn() *Session { return c.tr.session(c.f) }

// StreamTcpTest03: a midstream session picked up from a SYN/ACK, then the client's ACK.
func TestSuricataStreamTcpTest03(t *testing.T) {
	cfg := defaultConfig()
	cfg.Midstream = true
	c := newConv(t, cfg)
	c.f.SrcIP, c.f.DstIP, c.f.SrcPort, c.f.DstPort = srvIP, cliIP, 80, 40000
	c.send(pkt{fromServer: true, flags: fSA, seq: 10, ack: 20, win: 5480})
	c.send(pkt{flags: fACK, seq: 20, ack: 11, win: 5480})
	c.send(pkt{flags: fPA, seq: 19, ack: 11, win: 5480})
	s := c.ssn()
	if s.state != flow.TCPEstablished || s.client.nextSeq != 20 || s.server.nextSeq != 11 {
		t.Errorf("state %v client.next_seq %d server.next_seq %d", s.state, s.client.nextSeq, s.server.nextSeq)
	}
}

// StreamTcpTest04: a midstream ACK pickup.
func TestSuricataStreamTcpTest04(t *testing.T) {
	cfg := defaultConfig()
	cfg.Midstream = true
	c := newConv(t, cfg)
	c.send(pkt{flags: fACK, seq: 10, ack: 20, win: 5480})
	c.send(pkt{flags: fPA, seq: 9, ack: 19, win: 5480})
	s := c.ssn()
	if s.state != flow.TCPEstablished || s.client.nextSeq != 10 || s.server.nextSeq != 20 {
		t.Errorf("state %v client.next_seq %d server.next_seq %d", s.state, s.client.nextSeq, s.server.nextSeq)
	}
}

// StreamTcpTest07: PAWS, a midstream session's packet with an older timestamp is rejected.
func TestSuricataStreamTcpTest07(t *testing.T) {
	cfg := defaultConfig()
	cfg.Midstream = true
	c := newConv(t, cfg)
	c.send(pkt{flags: fPA, seq: 10, ack: 20, win: 5480, data: "B", ts: &[2]uint32{10, 11}})
	r := c.send(pkt{flags: fPA, seq: 11, ack: 23, win: 5480, data: "B", ts: &[2]uint32{2, 11}})
	if !r.Invalid || c.ssn().client.nextSeq != 11 || !c.hasEvent(decode.EventStreamPktInvalidTimestamp) {
		t.Errorf("invalid %v client.next_seq %d events %v", r.Invalid, c.ssn().client.nextSeq, c.events())
	}
}

// StreamTcpTest08: PAWS, a valid newer timestamp in window is accepted.
func TestSuricataStreamTcpTest08(t *testing.T) {
	cfg := defaultConfig()
	cfg.Midstream = true
	c := newConv(t, cfg)
	c.send(pkt{flags: fPA, seq: 10, ack: 20, win: 5480, data: "B", ts: &[2]uint32{10, 11}})
	r := c.send(pkt{flags: fPA, seq: 11, ack: 20, win: 5480, data: "B", ts: &[2]uint32{12, 11}})
	if r.Invalid || c.ssn().client.nextSeq != 12 {
		t.Errorf("invalid %v client.next_seq %d events %v", r.Invalid, c.ssn().client.nextSeq, c.events())
	}
}

// StreamTcpTest10: async-oneside, SYN then the client's ACK; a spurious retransmission is
// no error.
func TestSuricataStreamTcpTest10(t *testing.T) {
	cfg := defaultConfig()
	cfg.AsyncOneside = true
	c := newConv(t, cfg)
	c.send(pkt{flags: fSYN, seq: 10, win: 5480})
	c.send(pkt{flags: fACK, seq: 11, ack: 11, win: 5480})
	c.send(pkt{flags: fPA, seq: 11, ack: 11, win: 5480, data: "BBB"})
	r := c.send(pkt{flags: fPA, seq: 6, ack: 11, win: 5480, data: "BBB"})
	s := c.ssn()
	if r.Invalid || s.state != flow.TCPEstablished || s.flags&ssnAsync == 0 || s.server.nextSeq != 11 {
		t.Errorf("invalid %v state %v flags %x server.next_seq %d", r.Invalid, s.state, s.flags, s.server.nextSeq)
	}
	if !c.hasEvent(decode.EventStreamPktSpuriousRetransmission) {
		t.Errorf("events %v", c.events())
	}
}

// StreamTcp4WHSTest01: SYN, SYN (server), SYN/ACK (client), ACK (server).
func TestSuricataStreamTcp4WHSTest01(t *testing.T) {
	c := newConv(t, defaultConfig())
	c.send(pkt{flags: fSYN, seq: 10, win: 5480})
	c.send(pkt{fromServer: true, flags: fSYN, seq: 20, win: 5480})
	if c.ssn().flags&ssn4WHS == 0 {
		t.Fatal("4WHS flag not set")
	}
	c.send(pkt{flags: fSA, seq: 10, ack: 21, win: 5480})
	c.send(pkt{fromServer: true, flags: fACK, seq: 21, ack: 11, win: 5480})
	if c.state() != flow.TCPEstablished {
		t.Errorf("state %v", c.state())
	}
}
