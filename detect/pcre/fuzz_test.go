package pcre

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// FuzzFind compiles a pattern (with options) and runs Find and Group on a subject: no panic,
// and every reported span lies inside the subject, after the start offset. The input is: an
// options byte (bit i sets the i-th Options field), the pattern's length, the pattern, a start
// offset byte, the subject.
func FuzzFind(f *testing.F) {
	seeds := fuzzSeeds()
	for _, name := range sortedKeys(seeds) {
		f.Add(seeds[name])
	}
	lim := Limits{Match: 5 * time.Millisecond, Budget: 20 * time.Millisecond}
	var s Scratch
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 3 {
			return
		}
		ob, n := in[0], int(in[1])
		in = in[2:]
		if n > len(in)-1 {
			return
		}
		pat, start, subj := string(in[:n]), int(in[n]), in[n+1:]
		o := Options{Caseless: ob&1 != 0, Multiline: ob&2 != 0, DotAll: ob&4 != 0, Extended: ob&8 != 0,
			Anchored: ob&16 != 0, DollarEndOnly: ob&32 != 0, Ungreedy: ob&64 != 0, Groups: ob&128 != 0}
		r, err := Compile(pat, o)
		if err != nil {
			return
		}
		s.Spent = 0
		b, e, res := r.Find(subj, start, true, lim, &s)
		if res == Match && (b < start || e < b || e > len(subj)) {
			t.Fatalf("/%s/ %+v from %d on %q: [%d,%d)", pat, o, start, subj, b, e)
		}
		if res == BadOffset && start <= len(subj) {
			t.Fatalf("BadOffset for %d in %d bytes", start, len(subj))
		}
		for g := 0; g <= r.NumGroups() && g < 3; g++ {
			b, e, res := r.Group(subj, g, lim, &s)
			if res == Match && b != -1 && (b < 0 || e < b || e > len(subj)) || res == Match && b == -1 && e != -1 {
				t.Fatalf("/%s/ %+v group %d on %q: [%d,%d)", pat, o, g, subj, b, e)
			}
		}
	})
}

// fuzzSeeds are the checked-in seeds (testdata/fuzz/FuzzFind, written by TestWriteFuzzSeeds):
// each translator branch and both engines, high bytes, a final newline, a start offset, and a
// catastrophic expression.
func fuzzSeeds() map[string][]byte {
	seed := func(o byte, pat string, start byte, subj string) []byte {
		return append(append([]byte{o, byte(len(pat))}, pat...), append([]byte{start}, subj...)...)
	}
	return map[string][]byte{
		"go":            seed(0, `[a-zA-Z]+\s+(.*)\s+HTTP`, 0, "GET /x HTTP/1.1"),
		"high-bytes":    seed(1, `\xff(.)[\x80-\xfe]`, 1, "a\xff\xe9\x80z"),
		"dollar":        seed(0, `(\w+)$`, 0, "foo bar\n"),
		"dollar-groups": seed(128, `([a-z\n]*?)$`, 0, "ab\n"),
		"caret-offset":  seed(2, `^b`, 2, "a\nb"),
		"anchored":      seed(16|64, `(b)\1+?`, 1, "abbb"),
		"backref":       seed(0, `(?P<q>[\x22\x27])x(?P=q)\g{1}`, 0, `a"x""`),
		"lookaround":    seed(4, `(?<=a)(\d+)(?=px)`, 0, "a12px"),
		"extended":      seed(8, "a b # c\n(c)", 0, "abc"),
		"quote-octal":   seed(0, `\Qa.b\E\012\x{41}\0`, 0, "a.b\nA\x00"),
		"catastrophic":  seed(0, `^(a+)+\1c`, 0, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"),
		"bad-offset":    seed(0, `a`, 9, "ab"),
	}
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestWriteFuzzSeeds checks that every seed is checked in under testdata/fuzz/FuzzFind (Go's
// corpus format); MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzFind")
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
			t.Errorf("seed %s is not checked in (run with MEERKAT_WRITE_SEEDS=1): %v", name, err)
		}
	}
}
