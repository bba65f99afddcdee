package decode

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

// decodeCase is one frame and what decoding it must give.
type decodeCase struct {
	name    string
	lt      LinkType
	data    []byte
	events  []Event // exactly these events
	invalid bool
	check   func(t *testing.T, p *Packet)
}

func runCases(t *testing.T, cases []decodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d Decoder
			var p Packet
			d.Decode(&p, tc.lt, tc.data)
			var got []Event
			p.Events.Each(func(e Event) { got = append(got, e) })
			if !sameEvents(got, tc.events) {
				t.Errorf("events = %v, want %v", names(got), names(tc.events))
			}
			if p.Invalid != tc.invalid {
				t.Errorf("Invalid = %v, want %v", p.Invalid, tc.invalid)
			}
			if tc.check != nil {
				tc.check(t, &p)
			}
			// Every truncation of a case must decode without panicking.
			for i := range tc.data {
				d.Decode(&p, tc.lt, tc.data[:i])
			}
		})
	}
}

func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[Event]bool{}
	for _, e := range a {
		m[e] = true
	}
	for _, e := range b {
		if !m[e] {
			return false
		}
	}
	return true
}

func names(es []Event) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.String())
	}
	return s
}

func wantTCP(sport, dport uint16, payload string) func(t *testing.T, p *Packet) {
	return func(t *testing.T, p *Packet) {
		t.Helper()
		if !p.IsTCP() || p.SrcPort != sport || p.DstPort != dport || string(p.Payload) != payload {
			t.Errorf("got tcp=%v %d->%d payload %q, want tcp %d->%d %q",
				p.IsTCP(), p.SrcPort, p.DstPort, p.Payload, sport, dport, payload)
		}
	}
}

func TestLinkTypes(t *testing.T) {
	seg := tcp(v4a, v4b, 1234, 80, TCPFlagSYN, nil, []byte("hi"))
	pkt4 := ip4(ip4Opts{proto: ProtoTCP, id: 7}, seg)
	seg6 := tcp(v6a, v6b, 1234, 80, TCPFlagSYN, nil, []byte("hi"))
	pkt6 := ip6([]uint8{ProtoTCP}, nil, seg6)
	le := func(v uint32) []byte { b := make([]byte, 4); binary.NativeEndian.PutUint32(b, v); return b }
	be := func(v uint32) []byte { b := make([]byte, 4); binary.BigEndian.PutUint32(b, v); return b }
	sll := func(proto uint16, payload []byte) []byte {
		h := make([]byte, 16)
		put16(h[14:], proto)
		return cat(h, payload)
	}
	sll2 := func(proto uint16, payload []byte) []byte {
		h := make([]byte, 20)
		put16(h[0:], proto)
		return cat(h, payload)
	}
	v4 := func(t *testing.T, p *Packet) {
		t.Helper()
		wantTCP(1234, 80, "hi")(t, p)
		if p.IPVersion != 4 || p.SrcIP != netip.MustParseAddr("192.168.1.10") || p.DstIP != netip.MustParseAddr("10.0.0.1") || p.IPID != 7 || p.TTL != 64 {
			t.Errorf("ip: v%d %v -> %v id %d ttl %d", p.IPVersion, p.SrcIP, p.DstIP, p.IPID, p.TTL)
		}
	}
	v6 := func(t *testing.T, p *Packet) {
		t.Helper()
		wantTCP(1234, 80, "hi")(t, p)
		if p.IPVersion != 6 || p.SrcIP != netip.MustParseAddr("2001:db8::1") || p.DstIP != netip.MustParseAddr("2001:db8::2") || p.TTL != 64 {
			t.Errorf("ip: v%d %v -> %v", p.IPVersion, p.SrcIP, p.DstIP)
		}
	}
	runCases(t, []decodeCase{
		{name: "ethernet ipv4", lt: LinkTypeEthernet, data: eth(0x0800, pkt4), check: func(t *testing.T, p *Packet) {
			v4(t, p)
			if !p.HasEthernet || p.SrcMAC != [6]byte(mac1) || p.DstMAC != [6]byte(mac2) || p.EtherType != 0x0800 {
				t.Errorf("ethernet: %v %x %x %#x", p.HasEthernet, p.SrcMAC, p.DstMAC, p.EtherType)
			}
		}},
		{name: "ethernet ipv6", lt: LinkTypeEthernet, data: eth(0x86dd, pkt6), check: v6},
		{name: "ethernet too small", lt: LinkTypeEthernet, data: make([]byte, 13), events: []Event{EventEthernetPktTooSmall}, invalid: true},
		{name: "ethernet arp", lt: LinkTypeEthernet, data: eth(0x0806, make([]byte, 28)), check: func(t *testing.T, p *Packet) {
			if p.IPVersion != 0 || p.EtherType != 0x0806 {
				t.Errorf("arp decoded as IP")
			}
		}},
		{name: "ethernet unknown ethertype", lt: LinkTypeEthernet, data: eth(0x88cc, make([]byte, 28)), events: []Event{EventEthernetUnknownEtherType}},
		{name: "sll ipv4", lt: LinkTypeSLL, data: sll(0x0800, pkt4), check: v4},
		{name: "sll too small", lt: LinkTypeSLL, data: make([]byte, 15), events: []Event{EventSLLPktTooSmall}, invalid: true},
		{name: "sll2 ipv6", lt: LinkTypeSLL2, data: sll2(0x86dd, pkt6), check: v6},
		{name: "sll2 too small", lt: LinkTypeSLL2, data: make([]byte, 19), events: []Event{EventSLLPktTooSmall}, invalid: true},
		{name: "null ipv4", lt: LinkTypeNull, data: cat(le(2), pkt4), check: v4},
		{name: "null ipv6 bsd", lt: LinkTypeNull, data: cat(le(24), pkt6), check: v6},
		{name: "null ipv6 freebsd", lt: LinkTypeNull, data: cat(le(28), pkt6), check: v6},
		{name: "null ipv6 darwin", lt: LinkTypeNull, data: cat(le(30), pkt6), check: v6},
		{name: "null unsupported", lt: LinkTypeNull, data: cat(le(7), pkt4), events: []Event{EventLtnullUnsupportedType}, invalid: true},
		{name: "null too small", lt: LinkTypeNull, data: []byte{2, 0, 0}, events: []Event{EventLtnullPktTooSmall}, invalid: true},
		{name: "loop ipv4", lt: LinkTypeLoop, data: cat(be(2), pkt4), check: v4},
		{name: "loop ipv6", lt: LinkTypeLoop, data: cat(be(24), pkt6), check: v6},
		{name: "raw ipv4", lt: LinkTypeRaw, data: pkt4, check: v4},
		{name: "raw ipv6", lt: LinkTypeRaw, data: pkt6, check: v6},
		{name: "raw alt ipv4", lt: LinkTypeRawAlt, data: pkt4, check: v4},
		{name: "raw alt2 ipv6", lt: LinkTypeRawAlt2, data: pkt6, check: v6},
		{name: "raw bad version", lt: LinkTypeRaw, data: append([]byte{0x50}, pkt4[1:]...), events: []Event{EventIPRawInvalidIPVersion}, invalid: true},
		{name: "raw too small", lt: LinkTypeRaw, data: pkt4[:19], events: []Event{EventIPv4PktTooSmall}, invalid: true},
		{name: "linktype ipv4", lt: LinkTypeIPv4, data: pkt4, check: v4},
		{name: "linktype ipv6", lt: LinkTypeIPv6, data: pkt6, check: v6},
		{name: "linktype ipv4 given ipv6", lt: LinkTypeIPv4, data: pkt6, events: []Event{EventIPv4WrongIPVersion}, invalid: true},
		{name: "linktype ipv6 given ipv4", lt: LinkTypeIPv6, data: cat(pkt4, make([]byte, 40)), events: []Event{EventIPv6WrongIPVersion}, invalid: true},
		{name: "unknown link type", lt: 9999, data: pkt4},
	})
}

