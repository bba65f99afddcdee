package stream

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// Events are listed in numeric order (decode.EventSet.Each).

// step is one packet of a table test and what the stream engine must make of it.
type step struct {
	k      pkt
	est    bool // FLOW_PKT_ESTABLISHED
	state  flow.TCPSessionState
	events []string // stream events on the packet (nil: none)
	added  bool
	inv    bool
}

func runSteps(t *testing.T, c *conv, steps []step) {
	t.Helper()
	for i, s := range steps {
		r := c.send(s.k)
		if r.Established != s.est {
			t.Errorf("packet %d: established %v, want %v", i+1, r.Established, s.est)
		}
		if c.f.PacketEstablished() != s.est {
			t.Errorf("packet %d: flow PacketEstablished %v, want %v", i+1, c.f.PacketEstablished(), s.est)
		}
		if got := c.state(); got != s.state {
			t.Errorf("packet %d: state %v, want %v", i+1, got, s.state)
		}
		if got := c.f.TCP.State; got != s.state {
			t.Errorf("packet %d: flow TCP state %v, want %v", i+1, got, s.state)
		}
		if ev := c.events(); !reflect.DeepEqual(ev, s.events) {
			t.Errorf("packet %d: events %v, want %v", i+1, ev, s.events)
		}
		if r.Added != s.added {
			t.Errorf("packet %d: added %v, want %v", i+1, r.Added, s.added)
		}
		if r.Invalid != s.inv {
			t.Errorf("packet %d: invalid %v, want %v", i+1, r.Invalid, s.inv)
		}
	}
}

const (
	cISN = 1000
	sISN = 5000
)

// The 3WHS: the completing ACK is not established, the next packet is (reference §1.4;
// Suricata's StreamTcpTest01..05 walk the same states).
func TestHandshakeEstablished(t *testing.T) {
	c := newConv(t, defaultConfig())
	runSteps(t, c, []step{
		{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
		{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
		{k: pkt{flags: fACK, seq: cISN + 1, ack: sISN + 1}, state: flow.TCPEstablished},
		{k: pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "GET / HTTP/1.0\r\n\r\n"}, est: true,
			state: flow.TCPEstablished, added: true},
		{k: pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 19}, est: true, state: flow.TCPEstablished},
	})
	if !c.f.TCP.SynAckSeen || c.f.TCP.Flags != fSYN|fACK|fPSH || c.f.TCP.ClientFlags != fSYN|fACK|fPSH ||
		c.f.TCP.ServerFlags != fSA {
		t.Errorf("flow TCP flags %+v", c.f.TCP)
	}
	if c.f.State != flow.StateEstablished {
		t.Errorf("flow state %v", c.f.State)
	}
	if c.tr.Counters.Sessions != 1 || c.tr.Counters.Syn != 1 || c.tr.Counters.SynAck != 1 {
		t.Errorf("counters %+v", c.tr.Counters)
	}
}

