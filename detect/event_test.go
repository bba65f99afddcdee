package detect

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// rawIPv4UDP builds an IPv4/UDP datagram with the given IPv4 options and payload; totalLen,
// when not 0, overrides the IPv4 total length (a value past the datagram truncates it).
func rawIPv4UDP(opts []byte, payload string, totalLen int) []byte {
	hlen := 20 + len(opts)
	n := hlen + 8 + len(payload)
	b := make([]byte, n)
	b[0] = 0x40 | byte(hlen/4)
	if totalLen == 0 {
		totalLen = n
	}
	binary.BigEndian.PutUint16(b[2:], uint16(totalLen))
	b[8], b[9] = 64, decode.ProtoUDP
	copy(b[12:], []byte{10, 0, 0, 1})
	copy(b[16:], []byte{10, 0, 0, 2})
	copy(b[20:], opts)
	u := b[hlen:]
	binary.BigEndian.PutUint16(u[0:], 5000)
	binary.BigEndian.PutUint16(u[2:], 53)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(payload)))
	copy(u[8:], payload)
	return b
}

// TestDecodeEventRules checks decode-event as Suricata evaluates it: on packets whose IP layer
// decoded, a rule is a candidate through the event index and its header is checked as usual;
// on packets whose IP layer did not decode, only decoder-event-only rules with an any-protocol,
// any-port header are evaluated (Suricata's decoder_event_sgh).
func TestDecodeEventRules(t *testing.T) {
	rs := mustRules(t,
		`alert pkthdr any any -> any any (decode-event:ipv4.opt_pad_required; sid:1;)`,
		`alert pkthdr any any -> any any (decode-event:ethernet.pkt_too_small; sid:2;)`,
		`alert pkthdr any any -> any any (decode-event:ipv4.trunc_pkt; sid:3;)`,
		`alert udp any any -> any 80 (decode-event:ipv4.trunc_pkt; sid:4;)`,
		`alert udp any any -> any 53 (decode-event:ipv4.opt_pad_required; sid:5;)`,
		`alert ipv4 any any -> any any (decode-event:ipv4.trunc_pkt; sid:6;)`,
		`alert udp any any -> any any (content:"hello"; decode-event:ipv4.opt_pad_required; sid:7;)`,
		`alert udp any any -> any 54 (decode-event:ipv4.opt_pad_required; sid:8;)`,
		`alert pkthdr 192.168.0.0/16 any -> any any (decode-event:ipv4.trunc_pkt; sid:9;)`,
		`alert udp any any -> any any (content:"hello"; sid:10;)`,
	)
	e, errs, err := Build(rs, Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	routerAlert := []byte{148, 4, 0, 0}
	cases := []struct {
		name string
		lt   decode.LinkType
		data []byte
		want string
	}{
		{"clean datagram", decode.LinkTypeRaw, rawIPv4UDP(nil, "hello", 0), "[10]"},
		{"4-byte option", decode.LinkTypeRaw, rawIPv4UDP(routerAlert, "hello", 0), "[1 5 7 10]"},
		{"4-byte option, other payload", decode.LinkTypeRaw, rawIPv4UDP(routerAlert, "howdy", 0), "[1 5]"},
		{"8-byte options", decode.LinkTypeRaw, rawIPv4UDP(append(routerAlert, 1, 1, 1, 0), "hello", 0), "[10]"},
		// Without a decoded IP layer: sid 3 and sid 9 (addresses are not checked there); sid 4
		// needs ports and sid 6 IPv4.
		{"truncated datagram", decode.LinkTypeRaw, rawIPv4UDP(nil, "hello", 200), "[3 9]"},
		{"short ethernet frame", decode.LinkTypeEthernet, make([]byte, 10), "[2]"},
	}
	for _, c := range cases {
		var d decode.Decoder
		var p decode.Packet
		d.Decode(&p, c.lt, c.data)
		e.Inspect(tc, &p, nil, flow.ToServer)
		var sids []uint32
		for _, en := range tc.Queue.Entries() {
			sids = append(sids, e.Rule(en.IID).Src.SID)
		}
		if got := fmt.Sprint(sids); got != c.want {
			t.Errorf("%s: alerts %s, want %s", c.name, got, c.want)
		}
	}
	// A packet with an event no rule asks for, and one without an IP layer or a matching rule,
	// allocate nothing.
	for _, data := range [][]byte{rawIPv4UDP(append(routerAlert, 1, 1, 1, 0), "howdy", 0), make([]byte, 3)} {
		var d decode.Decoder
		var p decode.Packet
		d.Decode(&p, decode.LinkTypeRaw, data)
		if allocs := testing.AllocsPerRun(1000, func() { e.Inspect(tc, &p, nil, flow.ToServer) }); allocs != 0 {
			t.Errorf("%.1f allocations per packet", allocs)
		}
	}
}

// rawIPv6 builds an IPv6 packet with next header nh and payload.
func rawIPv6(nh uint8, payload []byte) []byte {
	b := make([]byte, 40, 40+len(payload))
	b[0] = 0x60
	binary.BigEndian.PutUint16(b[4:], uint16(len(payload)))
	b[6], b[7] = nh, 64
	b[8], b[23] = 0x20, 1
	b[24], b[39] = 0x20, 2
	return append(b, payload...)
}

// TestProtocolZeroDecoderEvents: an IPv6 packet whose next header is ICMPv4 keeps protocol 0
// in Suricata and raises ipv6.icmpv4, so it is inspected with the decoder-event rule group
// (with its addresses and IP version checked) and the IP-only engine, not with the rules of
// its protocol or the packet rules that take any protocol.
func TestProtocolZeroDecoderEvents(t *testing.T) {
	rs := mustRules(t,
		`alert ipv6 2000::/8 any -> any any (decode-event:ipv6.icmpv4; sid:1;)`,
		`alert ipv4 any any -> any any (decode-event:ipv6.icmpv4; sid:2;)`,
		`alert pkthdr 10.0.0.0/8 any -> any any (decode-event:ipv6.icmpv4; sid:3;)`,
		`alert ip any any -> any any (ip_proto:1; sid:4;)`,
		`alert ip any any -> any any (dsize:0; sid:5;)`,
		`alert ip 2000::/8 any -> any any (sid:6;)`,
		`alert icmp any any -> any any (sid:7;)`,
	)
	e, errs, err := Build(rs, Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	var d decode.Decoder
	var p decode.Packet
	d.Decode(&p, decode.LinkTypeRaw, rawIPv6(decode.ProtoICMP, []byte{8, 0, 0, 0, 0, 1, 0, 1}))
	if p.IPVersion != 6 || p.IPProto != 0 || p.Events.Empty() {
		t.Fatalf("decoded %+v", p)
	}
	e.Inspect(tc, &p, nil, flow.ToServer)
	var sids []uint32
	for _, en := range tc.Queue.Entries() {
		sids = append(sids, e.Rule(en.IID).Src.SID)
	}
	if got := fmt.Sprint(sids); got != "[6 1]" && got != "[1 6]" {
		t.Errorf("alerts %s, want sids 1 (decoder event, IPv6 source in 2000::/8) and 6 (IP-only)", got)
	}
}

// TestBidirectionalSameSides: a `<>` rule whose two sides hold the same addresses and ports is
// unidirectional in Suricata (SigHasSameSourceAndDestination), so it is held once and alerts
// once; other `<>` rules are held twice.
func TestBidirectionalSameSides(t *testing.T) {
	for _, c := range []struct {
		rule string
		want int
	}{
		{`alert tcp any any <> any any (content:"GET"; sid:1;)`, 1},
		{`alert tcp 10.0.0.0/8 any <> 10.0.0.0/8 any (content:"GET"; sid:1;)`, 1},
		{`alert tcp any 80 <> any 80 (content:"GET"; sid:1;)`, 1},
		{`alert tcp any any <> any 80 (content:"GET"; sid:1;)`, 2},
		{`alert tcp 10.0.0.0/8 any <> any any (content:"GET"; sid:1;)`, 2},
	} {
		e, errs, err := Build(mustRules(t, c.rule), Config{})
		if err != nil || len(errs) > 0 {
			t.Fatalf("build: %v %v", err, errs)
		}
		if e.Len() != c.want {
			t.Errorf("%s: %d compiled rules, want %d", c.rule, e.Len(), c.want)
		}
		if c.want == 1 {
			// A packet both halves would accept alerts once.
			tc, _ := e.NewThreadCtx(nil)
			e.Inspect(tc, tcpPacket("10.1.1.1", "10.2.2.2", 80, 80, "GET /"), nil, flow.ToServer)
			if n := tc.Queue.Len(); n != 1 {
				t.Errorf("%s: %d alerts, want 1", c.rule, n)
			}
			tc.Close()
		}
		e.Close()
	}
}

// TestFirewallDecoderEventGroup: in firewall mode a packet Suricata inspects with its
// decoder-event rule group (no IP layer, or protocol 0 with events) meets no firewall rule, so
// the packet policy decides (drop by default), while the decoder-event-only rules still alert;
// a well-formed packet is accepted by the firewall rule as usual.
func TestFirewallDecoderEventGroup(t *testing.T) {
	h := newFWHarness(t,
		[]string{`accept:hook ip:all any any -> any any (sid:100;)`},
		[]string{
			`alert pkthdr any any -> any any (decode-event:ethernet.pkt_too_small; sid:1;)`,
			`alert pkthdr any any -> any any (decode-event:ipv6.icmpv4; sid:2;)`,
			`alert ip any any -> any any (dsize:0; sid:3;)`,
		}, nil)
	for _, c := range []struct {
		name string
		p    *decode.Packet
		want string
	}{
		{"short ethernet frame", decodeFrame(decode.LinkTypeEthernet, make([]byte, 10)), "drop [1]"},
		{"icmpv4 in ipv6", decodeFrame(decode.LinkTypeRaw, rawIPv6(decode.ProtoICMP, []byte{8, 0, 0, 0, 0, 1, 0, 1})), "drop [2]"},
		{"udp datagram", decodeFrame(decode.LinkTypeRaw, rawIPv4UDP(nil, "", 0)), "accept [3]"},
	} {
		for _, general := range []bool{false, true} {
			h.general = general
			res, _ := h.packet(c.p)
			if got := fmt.Sprintf("%s %v", res.verdict, res.td); got != c.want {
				t.Errorf("%s (general %v): %s, want %s", c.name, general, got, c.want)
			}
		}
	}
}

// TestFirewallCacheWithClusteredBroadRules: the broad index numbers rules by header, but a
// flow direction's cached candidates must still hold the firewall rules first (the cache
// skips them once a firewall rule decided): a threat-detection rule whose header sorts before
// the firewall rules' must keep alerting on the flow's later packets.
func TestFirewallCacheWithClusteredBroadRules(t *testing.T) {
	h := newFWHarness(t, []string{
		`accept:hook udp:all any any -> any 53 (sid:1;)`,
		`drop:packet udp:all any any -> any any (sid:2;)`,
	}, []string{
		`alert udp $HOME_NET any -> any any (msg:"td, header before the firewall rules'"; dsize:>0; sid:100;)`,
		`alert udp 10.0.0.0/8 any -> any any (dsize:>0; sid:101;)`,
	}, nil)
	for i := range 4 {
		res, _ := h.packet(udpPacket("10.0.0.1", "192.0.2.1", 5000, 53))
		if got := fmt.Sprintf("%s %v", res.verdict, res.td); got != "accept [100 101]" && got != "accept [101 100]" {
			t.Errorf("packet %d: %s, want accept with sids 100 and 101", i+1, got)
		}
	}
}

// rawIPv4Proto0 builds an IPv4 datagram of protocol 0 with the given options.
func rawIPv4Proto0(opts []byte) []byte {
	hlen := 20 + len(opts)
	b := make([]byte, hlen+8)
	b[0] = 0x40 | byte(hlen/4)
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
	b[8] = 64
	copy(b[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	copy(b[20:], opts)
	return b
}

// TestFirewallQuietPathLeavesProtocolZeroEvents: a flow of protocol 0 whose firewall result
// was cached as a quiet accept:hook on an event-free packet still sends a later packet with
// decoder events to the decoder-event group (policy drop, decoder-event alert), on the quiet
// path's dispatch as on the general one.
func TestFirewallQuietPathLeavesProtocolZeroEvents(t *testing.T) {
	h := newFWHarness(t,
		[]string{`accept:hook ip:all any any -> any any (sid:100;)`},
		[]string{`alert pkthdr any any -> any any (decode-event:ipv4.opt_pad_required; sid:1;)`}, nil)
	for i, c := range []struct {
		p    *decode.Packet
		want string
	}{
		{decodeFrame(decode.LinkTypeRaw, rawIPv4Proto0(nil)), "accept []"},
		{decodeFrame(decode.LinkTypeRaw, rawIPv4Proto0(nil)), "accept []"},
		{decodeFrame(decode.LinkTypeRaw, rawIPv4Proto0([]byte{148, 4, 0, 0})), "drop [1]"},
	} {
		res, _ := h.packet(c.p)
		if got := fmt.Sprintf("%s %v", res.verdict, res.td); got != c.want {
			t.Errorf("packet %d: %s, want %s", i+1, got, c.want)
		}
	}
}

// TestFirewallPassedFlowProtocolZero: on a flow that threat detection passed, a protocol-0
// packet with decoder events runs no decoder-event rule (Suricata's rule loop stops at the
// first threat-detection rule of a passed flow).
func TestFirewallPassedFlowProtocolZero(t *testing.T) {
	h := newFWHarness(t,
		[]string{`accept:hook ip:all any any -> any any (sid:100;)`},
		[]string{`alert pkthdr any any -> any any (decode-event:ipv4.opt_pad_required; sid:1;)`}, nil)
	_, f := h.packet(decodeFrame(decode.LinkTypeRaw, rawIPv4Proto0(nil)))
	if f == nil {
		t.Fatal("no flow")
	}
	f.Action = flow.ActionPass // as a threat-detection pass rule with flow scope leaves it
	res, _ := h.packet(decodeFrame(decode.LinkTypeRaw, rawIPv4Proto0([]byte{148, 4, 0, 0})))
	if len(res.td) != 0 {
		t.Errorf("passed flow: decoder-event alerts %v", res.td)
	}
	f.Action = flow.ActionNone
	if res, _ = h.packet(decodeFrame(decode.LinkTypeRaw, rawIPv4Proto0([]byte{148, 4, 0, 0}))); fmt.Sprint(res.td) != "[1]" {
		t.Errorf("flow not passed: alerts %v, want [1]", res.td)
	}
}

// decodeFrame decodes one frame into a new packet with a zero Decoder.
func decodeFrame(lt decode.LinkType, data []byte) *decode.Packet {
	var d decode.Decoder
	p := &decode.Packet{}
	d.Decode(p, lt, data)
	return p
}