func TestVLAN(t *testing.T) {
	seg := tcp(v4a, v4b, 1, 2, TCPFlagACK, nil, []byte("x"))
	pkt4 := ip4(ip4Opts{proto: ProtoTCP}, seg)
	tags := func(want ...uint16) func(t *testing.T, p *Packet) {
		return func(t *testing.T, p *Packet) {
			t.Helper()
			if int(p.VLANCount) != len(want) {
				t.Fatalf("VLANCount = %d, want %d", p.VLANCount, len(want))
			}
			for i, v := range want {
				if p.VLAN[i] != v {
					t.Errorf("VLAN[%d] = %d, want %d", i, p.VLAN[i], v)
				}
			}
		}
	}
	qinq := eth(0x0800, pkt4, 100, 200)
	qinq[12], qinq[13] = 0x88, 0xa8 // 802.1ad outer tag
	q9100 := eth(0x0800, pkt4, 300, 400)
	q9100[12], q9100[13] = 0x91, 0x00
	runCases(t, []decodeCase{
		{name: "one tag", lt: LinkTypeEthernet, data: eth(0x0800, pkt4, 0xf064), check: func(t *testing.T, p *Packet) {
			tags(100)(t, p)
			wantTCP(1, 2, "x")(t, p)
		}},
		{name: "qinq 88a8", lt: LinkTypeEthernet, data: qinq, check: func(t *testing.T, p *Packet) {
			tags(100, 200)(t, p)
			wantTCP(1, 2, "x")(t, p)
		}},
		{name: "qinq 9100", lt: LinkTypeEthernet, data: q9100, check: tags(300, 400)},
		{name: "three tags", lt: LinkTypeEthernet, data: eth(0x0800, pkt4, 1, 2, 3), check: func(t *testing.T, p *Packet) {
			tags(1, 2, 3)(t, p)
			wantTCP(1, 2, "x")(t, p)
		}},
		{name: "four tags", lt: LinkTypeEthernet, data: eth(0x0800, pkt4, 1, 2, 3, 4), events: []Event{EventVLANTooManyLayers}, invalid: true, check: func(t *testing.T, p *Packet) {
			tags(1, 2, 3)(t, p)
			if p.IPVersion != 0 {
				t.Errorf("decoded past too many VLAN layers")
			}
		}},
		{name: "truncated tag", lt: LinkTypeEthernet, data: eth(0x8100, []byte{0, 1, 8}), events: []Event{EventVLANHeaderTooSmall}, invalid: true},
		{name: "unknown inner type", lt: LinkTypeEthernet, data: eth(0x88cc, make([]byte, 20), 5), events: []Event{EventEthernetUnknownEtherType, EventVLANUnknownType}, invalid: true, check: tags(5)},
		{name: "arp in vlan", lt: LinkTypeEthernet, data: eth(0x0806, make([]byte, 28), 5), check: tags(5)},
		{name: "mpls in vlan: known, not decoded", lt: LinkTypeEthernet, data: eth(0x8847, make([]byte, 28), 5), check: tags(5)},
	})
	var d Decoder
	var p Packet
	d.Decode(&p, LinkTypeEthernet, qinq)
	d.Decode(&p, LinkTypeEthernet, eth(0x0800, pkt4, 1, 2, 3))
	if d.Counters.VLAN != 2 || d.Counters.VLANQinQ != 2 || d.Counters.VLANQinQinQ != 1 {
		t.Errorf("vlan counters %d %d %d", d.Counters.VLAN, d.Counters.VLANQinQ, d.Counters.VLANQinQinQ)
	}
}

