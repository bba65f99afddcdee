package payload

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"

	"github.com/meerkat-ids/meerkat/rules"
)

// PCREMatchTimeout bounds one evaluation of a backtracking (regexp2) expression; a timeout is
// a matching error, which Suricata treats as no match (like exceeding pcre.match-limit): the
// pcre, negated or not, does not match, so neither does the rule on that packet.
var PCREMatchTimeout = 50 * time.Millisecond

// PCREPacketBudget bounds the time backtracking (regexp2) expressions may take on one packet,
// over every rule (State.StartPacket starts a packet): each evaluation may take at most what
// is left of it (or PCREMatchTimeout, if less), and once it is spent the packet's further
// regexp2 evaluations are matching errors, so a hostile payload cannot hold a worker for
// PCREMatchTimeout times every such rule and retry. Suricata bounds each evaluation by
// pcre.match-limit steps instead, which Go's regexp2 cannot count.
var PCREPacketBudget = 100 * time.Millisecond

// pcreClockPeriod is how often regexp2's timeout clock ticks. regexp2 checks a deadline
// against a clock a background goroutine advances (while timeouts are in use, and for a
// second after), and sets the deadline one period beyond the timeout; at its default of
// 100 ms a 50 ms timeout stopped an evaluation after 150-200 ms. At 1 ms both bounds hold to
// within a few milliseconds, for a wake-up per millisecond while regexp2 expressions run.
const pcreClockPeriod = time.Millisecond

func init() { regexp2.SetTimeoutCheckPeriod(pcreClockPeriod) }

// timedCopies is how many whole-millisecond timeouts (1 ms up to this) a regexp2 expression
// keeps a copy for, see (*regex).timed.
const timedCopies = 64

// Engine names reported by (*Program).Engines.
const (
	EngineRE2     = "regexp"  // Go's linear-time regexp, byte-exact through a latin-1 mapping
	EngineRegexp2 = "regexp2" // backtracking, for lookaround and backreferences
)

// regex is a compiled pcre. Suricata compiles without UTF mode: every byte is one
// character; both engines see the subject as runes 0-255.
type regex struct {
	engine string
	// Go regexp
	re        *regexp.Regexp
	reTrim    bool // non-multiline '$' without E: also try the subject minus a final \n
	caretOnly bool // the expression can only match at the start of the subject
	// regexp2
	re2 *regexp2.Regexp
	// re2ms[i] is re2 with a MatchTimeout of i+1 ms, made on first use: an evaluation the
	// packet's remaining budget cuts short runs on one (see timed).
	re2ms *[timedCopies]atomic.Pointer[regexp2.Regexp]
}

var regexCache sync.Map // "flags/pattern" -> *regex

func compilePCREOp(o *op, a *rules.PCRE, buffer string) error {
	if a.Buffer != "" && a.Buffer != buffer {
		// The parser moves pcre with a buffer flag to that buffer; one still carrying it in
		// another buffer can't be honoured.
		return unsupported("pcre", "buffer flag for "+a.Buffer)
	}
	re, err := compileRegex(a)
	if err != nil {
		return err
	}
	o.kind = kPCRE
	o.re = re
	o.relative = a.Relative
	o.negated = a.Negated
	return nil
}

// PCREError is returned for an expression neither engine compiles.
type PCREError struct {
	Pattern string
	Reason  string
}

func (e *PCREError) Error() string {
	return fmt.Sprintf("pcre \"/%s/\" can't be compiled: %s", e.Pattern, e.Reason)
}

func compileRegex(a *rules.PCRE) (*regex, error) {
	key := a.Flags + "/" + a.Pattern
	if v, ok := regexCache.Load(key); ok {
		return v.(*regex), nil
	}
	r, err := buildRegex(a)
	if err != nil {
		return nil, err
	}
	regexCache.Store(key, r)
	return r, nil
}

