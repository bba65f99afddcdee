package flow

import (
	"net/netip"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
)

var t0 = time.Date(2026, 1, 15, 10, 0, 0, 123456000, time.UTC)

func testConfig() Config {
	d := Timeouts{New: 30 * time.Second, Established: 300 * time.Second, Closed: 0,
		EmergencyNew: 10 * time.Second, EmergencyEstablished: 100 * time.Second}
	tcp := Timeouts{New: 60 * time.Second, Established: 600 * time.Second, Closed: 60 * time.Second,
		EmergencyNew: 5 * time.Second, EmergencyEstablished: 100 * time.Second, EmergencyClosed: 10 * time.Second}
	return Config{MaxFlows: 1000, TCP: tcp, UDP: d, ICMP: d, Default: d, VLANTracking: true}
}

func tcpPkt(src, dst string, sp, dp uint16, flags uint8, at time.Duration) *decode.Packet {
	p := &decode.Packet{
		Data: make([]byte, 60), Timestamp: t0.Add(at), IPVersion: 4,
		SrcIP: netip.MustParseAddr(src), DstIP: netip.MustParseAddr(dst),
		IPProto: decode.ProtoTCP, HasL4: true, SrcPort: sp, DstPort: dp, TCPFlags: flags,
	}
	if flags&decode.TCPFlagPSH != 0 {
		p.Payload = []byte("data")
	}
	return p
}

func udpPkt(src, dst string, sp, dp uint16, at time.Duration) *decode.Packet {
	return &decode.Packet{
		Data: make([]byte, 80), Timestamp: t0.Add(at), IPVersion: 4,
		SrcIP: netip.MustParseAddr(src), DstIP: netip.MustParseAddr(dst),
		IPProto: decode.ProtoUDP, HasL4: true, SrcPort: sp, DstPort: dp,
	}
}

const (
	syn    = decode.TCPFlagSYN
	ack    = decode.TCPFlagACK
	fin    = decode.TCPFlagFIN
	rst    = decode.TCPFlagRST
	synack = syn | ack
	finack = fin | ack
)

func TestTCPLifecycle(t *testing.T) {
	type step struct {
		fromClient bool
		flags      uint8
		wantTCP    TCPSessionState
		wantState  State
		wantEst    bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"handshake and client close", []step{
			{true, syn, TCPSynSent, StateNew, false},
			{false, synack, TCPSynRecv, StateNew, false},
			// Like Suricata, the ACK that completes the handshake is not yet "established";
			// the packet after it is.
			{true, ack, TCPEstablished, StateEstablished, false},
			{true, ack | decode.TCPFlagPSH, TCPEstablished, StateEstablished, true},
			{true, finack, TCPFinWait1, StateEstablished, true},
			{false, ack, TCPFinWait2, StateEstablished, true},
			{false, finack, TCPTimeWait, StateClosed, true},
			{true, ack, TCPClosed, StateClosed, true},
		}},
		{"server closes first", []step{
			{true, syn, TCPSynSent, StateNew, false},
			{false, synack, TCPSynRecv, StateNew, false},
			{true, ack, TCPEstablished, StateEstablished, false},
			{false, finack, TCPCloseWait, StateEstablished, true},
			{true, finack, TCPLastAck, StateClosed, true},
			{false, ack, TCPClosed, StateClosed, true},
		}},
		{"reset after handshake", []step{
			{true, syn, TCPSynSent, StateNew, false},
			{false, synack, TCPSynRecv, StateNew, false},
			{true, ack | decode.TCPFlagPSH, TCPEstablished, StateEstablished, true}, // data on the last ACK
			{false, rst, TCPClosed, StateClosed, true},
		}},
		{"no SYN, no session (midstream off)", []step{
			{true, ack, TCPNone, StateNew, false},
			{false, ack, TCPNone, StateNew, false},
		}},
		{"SYN answered by RST", []step{
			{true, syn, TCPSynSent, StateNew, false},
			{false, rst | ack, TCPClosed, StateClosed, false},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := NewTable(testConfig(), 1024, 16)
			for i, s := range tc.steps {
				var p *decode.Packet
				if s.fromClient {
					p = tcpPkt("10.0.0.1", "10.0.0.2", 40000, 80, s.flags, time.Duration(i)*time.Millisecond)
				} else {
					p = tcpPkt("10.0.0.2", "10.0.0.1", 80, 40000, s.flags, time.Duration(i)*time.Millisecond)
				}
				f, dir := tb.Packet(p)
				if f == nil {
					t.Fatalf("step %d: no flow", i)
				}
				wantDir := ToServer
				if !s.fromClient {
					wantDir = ToClient
				}
				if dir != wantDir {
					t.Errorf("step %d: direction %v, want %v", i, dir, wantDir)
				}
				if f.TCP.State != s.wantTCP || f.State != s.wantState {
					t.Errorf("step %d: tcp %v flow %v, want %v %v", i, f.TCP.State, f.State, s.wantTCP, s.wantState)
				}
				if got := f.PacketEstablished(); got != s.wantEst {
					t.Errorf("step %d: established %v, want %v", i, got, s.wantEst)
				}
			}
			if tb.Len() != 1 {
				t.Errorf("table holds %d flows, want 1", tb.Len())
			}
		})
	}
}

