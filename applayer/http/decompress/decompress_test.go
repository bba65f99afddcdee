package decompress

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"

	"fmt"
	kflate "github.com/klauspost/compress/flate"
	"math/rand"
	"testing"
	"time"
)

func gz(t testing.TB, p []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Name = "file.txt" // FNAME in the header
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func zl(p []byte) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func raw(p []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func sample(n int) []byte {
	r := rand.New(rand.NewSource(int64(n)))
	words := []string{"GET ", "HTTP/1.1 ", "<html>", "body ", "alert ", "meerkat ", "\r\n", "0123456789"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		if r.Intn(8) == 0 {
			b.WriteByte(byte(r.Intn(256)))
		}
	}
	return b.Bytes()[:n]
}

// run decompresses chunks through layers and returns the output and status.
func run(d *Decompressor, layers []Encoding, lim Limits, chunks ...[]byte) ([]byte, Status) {
	var out []byte
	emit := func(p []byte) { out = append(out, p...) }
	d.Reset(layers, lim)
	var st Status
	for _, c := range chunks {
		st |= d.Write(c, emit)
	}
	st |= d.Close(emit)
	return out, st
}

func checkNoWorkers(t *testing.T) {
	t.Helper()
	for i := 0; i < 100 && LiveWorkers() != 0; i++ {
		time.Sleep(time.Millisecond)
	}
	if n := LiveWorkers(); n != 0 {
		t.Fatalf("%d worker goroutines left", n)
	}
}

func TestFormats(t *testing.T) {
	plain := sample(100000)
	var d Decompressor
	for _, tc := range []struct {
		name   string
		layers []Encoding
		body   []byte
	}{
		{"gzip", []Encoding{Gzip}, gz(t, plain)},
		{"gzip-labelled-deflate", []Encoding{Deflate}, gz(t, plain)}, // libhtp retries deflate -> zlib -> gzip
		{"zlib", []Encoding{Deflate}, zl(plain)},
		{"raw", []Encoding{Deflate}, raw(plain)},
		{"zlib-labelled-gzip", []Encoding{Gzip}, zl(plain)},
		{"two-layers", []Encoding{Deflate, Gzip}, raw(gz(t, plain))}, // "gzip, deflate"
		{"none", nil, plain},
	} {
		out, st := run(&d, tc.layers, Limits{BombRatio: 1 << 20, TimeLimit: time.Hour}, tc.body)
		if !bytes.Equal(out, plain) {
			t.Errorf("%s: got %d bytes, want %d (status %#x)", tc.name, len(out), len(plain), st)
		}
		if st&^StatusTruncated != 0 {
			t.Errorf("%s: status %#x", tc.name, st)
		}
	}
	checkNoWorkers(t)
}

// Property: any split of the compressed body gives the one-shot result
// (compress/gzip's reader).
func TestSplitEveryByte(t *testing.T) {
	plain := sample(3000)
	body := gz(t, plain)
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	want.ReadFrom(zr)
	var d Decompressor
	for i := 0; i <= len(body); i++ {
		out, st := run(&d, []Encoding{Gzip}, Limits{}, body[:i], body[i:])
		if !bytes.Equal(out, want.Bytes()) || st != 0 {
			t.Fatalf("split at %d: %d bytes, status %#x", i, len(out), st)
		}
	}
	// Byte by byte, and two layers in random pieces.
	chunks := make([][]byte, len(body))
	for i := range body {
		chunks[i] = body[i : i+1]
	}
	if out, _ := run(&d, []Encoding{Gzip}, Limits{}, chunks...); !bytes.Equal(out, plain) {
		t.Fatalf("byte by byte: %d bytes", len(out))
	}
	two := zl(gz(t, plain))
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 200; n++ {
		var cs [][]byte
		for rest := two; len(rest) > 0; {
			k := 1 + r.Intn(len(rest))
			if k > 64 {
				k = 1 + r.Intn(64)
			}
			cs = append(cs, rest[:k])
			rest = rest[k:]
		}
		if out, st := run(&d, []Encoding{Deflate, Gzip}, Limits{}, cs...); !bytes.Equal(out, plain) {
			t.Fatalf("two layers, run %d: %d bytes, status %#x", n, len(out), st)
		}
	}
	checkNoWorkers(t)
}

// SV http-encoding-gzip-uncompressed: clear text labelled gzip is passed
// through as-is.
func TestMislabelledClearText(t *testing.T) {
	var d Decompressor
	for _, text := range []string{
		"<html><body>this is not compressed at all</body></html>\n",
		// The SV test's request body is JSON: '{' starts a final fixed-Huffman
		// block when read as raw deflate, which decodes some garbage before
		// failing; libhtp drops a retried decoder's pending output.
		`{"sdk_version":"30","app_package":"com.example.app","app_version":"1.2","device_id":"0123456789abcdef"}`,
	} {
		out, st := run(&d, []Encoding{Gzip}, Limits{}, []byte(text))
		if string(out) != text || st&StatusPassthrough == 0 {
			t.Errorf("gzip: %q status %#x", out, st)
		}
	}
	// Labelled deflate, the first decoder is raw deflate itself: HTML fails
	// at once and is passed through; the JSON decodes to garbage before the
	// error, which libhtp's try_finish hands over before giving up.
	text := "<html><body>this is not compressed at all</body></html>\n"
	if out, st := run(&d, []Encoding{Deflate}, Limits{}, []byte(text)); string(out) != text || st&StatusPassthrough == 0 {
		t.Errorf("deflate html: %q status %#x", out, st)
	}
	json := `{"sdk_version":"30","app_package":"com.example.app"}`
	if _, st := run(&d, []Encoding{Deflate}, Limits{}, []byte(json)); st&StatusCorrupt == 0 {
		t.Errorf("deflate json: status %#x", st)
	}
	checkNoWorkers(t)
}

func TestTruncated(t *testing.T) {
	plain := sample(50000)
	body := gz(t, plain)
	var d Decompressor
	out, st := run(&d, []Encoding{Gzip}, Limits{}, body[:len(body)/2])
	if len(out) == 0 || !bytes.HasPrefix(plain, out) || st&StatusTruncated == 0 {
		t.Errorf("truncated: %d bytes prefix=%v status %#x", len(out), bytes.HasPrefix(plain, out), st)
	}
	// Only part of the header: nothing, no passthrough.
	out, st = run(&d, []Encoding{Gzip}, Limits{}, body[:5])
	if len(out) != 0 || st&StatusPassthrough != 0 {
		t.Errorf("header only: %q %#x", out, st)
	}
	// Corrupt in the middle after output: output so far, then nothing.
	bad := append([]byte(nil), body...)
	for i := len(bad) / 2; i < len(bad)/2+64; i++ {
		bad[i] ^= 0x5a
	}
	out, st = run(&d, []Encoding{Gzip}, Limits{}, bad)
	if !bytes.HasPrefix(plain, out[:min(len(out), len(plain))]) && st&StatusCorrupt == 0 {
		t.Errorf("corrupt: status %#x", st)
	}
	checkNoWorkers(t)
}

// A 1 KiB -> 10 MiB bomb stops just past compression-bomb-limit (1 MiB) with
// compression_bomb, since 1 MiB is over 2048 times the input.
//
// One deflate layer expands at most ~1032 times, under libhtp's ratio of
// 2048, so the bomb is two gzip layers (about 1 KiB for 10 MiB).
func TestBomb(t *testing.T) {
	body := gz(t, gz(t, make([]byte, 10<<20)))
	if len(body) > 2<<10 {
		t.Fatalf("bomb too large: %d", len(body))
	}
	two := []Encoding{Gzip, Gzip}
	var d Decompressor
	out, st := run(&d, two, Limits{TimeLimit: time.Hour}, body)
	if st&StatusBomb == 0 || len(out) <= DefaultBombLimit || len(out) > DefaultBombLimit+chunkSize {
		t.Errorf("bomb: %d bytes out, status %#x", len(out), st)
	}
	// The same output with a permissive ratio is not a bomb.
	out, st = run(&d, two, Limits{BombRatio: 1 << 30, TimeLimit: time.Hour}, body)
	if st&StatusBomb != 0 || len(out) != 10<<20 {
		t.Errorf("no bomb: %d bytes out, status %#x", len(out), st)
	}
	// OutLimit stops earlier and without the event.
	out, st = run(&d, two, Limits{OutLimit: 4096}, body)
	if len(out) != 4096 || st != StatusOutLimit {
		t.Errorf("outlimit: %d %#x", len(out), st)
	}
	checkNoWorkers(t)
}

func TestTimeLimit(t *testing.T) {
	body := gz(t, sample(4<<20))
	var d Decompressor
	out, st := run(&d, []Encoding{Gzip}, Limits{TimeLimit: time.Nanosecond, BombRatio: 1 << 30}, body[:len(body)/2], body[len(body)/2:])
	if st&StatusTimeLimit == 0 {
		t.Errorf("time limit not reached: %#x", st)
	}
	// After the limit the rest of the body passes through as-is.
	if !bytes.HasSuffix(out, body[len(body)/2:]) {
		t.Errorf("second half not passed through")
	}
	checkNoWorkers(t)
}

func TestLayerLimit(t *testing.T) {
	plain := []byte("three layers deep")
	body := gz(t, gz(t, gz(t, plain)))
	layers, an := ParseContentEncodingLimit([]byte("gzip, gzip, gzip"), nil, 2)
	if len(layers) != 2 || an != AnomalyTooManyLayers {
		t.Fatalf("parse: %v %#x", layers, an)
	}
	var d Decompressor
	out, st := run(&d, []Encoding{Gzip, Gzip, Gzip}, Limits{}, body)
	if st&StatusTooManyLayers == 0 || !bytes.Equal(out, gz(t, plain)) {
		t.Errorf("layer limit: %q %#x", out, st)
	}
	out, st = run(&d, []Encoding{Gzip, Gzip, Gzip}, Limits{LayerLimit: 3}, body)
	if st != 0 || !bytes.Equal(out, plain) {
		t.Errorf("three layers: %q %#x", out, st)
	}
	checkNoWorkers(t)
}

func TestUnsupported(t *testing.T) {
	var d Decompressor
	out, st := run(&d, []Encoding{Brotli}, Limits{}, []byte("\x1b\x03"))
	if string(out) != "\x1b\x03" || st != StatusUnsupported {
		t.Errorf("br: %q %#x", out, st)
	}
}

// Reset in the middle of a body stops its workers.
func TestResetMidBody(t *testing.T) {
	body := gz(t, sample(100000))
	var d Decompressor
	d.Reset([]Encoding{Deflate, Gzip}, Limits{})
	d.Write(body[:100], func([]byte) {})
	d.Reset(nil, Limits{})
	checkNoWorkers(t)
}

// libhtp response_initialize_decompressors.
func TestParseContentEncoding(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Encoding
		an   Anomaly
	}{
		{"gzip", []Encoding{Gzip}, 0},
		{"X-GZIP", []Encoding{Gzip}, 0},
		{"g\x00zip", []Encoding{Gzip}, 0}, // cmp_nocase_nozero
		{"deflate", []Encoding{Deflate}, 0},
		{"x-deflate", []Encoding{Deflate}, 0},
		{"br", []Encoding{Brotli}, 0},
		{"lzma", []Encoding{Lzma}, 0},
		{"identity", nil, 0},
		{"none", nil, 0},
		{"inflate", nil, 0},
		{"gzip, deflate", []Encoding{Deflate, Gzip}, 0},
		{"deflate,gzip", []Encoding{Gzip, Deflate}, 0},
		{"GZIP, deflate", []Encoding{Deflate, Gzip}, AnomalyAbnormalCE}, // exact-case check in the list path
		{"xgzipx", []Encoding{Gzip}, AnomalyAbnormalCE},
		{"gzip, br", []Encoding{Gzip}, AnomalyAbnormalCE},
		{"identity, gzip", []Encoding{Gzip}, 0},
		{"foo", nil, AnomalyAbnormalCE},
		{"", nil, 0},
	} {
		got, an := ParseContentEncoding([]byte(tc.in), nil)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || an != tc.an {
			t.Errorf("%q: %v %#x, want %v %#x", tc.in, got, an, tc.want, tc.an)
		}
	}
}

// No allocation per chunk in steady state. (klauspost/compress/flate
// allocates when a dynamic block has codes longer than 9 bits, per block not
// per chunk; a small alphabet keeps the codes short here.)
func TestWriteAllocs(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	plain := make([]byte, 1<<20)
	for i := range plain {
		plain[i] = "abcdefghijklmnop"[r.Intn(16)]
	}
	body := gz(t, plain)
	var d Decompressor
	n := 0
	emit := func(p []byte) { n += len(p) }
	d.Reset([]Encoding{Gzip}, Limits{BombRatio: 1 << 30})
	d.Write(body[:1000], emit) // start the worker
	off := 1000
	allocs := testing.AllocsPerRun(200, func() {
		end := min(off+1400, len(body))
		d.Write(body[off:end], emit)
		off = end
	})
	d.Close(emit)
	if allocs > 0 {
		t.Errorf("allocations per Write: %v", allocs)
	}
}

func BenchmarkGunzip(b *testing.B) {
	plain := sample(1 << 20)
	body := gz(b, plain)
	var d Decompressor
	n := 0
	emit := func(p []byte) { n += len(p) }
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Reset([]Encoding{Gzip}, Limits{BombRatio: 1 << 30})
		for off := 0; off < len(body); off += 1460 {
			d.Write(body[off:min(off+1460, len(body))], emit)
		}
		d.Close(emit)
	}
}

