// Package pcre runs PCRE2 expressions as Suricata compiles them, without UTF mode (every byte
// of the subject is one character, 0-255), on Go's regexp where it can express them and on
// dlclark/regexp2 (backtracking: lookaround, backreferences, atomic groups...) otherwise, with
// a time bound on regexp2 evaluations. It is the one PCRE translator of Meerkat: the pcre
// keyword (detect/payload, DetectPcrePayloadMatch) and the pcrexform transform
// (detect/transform, DetectTransformPcrexform) both compile and run their expressions here.
//
// Compile translates and compiles once (expressions are cached and shared); a Regexp is safe
// for concurrent use. Each worker owns a Scratch, which Find and Group reuse so that an
// evaluation on Go's regexp does not allocate, except for the index slice Go's regexp returns
// when positions are asked for (see Find and Group).
package pcre

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// Engine names reported by (*Regexp).Engine.
const (
	EngineRE2     = "regexp"  // Go's linear-time regexp, byte-exact through a latin-1 mapping
	EngineRegexp2 = "regexp2" // backtracking, for lookaround and backreferences
)

// DefaultMatchTimeout and DefaultBudget are the bounds the README promises for the pcre
// keyword (50 ms per evaluation, 100 ms per packet); callers start their Limits from them.
const (
	DefaultMatchTimeout = 50 * time.Millisecond
	DefaultBudget       = 100 * time.Millisecond
)

// clockPeriod is how often regexp2's timeout clock ticks. regexp2 checks a deadline against
// a clock a background goroutine advances (while timeouts are in use, and for a second
// after), and sets the deadline one period beyond the timeout; at its default of 100 ms a
// 50 ms timeout stopped an evaluation after 150-200 ms. At 1 ms both bounds hold to within a
// few milliseconds, for a wake-up per millisecond while regexp2 expressions run.
const clockPeriod = time.Millisecond

func init() { regexp2.SetTimeoutCheckPeriod(clockPeriod) }

// timedCopies is how many whole-millisecond timeouts (1 ms up to this) a regexp2 expression
// keeps a copy for, see (*Regexp).timed.
const timedCopies = 64

// Options are the compile options: Caseless, Multiline, DotAll, Extended, Anchored,
// DollarEndOnly and Ungreedy are PCRE2_CASELESS, _MULTILINE, _DOTALL, _EXTENDED, _ANCHORED,
// _DOLLAR_ENDONLY and _UNGREEDY (the pcre keyword's flags i, m, s, x, A, E and G).
//
// Groups is for a caller that reads capture groups (Group): Go's regexp has no PCRE '$' (end
// of subject or before a final newline), and matches it with a second try on the subject less
// its final newline, which finds a match where PCRE does but not always PCRE's groups; with
// Groups such an expression runs on regexp2, whose '$' is PCRE's.
type Options struct {
	Caseless, Multiline, DotAll, Extended, Anchored, DollarEndOnly, Ungreedy bool
	Groups                                                                   bool
}

// key is the cache key of o: one letter per option set.
func (o Options) key() string {
	var b [8]byte
	n := 0
	for i, set := range [...]bool{o.Caseless, o.Multiline, o.DotAll, o.Extended, o.Anchored, o.DollarEndOnly, o.Ungreedy, o.Groups} {
		if set {
			b[n] = "imsxAEGc"[i]
			n++
		}
	}
	return string(b[:n])
}

// Error is returned for an expression neither engine compiles.
type Error struct {
	Pattern string // the expression as given to Compile
	Reason  string // why: the translator's or the last engine's complaint
}

func (e *Error) Error() string {
	return fmt.Sprintf("pcre \"/%s/\" can't be compiled: %s", e.Pattern, e.Reason)
}

// Regexp is a compiled expression. Suricata compiles without UTF mode: every byte is one
// character; both engines see the subject as runes 0-255.
type Regexp struct {
	engine string
	groups int
	// Go regexp
	re        *regexp.Regexp
	reTrim    bool // non-multiline '$' without E: also try the subject minus a final \n
	caretOnly bool // the expression can only match at the start of the subject
	// regexp2
	re2 *regexp2.Regexp
	// re2ms[i] is re2 with a MatchTimeout of i+1 ms, made on first use, re2big the last copy
	// with a longer one: an evaluation runs on the copy of its timeout (see timed).
	re2ms  *[timedCopies]atomic.Pointer[regexp2.Regexp]
	re2big atomic.Pointer[regexp2.Regexp]
}