func TestIPv4(t *testing.T) {
	seg := tcp(v4a, v4b, 1, 2, TCPFlagACK, nil, []byte("data"))
	good := ip4(ip4Opts{proto: ProtoTCP, id: 0x1234, tos: 0x10, flags: IPv4FlagDF}, seg)
	mod := func(b []byte, f func(b []byte)) []byte {
		b = append([]byte(nil), b...)
		f(b)
		return b
	}
	withOpts := func(opts []byte) []byte { return ip4(ip4Opts{proto: ProtoTCP, options: opts}, seg) }
	opts := func(want uint16) func(t *testing.T, p *Packet) {
		return func(t *testing.T, p *Packet) {
			t.Helper()
			if p.IPv4Options != want {
				t.Errorf("IPv4Options = %#x, want %#x", p.IPv4Options, want)
			}
			if want != 0 && !p.IsTCP() {
				t.Errorf("TCP not decoded after options")
			}
		}
	}
	noIP := func(t *testing.T, p *Packet) {
		t.Helper()
		if p.IPVersion != 0 || p.HasL4 || p.SrcIP.IsValid() {
			t.Errorf("IP layer kept after a header error: v%d %v", p.IPVersion, p.SrcIP)
		}
	}
	runCases(t, []decodeCase{
		{name: "good", lt: LinkTypeRaw, data: good, check: func(t *testing.T, p *Packet) {
			wantTCP(1, 2, "data")(t, p)
			if p.IPID != 0x1234 || p.TOS != 0x10 || p.IPv4Flags != IPv4FlagDF || p.IsFragment || p.IPLen != len(good) ||
				len(p.IPHeader) != 20 || len(p.IPPayload) != len(seg) || p.IPProto != ProtoTCP {
				t.Errorf("fields: %+v", p)
			}
		}},
		{name: "ethernet padding is not payload", lt: LinkTypeEthernet, data: cat(eth(0x0800, good), make([]byte, 10)), check: func(t *testing.T, p *Packet) {
			wantTCP(1, 2, "data")(t, p)
			if len(p.IPPayload) != len(seg) {
				t.Errorf("IPPayload %d bytes, want %d", len(p.IPPayload), len(seg))
			}
		}},
		{name: "too small", lt: LinkTypeIPv4, data: good[:19], events: []Event{EventIPv4PktTooSmall}, invalid: true, check: noIP},
		{name: "wrong version", lt: LinkTypeEthernet, data: eth(0x0800, mod(good, func(b []byte) { b[0] = 0x55 })), events: []Event{EventIPv4WrongIPVersion}, invalid: true, check: noIP},
		{name: "hlen too small", lt: LinkTypeIPv4, data: mod(good, func(b []byte) { b[0] = 0x44 }), events: []Event{EventIPv4HlenTooSmall}, invalid: true, check: noIP},
		{name: "iplen smaller than hlen", lt: LinkTypeIPv4, data: mod(good, func(b []byte) { put16(b[2:], 19) }), events: []Event{EventIPv4IPLenSmallerThanHlen}, invalid: true, check: noIP},
		{name: "truncated", lt: LinkTypeIPv4, data: good[:len(good)-1], events: []Event{EventIPv4TruncPkt}, invalid: true, check: noIP},
		{name: "options nop eol", lt: LinkTypeIPv4, data: withOpts([]byte{1, 1, 1, 0}), events: []Event{EventIPv4OptPadRequired}, check: opts(IPv4OptNOP | IPv4OptEOL | IPv4OptAny)},
		{name: "option rr", lt: LinkTypeIPv4, data: withOpts([]byte{7, 7, 4, 0, 0, 0, 0, 0}), check: opts(IPv4OptRR | IPv4OptEOL | IPv4OptAny)},
		{name: "option lsrr ssrr", lt: LinkTypeIPv4, data: withOpts([]byte{131, 3, 4, 137, 3, 4, 1, 0}), check: opts(IPv4OptLSRR | IPv4OptSSRR | IPv4OptNOP | IPv4OptEOL | IPv4OptAny)},
		{name: "option ts", lt: LinkTypeIPv4, data: withOpts([]byte{68, 8, 5, 0, 0, 0, 0, 0}), check: opts(IPv4OptTS | IPv4OptAny)},
		{name: "option sec", lt: LinkTypeIPv4, data: withOpts([]byte{130, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), events: []Event{EventIPv4OptPadRequired}, check: opts(IPv4OptSec | IPv4OptEOL | IPv4OptAny)},
		{name: "option esec", lt: LinkTypeIPv4, data: withOpts([]byte{133, 3, 0, 0}), events: []Event{EventIPv4OptPadRequired}, check: opts(IPv4OptESec | IPv4OptEOL | IPv4OptAny)},
		{name: "option satid", lt: LinkTypeIPv4, data: withOpts([]byte{136, 4, 0, 1}), events: []Event{EventIPv4OptPadRequired}, check: opts(IPv4OptSatID | IPv4OptAny)},
		{name: "option router alert", lt: LinkTypeIPv4, data: withOpts([]byte{148, 4, 0, 0}), events: []Event{EventIPv4OptPadRequired}, check: opts(IPv4OptRtrAlt | IPv4OptAny)},
		{name: "option unknown", lt: LinkTypeIPv4, data: withOpts([]byte{99, 4, 0, 0}), events: []Event{EventIPv4OptPadRequired, EventIPv4OptInvalid}, check: opts(0)},
		{name: "option rr bad pointer", lt: LinkTypeIPv4, data: withOpts([]byte{7, 7, 5, 0, 0, 0, 0, 0}), events: []Event{EventIPv4OptMalformed}, check: opts(IPv4OptEOL | IPv4OptAny)},
		{name: "option ts bad pointer", lt: LinkTypeIPv4, data: withOpts([]byte{68, 8, 6, 0, 0, 0, 0, 0}), events: []Event{EventIPv4OptMalformed}, check: opts(0)},
		{name: "option satid bad size", lt: LinkTypeIPv4, data: withOpts([]byte{136, 3, 0, 0}), events: []Event{EventIPv4OptPadRequired, EventIPv4OptInvalidLen}, check: opts(IPv4OptEOL | IPv4OptAny)},
		{name: "option duplicate", lt: LinkTypeIPv4, data: withOpts([]byte{136, 4, 0, 1, 136, 4, 0, 1}), events: []Event{EventIPv4OptDuplicate}, check: opts(IPv4OptSatID | IPv4OptAny)},
		{name: "option length past header", lt: LinkTypeIPv4, data: withOpts([]byte{7, 9, 4, 0, 0, 0, 0, 0}), events: []Event{EventIPv4OptInvalidLen}, invalid: true, check: noIP},
		{name: "option length zero", lt: LinkTypeIPv4, data: withOpts([]byte{7, 0, 4, 0}), events: []Event{EventIPv4OptPadRequired, EventIPv4OptInvalidLen}, invalid: true, check: noIP},
		{name: "option length one", lt: LinkTypeIPv4, data: withOpts([]byte{1, 1, 7, 1}), events: []Event{EventIPv4OptPadRequired, EventIPv4OptInvalidLen}, invalid: true, check: noIP},
		{name: "option lone byte", lt: LinkTypeIPv4, data: withOpts([]byte{1, 1, 1, 7}), events: []Event{EventIPv4OptPadRequired, EventIPv4OptEOLRequired}, invalid: true, check: noIP},
		{name: "icmpv6 in ipv4", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoICMPv6}, make([]byte, 8)), events: []Event{EventIPv4ICMPv6}, invalid: true},
		{name: "gre counted", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoGRE}, make([]byte, 8)), check: func(t *testing.T, p *Packet) {
			if p.HasL4 || p.IPProto != ProtoGRE {
				t.Errorf("gre: HasL4 %v proto %d", p.HasL4, p.IPProto)
			}
		}},
		{name: "igmp", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoIGMP}, make([]byte, 8)), check: func(t *testing.T, p *Packet) {
			if p.ProtoName() != "IGMP" {
				t.Errorf("ProtoName %q", p.ProtoName())
			}
		}},
		{name: "first fragment", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoUDP, id: 9, flags: IPv4FlagMF}, udp(v4a, v4b, 53, 53, make([]byte, 100))[:48]), check: func(t *testing.T, p *Packet) {
			if !p.IsFragment || !p.MoreFragments || p.FragOffset != 0 || p.IPID != 9 {
				t.Errorf("fragment fields %v %v %d", p.IsFragment, p.MoreFragments, p.FragOffset)
			}
			if !p.IsUDP() || p.SrcPort != 53 || len(p.Payload) != 40 || p.UDPLen != 108 {
				t.Errorf("first fragment UDP: %v %d payload %d", p.IsUDP(), p.SrcPort, len(p.Payload))
			}
		}},
		{name: "first fragment cut inside tcp: no events", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoTCP, flags: IPv4FlagMF}, seg[:16]), check: func(t *testing.T, p *Packet) {
			if !p.IsFragment || p.HasL4 {
				t.Errorf("fragment %v L4 %v", p.IsFragment, p.HasL4)
			}
		}},
		{name: "later fragment", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoTCP, id: 9, fragOff: 1480}, seg), check: func(t *testing.T, p *Packet) {
			if !p.IsFragment || p.MoreFragments || p.FragOffset != 1480 || p.HasL4 || p.IPProto != ProtoTCP || len(p.IPPayload) != len(seg) {
				t.Errorf("fragment fields %+v", p)
			}
		}},
	})
}

