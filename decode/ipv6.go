package decode

import "net/netip"

// ipv6HeaderLen is the fixed IPv6 header.
const ipv6HeaderLen = 40

// IPv6 next-header values the decoder walks.
const (
	nhHopOpts  = 0
	nhIPIP     = 4
	nhIPv6     = 41
	nhRouting  = 43
	nhFragment = 44
	nhESP      = 50
	nhAH       = 51
	nhNone     = 59
	nhDstOpts  = 60
	nhMH       = 135
	nhHIP      = 139
	nhShim6    = 140
)

// IPv6 option types of hop-by-hop and destination options headers.
const (
	ipv6OptPad1  = 0x00
	ipv6OptPadN  = 0x01
	ipv6OptRA    = 0x05
	ipv6OptJumbo = 0xc2
	ipv6OptHAO   = 0xc9
)

// decodeIPv6 decodes the fixed header, walks the extension headers and decodes the
// transport layer. An error in the fixed header leaves the packet without an IP layer; an
// error in an extension header keeps the IP layer (addresses, IPProto = the header that
// failed) but no transport layer.
func (d *Decoder) decodeIPv6(p *Packet, data []byte) {
	d.Counters.IPv6++
	if len(data) < ipv6HeaderLen {
		p.invalid(EventIPv6PktTooSmall)
		return
	}
	if data[0]>>4 != 6 {
		p.invalid(EventIPv6WrongIPVersion)
		return
	}
	plen := int(be16(data[4:6]))
	if len(data) < ipv6HeaderLen+plen {
		p.invalid(EventIPv6TruncPkt)
		return
	}
	pkt := data[:ipv6HeaderLen+plen]
	p.IPVersion = 6
	p.TOS = uint8(be16(data[0:2]) >> 4)
	p.FlowLabel = be32(data[0:4]) & 0x000fffff
	p.TTL = data[7]
	p.SrcIP = netip.AddrFrom16([16]byte(data[8:24]))
	p.DstIP = netip.AddrFrom16([16]byte(data[24:40]))
	p.IPLen = len(pkt)

	if ev, inv, quiet := d.decodeIPv6ExtHdrs(p, pkt); quiet {
		// A first fragment: what follows its fragment header is decoded for the ports but
		// its events belong to the reassembled datagram.
		p.Events, p.Invalid = ev, inv
	}
}