var cache sync.Map // Options.key() + "/" + pattern -> *Regexp

// Compile translates pattern, a PCRE2 expression (no delimiters), for Go's regexp, or for
// regexp2 where Go's regexp can't express it (or, with o.Groups, can't give PCRE's groups),
// and compiles it. The result is cached: the same pattern and options give the same Regexp.
// An expression neither engine compiles gives an *Error.
func Compile(pattern string, o Options) (*Regexp, error) {
	key := o.key() + "/" + pattern
	if v, ok := cache.Load(key); ok {
		return v.(*Regexp), nil
	}
	r, err := build(pattern, o)
	if err != nil {
		return nil, err
	}
	v, _ := cache.LoadOrStore(key, r)
	return v.(*Regexp), nil
}

func build(pattern string, o Options) (*Regexp, error) {
	goPat, trim, terr := translate(pattern, o, false)
	if terr == nil && !(trim && o.Groups) {
		re, err := regexp.Compile(goPat)
		if err == nil {
			r := &Regexp{engine: EngineRE2, re: re, reTrim: trim, groups: re.NumSubexp()}
			if !o.Multiline {
				// Only begin-of-text anchored expressions: a retry from a later start (after
				// a failed relative keyword) can't match.
				body, _, _ := translate(pattern, Options{Caseless: o.Caseless, DotAll: o.DotAll,
					Extended: o.Extended, DollarEndOnly: o.DollarEndOnly, Ungreedy: o.Ungreedy}, false)
				if pr, err := syntax.Parse(body, syntax.Perl); err == nil {
					if prog, err := syntax.Compile(pr.Simplify()); err == nil {
						r.caretOnly = prog.StartCond()&syntax.EmptyBeginText != 0
					}
				}
			}
			return r, nil
		}
	}
	netPat, _, nerr := translate(pattern, o, true)
	if nerr != nil {
		return nil, &Error{Pattern: pattern, Reason: nerr.Error()}
	}
	var opts regexp2.RegexOptions
	if o.Caseless {
		opts |= regexp2.IgnoreCase
	}
	if o.Multiline {
		opts |= regexp2.Multiline
	}
	if o.DotAll {
		opts |= regexp2.Singleline
	}
	re2, err := regexp2.Compile(netPat, opts)
	if err != nil {
		return nil, &Error{Pattern: pattern, Reason: err.Error()}
	}
	re2.MatchTimeout = DefaultMatchTimeout
	return &Regexp{engine: EngineRegexp2, re2: re2, groups: len(re2.GetGroupNumbers()) - 1,
		re2ms: new([timedCopies]atomic.Pointer[regexp2.Regexp])}, nil
}

// Engine is EngineRE2 or EngineRegexp2: the engine the expression runs on.
func (r *Regexp) Engine() string { return r.engine }

// NumGroups is the number of capturing groups of the expression.
func (r *Regexp) NumGroups() int { return r.groups }

// expr is the translated expression the engine compiled (for tests).
func (r *Regexp) expr() string {
	if r.re2 != nil {
		return r.re2.String()
	}
	return r.re.String()
}

// Limits bound the time evaluations on regexp2 take (Go's regexp is linear-time and needs
// none). An evaluation they stop is a matching error, which Suricata treats as no match, as
// it does a PCRE2 match-limit error: Suricata bounds each evaluation by pcre.match-limit
// steps instead, which regexp2 cannot count.
type Limits struct {
	// Match bounds one evaluation. It counts in whole milliseconds (regexp2's clock ticks
	// every millisecond), at least one.
	Match time.Duration
	// Budget, when not 0, bounds the time of all the evaluations charged to a Scratch until
	// its owner sets Scratch.Spent back to 0 (once a packet): an evaluation may take what is
	// left of it if that is less than Match, and once less than a millisecond is left the
	// evaluation does not run (BudgetSpent), so a hostile subject cannot hold a worker for
	// Match times every expression.
	Budget time.Duration
}

