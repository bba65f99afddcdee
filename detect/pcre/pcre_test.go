package pcre

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var lim = Limits{Match: DefaultMatchTimeout, Budget: DefaultBudget}

func mustCompile(t testing.TB, pat string, o Options) *Regexp {
	t.Helper()
	r, err := Compile(pat, o)
	if err != nil {
		t.Fatalf("%q: %v", pat, err)
	}
	return r
}

// TestTranslate pins the engine and the translated expression of each translator branch. The
// meanings are PCRE2's (pcre2pattern(3), non-UTF mode, Suricata's pcre2_compile without
// PCRE2_UTF): \s is [\t\n\v\f\r ], \h is [\t \xa0], \d \w are ASCII, '$' is the end or before a
// final newline unless PCRE2_DOLLAR_ENDONLY or PCRE2_MULTILINE, \Q..\E quotes, (?#...) is a
// comment, PCRE2_ANCHORED anchors at the start offset; Go's regexp lacks backreferences and
// \Z, which go to regexp2.
func TestTranslate(t *testing.T) {
	for _, c := range []struct {
		pat    string
		o      Options
		engine string
		expr   string
	}{
		{`a\sb\S`, Options{}, EngineRE2, `a[\t\n\x0B\f\r\x20]b[^\t\n\x0B\f\r\x20]`},
		{`[\s]\h\e`, Options{}, EngineRE2, `[\t\n\x0B\f\r\x20][\t\x20\xA0]\x1B`},
		{`a\Qx.y\Ez`, Options{}, EngineRE2, `ax\x2Eyz`},
		{`\x{41}\x4\0\012[\101]`, Options{}, EngineRE2, `\x41\x04\x00\x0A[\x41]`},
		{`(?#note)a`, Options{}, EngineRE2, `a`},
		{`a$`, Options{}, EngineRE2, `a\z`},
		{`a$`, Options{DollarEndOnly: true}, EngineRE2, `a\z`},
		{`a$`, Options{Multiline: true}, EngineRE2, `(?m)a$`},
		{`a$`, Options{Groups: true}, EngineRegexp2, `a$`},
		{`ab`, Options{Anchored: true, Caseless: true}, EngineRE2, `\A(?:(?i)ab)`},
		{`a b # c`, Options{Extended: true}, EngineRE2, `ab`},
		{`(a)\1`, Options{}, EngineRegexp2, `(a)\1`},
		{`(a)\1`, Options{Anchored: true}, EngineRegexp2, `\G(?:(a)\1)`},
		{`(a)\g{1}\g<1>`, Options{}, EngineRegexp2, `(a)\1\1`},
		{`(?P<n>a)(?P=n)\k{n}`, Options{}, EngineRegexp2, `(?<n>a)\k<n>\k<n>`},
		{`(?=x)\w\d[\w]`, Options{}, EngineRegexp2, `(?=x)[a-zA-Z0-9_][0-9][a-zA-Z0-9_]`},
		{`a\Z`, Options{}, EngineRegexp2, `a\Z`},
		{`(a)\1+?b*`, Options{Ungreedy: true}, EngineRegexp2, `(a)\1+b*?`},
		{`[]a][^]b]`, Options{}, EngineRE2, `[\x5Da][^\x5Db]`},
	} {
		r := mustCompile(t, c.pat, c.o)
		if r.Engine() != c.engine || r.expr() != c.expr {
			t.Errorf("%q %+v: %s %q, want %s %q", c.pat, c.o, r.Engine(), r.expr(), c.engine, c.expr)
		}
	}
}

// TestCompileErrors: what PCRE2 refuses in non-UTF mode (pcre2pattern: a code point above
// 0xff, an unterminated class, a trailing backslash) is an *Error naming the pattern.
func TestCompileErrors(t *testing.T) {
	for _, pat := range []string{`\x{100}`, `[a`, `a\`, `(?#x`, `(a`, `\g{-1}(a)`} {
		_, err := Compile(pat, Options{})
		var pe *Error
		if !errors.As(err, &pe) || pe.Pattern != pat {
			t.Errorf("%q: %v, want an *Error", pat, err)
			continue
		}
		if want := `pcre "/` + pat + `/" can't be compiled: `; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %q", pat, err)
		}
	}
}

func TestCompileCached(t *testing.T) {
	a, b := mustCompile(t, `x(y)`, Options{}), mustCompile(t, `x(y)`, Options{})
	c := mustCompile(t, `x(y)`, Options{Caseless: true})
	if a != b || a == c {
		t.Error("the cache does not key on pattern and options")
	}
	if a.NumGroups() != 1 || mustCompile(t, `(?=a)(b)(?:c)`, Options{}).NumGroups() != 1 {
		t.Error("NumGroups")
	}
}

