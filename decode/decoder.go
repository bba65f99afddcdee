package decode

import (
	"encoding/binary"
	"math/bits"
)

// ChecksumMode says which checksums Decode validates (Suricata's `-k all|none`).
type ChecksumMode uint8

// Checksum modes.
const (
	// ChecksumAll validates the IPv4 header checksum and the TCP, UDP, ICMPv4 and ICMPv6
	// checksums, setting Packet.IPv4ChecksumBad and Packet.L4ChecksumBad. Transport checksums
	// of fragments are not validated (the rest of the datagram is missing); the reassembled
	// datagram is.
	ChecksumAll ChecksumMode = iota
	// ChecksumNone validates nothing; the *ChecksumBad fields stay false.
	ChecksumNone
	// ChecksumTCP validates only the TCP checksum, which is what Suricata checks on every
	// packet by default (its stream engine, with stream.checksum-validation); IPv4, UDP and
	// ICMP checksums are left to the keywords that ask for them. The pipeline uses this mode
	// for `-k all`.
	ChecksumTCP
)

// Decoder decodes frames into Packets and counts what it saw. It is not safe for concurrent
// use: give each worker its own Decoder and merge the Counters with Counters.Add.
type Decoder struct {
	Checksums ChecksumMode // which checksums to validate
	Counters  Counters     // incremented by every Decode call
}

// Decode decodes data, a frame of link type lt, into p. It first resets p (so the caller sets
// Timestamp, WireLen, PcapCnt and Source after Decode), then decodes as far as the frame can
// be trusted: a malformed layer records its decoder event, sets p.Invalid and leaves that
// layer and the layers above it empty. Decode never panics and never allocates; every slice
// in p points into data.
//
// IP fragments are decoded up to the IP layer (p.IsFragment); the transport header of a first
// fragment (offset 0) is decoded when it fits in the fragment, without raising transport
// events or counting the packet as TCP/UDP/ICMP. Pass fragments to package defrag and decode
// the reassembled datagram with LinkTypeRaw.
func (d *Decoder) Decode(p *Packet, lt LinkType, data []byte) {
	p.Reset()
	p.Data = data
	p.LinkType = lt

	c := &d.Counters
	c.Pkts++
	c.Bytes += uint64(len(data))
	if uint64(len(data)) > c.MaxPktSize {
		c.MaxPktSize = uint64(len(data))
	}

	switch lt {
	case LinkTypeEthernet:
		d.decodeEthernet(p, data)
	case LinkTypeSLL:
		d.decodeSLL(p, data)
	case LinkTypeSLL2:
		d.decodeSLL2(p, data)
	case LinkTypeNull:
		d.decodeNull(p, data, false)
	case LinkTypeLoop:
		d.decodeNull(p, data, true)
	case LinkTypeRaw, LinkTypeRawAlt, LinkTypeRawAlt2:
		d.decodeRaw(p, data)
	case LinkTypeIPv4:
		p.EtherType = etherTypeIPv4
		d.decodeIPv4(p, data)
	case LinkTypeIPv6:
		p.EtherType = etherTypeIPv6
		d.decodeIPv6(p, data)
	default:
		c.UnknownLinkType++
	}

	if !p.Events.Empty() {
		for w, word := range p.Events {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &= word - 1
				c.Events[w<<6|b]++
			}
		}
	}
	if p.Invalid {
		c.Invalid++
	}
}

// invalid records e and marks the packet invalid.
func (p *Packet) invalid(e Event) {
	p.Events.Add(e)
	p.Invalid = true
}

// Ethertypes the decoder knows.
const (
	etherTypeIPv4     = 0x0800
	etherTypeARP      = 0x0806
	etherTypeVLAN     = 0x8100
	etherTypeIPv6     = 0x86dd
	etherType8021AD   = 0x88a8
	etherTypeQinQ9100 = 0x9100
)

// decodeNetwork dispatches on an ethertype (Ethernet, VLAN, SLL, SLL2). It reports whether the
// ethertype is known.
func (d *Decoder) decodeNetwork(p *Packet, et uint16, data []byte) bool {
	p.EtherType = et
	switch et {
	case etherTypeIPv4:
		d.decodeIPv4(p, data)
	case etherTypeIPv6:
		d.decodeIPv6(p, data)
	case etherTypeVLAN, etherType8021AD, etherTypeQinQ9100:
		d.decodeVLAN(p, data)
	case etherTypeARP:
		d.Counters.ARP++
	case 0x8863, 0x8864, 0x8847, 0x8848, 0x88e7, 0x8903, 0x8926, 0x894f:
		// PPPoE discovery and session, MPLS unicast and multicast, 802.1ah, DCE, VN-Tag,
		// NSH: Suricata decodes these; Meerkat does not yet, but they are not unknown (no
		// unknown_ethertype count, no vlan.unknown_type event).
	default:
		// Suricata's DecodeNetworkLayer, for Ethernet, SLL, SLL2 and VLAN alike.
		d.Counters.UnknownEtherType++
		p.Events.Add(EventEthernetUnknownEtherType)
		return false
	}
	return true
}

func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
