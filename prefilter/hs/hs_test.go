package hs

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// scanIDs compiles nothing: it scans data and returns the sorted IDs.
func scanIDs(t *testing.T, s *Scanner, db *Database, data []byte) []uint32 {
	t.Helper()
	out := make([]uint32, db.MaxMatches()+1)
	n, err := s.Scan(db, data, out)
	if err != nil {
		t.Fatalf("Scan(%q): %v", data, err)
	}
	ids := slices.Clone(out[:n])
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatalf("Scan(%q) reported an ID twice: %v", data, out[:n])
	}
	return ids
}

func mustCompile(t testing.TB, ps []Pattern) (*Database, *Scanner) {
	t.Helper()
	db, err := Compile(ps, Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	s, err := NewScanner(db)
	if err != nil {
		t.Fatalf("NewScanner: %v", err)
	}
	return db, s
}

func p(id uint32, b string) Pattern  { return Pattern{ID: id, Bytes: []byte(b)} }
func pi(id uint32, b string) Pattern { return Pattern{ID: id, Bytes: []byte(b), Nocase: true} }

func TestScanTable(t *testing.T) {
	metas := []string{".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "\\", "^", "$", ".*", "a.c",
		"(a|b)", "[ab]", "x{2}", "^start", "end$", "\\x41", "\\d", "a+b?"}
	type scan struct {
		data string
		want []uint32
	}
	cases := []struct {
		name     string
		patterns []Pattern
		scans    []scan
	}{
		{"nul and high bytes", []Pattern{p(1, "\x00"), p(2, "a\x00b"), p(3, "\xff\xfe"), p(4, "\x80"), pi(5, "\x00X\xff")},
			[]scan{
				{"a\x00b", []uint32{1, 2}},
				{"\xff\xfe\x80", []uint32{3, 4}},
				{"\x00x\xff", []uint32{1, 5}},
				{"ab\xfe\xff", nil},
			}},
		{"case", []Pattern{p(1, "ABC"), pi(2, "DeF"), p(3, "g1-H")},
			[]scan{
				{"ABC", []uint32{1}},
				{"abc", nil},
				{"aBc", nil},
				{"def", []uint32{2}},
				{"DEF", []uint32{2}},
				{"dEf", []uint32{2}},
				{"g1-H", []uint32{3}},
				{"G1-h", nil},
			}},
		{"nocase is ascii only", []Pattern{pi(1, "\xc4"), pi(2, "k"), pi(3, "[")},
			[]scan{
				{"\xe4", nil},
				{"\xc4", []uint32{1}},
				{"\xe2\x84\xaa", nil}, // KELVIN SIGN
				{"K", []uint32{2}},
				{"{", nil},
				{"[", []uint32{3}},
			}},
		{"same bytes in two cases", []Pattern{p(1, "Abc"), pi(2, "Abc")},
			[]scan{
				{"Abc", []uint32{1, 2}},
				{"abc", []uint32{2}},
				{"ABC", []uint32{2}},
			}},
		{"overlapping", []Pattern{p(1, "abc"), p(2, "bcd"), p(3, "cde"), p(4, "aa"), p(5, "abcde"), p(6, "e")},
			[]scan{
				{"abcde", []uint32{1, 2, 3, 5, 6}},
				{"aaaa", []uint32{4}},
				{"xabcdx", []uint32{1, 2}},
				{"ab", nil},
			}},
		{"shared ids", []Pattern{p(7, "foo"), p(7, "bar"), pi(7, "BAZ"), p(8, "bar")},
			[]scan{
				{"foo bar baz", []uint32{7, 8}},
				{"foofoofoo", []uint32{7}},
				{"baz", []uint32{7}},
				{"qux", nil},
			}},
		{"boundaries", []Pattern{p(1, "start"), p(2, "end"), p(3, "whole buffer"), p(0, "zero"), p(1<<32-1, "maxid")},
			[]scan{
				{"start...end", []uint32{1, 2}},
				{"zero maxid", []uint32{0, 1<<32 - 1}},
				{"whole buffer", []uint32{3}},
				{"whole buffe", nil},
				{"s", nil},
			}},
		{"duplicates merged", []Pattern{p(1, "dup"), p(1, "dup"), p(1, "dup")},
			[]scan{{"dup dup", []uint32{1}}}},
	}
	var metaPatterns []Pattern
	var metaScans []scan
	for i, m := range metas {
		metaPatterns = append(metaPatterns, p(uint32(100+i), m))
	}
	for _, m := range metas {
		// Each metacharacter pattern matches only its own literal text (and the shorter
		// metacharacter patterns it contains).
		var want []uint32
		for j, o := range metas {
			if strings.Contains(m, o) {
				want = append(want, uint32(100+j))
			}
		}
		metaScans = append(metaScans, scan{"<" + m + ">", want})
	}
	metaScans = append(metaScans, scan{"abc xx start end A 1 ab", nil})
	cases = append(cases, struct {
		name     string
		patterns []Pattern
		scans    []scan
	}{"regex metacharacters are literal", metaPatterns, metaScans})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := mustCompile(t, c.patterns)
			for _, sc := range c.scans {
				got := scanIDs(t, s, db, []byte(sc.data))
				want := slices.Clone(sc.want)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("scan %q: got %v, want %v", sc.data, got, want)
				}
				// The brute-force reference agrees with the table.
				if ref := reference(c.patterns, []byte(sc.data)); !slices.Equal(ref, want) {
					t.Errorf("scan %q: reference %v, table %v", sc.data, ref, want)
				}
			}
		})
	}
}

