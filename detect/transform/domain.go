package transform

import (
	"net/netip"
	"unsafe"

	"golang.org/x/net/publicsuffix"
)

// domainX is domain / tld (domain.rs: get_domain, get_tld), the registrable domain of the
// buffer (its public suffix and one label more) or that domain's public suffix, by the
// public suffix list's ICANN and private sections (Suricata: the psl crate; here
// golang.org/x/net/publicsuffix, whose table holds both). When the buffer has no registrable
// domain (it is itself a public suffix, or a single label) the result is an empty buffer.
type domainX struct{ tld bool }

func (d domainX) key() string {
	if d.tld {
		return "tld"
	}
	return "domain"
}

func (d domainX) apply(dst, src []byte, s *Scratch) []byte {
	dom, suf, ok := registrable(src, s)
	if !ok {
		return dst[:0]
	}
	if d.tld {
		return append(dst[:0], suf...)
	}
	return append(dst[:0], dom...)
}

// suffixLen is the length of the public suffix of name (no trailing dot): the longest
// matching rule, with wildcards and exceptions, or the last label when none matches. The
// lookup is byte-exact: the list is lower case, so an upper-case label matches no rule.
//
// x/net's PublicSuffix returns an IP address whole (psl has no such case: "1.2.3.4" has the
// suffix "4"); such a name is looked up behind a prefix that makes it no address, which
// changes no label but the first.
func suffixLen(name []byte, s *Scratch) int {
	if len(name) == 0 {
		return 0
	}
	if maybeIP(name) {
		if _, err := netip.ParseAddr(string(name)); err == nil {
			b := append(append(s.name[:0], 'x'), name...)
			s.name = b
			ps, _ := publicsuffix.PublicSuffix(unsafe.String(&b[0], len(b)))
			return min(len(ps), len(name))
		}
	}
	// PublicSuffix neither keeps nor modifies the string.
	ps, _ := publicsuffix.PublicSuffix(unsafe.String(&name[0], len(name)))
	return len(ps)
}

// maybeIP: only hex digits, '.', ':' and '%' (then anything, a zone) can make an address.
func maybeIP(b []byte) bool {
	for _, c := range b {
		switch {
		case c == '%':
			return true
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// registrable reproduces psl_types::List::domain: a trailing dot is set aside for the lookup
// and kept in both results; the registrable domain is the suffix plus the label before it
// (which may be empty: "a..com" gives ".com"); none when the name is no longer than its
// suffix plus two bytes.
func registrable(name []byte, s *Scratch) (dom, suf []byte, ok bool) {
	body := name
	fqdn := len(name) > 0 && name[len(name)-1] == '.'
	if fqdn {
		body = name[:len(name)-1]
	}
	sl := suffixLen(body, s)
	if fqdn {
		sl++
	}
	n := len(name)
	if sl == 0 || n < sl+2 {
		return nil, nil, false
	}
	sub := name[:n-1-sl]
	root := len(sub)
	for i := len(sub) - 1; i >= 0; i-- {
		if sub[i] == '.' {
			root = len(sub) - 1 - i
			break
		}
	}
	reg := root + 1 + sl
	return name[n-reg:], name[n-sl:], true
}