// Scratch is one worker's space for evaluations: the subject converted for either engine,
// and the regexp2 time charged against Limits.Budget. The zero value is ready; it is not
// safe for concurrent use.
type Scratch struct {
	conv  []byte // latin-1 to UTF-8, for Go's regexp
	runes []rune // latin-1 runes, for regexp2
	// Spent is the time regexp2 evaluations took since the owner last set it to 0.
	Spent time.Duration
}

// Result is the outcome of an evaluation. Timeout, BudgetSpent and BadOffset are matching
// errors (PCRE2 returns a negative code), which are no match whether the caller's keyword is
// negated or not.
type Result int8

const (
	NoMatch     Result = iota // no match
	Match                     // a match
	Timeout                   // stopped by Limits: Match, or what was left of Budget
	BudgetSpent               // not run: less than a millisecond of Limits.Budget is left
	BadOffset                 // the start offset is outside the subject (PCRE2_ERROR_BADOFFSET)
)

// Find looks for the first match in subj at or after offset start, as pcre2_match does with
// a start offset: '^' and \A (without Multiline) match only at offset 0, and the match is
// reported as [b, e) byte offsets into subj. needPos false asks only whether there is a match
// (b and e are 0), which Go's regexp answers faster and without allocating (with positions
// it allocates the index slice, regexp.FindIndex).
//
// On Go's regexp the expression runs on subj[start:]: one that can only match at the
// subject's beginning does not match from a start above 0, but in one that can also match
// elsewhere ('a|^b') '^', \A and \b see offset start as the beginning.
func (r *Regexp) Find(subj []byte, start int, needPos bool, lim Limits, s *Scratch) (b, e int, res Result) {
	if start < 0 || start > len(subj) {
		return 0, 0, BadOffset
	}
	n := -1
	if needPos {
		n = 0
	}
	if r.re2 != nil {
		_, b, e, res = r.find2(subj, start, n, lim, s)
		return b, e, res
	}
	if start > 0 && r.caretOnly {
		return 0, 0, NoMatch
	}
	_, b, e, res = r.findGo(subj, start, n, s)
	return b, e, res
}

// Group runs the expression on subj from offset 0 and, on a match, reports capture group n
// of the first match as [b, e) byte offsets into subj, or -1, -1 where the group took no part
// in the match (or there is no group n). Group 0 is the whole match. On Go's regexp a match
// allocates the index slice (regexp.FindSubmatchIndex). On regexp2 a named group is numbered
// after the unnamed ones (.NET's rule, not PCRE's): the numbers agree for one group.
func (r *Regexp) Group(subj []byte, n int, lim Limits, s *Scratch) (b, e int, res Result) {
	if n < 0 || n > r.groups {
		n = r.groups + 1 // no such group: match, but report -1, -1
	}
	if r.re2 != nil {
		_, b, e, res = r.find2(subj, 0, n, lim, s)
	} else {
		_, b, e, res = r.findGo(subj, 0, n, s)
	}
	return b, e, res
}

// findGo runs the Go expression from start: n < 0 only asks whether it matches, n >= 0 for
// the match start ms and group n's span [b, e) (-1, -1 where unset or out of range).
func (r *Regexp) findGo(subj []byte, start, n int, s *Scratch) (ms, b, e int, res Result) {
	ms, b, e, res = r.findGo1(subj, start, n, s)
	if r.reTrim && len(subj) > start && subj[len(subj)-1] == '\n' {
		ms2, b2, e2, res2 := r.findGo1(subj[:len(subj)-1], start, n, s)
		if res2 == Match && (res != Match || ms2 < ms) {
			return ms2, b2, e2, Match
		}
	}
	return ms, b, e, res
}

