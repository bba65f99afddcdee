package reject

import (
	"bytes"
	"encoding/binary"
	"net"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/meerkat-ids/meerkat/decode"
)

var (
	cli4 = net.IP{192, 168, 1, 10}
	srv4 = net.IP{10, 0, 0, 80}
	cli6 = net.ParseIP("2001:db8::10")
	srv6 = net.ParseIP("2001:db8:1::80")
)

// serialize builds a raw IP packet from gopacket layers (lengths and checksums computed).
func serialize(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

// decodeRaw decodes a raw IP packet with Meerkat's decoder.
func decodeRaw(t testing.TB, raw []byte) *decode.Packet {
	t.Helper()
	var d decode.Decoder
	p := new(decode.Packet)
	d.Decode(p, decode.LinkTypeRaw, raw)
	if p.IPVersion == 0 {
		t.Fatalf("test packet did not decode: %x", raw)
	}
	return p
}

func ip4(proto layers.IPProtocol) *layers.IPv4 {
	return &layers.IPv4{Version: 4, TTL: 33, Id: 0x1234, Flags: layers.IPv4DontFragment,
		TOS: 0x28, Protocol: proto, SrcIP: cli4, DstIP: srv4}
}

func ip6(nh layers.IPProtocol) *layers.IPv6 {
	return &layers.IPv6{Version: 6, HopLimit: 33, TrafficClass: 0x28, FlowLabel: 0x12345,
		NextHeader: nh, SrcIP: cli6, DstIP: srv6}
}

type tcpSpec struct {
	syn, ack, fin, rst, psh bool
	seq, ackn               uint32
	payload                 string
}

func tcpPacket(t testing.TB, v6 bool, s tcpSpec) []byte {
	tcp := &layers.TCP{SrcPort: 40000, DstPort: 80, Seq: s.seq, Ack: s.ackn, Window: 29200,
		SYN: s.syn, ACK: s.ack, FIN: s.fin, RST: s.rst, PSH: s.psh}
	pl := gopacket.Payload(s.payload)
	if v6 {
		ip := ip6(layers.IPProtocolTCP)
		_ = tcp.SetNetworkLayerForChecksum(ip)
		return serialize(t, ip, tcp, pl)
	}
	ip := ip4(layers.IPProtocolTCP)
	_ = tcp.SetNetworkLayerForChecksum(ip)
	return serialize(t, ip, tcp, pl)
}

func udpPacket(t testing.TB, v6 bool, payload string) []byte {
	udp := &layers.UDP{SrcPort: 5353, DstPort: 53}
	if v6 {
		ip := ip6(layers.IPProtocolUDP)
		_ = udp.SetNetworkLayerForChecksum(ip)
		return serialize(t, ip, udp, gopacket.Payload(payload))
	}
	ip := ip4(layers.IPProtocolUDP)
	_ = udp.SetNetworkLayerForChecksum(ip)
	return serialize(t, ip, udp, gopacket.Payload(payload))
}

// --- independent checksum verification ---

func onesComplement(parts ...[]byte) uint16 {
	var all []byte
	for _, p := range parts {
		all = append(all, p...)
	}
	if len(all)%2 == 1 {
		all = append(all, 0)
	}
	var s uint64
	for i := 0; i < len(all); i += 2 {
		s += uint64(binary.BigEndian.Uint16(all[i:]))
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return uint16(s)
}

// checkChecksums verifies the IPv4 header checksum and the transport checksum of a built
// packet.
func checkChecksums(t *testing.T, pkt []byte) {
	t.Helper()
	switch pkt[0] >> 4 {
	case 4:
		if got := onesComplement(pkt[:20]); got != 0xffff {
			t.Errorf("IPv4 header checksum invalid (sum %#x)", got)
		}
		l4 := pkt[20:]
		var got uint16
		switch pkt[9] {
		case 6:
			ph := append(append([]byte{}, pkt[12:20]...), 0, 6, byte(len(l4)>>8), byte(len(l4)))
			got = onesComplement(ph, l4)
		case 1:
			got = onesComplement(l4)
		}
		if got != 0xffff {
			t.Errorf("IPv4 L4 checksum invalid (sum %#x)", got)
		}
	case 6:
		l4 := pkt[40:]
		ph := append(append([]byte{}, pkt[8:40]...), 0, 0, byte(len(l4)>>8), byte(len(l4)), 0, 0, 0, pkt[6])
		if got := onesComplement(ph, l4); got != 0xffff {
			t.Errorf("IPv6 L4 checksum invalid (sum %#x)", got)
		}
	default:
		t.Fatalf("not an IP packet: %x", pkt)
	}
}

// checkIP checks the network header of a built packet and returns the gopacket decoding.
func checkIP(t *testing.T, pkt []byte, v6 bool, src, dst net.IP, proto layers.IPProtocol) gopacket.Packet {
	t.Helper()
	checkChecksums(t, pkt)
	if v6 {
		gp := gopacket.NewPacket(pkt, layers.LayerTypeIPv6, gopacket.Default)
		ip, _ := gp.Layer(layers.LayerTypeIPv6).(*layers.IPv6)
		if ip == nil {
			t.Fatalf("no IPv6 layer: %v", gp)
		}
		if ip.Version != 6 || ip.TrafficClass != 0 || ip.FlowLabel != 0 || ip.HopLimit != 64 ||
			ip.NextHeader != proto || int(ip.Length) != len(pkt)-40 {
			t.Errorf("IPv6 header: ver %d tc %d fl %d hl %d nh %v len %d (pkt %d)",
				ip.Version, ip.TrafficClass, ip.FlowLabel, ip.HopLimit, ip.NextHeader, ip.Length, len(pkt))
		}
		if !ip.SrcIP.Equal(src) || !ip.DstIP.Equal(dst) {
			t.Errorf("IPv6 addresses %v -> %v, want %v -> %v", ip.SrcIP, ip.DstIP, src, dst)
		}
		return gp
	}
	gp := gopacket.NewPacket(pkt, layers.LayerTypeIPv4, gopacket.Default)
	ip, _ := gp.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	if ip == nil {
		t.Fatalf("no IPv4 layer: %v", gp)
	}
	if ip.Version != 4 || ip.IHL != 5 || ip.TOS != 0 || ip.Id != 0 || ip.Flags != 0 ||
		ip.FragOffset != 0 || ip.TTL != 64 || ip.Protocol != proto || int(ip.Length) != len(pkt) {
		t.Errorf("IPv4 header: ver %d ihl %d tos %d id %d flags %v off %d ttl %d proto %v len %d (pkt %d)",
			ip.Version, ip.IHL, ip.TOS, ip.Id, ip.Flags, ip.FragOffset, ip.TTL, ip.Protocol, ip.Length, len(pkt))
	}
	if !ip.SrcIP.Equal(src) || !ip.DstIP.Equal(dst) {
		t.Errorf("IPv4 addresses %v -> %v, want %v -> %v", ip.SrcIP, ip.DstIP, src, dst)
	}
	return gp
}

func TestTCPReset(t *testing.T) {
	const seq, ackn = 0x11223344, 0xfffffff0
	type want struct{ seq, ack uint32 }
	cases := []struct {
		name   string
		spec   tcpSpec
		target Target
		want   []want // per built packet, in order
	}{
		{"ack+payload to source", tcpSpec{ack: true, psh: true, seq: seq, ackn: ackn, payload: "GET / HTTP/1.0\r\n\r\n"},
			ToSource, []want{{ackn, seq + 18}}},
		{"syn to source", tcpSpec{syn: true, seq: seq},
			ToSource, []want{{0, seq + 1}}},
		{"syn with payload to source", tcpSpec{syn: true, seq: seq, payload: "abc"},
			ToSource, []want{{0, seq + 3 + 1}}},
		{"syn/ack to source", tcpSpec{syn: true, ack: true, seq: seq, ackn: ackn},
			ToSource, []want{{ackn, seq}}}, // Suricata adds no +1 for SYN when ack != 0
		{"fin/ack to source", tcpSpec{fin: true, ack: true, seq: seq, ackn: ackn, payload: "xy"},
			ToSource, []want{{ackn, seq + 2}}}, // nor for FIN
		{"ack flag but ack number 0", tcpSpec{ack: true, seq: seq, ackn: 0, payload: "xy"},
			ToSource, []want{{0, seq + 2 + 1}}}, // Suricata tests the number, not the flag
		{"ack number without ack flag", tcpSpec{syn: true, seq: seq, ackn: 77},
			ToSource, []want{{77, seq}}},
		{"seq wraps", tcpSpec{ack: true, seq: 0xfffffffe, ackn: 5, payload: "abcd"},
			ToSource, []want{{5, 2}}},
		{"ack+payload to destination", tcpSpec{ack: true, seq: seq, ackn: ackn, payload: "hello"},
			ToDestination, []want{{seq, ackn}}},
		{"syn to destination", tcpSpec{syn: true, seq: seq},
			ToDestination, []want{{seq, 0}}},
		{"both", tcpSpec{ack: true, seq: seq, ackn: ackn, payload: "hello"},
			Both, []want{{ackn, seq + 5}, {seq, ackn}}},
		{"rst is answered like Suricata", tcpSpec{rst: true, ack: true, seq: seq, ackn: ackn},
			ToSource, []want{{ackn, seq}}},
	}
	for _, v6 := range []bool{false, true} {
		cli, srv := cli4, srv4
		if v6 {
			cli, srv = cli6, srv6
		}
		for _, c := range cases {
			name := c.name + map[bool]string{false: "/v4", true: "/v6"}[v6]
			t.Run(name, func(t *testing.T) {
				p := decodeRaw(t, tcpPacket(t, v6, c.spec))
				if !p.IsTCP() {
					t.Fatal("not decoded as TCP")
				}
				var b Builder
				if k := b.Kind(p); k != TCPReset {
					t.Fatalf("Kind = %v", k)
				}
				prefix := []byte("prefix")
				ps, buf := Build(append([]byte(nil), prefix...), p, c.target)
				if !bytes.HasPrefix(buf, prefix) {
					t.Fatal("prefix of dst lost")
				}
				if ps.Len() != len(c.want) {
					t.Fatalf("built %d packets, want %d", ps.Len(), len(c.want))
				}
				size := 40
				if v6 {
					size = 60
				}
				if len(buf) != len(prefix)+size*len(c.want) {
					t.Errorf("buffer length %d", len(buf))
				}
				for i, pkt := range ps.All() {
					toSrc := c.target == ToSource || (c.target == Both && i == 0)
					src, dst := cli, srv
					sp, dp := layers.TCPPort(40000), layers.TCPPort(80)
					if toSrc {
						src, dst, sp, dp = srv, cli, dp, sp
					}
					if len(pkt) != size {
						t.Fatalf("packet %d: length %d, want %d", i, len(pkt), size)
					}
					gp := checkIP(t, pkt, v6, src, dst, layers.IPProtocolTCP)
					tcp, _ := gp.Layer(layers.LayerTypeTCP).(*layers.TCP)
					if tcp == nil {
						t.Fatalf("packet %d: no TCP layer", i)
					}
					if tcp.SrcPort != sp || tcp.DstPort != dp {
						t.Errorf("packet %d: ports %d -> %d, want %d -> %d", i, tcp.SrcPort, tcp.DstPort, sp, dp)
					}
					if tcp.Seq != c.want[i].seq || tcp.Ack != c.want[i].ack {
						t.Errorf("packet %d: seq %#x ack %#x, want seq %#x ack %#x", i, tcp.Seq, tcp.Ack, c.want[i].seq, c.want[i].ack)
					}
					if !tcp.RST || !tcp.ACK || tcp.SYN || tcp.FIN || tcp.PSH || tcp.URG || tcp.ECE || tcp.CWR || tcp.NS {
						t.Errorf("packet %d: flags %x, want RST|ACK", i, pkt[len(pkt)-20+13])
					}
					if tcp.DataOffset != 5 || tcp.Window != 29200 || tcp.Urgent != 0 || len(tcp.Payload) != 0 || len(tcp.Options) != 0 {
						t.Errorf("packet %d: doff %d win %d urg %d payload %d opts %d", i,
							tcp.DataOffset, tcp.Window, tcp.Urgent, len(tcp.Payload), len(tcp.Options))
					}
					// Meerkat's own decoder agrees and finds the checksum good.
					d := decode.Decoder{Checksums: decode.ChecksumAll}
					var rp decode.Packet
					d.Decode(&rp, decode.LinkTypeRaw, pkt)
					if !rp.IsTCP() || rp.L4ChecksumBad || rp.IPv4ChecksumBad || rp.Invalid {
						t.Errorf("packet %d: meerkat decode: tcp %v bad %v/%v invalid %v", i, rp.IsTCP(), rp.L4ChecksumBad, rp.IPv4ChecksumBad, rp.Invalid)
					}
				}
			})
		}
	}
}

// icmpCheck verifies an ICMP unreachable built for orig and returns its quote.
func icmpCheck(t *testing.T, pkt []byte, v6 bool, src, dst net.IP) []byte {
	t.Helper()
	if v6 {
		gp := checkIP(t, pkt, true, src, dst, layers.IPProtocolICMPv6)
		ic, _ := gp.Layer(layers.LayerTypeICMPv6).(*layers.ICMPv6)
		if ic == nil {
			t.Fatal("no ICMPv6 layer")
		}
		if ic.TypeCode.Type() != 1 || ic.TypeCode.Code() != 1 {
			t.Errorf("ICMPv6 %v, want type 1 code 1", ic.TypeCode)
		}
		_ = ic.SetNetworkLayerForChecksum(gp.NetworkLayer())
		if err, res := ic.VerifyChecksum(); err != nil || !res.Valid {
			t.Errorf("gopacket ICMPv6 checksum: %v", err)
		}
		if !bytes.Equal(pkt[44:48], []byte{0, 0, 0, 0}) {
			t.Errorf("unused bytes %x", pkt[44:48])
		}
		return pkt[48:]
	}
	gp := checkIP(t, pkt, false, src, dst, layers.IPProtocolICMPv4)
	ic, _ := gp.Layer(layers.LayerTypeICMPv4).(*layers.ICMPv4)
	if ic == nil {
		t.Fatal("no ICMPv4 layer")
	}
	if ic.TypeCode.Type() != 3 || ic.TypeCode.Code() != 10 {
		t.Errorf("ICMPv4 %v, want type 3 code 10", ic.TypeCode)
	}
	if ic.Id != 0 || ic.Seq != 0 {
		t.Errorf("unused bytes %x", pkt[24:28])
	}
	return pkt[28:]
}

func TestICMPUnreachable(t *testing.T) {
	udp4 := udpPacket(t, false, "0123456789abcdef")          // 20 + 8 + 16 = 44 bytes
	udp6 := udpPacket(t, true, "0123456789abcdef")           // 40 + 8 + 16 = 64 bytes
	udp6big := udpPacket(t, true, string(make([]byte, 100))) // 40 + 8 + 100 = 148 bytes
	// No next header, no payload: IPv6 payload length 0.
	empty6 := serialize(t, ip6(layers.IPProtocolNoNextHeader))
	// Other protocol (GRE number, undecoded payload).
	other4 := serialize(t, ip4(layers.IPProtocolGRE), gopacket.Payload("\x00\x00\x08\x00abcdefgh"))
	echo4 := serialize(t, ip4(layers.IPProtocolICMPv4),
		&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(8, 0), Id: 1, Seq: 2}, gopacket.Payload("ping"))
	unreach4 := serialize(t, ip4(layers.IPProtocolICMPv4),
		&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(3, 3)}, gopacket.Payload(udp4[:28]))
	echo6ip := ip6(layers.IPProtocolICMPv6)
	echo6 := &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(128, 0)}
	_ = echo6.SetNetworkLayerForChecksum(echo6ip)
	echo6raw := serialize(t, echo6ip, echo6, gopacket.Payload("\x00\x01\x00\x02ping"))

	cases := []struct {
		name    string
		raw     []byte
		b       Builder
		target  Target
		quote   int // bytes of raw quoted
		packets int
	}{
		// Suricata without a reject device: IPv4 quotes min(8, iplen)-4 = 4 bytes, IPv6
		// 40+min(8, plen)-8 bytes.
		{"udp4 to source", udp4, Builder{}, ToSource, 4, 1},
		{"udp4 to destination", udp4, Builder{}, ToDestination, 4, 1},
		{"udp4 both", udp4, Builder{}, Both, 4, 2},
		{"udp6 to source", udp6, Builder{}, ToSource, 40, 1},
		{"udp6 both", udp6, Builder{}, Both, 40, 2},
		{"empty6", empty6, Builder{}, ToSource, 32, 1},
		{"other4", other4, Builder{}, ToSource, 4, 1},
		{"echo4", echo4, Builder{}, ToSource, 4, 1},
		{"icmp error is answered like Suricata", unreach4, Builder{}, ToSource, 4, 1},
		{"echo6", echo6raw, Builder{}, ToSource, 40, 1},
		// With a reject device MTU: IPv4 min(MTU-14, 20+iplen)-24, IPv6 40+min(MTU-14, plen)-8.
		{"udp4 mtu1500", udp4, Builder{MTU: 1500}, ToSource, 44 - 4, 1},
		{"udp4 mtu60", udp4, Builder{MTU: 60}, ToSource, 60 - 14 - 24, 1},
		{"udp4 mtu41 (too small, ignored)", udp4, Builder{MTU: 41}, ToSource, 4, 1},
		{"udp6 mtu1500", udp6, Builder{MTU: 1500}, ToSource, 64 - 8, 1},
		{"udp6 mtu70", udp6, Builder{MTU: 70}, ToSource, 64 - 8, 1},
		{"udp6big mtu100", udp6big, Builder{MTU: 100}, ToSource, 40 + 100 - 14 - 8, 1},
		{"udp6 mtu61 (too small, ignored)", udp6, Builder{MTU: 61}, ToSource, 40, 1},
		// RFC mode: IPv4 header + 8 bytes, IPv6 up to 1280 bytes in all.
		{"udp4 rfc", udp4, Builder{RFC: true}, ToSource, 28, 1},
		{"udp6 rfc", udp6, Builder{RFC: true}, Both, 64, 2},
		{"echo4 rfc", echo4, Builder{RFC: true}, ToSource, 28, 1},
		{"echo6 rfc", echo6raw, Builder{RFC: true}, ToSource, len(echo6raw), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := decodeRaw(t, c.raw)
			v6 := p.IPVersion == 6
			cli, srv := cli4, srv4
			if v6 {
				cli, srv = cli6, srv6
			}
			if k := c.b.Kind(p); k != ICMPProhib {
				t.Fatalf("Kind = %v", k)
			}
			ps, buf := c.b.Build(nil, p, c.target)
			if ps.Len() != c.packets {
				t.Fatalf("built %d packets, want %d", ps.Len(), c.packets)
			}
			hdr := 28
			if v6 {
				hdr = 48
			}
			if len(buf) != c.packets*(hdr+c.quote) {
				t.Errorf("buffer length %d, want %d", len(buf), c.packets*(hdr+c.quote))
			}
			for i := range ps.Len() {
				pkt := ps.At(i)
				toSrc := c.target == ToSource || (c.target == Both && i == 0)
				src, dst := cli, srv
				if toSrc {
					src, dst = srv, cli
				}
				q := icmpCheck(t, pkt, v6, src, dst)
				if !bytes.Equal(q, c.raw[:c.quote]) {
					t.Errorf("packet %d: quote %x, want %x", i, q, c.raw[:c.quote])
				}
				d := decode.Decoder{Checksums: decode.ChecksumAll}
				var rp decode.Packet
				d.Decode(&rp, decode.LinkTypeRaw, pkt)
				if !rp.IsICMP() || rp.L4ChecksumBad || rp.IPv4ChecksumBad {
					t.Errorf("packet %d: meerkat decode: icmp %v bad %v/%v", i, rp.IsICMP(), rp.L4ChecksumBad, rp.IPv4ChecksumBad)
				}
			}
		})
	}
}