// BenchmarkGunzipPull is the baseline: the same body through
// klauspost/compress/flate pulling from memory in one go, to show the cost of
// the push (lockstep worker) design.
func BenchmarkGunzipPull(b *testing.B) {
	plain := sample(1 << 20)
	body := gz(b, plain)
	buf := make([]byte, chunkSize)
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := bytes.NewReader(body[10+len("file.txt")+1:]) // skip the gzip header
		fr := kflate.NewReader(r)
		for {
			_, err := fr.Read(buf)
			if err != nil {
				break
			}
		}
	}
}

// gzMember builds a gzip member by hand: flags, optional header fields and a
// trailer that may be wrong, as libhtp's generate-gzip-tests.php does for its
// gunzip.rs tests.
func gzMember(flags, xfl byte, data []byte, badTrailer bool) []byte {
	h := []byte{0x1f, 0x8b, 0x08, flags, 0, 0, 0, 0, xfl, 3}
	if flags&4 != 0 {
		h = append(h, 5, 0, 'e', 'x', 't', 'r', 'a')
	}
	if flags&8 != 0 {
		h = append(h, "file1.txt\x00"...)
	}
	if flags&16 != 0 {
		h = append(h, "a comment\x00"...)
	}
	if flags&2 != 0 {
		h = append(h, 0x34, 0x12) // not the real header CRC
	}
	h = append(h, raw(data)...)
	if badTrailer {
		return append(h, 0xff, 0xff, 0xff, 0xff, 0x10, 0, 0, 0)
	}
	z := gz(nil, data)
	return append(h, z[len(z)-8:]...)
}