func (r *Regexp) findGo1(subj []byte, start, n int, s *Scratch) (ms, b, e int, res Result) {
	t := subj[start:]
	high := false
	for _, c := range t {
		if c >= 0x80 {
			high = true
			break
		}
	}
	if high {
		// latin-1 -> UTF-8 so that each byte is one rune of the same value.
		s.conv = s.conv[:0]
		for _, c := range t {
			if c < 0x80 {
				s.conv = append(s.conv, c)
			} else {
				s.conv = append(s.conv, 0xC0|c>>6, 0x80|c&0x3F)
			}
		}
		t = s.conv
	}
	if n < 0 {
		if r.re.Match(t) {
			return 0, 0, 0, Match
		}
		return 0, 0, 0, NoMatch
	}
	var loc []int
	if n == 0 {
		loc = r.re.FindIndex(t)
	} else if r.re.Match(t) { // Match first: it does not allocate, FindSubmatchIndex does
		loc = r.re.FindSubmatchIndex(t)
	}
	if loc == nil {
		return 0, 0, 0, NoMatch
	}
	ms, b, e = loc[0], -1, -1
	if 2*n+1 < len(loc) && loc[2*n] >= 0 {
		b, e = loc[2*n], loc[2*n+1]
	}
	if high {
		ms = byteIndex(t, ms)
		if b >= 0 {
			b, e = byteIndex(t, b), byteIndex(t, e)
		}
	}
	if b >= 0 {
		b, e = start+b, start+e
	}
	return start + ms, b, e, Match
}

// byteIndex maps an index in the latin-1-as-UTF-8 text back to the byte index.
func byteIndex(conv []byte, i int) int {
	n := 0
	for j := 0; j < i && j < len(conv); j++ {
		if conv[j]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// timed returns r.re2 with a MatchTimeout of d, a whole number of milliseconds. The
// MatchTimeout of a Regexp is read by every evaluation, which the workers share, so it is
// never changed: a shallow copy with another timeout shares the compiled program and runner
// pool (regexp2 passes the timeout to each run), and is made once per timeout and kept.
func (r *Regexp) timed(d time.Duration) *regexp2.Regexp {
	if d == r.re2.MatchTimeout {
		return r.re2
	}
	ms := int(d / time.Millisecond)
	if ms < 1 || ms > len(r.re2ms) {
		if re := r.re2big.Load(); re != nil && re.MatchTimeout == d {
			return re
		}
		c := *r.re2
		c.MatchTimeout = d
		r.re2big.Store(&c)
		return &c
	}
	slot := &r.re2ms[ms-1]
	if re := slot.Load(); re != nil {
		return re
	}
	c := *r.re2
	c.MatchTimeout = d
	slot.CompareAndSwap(nil, &c)
	return slot.Load()
}

// find2 runs the regexp2 expression from start: n < 0 or 0 for the match, n > 0 for group
// n's span (-1, -1 where unset or out of range); ms is the match start.
func (r *Regexp) find2(subj []byte, start, n int, lim Limits, s *Scratch) (ms, b, e int, res Result) {
	// The evaluation may take lim.Match, or what is left of the budget if less; the timeout
	// is cut to whole milliseconds (regexp2's clock ticks about every millisecond), and a
	// budget with less than one left is spent.
	timeout := max(lim.Match.Truncate(time.Millisecond), time.Millisecond)
	if lim.Budget > 0 {
		left := (lim.Budget - s.Spent).Truncate(time.Millisecond)
		if left <= 0 {
			return 0, 0, 0, BudgetSpent
		}
		timeout = min(timeout, left)
	}
	re2 := r.timed(timeout)
	if cap(s.runes) < len(subj) {
		s.runes = make([]rune, len(subj), len(subj)+len(subj)/2)
	}
	rs := s.runes[:len(subj)]
	for i, c := range subj {
		rs[i] = rune(c)
	}
	t0 := time.Now()
	m, err := re2.FindRunesMatchStartingAt(rs, start)
	s.Spent += time.Since(t0)
	if err != nil {
		return 0, 0, 0, Timeout
	}
	if m == nil {
		return 0, 0, 0, NoMatch
	}
	ms, b, e = m.RuneIndex, m.RuneIndex, m.RuneIndex+m.RuneLength
	if n > 0 {
		b, e = -1, -1
		if g := m.GroupByNumber(n); g != nil && len(g.Captures) > 0 {
			b, e = g.RuneIndex, g.RuneIndex+g.RuneLength
		}
	}
	return ms, b, e, Match
}
