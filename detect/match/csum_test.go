package match

import (
	"encoding/binary"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
)

// ipDatagram builds an IPv4 or IPv6 datagram carrying seg (a transport segment whose checksum
// field sits at csumOff, or -1 for none) with correct IPv4 header and transport checksums.
func ipDatagram(v6 bool, proto uint8, seg []byte, csumOff int) []byte {
	src4, dst4 := []byte{10, 0, 0, 1}, []byte{10, 0, 0, 2}
	src6 := []byte{0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	dst6 := []byte{0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
	if csumOff >= 0 {
		binary.BigEndian.PutUint16(seg[csumOff:], 0)
		var c uint16
		switch {
		case proto == decode.ProtoICMP:
			c = decode.Checksum(seg)
		case v6:
			c = decode.L4Checksum(src6, dst6, proto, seg)
		default:
			c = decode.L4Checksum(src4, dst4, proto, seg)
		}
		binary.BigEndian.PutUint16(seg[csumOff:], c)
	}
	if v6 {
		h := make([]byte, 40, 40+len(seg))
		h[0] = 0x60
		binary.BigEndian.PutUint16(h[4:], uint16(len(seg)))
		h[6], h[7] = proto, 64
		copy(h[8:], src6)
		copy(h[24:], dst6)
		return append(h, seg...)
	}
	h := make([]byte, 20, 20+len(seg))
	h[0] = 0x45
	binary.BigEndian.PutUint16(h[2:], uint16(20+len(seg)))
	h[8], h[9] = 64, proto
	copy(h[12:], src4)
	copy(h[16:], dst4)
	binary.BigEndian.PutUint16(h[10:], decode.Checksum(h))
	return append(h, seg...)
}

func tcpSeg() []byte {
	s := make([]byte, 24)
	binary.BigEndian.PutUint16(s[0:], 1234)
	binary.BigEndian.PutUint16(s[2:], 80)
	s[12] = 5 << 4
	s[13] = 0x18
	copy(s[20:], "data")
	return s
}

func udpSeg() []byte {
	s := make([]byte, 12)
	binary.BigEndian.PutUint16(s[0:], 1234)
	binary.BigEndian.PutUint16(s[2:], 53)
	binary.BigEndian.PutUint16(s[4:], 12)
	copy(s[8:], "data")
	return s
}

func icmpSeg() []byte {
	s := make([]byte, 12)
	s[0] = 8 // echo request (128 for ICMPv6 is set by the caller)
	copy(s[8:], "ping")
	return s
}

// TestChecksumKeywords follows Suricata's detect-csum.c: each keyword needs its IP version
// and protocol; the checksum is computed whatever -k says (the decoder's mode), except that a
// packet whose checksums are ignored (PKT_IGNORE_CHECKSUM) takes every checksum as valid; a
// UDP/IPv4 checksum of 0 matches neither valid nor invalid.
func TestChecksumKeywords(t *testing.T) {
	icmp6 := icmpSeg()
	icmp6[0] = 128
	type pkt struct {
		name string
		data []byte
	}
	corrupt := func(b []byte, off int) []byte {
		c := append([]byte(nil), b...)
		c[off] ^= 0x01
		return c
	}
	good := map[string][]byte{
		"tcp4":  ipDatagram(false, decode.ProtoTCP, tcpSeg(), 16),
		"tcp6":  ipDatagram(true, decode.ProtoTCP, tcpSeg(), 16),
		"udp4":  ipDatagram(false, decode.ProtoUDP, udpSeg(), 6),
		"udp6":  ipDatagram(true, decode.ProtoUDP, udpSeg(), 6),
		"icmp4": ipDatagram(false, decode.ProtoICMP, icmpSeg(), 2),
		"icmp6": ipDatagram(true, decode.ProtoICMPv6, icmp6, 2),
	}
	udp4NoSum := ipDatagram(false, decode.ProtoUDP, udpSeg(), -1)
	cases := []struct {
		kw      string
		data    []byte
		ignored bool // Packet.ChecksumIgnored
		want    string
	}{
		// want: "valid", "invalid" or "neither" (the keyword's two forms).
		{"ipv4-csum", good["tcp4"], false, "valid"},
		{"ipv4-csum", corrupt(good["tcp4"], 10), false, "invalid"},
		{"ipv4-csum", corrupt(good["tcp4"], 10), true, "valid"},
		{"ipv4-csum", good["tcp6"], false, "neither"},
		{"tcpv4-csum", good["tcp4"], false, "valid"},
		{"tcpv4-csum", corrupt(good["tcp4"], 36), false, "invalid"},
		{"tcpv4-csum", corrupt(good["tcp4"], 36), true, "valid"},
		{"tcpv4-csum", good["tcp6"], false, "neither"},
		{"tcpv4-csum", good["udp4"], false, "neither"},
		{"tcpv6-csum", good["tcp6"], false, "valid"},
		{"tcpv6-csum", corrupt(good["tcp6"], 56), false, "invalid"},
		{"udpv4-csum", good["udp4"], false, "valid"},
		{"udpv4-csum", corrupt(good["udp4"], 20+8), false, "invalid"},
		{"udpv4-csum", udp4NoSum, false, "neither"},
		{"udpv4-csum", udp4NoSum, true, "neither"},
		{"udpv6-csum", good["udp6"], false, "valid"},
		{"udpv6-csum", corrupt(good["udp6"], 40+8), false, "invalid"},
		{"icmpv4-csum", good["icmp4"], false, "valid"},
		{"icmpv4-csum", corrupt(good["icmp4"], 20+8), false, "invalid"},
		{"icmpv6-csum", good["icmp6"], false, "valid"},
		{"icmpv6-csum", corrupt(good["icmp6"], 40+8), false, "invalid"},
		{"icmpv6-csum", good["icmp4"], false, "neither"},
	}
	for _, c := range cases {
		// -k none (decode.ChecksumNone) does not make the keywords skip the computation.
		d := decode.Decoder{Checksums: decode.ChecksumNone}
		var p decode.Packet
		d.Decode(&p, decode.LinkTypeRaw, c.data)
		p.ChecksumIgnored = c.ignored
		if p.IPVersion == 0 || !p.HasL4 {
			t.Fatalf("%s: test datagram did not decode: %+v", c.kw, p.Events)
		}
		valid := compile(t, c.kw+":valid;", nil).Match(&Input{P: &p})
		invalid := compile(t, c.kw+":invalid;", nil).Match(&Input{P: &p})
		got := "neither"
		switch {
		case valid && invalid:
			got = "both"
		case valid:
			got = "valid"
		case invalid:
			got = "invalid"
		}
		if got != c.want {
			t.Errorf("%s (ignored %v) on %x: matched %s, want %s", c.kw, c.ignored, c.data, got, c.want)
		}
	}
	// The value is compared case-insensitively, as Suricata does.
	if !compile(t, "tcpv4-csum:VALID;", nil).Match(&Input{P: decodeRaw(good["tcp4"])}) {
		t.Errorf("tcpv4-csum:VALID did not match a valid checksum")
	}
}

func decodeRaw(b []byte) *decode.Packet {
	var d decode.Decoder
	p := &decode.Packet{}
	d.Decode(p, decode.LinkTypeRaw, b)
	return p
}