func buildRegex(a *rules.PCRE) (*regex, error) {
	goPat, trim, terr := translate(a, false)
	if terr == nil {
		re, err := regexp.Compile(goPat)
		if err == nil {
			r := &regex{engine: EngineRE2, re: re, reTrim: trim}
			if !a.Multiline {
				// Only begin-of-text anchored expressions: a retry from a later start (after
				// a failed relative keyword) can't match.
				body, _, _ := translate(&rules.PCRE{Pattern: a.Pattern, Caseless: a.Caseless,
					DotAll: a.DotAll, Extended: a.Extended, DollarEndOnly: a.DollarEndOnly, Ungreedy: a.Ungreedy}, false)
				if pr, err := syntax.Parse(body, syntax.Perl); err == nil {
					if prog, err := syntax.Compile(pr.Simplify()); err == nil {
						r.caretOnly = prog.StartCond()&syntax.EmptyBeginText != 0
					}
				}
			}
			return r, nil
		}
	}
	netPat, _, nerr := translate(a, true)
	if nerr != nil {
		return nil, &PCREError{Pattern: a.Pattern, Reason: nerr.Error()}
	}
	var opts regexp2.RegexOptions
	if a.Caseless {
		opts |= regexp2.IgnoreCase
	}
	if a.Multiline {
		opts |= regexp2.Multiline
	}
	if a.DotAll {
		opts |= regexp2.Singleline
	}
	re2, err := regexp2.Compile(netPat, opts)
	if err != nil {
		return nil, &PCREError{Pattern: a.Pattern, Reason: err.Error()}
	}
	re2.MatchTimeout = PCREMatchTimeout
	return &regex{engine: EngineRegexp2, re2: re2, re2ms: new([timedCopies]atomic.Pointer[regexp2.Regexp])}, nil
}

// find searches subj from start. res is 1 (match at [s,e)), 0 (no match) or -1 (error).
func (r *regex) find(subj []byte, start int, needPos bool, st *State) (s, e, res int) {
	if r.re2 != nil {
		return r.find2(subj, start, st)
	}
	if start > 0 && r.caretOnly {
		return 0, 0, 0
	}
	s, e, res = r.findGo(subj, start, needPos, st)
	if r.reTrim && len(subj) > start && subj[len(subj)-1] == '\n' {
		s2, e2, res2 := r.findGo(subj[:len(subj)-1], start, needPos, st)
		if res2 == 1 && (res != 1 || s2 < s) {
			return s2, e2, 1
		}
	}
	return s, e, res
}

