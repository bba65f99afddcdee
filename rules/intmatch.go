package rules

import (
	"strconv"
	"strings"
)

// IntMatch is a value of Suricata's integer keyword syntax (dsize, bsize, ttl, itype ...).
type IntMatch struct {
	// Op is "=", "!=", "<", "<=", ">", ">=", "<>" (A < x < B), "!<>" (x <= A or x >= B),
	// "&" (x & A == B) or "!&" (x & A != B).
	Op string
	// A and B are the operands (B only for ranges and bitmasks).
	A, B uint64
}

// Match reports whether v satisfies the condition.
func (m IntMatch) Match(v uint64) bool {
	switch m.Op {
	case "=":
		return v == m.A
	case "!=":
		return v != m.A
	case "<":
		return v < m.A
	case "<=":
		return v <= m.A
	case ">":
		return v > m.A
	case ">=":
		return v >= m.A
	case "<>":
		return v > m.A && v < m.B
	case "!<>":
		return v <= m.A || v >= m.B
	case "&":
		return v&m.A == m.B
	case "!&":
		return v&m.A != m.B
	}
	return false
}

// String returns the condition in rule syntax.
func (m IntMatch) String() string {
	a := strconv.FormatUint(m.A, 10)
	b := strconv.FormatUint(m.B, 10)
	switch m.Op {
	case "=":
		return a
	case "<>":
		return a + "<>" + b
	case "!<>":
		return "!" + a + "<>" + b
	case "&":
		return "&" + a + "=" + b
	case "!&":
		return "&" + a + "!=" + b
	}
	return m.Op + a
}

// intScanner walks an integer expression.
type intScanner struct {
	s   string
	max uint64
}

func (sc *intScanner) spaces() { sc.s = strings.TrimLeft(sc.s, " ") }

func (sc *intScanner) lit(l string) bool {
	if strings.HasPrefix(sc.s, l) {
		sc.s = sc.s[len(l):]
		return true
	}
	return false
}

// value parses a decimal number with an optional kb/kib/mb/mib/gb/gib unit, or 0x hex.
func (sc *intScanner) value() (uint64, bool) {
	s := sc.s
	if strings.HasPrefix(s, "0x") {
		i := 2
		for i < len(s) && isHexDigit(s[i]) {
			i++
		}
		if i == 2 {
			return 0, false
		}
		v, err := strconv.ParseUint(s[2:i], 16, 64)
		if err != nil || v > sc.max {
			return 0, false
		}
		sc.s = s[i:]
		return v, true
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil || v > sc.max {
		return 0, false
	}
	rest := s[i:]
	lower := strings.ToLower(rest)
	for _, u := range []struct {
		name string
		mul  uint64
	}{{"kib", 1 << 10}, {"kb", 1 << 10}, {"mib", 1 << 20}, {"mb", 1 << 20}, {"gib", 1 << 30}, {"gb", 1 << 30}} {
		if strings.HasPrefix(lower, u.name) {
			if v >= 1 {
				if sc.max/u.mul < v {
					return 0, false
				}
				v *= u.mul
			}
			rest = rest[len(u.name):]
			break
		}
	}
	sc.s = rest
	return v, true
}

// ParseIntMatch parses Suricata's integer keyword syntax for values up to max: "N", "=N",
// "!N", "!=N", ">N", ">=N", "<N", "<=N", "A-B" or "A<>B" (exclusive), "!A-B", "&M=V",
// "&M!=V"; numbers are decimal (with kb/mb/gb/kib/mib/gib units) or 0x hex.
func ParseIntMatch(s string, max uint64) (IntMatch, error) {
	m, ok := parseIntMatch(s, max)
	if !ok {
		return m, errf("invalid integer condition \"%s\"", s)
	}
	return m, nil
}

func parseIntMatch(s string, max uint64) (IntMatch, bool) {
	try := func(f func(sc *intScanner) (IntMatch, bool)) (IntMatch, bool) {
		sc := &intScanner{s: strings.TrimLeft(s, " "), max: max}
		m, ok := f(sc)
		if !ok || strings.Trim(sc.s, " ") != "" {
			return m, false
		}
		return m, true
	}
	// bitmask
	if m, ok := try(func(sc *intScanner) (IntMatch, bool) {
		if !sc.lit("&") {
			return IntMatch{}, false
		}
		sc.spaces()
		a, ok := sc.value()
		if !ok {
			return IntMatch{}, false
		}
		sc.spaces()
		op := "&"
		if sc.lit("!") {
			op = "!&"
		}
		if !sc.lit("=") {
			return IntMatch{}, false
		}
		sc.spaces()
		b, ok := sc.value()
		if !ok || b&a != b {
			return IntMatch{}, false
		}
		return IntMatch{Op: op, A: a, B: b}, true
	}); ok {
		return m, true
	}
	// interval
	if m, ok := try(func(sc *intScanner) (IntMatch, bool) {
		op := "<>"
		if sc.lit("!") {
			op = "!<>"
		}
		a, ok := sc.value()
		if !ok {
			return IntMatch{}, false
		}
		sc.spaces()
		if !sc.lit("-") && !sc.lit("<>") {
			return IntMatch{}, false
		}
		sc.spaces()
		b, ok := sc.value()
		if !ok || b <= a || b-a <= 1 {
			return IntMatch{}, false
		}
		return IntMatch{Op: op, A: a, B: b}, true
	}); ok {
		return m, true
	}
	// equal
	if m, ok := try(func(sc *intScanner) (IntMatch, bool) {
		sc.lit("=")
		sc.spaces()
		a, ok := sc.value()
		return IntMatch{Op: "=", A: a}, ok
	}); ok {
		return m, true
	}
	// symbol
	return try(func(sc *intScanner) (IntMatch, bool) {
		op := ""
		for _, o := range []string{">=", "<=", ">", "<", "!=", "!", "="} {
			if sc.lit(o) {
				op = o
				break
			}
		}
		if op == "" {
			return IntMatch{}, false
		}
		if op == "!" {
			op = "!="
		}
		sc.spaces()
		a, ok := sc.value()
		if !ok {
			return IntMatch{}, false
		}
		switch op {
		case "<", ">=":
			if a == 0 {
				return IntMatch{}, false
			}
		case "<=", ">":
			if a == max {
				return IntMatch{}, false
			}
		case "=":
			return IntMatch{}, false
		}
		return IntMatch{Op: op, A: a}, true
	})
}

// intKeyword returns a setup function for a keyword whose argument is an integer condition
// up to max; list says where the match goes ("match" or "app").
func intKeyword(max uint64, list string) setupFunc {
	return func(p *ruleParser, o *Option, arg string) error {
		m, err := ParseIntMatch(arg, max)
		if err != nil {
			return err
		}
		o.Arg = m
		o.Value = m.String()
		if list == "app" {
			p.addAppMatch(o)
		} else {
			p.addMatch(o)
		}
		return nil
	}
}
