package decode

import "encoding/binary"

// nullHeaderLen is the BSD loopback header: a 4-byte address family.
const nullHeaderLen = 4

// Address family values of BSD loopback headers.
const (
	afInet         = 2  // AF_INET everywhere
	afInet6BSD     = 24 // NetBSD, OpenBSD, BSD/OS
	afInet6FreeBSD = 28 // FreeBSD
	afInet6Darwin  = 30 // macOS, iOS
)

// decodeNull decodes LinkTypeNull (family in the capturing host's byte order, read here in
// this host's order as Suricata does) and, with network set, LinkTypeLoop (network order).
func (d *Decoder) decodeNull(p *Packet, data []byte, network bool) {
	d.Counters.Null++
	if len(data) < nullHeaderLen {
		p.invalid(EventLtnullPktTooSmall)
		return
	}
	af := binary.NativeEndian.Uint32(data[:4])
	if network {
		af = binary.BigEndian.Uint32(data[:4])
	}
	switch af {
	case afInet:
		p.EtherType = etherTypeIPv4
		d.decodeIPv4(p, data[nullHeaderLen:])
	case afInet6BSD, afInet6FreeBSD, afInet6Darwin:
		p.EtherType = etherTypeIPv6
		d.decodeIPv6(p, data[nullHeaderLen:])
	default:
		p.invalid(EventLtnullUnsupportedType)
	}
}
