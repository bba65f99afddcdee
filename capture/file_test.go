package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/meerkat-ids/meerkat/decode"
)

func TestOpenFileFormats(t *testing.T) {
	pkts := genPkts(1, 40)
	// Spread the packets over three interfaces for the multi-interface pcapng.
	multi := append([]pkt(nil), pkts...)
	for i := range multi {
		multi[i].iface = i % 3
	}
	le, be := binary.LittleEndian, binary.BigEndian
	lt := func(l ...decode.LinkType) []decode.LinkType { return l }

	tests := []struct {
		name  string
		file  []byte
		pkts  []pkt
		links []decode.LinkType
		res   time.Duration
	}{
		{"pcapgo µs ethernet", pcapgoBytes(t, false, layers.LinkTypeEthernet, pkts), pkts, lt(decode.LinkTypeEthernet), time.Microsecond},
		{"pcapgo ns raw", pcapgoBytes(t, true, layers.LinkTypeRaw, pkts), pkts, lt(decode.LinkTypeRaw), time.Nanosecond},
		{"pcapgo µs sll2", pcapgoBytes(t, false, layers.LinkTypeLinuxSLL2, pkts), pkts, lt(decode.LinkTypeSLL2), time.Microsecond},
		{"le µs null", pcapBytes(le, false, 65535, 0, pkts), pkts, lt(decode.LinkTypeNull), time.Microsecond},
		{"be µs sll", pcapBytes(be, false, 65535, 113, pkts), pkts, lt(decode.LinkTypeSLL), time.Microsecond},
		{"be ns loop", pcapBytes(be, true, 262144, 108, pkts), pkts, lt(decode.LinkTypeLoop), time.Nanosecond},
		{"le ns ipv4", pcapBytes(le, true, 0, 228, pkts), pkts, lt(decode.LinkTypeIPv4), time.Nanosecond},
		{"be µs ipv6", pcapBytes(be, false, 1<<31, 229, pkts), pkts, lt(decode.LinkTypeIPv6), time.Microsecond},
		{"le raw 12", pcapBytes(le, false, 65535, 12, pkts), pkts, lt(decode.LinkTypeRawAlt), time.Microsecond},
		{"be raw 14", pcapBytes(be, false, 65535, 14, pkts), pkts, lt(decode.LinkTypeRawAlt2), time.Microsecond},
		{"le fcs bits in link type", pcapBytes(le, false, 65535, 0x1<<28|1, pkts), pkts, lt(decode.LinkTypeEthernet), time.Microsecond},
		{"gzip pcap", gz(pcapgoBytes(t, true, layers.LinkTypeEthernet, pkts)), pkts, lt(decode.LinkTypeEthernet), time.Nanosecond},
		{"gzip be pcap", gz(pcapBytes(be, false, 65535, 1, pkts)), pkts, lt(decode.LinkTypeEthernet), time.Microsecond},
		{"pcap no packets", pcapBytes(le, false, 65535, 1, nil), nil, lt(decode.LinkTypeEthernet), time.Microsecond},
		{"pcapng ethernet", ngWriterBytes(t, []layers.LinkType{layers.LinkTypeEthernet}, pkts), pkts, lt(decode.LinkTypeEthernet), time.Nanosecond},
		{"pcapng sll2", ngWriterBytes(t, []layers.LinkType{layers.LinkTypeLinuxSLL2}, pkts), pkts, lt(decode.LinkTypeSLL2), time.Nanosecond},
		{"pcapng three interfaces",
			ngWriterBytes(t, []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeRaw, layers.LinkTypeLinuxSLL2}, multi),
			multi, lt(decode.LinkTypeEthernet, decode.LinkTypeRaw, decode.LinkTypeSLL2), time.Nanosecond},
		{"gzip pcapng", gz(ngWriterBytes(t, []layers.LinkType{layers.LinkTypeLinuxSLL}, pkts)), pkts, lt(decode.LinkTypeSLL), time.Nanosecond},
		{"pcapng big-endian", ngBE(pkts, 0), pkts, lt(decode.LinkTypeNull), time.Microsecond},
		{"pcapng big-endian snaplen", ngBE(pkts, 65535), pkts, lt(decode.LinkTypeNull), time.Microsecond},
		{"pcapng no packets", (&ngBuilder{order: le}).shb().idb(1, 0).b, nil, lt(decode.LinkTypeEthernet), time.Microsecond},
		{"pcapng section only", (&ngBuilder{order: be}).shb().b, nil, lt(decode.LinkTypeEthernet), time.Microsecond},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, dir, fmt.Sprintf("f%d.bin", i), tc.file)
			s, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := readAll(t, s, 1000)
			if err != nil {
				t.Fatal(err)
			}
			compareFrames(t, got, expect(tc.pkts, tc.links, tc.res, 1))
			if s.Path() != path {
				t.Errorf("Path() = %q", s.Path())
			}
		})
	}
}