func TestIPv6(t *testing.T) {
	seg := tcp(v6a, v6b, 1, 2, TCPFlagACK, nil, []byte("data"))
	tcpOK := wantTCP(1, 2, "data")
	u := udp(v6a, v6b, 1000, 53, []byte("query"))
	hdrLen := func(n int) func(t *testing.T, p *Packet) {
		return func(t *testing.T, p *Packet) {
			t.Helper()
			if len(p.IPHeader) != n {
				t.Errorf("IPHeader %d bytes, want %d", len(p.IPHeader), n)
			}
		}
	}
	both := func(fs ...func(t *testing.T, p *Packet)) func(t *testing.T, p *Packet) {
		return func(t *testing.T, p *Packet) {
			t.Helper()
			for _, f := range fs {
				f(t, p)
			}
		}
	}
	rh := ext6(24)
	rh[2] = 2 // routing type 2
	rh0 := ext6(24)
	rh0[2] = 0
	ah := make([]byte, 24)
	ah[1] = 4 // (4+2)*4 = 24 bytes
	ahBad := append([]byte(nil), ah...)
	ahBad[2] = 1
	trunc := ip6([]uint8{ProtoTCP}, nil, seg)
	put16(trunc[4:], uint16(len(seg)+1))
	hbhUnknown := ext6(8)
	hbhUnknown[2], hbhUnknown[3] = 0x3e, 0
	hbhRA := make([]byte, 8)
	copy(hbhRA, []byte{0, 0, ipv6OptRA, 2, 0, 0, ipv6OptPad1, ipv6OptPad1})
	hbhBadOpt := make([]byte, 8)
	copy(hbhBadOpt, []byte{0, 0, ipv6OptPadN, 9})
	hbhZeroPadN := make([]byte, 8)
	copy(hbhZeroPadN, []byte{0, 0, ipv6OptPadN, 0, ipv6OptRA, 2, 0, 0})
	fhRes := frag6(0, false, 1)
	fhRes[1] = 1
	runCases(t, []decodeCase{
		{name: "tcp", lt: LinkTypeIPv6, data: ip6([]uint8{ProtoTCP}, nil, seg), check: both(tcpOK, hdrLen(40))},
		{name: "traffic class and flow label", lt: LinkTypeIPv6, data: func() []byte {
			b := ip6([]uint8{ProtoTCP}, nil, seg)
			binary.BigEndian.PutUint32(b, 6<<28|0xab<<20|0x12345)
			return b
		}(), check: func(t *testing.T, p *Packet) {
			if p.TOS != 0xab || p.FlowLabel != 0x12345 {
				t.Errorf("tc %#x flow %#x", p.TOS, p.FlowLabel)
			}
		}},
		{name: "trailer ignored", lt: LinkTypeIPv6, data: cat(ip6([]uint8{ProtoTCP}, nil, seg), []byte{1, 2, 3}), check: both(tcpOK, func(t *testing.T, p *Packet) {
			if len(p.IPPayload) != len(seg) {
				t.Errorf("IPPayload %d", len(p.IPPayload))
			}
		})},
		{name: "too small", lt: LinkTypeIPv6, data: make([]byte, 39), events: []Event{EventIPv6PktTooSmall}, invalid: true},
		{name: "truncated", lt: LinkTypeIPv6, data: trunc, events: []Event{EventIPv6TruncPkt}, invalid: true, check: func(t *testing.T, p *Packet) {
			if p.IPVersion != 0 {
				t.Errorf("IP layer kept")
			}
		}},
		{name: "hop-by-hop", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts, ProtoTCP}, [][]byte{ext6(8)}, seg), events: []Event{EventIPv6HopoptsOnlyPadding}, check: both(tcpOK, hdrLen(48))},
		{name: "hop-by-hop router alert", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts, ProtoTCP}, [][]byte{hbhRA}, seg), check: both(tcpOK, hdrLen(48))},
		{name: "hop-by-hop unknown option", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts, ProtoTCP}, [][]byte{hbhUnknown}, seg), events: []Event{EventIPv6HopoptsUnknownOpt}, check: tcpOK},
		{name: "hop-by-hop option too long", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts, ProtoTCP}, [][]byte{hbhBadOpt}, seg), events: []Event{EventIPv6ExthdrInvalidOptlen}, check: tcpOK},
		{name: "zero length padn", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts, ProtoTCP}, [][]byte{hbhZeroPadN}, seg), events: []Event{EventIPv6ZeroLenPadN}, check: tcpOK},
		{name: "duplicate hop-by-hop", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts, nhHopOpts, ProtoTCP}, [][]byte{hbhRA, hbhRA}, seg), events: []Event{EventIPv6ExthdrDuplHH}, check: tcpOK},
		{name: "dst routing dst", lt: LinkTypeIPv6, data: ip6([]uint8{nhDstOpts, nhRouting, nhDstOpts, ProtoUDP}, [][]byte{hbhRA, rh, hbhRA}, u), check: func(t *testing.T, p *Packet) {
			if !p.IsUDP() || string(p.Payload) != "query" || len(p.IPHeader) != 40+8+24+8 {
				t.Errorf("udp %v %q hdr %d", p.IsUDP(), p.Payload, len(p.IPHeader))
			}
		}},
		{name: "three dst headers", lt: LinkTypeIPv6, data: ip6([]uint8{nhDstOpts, nhDstOpts, nhDstOpts, ProtoTCP}, [][]byte{hbhRA, hbhRA, hbhRA}, seg), events: []Event{EventIPv6ExthdrDuplDH}, check: tcpOK},
		{name: "routing type 0", lt: LinkTypeIPv6, data: ip6([]uint8{nhRouting, ProtoTCP}, [][]byte{rh0}, seg), events: []Event{EventIPv6RHType0}, check: tcpOK},
		{name: "duplicate routing", lt: LinkTypeIPv6, data: ip6([]uint8{nhRouting, nhRouting, ProtoTCP}, [][]byte{rh, rh}, seg), events: []Event{EventIPv6ExthdrDuplRH}, check: tcpOK},
		{name: "ah", lt: LinkTypeIPv6, data: ip6([]uint8{nhAH, ProtoTCP}, [][]byte{ah}, seg), check: both(tcpOK, hdrLen(64))},
		{name: "ah reserved", lt: LinkTypeIPv6, data: ip6([]uint8{nhAH, ProtoTCP}, [][]byte{ahBad}, seg), events: []Event{EventIPv6ExthdrAHResNotNull}, check: tcpOK},
		{name: "none", lt: LinkTypeIPv6, data: ip6([]uint8{nhDstOpts, nhNone}, [][]byte{hbhRA}, nil), check: func(t *testing.T, p *Packet) {
			if p.IPProto != nhNone || p.HasL4 {
				t.Errorf("proto %d", p.IPProto)
			}
		}},
		{name: "data after none", lt: LinkTypeIPv6, data: ip6([]uint8{nhDstOpts, nhNone}, [][]byte{hbhRA}, []byte{1, 2}), events: []Event{EventIPv6DataAfterNoneHeader}},
		{name: "truncated ext header", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts}, nil, []byte{6, 1, 0, 0, 0, 0, 0, 0}), events: []Event{EventIPv6TruncExthdr}, invalid: true, check: func(t *testing.T, p *Packet) {
			if p.IPVersion != 6 || p.HasL4 {
				t.Errorf("ext header error must keep the IP layer only")
			}
		}},
		{name: "jumbo payload length 0", lt: LinkTypeIPv6, data: func() []byte {
			b := ip6([]uint8{nhHopOpts, ProtoTCP}, [][]byte{hbhRA}, seg)
			put16(b[4:], 0)
			return b
		}(), events: []Event{EventIPv6TruncExthdr}, invalid: true},
		{name: "ext header one byte left", lt: LinkTypeIPv6, data: ip6([]uint8{nhDstOpts, nhRouting}, [][]byte{hbhRA}, []byte{6}), events: []Event{EventIPv6TruncExthdr}, invalid: true,
			check: proto(nhDstOpts)}, // the routing header was never entered: Suricata's proto stays dstopts
		{name: "tcp with zero payload length", lt: LinkTypeIPv6, data: ip6([]uint8{ProtoTCP}, nil, nil), events: []Event{EventTCPPktTooSmall}, invalid: true},
		{name: "ipv4 in ipv6", lt: LinkTypeIPv6, data: ip6([]uint8{nhIPIP}, nil, ip4(ip4Opts{proto: ProtoTCP}, nil))},
		{name: "ipv6 in ipv6", lt: LinkTypeIPv6, data: ip6([]uint8{nhIPv6}, nil, ip6([]uint8{ProtoTCP}, nil, seg))},
		{name: "icmpv4 in ipv6", lt: LinkTypeIPv6, data: ip6([]uint8{ProtoICMP}, nil, icmp4(8, 0, 0, nil)), events: []Event{EventIPv6ICMPv4}, check: proto(0)},
		{name: "icmpv4 in ipv6 after dstopts", lt: LinkTypeIPv6, data: ip6([]uint8{nhDstOpts, ProtoICMP}, [][]byte{hbhRA}, icmp4(8, 0, 0, nil)), events: []Event{EventIPv6ICMPv4}, check: proto(nhDstOpts)},
		{name: "unknown next header", lt: LinkTypeIPv6, data: ip6([]uint8{200}, nil, []byte{1, 2, 3}), events: []Event{EventIPv6UnknownNextHeader}},
		{name: "atomic fragment", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment, ProtoTCP}, [][]byte{frag6(0, false, 77)}, seg), events: []Event{EventIPv6ExthdrUselessFH}, check: both(tcpOK, hdrLen(48), func(t *testing.T, p *Packet) {
			if p.IsFragment || !p.IPv6FragHdr || p.IPID != 77 {
				t.Errorf("atomic: IsFragment %v FragHdr %v id %d", p.IsFragment, p.IPv6FragHdr, p.IPID)
			}
		})},
		{name: "fragment reserved byte", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment, ProtoTCP}, [][]byte{fhRes}, seg), events: []Event{EventIPv6ExthdrUselessFH, EventIPv6FHNonZeroReserved}, check: tcpOK},
		{name: "duplicate fragment header", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment, nhFragment, ProtoTCP}, [][]byte{frag6(0, false, 1), frag6(0, false, 1)}, seg), events: []Event{EventIPv6ExthdrUselessFH, EventIPv6ExthdrDuplFH}, check: tcpOK},
		{name: "first fragment", lt: LinkTypeIPv6, data: ip6([]uint8{nhHopOpts, nhFragment, ProtoTCP}, [][]byte{hbhRA, frag6(0, true, 0xdeadbeef)}, seg[:24]), check: func(t *testing.T, p *Packet) {
			if !p.IsFragment || !p.MoreFragments || p.IPID != 0xdeadbeef || p.IPv6FragHdrOff != 48 || p.IPv6FragPrevNH != 40 || p.IPv6FragNH != ProtoTCP {
				t.Errorf("fragment fields: %v %v %#x off %d prev %d nh %d", p.IsFragment, p.MoreFragments, p.IPID, p.IPv6FragHdrOff, p.IPv6FragPrevNH, p.IPv6FragNH)
			}
			if len(p.IPHeader) != 56 || len(p.IPPayload) != 24 || !p.IsTCP() || p.IPProto != ProtoTCP {
				t.Errorf("hdr %d payload %d tcp %v", len(p.IPHeader), len(p.IPPayload), p.IsTCP())
			}
		}},
		{name: "later fragment", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment, ProtoTCP}, [][]byte{frag6(1448, false, 5)}, seg), check: func(t *testing.T, p *Packet) {
			if !p.IsFragment || p.FragOffset != 1448 || p.HasL4 || p.IPProto != ProtoTCP || len(p.IPPayload) != len(seg) {
				t.Errorf("fragment fields %v %d %v", p.IsFragment, p.FragOffset, p.HasL4)
			}
		}},
		{name: "fragment invalid length", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment, ProtoTCP}, [][]byte{frag6(8, true, 5)}, make([]byte, 13)), events: []Event{EventIPv6FragInvalidLength}},
		{name: "first fragment cut inside a later header: no events", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment, nhDstOpts}, [][]byte{frag6(0, true, 3)}, ext6(16)[:8]), check: func(t *testing.T, p *Packet) {
			if !p.IsFragment || p.HasL4 || len(p.IPPayload) != 8 {
				t.Errorf("fragment %v L4 %v payload %d", p.IsFragment, p.HasL4, len(p.IPPayload))
			}
		}},
		{name: "first fragment cut inside tcp: no events", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment, ProtoTCP}, [][]byte{frag6(0, true, 3)}, seg[:16])},
		{name: "truncated fragment header", lt: LinkTypeIPv6, data: ip6([]uint8{nhFragment}, nil, make([]byte, 6)), events: []Event{EventIPv6TruncExthdr}, invalid: true},
	})
}

