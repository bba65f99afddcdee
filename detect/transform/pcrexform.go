package transform

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// PcrexformMatchTimeout bounds one pcrexform evaluation on the backtracking engine
// (regexp2); a timeout is a matching error, which leaves the buffer unchanged, as a PCRE2
// match-limit error does in DetectTransformPcrexform. Go's regexp is linear-time and needs
// no bound.
var PcrexformMatchTimeout = 50 * time.Millisecond

// regexp2's deadline clock ticks every 100 ms by default, which would let a 50 ms timeout run
// 150-200 ms; detect/payload sets the same 1 ms period for its pcres.
func init() { regexp2.SetTimeoutCheckPeriod(time.Millisecond) }

// pcreX is pcrexform (src/detect-transform-pcrexform.c): the argument is a bare PCRE2
// pattern (no delimiters, no flags, compiled without UTF: one byte is one character) with
// exactly one capturing group; on a match the buffer becomes group 1 of the first match, on
// no match (or an unset group, or a matching error) it is left unchanged.
//
// As detect/payload does for pcre, the pattern runs on Go's regexp when it can express it
// (the subject's bytes 0x80-0xff mapped to the runes of the same value) and on regexp2
// (subject as runes 0-255) otherwise: lookaround, backreferences, '$' (PCRE's end or before
// a final newline), \Z, \G, atomic groups, possessive quantifiers.
type pcreX struct {
	pat string
	re  *regexp.Regexp
	re2 *regexp2.Regexp
}

// pcreScratch is a worker's pcrexform space.
type pcreScratch struct {
	conv  []byte
	runes []rune
}

func compilePcrexform(pat string) (xform, error) {
	if pat == "" {
		return nil, fmt.Errorf("pcrexform: empty pattern")
	}
	x := &pcreX{pat: pat}
	if goPat, ok := translatePCRE(pat, false); ok {
		if re, err := regexp.Compile(goPat); err == nil {
			x.re = re
		}
	}
	var groups int
	if x.re != nil {
		groups = x.re.NumSubexp()
	} else {
		netPat, _ := translatePCRE(pat, true)
		re2, err := regexp2.Compile(netPat, regexp2.None)
		if err != nil {
			return nil, fmt.Errorf("pcrexform: pcre2 compile of %q failed: %v", pat, err)
		}
		re2.MatchTimeout = PcrexformMatchTimeout
		x.re2 = re2
		groups = len(re2.GetGroupNumbers()) - 1
	}
	if groups != 1 {
		return nil, fmt.Errorf("pcrexform: pcrexform needs exactly one substring capture, found %d", groups)
	}
	return x, nil
}

func (x *pcreX) key() string { return "pcrexform:" + strconv.Quote(x.pat) }

func (x *pcreX) apply(dst, src []byte, s *Scratch) []byte {
	if x.re2 != nil {
		return x.apply2(dst, src, s)
	}
	subj := src
	high := false
	for _, c := range src {
		if c >= 0x80 {
			high = true
			break
		}
	}
	if high {
		// latin-1 -> UTF-8: each byte one rune of the same value.
		c := s.re.conv[:0]
		for _, b := range src {
			if b < 0x80 {
				c = append(c, b)
			} else {
				c = append(c, 0xC0|b>>6, 0x80|b&0x3F)
			}
		}
		s.re.conv = c
		subj = c
	}
	// Match first: it does not allocate, FindSubmatchIndex does (its result).
	if !x.re.Match(subj) {
		return src
	}
	loc := x.re.FindSubmatchIndex(subj)
	if len(loc) < 4 || loc[2] < 0 {
		return src
	}
	g := subj[loc[2]:loc[3]]
	dst = dst[:0]
	if !high {
		return append(dst, g...)
	}
	for len(g) > 0 {
		r, n := utf8.DecodeRune(g)
		dst = append(dst, byte(r))
		g = g[n:]
	}
	return dst
}

func (x *pcreX) apply2(dst, src []byte, s *Scratch) []byte {
	rs := s.re.runes[:0]
	for _, b := range src {
		rs = append(rs, rune(b))
	}
	s.re.runes = rs
	m, err := x.re2.FindRunesMatch(rs)
	if err != nil || m == nil {
		return src
	}
	g := m.GroupByNumber(1)
	if g == nil || len(g.Captures) == 0 {
		return src
	}
	dst = dst[:0]
	for _, r := range g.Runes() {
		dst = append(dst, byte(r))
	}
	return dst
}

// translatePCRE rewrites a non-UTF PCRE2 pattern for Go's regexp (net false) or regexp2
// (net true): bytes >= 0x80 and control bytes become \x{HH}, \s gets PCRE's set (with \v),
// \h and \e are spelled out, and for regexp2 \d \w (and negations) are made ASCII (its
// classes are Unicode, the subject's runes 0x80-0xff would match). ok is false where Go's
// regexp would mean something else: '$' outside a class.
func translatePCRE(p string, net bool) (string, bool) {
	var sb strings.Builder
	hexb := func(c byte) { fmt.Fprintf(&sb, `\x{%02X}`, c) }
	const sClass = `\t\n\x0B\f\r\x20`
	inClass, classStart := false, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 0x80 || c < 0x20 || c == 0x7f {
			hexb(c)
			continue
		}
		if c == '\\' {
			if i+1 >= len(p) {
				sb.WriteByte('\\') // let the engine report it
				continue
			}
			i++
			e := p[i]
			switch {
			case e >= 0x80:
				hexb(e)
			case e == 's':
				if inClass {
					sb.WriteString(sClass)
				} else {
					sb.WriteString("[" + sClass + "]")
				}
			case e == 'S' && !inClass:
				sb.WriteString("[^" + sClass + "]")
			case e == 'h':
				if inClass {
					sb.WriteString(`\t\x20\xA0`)
				} else {
					sb.WriteString(`[\t\x20\xA0]`)
				}
			case e == 'e':
				sb.WriteString(`\x1B`)
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
			case e == 'Q':
				end := strings.Index(p[i+1:], `\E`)
				lit := p[i+1:]
				if end >= 0 {
					lit = lit[:end]
					i += end + 2
				} else {
					i = len(p)
				}
				for j := 0; j < len(lit); j++ {
					hexb(lit[j])
				}
			default:
				sb.WriteByte('\\')
				sb.WriteByte(e)
			}
			continue
		}
		if inClass {
			if c == ']' && i > classStart {
				inClass = false
			} else if c == '[' && strings.HasPrefix(p[i:], "[:") {
				if end := strings.Index(p[i+2:], ":]"); end >= 0 {
					sb.WriteString(p[i : i+2+end+2])
					i += 2 + end + 1
					continue
				}
				sb.WriteString(`\x5B`)
				continue
			} else if c == ']' {
				sb.WriteString(`\x5D`)
				continue
			}
			sb.WriteByte(c)
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
			continue
		case '$':
			if !net {
				return "", false
			}
		}
		sb.WriteByte(c)
	}
	return sb.String(), true
}
