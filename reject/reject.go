// Package reject builds the packets Suricata sends for the reject actions (`reject`/`rejectsrc`,
// `rejectdst`, `rejectboth`): a TCP reset for TCP, an ICMP "administratively prohibited"
// destination unreachable for everything else. It builds raw IP packets (no link layer) into a
// caller-supplied buffer and allocates nothing; sending them is left to the caller.
//
// The packets are those of Suricata's src/respond-reject.c (RespondRejectFunc and the
// RejectSend* dispatchers) and src/respond-reject-libnet11.c (SetupTCP, BuildTCP, BuildIPv4,
// BuildIPv6, RejectSendLibnet11IPv4ICMP, RejectSendLibnet11IPv6ICMP), field by field:
//
//   - Which packets: IPv4 and IPv6 only, and never a tunnel packet; Suricata counts a
//     reassembled datagram as a tunnel child, so a decode.SourceDefrag packet gets nothing.
//     A packet with a decoded TCP header gets a RST. Every other IP packet gets an ICMP
//     unreachable, including UDP, ICMP (errors included), other protocols, fragments (Suricata
//     decodes no transport header for fragments) and packets whose TCP header failed to decode.
//     Suricata checks neither the TCP flags nor the ICMP type, so by default a RST is answered
//     with a RST and an ICMP error with an ICMP error; Builder.RFC turns that off.
//   - Addresses: to the source (ToSource), the reply goes from the packet's destination to its
//     source; to the destination (ToDestination), it carries the packet's own source and
//     destination (it impersonates the sender). Both sends to the source first, then to the
//     destination, as RejectSendIPv4TCP and friends do.
//   - IP header: IPv4 with TOS 0, identification 0, no flags, TTL 64, no options; IPv6 with
//     traffic class 0, flow label 0, hop limit 64, no extension headers. Checksums are filled
//     in. (libnet writes IP id 0; a Linux raw socket with IP_HDRINCL replaces a zero id with
//     one of its own, a link-layer injector sends it as is.)
//   - TCP RST (SetupTCP, BuildTCP): flags RST|ACK, 20-byte header with no options, window
//     copied from the packet, urgent pointer 0, no payload. To the source, ports swapped; when
//     the packet's acknowledgment NUMBER is 0 (Suricata tests the value, not the ACK flag),
//     seq = 0 and ack = packet seq + payload length + 1, otherwise seq = packet ack and ack =
//     packet seq + payload length. SYN and FIN are not counted separately (the +1 is only the
//     ack-is-zero case). To the destination, ports, seq and ack are the packet's own.
//   - ICMP: ICMPv4 type 3 code 10 (ICMP_HOST_ANO, "host administratively prohibited"; not 13),
//     ICMPv6 type 1 code 1 (ICMP6_DST_UNREACH_ADMIN), the 4 unused bytes zero, followed by the
//     first bytes of the offending IP packet. The quote length follows Suricata's arithmetic
//     exactly (see quoteLen): without a reject-device MTU, IPv4 quotes only the first 4 bytes
//     of the IP header (min(8, total length) - 4) and IPv6 the 40-byte fixed header
//     (40 + min(8, payload length) - 8). The IPv4 total length is written as the real length
//     of the packet built (libnet writes 20 + min(8, iplen) there and the kernel's raw socket
//     corrects it).
//
// Not built here: the Ethernet/VLAN header Suricata adds when it injects on a --reject-dev
// link (MACs swapped for the source side, one 802.1Q tag when the packet had exactly one).
package reject

import (
	"encoding/binary"
	"net/netip"

	"github.com/meerkat-ids/meerkat/decode"
)

// Target says which side a reject answers: the packet's source (`reject`, `rejectsrc`), its
// destination (`rejectdst`) or both (`rejectboth`).
type Target uint8

// Targets.
const (
	ToSource      Target = iota // reject / rejectsrc (Suricata REJECT_DIR_SRC)
	ToDestination               // rejectdst (REJECT_DIR_DST)
	Both                        // rejectboth: one packet to the source, then one to the destination
)

