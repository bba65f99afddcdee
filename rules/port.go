package rules

import (
	"slices"
	"strconv"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// PortRange is an inclusive range of ports.
type PortRange struct {
	First uint16
	Last  uint16
}

// Port is a parsed port field: the ports it matches as sorted ranges with every negation
// applied; overlapping ranges are merged, neighbours are not.
type Port struct {
	// Text is the field as written (variables not expanded).
	Text string
	// Any is set when the field is "any".
	Any bool
	// Ranges are the matched ports.
	Ranges []PortRange
}

// Contains reports whether port p is in the set.
func (p *Port) Contains(port uint16) bool {
	for _, r := range p.Ranges {
		if r.First <= port && port <= r.Last {
			return true
		}
	}
	return false
}

// String returns the canonical text of the field: as written, without white space.
func (p *Port) String() string { return stripSpace(p.Text) }

// maxPortRecursion is Suricata's limit on nested port blocks.
const maxPortRecursion = 64

// ParsePort parses a port field: "any", a port, ranges "a:b", open ranges "a:" and ":b",
// bracketed lists (nested), negation with '!' and $VARIABLES from vars (nil: no variables).
// As in Suricata, every negated entry (in any nesting) is removed from the positive entries
// at the end (a field with only negated entries starts from 0:65535); negating the whole port
// space or leaving no port is an error, and '!' inside a range is an error.
func ParsePort(text string, vars *config.Vars) (*Port, error) {
	p := &Port{Text: text, Any: strings.EqualFold(text, "any")}
	var pos, neg []PortRange
	if err := parsePortList(text, false, &pos, &neg, vars, 0); err != nil {
		return nil, err
	}
	neg = normalizePorts(neg, true)
	if len(neg) == 1 && neg[0] == (PortRange{0, 65535}) {
		return nil, kwErrf("port", "complete port space is negated in \"%s\"", text)
	}
	pos = normalizePorts(pos, false)
	if len(pos) == 0 && len(neg) > 0 {
		pos = []PortRange{{0, 65535}}
	}
	pos = subtractPorts(pos, neg)
	if len(pos) == 0 {
		return nil, kwErrf("port", "no ports left after merging ports with negated ports in \"%s\"", text)
	}
	p.Ranges = pos
	return p, nil
}

func parsePortList(s string, negate bool, pos, neg *[]PortRange, vars *config.Vars, depth int) error {
	if depth >= maxPortRecursion {
		return kwErrf("port", "port block recursion limit reached (max 64)")
	}
	elems, err := splitTopLevel(s, "port")
	if err != nil {
		return kwErrf("port", "%s", err.Error())
	}
	for i, e := range elems {
		if c := strings.IndexByte(e, ':'); c >= 0 && strings.IndexByte(e[c:], '!') >= 0 && strings.IndexByte(e, '[') < 0 {
			return kwErrf("port", "can't have a negated value in a range: \"%s\"", e)
		}
		e, n := cutNegation(e)
		switch {
		case e == "":
			if i > 0 && i == len(elems)-1 && !n {
				continue
			}
			return kwErrf("port", "failed to parse port \"\" in \"%s\"", s)
		case e[0] == '[':
			end := strings.LastIndexByte(e, ']')
			if end < 0 || strings.TrimRight(e[end+1:], " \t") != "" {
				return kwErrf("port", "failed to parse port \"%s\"", e)
			}
			// Suricata does not count negations of nested port blocks: a block is negated when
			// it or any enclosing block is.
			if err := parsePortList(e[1:end], negate || n, pos, neg, vars, depth+1); err != nil {
				return err
			}
		case e[0] == '$':
			name := e[1:]
			if vars == nil {
				return kwErrf("port", "variable $%s is not defined (no port variables)", name)
			}
			val, err := vars.ResolvePort(name)
			if err != nil {
				return kwErrf("port", "%s", err.Error())
			}
			if strings.TrimSpace(val) == "" {
				return kwErrf("port", "variable $%s resolved to nothing", name)
			}
			// Variables count negations by parity.
			if err := parsePortList(val, negate != n, pos, neg, vars, depth+1); err != nil {
				return err
			}
		default:
			r, err := parseSinglePort(e)
			if err != nil {
				return err
			}
			if negate || n {
				*neg = append(*neg, r)
			} else {
				*pos = append(*pos, r)
			}
		}
	}
	return nil
}

// parseSinglePort parses "any", "80", "80:90", "1024:" or ":1024".
func parseSinglePort(s string) (PortRange, error) {
	bad := func() (PortRange, error) { return PortRange{}, kwErrf("port", "failed to parse port \"%s\"", s) }
	if len(s) >= 16 {
		return bad()
	}
	if strings.EqualFold(s, "any") {
		return PortRange{0, 65535}, nil
	}
	num := func(t string) (uint16, bool) {
		t = strings.TrimLeft(t, " \t")
		if t == "" || strings.Trim(t, "0123456789") != "" {
			return 0, false
		}
		v, err := strconv.ParseUint(t, 10, 16)
		return uint16(v), err == nil
	}
	if lo, hi, ok := strings.Cut(s, ":"); ok {
		r := PortRange{0, 65535}
		var ok1, ok2 = true, true
		if lo != "" {
			r.First, ok1 = num(lo)
		}
		if hi != "" {
			r.Last, ok2 = num(hi)
		}
		if !ok1 || !ok2 || r.First > r.Last {
			return bad()
		}
		return r, nil
	}
	v, ok := num(s)
	if !ok {
		return bad()
	}
	return PortRange{v, v}, nil
}

// normalizePorts sorts rs and merges overlapping ranges, and neighbouring ones too when
// adjacent is set. Positive ranges keep their neighbours apart, as Suricata's port lists do
// ("80,81" stays two ports), because rule grouping treats a single port differently from a
// range (a rule written for priority port 80 is scored as such).
func normalizePorts(rs []PortRange, adjacent bool) []PortRange {
	if len(rs) < 2 {
		return rs
	}
	slices.SortFunc(rs, func(a, b PortRange) int { return int(a.First) - int(b.First) })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		reach := int(last.Last)
		if adjacent {
			reach++
		}
		if int(r.First) <= reach {
			if r.Last > last.Last {
				last.Last = r.Last
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

func subtractPorts(a, b []PortRange) []PortRange {
	var out []PortRange
	for _, r := range a {
		lo, hi := int(r.First), int(r.Last)
		for _, n := range b {
			if int(n.Last) < lo || int(n.First) > hi {
				continue
			}
			if int(n.First) > lo {
				out = append(out, PortRange{uint16(lo), n.First - 1})
			}
			lo = int(n.Last) + 1
			if lo > hi {
				break
			}
		}
		if lo <= hi {
			out = append(out, PortRange{uint16(lo), uint16(hi)})
		}
	}
	return out
}
