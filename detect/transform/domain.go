package transform

import (
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

func (d domainX) apply(dst, src []byte, _ *Scratch) []byte {
	dom, suf, ok := registrable(src)
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
func suffixLen(name []byte) int {
	if len(name) == 0 {
		return 0
	}
	// PublicSuffix neither keeps nor modifies the string.
	s, _ := publicsuffix.PublicSuffix(unsafe.String(&name[0], len(name)))
	return len(s)
}

// registrable reproduces psl_types::List::domain: a trailing dot is set aside for the lookup
// and kept in both results; the registrable domain is the suffix plus the label before it
// (which may be empty: "a..com" gives ".com"); none when the name is no longer than its
// suffix plus two bytes.
func registrable(name []byte) (dom, suf []byte, ok bool) {
	body := name
	fqdn := len(name) > 0 && name[len(name)-1] == '.'
	if fqdn {
		body = name[:len(name)-1]
	}
	sl := suffixLen(body)
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
