package decode

import "encoding/binary"

// Frame builders for tests: every builder returns a fresh slice with correct lengths and
// checksums; tests then corrupt what they need.

var (
	mac1 = []byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55}
	mac2 = []byte{0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb}
	v4a  = []byte{192, 168, 1, 10}
	v4b  = []byte{10, 0, 0, 1}
	v6a  = []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	v6b  = []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
)

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func put16(b []byte, v uint16) { binary.BigEndian.PutUint16(b, v) }

// eth builds an Ethernet frame; vlans are 802.1Q tags (TPID 0x8100) outermost first.
func eth(etherType uint16, payload []byte, vlans ...uint16) []byte {
	h := cat(mac2, mac1)
	for _, v := range vlans {
		h = append(h, 0x81, 0x00, byte(v>>8), byte(v))
	}
	h = append(h, byte(etherType>>8), byte(etherType))
	return cat(h, payload)
}

// ip4Opts describes an IPv4 header.
type ip4Opts struct {
	src, dst []byte
	proto    uint8
	id       uint16
	flags    uint8  // IPv4Flag* bits
	fragOff  uint16 // bytes, multiple of 8
	options  []byte // padded to 4 bytes by the caller
	ttl      uint8
	tos      uint8
}

func ip4(o ip4Opts, payload []byte) []byte {
	if o.src == nil {
		o.src = v4a
	}
	if o.dst == nil {
		o.dst = v4b
	}
	if o.ttl == 0 {
		o.ttl = 64
	}
	hlen := 20 + len(o.options)
	h := make([]byte, hlen)
	h[0] = 0x40 | byte(hlen/4)
	h[1] = o.tos
	put16(h[2:], uint16(hlen+len(payload)))
	put16(h[4:], o.id)
	put16(h[6:], uint16(o.flags)<<13|o.fragOff/8)
	h[8] = o.ttl
	h[9] = o.proto
	copy(h[12:], o.src)
	copy(h[16:], o.dst)
	copy(h[20:], o.options)
	put16(h[10:], Checksum(h))
	return cat(h, payload)
}

// ip6 builds an IPv6 packet; exts are complete extension headers whose first byte (next
// header) is filled in here from the chain nhs: nhs[0] goes in the fixed header, nhs[i+1] in
// exts[i].
func ip6(nhs []uint8, exts [][]byte, payload []byte) []byte {
	h := make([]byte, 40)
	h[0] = 0x60
	body := []byte{}
	for i, e := range exts {
		e = append([]byte(nil), e...)
		e[0] = nhs[i+1]
		body = append(body, e...)
	}
	body = append(body, payload...)
	put16(h[4:], uint16(len(body)))
	h[6] = nhs[0]
	h[7] = 64
	copy(h[8:], v6a)
	copy(h[24:], v6b)
	return cat(h, body)
}

// tcp builds a TCP segment with a correct checksum for src/dst.
func tcp(src, dst []byte, sport, dport uint16, flags uint8, options, payload []byte) []byte {
	hlen := 20 + len(options)
	h := make([]byte, hlen)
	put16(h[0:], sport)
	put16(h[2:], dport)
	binary.BigEndian.PutUint32(h[4:], 1000)
	binary.BigEndian.PutUint32(h[8:], 2000)
	h[12] = byte(hlen/4) << 4
	h[13] = flags
	put16(h[14:], 65535)
	copy(h[20:], options)
	seg := cat(h, payload)
	put16(seg[16:], L4Checksum(src, dst, ProtoTCP, seg))
	return seg
}

// udp builds a UDP datagram with a correct checksum for src/dst.
func udp(src, dst []byte, sport, dport uint16, payload []byte) []byte {
	h := make([]byte, 8)
	put16(h[0:], sport)
	put16(h[2:], dport)
	put16(h[4:], uint16(8+len(payload)))
	seg := cat(h, payload)
	put16(seg[6:], L4Checksum(src, dst, ProtoUDP, seg))
	return seg
}

// icmp4 builds an ICMPv4 message with a correct checksum; rest is the 4 bytes after the
// checksum.
func icmp4(t, code uint8, rest uint32, payload []byte) []byte {
	h := make([]byte, 8)
	h[0], h[1] = t, code
	binary.BigEndian.PutUint32(h[4:], rest)
	m := cat(h, payload)
	put16(m[2:], Checksum(m))
	return m
}

// icmp6 builds an ICMPv6 message with a correct checksum for v6a -> v6b.
func icmp6(t, code uint8, rest uint32, payload []byte) []byte {
	h := make([]byte, 8)
	h[0], h[1] = t, code
	binary.BigEndian.PutUint32(h[4:], rest)
	m := cat(h, payload)
	put16(m[2:], L4Checksum(v6a, v6b, ProtoICMPv6, m))
	return m
}

// ext6 builds an IPv6 extension header of n bytes (n multiple of 8) with the length byte set
// for hop-by-hop/destination/routing headers; the options area is PadN-filled.
func ext6(n int) []byte {
	e := make([]byte, n)
	e[1] = byte(n/8 - 1)
	if n-2 >= 2 {
		e[2] = ipv6OptPadN
		e[3] = byte(n - 4)
	}
	return e
}

// frag6 builds an IPv6 fragment header.
func frag6(off uint16, more bool, id uint32) []byte {
	e := make([]byte, 8)
	v := off &^ 7
	if more {
		v |= 1
	}
	put16(e[2:], v)
	binary.BigEndian.PutUint32(e[4:], id)
	return e
}
