package cert

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// FuzzDecodeCert: Decode never panics, its work and output are bounded by the input (every
// output byte comes from formatting at most a few bytes per input byte), and a warm Cert gives
// the same result as a fresh one.
func FuzzDecodeCert(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	var warm Cert
	f.Fuzz(func(t *testing.T, der []byte) {
		var c Cert
		err := Decode(der, &c)
		werr := Decode(der, &warm)
		if (err == nil) != (werr == nil) {
			t.Fatalf("warm/cold differ: %v / %v", err, werr)
		}
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("error type %T", err)
			}
			return
		}
		limit := 8*len(der) + 64
		total := len(c.Subject) + len(c.Issuer) + len(c.Serial)
		for _, s := range c.SANs {
			total += len(s)
		}
		if total > limit {
			t.Fatalf("output %d bytes for %d input bytes", total, len(der))
		}
		if !bytes.Equal(c.Subject, warm.Subject) || !bytes.Equal(c.Issuer, warm.Issuer) ||
			len(c.SANs) != len(warm.SANs) || c.NotAfter != warm.NotAfter {
			t.Fatal("warm Cert differs")
		}
		_ = FormatTime(nil, c.NotBefore)
	})
}

// fuzzSeeds are the checked-in seeds (testdata/fuzz/FuzzDecodeCert, written by
// TestWriteFuzzSeeds): the constructed certificates of the table tests, valid and broken.
func fuzzSeeds() map[string][]byte {
	seeds := map[string][]byte{}
	p := defaults()
	seeds["plain"] = p.der()
	p.exts = extsWith(sanExt(tl(0x82, []byte("a.example")), tl(0x87, []byte{10, 0, 0, 1}), tl(0xa4, sq(set(atv(oidCN, 0x0c, "d")))),
		tl(0xa0, oidTLV("2b0601"), tl(0xa0, []byte{0x0c, 0x01, 'x'})), tl(0x88, []byte{0x2a, 0x03})))
	seeds["sans"] = p.der()
	p = defaults()
	p.subject = sq(set(atv(oidOU, 0x0c, "a"), atv(oidCN, 0x0c, "b")), set(sq(oidTLV(oidCN), tl(0x1e, []byte{0, 'h'}))),
		set(atv("2a0304", 0x13, "x\x00y")), set(sq(oidTLV(oidCN), tl(0x04, []byte{0xde, 0xad}))))
	p.validity = sq(tl(0x18, []byte("19691231000000Z")), tl(0x17, []byte("700101010000+0100")))
	seeds["names-dates"] = p.der()
	p = defaults()
	p.exts = extsWith(sq(tl(0x04, nil)))
	seeds["bad-extension"] = p.der()
	p = defaults()
	p.version = tl(0xa0, []byte{0x02, 0x01, 0xff})
	seeds["bad-version"] = p.der()
	seeds["truncated"] = defaults().der()[:60]
	return seeds
}

// TestWriteFuzzSeeds checks that every seed is checked in under testdata/fuzz/FuzzDecodeCert
// (Go's corpus format); MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecodeCert")
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
