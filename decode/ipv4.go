package decode

import "net/netip"

// ipv4HeaderLen is the IPv4 header without options.
const ipv4HeaderLen = 20

// IPv4 option types.
const (
	ipv4OptEOL    = 0
	ipv4OptNOP    = 1
	ipv4OptRR     = 7
	ipv4OptQS     = 25
	ipv4OptTS     = 68
	ipv4OptSec    = 130
	ipv4OptLSRR   = 131
	ipv4OptESec   = 133
	ipv4OptCIPSO  = 134
	ipv4OptSID    = 136
	ipv4OptSSRR   = 137
	ipv4OptRtrAlt = 148
)

// decodeIPv4 decodes an IPv4 header and what follows. Any header error leaves the packet
// without an IP layer (Suricata clears the IPv4 header of such packets), only with events.
func (d *Decoder) decodeIPv4(p *Packet, data []byte) {
	d.Counters.IPv4++
	if len(data) < ipv4HeaderLen {
		p.invalid(EventIPv4PktTooSmall)
		return
	}
	if data[0]>>4 != 4 {
		p.invalid(EventIPv4WrongIPVersion)
		return
	}
	hlen := int(data[0]&0x0f) * 4
	if hlen < ipv4HeaderLen {
		p.invalid(EventIPv4HlenTooSmall)
		return
	}
	iplen := int(be16(data[2:4]))
	if iplen < hlen {
		p.invalid(EventIPv4IPLenSmallerThanHlen)
		return
	}
	if len(data) < iplen {
		p.invalid(EventIPv4TruncPkt)
		return
	}
	if hlen > ipv4HeaderLen {
		opts, ok := decodeIPv4Options(p, data[ipv4HeaderLen:hlen])
		if !ok {
			return
		}
		p.IPv4Options = opts
	}

	hdr := data[:hlen]
	p.IPVersion = 4
	p.SrcIP = netip.AddrFrom4([4]byte(data[12:16]))
	p.DstIP = netip.AddrFrom4([4]byte(data[16:20]))
	p.IPHeader = hdr
	p.IPPayload = data[hlen:iplen]
	p.IPLen = iplen
	p.TOS = data[1]
	p.IPID = uint32(be16(data[4:6]))
	fo := be16(data[6:8])
	p.IPv4Flags = uint8(fo >> 13)
	p.FragOffset = (fo & 0x1fff) << 3
	p.MoreFragments = fo&0x2000 != 0
	p.IsFragment = p.MoreFragments || p.FragOffset != 0
	p.TTL = data[8]
	p.IPProto = data[9]
	if d.Checksums == ChecksumAll {
		p.IPv4ChecksumBad = fold(onesSum(hdr, 0)) != 0xffff
	}
	if p.FragOffset != 0 {
		return
	}
	d.decodeL4(p, p.IPProto, p.IPPayload)
}