func (r *regex) findGo(subj []byte, start int, needPos bool, st *State) (int, int, int) {
	s := subj[start:]
	high := false
	for _, c := range s {
		if c >= 0x80 {
			high = true
			break
		}
	}
	if high {
		// latin-1 -> UTF-8 so that each byte is one rune of the same value.
		st.conv = st.conv[:0]
		for _, c := range s {
			if c < 0x80 {
				st.conv = append(st.conv, c)
			} else {
				st.conv = append(st.conv, 0xC0|c>>6, 0x80|c&0x3F)
			}
		}
		s = st.conv
	}
	if !needPos {
		if r.re.Match(s) {
			return 0, 0, 1
		}
		return 0, 0, 0
	}
	loc := r.re.FindIndex(s)
	if loc == nil {
		return 0, 0, 0
	}
	a, b := loc[0], loc[1]
	if high {
		a, b = byteIndex(s, a), byteIndex(s, b)
	}
	return start + a, start + b, 1
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
func (r *regex) timed(d time.Duration) *regexp2.Regexp {
	if d == r.re2.MatchTimeout {
		return r.re2
	}
	ms := int(d / time.Millisecond)
	if ms < 1 || ms > len(r.re2ms) {
		c := *r.re2
		c.MatchTimeout = d
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

func (r *regex) find2(subj []byte, start int, st *State) (int, int, int) {
	// The evaluation may take PCREMatchTimeout, or what is left of the packet's budget if
	// less; the timeout is cut to whole milliseconds (regexp2's clock ticks about every
	// millisecond), and a budget with less than one left is spent.
	timeout := min(PCREMatchTimeout, PCREPacketBudget-st.re2Spent).Truncate(time.Millisecond)
	if timeout <= 0 {
		st.PCREBudgetHits++
		return 0, 0, -1
	}
	re2 := r.timed(timeout)
	if cap(st.runes) < len(subj) {
		st.runes = make([]rune, len(subj), len(subj)+len(subj)/2)
	}
	rs := st.runes[:len(subj)]
	for i, c := range subj {
		rs[i] = rune(c)
	}
	t0 := time.Now()
	m, err := re2.FindRunesMatchStartingAt(rs, start)
	st.re2Spent += time.Since(t0)
	if err != nil {
		st.PCRETimeouts++
		return 0, 0, -1
	}
	if m == nil {
		return 0, 0, 0
	}
	return m.RuneIndex, m.RuneIndex + m.RuneLength, 1
}

// translate rewrites a PCRE expression (non-UTF, byte characters) for Go's regexp (net=false)
// or regexp2 (net=true). trim reports a '$' with PCRE's default meaning (end of subject or
// before a final newline) that Go can't express.
func translate(a *rules.PCRE, net bool) (out string, trim bool, err error) {
	p := a.Pattern
	var sb strings.Builder
	hexb := func(c byte) { fmt.Fprintf(&sb, `\x%02X`, c) }
	// literal writes one literal byte.
	literal := func(c byte) {
		if c >= 0x80 || c < 0x20 || strings.IndexByte(`\.+*?()|[]{}^$#- /&~'"<>=!:,`, c) >= 0 || c == 0x7f {
			hexb(c)
			return
		}
		sb.WriteByte(c)
	}
	const sClass = `\t\n\x0B\f\r\x20`
	inClass := false
	classStart := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if a.Extended && !inClass {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				continue
			}
			if c == '#' {
				for i < len(p) && p[i] != '\n' {
					i++
				}
				continue
			}
		}
		if c >= 0x80 {
			hexb(c)
			continue
		}
		if c == '\\' {
			if i+1 >= len(p) {
				return "", false, fmt.Errorf("\\ at end of pattern")
			}
			i++
			e := p[i]
			switch {
			case e == 'Q':
				end := strings.Index(p[i+1:], `\E`)
				var lit string
				if end < 0 {
					lit = p[i+1:]
					i = len(p)
				} else {
					lit = p[i+1 : i+1+end]
					i += end + 2
				}
				for j := 0; j < len(lit); j++ {
					literal(lit[j])
				}
			case e == 'E':
				// stray \E is ignored
			case !isAlnum(e):
				literal(e)
			case e == 's':
				if inClass {
					sb.WriteString(sClass)
				} else {
					sb.WriteString("[" + sClass + "]")
				}
			case e == 'S' && !inClass:
				sb.WriteString("[^" + sClass + "]")
			case net && e == 'w':
				if inClass {
					sb.WriteString("a-zA-Z0-9_")
				} else {
					sb.WriteString("[a-zA-Z0-9_]")
				}
			case net && e == 'W' && !inClass:
				sb.WriteString("[^a-zA-Z0-9_]")
			case net && e == 'd':
				if inClass {
					sb.WriteString("0-9")
				} else {
					sb.WriteString("[0-9]")
				}
			case net && e == 'D' && !inClass:
				sb.WriteString("[^0-9]")
			case e == 'h':
				if inClass {
					sb.WriteString(`\t\x20\xA0`)
				} else {
					sb.WriteString(`[\t\x20\xA0]`)
				}
			case e == 'e':
				sb.WriteString(`\x1B`)
			case e == 'x':
				// \xHH, \xH or \x{HHH}
				if i+1 < len(p) && p[i+1] == '{' {
					end := strings.IndexByte(p[i+1:], '}')
					if end < 0 {
						return "", false, fmt.Errorf("missing } in \\x{")
					}
					hexs := p[i+2 : i+1+end]
					var v int
					if _, err := fmt.Sscanf(hexs, "%x", &v); err != nil || v > 0xff {
						return "", false, fmt.Errorf("character code \\x{%s} out of range in non-UTF mode", hexs)
					}
					hexb(byte(v))
					i += end + 1
					continue
				}
				v, n := 0, 0
				for n < 2 && i+1 < len(p) && isHex(p[i+1]) {
					v = v*16 + digitVal(p[i+1])
					i++
					n++
				}
				hexb(byte(v))
			case e == '0':
				// \0 followed by up to two octal digits
				v, n := 0, 0
				for n < 2 && i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '7' {
					v = v*8 + int(p[i+1]-'0')
					i++
					n++
				}
				hexb(byte(v))
			case e >= '1' && e <= '9':
				if inClass {
					// octal in a class
					v, n := int(e-'0'), 1
					for n < 3 && i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '7' {
						v = v*8 + int(p[i+1]-'0')
						i++
						n++
					}
					if e > '7' || v > 0xff {
						return "", false, fmt.Errorf("invalid escape \\%c in class", e)
					}
					hexb(byte(v))
					continue
				}
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				sb.WriteByte('\\')
				sb.WriteByte(e)
				for i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '9' {
					i++
					sb.WriteByte(p[i])
				}
			case e == 'g':
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				j := i + 1
				name := ""
				if j < len(p) && (p[j] == '{' || p[j] == '<' || p[j] == '\'') {
					cl := map[byte]byte{'{': '}', '<': '>', '\'': '\''}[p[j]]
					end := strings.IndexByte(p[j+1:], cl)
					if end < 0 {
						return "", false, fmt.Errorf("bad \\g")
					}
					name = p[j+1 : j+1+end]
					i = j + 1 + end
				} else {
					for j < len(p) && p[j] >= '0' && p[j] <= '9' {
						j++
					}
					name = p[i+1 : j]
					i = j - 1
				}
				if name == "" || name[0] == '-' || name[0] == '+' {
					return "", false, fmt.Errorf("relative backreference \\g")
				}
				if isAllDigits(name) {
					sb.WriteString(`\` + name)
				} else {
					sb.WriteString(`\k<` + name + `>`)
				}
			case e == 'k':
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				j := i + 1
				if j >= len(p) {
					return "", false, fmt.Errorf("bad \\k")
				}
				cl := map[byte]byte{'{': '}', '<': '>', '\'': '\''}[p[j]]
				end := strings.IndexByte(p[j+1:], cl)
				if cl == 0 || end < 0 {
					return "", false, fmt.Errorf("bad \\k")
				}
				sb.WriteString(`\k<` + p[j+1:j+1+end] + `>`)
				i = j + 1 + end
			case e == 'Z' && !net:
				return "", false, fmt.Errorf("\\Z")
			default:
				sb.WriteByte('\\')
				sb.WriteByte(e)
			}
			continue
		}
		if inClass {
			switch c {
			case ']':
				if i == classStart {
					sb.WriteString(`\x5D`)
					continue
				}
				inClass = false
				sb.WriteByte(c)
			case '[':
				if strings.HasPrefix(p[i:], "[:") {
					end := strings.Index(p[i+2:], ":]")
					if end >= 0 {
						sb.WriteString(p[i : i+2+end+2])
						i += 2 + end + 1
						continue
					}
				}
				sb.WriteString(`\x5B`)
			default:
				if c < 0x20 || c == 0x7f {
					hexb(c)
				} else {
					sb.WriteByte(c)
				}
			}
			continue
		}
		switch c {
		case '[':
			inClass = true
			sb.WriteByte(c)
			classStart = i + 1
			if i+1 < len(p) && p[i+1] == '^' {
				sb.WriteByte('^')
				i++
				classStart = i + 1
			}
		case '$':
			switch {
			case a.Multiline:
				sb.WriteByte('$')
			case a.DollarEndOnly:
				sb.WriteString(`\z`)
			case net:
				sb.WriteByte('$')
			default:
				sb.WriteString(`\z`)
				trim = true
			}
		case '(':
			if strings.HasPrefix(p[i:], "(?P=") {
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				end := strings.IndexByte(p[i:], ')')
				if end < 0 {
					return "", false, fmt.Errorf("missing )")
				}
				sb.WriteString(`\k<` + p[i+4:i+end] + `>`)
				i += end
				continue
			}
			if net && strings.HasPrefix(p[i:], "(?P<") {
				sb.WriteString("(?<")
				i += 3
				continue
			}
			if strings.HasPrefix(p[i:], "(?#") {
				end := strings.IndexByte(p[i:], ')')
				if end < 0 {
					return "", false, fmt.Errorf("missing ) after comment")
				}
				i += end
				continue
			}
			sb.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '?' {
				sb.WriteByte('?')
				i++
			}
		case '?', '*', '+', '}':
			sb.WriteByte(c)
			if net && a.Ungreedy {
				// regexp2 has no ungreedy flag: swap the greediness of quantifiers.
				switch {
				case i+1 < len(p) && p[i+1] == '?':
					i++ // lazy becomes greedy
				case i+1 < len(p) && p[i+1] == '+':
					// possessive: unchanged
				default:
					sb.WriteByte('?')
				}
			} else if i+1 < len(p) && (p[i+1] == '?' || p[i+1] == '+') {
				sb.WriteByte(p[i+1])
				i++
			}
		default:
			if c < 0x20 || c == 0x7f {
				hexb(c)
			} else {
				sb.WriteByte(c)
			}
		}
	}
	if inClass {
		return "", false, fmt.Errorf("missing terminating ] for character class")
	}
	out = sb.String()
	if !net {
		flags := ""
		if a.Caseless {
			flags += "i"
		}
		if a.Multiline {
			flags += "m"
		}
		if a.DotAll {
			flags += "s"
		}
		if a.Ungreedy {
			flags += "U"
		}
		if flags != "" {
			out = "(?" + flags + ")" + out
		}
		if a.Anchored {
			out = `\A(?:` + out + `)`
		}
	} else if a.Anchored {
		out = `\G(?:` + out + `)`
	}
	return out, trim, nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Engines returns the pcre engine of each pcre of the program, in order.
func (p *Program) Engines() []string {
	var out []string
	for i := range p.ops {
		if p.ops[i].kind == kPCRE {
			out = append(out, p.ops[i].re.engine)
		}
	}
	return out
}
