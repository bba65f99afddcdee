package pipeline

import "github.com/meerkat-ids/meerkat/decode"

// peekHash returns a symmetric hash of a frame's IP addresses, read straight from the header
// without a full decode, so the reader can pick a worker before anyone decodes the packet.
// Only the addresses are hashed (not the ports): every fragment of a datagram and both
// directions of a flow then reach the same worker. Frames without IP go to worker 0.
func peekHash(lt decode.LinkType, b []byte) uint32 {
	ip := ipHeader(lt, b)
	if len(ip) < 20 {
		return 0
	}
	switch ip[0] >> 4 {
	case 4:
		s := be32(ip[12:])
		d := be32(ip[16:])
		if s > d {
			s, d = d, s
		}
		return mix64(uint64(s)<<32 | uint64(d))
	case 6:
		if len(ip) < 40 {
			return 0
		}
		s1, s2 := be64(ip[8:]), be64(ip[16:])
		d1, d2 := be64(ip[24:]), be64(ip[32:])
		if s1 > d1 || s1 == d1 && s2 > d2 {
			s1, s2, d1, d2 = d1, d2, s1, s2
		}
		return mix64(s1 ^ mix64u(s2) ^ mix64u(d1^0x9e3779b97f4a7c15) ^ mix64u(d2+0x632be59bd9b4e019))
	}
	return 0
}

// ipHeader skips the link layer (Ethernet with VLAN tags, SLL, SLL2, loopback, raw).
func ipHeader(lt decode.LinkType, b []byte) []byte {
	switch lt {
	case decode.LinkTypeEthernet:
		if len(b) < 14 {
			return nil
		}
		et := uint16(b[12])<<8 | uint16(b[13])
		off := 14
		for i := 0; i < 4 && (et == 0x8100 || et == 0x88a8 || et == 0x9100); i++ {
			if len(b) < off+4 {
				return nil
			}
			et = uint16(b[off+2])<<8 | uint16(b[off+3])
			off += 4
		}
		return b[off:]
	case decode.LinkTypeSLL:
		if len(b) < 16 {
			return nil
		}
		return b[16:]
	case decode.LinkTypeSLL2:
		if len(b) < 20 {
			return nil
		}
		return b[20:]
	case decode.LinkTypeNull, decode.LinkTypeLoop:
		if len(b) < 4 {
			return nil
		}
		return b[4:]
	default:
		return b
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func be64(b []byte) uint64 { return uint64(be32(b))<<32 | uint64(be32(b[4:])) }

func mix64u(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func mix64(x uint64) uint32 { return uint32(mix64u(x)) }