func TestFragmentGetsICMP(t *testing.T) {
	// A first fragment carrying a whole TCP header: Suricata decodes no transport header for
	// fragments, so it answers with an ICMP unreachable, not a RST.
	full := tcpPacket(t, false, tcpSpec{ack: true, seq: 1, ackn: 2, payload: "0123456789abcdef"})
	frag := append([]byte(nil), full[:20+24]...)
	binary.BigEndian.PutUint16(frag[2:4], uint16(len(frag)))
	frag[6] = 0x20 // MF
	frag[10], frag[11] = 0, 0
	binary.BigEndian.PutUint16(frag[10:12], ^onesComplement(frag[:20]))
	p := decodeRaw(t, frag)
	if !p.IsFragment {
		t.Fatal("not a fragment")
	}
	var b Builder
	if k := b.Kind(p); k != ICMPProhib {
		t.Fatalf("Kind = %v, want icmp-prohib", k)
	}
	ps, _ := Build(nil, p, ToSource)
	if ps.Len() != 1 {
		t.Fatalf("built %d", ps.Len())
	}
	icmpCheck(t, ps.At(0), false, srv4, cli4)

	// The first fragment is still answered in RFC mode, a later one is not.
	if k := (&Builder{RFC: true}).Kind(p); k != ICMPProhib {
		t.Errorf("RFC Kind(first fragment) = %v", k)
	}
	binary.BigEndian.PutUint16(frag[6:8], 0x2000|3) // MF, offset 24
	frag[10], frag[11] = 0, 0
	binary.BigEndian.PutUint16(frag[10:12], ^onesComplement(frag[:20]))
	p = decodeRaw(t, frag)
	if k := (&Builder{RFC: true}).Kind(p); k != None {
		t.Errorf("RFC Kind(later fragment) = %v", k)
	}
	if k := (&Builder{}).Kind(p); k != ICMPProhib {
		t.Errorf("Kind(later fragment) = %v", k)
	}
}