func TestTCP(t *testing.T) {
	mk := func(options []byte, payload string) []byte {
		return ip4(ip4Opts{proto: ProtoTCP}, tcp(v4a, v4b, 443, 5555, TCPFlagSYN|TCPFlagACK, options, []byte(payload)))
	}
	mod := func(b []byte, f func(seg []byte)) []byte {
		b = append([]byte(nil), b...)
		f(b[20:])
		return b
	}
	allOpts := []byte{
		2, 4, 0x05, 0xb4, // MSS 1460
		1,       // NOP
		3, 3, 7, // WS 7
		4, 2, // SACK permitted
		8, 10, 0, 0, 0, 1, 0, 0, 0, 2, // TS 1, 2
	}
	runCases(t, []decodeCase{
		{name: "fields", lt: LinkTypeIPv4, data: mod(mk(nil, "abc"), func(s []byte) { s[12] |= 0x0f; s[19] = 9 }), check: func(t *testing.T, p *Packet) {
			if p.TCPSeq != 1000 || p.TCPAck != 2000 || p.TCPFlags != TCPFlagSYN|TCPFlagACK || p.TCPWindow != 65535 || p.TCPRes != 0x0f || p.TCPUrgent != 9 || string(p.Payload) != "abc" || len(p.L4Header) != 20 {
				t.Errorf("fields %+v", p)
			}
		}},
		{name: "options", lt: LinkTypeIPv4, data: mk(allOpts, "x"), check: func(t *testing.T, p *Packet) {
			if !p.HasTCPMSS || p.TCPMSS != 1460 || !p.HasWScale || p.TCPWScale != 7 || !p.TCPSackOK || !p.TCPHasTS || p.TCPTSVal != 1 || p.TCPTSEcr != 2 || string(p.Payload) != "x" {
				t.Errorf("options %+v", p)
			}
		}},
		{name: "too small", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoTCP}, make([]byte, 19)), events: []Event{EventTCPPktTooSmall}, invalid: true, check: func(t *testing.T, p *Packet) {
			if p.HasL4 || p.IPProto != ProtoTCP || p.IPVersion != 4 {
				t.Errorf("HasL4 %v proto %d", p.HasL4, p.IPProto)
			}
		}},
		{name: "data offset past segment", lt: LinkTypeIPv4, data: mod(mk(nil, ""), func(s []byte) { s[12] = 6 << 4 }), events: []Event{EventTCPHlenTooSmall}, invalid: true},
		{name: "data offset below 5", lt: LinkTypeIPv4, data: mod(mk(nil, "abcd"), func(s []byte) { s[12] = 4 << 4 }), events: []Event{EventTCPInvalidOptlen}, invalid: true},
		{name: "option length past header", lt: LinkTypeIPv4, data: mk([]byte{2, 4, 5, 0xb4, 8, 10, 0, 0}, "x"), events: []Event{EventTCPOptInvalidLen}, check: func(t *testing.T, p *Packet) {
			if !p.IsTCP() || p.TCPMSS != 0x05b4 || string(p.Payload) != "x" {
				t.Errorf("decoding must go on after a bad option length")
			}
		}},
		{name: "option length zero", lt: LinkTypeIPv4, data: mk([]byte{3, 0, 0, 0}, ""), events: []Event{EventTCPOptInvalidLen}},
		{name: "mss wrong size", lt: LinkTypeIPv4, data: mk([]byte{2, 3, 5, 0}, ""), events: []Event{EventTCPOptInvalidLen}, check: func(t *testing.T, p *Packet) {
			if p.HasTCPMSS {
				t.Errorf("bad MSS kept")
			}
		}},
		{name: "duplicate ws", lt: LinkTypeIPv4, data: mk([]byte{3, 3, 1, 3, 3, 2, 0, 0}, ""), events: []Event{EventTCPOptDuplicate}, check: func(t *testing.T, p *Packet) {
			if p.TCPWScale != 1 {
				t.Errorf("first WS must win, got %d", p.TCPWScale)
			}
		}},
		{name: "sack", lt: LinkTypeIPv4, data: mk([]byte{1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2}, "")},
		{name: "sack bad size", lt: LinkTypeIPv4, data: mk([]byte{1, 1, 5, 6, 0, 0, 0, 1}, ""), events: []Event{EventTCPOptInvalidLen}},
	})
}