// String returns the target as EVE's verdict.reject-target names it: "to_client" (the source
// of the matching packet), "to_server" (its destination) or "both".
func (t Target) String() string {
	switch t {
	case ToSource:
		return "to_client"
	case ToDestination:
		return "to_server"
	case Both:
		return "both"
	}
	return "unknown"
}

// Kind is the kind of packet a reject sends.
type Kind uint8

// Kinds.
const (
	None       Kind = iota // nothing is sent
	TCPReset               // a TCP RST|ACK
	ICMPProhib             // an ICMP / ICMPv6 administratively prohibited unreachable
)

// String returns the EVE verdict.reject name: "tcp-reset", "icmp-prohib", or "" for None.
func (k Kind) String() string {
	switch k {
	case TCPReset:
		return "tcp-reset"
	case ICMPProhib:
		return "icmp-prohib"
	}
	return ""
}

// EVEKind returns what EVE lists in verdict.reject for p. Suricata's EveAddVerdict switches on
// the IP protocol alone: TCP is "tcp-reset", UDP, ICMP and ICMPv6 are "icmp-prohib", anything
// else lists nothing (an empty array) even though an ICMP unreachable is sent.
func EVEKind(p *decode.Packet) Kind {
	switch p.IPProto {
	case decode.ProtoTCP:
		return TCPReset
	case decode.ProtoUDP, decode.ProtoICMP, decode.ProtoICMPv6:
		return ICMPProhib
	}
	return None
}

// MaxPackets is the most packets one Build returns.
const MaxPackets = 2

// Packets holds what one Build produced: up to MaxPackets raw IP packets, each a sub-slice of
// the buffer Build returned. For Both the packet to the source comes first.
type Packets struct {
	n   int
	pkt [MaxPackets][]byte
}

// Len returns how many packets were built.
func (ps *Packets) Len() int { return ps.n }

// At returns packet i (0 <= i < Len()).
func (ps *Packets) At(i int) []byte { return ps.pkt[:ps.n][i] }

// All returns the packets as a slice backed by ps (it does not allocate; it is valid as long as
// ps is).
func (ps *Packets) All() [][]byte { return ps.pkt[:ps.n:ps.n] }

// Builder builds reject packets. Its zero value builds exactly what Suricata sends with no
// reject device configured; Build is a shorthand for it.
type Builder struct {
	// MTU is the MTU of the reject device (Suricata's g_reject_dev_mtu, read from --reject-dev).
	// When it is at least 42 (IPv4) or 62 (IPv6), ICMP unreachables quote more of the offending
	// packet, with Suricata's arithmetic (see quoteLen). 0: no device, the short quotes.
	MTU int
	// RFC makes the builder well-behaved where Suricata is not: no RST in answer to a RST, no
	// ICMP error in answer to an ICMP error (or to an ICMP packet whose type was not decoded),
	// to a non-first fragment, or to a packet sent to an IPv4 broadcast/multicast or IPv6
	// multicast address (RFC 1122 3.2.2, RFC 4443 2.4(e)); and ICMP quotes the whole IP header
	// plus 8 bytes (IPv4, RFC 792) or as much as fits in 1280 bytes (IPv6, RFC 4443). The TCP
	// numbers, addresses, codes and header fields stay Suricata's. MTU is ignored.
	RFC bool
}

// Build appends to dst the raw IP packets Suricata would send to reject p toward t, and returns
// them with the extended buffer. dst is grown at most once, so the packets stay valid until dst
// is modified; pass dst[:0] of a reused buffer to build without allocating. Nothing is appended
// for packets that are not answered (Kind returns None).
func Build(dst []byte, p *decode.Packet, t Target) (Packets, []byte) {
	var b Builder
	return b.Build(dst, p, t)
}

const (
	ipv4HdrLen = 20
	ipv6HdrLen = 40
	tcpHdrLen  = 20
	icmpHdrLen = 8
	replyTTL   = 64
	ethHdrLen  = 14 // Suricata subtracts an Ethernet header from the device MTU
	ipv6MinMTU = 1280
)