func TestUDPEstablishedAndCounters(t *testing.T) {
	tb := NewTable(testConfig(), 1024, 16)
	f, dir := tb.Packet(udpPkt("192.168.1.10", "192.168.1.1", 5353, 53, 0))
	if dir != ToServer || f.State != StateNew || f.PacketEstablished() {
		t.Fatalf("first packet: dir %v state %v", dir, f.State)
	}
	g, dir := tb.Packet(udpPkt("192.168.1.1", "192.168.1.10", 53, 5353, time.Millisecond))
	if g != f || dir != ToClient || f.State != StateEstablished {
		t.Fatalf("reply: same flow %v dir %v state %v", g == f, dir, f.State)
	}
	if f.PktsToServer != 1 || f.PktsToClient != 1 || f.BytesToServer != 80 || f.BytesToClient != 80 {
		t.Errorf("counters %d/%d %d/%d", f.PktsToServer, f.PktsToClient, f.BytesToServer, f.BytesToClient)
	}
	if f.SrcIP.String() != "192.168.1.10" || f.SrcPort != 5353 {
		t.Errorf("client side is %v:%d", f.SrcIP, f.SrcPort)
	}
	if tb.Counters.UDP != 1 || tb.Counters.Total != 1 {
		t.Errorf("counters %+v", tb.Counters)
	}
}

func TestSamePortsDirectionByAddress(t *testing.T) {
	tb := NewTable(testConfig(), 1024, 16)
	f, _ := tb.Packet(udpPkt("10.0.0.9", "10.0.0.3", 500, 500, 0))
	_, dir := tb.Packet(udpPkt("10.0.0.3", "10.0.0.9", 500, 500, time.Millisecond))
	if dir != ToClient || f.PktsToClient != 1 {
		t.Errorf("reply with equal ports: dir %v", dir)
	}
}

func TestTimeoutsAndShutdown(t *testing.T) {
	var ended []*Flow
	var reasons []EndReason
	cfg := testConfig()
	cfg.OnEnd = func(f *Flow) {
		c := *f
		ended = append(ended, &c)
		reasons = append(reasons, f.EndReason)
	}
	tb := NewTable(cfg, 1024, 16)
	tb.Packet(udpPkt("10.0.0.1", "10.0.0.2", 1000, 53, 0))
	tb.Packet(tcpPkt("10.0.0.1", "10.0.0.2", 1001, 80, syn, 0))
	// 31 s later the UDP flow (new, 30 s) has timed out; the TCP one (new, 60 s) has not.
	tb.Packet(udpPkt("10.0.0.1", "10.0.0.3", 1002, 53, 31*time.Second))
	if len(ended) != 1 || ended[0].Proto != decode.ProtoUDP || reasons[0] != EndTimeout {
		t.Fatalf("after 31 s: ended %d flows", len(ended))
	}
	tb.Packet(udpPkt("10.0.0.1", "10.0.0.3", 1002, 53, 55*time.Second)) // keeps its flow alive
	tb.Packet(udpPkt("10.0.0.1", "10.0.0.3", 1002, 53, 62*time.Second))
	if len(ended) != 2 || ended[1].Proto != decode.ProtoTCP {
		t.Fatalf("after 62 s: ended %d flows", len(ended))
	}
	tb.Shutdown()
	if len(ended) != 3 || reasons[2] != EndShutdown || tb.Len() != 0 {
		t.Fatalf("shutdown: ended %d, reason %v, left %d", len(ended), reasons[2], tb.Len())
	}
	if ended[2].PktsToServer != 3 {
		t.Errorf("surviving flow saw %d packets, want 3", ended[2].PktsToServer)
	}
	if tb.Counters.TimedOut != 2 || tb.Counters.Active != 0 {
		t.Errorf("counters %+v", tb.Counters)
	}
}