func TestUDP(t *testing.T) {
	u := udp(v4a, v4b, 5353, 53, []byte("hello"))
	mod := func(f func(seg []byte)) []byte {
		s := append([]byte(nil), u...)
		f(s)
		return ip4(ip4Opts{proto: ProtoUDP}, s)
	}
	runCases(t, []decodeCase{
		{name: "good", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoUDP}, u), check: func(t *testing.T, p *Packet) {
			if !p.IsUDP() || p.SrcPort != 5353 || p.DstPort != 53 || string(p.Payload) != "hello" || p.UDPLen != 13 {
				t.Errorf("udp %+v", p)
			}
		}},
		{name: "length shorter than ip payload: cut", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoUDP}, cat(u, []byte("trailer"))), check: func(t *testing.T, p *Packet) {
			if !p.IsUDP() || string(p.Payload) != "hello" || p.Invalid {
				t.Errorf("payload %q", p.Payload)
			}
		}},
		{name: "header too small", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoUDP}, u[:7]), events: []Event{EventUDPHlenTooSmall}, invalid: true},
		{name: "length past ip payload", lt: LinkTypeIPv4, data: mod(func(s []byte) { put16(s[4:], 14) }), events: []Event{EventUDPPktTooSmall}, invalid: true, check: func(t *testing.T, p *Packet) {
			if p.HasL4 || p.SrcPort != 0 {
				t.Errorf("UDP layer kept")
			}
		}},
		{name: "length below 8", lt: LinkTypeIPv4, data: mod(func(s []byte) { put16(s[4:], 7) }), events: []Event{EventUDPLenInvalid}, invalid: true},
		{name: "ipv6", lt: LinkTypeIPv6, data: ip6([]uint8{ProtoUDP}, nil, udp(v6a, v6b, 1, 2, []byte("x"))), check: func(t *testing.T, p *Packet) {
			if !p.IsUDP() || string(p.Payload) != "x" {
				t.Errorf("udp6")
			}
		}},
	})
}