// ICMP types and codes sent.
const (
	icmpv4Unreach    = 3
	icmpv4HostANO    = 10 // ICMP_HOST_ANO
	icmpv6Unreach    = 1
	icmpv6AdminProhb = 1 // ICMP6_DST_UNREACH_ADMIN
)

// Kind returns what the builder sends for p (the same for every target).
func (b *Builder) Kind(p *decode.Packet) Kind {
	if p == nil || p.Source == decode.SourceDefrag {
		return None
	}
	switch p.IPVersion {
	case 4:
		if len(p.IPHeader) < ipv4HdrLen {
			return None
		}
	case 6:
		if len(p.IPHeader) < ipv6HdrLen {
			return None
		}
	default:
		return None
	}
	if p.IsTCP() && !p.IsFragment && len(p.L4Header) >= tcpHdrLen {
		if b.RFC && p.TCPFlags&decode.TCPFlagRST != 0 {
			return None
		}
		return TCPReset
	}
	if b.RFC && !b.rfcMayICMP(p) {
		return None
	}
	return ICMPProhib
}

// rfcMayICMP reports whether RFC 1122 / RFC 4443 allow an ICMP error in answer to p.
func (b *Builder) rfcMayICMP(p *decode.Packet) bool {
	if p.IsFragment && p.FragOffset != 0 {
		return false
	}
	dst := destAddr(p)
	if dst.IsMulticast() || (dst.Is4() && dst == netip.AddrFrom4([4]byte{255, 255, 255, 255})) {
		return false
	}
	switch p.IPProto {
	case decode.ProtoICMP:
		if p.IPVersion != 4 || !p.HasL4 {
			return false
		}
		switch p.ICMPType {
		case 3, 4, 5, 11, 12: // unreachable, source quench, redirect, time exceeded, parameter problem
			return false
		}
	case decode.ProtoICMPv6:
		if p.IPVersion != 6 || !p.HasL4 || p.ICMPType < 128 {
			return false
		}
	}
	return true
}

// Build appends the packets that reject p toward t; see the package function Build.
func (b *Builder) Build(dst []byte, p *decode.Packet, t Target) (Packets, []byte) {
	var ps Packets
	if t > Both {
		return ps, dst
	}
	k := b.Kind(p)
	if k == None {
		return ps, dst
	}
	n := 1
	if t == Both {
		n = 2
	}
	var size int
	switch k {
	case TCPReset:
		size = tcpHdrLen
	case ICMPProhib:
		size = icmpHdrLen + b.quoteLen(p)
	}
	if p.IPVersion == 4 {
		size += ipv4HdrLen
	} else {
		size += ipv6HdrLen
	}

	start := len(dst)
	dst = grow(dst, n*size)
	for i := range n {
		toSrc := t == ToSource || (t == Both && i == 0)
		pkt := dst[start+i*size : start+(i+1)*size : start+(i+1)*size]
		clear(pkt)
		if k == TCPReset {
			buildTCP(pkt, p, toSrc)
		} else {
			buildICMP(pkt, p, toSrc)
		}
		ps.pkt[i] = pkt
	}
	ps.n = n
	return ps, dst
}

// grow extends dst by n bytes, reallocating at most once.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n]
	}
	nb := make([]byte, len(dst)+n, 2*cap(dst)+n)
	copy(nb, dst)
	return nb
}

// ipPacket returns the offending packet from its IP header on, cut to the IP length.
func ipPacket(p *decode.Packet) (hdr, rest []byte) {
	return p.IPHeader, p.IPPayload
}

