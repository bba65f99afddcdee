package decode

import (
	"encoding/binary"
	"testing"
)

// allocFrames is one frame of every kind the decoder handles, well-formed and malformed.
func allocFrames() []struct {
	lt   LinkType
	data []byte
} {
	seg := tcp(v4a, v4b, 1, 2, TCPFlagSYN, []byte{2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2}, []byte("payload"))
	pkt4 := ip4(ip4Opts{proto: ProtoTCP, options: []byte{7, 7, 4, 0, 0, 0, 0, 0}}, seg)
	pkt6 := ip6([]uint8{nhHopOpts, nhFragment, ProtoUDP}, [][]byte{ext6(8), frag6(0, false, 1)}, udp(v6a, v6b, 1, 2, []byte("x")))
	null := make([]byte, 4)
	binary.NativeEndian.PutUint32(null, 2)
	sll2 := make([]byte, 20)
	put16(sll2, 0x86dd)
	frames := []struct {
		lt   LinkType
		data []byte
	}{
		{LinkTypeEthernet, eth(0x0800, pkt4)},
		{LinkTypeEthernet, eth(0x0800, pkt4, 1, 2, 3, 4)},
		{LinkTypeEthernet, eth(0x86dd, pkt6, 10)},
		{LinkTypeEthernet, eth(0x0800, ip4(ip4Opts{proto: ProtoICMP}, icmp4(3, 1, 0, ip4(ip4Opts{proto: ProtoUDP}, nil))))},
		{LinkTypeEthernet, eth(0x0806, make([]byte, 28))},
		{LinkTypeSLL2, cat(sll2, ip6([]uint8{ProtoICMPv6}, nil, icmp6(128, 0, 1, nil)))},
		{LinkTypeNull, cat(null, ip4(ip4Opts{proto: ProtoUDP, flags: IPv4FlagMF}, udp(v4a, v4b, 1, 2, make([]byte, 40))[:24]))},
		{LinkTypeRaw, ip4(ip4Opts{proto: ProtoSCTP}, make([]byte, 12))},
		{LinkTypeRaw, ip4(ip4Opts{proto: ProtoTCP, options: []byte{7, 9, 0, 0}}, seg)},
		{LinkTypeRaw, ip6([]uint8{nhRouting, 200}, [][]byte{ext6(8)}, nil)},
		{LinkTypeRaw, []byte{0x45}},
	}
	return frames
}

// TestDecodeAllocs proves Decode allocates nothing, for every kind of frame, with checksum
// validation on.
func TestDecodeAllocs(t *testing.T) {
	d := Decoder{Checksums: ChecksumAll}
	var p Packet
	for i, f := range allocFrames() {
		if n := testing.AllocsPerRun(100, func() { d.Decode(&p, f.lt, f.data) }); n != 0 {
			t.Errorf("frame %d: %v allocations per Decode", i, n)
		}
	}
	if n := testing.AllocsPerRun(10, func() {
		var c Counters
		c.Add(&d.Counters)
		c.Each(func(string, uint64) {})
	}); n != 0 {
		t.Errorf("Counters.Add/Each: %v allocations", n)
	}
}

func benchDecode(b *testing.B, lt LinkType, data []byte) {
	d := Decoder{Checksums: ChecksumAll}
	var p Packet
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d.Decode(&p, lt, data)
	}
}

// BenchmarkDecodeTCP decodes an Ethernet/IPv4/TCP frame with options and 512 bytes of payload.
func BenchmarkDecodeTCP(b *testing.B) {
	seg := tcp(v4a, v4b, 1, 2, TCPFlagACK, []byte{1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2}, make([]byte, 512))
	benchDecode(b, LinkTypeEthernet, eth(0x0800, ip4(ip4Opts{proto: ProtoTCP}, seg)))
}

// BenchmarkDecodeTCPNoChecksum is BenchmarkDecodeTCP with checksum validation off.
func BenchmarkDecodeTCPNoChecksum(b *testing.B) {
	seg := tcp(v4a, v4b, 1, 2, TCPFlagACK, []byte{1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2}, make([]byte, 512))
	data := eth(0x0800, ip4(ip4Opts{proto: ProtoTCP}, seg))
	d := Decoder{Checksums: ChecksumNone}
	var p Packet
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d.Decode(&p, LinkTypeEthernet, data)
	}
}