func TestICMP(t *testing.T) {
	v4 := func(m []byte) []byte { return ip4(ip4Opts{proto: ProtoICMP}, m) }
	v6 := func(m []byte) []byte { return ip6([]uint8{ProtoICMPv6}, nil, m) }
	echo := func(typ, id, seq uint16) func(t *testing.T, p *Packet) {
		return func(t *testing.T, p *Packet) {
			t.Helper()
			if !p.IsICMP() || p.ICMPType != uint8(typ) || !p.HasICMPID || p.ICMPID != id || p.ICMPSeq != seq || string(p.Payload) != "ping" {
				t.Errorf("icmp %d/%d id %v %d seq %d payload %q", p.ICMPType, p.ICMPCode, p.HasICMPID, p.ICMPID, p.ICMPSeq, p.Payload)
			}
		}
	}
	noID := func(t *testing.T, p *Packet) {
		t.Helper()
		if !p.IsICMP() || p.HasICMPID {
			t.Errorf("HasICMPID set for type %d", p.ICMPType)
		}
	}
	quote4 := ip4(ip4Opts{proto: ProtoUDP}, make([]byte, 8))
	quote6 := ip6([]uint8{ProtoUDP}, nil, make([]byte, 8))
	cases := []decodeCase{
		{name: "v4 echo request", lt: LinkTypeIPv4, data: v4(icmp4(8, 0, 0x00070009, []byte("ping"))), check: echo(8, 7, 9)},
		{name: "v4 echo reply", lt: LinkTypeIPv4, data: v4(icmp4(0, 0, 0x00070009, []byte("ping"))), check: echo(0, 7, 9)},
		{name: "v4 unreachable", lt: LinkTypeIPv4, data: v4(icmp4(3, 3, 0, quote4)), check: noID},
		{name: "v4 unreachable bad code", lt: LinkTypeIPv4, data: v4(icmp4(3, 16, 0, quote4)), events: []Event{EventICMPv4UnknownCode}, check: noID},
		{name: "v4 unreachable short quote", lt: LinkTypeIPv4, data: v4(icmp4(3, 1, 0, quote4[:10])), events: []Event{EventICMPv4IPv4TruncPkt}},
		{name: "v4 unreachable quote not ipv4", lt: LinkTypeIPv4, data: v4(icmp4(11, 0, 0, quote6)), events: []Event{EventICMPv4IPv4UnknownVer}},
		{name: "v4 echo bad code", lt: LinkTypeIPv4, data: v4(icmp4(8, 1, 0, nil)), events: []Event{EventICMPv4UnknownCode}},
		{name: "v4 unknown type", lt: LinkTypeIPv4, data: v4(icmp4(42, 0, 0, nil)), events: []Event{EventICMPv4UnknownType}, check: noID},
		{name: "v4 too small", lt: LinkTypeIPv4, data: v4(make([]byte, 7)), events: []Event{EventICMPv4PktTooSmall}, invalid: true},
		{name: "v6 echo request", lt: LinkTypeIPv6, data: v6(icmp6(128, 0, 0x00070009, []byte("ping"))), check: echo(128, 7, 9)},
		{name: "v6 echo reply", lt: LinkTypeIPv6, data: v6(icmp6(129, 0, 0x00070009, []byte("ping"))), check: echo(129, 7, 9)},
		{name: "v6 param problem", lt: LinkTypeIPv6, data: v6(icmp6(4, 0, 0, quote6)), check: noID},
		{name: "v6 unreachable short quote", lt: LinkTypeIPv6, data: v6(icmp6(1, 0, 0, quote6[:20])), events: []Event{EventICMPv6IPv6TruncPkt}},
		{name: "v6 unreachable quote not ipv6", lt: LinkTypeIPv6, data: v6(icmp6(1, 0, 0, cat(quote4, make([]byte, 20)))), events: []Event{EventICMPv6IPv6UnknownVersion}},
		{name: "v6 bad code", lt: LinkTypeIPv6, data: v6(icmp6(3, 2, 0, nil)), events: []Event{EventICMPv6UnknownCode}},
		{name: "v6 neighbour solicitation", lt: LinkTypeIPv6, data: v6(icmp6(135, 0, 0, make([]byte, 16))), check: noID},
		{name: "v6 mld hop limit", lt: LinkTypeIPv6, data: v6(icmp6(130, 0, 0, make([]byte, 16))), events: []Event{EventICMPv6MLDMessageWithInvalidHL}},
		{name: "v6 unassigned", lt: LinkTypeIPv6, data: v6(icmp6(50, 0, 0, nil)), events: []Event{EventICMPv6UnassignedType}},
		{name: "v6 experimental", lt: LinkTypeIPv6, data: v6(icmp6(200, 0, 0, nil)), events: []Event{EventICMPv6ExperimentationType}},
		{name: "v6 unknown", lt: LinkTypeIPv6, data: v6(icmp6(255, 0, 0, nil)), events: []Event{EventICMPv6UnknownType}},
		{name: "v6 too small", lt: LinkTypeIPv6, data: v6(make([]byte, 7)), events: []Event{EventICMPv6PktTooSmall}, invalid: true},
	}
	for _, typ := range []uint32{13, 14, 15, 16, 17, 18} {
		cases = append(cases, decodeCase{name: "v4 id type " + ProtoName(uint8(typ)), lt: LinkTypeIPv4, data: v4(icmp4(uint8(typ), 0, 0x00010002, []byte("ping"))), check: echo(uint16(typ), 1, 2)})
	}
	runCases(t, cases)
}

func TestSCTP(t *testing.T) {
	h := make([]byte, 16)
	put16(h[0:], 2905)
	put16(h[2:], 2906)
	runCases(t, []decodeCase{
		{name: "ports", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoSCTP}, h), check: func(t *testing.T, p *Packet) {
			if !p.HasPorts() || p.SrcPort != 2905 || p.DstPort != 2906 || len(p.Payload) != 4 || p.ProtoName() != "SCTP" {
				t.Errorf("sctp %+v", p)
			}
		}},
		{name: "too small", lt: LinkTypeIPv4, data: ip4(ip4Opts{proto: ProtoSCTP}, h[:11]), events: []Event{EventSCTPPktTooSmall}, invalid: true},
	})
}

func TestChecksums(t *testing.T) {
	tcp4 := ip4(ip4Opts{proto: ProtoTCP}, tcp(v4a, v4b, 1, 2, TCPFlagACK, nil, []byte("odd")))
	udp4 := ip4(ip4Opts{proto: ProtoUDP}, udp(v4a, v4b, 1, 2, []byte("even")))
	icmp4m := ip4(ip4Opts{proto: ProtoICMP}, icmp4(8, 0, 1, []byte("pingx")))
	tcp6 := ip6([]uint8{nhDstOpts, ProtoTCP}, [][]byte{ext6(8)}, tcp(v6a, v6b, 1, 2, TCPFlagACK, nil, []byte("hello")))
	udp6 := ip6([]uint8{ProtoUDP}, nil, udp(v6a, v6b, 1, 2, []byte("x")))
	icmp6m := ip6([]uint8{ProtoICMPv6}, nil, icmp6(128, 0, 1, []byte("ping")))
	flip := func(b []byte, i int) []byte {
		b = append([]byte(nil), b...)
		b[i] ^= 0x40
		return b
	}
	udpNoSum := append([]byte(nil), udp4...)
	udpNoSum[20+6], udpNoSum[20+7] = 0, 0
	udpCut := ip4(ip4Opts{proto: ProtoUDP}, cat(udp(v4a, v4b, 1, 2, []byte("even")), []byte{0xff, 0xee}))
	frag := ip4(ip4Opts{proto: ProtoTCP, flags: IPv4FlagMF}, tcp(v4a, v4b, 1, 2, TCPFlagACK, nil, make([]byte, 16))[:32])

	tests := []struct {
		name         string
		lt           LinkType
		data         []byte
		ipBad, l4Bad bool
	}{
		{"tcp4 good", LinkTypeIPv4, tcp4, false, false},
		{"tcp4 payload corrupt", LinkTypeIPv4, flip(tcp4, len(tcp4)-1), false, true},
		{"ipv4 header corrupt", LinkTypeIPv4, flip(tcp4, 8), true, false},
		{"udp4 good", LinkTypeIPv4, udp4, false, false},
		{"udp4 corrupt", LinkTypeIPv4, flip(udp4, len(udp4)-1), false, true},
		{"udp4 zero checksum", LinkTypeIPv4, flip(udpNoSum, len(udpNoSum)-1), false, false},
		{"udp4 cut by length", LinkTypeIPv4, udpCut, false, false},
		{"icmp4 good", LinkTypeIPv4, icmp4m, false, false},
		{"icmp4 corrupt", LinkTypeIPv4, flip(icmp4m, len(icmp4m)-1), false, true},
		{"tcp6 good", LinkTypeIPv6, tcp6, false, false},
		{"tcp6 corrupt", LinkTypeIPv6, flip(tcp6, len(tcp6)-1), false, true},
		{"tcp6 address corrupt", LinkTypeIPv6, flip(tcp6, 10), false, true},
		{"udp6 good", LinkTypeIPv6, udp6, false, false},
		{"udp6 corrupt", LinkTypeIPv6, flip(udp6, len(udp6)-1), false, true},
		{"icmp6 good", LinkTypeIPv6, icmp6m, false, false},
		{"icmp6 corrupt", LinkTypeIPv6, flip(icmp6m, len(icmp6m)-1), false, true},
		{"fragment not checked", LinkTypeIPv4, frag, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Packet
			d := Decoder{Checksums: ChecksumAll}
			d.Decode(&p, tc.lt, tc.data)
			if !p.HasL4 {
				t.Fatalf("transport not decoded: %v", names(eventsOf(&p)))
			}
			if p.IPv4ChecksumBad != tc.ipBad || p.L4ChecksumBad != tc.l4Bad {
				t.Errorf("ChecksumAll: ip bad %v l4 bad %v, want %v %v", p.IPv4ChecksumBad, p.L4ChecksumBad, tc.ipBad, tc.l4Bad)
			}
			d = Decoder{Checksums: ChecksumNone}
			d.Decode(&p, tc.lt, tc.data)
			if p.IPv4ChecksumBad || p.L4ChecksumBad {
				t.Errorf("ChecksumNone reported a bad checksum")
			}
			d = Decoder{Checksums: ChecksumTCP}
			d.Decode(&p, tc.lt, tc.data)
			if wantL4 := tc.l4Bad && p.IPProto == ProtoTCP; p.IPv4ChecksumBad || p.L4ChecksumBad != wantL4 {
				t.Errorf("ChecksumTCP: ip bad %v l4 bad %v, want false %v", p.IPv4ChecksumBad, p.L4ChecksumBad, wantL4)
			}
		})
	}
}