// quoteLen returns how many bytes of the offending IP packet the ICMP unreachable carries.
//
// Suricata (RejectSendLibnet11IPv4ICMP): with a device MTU of at least 14+20+8,
// len = min(MTU-14, 20+iplen), else len = 20+min(8, iplen), iplen being the IPv4 total length;
// it quotes len-(20+4) bytes (LIBNET_IPV4_H + LIBNET_ICMPV4_H, the 4-byte ICMP base header,
// while the unreachable header libnet writes is 8 bytes).
// RejectSendLibnet11IPv6ICMP: with an MTU of at least 14+40+8, len = 40+min(MTU-14, plen), else
// len = 40+min(8, plen), plen being the IPv6 payload length; it quotes len-8 bytes.
// The result is bounded by the bytes the packet really has.
func (b *Builder) quoteLen(p *decode.Packet) int {
	hdr, rest := ipPacket(p)
	avail := len(hdr) + len(rest)
	var q int
	switch {
	case b.RFC && p.IPVersion == 4:
		q = len(hdr) + 8
	case b.RFC:
		q = ipv6MinMTU - ipv6HdrLen - icmpHdrLen
	case p.IPVersion == 4:
		iplen := p.IPLen
		var l int
		if b.MTU >= ethHdrLen+ipv4HdrLen+8 {
			l = min(b.MTU-ethHdrLen, ipv4HdrLen+iplen)
		} else {
			l = ipv4HdrLen + min(8, iplen)
		}
		q = l - (ipv4HdrLen + 4)
	default:
		plen := max(p.IPLen-ipv6HdrLen, 0)
		var l int
		if b.MTU >= ethHdrLen+ipv6HdrLen+8 {
			l = ipv6HdrLen + min(b.MTU-ethHdrLen, plen)
		} else {
			l = ipv6HdrLen + min(8, plen)
		}
		q = l - 8
	}
	// The IP length fields are 16 bits; keep the packet built within them.
	limit := 0xffff - ipv4HdrLen - icmpHdrLen
	if p.IPVersion == 6 {
		limit = 0xffff - icmpHdrLen
	}
	return max(min(q, avail, limit), 0)
}

// addrs returns the reply's source and destination addresses.
func addrs(p *decode.Packet, toSrc bool) (src, dst netip.Addr) {
	s, d := srcAddr(p), destAddr(p)
	if toSrc {
		return d, s
	}
	return s, d
}

// srcAddr returns the packet's source address, from the decoded field or else from the header.
func srcAddr(p *decode.Packet) netip.Addr {
	if p.IPVersion == 4 {
		if p.SrcIP.Is4() {
			return p.SrcIP
		}
		return netip.AddrFrom4([4]byte(p.IPHeader[12:16]))
	}
	if p.SrcIP.Is6() {
		return p.SrcIP
	}
	return netip.AddrFrom16([16]byte(p.IPHeader[8:24]))
}

// destAddr returns the packet's destination address.
func destAddr(p *decode.Packet) netip.Addr {
	if p.IPVersion == 4 {
		if p.DstIP.Is4() {
			return p.DstIP
		}
		return netip.AddrFrom4([4]byte(p.IPHeader[16:20]))
	}
	if p.DstIP.Is6() {
		return p.DstIP
	}
	return netip.AddrFrom16([16]byte(p.IPHeader[24:40]))
}

// putIPv4 writes a 20-byte IPv4 header (BuildIPv4: TOS 0, id 0, no fragmentation, TTL 64).
func putIPv4(b []byte, total int, proto uint8, src, dst netip.Addr) {
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:4], uint16(total))
	b[8] = replyTTL
	b[9] = proto
	s, d := src.As4(), dst.As4()
	copy(b[12:16], s[:])
	copy(b[16:20], d[:])
	binary.BigEndian.PutUint16(b[10:12], ^fold(sum(b[:ipv4HdrLen], 0)))
}

// putIPv6 writes a 40-byte IPv6 header (BuildIPv6: class 0, flow 0, hop limit 64).
func putIPv6(b []byte, plen int, nh uint8, src, dst netip.Addr) {
	b[0] = 0x60
	binary.BigEndian.PutUint16(b[4:6], uint16(plen))
	b[6] = nh
	b[7] = replyTTL
	s, d := src.As16(), dst.As16()
	copy(b[8:24], s[:])
	copy(b[24:40], d[:])
}

// pseudoSum returns the checksum pseudo-header sum for an IPv4 or IPv6 packet whose network
// header starts pkt.
func pseudoSum(pkt []byte, v6 bool, proto uint8, l4len int) uint32 {
	var s uint32
	if v6 {
		s = sum(pkt[8:40], 0)
	} else {
		s = sum(pkt[12:20], 0)
	}
	return s + uint32(proto) + uint32(l4len)
}

