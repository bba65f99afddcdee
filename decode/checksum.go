package decode

import (
	"encoding/binary"
	"math/bits"
)

// onesSum adds b, as big-endian 16-bit words (an odd last byte padded with zero), to acc in
// ones' complement arithmetic. It works on 64-bit words: since 2^64-1 is a multiple of
// 2^16-1, the end-around-carry sum of 64-bit words folds to the same 16-bit sum.
func onesSum(b []byte, acc uint64) uint64 {
	var carry uint64
	if len(b) >= 64 {
		// Two independent carry chains let the CPU add them in parallel; they are joined
		// with an end-around carry, which keeps the ones' complement sum.
		var acc2, carry2 uint64
		for len(b) >= 64 {
			acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[0:8]), carry)
			acc2, carry2 = bits.Add64(acc2, binary.BigEndian.Uint64(b[8:16]), carry2)
			acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[16:24]), carry)
			acc2, carry2 = bits.Add64(acc2, binary.BigEndian.Uint64(b[24:32]), carry2)
			acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[32:40]), carry)
			acc2, carry2 = bits.Add64(acc2, binary.BigEndian.Uint64(b[40:48]), carry2)
			acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[48:56]), carry)
			acc2, carry2 = bits.Add64(acc2, binary.BigEndian.Uint64(b[56:64]), carry2)
			b = b[64:]
		}
		acc, carry = bits.Add64(acc, acc2, carry)
		acc, carry = bits.Add64(acc, carry2, carry)
	}
	for len(b) >= 32 {
		acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[0:8]), carry)
		acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[8:16]), carry)
		acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[16:24]), carry)
		acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[24:32]), carry)
		b = b[32:]
	}
	for len(b) >= 8 {
		acc, carry = bits.Add64(acc, binary.BigEndian.Uint64(b[0:8]), carry)
		b = b[8:]
	}
	var tail uint64
	switch len(b) {
	case 7:
		tail = uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
			uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8
	case 6:
		tail = uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
			uint64(b[4])<<24 | uint64(b[5])<<16
	case 5:
		tail = uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
			uint64(b[4])<<24
	case 4:
		tail = uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32
	case 3:
		tail = uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40
	case 2:
		tail = uint64(b[0])<<56 | uint64(b[1])<<48
	case 1:
		tail = uint64(b[0]) << 56
	}
	acc, carry = bits.Add64(acc, tail, carry)
	acc, carry = bits.Add64(acc, 0, carry)
	return acc + carry // carry is 0 here unless acc was all ones, then acc is 0
}

// fold reduces a 64-bit ones' complement sum to 16 bits.
func fold(acc uint64) uint16 {
	acc = (acc >> 32) + (acc & 0xffffffff)
	acc = (acc >> 32) + (acc & 0xffffffff)
	acc = (acc >> 16) + (acc & 0xffff)
	acc = (acc >> 16) + (acc & 0xffff)
	return uint16(acc)
}

// pseudoSum is the ones' complement sum of the IPv4 or IPv6 pseudo-header for a transport
// segment of length n.
func pseudoSum(p *Packet, proto uint8, n int) uint64 {
	var acc uint64
	if p.IPVersion == 4 {
		acc = onesSum(p.IPHeader[12:20], 0)
	} else {
		acc = onesSum(p.IPHeader[8:40], 0)
	}
	return addCarry(acc, uint64(proto)+uint64(n))
}

// addCarry adds v to acc with end-around carry.
func addCarry(acc, v uint64) uint64 {
	acc, c := bits.Add64(acc, v, 0)
	return acc + c
}

// l4ChecksumOK validates the checksum of the transport segment seg (TCP, UDP or ICMPv6 with
// a pseudo-header; ICMPv4 without).
func l4ChecksumOK(p *Packet, proto uint8, seg []byte) bool {
	var acc uint64
	if proto != ProtoICMP {
		acc = pseudoSum(p, proto, len(seg))
	}
	return fold(onesSum(seg, acc)) == 0xffff
}

// Checksum returns the Internet checksum (RFC 1071) of b: the value to store in a checksum
// field that was zero while summing.
func Checksum(b []byte) uint16 { return ^fold(onesSum(b, 0)) }

// L4Checksum returns the checksum to store in the transport header seg of a TCP, UDP or
// ICMPv6 segment sent from src to dst (both IPv4 or both IPv6), with seg's checksum field
// zero while summing.
func L4Checksum(src, dst []byte, proto uint8, seg []byte) uint16 {
	acc := onesSum(src, 0)
	acc = onesSum(dst, acc)
	acc = addCarry(acc, uint64(proto)+uint64(len(seg)))
	return ^fold(onesSum(seg, acc))
}

// IPv4ChecksumOK reports whether the packet's IPv4 header checksum is correct, computing it
// whatever the decoder's checksum mode (for the ipv4-csum keyword). False without IPv4.
func (p *Packet) IPv4ChecksumOK() bool {
	return p.IPVersion == 4 && fold(onesSum(p.IPHeader, 0)) == 0xffff
}

// L4ChecksumOK reports whether the packet's TCP, UDP, ICMPv4 or ICMPv6 checksum is correct,
// computing it whatever the decoder's checksum mode (for the tcpv4-csum ... icmpv6-csum
// keywords): over the transport header and its payload, with the pseudo-header except for
// ICMPv4. False when no transport header was decoded.
func (p *Packet) L4ChecksumOK() bool {
	if !p.HasL4 || p.IPVersion == 0 {
		return false
	}
	h := p.L4Header
	seg := h[:len(h)+len(p.Payload)] // the payload follows the header in the same frame
	return l4ChecksumOK(p, p.IPProto, seg)
}

// FixTCPChecksum recomputes the TCP checksum of a packet whose payload was rewritten in
// place (the inline stream engine's overlap rewrite, StreamTcpInlineSegmentReplacePacket).
func (p *Packet) FixTCPChecksum() {
	if !p.IsTCP() || len(p.L4Header) < 18 || p.IPVersion == 0 {
		return
	}
	h := p.L4Header
	seg := h[:len(h)+len(p.Payload)]
	h[16], h[17] = 0, 0
	c := ^fold(onesSum(seg, pseudoSum(p, ProtoTCP, len(seg))))
	h[16], h[17] = byte(c>>8), byte(c)
}
