package ja

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// FuzzHello: any hello body, parsed by the test's cryptobyte parser, gives fingerprints without
// panicking, a 36-byte JA4 and JA3/JA3S strings bounded by the lists.
func FuzzHello(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	var h Hello
	buf := make([]byte, 0, 1024)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		client := in[0]&1 == 0
		_ = parseHello(in[1:], client, &h)
		if n := len(JA4(buf[:0], &h)); n != JA4Len {
			t.Fatalf("JA4 length %d", n)
		}
		n := len(h.Ciphers) + len(h.Extensions) + len(h.Groups) + len(h.ECPointFormats)
		if l := len(JA3(buf[:0], &h)); l > 6*n+10 {
			t.Fatalf("JA3 %d bytes for %d values", l, n)
		}
		_ = JA3S(buf[:0], &h)
		_ = MD5Hex(buf[:0], in)
		_ = VersionString(buf[:0], h.Version)
	})
}

// fuzzSeeds are the checked-in seeds (testdata/fuzz/FuzzHello, written by TestWriteFuzzSeeds):
// the FoxIO Chrome ClientHello and a ServerHello, first byte 0 = client, 1 = server.
func fuzzSeeds() map[string][]byte {
	ch := append([]byte{0}, clientHelloBody(foxioChrome())...)
	sh := []byte{1, 3, 3}
	sh = append(sh, make([]byte, 32)...)
	sh = append(sh, 0, 0xc0, 0x2f, 0, 0, 9, 0xff, 0x01, 0, 1, 0, 0, 0x2b, 0, 2, 3, 4)
	return map[string][]byte{"chrome-client-hello": ch, "server-hello": sh, "truncated": ch[:50]}
}

// TestWriteFuzzSeeds checks that every seed is checked in under testdata/fuzz/FuzzHello (Go's
// corpus format); MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzHello")
	seeds := fuzzSeeds()
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
			t.Errorf("seed %s missing or stale (run with MEERKAT_WRITE_SEEDS=1): %v", name, err)
		}
	}
}