// buildTCP writes a RST|ACK for p into pkt (SetupTCP, BuildTCP).
func buildTCP(pkt []byte, p *decode.Packet, toSrc bool) {
	v6 := p.IPVersion == 6
	src, dst := addrs(p, toSrc)
	l3 := ipv4HdrLen
	if v6 {
		l3 = ipv6HdrLen
		putIPv6(pkt, tcpHdrLen, decode.ProtoTCP, src, dst)
	} else {
		putIPv4(pkt, len(pkt), decode.ProtoTCP, src, dst)
	}
	seq, ack := SeqAck(p, toSrc)
	sp, dp := p.SrcPort, p.DstPort
	if toSrc {
		sp, dp = dp, sp
	}
	t := pkt[l3:]
	binary.BigEndian.PutUint16(t[0:2], sp)
	binary.BigEndian.PutUint16(t[2:4], dp)
	binary.BigEndian.PutUint32(t[4:8], seq)
	binary.BigEndian.PutUint32(t[8:12], ack)
	t[12] = (tcpHdrLen / 4) << 4
	t[13] = decode.TCPFlagRST | decode.TCPFlagACK
	binary.BigEndian.PutUint16(t[14:16], p.TCPWindow)
	cs := sum(t[:tcpHdrLen], pseudoSum(pkt, v6, decode.ProtoTCP, tcpHdrLen))
	binary.BigEndian.PutUint16(t[16:18], ^fold(cs))
}

// SeqAck returns the sequence and acknowledgment numbers of the RST Suricata sends for the TCP
// packet p (SetupTCP): toward the source, (0, seq+len+1) when the packet's acknowledgment
// number is 0 and (ack, seq+len) otherwise; toward the destination, the packet's own (seq, ack).
func SeqAck(p *decode.Packet, toSrc bool) (seq, ack uint32) {
	if !toSrc {
		return p.TCPSeq, p.TCPAck
	}
	dsize := uint32(uint16(len(p.Payload))) // Suricata's payload_len is a uint16
	if p.TCPAck == 0 {
		return 0, p.TCPSeq + dsize + 1
	}
	return p.TCPAck, p.TCPSeq + dsize
}

// buildICMP writes an administratively prohibited unreachable quoting p into pkt.
func buildICMP(pkt []byte, p *decode.Packet, toSrc bool) {
	v6 := p.IPVersion == 6
	src, dst := addrs(p, toSrc)
	l3 := ipv4HdrLen
	if v6 {
		l3 = ipv6HdrLen
	}
	ic := pkt[l3:]
	hdr, rest := ipPacket(p)
	q := ic[icmpHdrLen:]
	n := copy(q, hdr)
	copy(q[n:], rest)
	if v6 {
		putIPv6(pkt, len(ic), decode.ProtoICMPv6, src, dst)
		ic[0], ic[1] = icmpv6Unreach, icmpv6AdminProhb
		cs := sum(ic, pseudoSum(pkt, true, decode.ProtoICMPv6, len(ic)))
		binary.BigEndian.PutUint16(ic[2:4], ^fold(cs))
		return
	}
	putIPv4(pkt, len(pkt), decode.ProtoICMP, src, dst)
	ic[0], ic[1] = icmpv4Unreach, icmpv4HostANO
	binary.BigEndian.PutUint16(ic[2:4], ^fold(sum(ic, 0)))
}

// sum adds b as big-endian 16-bit words (an odd last byte padded with zero) to acc.
func sum(b []byte, acc uint32) uint32 {
	for len(b) >= 2 {
		acc += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
		if acc >= 1<<31 {
			acc = acc&0xffff + acc>>16
		}
	}
	if len(b) == 1 {
		acc += uint32(b[0]) << 8
	}
	return acc
}

// fold folds a 32-bit sum to 16 bits with end-around carry.
func fold(acc uint32) uint16 {
	for acc>>16 != 0 {
		acc = acc&0xffff + acc>>16
	}
	return uint16(acc)
}