// libhtp test/gunzip.rs: GUnzip_Minimal, _FNAME, _FEXTRA, _FTEXT, _FCOMMENT,
// _FHCRC (even a wrong one: _InvalidHeaderCrc), _FRESERVED1-3,
// _InvalidExtraFlags, _InvalidCrc, _InvalidInputSize all give the text;
// _Multipart gives the first member only.
func TestLibhtpGunzip(t *testing.T) {
	text := []byte("The five boxing wizards jump quickly.")
	var d Decompressor
	for _, tc := range []struct {
		name       string
		flags, xfl byte
		bad        bool
	}{
		{"minimal", 0, 0, false}, {"fname", 8, 0, false}, {"fextra", 4, 0, false},
		{"ftext", 1, 0, false}, {"fcomment", 16, 0, false}, {"fhcrc", 2, 0, false},
		{"freserved1", 0x20, 0, false}, {"freserved2", 0x40, 0, false}, {"freserved3", 0x80, 0, false},
		{"invalid-xfl", 0, 0xff, false}, {"invalid-crc-isize", 0, 0, true}, {"all", 0x1e, 2, true},
	} {
		body := gzMember(tc.flags, tc.xfl, text, tc.bad)
		for split := 1; split < len(body); split += 3 {
			out, st := run(&d, []Encoding{Gzip}, Limits{}, body[:split], body[split:])
			if !bytes.Equal(out, text) || st != 0 {
				t.Fatalf("%s split %d: %q %#x", tc.name, split, out, st)
			}
		}
	}
	multi := append(gzMember(8, 0, text, false), gzMember(8, 0, []byte("The quick brown fox jumps over the lazy dog."), false)...)
	if out, st := run(&d, []Encoding{Gzip}, Limits{}, multi); !bytes.Equal(out, text) || st != 0 {
		t.Errorf("multipart: %q %#x", out, st)
	}
}