// ngBE crafts a big-endian pcapng file with skipped blocks between the packets.
func ngBE(pkts []pkt, snaplen uint32) []byte {
	n := &ngBuilder{order: binary.BigEndian}
	n.shb().block(4, []byte{0, 0, 0, 0}) // name resolution: end of records only
	n.idb(0, snaplen)
	for i, p := range pkts {
		n.epb(p)
		if i%5 == 0 {
			n.block(5, make([]byte, 12))               // interface statistics
			n.block(0x0a, make([]byte, 40))            // decryption secrets
			n.block(0x40000bad, []byte("custom data")) // custom block
		}
	}
	return n.b
}

// TestPcapngSections reads two concatenated sections of different link types and byte orders.
func TestPcapngSections(t *testing.T) {
	p1, p2 := genPkts(2, 5), genPkts(3, 7)
	file := ngWriterBytes(t, []layers.LinkType{layers.LinkTypeEthernet}, p1)
	file = append(file, ngBE(p2, 0)...)
	s, err := newSource("mem", bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, s, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := append(expect(p1, []decode.LinkType{decode.LinkTypeEthernet}, time.Nanosecond, 1),
		expect(p2, []decode.LinkType{decode.LinkTypeNull}, time.Microsecond, 6)...)
	compareFrames(t, got, want)
}

// TestPcapngSimplePacket reads simple packet blocks, cut to interface 0's snap length.
func TestPcapngSimplePacket(t *testing.T) {
	n := &ngBuilder{order: binary.LittleEndian}
	n.shb().idb(101, 4)
	spb := func(wire uint32, data []byte) {
		body := binary.LittleEndian.AppendUint32(nil, wire)
		n.block(ngBlockSPB, append(body, data...))
	}
	spb(3, []byte{1, 2, 3})
	spb(100, []byte{1, 2, 3, 4})
	s, err := newSource("mem", bytes.NewReader(n.b))
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, s, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].CaptureLen != 4 || got[1].WireLen != 100 || got[0].LinkType != decode.LinkTypeRaw {
		t.Fatalf("got %+v", got)
	}
}

func TestNotCapture(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{"empty.pcap", "", "not a pcap or pcapng file (empty)"},
		{"short.pcap", "\xd4\xc3", "not a pcap or pcapng file (only 2 bytes)"},
		{"x.txt", "hello world\n", "not a pcap or pcapng file (magic 0x68656c6c)"},
		{"text.pcap.gz", string(gz([]byte("hello world\n"))), "not a pcap or pcapng file (gzip-compressed, magic 0x68656c6c)"},
		{"empty.gz", string(gz(nil)), "not a pcap or pcapng file (gzip-compressed, empty)"},
		{"gzgz", string(gz(gz(pcapBytes(binary.LittleEndian, false, 100, 1, nil)))), "not a pcap or pcapng file (gzip-compressed, magic 0x1f8b0800)"},
	} {
		path := writeFile(t, dir, tc.name, []byte(tc.content))
		_, err := OpenFile(path)
		if !errors.Is(err, ErrNotCapture) {
			t.Errorf("%s: err = %v, want ErrNotCapture", tc.name, err)
			continue
		}
		if want := "capture: " + path + ": " + tc.want; err.Error() != want {
			t.Errorf("%s: err = %q, want %q", tc.name, err, want)
		}
	}

	// Other header problems fail but are not ErrNotCapture.
	bad := pcapBytes(binary.LittleEndian, false, 100, 1, nil)
	binary.LittleEndian.PutUint16(bad[4:], 3) // version 3.4
	for name, b := range map[string][]byte{
		"kuznetsov":   {0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0},
		"version":     bad,
		"bad gzip":    {0x1f, 0x8b, 0xff, 0xff, 0xff},
		"cut gzip":    gz(bad)[:12],
		"pcapng bom":  append([]byte{0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0}, make([]byte, 20)...),
		"pcapng len":  append([]byte{0x0a, 0x0d, 0x0d, 0x0a, 20, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a}, make([]byte, 16)...),
		"pcapng huge": append([]byte{0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0x7f, 0x4d, 0x3c, 0x2b, 0x1a}, make([]byte, 16)...),
	} {
		path := writeFile(t, dir, name, b)
		s, err := OpenFile(path)
		if err == nil {
			s.Close()
			t.Errorf("%s: no error", name)
			continue
		}
		if errors.Is(err, ErrNotCapture) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v", name, err)
		}
	}

	if _, err := OpenFile(dir + "/missing.pcap"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestRandomBytes feeds random files to the reader: errors are fine, panics and hangs are not.
func TestRandomBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	heads := [][]byte{nil, {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0}, {0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0, 4}, {0x0a, 0x0d, 0x0d, 0x0a}}
	for i := range 400 {
		b := make([]byte, rng.IntN(300))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		h := heads[i%len(heads)]
		if len(b) >= len(h) {
			copy(b, h)
		}
		s, err := newSourceSize("random", bytes.NewReader(b), int64(len(b)))
		if err != nil {
			continue
		}
		_, _ = readAll(t, s, len(b))
	}
	path := writeFile(t, t.TempDir(), "random.bin", []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3})
	if _, err := OpenFile(path); !errors.Is(err, ErrNotCapture) || !strings.Contains(err.Error(), "magic 0xdeadbeef") {
		t.Errorf("err = %v", err)
	}
}