func TestEmptyAndNil(t *testing.T) {
	db, err := Compile(nil, Options{})
	if db != nil || err != nil {
		t.Fatalf("Compile(nil) = %v, %v; want nil, nil", db, err)
	}
	if db.Len() != 0 || db.MaxMatches() != 0 || db.Size() != 0 || db.Close() != nil {
		t.Fatal("nil Database methods")
	}
	s, err := NewScanner(nil, db)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, 4)
	if n, err := s.Scan(db, []byte("anything"), out); n != 0 || err != nil {
		t.Fatalf("Scan(nil db) = %d, %v", n, err)
	}
	var nilScanner *Scanner
	if n, err := nilScanner.Scan(nil, []byte("x"), out); n != 0 || err != nil {
		t.Fatalf("nil Scanner, nil db = %d, %v", n, err)
	}
	real, rs := mustCompile(t, []Pattern{p(1, "x")})
	for _, data := range [][]byte{nil, {}} {
		if n, err := rs.Scan(real, data, out); n != 0 || err != nil {
			t.Fatalf("Scan(empty data) = %d, %v", n, err)
		}
	}
	if n, err := rs.Scan(real, []byte("x"), nil); n != 0 || !errors.Is(err, ErrOverflow) {
		t.Fatalf("Scan(nil out) with a match = %d, %v; want 0, ErrOverflow", n, err)
	}
	if n, err := rs.Scan(real, []byte("y"), nil); n != 0 || err != nil {
		t.Fatalf("Scan(nil out) without match = %d, %v", n, err)
	}
	if n, err := nilScanner.Scan(real, []byte("x"), out); n != 0 || !errors.Is(err, ErrNoScratch) {
		t.Fatalf("nil Scanner = %d, %v; want ErrNoScratch", n, err)
	}
	// A scanner without scratch for this database gets an error, never a crash.
	if n, err := s.Scan(real, []byte("x"), out); n != 0 || !errors.Is(err, ErrNoScratch) {
		t.Fatalf("empty Scanner = %d, %v; want ErrNoScratch", n, err)
	}
	rs.Close()
	rs.Close()
	if _, err := rs.Scan(real, []byte("x"), out); !errors.Is(err, ErrNoScratch) {
		t.Fatalf("closed Scanner: %v", err)
	}
	real.Close()
	real.Close()
	if n, err := rs.Scan(real, []byte("x"), out); n != 0 || err != nil {
		t.Fatalf("closed Database = %d, %v", n, err)
	}
}

func TestOverflow(t *testing.T) {
	var ps []Pattern
	for i := range 5 {
		ps = append(ps, p(uint32(i), string(rune('a'+i))))
	}
	db, s := mustCompile(t, ps)
	if db.MaxMatches() != 5 || db.Len() != 5 {
		t.Fatalf("MaxMatches %d Len %d", db.MaxMatches(), db.Len())
	}
	data := []byte("edcba")
	for _, size := range []int{0, 1, 3, 4} {
		out := make([]uint32, size)
		n, err := s.Scan(db, data, out)
		if n != size || !errors.Is(err, ErrOverflow) {
			t.Errorf("out[%d]: n=%d err=%v; want %d, ErrOverflow", size, n, err, size)
		}
		// Reported in match order: the first size matches.
		for i := range n {
			if want := uint32(4 - i); out[i] != want {
				t.Errorf("out[%d][%d] = %d, want %d", size, i, out[i], want)
			}
		}
	}
	for _, size := range []int{5, 6} {
		out := make([]uint32, size)
		if n, err := s.Scan(db, data, out); n != 5 || err != nil {
			t.Errorf("out[%d]: n=%d err=%v", size, n, err)
		}
	}
	// Exactly full is not an overflow; one more match is.
	out := make([]uint32, 2)
	if n, err := s.Scan(db, []byte("ab"), out); n != 2 || err != nil {
		t.Errorf("exactly full: n=%d err=%v", n, err)
	}
}