// decodeIPv4Options walks the options, returning the IPv4Opt* bits of the well-formed ones.
// A length error (option running past the header, length below 2, a lone byte that is not
// EOL) makes the whole header invalid, as in Suricata; a bad option content (pointer of a
// route or timestamp option, size of a fixed-size option) only raises an event and leaves the
// option's bit unset; an unknown option raises ipv4.opt_invalid. Options whose length is not a
// multiple of 8 raise ipv4.opt_pad_required, as Suricata's do.
func decodeIPv4Options(p *Packet, opts []byte) (uint16, bool) {
	if len(opts)%8 != 0 {
		// Suricata's DecodeIPV4Options warns for options not padded to 8 bytes, and goes on.
		p.Events.Add(EventIPv4OptPadRequired)
	}
	var set uint16
	var seen [256 / 64]uint64
	for len(opts) > 0 {
		t := opts[0]
		if t == ipv4OptEOL {
			set |= IPv4OptEOL
			break
		}
		if t == ipv4OptNOP {
			set |= IPv4OptNOP
			opts = opts[1:]
			continue
		}
		if len(opts) < 2 {
			p.invalid(EventIPv4OptEOLRequired)
			return 0, false
		}
		l := int(opts[1])
		if l < 2 || l > len(opts) {
			p.invalid(EventIPv4OptInvalidLen)
			return 0, false
		}
		o := opts[:l]
		opts = opts[l:]

		var bit uint16
		ok := true
		switch t {
		case ipv4OptRR, ipv4OptLSRR, ipv4OptSSRR:
			switch t {
			case ipv4OptRR:
				bit = IPv4OptRR
			case ipv4OptLSRR:
				bit = IPv4OptLSRR
			default:
				bit = IPv4OptSSRR
			}
			if l < 3 {
				p.Events.Add(EventIPv4OptInvalidLen)
				ok = false
			} else if ptr := int(o[2]); ptr < 4 || ptr%4 != 0 || ptr > l+1 {
				p.Events.Add(EventIPv4OptMalformed)
				ok = false
			}
		case ipv4OptTS:
			bit = IPv4OptTS
			if l < 5 {
				p.Events.Add(EventIPv4OptInvalidLen)
				ok = false
			} else {
				ptr := int(o[2])
				rec := 4
				if flag := o[3] & 0x0f; flag == 1 || flag == 3 {
					rec = 8
				}
				if ptr < 5 || (ptr-5)%rec != 0 || ptr > l+1 {
					p.Events.Add(EventIPv4OptMalformed)
					ok = false
				}
			}
		case ipv4OptSec:
			bit = IPv4OptSec
			ok = checkOptLen(p, l == 11)
		case ipv4OptESec:
			bit = IPv4OptESec
			ok = checkOptLen(p, l >= 3)
		case ipv4OptSID:
			bit = IPv4OptSatID
			ok = checkOptLen(p, l == 4)
		case ipv4OptQS:
			bit = IPv4OptQS
			ok = checkOptLen(p, l == 8)
		case ipv4OptCIPSO:
			bit = IPv4OptCIPSO
			ok = checkOptLen(p, l >= 6)
		case ipv4OptRtrAlt:
			bit = IPv4OptRtrAlt
			ok = checkOptLen(p, l == 4)
		default:
			p.Events.Add(EventIPv4OptInvalid)
			continue
		}
		if seen[t>>6]&(1<<(t&63)) != 0 {
			p.Events.Add(EventIPv4OptDuplicate)
			continue
		}
		seen[t>>6] |= 1 << (t & 63)
		if ok {
			set |= bit
		}
	}
	if set != 0 {
		set |= IPv4OptAny
	}
	return set, true
}

func checkOptLen(p *Packet, good bool) bool {
	if !good {
		p.Events.Add(EventIPv4OptInvalidLen)
	}
	return good
}

// decodeL4 decodes the transport layer of an IPv4 packet or of an IPv6 packet after its
// extension headers. For first fragments the transport header is decoded quietly: the
// fragment holds only the start of the datagram, so its length checks would raise events
// that the reassembled datagram does not deserve.
func (d *Decoder) decodeL4(p *Packet, proto uint8, data []byte) {
	if !p.IsFragment {
		d.decodeTransport(p, proto, data)
		return
	}
	ev, inv := p.Events, p.Invalid
	d.decodeTransport(p, proto, data)
	p.Events, p.Invalid = ev, inv
}

func (d *Decoder) decodeTransport(p *Packet, proto uint8, data []byte) {
	switch proto {
	case ProtoTCP:
		d.decodeTCP(p, data)
	case ProtoUDP:
		d.decodeUDP(p, data)
	case ProtoICMP:
		if p.IPVersion == 6 {
			p.Events.Add(EventIPv6ICMPv4)
			return
		}
		d.decodeICMPv4(p, data)
	case ProtoICMPv6:
		if p.IPVersion == 4 {
			p.invalid(EventIPv4ICMPv6)
			return
		}
		d.decodeICMPv6(p, data)
	case ProtoSCTP:
		d.decodeSCTP(p, data)
	case ProtoGRE:
		if !p.IsFragment {
			d.Counters.GRE++
		}
	}
}