func TestNoAnswer(t *testing.T) {
	rst4 := tcpPacket(t, false, tcpSpec{rst: true, seq: 5})
	rstack6 := tcpPacket(t, true, tcpSpec{rst: true, ack: true, seq: 5, ackn: 6})
	udp4 := udpPacket(t, false, "x")
	unreach4 := serialize(t, ip4(layers.IPProtocolICMPv4),
		&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(3, 3)}, gopacket.Payload(udp4[:28]))
	ttl4 := serialize(t, ip4(layers.IPProtocolICMPv4),
		&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(11, 0)}, gopacket.Payload(udp4[:28]))
	err6ip := ip6(layers.IPProtocolICMPv6)
	err6 := &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(1, 4)}
	_ = err6.SetNetworkLayerForChecksum(err6ip)
	unreach6 := serialize(t, err6ip, err6, gopacket.Payload(append([]byte{0, 0, 0, 0}, udpPacket(t, true, "x")...)))
	mcast := ip4(layers.IPProtocolUDP)
	mcast.DstIP = net.IP{224, 0, 0, 251}
	mudp := &layers.UDP{SrcPort: 5353, DstPort: 5353}
	_ = mudp.SetNetworkLayerForChecksum(mcast)
	mcast4 := serialize(t, mcast, mudp)
	bcast := ip4(layers.IPProtocolUDP)
	bcast.DstIP = net.IP{255, 255, 255, 255}
	budp := &layers.UDP{SrcPort: 68, DstPort: 67}
	_ = budp.SetNetworkLayerForChecksum(bcast)
	bcast4 := serialize(t, bcast, budp)

	rfc := Builder{RFC: true}
	for _, c := range []struct {
		name string
		raw  []byte
		// what Suricata (zero Builder) does
		suricata Kind
	}{
		{"rst", rst4, TCPReset},
		{"rst/ack v6", rstack6, TCPReset},
		{"icmp unreachable", unreach4, ICMPProhib},
		{"icmp time exceeded", ttl4, ICMPProhib},
		{"icmpv6 unreachable", unreach6, ICMPProhib},
		{"multicast", mcast4, ICMPProhib},
		{"broadcast", bcast4, ICMPProhib},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := decodeRaw(t, c.raw)
			if k := (&Builder{}).Kind(p); k != c.suricata {
				t.Errorf("Suricata Kind = %v, want %v", k, c.suricata)
			}
			for _, tg := range []Target{ToSource, ToDestination, Both} {
				dst := []byte("keep")
				ps, buf := rfc.Build(dst, p, tg)
				if ps.Len() != 0 || string(buf) != "keep" {
					t.Errorf("RFC builder answered %v: %d packets, buf %q", tg, ps.Len(), buf)
				}
			}
		})
	}

	// Never answered, in either mode.
	var d decode.Decoder
	never := map[string]*decode.Packet{}
	arp := serialize(t, &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 1, 2, 3, 4, 5}, DstMAC: net.HardwareAddr{6, 7, 8, 9, 10, 11},
		EthernetType: layers.EthernetTypeARP}, gopacket.Payload(make([]byte, 28)))
	pa := new(decode.Packet)
	d.Decode(pa, decode.LinkTypeEthernet, arp)
	never["arp"] = pa
	pd := decodeRaw(t, udp4)
	pd.Source = decode.SourceDefrag
	never["defrag"] = pd
	never["empty"] = new(decode.Packet)
	never["nil"] = nil
	for name, p := range never {
		for _, b := range []Builder{{}, rfc} {
			ps, buf := b.Build(nil, p, Both)
			if ps.Len() != 0 || len(buf) != 0 {
				t.Errorf("%s (rfc %v): built %d packets", name, b.RFC, ps.Len())
			}
		}
	}
	// An unknown target builds nothing.
	if ps, _ := Build(nil, decodeRaw(t, udp4), Target(7)); ps.Len() != 0 {
		t.Errorf("Target(7) built %d", ps.Len())
	}
}