func TestCompileErrors(t *testing.T) {
	_, err := Compile([]Pattern{p(1, "ok"), {ID: 42, Bytes: nil}}, Options{})
	var ce *CompileError
	if !errors.As(err, &ce) || ce.ID != 42 || !strings.Contains(err.Error(), "id 42") {
		t.Fatalf("empty pattern: %v", err)
	}
	long := Pattern{ID: 4711, Bytes: bytes.Repeat([]byte{0xfe}, 20000), Nocase: true}
	_, err = Compile([]Pattern{p(1, "a"), long, p(2, "b")}, Options{})
	if !errors.As(err, &ce) || ce.ID != 4711 || !ce.Nocase || !strings.Contains(err.Error(), "id 4711") {
		t.Fatalf("overlong pattern: %v", err)
	}
	t.Log(err)
	// The index that Hyperscan reports maps to the ID of the sorted pattern list.
	ps := []Pattern{p(3, "c"), p(9, "z")}
	_, err = Compile(append(ps, Pattern{ID: 77, Bytes: bytes.Repeat([]byte("m"), 20000)}), Options{})
	if !errors.As(err, &ce) || ce.ID != 77 {
		t.Fatalf("middle pattern: %v", err)
	}
}

func TestHugePayload(t *testing.T) {
	db, s := mustCompile(t, []Pattern{p(1, "needle"), pi(2, "HAYSTACK-END"), p(3, "absent")})
	data := bytes.Repeat([]byte("hay "), 16<<20) // 64 MiB
	copy(data[len(data)/2:], "needle")
	copy(data[len(data)-12:], "haystack-end")
	if got := scanIDs(t, s, db, data); !slices.Equal(got, []uint32{1, 2}) {
		t.Fatalf("got %v", got)
	}
}