// Data on the ACK completing the 3WHS makes that packet established.
func TestHandshakeAckWithData(t *testing.T) {
	c := newConv(t, defaultConfig())
	runSteps(t, c, []step{
		{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
		{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
		{k: pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"}, est: true, state: flow.TCPEstablished, added: true},
	})
}

func TestHandshakeErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"synack wrong ack", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 7}, state: flow.TCPSynSent,
				events: []string{"stream.3whs_synack_with_wrong_ack"}, inv: true},
		}},
		{"synack wrong direction", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynSent,
				events: []string{"stream.3whs_synack_in_wrong_direction"}, inv: true},
		}},
		{"right seq wrong ack", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
			{k: pkt{flags: fACK, seq: cISN + 1, ack: sISN + 9}, state: flow.TCPSynRecv,
				events: []string{"stream.3whs_right_seq_wrong_ack_evasion"}, inv: true},
		}},
		{"wrong seq wrong ack", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
			{k: pkt{flags: fACK, seq: cISN + 100000, ack: sISN + 9}, state: flow.TCPSynRecv,
				events: []string{"stream.3whs_wrong_seq_wrong_ack"}, inv: true},
		}},
		{"synack to server on syn_recv", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
			{k: pkt{flags: fSA, seq: cISN, ack: sISN + 1}, state: flow.TCPSynRecv,
				events: []string{"stream.3whs_synack_toserver_on_syn_recv"}, inv: true},
		}},
		{"syn resend diff seq on syn_recv", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
			{k: pkt{flags: fSYN, seq: cISN + 55}, state: flow.TCPSynRecv,
				events: []string{"stream.3whs_syn_resend_diff_seq_on_syn_recv"}, inv: true},
		}},
		{"server data before the final ACK (IDS accepts)", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
			{k: pkt{fromServer: true, flags: fPA, seq: sISN + 1, ack: cISN + 1, data: "220 hi"},
				state: flow.TCPEstablished, added: true},
		}},
		{"est syn resend", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
			{k: pkt{flags: fACK, seq: cISN + 1, ack: sISN + 1}, state: flow.TCPEstablished},
			{k: pkt{flags: fSYN, seq: cISN, ack: cISN}, est: true, state: flow.TCPEstablished,
				events: []string{"stream.est_syn_resend", "stream.pkt_broken_ack"}, inv: true},
		}},
		{"est synack to server", []step{
			{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
			{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
			{k: pkt{flags: fACK, seq: cISN + 1, ack: sISN + 1}, state: flow.TCPEstablished},
			{k: pkt{flags: fSA, seq: cISN + 1, ack: sISN + 1}, est: true, state: flow.TCPEstablished,
				events: []string{"stream.est_synack_toserver"}, inv: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, newConv(t, defaultConfig()), tc.steps) })
	}
}

// Inline mode rejects a to_client ACK in SYN_RECV (3whs_ack_in_wrong_dir) and data exactly
// at the server's next_seq (3whs_ack_data_inject).
func TestSynRecvInlineWrongDir(t *testing.T) {
	cfg := defaultConfig()
	cfg.Inline = true
	c := newConv(t, cfg)
	runSteps(t, c, []step{
		{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
		{k: pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1}, state: flow.TCPSynRecv},
		{k: pkt{fromServer: true, flags: fPA, seq: sISN + 1, ack: cISN + 1, data: "x"}, state: flow.TCPSynRecv,
			events: []string{"stream.3whs_ack_data_inject"}, inv: true},
		{k: pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 1}, state: flow.TCPSynRecv,
			events: []string{"stream.3whs_ack_in_wrong_dir"}, inv: true},
	})
}

func TestNoSessionPackets(t *testing.T) {
	c := newConv(t, defaultConfig())
	runSteps(t, c, []step{
		{k: pkt{flags: fRA, seq: 1, ack: 2}, state: flow.TCPNone, events: []string{"stream.rst_but_no_session"}, inv: true},
		{k: pkt{flags: fFA, seq: 1, ack: 2}, state: flow.TCPNone, events: []string{"stream.fin_but_no_session"}, inv: true},
		// Without midstream, an ACK starts nothing and is never established.
		{k: pkt{flags: fPA, seq: 1, ack: 2, data: "x"}, state: flow.TCPNone},
		{k: pkt{fromServer: true, flags: fSA, seq: 1, ack: 2}, state: flow.TCPNone},
	})
	if c.tr.Counters.Sessions != 0 || c.f.TCP.Session {
		t.Errorf("session made: %+v", c.tr.Counters)
	}
}

// Midstream ACK pickup: the first packet is not established, later ones are (§1.4; SV
// alert-testmyids-midstream3).
func TestMidstreamAckPickup(t *testing.T) {
	cfg := defaultConfig()
	cfg.Midstream = true
	c := newConv(t, cfg)
	runSteps(t, c, []step{
		{k: pkt{flags: fPA, seq: 100, ack: 900, data: "GET / HTTP/1.1\r\n\r\n"}, state: flow.TCPEstablished, added: true},
		{k: pkt{fromServer: true, flags: fPA, seq: 900, ack: 118, data: "HTTP/1.1 200 OK\r\n\r\n"}, est: true,
			state: flow.TCPEstablished, added: true},
		{k: pkt{flags: fACK, seq: 118, ack: 919}, est: true, state: flow.TCPEstablished},
	})
	if !c.last.StreamEst || c.tr.Counters.Midstream != 1 {
		t.Errorf("StreamEst %v, midstream %d", c.last.StreamEst, c.tr.Counters.Midstream)
	}
	if d, _ := c.app(flow.ToServer); d != "GET / HTTP/1.1\r\n\r\n" {
		t.Errorf("app to_server %q", d)
	}
	if d, _ := c.app(flow.ToClient); d != "HTTP/1.1 200 OK\r\n\r\n" {
		t.Errorf("app to_client %q", d)
	}
}

