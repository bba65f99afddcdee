package rules

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// Address is a parsed address field: the set of addresses it matches, per family, as sorted,
// merged ranges with every negation applied.
type Address struct {
	// Text is the field as written (variables not expanded).
	Text string
	// Any is set when the field is "any".
	Any bool
	// Negated is set when the field contains a negation (an otherwise IP-only rule is then
	// "like IP-only").
	Negated bool
	// V4 and V6 are the matched ranges per family, sorted and merged.
	V4 []IPRange
	V6 []IPRange
}

// HoldsAll reports whether the address set holds every IPv4 and every IPv6 address ("any",
// or anything that amounts to it).
func (a *Address) HoldsAll() bool {
	return len(a.V4) == 1 && a.V4[0] == AllIPv4 && len(a.V6) == 1 && a.V6[0] == AllIPv6
}

// Contains reports whether the address set holds a. The ranges are sorted and disjoint, so a
// binary search finds the only range that can hold a.
func (a *Address) Contains(ip netip.Addr) bool {
	ip = ip.Unmap()
	rs := a.V6
	if ip.Is4() {
		rs = a.V4
	}
	// The first range whose last address is not below ip.
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].Last.Compare(ip) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(rs) && rs[lo].First.Compare(ip) <= 0
}

// Prefixes returns the address set as CIDR prefixes, IPv4 first.
func (a *Address) Prefixes() []netip.Prefix {
	var out []netip.Prefix
	for _, r := range a.V4 {
		out = append(out, r.Prefixes()...)
	}
	for _, r := range a.V6 {
		out = append(out, r.Prefixes()...)
	}
	return out
}

// String returns the canonical text of the field: as written, without white space.
func (a *Address) String() string { return stripSpace(a.Text) }

// maxAddrRecursion is Suricata's limit on nested address blocks.
const maxAddrRecursion = 64

// ipSets accumulates ranges per family.
type ipSets struct{ v4, v6 []IPRange }

func (s *ipSets) add(o ipSets) {
	s.v4 = append(s.v4, o.v4...)
	s.v6 = append(s.v6, o.v6...)
}

// ParseAddress parses an address field: "any", IPv4 and IPv6 addresses, CIDR blocks, netmasks,
// ranges, bracketed lists (nested), negation with '!' and $VARIABLES from vars (nil: no
// variables). It applies Suricata's negation algebra: positive and negated entries are
// collected apart (an even number of enclosing negations counts as none, a negated list is
// resolved on its own first), a family with only negated entries starts from the whole family,
// negating the whole IPv4 space or leaving nothing is an error.
func ParseAddress(text string, vars *config.Vars) (*Address, error) {
	a := &Address{Text: text}
	if strings.EqualFold(text, "any") {
		a.Any = true
	}
	var pos, neg ipSets
	if err := parseAddrList(text, false, &pos, &neg, vars, 0); err != nil {
		return nil, err
	}
	a.Negated = len(neg.v4) > 0 || len(neg.v6) > 0
	res, err := mergeNot(pos, neg)
	if err != nil {
		return nil, kwErrf("address", "%s in \"%s\"", err.Error(), text)
	}
	a.V4, a.V6 = res.v4, res.v6
	return a, nil
}

// mergeNot applies the negated entries to the positive ones (DetectAddressMergeNot).
func mergeNot(pos, neg ipSets) (ipSets, error) {
	pos.v4, pos.v6 = normalizeRanges(pos.v4), normalizeRanges(pos.v6)
	neg.v4, neg.v6 = normalizeRanges(neg.v4), normalizeRanges(neg.v6)
	if coversAll(neg.v4, AllIPv4) {
		return pos, errf("complete IP space negated")
	}
	if len(pos.v4) == 0 && len(neg.v4) > 0 {
		pos.v4 = []IPRange{AllIPv4}
	}
	if len(pos.v6) == 0 && len(neg.v6) > 0 {
		pos.v6 = []IPRange{AllIPv6}
	}
	pos.v4 = subtractRanges(pos.v4, neg.v4)
	pos.v6 = subtractRanges(pos.v6, neg.v6)
	if len(pos.v4) == 0 && len(pos.v6) == 0 {
		return pos, errf("no addresses left after merging addresses and negated addresses")
	}
	return pos, nil
}

// splitTopLevel splits s at the commas outside brackets and checks the brackets.
func splitTopLevel(s, what string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth < 0 {
				return nil, errf("not every %s block was properly opened in \"%s\", missing opening brackets ([)", what, s)
			}
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if depth > 0 {
		return nil, errf("not every %s block was properly closed in \"%s\", %d missing closing brackets (])", what, s, depth)
	}
	return append(out, s[start:]), nil
}

// cutNegation strips leading white space and '!' marks; any number of '!' counts as one, as
// in Suricata.
func cutNegation(e string) (string, bool) {
	n := false
	for len(e) > 0 && (e[0] == '!' || isSpace(e[0])) {
		if e[0] == '!' {
			n = true
		}
		e = e[1:]
	}
	return e, n
}