func TestScannerGrowClone(t *testing.T) {
	small, _ := mustCompile(t, []Pattern{p(1, "a")})
	big, _ := mustCompile(t, etOrSynthetic(t, 2000))
	s, err := NewScanner(small)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, big.MaxMatches())
	before := s.Size()
	// Scratch too small for big: Hyperscan refuses, nothing crashes.
	if _, err := s.Scan(big, []byte("GET / HTTP/1.1"), out); !errors.Is(err, ErrInvalid) {
		t.Fatalf("scan with too small scratch: %v, want ErrInvalid", err)
	}
	if err := s.Grow(big); err != nil {
		t.Fatal(err)
	}
	t.Logf("scratch: %d bytes for 1 pattern, %d after growing for %d patterns (db %d bytes)",
		before, s.Size(), big.Len(), big.Size())
	if _, err := s.Scan(big, []byte("GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n"), out); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Scan(small, []byte("aaa"), out); n != 1 || err != nil {
		t.Fatalf("small after grow: %d %v", n, err)
	}
	// Concurrent workers with cloned scratch.
	var wg sync.WaitGroup
	for w := range 8 {
		c, err := s.Clone()
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			out := make([]uint32, big.MaxMatches())
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			buf := make([]byte, 1500)
			for range 200 {
				for i := range buf {
					buf[i] = byte('a' + rng.IntN(26))
				}
				if _, err := c.Scan(big, buf, out); err != nil {
					t.Error(err)
					return
				}
				if n, err := c.Scan(small, buf, out); err != nil || n != 1 {
					t.Error(n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// etOrSynthetic returns n ET patterns, or n synthetic ones when the corpus is missing.
func etOrSynthetic(t testing.TB, n int) []Pattern {
	if etRulesDir() != "" {
		return etPatterns(t, n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ps := make([]Pattern, n)
	for i := range ps {
		b := make([]byte, 4+rng.IntN(20))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		ps[i] = Pattern{ID: uint32(i), Bytes: b, Nocase: rng.IntN(2) == 0}
	}
	return ps
}

func asciiUpper(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// reference is the brute-force matcher: the sorted set of IDs whose pattern occurs in data.
func reference(ps []Pattern, data []byte) []uint32 {
	lower := asciiLower(data)
	var ids []uint32
	for _, p := range ps {
		if len(p.Bytes) == 0 {
			continue
		}
		if p.Nocase && bytes.Contains(lower, asciiLower(p.Bytes)) ||
			!p.Nocase && bytes.Contains(data, p.Bytes) {
			ids = append(ids, p.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func TestPropertyAgainstBruteForce(t *testing.T) {
	alphabets := [][]byte{
		[]byte("aAbB"),
		[]byte("aAbB\x00\xff.*\\|("),
		func() []byte {
			b := make([]byte, 256)
			for i := range b {
				b[i] = byte(i)
			}
			return b
		}(),
	}
	rng := rand.New(rand.NewPCG(42, 7))
	rounds := 40
	if testing.Short() {
		rounds = 15
	}
	for round := range rounds {
		alpha := alphabets[round%len(alphabets)]
		maxLen := 2 + rng.IntN(6)
		if len(alpha) == 256 {
			maxLen = 3
		}
		np := 1 + rng.IntN(60)
		ps := make([]Pattern, np)
		for i := range ps {
			b := make([]byte, 1+rng.IntN(maxLen))
			for j := range b {
				b[j] = alpha[rng.IntN(len(alpha))]
			}
			ps[i] = Pattern{ID: uint32(rng.IntN(np)), Bytes: b, Nocase: rng.IntN(2) == 0}
		}
		// Both compile APIs when this build has the literal one.
		for _, lit := range []bool{false, true} {
			if lit && !literalAPIAvailable {
				continue
			}
			saved := useLiteralAPI
			useLiteralAPI = lit
			db, s := mustCompile(t, ps)
			useLiteralAPI = saved
			for range 40 {
				data := make([]byte, rng.IntN(300))
				for j := range data {
					data[j] = alpha[rng.IntN(len(alpha))]
				}
				got := scanIDs(t, s, db, data)
				if want := reference(ps, data); !slices.Equal(got, want) {
					t.Fatalf("round %d (literal API %v): patterns %s\ndata %q\ngot  %v\nwant %v",
						round, lit, fmtPatterns(ps), data, got, want)
				}
			}
			s.Close()
			db.Close()
		}
	}
}

// TestRealPatternsAgainstBruteForce scans real ET patterns over HTTP-like and random payloads.
func TestRealPatternsAgainstBruteForce(t *testing.T) {
	ps := etOrSynthetic(t, 3000)
	t.Logf("compile API: %s", CompileAPI())
	db, s := mustCompile(t, ps)
	rng := rand.New(rand.NewPCG(3, 4))
	payloads := [][]byte{[]byte(httpPayload(1460)), []byte(httpPayload(64))}
	for range 20 {
		// Random splices of real patterns into random text.
		b := make([]byte, 0, 2000)
		for len(b) < 1500 {
			if rng.IntN(3) == 0 {
				p := ps[rng.IntN(len(ps))]
				q := p.Bytes
				if p.Nocase {
					q = asciiUpper(q)
				}
				b = append(b, q...)
			} else {
				b = append(b, byte(rng.IntN(256)))
			}
		}
		payloads = append(payloads, b)
	}
	total := 0
	for _, data := range payloads {
		got := scanIDs(t, s, db, data)
		if want := reference(ps, data); !slices.Equal(got, want) {
			t.Fatalf("data %q\ngot  %v\nwant %v", data, got, want)
		}
		total += len(got)
	}
	t.Logf("%d payloads, %d matched IDs", len(payloads), total)
}

func fmtPatterns(ps []Pattern) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\n  %d %q nocase=%v", p.ID, p.Bytes, p.Nocase)
	}
	return b.String()
}

func TestScanDoesNotAllocate(t *testing.T) {
	db, s := mustCompile(t, etOrSynthetic(t, 1000))
	data := []byte(httpPayload(1460))
	out := make([]uint32, db.MaxMatches())
	var nilDB *Database
	n := 0
	allocs := testing.AllocsPerRun(2000, func() {
		k, err := s.Scan(db, data, out)
		if err != nil {
			panic(err)
		}
		n = k
		s.Scan(nilDB, data, out)
		s.Scan(db, nil, out)
	})
	if allocs != 0 {
		t.Fatalf("Scan allocates %.1f times per call", allocs)
	}
	if n == 0 {
		t.Fatal("the payload should match some patterns")
	}
	t.Logf("0 allocations; %d matches per scan", n)
	// The overflow path does not allocate either.
	allocs = testing.AllocsPerRun(1000, func() {
		if _, err := s.Scan(db, data, out[:0]); err != ErrOverflow {
			panic(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("overflowing Scan allocates %.1f times per call", allocs)
	}
}

// httpPayload is a plausible HTTP request of n bytes.
func httpPayload(n int) string {
	s := "GET /wp-admin/admin-ajax.php?action=revslider_show_image&img=../wp-config.php HTTP/1.1\r\n" +
		"Host: www.example.com\r\nUser-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 " +
		"(KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\r\nAccept: text/html,application/xhtml+xml," +
		"application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\n" +
		"Accept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\nCookie: PHPSESSID=0123456789abcdef; " +
		"wordpress_test_cookie=WP+Cookie+check\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n"
	for len(s) < n {
		s += "username=admin&password=secret&submit=Log+In&redirect_to=%2Fwp-admin%2F&testcookie=1&"
	}
	return s[:n]
}

// FuzzScan compiles fuzzer-chosen patterns (pats split at its first byte) and checks a scan of
// data against the brute-force reference.
func FuzzScan(f *testing.F) {
	f.Add([]byte("|abc|\x00d\xff|.*|AbC"), []byte("xxabcxx\x00D\xff.*"), uint16(0x5))
	f.Add([]byte(",a,aa,aaa"), []byte("aaaa"), uint16(0xffff))
	f.Fuzz(func(t *testing.T, pats, data []byte, nocase uint16) {
		if len(pats) < 2 || len(data) > 4096 {
			return
		}
		var ps []Pattern
		for i, b := range bytes.Split(pats[1:], pats[:1]) {
			if len(b) == 0 || len(b) > 64 || len(ps) == 16 {
				continue
			}
			ps = append(ps, Pattern{ID: uint32(i % 5), Bytes: b, Nocase: nocase&(1<<(i%16)) != 0})
		}
		db, err := Compile(ps, Options{})
		if err != nil {
			t.Fatalf("Compile(%s): %v", fmtPatterns(ps), err)
		}
		s, err := NewScanner(db)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		defer db.Close()
		out := make([]uint32, db.MaxMatches())
		n, err := s.Scan(db, data, out)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(out[:n])
		slices.Sort(got)
		if want := reference(ps, data); !slices.Equal(got, want) {
			t.Fatalf("patterns %s\ndata %q\ngot  %v\nwant %v", fmtPatterns(ps), data, got, want)
		}
	})
}

// TestShortWithLongLiteral pins the Hyperscan 5.4 literal-API failure that FuzzScan found: a
// 1- or 2-byte pattern beside a pattern of 37 bytes or more made every scan of 34 bytes or less
// fail with HS_UNKNOWN_ERROR, which the engine would have read as "no match".
func TestShortWithLongLiteral(t *testing.T) {
	tests := []struct {
		name string
		ps   []Pattern
	}{
		{"fuzz seed", []Pattern{{ID: 0, Bytes: []byte("1")}, {ID: 1, Bytes: []byte("11211111111111111111111111111111111111")}}},
		{"other byte", []Pattern{{ID: 0, Bytes: []byte("q")}, {ID: 1, Bytes: []byte("xyz" + strings.Repeat("a", 40))}}},
		{"nocase", []Pattern{{ID: 3, Bytes: []byte("Q"), Nocase: true}, {ID: 4, Bytes: []byte("XyZ" + strings.Repeat("b", 60))}}},
		{"binary", []Pattern{{ID: 0, Bytes: []byte{0}}, {ID: 1, Bytes: append([]byte{1, 2, 3}, make([]byte, 50)...)}}},
		{"two bytes (fuzz seed)", []Pattern{{ID: 0, Bytes: []byte("d\x9b")}, {ID: 1, Bytes: []byte("0001111111111111111111111111111111111111")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, s := mustCompile(t, tt.ps)
			out := make([]uint32, db.MaxMatches())
			for n := 1; n <= 80; n++ {
				data := bytes.Repeat(tt.ps[0].Bytes, n)
				k, err := s.Scan(db, data, out)
				if err != nil {
					t.Fatalf("scan of %d bytes: %v", n, err)
				}
				got := slices.Clone(out[:k])
				slices.Sort(got)
				if want := reference(tt.ps, data); !slices.Equal(got, want) {
					t.Fatalf("scan of %d bytes: got %v, want %v", n, got, want)
				}
			}
		})
	}
}