// TestTruncated cuts valid files at every byte offset.
func TestTruncated(t *testing.T) {
	pkts := genPkts(4, 6)
	for i := range pkts { // small packets keep the number of cuts down
		if len(pkts[i].data) > 70 {
			pkts[i].data = pkts[i].data[:70]
			pkts[i].wire = 70 + i
		}
	}
	ng := ngWriterBytes(t, []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeRaw}, pkts)
	pcap := pcapgoBytes(t, false, layers.LinkTypeEthernet, pkts)
	ngBounds, ngEnds := ngBlockEnds(ng)
	files := []struct {
		name   string
		file   []byte
		header int   // length of the file header
		bounds []int // offsets where a cut leaves only complete records or blocks
		ends   []int // offset just past each packet
		want   []frame
	}{
		{"pcap", pcap, 24, append([]int{24}, pcapEnds(pkts)...), pcapEnds(pkts),
			expect(pkts, []decode.LinkType{1}, time.Microsecond, 1)},
		{"pcapng", ng, ngBounds[0], ngBounds, ngEnds,
			expect(pkts, []decode.LinkType{1, 101}, time.Nanosecond, 1)},
	}
	for _, tc := range files {
		t.Run(tc.name, func(t *testing.T) {
			for cut := 0; cut < len(tc.file); cut++ {
				s, err := newSourceSize("cut", bytes.NewReader(tc.file[:cut]), int64(cut))
				if cut < tc.header {
					if err == nil {
						t.Fatalf("cut %d: no error inside the file header", cut)
					}
					if isTruncated(err) {
						t.Fatalf("cut %d: header error %v is ErrTruncated", cut, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				got, err := readAll(t, s, 100)
				complete := 0
				for _, e := range tc.ends {
					if e <= cut {
						complete++
					}
				}
				if len(got) != complete {
					t.Fatalf("cut %d: %d frames, want %d", cut, len(got), complete)
				}
				compareFrames(t, got, tc.want[:complete])
				atBoundary := false
				for _, e := range tc.bounds {
					atBoundary = atBoundary || e == cut
				}
				switch {
				case atBoundary && err != nil:
					t.Fatalf("cut %d at a record boundary: %v", cut, err)
				case !atBoundary && !isTruncated(err):
					t.Fatalf("cut %d: err = %v, want ErrTruncated", cut, err)
				}
				if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("(%d complete records read)", complete)) {
					t.Fatalf("cut %d: message %q", cut, err)
				}
			}
		})
	}

	// A gzip file cut anywhere: never a panic, the frames a prefix, and truncation reported.
	file := gz(pcapgoBytes(t, true, layers.LinkTypeEthernet, pkts))
	for cut := 0; cut < len(file); cut++ {
		s, err := newSourceSize("cut.gz", bytes.NewReader(file[:cut]), int64(cut))
		if err != nil {
			continue
		}
		got, err := readAll(t, s, 100)
		if !isTruncated(err) {
			t.Fatalf("gzip cut %d: err = %v, want ErrTruncated", cut, err)
		}
		compareFrames(t, got, expect(pkts[:len(got)], []decode.LinkType{1}, time.Nanosecond, 1))
	}
}

func pcapEnds(pkts []pkt) []int {
	var ends []int
	off := 24
	for _, p := range pkts {
		off += 16 + len(p.data)
		ends = append(ends, off)
	}
	return ends
}

// ngBlockEnds returns the offset past each block, and past each enhanced packet block, of a
// little-endian pcapng file.
func ngBlockEnds(b []byte) (blocks, packets []int) {
	for off := 0; off < len(b); {
		typ := binary.LittleEndian.Uint32(b[off:])
		off += int(binary.LittleEndian.Uint32(b[off+4:]))
		blocks = append(blocks, off)
		if typ == ngBlockEPB {
			packets = append(packets, off)
		}
	}
	return blocks, packets
}

// TestCorruptRecords checks records the reader must refuse without reading them.
func TestCorruptRecords(t *testing.T) {
	le := binary.LittleEndian
	pkts := genPkts(5, 3)

	// pcap: a record longer than 256 KiB, though the file declares a 4 GiB snap length.
	huge := pcapBytes(le, false, 0xffffffff, 1, pkts)
	huge = le.AppendUint32(huge, 1)
	huge = le.AppendUint32(huge, 0)
	huge = le.AppendUint32(huge, 0xfffffff0)
	huge = le.AppendUint32(huge, 0xfffffff0)

	// pcapng: a packet longer than its block, and a block longer than 16 MiB.
	n := &ngBuilder{order: le}
	n.shb().idb(1, 0).epb(pkts[0])
	ngCap := append([]byte(nil), n.b...)
	ngCap = le.AppendUint32(ngCap, ngBlockEPB)
	ngCap = le.AppendUint32(ngCap, 64)
	ngCap = append(ngCap, make([]byte, 12)...)
	ngCap = le.AppendUint32(ngCap, 1000) // caplen
	ngCap = append(ngCap, make([]byte, 40)...)
	ngBig := append([]byte(nil), n.b...)
	ngBig = le.AppendUint32(ngBig, 0x40000bad)
	ngBig = le.AppendUint32(ngBig, 0xfffffff0)
	ngBig = append(ngBig, make([]byte, 64)...)
	ngOdd := append([]byte(nil), n.b...)
	ngOdd = le.AppendUint32(ngOdd, 5)
	ngOdd = le.AppendUint32(ngOdd, 13)
	ngOdd = append(ngOdd, make([]byte, 64)...)

	for _, tc := range []struct {
		name string
		file []byte
		want int
		msg  string
	}{
		{"pcap huge record", huge, 3, "capture length exceeds snap length"},
		{"pcapng caplen", ngCap, 1, "captured length 1000 does not fit in its 64-byte block"},
		{"pcapng huge block", ngBig, 1, "over the 16777216-byte limit"},
		{"pcapng odd block", ngOdd, 1, "bad block length 13"},
	} {
		s, err := newSource("mem", bytes.NewReader(tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := readAll(t, s, 10)
		if len(got) != tc.want || err == nil || isTruncated(err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %d frames, err %v", tc.name, len(got), err)
		}
	}
}

// TestHugeRecordMemory checks that gzip bombs claiming huge records stay within bounded memory.
func TestHugeRecordMemory(t *testing.T) {
	le := binary.LittleEndian
	zeros := make([]byte, 16<<20)

	pcap := pcapBytes(le, false, 0xffffffff, 1, nil)
	pcap = le.AppendUint32(pcap, 1)
	pcap = le.AppendUint32(pcap, 0)
	pcap = le.AppendUint32(pcap, 0x7ffffff0)
	pcap = le.AppendUint32(pcap, 0x7ffffff0)

	n := &ngBuilder{order: le}
	n.shb().idb(1, 0)
	dsb := append([]byte(nil), n.b...) // 15 MiB decryption secrets blocks
	for range 3 {
		dsb = le.AppendUint32(dsb, 0x0a)
		dsb = le.AppendUint32(dsb, 15<<20)
		dsb = le.AppendUint32(dsb, 0x544c534b)
		dsb = le.AppendUint32(dsb, 15<<20-20)
		dsb = append(dsb, zeros[:15<<20-16]...)
	}

	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"pcap", gz(append(pcap, zeros...))},
		{"pcapng decryption secrets", gz(dsb)},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := newSource("bomb.gz", bytes.NewReader(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		_, err = readAll(t, s, 10)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s (%d bytes compressed): %v; %d MiB allocated", tc.name, len(tc.file), err, alloc>>20)
		if alloc > 24<<20 {
			t.Errorf("%s: %d MiB allocated", tc.name, alloc>>20)
		}
	}
}

// TestNextZeroAllocs checks that reading allocates nothing per packet once warmed up.
func TestNextZeroAllocs(t *testing.T) {
	pkts := genPkts(6, 3000)
	for _, tc := range []struct {
		name string
		file []byte
		max  float64
	}{
		{"pcap", pcapgoBytes(t, false, layers.LinkTypeEthernet, pkts), 0},
		{"pcap ns be", pcapBytes(binary.BigEndian, true, 65535, 1, pkts), 0},
		// compress/flate allocates when it starts a deflate block (huffmanDecoder.init), about
		// once per 64 KiB of output here: not per packet.
		{"pcap gzip", gz(pcapgoBytes(t, false, layers.LinkTypeEthernet, pkts)), 0.2},
		{"pcapng", ngWriterBytes(t, []layers.LinkType{layers.LinkTypeEthernet}, pkts), 0},
		// pcapgo boxes the link type of every packet in an interface{}: values above 255
		// (SLL2 is 276) cost a 2-byte allocation.
		{"pcapng sll2", ngWriterBytes(t, []layers.LinkType{layers.LinkTypeLinuxSLL2}, pkts), 1},
	} {
		path := writeFile(t, t.TempDir(), "f", tc.file)
		s, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f Frame
		for range 500 { // warm up: buffers grow to the largest packet
			if err := s.Next(&f); err != nil {
				t.Fatal(err)
			}
		}
		// One run of 1000 calls: AllocsPerRun divides in integers, which would round away an
		// 8-byte allocation the tiny allocator packs two to a block.
		const calls = 1000
		allocs := testing.AllocsPerRun(1, func() {
			for range calls {
				if err := s.Next(&f); err != nil {
					t.Fatal(err)
				}
			}
		}) / calls
		s.Close()
		t.Logf("%s: %.3f allocs per Next", tc.name, allocs)
		if allocs > tc.max {
			t.Errorf("%s: %.3f allocs per Next, want <= %v", tc.name, allocs, tc.max)
		}
	}
}

func TestClose(t *testing.T) {
	path := writeFile(t, t.TempDir(), "f.pcap", pcapgoBytes(t, false, 1, genPkts(8, 3)))
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f Frame
	if err := s.Next(&f); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Next(&f); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
	_ = io.EOF
}

// legacyPcapBytes writes pkts as an old-version pcap file; swap says which records get their
// lengths in the old order (wire length first).
func legacyPcapBytes(order binary.AppendByteOrder, nanos bool, major, minor uint16, pkts []pkt, swap func(i int) bool) []byte {
	b := pcapBytes(order, nanos, 65535, 1, pkts)
	bo := order.(binary.ByteOrder)
	bo.PutUint16(b[4:], major)
	bo.PutUint16(b[6:], minor)
	off := 24
	for i, p := range pkts {
		if swap(i) {
			bo.PutUint32(b[off+8:], uint32(p.wire))
			bo.PutUint32(b[off+12:], uint32(len(p.data)))
		}
		off += 16 + len(p.data)
	}
	return b
}

// TestLegacyPcap reads pcap versions before 2.4, which pcapgo alone refuses.
func TestLegacyPcap(t *testing.T) {
	pkts := genPkts(30, 12)
	for i := range pkts {
		if len(pkts[i].data) > 40 { // small packets keep the number of cuts down
			pkts[i].data = pkts[i].data[:40]
		}
		pkts[i].wire = len(pkts[i].data)
		if i%2 == 0 {
			pkts[i].wire = len(pkts[i].data) + 10 + i // lengths differ: a wrong order shows
		}
	}
	always := func(int) bool { return true }
	le, be := binary.LittleEndian, binary.BigEndian
	for _, tc := range []struct {
		name  string
		file  []byte
		nanos bool
	}{
		{"2.2 le", legacyPcapBytes(le, false, 2, 2, pkts, always), false},
		{"2.0 be ns", legacyPcapBytes(be, true, 2, 0, pkts, always), true},
		{"543.0", legacyPcapBytes(le, false, 543, 0, pkts, always), false},
		{"2.3 mixed", legacyPcapBytes(be, false, 2, 3, pkts, func(i int) bool { return i%4 == 0 }), false},
		{"2.3 gzip", gz(legacyPcapBytes(le, true, 2, 3, pkts, func(i int) bool { return i%3 == 0 })), true},
	} {
		res := time.Microsecond
		if tc.nanos {
			res = time.Nanosecond
		}
		want := expect(pkts, []decode.LinkType{1}, res, 1)
		s, err := newSource(tc.name, bytes.NewReader(tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := readAll(t, s, 100)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		compareFrames(t, got, want)

		if strings.Contains(tc.name, "gzip") {
			continue
		}
		// Cut anywhere after the file header: complete records, then ErrTruncated.
		for cut := 24; cut < len(tc.file); cut++ {
			s, err := newSourceSize(tc.name, bytes.NewReader(tc.file[:cut]), int64(cut))
			if err != nil {
				t.Fatalf("%s cut %d: %v", tc.name, cut, err)
			}
			got, err := readAll(t, s, 100)
			complete := 0
			atBoundary := cut == 24
			for _, e := range pcapEnds(pkts) {
				if e <= cut {
					complete++
				}
				atBoundary = atBoundary || e == cut
			}
			if len(got) != complete || atBoundary != (err == nil) || err != nil && !isTruncated(err) {
				t.Fatalf("%s cut %d: %d frames (want %d), err %v", tc.name, cut, len(got), complete, err)
			}
			compareFrames(t, got, want[:complete])
		}
	}
}

// TestCaplenOverWire reads records whose wire length is below their captured length, as
// libpcap does: pcapgo alone refuses them. WireLen comes out as the captured length. (Not for
// version 2.3, whose lengths are in either order: libpcap takes the smaller as captured.)
func TestCaplenOverWire(t *testing.T) {
	pkts := genPkts(50, 20)
	for i := range pkts {
		if i%3 == 1 {
			pkts[i].wire = len(pkts[i].data) / 2
		}
	}
	want := expect(pkts, []decode.LinkType{1}, time.Microsecond, 1)
	for i := range want {
		want[i].WireLen = max(want[i].WireLen, want[i].CaptureLen)
	}
	le, be := binary.LittleEndian, binary.BigEndian
	for name, file := range map[string][]byte{
		"le":   pcapBytes(le, false, 65535, 1, pkts),
		"be":   pcapBytes(be, false, 65535, 1, pkts),
		"gzip": gz(pcapBytes(le, false, 65535, 1, pkts)),
		"2.2":  legacyPcapBytes(le, false, 2, 2, pkts, func(int) bool { return true }),
	} {
		s, err := newSource(name, bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := readAll(t, s, 100)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compareFrames(t, got, want)
	}
}

// TestManyInterfaces: a section of one million minimal interface description blocks (issue
// #24: about 870 bytes of memory each, 2.6 GB for three million) is read in bounded memory:
// reading stops with an error naming the interface limit, after delivering the packets that
// came before it.
func TestManyInterfaces(t *testing.T) {
	const n = 1_000_000
	pkts := genPkts(7, 2)
	pkts[1].iface = 65534 // on the last interface the cap allows
	b := &ngBuilder{order: binary.LittleEndian, b: make([]byte, 0, 20*n+1024)}
	b.shb().idb(1, 0).epb(pkts[0])
	for range 65534 {
		b.idb(1, 0)
	}
	b.epb(pkts[1])
	for range n - 65535 {
		b.idb(1, 0)
	}
	path := writeFile(t, t.TempDir(), "idbs.pcapng", b.b)
	b = nil

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := readAll(t, s, 10)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d interface blocks: %d frames, %v; %d MiB allocated", n, len(got), err, alloc>>20)
	if err == nil || !strings.Contains(err.Error(), "interfaces") {
		t.Errorf("error = %v, want one about too many interfaces", err)
	}
	if len(got) != 2 || !bytes.Equal(got[0].Data, pkts[0].data) || !bytes.Equal(got[1].Data, pkts[1].data) {
		t.Errorf("got %d frames, want the 2 packets before the limit", len(got))
	}
	if alloc >= 300<<20 {
		t.Errorf("%d MiB allocated, want under 300 MB", alloc>>20)
	}
}