func TestMaxFlows(t *testing.T) {
	cfg := testConfig()
	cfg.MaxFlows = 2
	tb := NewTable(cfg, 1024, 0)
	for i := 0; i < 3; i++ {
		f, _ := tb.Packet(udpPkt("10.0.0.1", "10.0.0.2", uint16(1000+i), 53, 0))
		if (f == nil) != (i == 2) {
			t.Fatalf("packet %d: flow %v", i, f)
		}
	}
	if tb.Counters.Memcap != 1 || tb.Len() != 2 {
		t.Errorf("memcap %d len %d", tb.Counters.Memcap, tb.Len())
	}
	// Once the emergency timeout (10 s) passed, a new flow evicts the old ones.
	if f, _ := tb.Packet(udpPkt("10.0.0.1", "10.0.0.2", 2000, 53, 11*time.Second)); f == nil {
		t.Errorf("no flow after emergency eviction")
	}
}

func TestNoFlow(t *testing.T) {
	tb := NewTable(testConfig(), 1024, 0)
	icmpErr := &decode.Packet{Timestamp: t0, IPVersion: 4, SrcIP: netip.MustParseAddr("1.1.1.1"),
		DstIP: netip.MustParseAddr("2.2.2.2"), IPProto: decode.ProtoICMP, HasL4: true, ICMPType: 3}
	frag := udpPkt("1.1.1.1", "2.2.2.2", 0, 0, 0)
	frag.IsFragment, frag.HasL4 = true, false
	noIP := &decode.Packet{Timestamp: t0}
	for name, p := range map[string]*decode.Packet{"icmp error": icmpErr, "fragment": frag, "no ip": noIP} {
		if f, _ := tb.Packet(p); f != nil {
			t.Errorf("%s got a flow", name)
		}
	}
}

func TestVLANTracking(t *testing.T) {
	for _, tracking := range []bool{true, false} {
		cfg := testConfig()
		cfg.VLANTracking = tracking
		tb := NewTable(cfg, 1024, 0)
		a := udpPkt("10.0.0.1", "10.0.0.2", 1, 2, 0)
		b := udpPkt("10.0.0.1", "10.0.0.2", 1, 2, 0)
		a.VLAN[0], a.VLANCount = 10, 1
		b.VLAN[0], b.VLANCount = 20, 1
		tb.Packet(a)
		tb.Packet(b)
		want := 1
		if tracking {
			want = 2
		}
		if tb.Len() != want {
			t.Errorf("tracking %v: %d flows, want %d", tracking, tb.Len(), want)
		}
	}
}

func TestFlowID(t *testing.T) {
	f := &Flow{Start: time.Unix(0x12345, 0x6789*1000), Hash: 0xdeadbeef}
	want := uint64(0x2345)<<48 | uint64(0x6789)<<32 | 0xdeadbeef
	want &= 0x7ffffffffffff
	if got := f.ID(); got != want {
		t.Errorf("ID = %#x, want %#x", got, want)
	}
	// Both directions hash alike.
	tb := NewTable(testConfig(), 1024, 0)
	k1, _ := tb.KeyOf(udpPkt("10.0.0.1", "10.0.0.2", 1, 2, 0))
	k2, _ := tb.KeyOf(udpPkt("10.0.0.2", "10.0.0.1", 2, 1, 0))
	if k1 != k2 || hashKey(&k1) != hashKey(&k2) {
		t.Errorf("keys differ by direction")
	}
}