// A SYN/ACK pickup reverses the flow and the packet (SV alert-testmyids-midstream5).
func TestMidstreamSynAckPickupReverses(t *testing.T) {
	cfg := defaultConfig()
	cfg.Midstream = true
	c := newConv(t, cfg)
	// The flow was made by the SYN/ACK's sender.
	c.f.SrcIP, c.f.DstIP, c.f.SrcPort, c.f.DstPort = srvIP, cliIP, 80, 40000
	r := c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1})
	if r.Dir != flow.ToClient || c.f.SrcIP != cliIP || c.f.DstPort != 80 {
		t.Fatalf("not reversed: dir %v src %v dport %d", r.Dir, c.f.SrcIP, c.f.DstPort)
	}
	if c.state() != flow.TCPSynRecv || r.Established {
		t.Fatalf("state %v est %v", c.state(), r.Established)
	}
	runSteps(t, c, []step{
		{k: pkt{flags: fACK, seq: cISN + 1, ack: sISN + 1}, state: flow.TCPEstablished},
		{k: pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "hi"}, est: true, state: flow.TCPEstablished, added: true},
	})
	if c.last.Dir != flow.ToServer {
		t.Errorf("client packet dir %v", c.last.Dir)
	}
}

// async-oneside: only the client side is seen; data counts as ACKed at once and the app
// layer is fed in the packet's direction (SV bug-2491-02).
func TestAsyncOneside(t *testing.T) {
	cfg := defaultConfig()
	cfg.AsyncOneside = true
	c := newConv(t, cfg)
	runSteps(t, c, []step{
		{k: pkt{flags: fSYN, seq: cISN}, state: flow.TCPSynSent},
		{k: pkt{flags: fACK, seq: cISN + 1, ack: sISN + 1}, state: flow.TCPEstablished},
		{k: pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "GET /a HTTP/1.0\r\n\r\n"}, est: true,
			state: flow.TCPEstablished, added: true},
	})
	if !c.last.AppUpdate[flow.ToServer] || c.last.AppUpdate[flow.ToClient] {
		t.Errorf("app update %v", c.last.AppUpdate)
	}
	if d, _ := c.app(flow.ToServer); d != "GET /a HTTP/1.0\r\n\r\n" {
		t.Errorf("app %q", d)
	}
	c2 := newConv(t, cfg)
	c2.send(pkt{flags: fSYN, seq: cISN})
	c2.send(pkt{flags: fACK, seq: cISN + 5, ack: sISN + 1})
	if !c2.hasEvent(decode.EventStream3WHSAsyncWrongSeq) || c2.state() != flow.TCPSynSent {
		t.Errorf("async wrong seq: %v %v", c2.events(), c2.state())
	}
}

func established(t *testing.T, cfg Config) *conv {
	c := newConv(t, cfg)
	c.handshake(cISN, sISN)
	if c.state() != flow.TCPEstablished {
		t.Fatalf("handshake: state %v", c.state())
	}
	return c
}

// RST acceptance by the receiver's OS policy (StreamTcpValidateRst).
func TestRstValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy Policy
		seq    uint32
		closed bool
	}{
		{"bsd exact", PolicyBSD, cISN + 1, true},
		{"bsd in window", PolicyBSD, cISN + 100, false},
		{"windows off by one", PolicyWindows, cISN + 2, false},
		{"linux in window", PolicyLinux, cISN + 100, true},
		{"linux past window", PolicyLinux, cISN + 1 + 70000, false},
		{"hpux11 ahead", PolicyHPUX11, cISN + 500, true},
		{"hpux11 behind", PolicyHPUX11, cISN, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaultConfig()
			pol := tc.policy
			cfg.PolicyFor = func(netip.Addr) Policy { return pol }
			c := established(t, cfg)
			r := c.send(pkt{flags: fRST, seq: tc.seq})
			if got := c.state() == flow.TCPClosed; got != tc.closed {
				t.Errorf("closed %v, want %v (state %v)", got, tc.closed, c.state())
			}
			if r.Invalid == tc.closed {
				t.Errorf("invalid %v", r.Invalid)
			}
			if tc.closed && c.f.State != flow.StateClosed {
				t.Errorf("flow state %v", c.f.State)
			}
		})
	}
}