func eventsOf(p *Packet) []Event {
	var es []Event
	p.Events.Each(func(e Event) { es = append(es, e) })
	return es
}

func TestOnesSum(t *testing.T) {
	// Compare the 64-bit-word sum with a plain 16-bit reference on every length and
	// alignment, including all-ones data that exercises the carries.
	ref := func(b []byte) uint16 {
		var s uint32
		for i := 0; i+1 < len(b); i += 2 {
			s += uint32(b[i])<<8 | uint32(b[i+1])
		}
		if len(b)%2 == 1 {
			s += uint32(b[len(b)-1]) << 8
		}
		for s > 0xffff {
			s = s>>16 + s&0xffff
		}
		return uint16(s)
	}
	buf := make([]byte, 200)
	for i := range buf {
		buf[i] = byte(i*37 + 11)
	}
	ones := make([]byte, 100)
	for i := range ones {
		ones[i] = 0xff
	}
	// Long buffers exercise the two-chain loop: random bytes, and nearly all ones so that
	// carries happen in both chains.
	long := make([]byte, 3000)
	for i := range long {
		long[i] = byte(i*i*7 + i*13 + 5)
	}
	longOnes := make([]byte, 1500)
	for i := range longOnes {
		longOnes[i] = 0xff
		if i%97 == 0 {
			longOnes[i] = 0xfe
		}
	}
	for _, b := range [][]byte{buf, ones, long, longOnes} {
		for n := 0; n <= len(b); n++ {
			if got, want := fold(onesSum(b[:n], 0)), ref(b[:n]); got != want {
				t.Fatalf("len %d: %#x, want %#x", n, got, want)
			}
		}
	}
}

func TestEvents(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	AllEvents(func(e Event) {
		n++
		s := e.String()
		if s == "" || seen[s] {
			t.Errorf("event %d: name %q empty or duplicate", e, s)
		}
		seen[s] = true
		if got, ok := EventByName(s); !ok || got != e {
			t.Errorf("EventByName(%q) = %v, %v", s, got, ok)
		}
	})
	if n != int(EventCount)-1 {
		t.Errorf("AllEvents yielded %d events, want %d", n, EventCount-1)
	}
	if _, ok := EventByName("IPV4.TRUNC_PKT"); !ok {
		t.Errorf("EventByName is not case-insensitive")
	}
	if _, ok := EventByName("nope.nope"); ok {
		t.Errorf("EventByName accepted an unknown name")
	}
	if int(EventCount) > 256 {
		t.Errorf("EventSet holds 256 events, have %d", EventCount)
	}
	var s EventSet
	s.Add(EventSCTPPktTooSmall)
	s.Add(EventEthernetPktTooSmall)
	if got := eventsOf(&Packet{Events: s}); len(got) != 2 || got[0] != EventEthernetPktTooSmall {
		t.Errorf("Each: %v", got)
	}
}

func TestCounters(t *testing.T) {
	var d Decoder
	var p Packet
	seg := tcp(v4a, v4b, 1, 2, TCPFlagACK, nil, []byte("data"))
	d.Decode(&p, LinkTypeEthernet, eth(0x0800, ip4(ip4Opts{proto: ProtoTCP}, seg)))
	d.Decode(&p, LinkTypeEthernet, eth(0x86dd, ip6([]uint8{ProtoUDP}, nil, udp(v6a, v6b, 1, 2, nil))))
	d.Decode(&p, LinkTypeEthernet, eth(0x0800, ip4(ip4Opts{proto: ProtoTCP}, seg)[:30]))
	d.Decode(&p, LinkTypeEthernet, eth(0x0806, make([]byte, 28)))
	c := d.Counters
	if c.Pkts != 4 || c.Ethernet != 4 || c.IPv4 != 2 || c.IPv6 != 1 || c.TCP != 1 || c.UDP != 1 || c.ARP != 1 || c.Invalid != 1 ||
		c.Events[EventIPv4TruncPkt] != 1 || c.MaxPktSize != 14+40+8 {
		t.Errorf("counters %+v", c)
	}
	var total Counters
	total.Add(&c)
	total.Add(&c)
	if total.Pkts != 8 || total.MaxPktSize != c.MaxPktSize || total.Events[EventIPv4TruncPkt] != 2 {
		t.Errorf("Add: %+v", total)
	}
	got := map[string]uint64{}
	total.Each(func(name string, v uint64) {
		if _, dup := got[name]; dup {
			t.Errorf("duplicate counter %s", name)
		}
		got[name] = v
	})
	for name, want := range map[string]uint64{
		"decoder.pkts": 8, "decoder.bytes": total.Bytes, "decoder.avg_pkt_size": total.Bytes / 8,
		"decoder.max_pkt_size": c.MaxPktSize, "decoder.tcp": 2, "decoder.arp": 2,
		"decoder.event.ipv4.trunc_pkt": 2, "decoder.event.tcp.opt_duplicate": 0,
	} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("%s = %d (present %v), want %d", name, v, ok, want)
		}
	}
	if _, ok := got["decoder.event.ipv4.frag_overlap"]; ok {
		t.Errorf("defrag events belong to defrag's counters")
	}
}

func TestProtoName(t *testing.T) {
	for proto, want := range map[uint8]string{1: "ICMP", 2: "IGMP", 6: "TCP", 17: "UDP", 47: "GRE", 58: "IPv6-ICMP", 132: "SCTP", 0: "0", 50: "50", 255: "255"} {
		if got := ProtoName(proto); got != want {
			t.Errorf("ProtoName(%d) = %q, want %q", proto, got, want)
		}
	}
	p := Packet{IPProto: ProtoTCP}
	if n := testing.AllocsPerRun(100, func() { _ = p.ProtoName() }); n != 0 {
		t.Errorf("ProtoName allocates %v", n)
	}
}

// proto checks IPProto: Suricata's p->proto for IPv6 (IPV6_SET_L4PROTO), the last header
// that set it.
func proto(want uint8) func(t *testing.T, p *Packet) {
	return func(t *testing.T, p *Packet) {
		t.Helper()
		if p.IPProto != want {
			t.Errorf("IPProto %d, want %d", p.IPProto, want)
		}
	}
}