func TestNoAllocsOnKnownFlow(t *testing.T) {
	tb := NewTable(testConfig(), 1024, 16)
	p := tcpPkt("10.0.0.1", "10.0.0.2", 40000, 80, syn, 0)
	tb.Packet(p)
	p.TCPFlags = ack
	allocs := testing.AllocsPerRun(1000, func() {
		p.Timestamp = p.Timestamp.Add(time.Millisecond)
		tb.Packet(p)
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per packet on a known flow", allocs)
	}
}

func BenchmarkPacketKnownFlow(b *testing.B) {
	tb := NewTable(testConfig(), 1024, 16)
	p := tcpPkt("10.0.0.1", "10.0.0.2", 40000, 80, syn, 0)
	tb.Packet(p)
	p.TCPFlags = ack
	b.ReportAllocs()
	for b.Loop() {
		tb.Packet(p)
	}
}

func TestVars(t *testing.T) {
	var v Vars
	for _, id := range []uint32{0, 63, 64, 511, 512, 100000} {
		if v.IsSet(id) {
			t.Fatalf("%d set before Set", id)
		}
		v.Set(id)
		if !v.IsSet(id) {
			t.Fatalf("%d not set after Set", id)
		}
		v.Toggle(id)
		if v.IsSet(id) {
			t.Fatalf("%d set after Toggle", id)
		}
		v.Toggle(id)
		v.Unset(id)
		if v.IsSet(id) {
			t.Fatalf("%d set after Unset", id)
		}
	}
	if _, ok := v.Int(7); ok {
		t.Fatal("int set before SetInt")
	}
	v.SetInt(7, 42)
	if x, ok := v.Int(7); !ok || x != 42 {
		t.Fatalf("Int(7) = %d, %v", x, ok)
	}
	v.UnsetInt(7)
	if _, ok := v.Int(7); ok {
		t.Fatal("int set after UnsetInt")
	}
	if allocs := testing.AllocsPerRun(100, func() { v.Set(5); v.Unset(5) }); allocs != 0 {
		t.Errorf("inline flowbits allocate %.1f", allocs)
	}
}

// TestTimeJumpBack replays two captures one after the other, the second one older: its flows
// must establish normally instead of looking timed out against the first capture's clock.
func TestTimeJumpBack(t *testing.T) {
	tb := NewTable(testConfig(), 1024, 16)
	tb.Packet(udpPkt("10.0.0.1", "10.0.0.2", 1, 2, 10*time.Hour))
	steps := []struct {
		fromClient bool
		flags      uint8
	}{{true, syn}, {false, synack}, {true, ack}, {true, ack | decode.TCPFlagPSH}}
	var f *Flow
	for i, s := range steps {
		var p *decode.Packet
		if s.fromClient {
			p = tcpPkt("10.0.0.3", "10.0.0.4", 5000, 80, s.flags, time.Duration(i)*time.Millisecond)
		} else {
			p = tcpPkt("10.0.0.4", "10.0.0.3", 80, 5000, s.flags, time.Duration(i)*time.Millisecond)
		}
		f, _ = tb.Packet(p)
	}
	if f.PktsToServer != 3 || !f.PacketEstablished() {
		t.Errorf("after a jump back: %d packets to server, established %v", f.PktsToServer, f.PacketEstablished())
	}
}

// TestDeferEnd checks that a deferred flow leaves the index at once, keeps its slot until
// FinishEnded, and is then handed to OnEnd and recycled.
func TestDeferEnd(t *testing.T) {
	var ended []*Flow
	cfg := testConfig()
	cfg.OnEnd = func(f *Flow) { ended = append(ended, f) }
	cfg.Defer = func(f *Flow) bool { return true }
	tb := NewTable(cfg, 16, 0)
	p := udpPkt("10.0.0.1", "10.0.0.2", 1000, 53, 0)
	f, _ := tb.Packet(p)
	slot := f.Slot()
	tb.Shutdown()
	if len(ended) != 0 || !tb.Ending() {
		t.Fatalf("deferred flow ended at once (%d) or not kept (%v)", len(ended), tb.Ending())
	}
	if g, _ := tb.Packet(p); g == f || g.Slot() == slot {
		t.Fatalf("a deferred flow's slot was reused before FinishEnded")
	}
	tb.FinishEnded()
	if len(ended) != 1 || ended[0] != f || tb.Ending() {
		t.Fatalf("FinishEnded: ended %d flows", len(ended))
	}
}
