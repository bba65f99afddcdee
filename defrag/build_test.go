package defrag

import (
	"encoding/binary"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
)

var (
	srcV4 = []byte{192, 0, 2, 1}
	dstV4 = []byte{198, 51, 100, 2}
	srcV6 = []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	dstV6 = []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
	t0    = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
)

// udpDatagram returns a UDP header and payload with a correct checksum for src/dst.
func udpDatagram(src, dst []byte, n int) []byte {
	b := make([]byte, 8+n)
	binary.BigEndian.PutUint16(b[0:], 4000)
	binary.BigEndian.PutUint16(b[2:], 53)
	binary.BigEndian.PutUint16(b[4:], uint16(8+n))
	for i := 8; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	binary.BigEndian.PutUint16(b[6:], decode.L4Checksum(src, dst, decode.ProtoUDP, b))
	return b
}

// ip4Frag builds an IPv4 fragment: data is the datagram payload slice at byte offset off.
func ip4Frag(id uint16, proto uint8, off int, more bool, data []byte) []byte {
	h := make([]byte, 20)
	h[0] = 0x45
	binary.BigEndian.PutUint16(h[2:], uint16(20+len(data)))
	binary.BigEndian.PutUint16(h[4:], id)
	fo := uint16(off / 8)
	if more {
		fo |= 0x2000
	}
	binary.BigEndian.PutUint16(h[6:], fo)
	h[8] = 64
	h[9] = proto
	copy(h[12:], srcV4)
	copy(h[16:], dstV4)
	binary.BigEndian.PutUint16(h[10:], decode.Checksum(h))
	return append(h, data...)
}

// ip6Frag builds an IPv6 fragment: the unfragmentable part is the fixed header plus a
// hop-by-hop and a destination options header (when ext), then the fragment header whose
// next header is nh.
func ip6Frag(id uint32, nh uint8, ext bool, off int, more bool, data []byte) []byte {
	h := make([]byte, 40)
	h[0] = 0x60
	h[7] = 64
	copy(h[8:], srcV6)
	copy(h[24:], dstV6)
	if ext {
		h[6] = 0                               // hop-by-hop
		hbh := []byte{60, 0, 5, 2, 0, 0, 0, 0} // router alert, pad1, pad1
		dst := []byte{44, 0, 5, 2, 0, 0, 0, 0}
		h = append(append(h, hbh...), dst...)
	} else {
		h[6] = 44
	}
	fh := make([]byte, 8)
	fh[0] = nh
	fo := uint16(off) &^ 7
	if more {
		fo |= 1
	}
	binary.BigEndian.PutUint16(fh[2:], fo)
	binary.BigEndian.PutUint32(fh[4:], id)
	pkt := append(append(h, fh...), data...)
	binary.BigEndian.PutUint16(pkt[4:], uint16(len(pkt)-40))
	return pkt
}

// piece is a fragment to send: byte range of the datagram payload and the More flag.
type piece struct {
	off, end int
	more     bool
}

// split cuts n payload bytes into pieces of size (a multiple of 8).
func split(n, size int) []piece {
	var ps []piece
	for off := 0; off < n; off += size {
		end := min(off+size, n)
		ps = append(ps, piece{off, end, end < n})
	}
	return ps
}

// feeder decodes frames and passes them to a Reassembler.
type feeder struct {
	d decode.Decoder
	p decode.Packet
	r *Reassembler
}

func newFeeder(cfg Config) *feeder {
	return &feeder{r: New(cfg)}
}

// add decodes a raw IP frame at time ts and adds it.
func (f *feeder) add(frame []byte, ts time.Time) ([]byte, bool) {
	f.d.Decode(&f.p, decode.LinkTypeRaw, frame)
	f.p.Timestamp = ts
	return f.r.Add(&f.p)
}
