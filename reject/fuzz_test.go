package reject

import (
	"encoding/binary"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
)

var fuzzLinks = []decode.LinkType{decode.LinkTypeRaw, decode.LinkTypeEthernet, decode.LinkTypeIPv4, decode.LinkTypeIPv6}

// FuzzBuild decodes random frames and builds rejects for them. The first input byte selects
// the link type, target, mode and MTU; the rest is the frame. Build must not panic, and every
// packet it builds must be a well-formed IP packet with valid checksums and consistent lengths.
func FuzzBuild(f *testing.F) {
	for _, s := range [][]byte{
		append([]byte{0x00}, mustHex("450000280001000040067ccdc0a8010a0a0000509c4000501122334400000000500272100000000000")...),
		append([]byte{0x40}, mustHex("6000000000100640200104b8000000000000000000000010200104b8000100000000000000000080")...),
		{0x10, 0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8},
		{0x05, 0x60, 0, 0, 0, 0, 0, 59, 64},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		sel := in[0]
		lt := fuzzLinks[int(sel)%len(fuzzLinks)]
		tg := Target(sel >> 2 % 4) // includes one invalid target
		b := Builder{RFC: sel&0x10 != 0}
		if sel&0x20 != 0 {
			b.MTU = 40 + int(sel>>6)*30
		}
		if sel&0x80 != 0 {
			b.MTU = 1500
		}
		var d decode.Decoder
		var p decode.Packet
		d.Decode(&p, lt, in[1:])
		ps, buf := b.Build(make([]byte, 0, 8), &p, tg)
		total := 0
		for i := range ps.Len() {
			pkt := ps.At(i)
			total += len(pkt)
			checkBuilt(t, pkt)
		}
		if total != len(buf) {
			t.Fatalf("packets hold %d bytes, buffer %d", total, len(buf))
		}
		if ps.Len() > 0 && b.Kind(&p) == None {
			t.Fatal("built packets for Kind None")
		}
	})
}

// checkBuilt checks a built packet with Meerkat's decoder and raw length fields.
func checkBuilt(t *testing.T, pkt []byte) {
	var d decode.Decoder
	var rp decode.Packet
	d.Decode(&rp, decode.LinkTypeRaw, pkt)
	if rp.Invalid || !rp.HasL4 || rp.L4ChecksumBad || rp.IPv4ChecksumBad {
		t.Fatalf("built packet does not decode cleanly (invalid %v l4 %v bad %v/%v): %x",
			rp.Invalid, rp.HasL4, rp.L4ChecksumBad, rp.IPv4ChecksumBad, pkt)
	}
	switch pkt[0] >> 4 {
	case 4:
		if int(binary.BigEndian.Uint16(pkt[2:4])) != len(pkt) {
			t.Fatalf("IPv4 total length %d, packet %d", binary.BigEndian.Uint16(pkt[2:4]), len(pkt))
		}
	case 6:
		if int(binary.BigEndian.Uint16(pkt[4:6])) != len(pkt)-40 {
			t.Fatalf("IPv6 payload length wrong")
		}
	}
	if rp.IsTCP() && rp.TCPFlags != decode.TCPFlagRST|decode.TCPFlagACK {
		t.Fatalf("TCP flags %#x", rp.TCPFlags)
	}
}

func mustHex(s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		var v byte
		for _, c := range s[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			default:
				v |= byte(c-'a') + 10
			}
		}
		b[i] = v
	}
	return b
}