// BenchmarkDecodeUDP decodes an Ethernet/802.1Q/IPv4/UDP frame (a DNS-sized query).
func BenchmarkDecodeUDP(b *testing.B) {
	benchDecode(b, LinkTypeEthernet, eth(0x0800, ip4(ip4Opts{proto: ProtoUDP}, udp(v4a, v4b, 5353, 53, make([]byte, 40))), 100))
}

// BenchmarkDecodeTCPv6 decodes an Ethernet/IPv6/TCP frame with 512 bytes of payload.
func BenchmarkDecodeTCPv6(b *testing.B) {
	benchDecode(b, LinkTypeEthernet, eth(0x86dd, ip6([]uint8{ProtoTCP}, nil, tcp(v6a, v6b, 1, 2, TCPFlagACK, nil, make([]byte, 512)))))
}

// BenchmarkDecodeICMPv6 decodes a raw IPv6 hop-by-hop + ICMPv6 echo request.
func BenchmarkDecodeICMPv6(b *testing.B) {
	benchDecode(b, LinkTypeRaw, ip6([]uint8{nhHopOpts, ProtoICMPv6}, [][]byte{ext6(8)}, icmp6(128, 0, 1, make([]byte, 56))))
}

// BenchmarkDecodeMalformed decodes a frame whose IPv4 options are broken.
func BenchmarkDecodeMalformed(b *testing.B) {
	benchDecode(b, LinkTypeEthernet, eth(0x0800, ip4(ip4Opts{proto: ProtoTCP, options: []byte{7, 9, 0, 0}}, make([]byte, 20))))
}

// TestFixTCPChecksum rewrites a payload byte and checks the recomputed checksum validates.
func TestFixTCPChecksum(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		var p Packet
		var d Decoder
		frame := eth(0x0800, ip4(ip4Opts{proto: ProtoTCP}, tcp(v4a, v4b, 1, 2, TCPFlagACK, nil, []byte("EVIL"))))
		if v6 {
			frame = eth(0x86dd, ip6([]uint8{ProtoTCP}, nil, tcp(v6a, v6b, 1, 2, TCPFlagACK, nil, []byte("EVIL"))))
		}
		d.Decode(&p, LinkTypeEthernet, frame)
		if !p.L4ChecksumOK() {
			t.Fatalf("v6=%v: built frame's checksum is bad", v6)
		}
		copy(p.Payload, "GOOD")
		if p.L4ChecksumOK() {
			t.Fatalf("v6=%v: checksum still valid after the rewrite", v6)
		}
		p.FixTCPChecksum()
		if !p.L4ChecksumOK() {
			t.Errorf("v6=%v: FixTCPChecksum left a bad checksum", v6)
		}
	}
}

// TestTCPStreamOptions: the options the stream engine tests are found by the decoder: SACK
// blocks (kind 5), TCP-MD5 (19, length 18), TCP-AO (29), TCP Fast Open (34, or the
// experimental 254 with magic 0xF989).
func TestTCPStreamOptions(t *testing.T) {
	for _, tc := range []struct {
		name           string
		opts           []byte
		sack, md5, tfo bool
	}{
		{"sack", []byte{1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2}, true, false, false},
		{"md5", append([]byte{1, 1, 19, 18}, make([]byte, 16)...), false, true, false},
		{"ao", []byte{29, 4, 1, 1}, false, true, false},
		{"tfo cookie request", []byte{34, 2, 1, 1}, false, false, true},
		{"tfo experimental", []byte{254, 4, 0xf9, 0x89}, false, false, true},
		{"sack bad length", []byte{5, 9, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}, false, false, false},
	} {
		var p Packet
		var d Decoder
		d.Decode(&p, LinkTypeEthernet, eth(0x0800, ip4(ip4Opts{proto: ProtoTCP}, tcp(v4a, v4b, 1, 2, TCPFlagSYN, tc.opts, nil))))
		if p.TCPHasSACK != tc.sack || p.TCPHasMD5 != tc.md5 || p.TCPHasTFO != tc.tfo {
			t.Errorf("%s: sack %v md5 %v tfo %v, want %v %v %v", tc.name, p.TCPHasSACK, p.TCPHasMD5, p.TCPHasTFO, tc.sack, tc.md5, tc.tfo)
		}
	}
}