func TestEthernetFrameAndVLAN(t *testing.T) {
	// The link layer does not matter: a VLAN-tagged Ethernet frame gives the same IP packet.
	raw := udpPacket(t, false, "hello")
	frame := serialize(t,
		&layers.Ethernet{SrcMAC: net.HardwareAddr{0, 1, 2, 3, 4, 5}, DstMAC: net.HardwareAddr{6, 7, 8, 9, 10, 11},
			EthernetType: layers.EthernetTypeDot1Q},
		&layers.Dot1Q{VLANIdentifier: 100, Type: layers.EthernetTypeIPv4}, gopacket.Payload(raw))
	var d decode.Decoder
	var pe decode.Packet
	d.Decode(&pe, decode.LinkTypeEthernet, frame)
	a, _ := Build(nil, &pe, Both)
	b, _ := Build(nil, decodeRaw(t, raw), Both)
	if a.Len() != 2 || b.Len() != 2 || !bytes.Equal(a.At(0), b.At(0)) || !bytes.Equal(a.At(1), b.At(1)) {
		t.Errorf("ethernet/vlan frame built differently: %x vs %x", a.All(), b.All())
	}
}

func TestEVEKindAndTargetNames(t *testing.T) {
	for _, c := range []struct {
		proto uint8
		want  string
	}{{decode.ProtoTCP, "tcp-reset"}, {decode.ProtoUDP, "icmp-prohib"}, {decode.ProtoICMP, "icmp-prohib"},
		{decode.ProtoICMPv6, "icmp-prohib"}, {decode.ProtoGRE, ""}, {decode.ProtoSCTP, ""}} {
		if got := EVEKind(&decode.Packet{IPProto: c.proto}).String(); got != c.want {
			t.Errorf("EVEKind(%d) = %q, want %q", c.proto, got, c.want)
		}
	}
	for tg, want := range map[Target]string{ToSource: "to_client", ToDestination: "to_server", Both: "both"} {
		if tg.String() != want {
			t.Errorf("%d.String() = %q", tg, tg.String())
		}
	}
}