// TestFind: pcre2_match semantics (pcre2api(3), pcre2pattern(3)) on both engines; subjects are
// bytes, one character each.
func TestFind(t *testing.T) {
	for _, c := range []struct {
		name  string
		pat   string
		o     Options
		subj  string
		start int
		b, e  int
		res   Result
	}{
		{"match", `b.`, Options{}, "abcbd", 0, 1, 3, Match},
		{"start offset", `b.`, Options{}, "abcbd", 2, 3, 5, Match},
		{"high bytes are characters", `\xff.`, Options{}, "a\xe9\xff\x80z", 0, 2, 4, Match},
		{"high bytes, regexp2", `(?=\xff)..`, Options{}, "a\xe9\xff\x80z", 0, 2, 4, Match},
		{"dot is any byte but newline", `^.{3}$`, Options{DotAll: true}, "\xff\n\x80", 0, 0, 3, Match},
		{"$ before a final newline", `foo$`, Options{}, "foo\n", 0, 0, 3, Match},
		{"$ with E: end only", `foo$`, Options{DollarEndOnly: true}, "foo\n", 0, 0, 0, NoMatch},
		{"$ before a final newline, regexp2", `(o)\1$`, Options{}, "foo\n", 0, 1, 3, Match},
		{"^ only at offset 0", `^b`, Options{}, "ab", 1, 0, 0, NoMatch},
		{"^ after a newline with m", `^b`, Options{Multiline: true}, "a\nb", 0, 2, 3, Match},
		{"anchored at the start offset", `b`, Options{Anchored: true}, "abb", 1, 1, 2, Match},
		{"anchored, regexp2", `(b)\1`, Options{Anchored: true}, "abbb", 0, 0, 0, NoMatch},
		{"caseless", `ABC`, Options{Caseless: true}, "xabc", 0, 1, 4, Match},
		{"ungreedy", `a.*b`, Options{Ungreedy: true}, "a1b2b", 0, 0, 3, Match},
		{"\\w is ASCII, regexp2", `(?=.)\w+`, Options{}, "\xe9ab\xe9", 0, 1, 3, Match},
		{"start at the end", `$`, Options{}, "ab", 2, 2, 2, Match},
		{"bad offset", `a`, Options{}, "ab", 3, 0, 0, BadOffset},
		{"negative offset", `a`, Options{}, "ab", -1, 0, 0, BadOffset},
	} {
		r := mustCompile(t, c.pat, c.o)
		var s Scratch
		b, e, res := r.Find([]byte(c.subj), c.start, true, lim, &s)
		if b != c.b || e != c.e || res != c.res {
			t.Errorf("%s: /%s/ on %q from %d: [%d,%d) %d, want [%d,%d) %d", c.name, c.pat, c.subj, c.start, b, e, res, c.b, c.e, c.res)
		}
		if _, _, res2 := r.Find([]byte(c.subj), c.start, false, lim, &s); res2 != c.res {
			t.Errorf("%s: without positions %d, want %d", c.name, res2, c.res)
		}
	}
}

// TestGroup: the captured substring of the first match (pcre2_substring_get_bynumber, as
// DetectTransformPcrexform reads group 1), -1, -1 for a group that took no part.
func TestGroup(t *testing.T) {
	for _, c := range []struct {
		pat  string
		o    Options
		subj string
		n    int
		want string // "-" unset, "!" no match
	}{
		{`[a-zA-Z]+\s+(.*)\s+HTTP`, Options{}, "GET /z4d4kWk.jpg HTTP/1.1", 1, "/z4d4kWk.jpg"}, // SV detect-pcrexform-01
		{`(\d+)`, Options{}, "a12b345", 1, "12"},
		{`(x)?b`, Options{}, "abc", 1, "-"},
		{`a(x*)b`, Options{}, "abc", 1, ""},
		{`x(y)`, Options{}, "abc", 1, "!"},
		{`\xff(.)`, Options{}, "a\xff\xe9z", 1, "\xe9"},
		{`\xff(.)`, Options{}, "a\xff\xe9z", 0, "\xff\xe9"},
		{`\xff(.)`, Options{}, "a\xff\xe9z", 2, "-"},
		{`\xff(.)`, Options{}, "a\xff\xe9z", -1, "-"},
		{`(\d+)(?=px)`, Options{}, "12em 34px", 1, "34"},
		{`(?=.)([\x80-\xff]+)`, Options{}, "ab\xe9\xffz", 1, "\xe9\xff"},
		{`(x)?b(?=c)`, Options{}, "abc", 1, "-"},
		// PCRE's lazy group before '$' stops before the final newline; Go's retry without the
		// newline can't give that, so Groups runs it on regexp2.
		{`([a-z\n]*?)$`, Options{Groups: true}, "ab\n", 1, "ab"},
		{`(\w+)$`, Options{Groups: true}, "foo bar\n", 1, "bar"},
	} {
		r := mustCompile(t, c.pat, c.o)
		var s Scratch
		subj := []byte(c.subj)
		b, e, res := r.Group(subj, c.n, lim, &s)
		got := "!"
		if res == Match {
			got = "-"
			if b >= 0 {
				got = string(subj[b:e])
			}
		}
		if got != c.want {
			t.Errorf("/%s/ on %q group %d: %q, want %q", c.pat, c.subj, c.n, got, c.want)
		}
	}
}