// decodeIPv6ExtHdrs walks the extension headers from the fixed header's Next Header and
// decodes the transport layer. For a first fragment it returns the events as they were at
// the fragment header, with quiet set.
func (d *Decoder) decodeIPv6ExtHdrs(p *Packet, pkt []byte) (ev EventSet, inv, quiet bool) {
	nh := pkt[6]
	off := ipv6HeaderLen
	prevNH := 6 // offset of the byte holding nh
	var hh, rh, ah, fh bool
	var dh int
	// l4 is the protocol Suricata's packet carries so far (p->proto, IPV6_SET_L4PROTO): it
	// takes the number of each hop-by-hop, destination options, routing, fragment and AH
	// header as that header is entered, and of the transport; an ICMPv4 next header, a
	// mobility, HIP or shim6 header, or a header truncated before its first two bytes leave
	// it as it was (0 when no header set it). IPProto gets that value where decoding stops.
	var l4 uint8
	for {
		rem := len(pkt) - off
		ext := isIPv6ExtHdr(nh)
		if nh == nhNone {
			if off > ipv6HeaderLen && rem > 0 {
				p.Events.Add(EventIPv6DataAfterNoneHeader)
			}
			d.ipv6Done(p, pkt, off, nh)
			return ev, inv, quiet
		}
		if rem < 2 && (ext || off > ipv6HeaderLen) {
			p.invalid(EventIPv6TruncExthdr)
			d.ipv6Done(p, pkt, off, l4)
			return ev, inv, quiet
		}
		if !ext {
			d.ipv6Done(p, pkt, off, nh)

			switch nh {
			case nhIPIP:
				if !p.IsFragment {
					d.Counters.IPv4InIPv6++
				}
			case nhIPv6:
				if !p.IsFragment {
					d.Counters.IPv6InIPv6++
				}
			case ProtoTCP, ProtoUDP, ProtoICMPv6, ProtoICMP, ProtoSCTP, ProtoGRE, nhESP:
			default:
				p.Events.Add(EventIPv6UnknownNextHeader)
			}
			if p.FragOffset == 0 {
				d.decodeL4(p, nh, pkt[off:])
			}
			if nh == ProtoICMP {
				p.IPProto = l4 // Suricata raises ipv6.icmpv4 without taking the protocol
			}
			return ev, inv, quiet
		}

		switch nh {
		case nhHopOpts, nhDstOpts, nhRouting, nhFragment, nhAH:
			l4 = nh
		}
		var hdrLen int
		switch nh {
		case nhHopOpts, nhDstOpts:
			hdrLen = (int(pkt[off+1]) + 1) * 8
		case nhRouting, nhMH, nhHIP, nhShim6:
			hdrLen = 8 + int(pkt[off+1])*8
		case nhFragment:
			hdrLen = 8
		case nhAH:
			hdrLen = 12
			if pkt[off+1] > 0 {
				hdrLen += (int(pkt[off+1]) - 1) * 4
			}
		}
		if hdrLen > rem {
			p.invalid(EventIPv6TruncExthdr)
			d.ipv6Done(p, pkt, off, l4)
			return ev, inv, quiet
		}
		h := pkt[off : off+hdrLen]

		switch nh {
		case nhHopOpts:
			if hh {
				p.Events.Add(EventIPv6ExthdrDuplHH)
				break
			}
			hh = true
			ipv6Options(p, h[2:], true)
		case nhDstOpts:
			if dh >= 2 {
				p.Events.Add(EventIPv6ExthdrDuplDH)
				break
			}
			dh++
			ipv6Options(p, h[2:], false)
		case nhRouting:
			if rh {
				p.Events.Add(EventIPv6ExthdrDuplRH)
				break
			}
			rh = true
			if h[2] == 0 {
				p.Events.Add(EventIPv6RHType0)
			}
		case nhAH:
			if be16(h[2:4]) != 0 {
				p.Events.Add(EventIPv6ExthdrAHResNotNull)
			}
			if ah {
				p.Events.Add(EventIPv6ExthdrDuplAH)
				break
			}
			ah = true
		case nhFragment:
			if h[1] != 0 {
				p.Events.Add(EventIPv6FHNonZeroReserved)
			}
			if fh {
				p.Events.Add(EventIPv6ExthdrDuplFH)
				break
			}
			fh = true
			p.IPv6FragHdr = true
			p.IPv6FragHdrOff = uint16(off)
			p.IPv6FragPrevNH = uint16(prevNH)
			p.IPv6FragNH = h[0]
			fo := be16(h[2:4])
			p.FragOffset = fo & 0xfff8
			p.MoreFragments = fo&1 != 0
			p.IPID = be32(h[4:8])
			if p.FragOffset == 0 && !p.MoreFragments {
				// Atomic fragment: nothing to reassemble, decode on.
				p.Events.Add(EventIPv6ExthdrUselessFH)
				break
			}
			if p.MoreFragments && (rem-8)%8 != 0 {
				p.Events.Add(EventIPv6FragInvalidLength)
			}
			p.IsFragment = true
			ev, inv, quiet = p.Events, p.Invalid, true
			p.IPHeader = pkt[:off+8]
			p.IPPayload = pkt[off+8:]
			p.IPProto = h[0]
			if p.FragOffset != 0 {
				return ev, inv, quiet
			}
		}
		prevNH = off
		nh = h[0]
		off += hdrLen
	}
}

// ipv6Done records where the IPv6 headers end: IPHeader, IPPayload and IPProto. For a
// fragment, IPHeader and IPPayload keep the fragment boundaries set at the fragment header.
func (d *Decoder) ipv6Done(p *Packet, pkt []byte, off int, nh uint8) {
	p.IPProto = nh
	if !p.IsFragment {
		p.IPHeader = pkt[:off]
		p.IPPayload = pkt[off:]
	}
}

// isIPv6ExtHdr reports whether nh is an extension header the decoder walks past.
func isIPv6ExtHdr(nh uint8) bool {
	switch nh {
	case nhHopOpts, nhRouting, nhFragment, nhAH, nhDstOpts, nhMH, nhHIP, nhShim6:
		return true
	}
	return false
}

// ipv6Options checks the options of a hop-by-hop (hop) or destination options header.
func ipv6Options(p *Packet, opts []byte, hop bool) {
	var padding, other int
	for off := 0; off < len(opts); {
		t := opts[off]
		if t == ipv6OptPad1 {
			padding++
			off++
			continue
		}
		if off+1 >= len(opts) {
			p.Events.Add(EventIPv6ExthdrInvalidOptlen)
			break
		}
		l := int(opts[off+1])
		if off+2+l > len(opts) {
			p.Events.Add(EventIPv6ExthdrInvalidOptlen)
			break
		}
		bad := false
		switch t {
		case ipv6OptPadN:
			padding++
			if l == 0 {
				p.Events.Add(EventIPv6ZeroLenPadN)
			}
		case ipv6OptRA:
			other++
			bad = l < 2
		case ipv6OptJumbo:
			other++
			bad = l < 4
		case ipv6OptHAO:
			other++
			bad = l < 16
		default:
			other++
			if hop {
				p.Events.Add(EventIPv6HopoptsUnknownOpt)
			} else {
				p.Events.Add(EventIPv6DstoptsUnknownOpt)
			}
		}
		if bad {
			p.Events.Add(EventIPv6ExthdrInvalidOptlen)
			break
		}
		off += 2 + l
	}
	if padding > 0 && other == 0 {
		if hop {
			p.Events.Add(EventIPv6HopoptsOnlyPadding)
		} else {
			p.Events.Add(EventIPv6DstoptsOnlyPadding)
		}
	}
}