func TestSeqAck(t *testing.T) {
	p := &decode.Packet{TCPSeq: 100, TCPAck: 0, Payload: make([]byte, 70000%65536)}
	if s, a := SeqAck(p, true); s != 0 || a != 100+uint32(70000%65536)+1 {
		t.Errorf("SeqAck = %d, %d", s, a)
	}
	if s, a := SeqAck(p, false); s != 100 || a != 0 {
		t.Errorf("SeqAck dst = %d, %d", s, a)
	}
}

func TestNoAllocs(t *testing.T) {
	pt := decodeRaw(t, tcpPacket(t, true, tcpSpec{ack: true, seq: 1, ackn: 2, payload: "abc"}))
	pu := decodeRaw(t, udpPacket(t, false, "abc"))
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(100, func() {
		ps, b := Build(buf[:0], pt, Both)
		_ = ps.All()
		ps, _ = Build(b, pu, Both)
		if ps.Len() != 2 {
			panic("no packets")
		}
	})
	if allocs != 0 {
		t.Errorf("Build allocates %.1f times per run", allocs)
	}
}

func TestGrowKeepsEarlierPacketsValid(t *testing.T) {
	// Build into a buffer with no spare capacity: the result is reallocated once and both
	// packets point into the returned buffer.
	p := decodeRaw(t, udpPacket(t, true, "abc"))
	dst := make([]byte, 3)
	ps, buf := Build(dst, p, Both)
	if ps.Len() != 2 {
		t.Fatal(ps.Len())
	}
	if &ps.At(0)[0] != &buf[3] || &ps.At(1)[0] != &buf[3+len(ps.At(0))] {
		t.Error("packets are not sub-slices of the returned buffer")
	}
	// Appending to one packet must not overwrite the next.
	first := ps.At(0)
	_ = append(first, 0xff)
	if ps.At(1)[0] != 0x60 {
		t.Error("packet capacity overlaps the next packet")
	}
}

func TestAddrFallbackFromHeader(t *testing.T) {
	// Without the decoded address fields, the header's addresses are used.
	p := decodeRaw(t, udpPacket(t, false, "abc"))
	want, _ := Build(nil, p, ToSource)
	p.SrcIP, p.DstIP = netip.Addr{}, netip.Addr{}
	got, _ := Build(nil, p, ToSource)
	if !bytes.Equal(want.At(0), got.At(0)) {
		t.Errorf("fallback differs")
	}
}