// parseAddrList parses a list (without its brackets) into pos and neg.
func parseAddrList(s string, negate bool, pos, neg *ipSets, vars *config.Vars, depth int) error {
	if depth >= maxAddrRecursion {
		return kwErrf("address", "address block recursion limit reached (max 64)")
	}
	if strings.TrimSpace(s) == "" {
		return nil // "[]": nothing, the merge reports that no address is left
	}
	elems, err := splitTopLevel(s, "address")
	if err != nil {
		return kwErrf("address", "%s", err.Error())
	}
	for i, e := range elems {
		e, n := cutNegation(e)
		par := negate != n
		switch {
		case e == "":
			if i > 0 && i == len(elems)-1 && !n {
				continue // a trailing comma is tolerated
			}
			return kwErrf("address", "failed to parse address \"\" in \"%s\"", s)
		case e[0] == '[':
			end := strings.LastIndexByte(e, ']')
			if end < 0 || strings.TrimRight(e[end+1:], " \t") != "" {
				return kwErrf("address", "failed to parse address \"%s\"", e)
			}
			inner := e[1:end]
			if err := parseAddrBlock(inner, par, pos, neg, vars, depth); err != nil {
				return err
			}
		case e[0] == '$':
			name := e[1:]
			if vars == nil {
				return kwErrf("address", "variable $%s is not defined (no address variables)", name)
			}
			val, err := vars.ResolveAddress(name)
			if err != nil {
				return kwErrf("address", "%s", err.Error())
			}
			if strings.TrimSpace(val) == "" {
				return kwErrf("address", "variable $%s resolved to nothing", name)
			}
			if err := parseAddrBlock(val, par, pos, neg, vars, depth); err != nil {
				return err
			}
		default:
			var r ipSets
			if strings.EqualFold(e, "any") {
				r = ipSets{v4: []IPRange{AllIPv4}, v6: []IPRange{AllIPv6}}
			} else {
				rg, err := parseSingleAddress(e)
				if err != nil {
					return err
				}
				if rg.First.Is4() {
					r.v4 = []IPRange{rg}
				} else {
					r.v6 = []IPRange{rg}
				}
			}
			if par {
				neg.add(r)
			} else {
				pos.add(r)
			}
		}
	}
	return nil
}

// parseAddrBlock parses a bracketed list or a variable's value: inline when not negated,
// resolved on its own and added to the negated entries when negated.
func parseAddrBlock(s string, negated bool, pos, neg *ipSets, vars *config.Vars, depth int) error {
	if !negated {
		return parseAddrList(s, false, pos, neg, vars, depth+1)
	}
	var tpos, tneg ipSets
	if err := parseAddrList(s, false, &tpos, &tneg, vars, depth+1); err != nil {
		return err
	}
	res, err := mergeNot(tpos, tneg)
	if err != nil {
		return kwErrf("address", "%s in \"%s\"", err.Error(), s)
	}
	neg.add(res)
	return nil
}

// parseSingleAddress parses one address: a.b.c.d, a.b.c.d/n, a.b.c.d/m.m.m.m, a.b.c.d-e.f.g.h
// and the IPv6 forms (a ':' makes it IPv6). The address is masked to its network.
func parseSingleAddress(s string) (IPRange, error) {
	bad := func() (IPRange, error) { return IPRange{}, kwErrf("address", "failed to parse address \"%s\"", s) }
	v6 := strings.IndexByte(s, ':') >= 0
	parse := func(t string) (netip.Addr, bool) {
		a, err := netip.ParseAddr(t)
		if err != nil || a.Zone() != "" || a.Is4() == v6 {
			return netip.Addr{}, false
		}
		return a, true
	}
	if ip, mask, ok := strings.Cut(s, "/"); ok {
		a, ok := parse(ip)
		if !ok {
			return bad()
		}
		bits := -1
		if !v6 && strings.IndexByte(mask, '.') >= 0 {
			m, err := netip.ParseAddr(mask)
			if err != nil || !m.Is4() {
				return bad()
			}
			bits = maskBits(m.As4())
			if bits < 0 {
				return IPRange{}, kwErrf("address", "netmask \"%s\" is not usable. Only netmasks that are compatible with CIDR notation are supported. See ticket #5168", mask)
			}
		} else {
			if mask == "" || strings.Trim(mask, "0123456789") != "" {
				return bad()
			}
			n, err := strconv.Atoi(mask)
			max := 32
			if v6 {
				max = 128
			}
			if err != nil || n > max {
				return bad()
			}
			bits = n
		}
		p := netip.PrefixFrom(a, bits).Masked()
		return IPRange{p.Addr(), lastOf(p)}, nil
	}
	if first, last, ok := strings.Cut(s, "-"); ok {
		a, ok1 := parse(first)
		b, ok2 := parse(last)
		if !ok1 || !ok2 || a.Compare(b) > 0 {
			return bad()
		}
		return IPRange{a, b}, nil
	}
	a, ok := parse(s)
	if !ok {
		return bad()
	}
	return IPRange{a, a}, nil
}

// maskBits returns the prefix length of a contiguous netmask, or -1.
func maskBits(m [4]byte) int {
	v := uint32(m[0])<<24 | uint32(m[1])<<16 | uint32(m[2])<<8 | uint32(m[3])
	n := 0
	for n < 32 && v&(1<<(31-n)) != 0 {
		n++
	}
	if n < 32 && v<<n != 0 {
		return -1
	}
	return n
}

// stripSpace removes spaces and tabs.
func stripSpace(s string) string {
	if strings.IndexAny(s, " \t") < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