func TestRstWithDataAndInvalidAck(t *testing.T) {
	c := established(t, defaultConfig())
	c.send(pkt{flags: fRA, seq: cISN + 1, ack: sISN + 100000, data: "bye"})
	if !c.hasEvent(decode.EventStreamRstWithData) || !c.hasEvent(decode.EventStreamRstInvalidAck) ||
		c.state() != flow.TCPEstablished || c.last.Added {
		t.Errorf("events %v state %v added %v", c.events(), c.state(), c.last.Added)
	}
	c.send(pkt{flags: fRA, seq: cISN + 1, ack: sISN + 1, data: "bye"})
	if c.state() != flow.TCPClosed || c.last.Added {
		t.Errorf("state %v added %v", c.state(), c.last.Added)
	}
}

// The closing sequences: client first (ESTABLISHED, CLOSE_WAIT, LAST_ACK, CLOSED, as
// Suricata names them from the server's side) and server first (FIN_WAIT1, FIN_WAIT2,
// TIME_WAIT, CLOSED).
func TestFinClosing(t *testing.T) {
	t.Run("client first", func(t *testing.T) {
		c := established(t, defaultConfig())
		runSteps(t, c, []step{
			{k: pkt{flags: fFA, seq: cISN + 1, ack: sISN + 1}, est: true, state: flow.TCPCloseWait},
			{k: pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 2}, est: true, state: flow.TCPCloseWait},
			{k: pkt{fromServer: true, flags: fFA, seq: sISN + 1, ack: cISN + 2}, est: true, state: flow.TCPLastAck},
			{k: pkt{flags: fACK, seq: cISN + 2, ack: sISN + 2}, est: true, state: flow.TCPClosed},
		})
	})
	t.Run("server first", func(t *testing.T) {
		c := established(t, defaultConfig())
		runSteps(t, c, []step{
			{k: pkt{fromServer: true, flags: fFA, seq: sISN + 1, ack: cISN + 1}, est: true, state: flow.TCPFinWait1},
			{k: pkt{flags: fACK, seq: cISN + 1, ack: sISN + 2}, est: true, state: flow.TCPFinWait2},
			{k: pkt{flags: fFA, seq: cISN + 1, ack: sISN + 2}, est: true, state: flow.TCPTimeWait},
			{k: pkt{fromServer: true, flags: fACK, seq: sISN + 2, ack: cISN + 2}, est: true, state: flow.TCPClosed},
		})
		if c.f.State != flow.StateClosed {
			t.Errorf("flow state %v", c.f.State)
		}
	})
	t.Run("simultaneous", func(t *testing.T) {
		c := established(t, defaultConfig())
		runSteps(t, c, []step{
			{k: pkt{fromServer: true, flags: fFA, seq: sISN + 1, ack: cISN + 1}, est: true, state: flow.TCPFinWait1},
			{k: pkt{flags: fFIN, seq: cISN + 1}, est: true, state: flow.TCPClosing},
			{k: pkt{fromServer: true, flags: fACK, seq: sISN + 2, ack: cISN + 2}, est: true, state: flow.TCPTimeWait},
		})
	})
	t.Run("fin out of window", func(t *testing.T) {
		c := established(t, defaultConfig())
		runSteps(t, c, []step{
			{k: pkt{flags: fFA, seq: cISN + 1 + 200000, ack: sISN + 1}, est: true, state: flow.TCPEstablished,
				events: []string{"stream.fin_out_of_window"}, inv: true},
			{k: pkt{flags: fFA, seq: cISN + 1, ack: sISN + 1 + 900000}, est: true, state: flow.TCPEstablished,
				events: []string{"stream.fin_invalid_ack", "stream.pkt_invalid_ack"}, inv: true},
			{k: pkt{flags: fFA, seq: cISN + 1, ack: sISN + 1}, est: true, state: flow.TCPCloseWait},
			{k: pkt{flags: fSYN, seq: cISN}, est: true, state: flow.TCPCloseWait,
				events: []string{"stream.shutdown_syn_resend"}, inv: true},
		})
	})
}

