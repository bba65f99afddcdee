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