// catastrophic backtracks exponentially on a subject of a's and never matches.
const catastrophic = `^(a+)+\1c`

// fastest returns the shortest of three runs of f, so that a stall of the scheduler on a
// busy machine does not fail a timing check (detect/payload's timing tests do the same).
func fastest(f func() time.Duration) time.Duration {
	d := f()
	for range 2 {
		d = min(d, f())
	}
	return d
}

// TestLimits: an evaluation on regexp2 stops at Limits.Match (a Timeout), or at what is left
// of Limits.Budget; once less than a millisecond of the budget is left none runs
// (BudgetSpent); Go's regexp is never bounded. 20 ms are allowed for regexp2's clock and the
// scheduler.
func TestLimits(t *testing.T) {
	r := mustCompile(t, catastrophic, Options{})
	subj := []byte(strings.Repeat("a", 40) + "b")
	var s Scratch
	d := fastest(func() time.Duration {
		s.Spent = 0
		t0 := time.Now()
		if _, _, res := r.Find(subj, 0, false, Limits{Match: 5 * time.Millisecond}, &s); res != Timeout {
			t.Fatalf("%d, want Timeout", res)
		}
		return time.Since(t0)
	})
	if d > 5*time.Millisecond+20*time.Millisecond {
		t.Errorf("a 5 ms evaluation took %v", d)
	}
	if s.Spent < 4*time.Millisecond {
		t.Errorf("Spent %v after a 5 ms timeout", s.Spent)
	}
	// The budget caps the evaluation, then refuses the next.
	budget := Limits{Match: DefaultMatchTimeout, Budget: 3 * time.Millisecond}
	d = fastest(func() time.Duration {
		s.Spent = 0
		t0 := time.Now()
		if _, _, res := r.Find(subj, 0, false, budget, &s); res != Timeout {
			t.Fatalf("%d, want Timeout", res)
		}
		return time.Since(t0)
	})
	if d > 3*time.Millisecond+20*time.Millisecond {
		t.Errorf("an evaluation with 3 ms of budget took %v", d)
	}
	if _, _, res := r.Find([]byte("x"), 0, false, budget, &s); res != BudgetSpent {
		t.Errorf("%d after the budget was spent, want BudgetSpent", res)
	}
	if _, _, res := r.Group([]byte("x"), 1, budget, &s); res != BudgetSpent {
		t.Errorf("Group: %d after the budget was spent, want BudgetSpent", res)
	}
	// Go's regexp needs no bound; without a Budget nothing is refused.
	if _, _, res := mustCompile(t, `x`, Options{}).Find([]byte("x"), 0, false, budget, &s); res != Match {
		t.Errorf("Go's regexp refused: %d", res)
	}
	if _, _, res := mustCompile(t, `(x)\1?`, Options{}).Find([]byte("x"), 0, false, Limits{Match: time.Millisecond}, &s); res != Match {
		t.Errorf("no Budget: %d", res)
	}
}

// TestAllocs: after warm-up Find without positions does not allocate on Go's regexp (high
// bytes included); with positions, and Group, it allocates only Go's index slice.
func TestAllocs(t *testing.T) {
	if raceOn {
		t.Skip("allocation counts are not meaningful under -race")
	}
	subj := []byte("GET /a?x=1 HTTP/1.1 \xff\xfe abc")
	r := mustCompile(t, `\xfe a(.)`, Options{})
	var s Scratch
	r.Find(subj, 0, true, lim, &s)
	if n := testing.AllocsPerRun(100, func() { r.Find(subj, 3, false, lim, &s) }); n != 0 {
		t.Errorf("Find: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { r.Find(subj, 0, true, lim, &s) }); n > 1 {
		t.Errorf("Find with positions: %v allocations, want <= 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { r.Group(subj, 1, lim, &s) }); n > 1 {
		t.Errorf("Group: %v allocations, want <= 1", n)
	}
}

// TestConcurrent: workers share a Regexp, each with its own Scratch, on different timeout
// copies of it at once (run with -race). A Timeout is allowed (the race detector is slow); a
// wrong answer is not.
func TestConcurrent(t *testing.T) {
	r := mustCompile(t, `(a)\1(?=b)`, Options{})
	done := make(chan bool)
	for i := 0; i < 4; i++ {
		go func() {
			var s Scratch
			ok := true
			for j := 0; j < 200; j++ {
				b, e, res := r.Find([]byte("xaab"), 0, true, Limits{Match: time.Duration(1+j%70) * time.Millisecond}, &s)
				ok = ok && (res == Match && b == 1 && e == 3 || res == Timeout)
			}
			done <- ok
		}()
	}
	for i := 0; i < 4; i++ {
		if !<-done {
			t.Error("a concurrent evaluation went wrong")
		}
	}
}
