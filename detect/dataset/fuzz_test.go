package dataset

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// fuzzSeeds are the checked-in seeds of FuzzLoad (testdata/fuzz/FuzzLoad, written by
// TestWriteFuzzSeeds): the first byte picks the type, the rest is a load file.
func fuzzSeeds() map[string][]byte {
	return map[string][]byte{
		"string-rep": append([]byte{byte(String)}, "Y2xpZW50LWNmLmRyb3Bib3guY29t,255\nYmxvY2suZHJvcGJveC5jb20=,255\n"...),
		"string":     append([]byte{byte(String)}, "YQ==\nYg==\n\n"...),
		"mixed":      append([]byte{byte(String)}, "YQ==\nYg==,1\n"...),
		"md5":        append([]byte{byte(MD5)}, "d41d8cd98f00b204e9800998ecf8427e,3\nzz,1\n"...),
		"sha256":     append([]byte{byte(SHA256)}, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"...),
		"ipv4":       append([]byte{byte(IPv4)}, "10.0.0.1,1\n192.168.1.300,2\n"...),
		"ipv6":       append([]byte{byte(IPv6)}, "::ffff:10.0.0.1\n2001:db8::1\n"...),
	}
}

// FuzzLoad: any load file loads or fails without panic, the set stays within its memcap,
// and every loaded key is found again.
func FuzzLoad(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		typ := Type(in[0]%5) + String
		s := &Set{Name: "f", Type: typ, Memcap: 4096, m: map[string]uint16{}}
		if err := s.load(bytes.NewReader(in[1:])); err != nil {
			return
		}
		if s.used > s.Memcap {
			t.Fatalf("used %d > memcap %d", s.used, s.Memcap)
		}
		for k, v := range s.m {
			if rep, ok := s.Lookup([]byte(k)); !ok || rep != v {
				t.Fatalf("key %q not found again", k)
			}
		}
	})
}

// TestWriteFuzzSeeds checks that every seed is checked in under testdata/fuzz/FuzzLoad (Go's
// corpus format); MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
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
			t.Errorf("seed %s not checked in (MEERKAT_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds)", name)
		}
	}
}