// Out-of-window data and retransmissions before last_ack are events, not stream errors,
// and are not added.
func TestEstablishedWindowAndRetransmission(t *testing.T) {
	c := established(t, defaultConfig())
	runSteps(t, c, []step{
		{k: pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "hello world"}, est: true,
			state: flow.TCPEstablished, added: true},
		{k: pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 12}, est: true, state: flow.TCPEstablished},
		{k: pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "hello"}, est: true, state: flow.TCPEstablished,
			events: []string{"stream.est_pkt_before_last_ack", "stream.pkt_spurious_retransmission"}},
		{k: pkt{flags: fPA, seq: cISN + 12 + 100000, ack: sISN + 1, data: "far"}, est: true,
			state: flow.TCPEstablished, events: []string{"stream.est_packet_out_of_window"}},
		{k: pkt{flags: fPA, seq: cISN + 12, ack: sISN + 1 + 900000, data: "x"}, est: true, state: flow.TCPEstablished,
			events: []string{"stream.est_invalid_ack", "stream.pkt_invalid_ack"}},
	})
}

// Checksum errors are not tracked (§1.16).
func TestBadChecksumNotTracked(t *testing.T) {
	c := established(t, defaultConfig())
	r := c.send(pkt{flags: fFA, seq: cISN + 1, ack: sISN + 1, badCsum: true})
	if c.state() != flow.TCPEstablished || !r.Established || c.tr.Counters.InvalidChecksum != 1 {
		t.Errorf("state %v est %v counters %+v", c.state(), r.Established, c.tr.Counters)
	}
}

// Keep-alives and their ACKs skip the state handling.
func TestKeepAlive(t *testing.T) {
	c := established(t, defaultConfig())
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 4})
	c.send(pkt{flags: fACK, seq: cISN + 3, ack: sISN + 1, data: "c"}) // keep-alive, 1 garbage byte
	if c.last.Added || len(c.events()) != 0 {
		t.Errorf("keep-alive added %v events %v", c.last.Added, c.events())
	}
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 4})
	if len(c.events()) != 0 {
		t.Errorf("keep-alive ack events %v", c.events())
	}
}

// N data bytes give stream_size N+1 (§2.6).
func TestStreamSize(t *testing.T) {
	c := newConv(t, defaultConfig())
	if _, ok := c.tr.StreamSize(c.f, Client); ok {
		t.Fatal("stream size without a session")
	}
	c.handshake(cISN, sISN)
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "0123456789"})
	c.send(pkt{fromServer: true, flags: fPA, seq: sISN + 1, ack: cISN + 11, data: "abc"})
	if n, ok := c.tr.StreamSize(c.f, Client); !ok || n != 11 {
		t.Errorf("client stream size %d %v", n, ok)
	}
	if n, _ := c.tr.StreamSize(c.f, Server); n != 4 {
		t.Errorf("server stream size %d", n)
	}
}

// stream.memcap bounds the sessions (tcp.ssn_memcap_drop).
func TestSessionMemcap(t *testing.T) {
	cfg := defaultConfig()
	cfg.Memcap = sessionCost
	tr := NewTracker(cfg)
	a := newConvOn(t, tr)
	a.send(pkt{flags: fSYN, seq: cISN})
	b := newConvOn(t, tr)
	r := b.send(pkt{flags: fSYN, seq: cISN})
	if b.state() != flow.TCPNone || !r.Invalid || tr.Counters.SsnMemcapDrop != 1 {
		t.Errorf("second session: state %v counters %+v", b.state(), tr.Counters)
	}
	tr.Release(a.f)
	b2 := newConvOn(t, tr)
	b2.send(pkt{flags: fSYN, seq: cISN})
	if b2.state() != flow.TCPSynSent || tr.SessionMemuse() != sessionCost {
		t.Errorf("after release: state %v memuse %d", b2.state(), tr.SessionMemuse())
	}
	tr.Release(b2.f)
	if tr.SessionMemuse() != 0 || tr.Counters.ActiveSessions != 0 {
		t.Errorf("memuse %d active %d", tr.SessionMemuse(), tr.Counters.ActiveSessions)
	}
}

