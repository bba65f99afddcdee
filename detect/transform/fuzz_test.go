package transform

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// fuzzSpecs are the transforms FuzzChain picks from (one byte each).
var fuzzSpecs = append(append([]string{}, allSpecs...),
	"from_base64=bytes 8, offset 2", "from_base64=offset 1, mode rfc2045", "gunzip=max-size 64kb",
	"zlib_deflate=max-size 10", `pcrexform="(?:(a+)+)+$"`, `pcrexform="([^\x00]*)\x00"`, `xor="ff"`)

// bound is the most bytes step spec can produce from n (Suricata's output sizes: one more for
// dotprefix, the digest for hashes, max-size for decompression, at most the input otherwise).
func bound(spec string, n int) int {
	if n == 0 {
		return 0
	}
	c := mustChainNoT(spec)
	switch x := c.steps[0].(type) {
	case dotprefixX:
		return n + 1
	case hashX:
		return 32
	case decompressX:
		return x.maxSize
	}
	return n
}

func mustChainNoT(spec string) *Chain {
	c, err := Compile(parseOpts(nil, spec))
	if err != nil {
		panic(err)
	}
	return c
}

// decodeFuzz splits a fuzz input: the first byte's low nibble is the chain length (up to
// 15), the next bytes pick transforms, the rest is the buffer.
func decodeFuzz(data []byte) ([]string, []byte) {
	if len(data) == 0 {
		return nil, nil
	}
	n := int(data[0] & 0x0f)
	data = data[1:]
	var specs []string
	for i := 0; i < n && len(data) > 0; i++ {
		specs = append(specs, fuzzSpecs[int(data[0])%len(fuzzSpecs)])
		data = data[1:]
	}
	return specs, data
}

func FuzzChain(f *testing.F) {
	seeds := fuzzSeeds()
	for _, name := range sortedKeys(seeds) {
		f.Add(seeds[name])
	}
	old := PcrexformMatchTimeout
	PcrexformMatchTimeout = 5 * time.Millisecond
	defer func() { PcrexformMatchTimeout = old }()
	chains := map[string]*Chain{}
	s := NewScratch()
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, buf := decodeFuzz(data)
		key := fmt.Sprint(specs)
		c := chains[key]
		if c == nil {
			c = mustChain(t, specs...)
			chains[key] = c
		}
		orig := append([]byte(nil), buf...)
		got := c.Apply(buf, s)
		if !bytes.Equal(buf, orig) {
			t.Fatal("Apply modified its input")
		}
		// Bounded output, and the chain is its steps one after another.
		cur, lim := orig, len(orig)
		for _, sp := range specs {
			lim = bound(sp, lim)
			cur = append([]byte(nil), mustChain(t, sp).Apply(cur, s)...)
		}
		if len(got) > lim {
			t.Fatalf("%q: %d bytes out of %d, bound %d", specs, len(got), len(orig), lim)
		}
		// (A regexp2 timeout, on the backtracking pattern, is not deterministic.)
		if !bytes.Equal(got, cur) && !strings.Contains(key, "(a+)+") {
			t.Fatalf("%q: chain %q, steps %q", specs, got, cur)
		}
		if len(orig) == 0 && len(got) != 0 {
			t.Fatalf("%q: empty buffer became %q", specs, got)
		}
		// Results live until Reset, through other Applies.
		keep := append([]byte(nil), got...)
		mustChain(t, "dotprefix").Apply(bytes.Repeat([]byte("x"), 5000), s)
		if !bytes.Equal(got, keep) && !sameSlice(got, buf) {
			t.Fatalf("result changed before Reset")
		}
		s.Reset()
	})
}

func sortedKeys(m map[string][]byte) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// pick returns the fuzz selector byte of spec.
func pick(spec string) byte {
	for i, s := range fuzzSpecs {
		if s == spec {
			return byte(i)
		}
	}
	panic(spec)
}

func seed(buf []byte, specs ...string) []byte {
	b := []byte{byte(len(specs))}
	for _, s := range specs {
		b = append(b, pick(s))
	}
	return append(b, buf...)
}

func fuzzSeeds() map[string][]byte {
	return map[string][]byte{
		"lower-dotprefix": seed([]byte("WWW.Example.COM"), "to_lowercase", "dotprefix"),
		"domain-tld":      seed([]byte("a.b.bbc.co.uk."), "domain", "tld"),
		"ws":              seed([]byte(" a \t\r\n b  c "), "compress_whitespace", "strip_whitespace"),
		"urldecode-b64":   seed([]byte("Zm9v%59%6&+%"), "url_decode", "from_base64", "from_base64=mode rfc2045"),
		"strict":          seed([]byte("Zm9vYmFy"), "from_base64=mode strict", "to_sha256", "to_md5", "to_sha1"),
		"gzip":            seed(gz(nil, bytes.Repeat([]byte("ab"), 100)), "gunzip", "zlib_deflate=max-size 10"),
		"zlib":            seed(zl(nil, []byte("Zm9vYmFy")), "zlib_deflate", "from_base64"),
		"headers":         seed([]byte("A: B\n:path: /\nC:D"), "header_lowercase", "strip_pseudo_headers"),
		"pcre":            seed([]byte("xa\xffb\x00rest"), `pcrexform="a(.)"`, `pcrexform="([^\x00]*)\x00"`, `xor="0a0DC8ff"`),
		"pcre-backtrack":  seed(bytes.Repeat([]byte("a"), 30), `pcrexform="(?:(a+)+)+$"`),
		"empty":           seed(nil, "dotprefix", "to_md5"),
		"b64-offset":      seed([]byte("..Zm9vYmFyYmF6"), "from_base64=bytes 8, offset 2", "from_base64=offset 1, mode rfc2045"),
	}
}

// TestWriteFuzzSeeds checks the checked-in corpus of FuzzChain (MEERKAT_WRITE_SEEDS=1 writes
// it).
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzChain")
	seeds := fuzzSeeds()
	for _, name := range sortedKeys(seeds) {
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
