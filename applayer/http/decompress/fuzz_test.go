package decompress

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

func FuzzDecompress(f *testing.F) {
	for _, s := range fuzzDecompressSeeds() {
		f.Add(s)
	}
	f.Fuzz(fuzzDecompress)
}

// fuzzDecompress: in[0] picks the layers, in[1] the chunk size, the rest is
// the body. No panic, bounded output, no worker left behind, and the output
// does not depend on how the body is split when it decodes cleanly.
func fuzzDecompress(t *testing.T, in []byte) {
	if len(in) < 2 {
		return
	}
	var layers []Encoding
	for i := 0; i < 3; i++ {
		if e := Encoding(in[0] >> (2 * i) & 3); e != None {
			layers = append(layers, e)
		}
	}
	step := int(in[1]%64) + 1
	body := in[2:]
	lim := Limits{LayerLimit: 3, OutLimit: 4 << 20, TimeLimit: time.Hour}
	var d Decompressor
	var chunks [][]byte
	for rest := body; len(rest) > 0; {
		k := min(step, len(rest))
		chunks = append(chunks, rest[:k])
		rest = rest[k:]
	}
	out, st := run(&d, layers, lim, chunks...)
	if uint64(len(out)) > lim.OutLimit {
		t.Fatalf("output %d past the limit", len(out))
	}
	if len(layers) == 0 && !bytes.Equal(out, body) {
		t.Fatalf("no layers but output differs")
	}
	if st&(StatusPassthrough|StatusCorrupt|StatusTruncated|StatusBomb|StatusOutLimit) == 0 {
		one, st1 := run(&d, layers, lim, body)
		if !bytes.Equal(one, out) || st1 != st {
			t.Fatalf("split by %d: %d bytes %#x, one-shot %d bytes %#x", step, len(out), st, len(one), st1)
		}
	}
	if n := LiveWorkers(); n != 0 {
		// Workers exit asynchronously after their last message; give them a
		// moment.
		for i := 0; i < 100 && LiveWorkers() != 0; i++ {
			time.Sleep(time.Millisecond)
		}
		if n := LiveWorkers(); n != 0 {
			t.Fatalf("%d workers left", n)
		}
	}
}

// fuzzDecompressSeeds are the checked-in seeds (testdata/fuzz/FuzzDecompress,
// written by TestWriteFuzzDecompressSeeds).
func fuzzDecompressSeeds() map[string][]byte {
	plain := []byte("<html><body>Meerkat fuzz seed body, repeated repeated repeated.</body></html>")
	seeds := map[string][]byte{
		"gzip":         append([]byte{byte(Gzip), 7}, gz(nil, plain)...),
		"zlib":         append([]byte{byte(Deflate), 3}, zl(plain)...),
		"raw":          append([]byte{byte(Deflate), 63}, raw(plain)...),
		"two-layers":   append([]byte{byte(Deflate) | byte(Gzip)<<2, 1}, raw(gz(nil, plain))...),
		"clear-text":   append([]byte{byte(Gzip), 5}, plain...),
		"truncated":    append([]byte{byte(Gzip), 9}, gz(nil, plain)[:20]...),
		"header-flags": append([]byte{byte(Gzip), 2}, "\x1f\x8b\x08\x1e\x00\x00\x00\x00\x00\x00\x05\x00extrafilename\x00comment\x00\x34\x12\x03\x00"...),
		"none":         append([]byte{0, 0}, plain...),
		"brotli":       append([]byte{byte(Brotli), 4}, plain...),
	}
	return seeds
}

// TestWriteFuzzDecompressSeeds checks that every seed is checked in under
// testdata/fuzz/FuzzDecompress (Go's corpus format); MEERKAT_WRITE_SEEDS=1
// writes them.
func TestWriteFuzzDecompressSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecompress")
	seeds := fuzzDecompressSeeds()
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seeds[name])
		if os.Getenv("MEERKAT_WRITE_SEEDS") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("seed %s not checked in (run with MEERKAT_WRITE_SEEDS=1): %v", path, err)
		}
	}
}