// Suspected RST injection: a RST in SYN_SENT followed by more traffic from its sender.
func TestSuspectedRstInject(t *testing.T) {
	c := newConv(t, defaultConfig())
	c.send(pkt{flags: fSYN, seq: cISN})
	c.send(pkt{fromServer: true, flags: fRA, seq: 0, ack: cISN + 1})
	if c.state() != flow.TCPClosed {
		t.Fatalf("state %v", c.state())
	}
	c.send(pkt{fromServer: true, flags: fSA, seq: sISN, ack: cISN + 1})
	if !c.hasEvent(decode.EventStreamSuspectedRstInject) {
		t.Errorf("events %v", c.events())
	}
}

func TestCountersEachAdd(t *testing.T) {
	c := established(t, defaultConfig())
	var sum Counters
	sum.Add(&c.tr.Counters)
	sum.Add(&c.tr.Counters)
	names := map[string]uint64{}
	sum.Each(func(n string, v uint64) { names[n] = v })
	if names["tcp.sessions"] != 2 || names["tcp.syn"] != 2 || names["tcp.synack"] != 2 {
		t.Errorf("each %v", names)
	}
	n := 0
	sum.EachEvent(func(name string, v uint64) {
		if len(name) < 7 || name[:7] != "stream." {
			t.Errorf("event counter %q", name)
		}
		n++
	})
	if n != numStreamEvents {
		t.Errorf("%d event counters", n)
	}
}

// PKT_STREAM_EST is what detection needs to inspect a packet's raw stream and transactions
// (src/detect.c: DetectRunSetup, DetectRun). src/stream-tcp.c sets it at the end of
// StreamTcpPacket only: StreamTcp returns before StreamTcpPacket on a bad checksum, an
// urgent-data drop returns before the session block, and a state handler's -1 ("goto error")
// skips it; HandleEstablishedPacketToServer's errors (out of window, before last_ack) are
// events only, as StreamTcpPacketStateEstablished ignores its return value.
func TestStreamEstOnlyWithoutStreamError(t *testing.T) {
	inline := defaultConfig()
	inline.Inline, inline.Urgent = true, UrgentDrop
	for _, tc := range []struct {
		name      string
		cfg       Config
		k         pkt
		est       bool // FLOW_PKT_ESTABLISHED
		streamEst bool // PKT_STREAM_EST
	}{
		{"valid data", defaultConfig(), pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"}, true, true},
		{"bad checksum", defaultConfig(), pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc", badCsum: true}, true, false},
		{"RST out of window", defaultConfig(), pkt{flags: fRST, seq: cISN + 1 + 1000000, ack: sISN + 1}, true, false},
		{"SYN to client", defaultConfig(), pkt{fromServer: true, flags: fSYN, seq: sISN + 1}, true, false},
		{"out of window data", defaultConfig(), pkt{flags: fPA, seq: cISN + 1 + 100000, ack: sISN + 1, data: "far"}, true, true},
		{"urgent dropped inline", inline, pkt{flags: fPA | decode.TCPFlagURG, seq: cISN + 1, ack: sISN + 1, data: "abc", urg: 1}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := established(t, tc.cfg)
			r := c.send(tc.k)
			if r.Established != tc.est || r.StreamEst != tc.streamEst {
				t.Errorf("established %v stream established %v, want %v %v", r.Established, r.StreamEst, tc.est, tc.streamEst)
			}
		})
	}
}

// NextSeq is the th_seq of a flow-end pseudo packet (src/flow-timeout.c:
// FlowPseudoPacketSetup: ssn->client.next_seq to_server, ssn->server.next_seq to_client).
func TestNextSeqForPseudoPacket(t *testing.T) {
	c := established(t, defaultConfig())
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"})
	if got := c.tr.NextSeq(c.f, flow.ToServer); got != cISN+4 {
		t.Errorf("to_server next_seq %d, want %d", got, cISN+4)
	}
	if got := c.tr.NextSeq(c.f, flow.ToClient); got != sISN+1 {
		t.Errorf("to_client next_seq %d, want %d", got, sISN+1)
	}
}
