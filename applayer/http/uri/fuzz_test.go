package uri

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// fuzzConfig builds a Config from one byte of flags and one of handling.
func fuzzConfig(a, b byte) Config {
	c := Default()
	c.ConvertBackslash = a&1 != 0
	c.DecodeSeparators = a&2 != 0
	c.CompressSeparators = a&4 != 0
	c.UEncodingDecode = a&8 != 0
	c.UTF8ConvertBestfit = a&16 != 0
	c.ConvertLowercase = a&32 != 0
	c.NulEncodedTerminates = a&64 != 0
	c.NulRawTerminates = a&128 != 0
	c.InvalidHandling = InvalidHandling(b % 3)
	c.DoubleDecodePath = b&4 != 0
	c.DoubleDecodeQuery = b&8 != 0
	c.PlusSpaceDecode = b&16 != 0
	c.IncludeAll = b&32 != 0
	return c
}

func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzNormalizeSeeds() {
		f.Add(s)
	}
	f.Fuzz(fuzzNormalize)
}

func fuzzNormalize(t *testing.T, in []byte) {
	if len(in) < 2 {
		return
	}
	c := fuzzConfig(in[0], in[1])
	raw := in[2:]
	var u URI
	Parse(raw, &u)
	var fl Flags
	out := c.Normalize(nil, &u, &fl)
	// Decoding never lengthens a part; the complete form adds at most "//"
	// after the scheme's ':' and the ':' of "user:@".
	if len(out) > len(raw)+3 {
		t.Fatalf("output %q longer than input %q", out, raw)
	}
	// Normalize appends: a prefix in dst is kept and the rest is the same.
	var fl2 Flags
	out2 := c.Normalize([]byte("prefix"), &u, &fl2)
	if !bytes.Equal(out2, append([]byte("prefix"), out...)) || fl2 != fl {
		t.Fatalf("append mismatch: %q vs %q", out2, out)
	}
	// With separator compression and no step after it that can make a '/'
	// (best-fit, double decoding) the path has no "//".
	if c.CompressSeparators && !c.UTF8ConvertBestfit && !c.DoubleDecodePath && u.Path != nil {
		var f3 Flags
		p := c.NormalizePath(nil, u.Path, &f3)
		if bytes.Contains(p, []byte("//")) {
			t.Fatalf("compressed path %q of %q has //", p, u.Path)
		}
	}
	// Dot-segment removal is idempotent.
	d := append([]byte(nil), raw...)
	d = d[:removeDotSegments(d)]
	e := append([]byte(nil), d...)
	if e = e[:removeDotSegments(e)]; !bytes.Equal(d, e) {
		t.Fatalf("dot segments not idempotent: %q -> %q -> %q", raw, d, e)
	}
	var h URI
	ParseHostPort(raw, &h)
	_ = NormalizeHostname(nil, h.Hostname)
}

// fuzzNormalizeSeeds are the checked-in seeds (testdata/fuzz/FuzzNormalize,
// written by TestWriteFuzzNormalizeSeeds): the libhtp test inputs under the
// IDS personality bits and a few configurations.
func fuzzNormalizeSeeds() map[string][]byte {
	ids := []byte{0x1f, 0x00}
	seeds := map[string][]byte{}
	for i, s := range []string{
		"http://user:pass@www.example.com:1234/path1/path2?a=b&c=d#frag",
		"/evil%2527sqli", "/uri afterspace", "/a/b/c/./../../g", "/%u0000ABC",
		"/one%2ftwo\\three//four", "/\xf0\x90\x28\xbc", "http://[::1]:80/x?%zz#%00",
		"/%uff0e%uff0e/%c0%af", "http://h:/x", "://", "*",
	} {
		seeds[fmt.Sprintf("ids-%02d", i)] = append(append([]byte{}, ids...), s...)
	}
	seeds["all-on"] = append([]byte{0xff, 0x3e}, "/%2e%2e/%252f%u002f?x=%2541+1#%41"...)
	seeds["remove"] = append([]byte{0x00, 0x01}, "/%x%u12%"...)
	seeds["decode-invalid"] = append([]byte{0x08, 0x02}, "/%zz%uzzzz"...)
	return seeds
}

// TestWriteFuzzNormalizeSeeds checks that every seed is checked in under
// testdata/fuzz/FuzzNormalize (Go's corpus format); MEERKAT_WRITE_SEEDS=1
// writes them.
func TestWriteFuzzNormalizeSeeds(t *testing.T) {
	checkSeeds(t, "FuzzNormalize", fuzzNormalizeSeeds())
}

func checkSeeds(t *testing.T, fuzzName string, seeds map[string][]byte) {
	dir := filepath.Join("testdata", "fuzz", fuzzName)
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
