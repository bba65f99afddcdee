package uri

import (
	"bytes"
	"net/netip"
	"unicode"
)

// URI is a request target split into its parts. Every field is a sub-slice
// of the raw request target given to Parse (nothing is copied); a part that
// is absent is nil and its Has flag is false. Scheme, Username, Password,
// Query and Fragment may be present and empty; Hostname, Port and Path are
// never empty when present (libhtp's parsers need at least one byte).
type URI struct {
	Scheme, Username, Password, Hostname, Port, Path, Query, Fragment []byte
	// HasScheme is set when a scheme (text before the first ':' of a target
	// not starting with '/') was found.
	HasScheme bool
	// HasAuthority is set when a hostname was found (after a scheme, or by
	// ParseHostPort).
	HasAuthority bool
	// HasUsername, HasPassword, HasQuery and HasFragment tell present-empty
	// from absent.
	HasUsername, HasPassword, HasQuery, HasFragment bool
}

func isAny(c byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// isNot returns the length of the longest prefix of b containing none of set
// (nom's is_not, which fails when that prefix is empty: length 0).
func isNot(b []byte, set string) int {
	for i, c := range b {
		if isAny(c, set) {
			return i
		}
	}
	return len(b)
}

func skipSpaces(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return b
}

// hostnameAt is libhtp parsers.rs hostname(): an optional "//", no '/' after
// it, leading spaces skipped, then an IPv6 literal ("[" not-"/?#]"+ "]"?) or
// a run of bytes other than "/?#:", trailing spaces trimmed. It returns the
// hostname and the rest, or ok=false.
func hostnameAt(in []byte) (host, rest []byte, ok bool) {
	b := in
	if len(b) >= 2 && b[0] == '/' && b[1] == '/' {
		b = b[2:]
	}
	if len(b) > 0 && b[0] == '/' {
		return nil, in, false
	}
	b = skipSpaces(b)
	n := 0
	if len(b) > 0 && b[0] == '[' {
		if m := isNot(b[1:], "/?#]"); m > 0 {
			n = 1 + m
			if n < len(b) && b[n] == ']' {
				n++
			}
		}
	}
	if n == 0 {
		n = isNot(b, "/?#:")
	}
	if n == 0 {
		return nil, in, false
	}
	host, rest = b[:n], b[n:]
	for len(host) > 0 && host[len(host)-1] == ' ' {
		host = host[:len(host)-1]
	}
	return host, rest, true
}

// portAt is libhtp parsers.rs port(): ':' spaces* not-"/?#"+, the port being
// that run up to its first space.
func portAt(in []byte) (port, rest []byte, ok bool) {
	if len(in) == 0 || in[0] != ':' {
		return nil, in, false
	}
	b := skipSpaces(in[1:])
	n := isNot(b, "/?#")
	if n == 0 {
		return nil, in, false
	}
	p := b[:n]
	return p[:isNot(p, " ")], b[n:], true
}

// Parse splits a request target as libhtp's Uri::parse_uri does (origin,
// absolute and asterisk forms; use ParseHostPort for CONNECT's authority
// form). It makes no attempt to validate: a scheme is whatever precedes the
// first ':' of a target that does not start with '/', credentials and host
// are only looked for after a scheme, and everything up to '?' or '#' is the
// path.
func Parse(raw []byte, u *URI) {
	*u = URI{}
	in := raw
	if !(len(in) > 0 && in[0] == '/') {
		if i := bytes.IndexByte(in, ':'); i >= 0 {
			u.Scheme, u.HasScheme = in[:i], true
			in = in[i+1:]
			// credentials(): "//", no third '/', then everything up to '@'.
			if len(in) >= 2 && in[0] == '/' && in[1] == '/' && !(len(in) > 2 && in[2] == '/') {
				if j := bytes.IndexByte(in[2:], '@'); j >= 0 {
					cred := in[2 : 2+j]
					in = in[2+j+1:]
					u.HasUsername = true
					if k := bytes.IndexByte(cred, ':'); k >= 0 {
						u.Username, u.Password, u.HasPassword = cred[:k], cred[k+1:], true
					} else {
						u.Username = cred
					}
				}
			}
			if h, rest, ok := hostnameAt(in); ok {
				u.Hostname, u.HasAuthority = h, true
				in = rest
				if p, rest, ok := portAt(in); ok {
					u.Port = p
					in = rest
				}
			}
		}
	}
	if n := isNot(in, "#?"); n > 0 {
		u.Path = in[:n]
		in = in[n:]
	}
	if len(in) > 0 && in[0] == '?' {
		in = in[1:]
		n := bytes.IndexByte(in, '#')
		if n < 0 {
			n = len(in)
		}
		u.Query, u.HasQuery = in[:n], true
		in = in[n:]
	}
	if len(in) > 0 && in[0] == '#' {
		u.Fragment, u.HasFragment = in[1:], true
	}
}

// ParseHostPort parses an authority ("host[:port]", CONNECT's request
// target, or a Host header value) as libhtp's parse_hostport /
// Uri::parse_uri_hostport: Hostname and Port are set in u (everything else
// cleared) and valid is false when the hostname fails ValidateHostname, the
// port is not a number in 1..65535, or junk follows the host. Hostname is not
// lowercased here (NormalizeHostname does that).
func ParseHostPort(raw []byte, u *URI) (valid bool) {
	*u = URI{}
	host, rest, ok := hostnameAt(raw)
	if !ok {
		return false
	}
	u.Hostname, u.HasAuthority = host, true
	valid = ValidateHostname(host)
	if p, _, ok := portAt(rest); ok {
		u.Port = p
		if _, ok := ParsePort(p); !ok {
			valid = false
		}
	} else if len(rest) > 0 {
		valid = false
	}
	return valid
}

// ParsePort converts a port as libhtp's convert_port: decimal digits with an
// optional leading '+' (Rust's u16 parsing), 1..65535.
func ParsePort(p []byte) (port int, ok bool) {
	if len(p) > 0 && p[0] == '+' {
		p = p[1:]
	}
	if len(p) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, false
		}
	}
	if n == 0 {
		return 0, false
	}
	return n, true
}

// NormalizeHostname appends host lowercased (ASCII) with trailing dots removed
// (libhtp Uri::normalized_hostname, after its url-decoding).
func NormalizeHostname(dst, host []byte) []byte {
	for len(host) > 0 && host[len(host)-1] == '.' {
		host = host[:len(host)-1]
	}
	for _, c := range host {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// ValidateHostname is libhtp's relaxed validate_hostname: 1..255 bytes; a
// bracketed IPv6 literal must parse; otherwise no leading '.', no "..", labels
// of at most 63 bytes made of '_', '-' and alphanumerics.
func ValidateHostname(h []byte) bool {
	if len(h) == 0 || len(h) > 255 {
		return false
	}
	if h[0] == '[' {
		if n := isNot(h[1:], "#?/]"); n > 0 && 1+n < len(h) && h[1+n] == ']' {
			a, err := netip.ParseAddr(string(h[1 : 1+n]))
			return err == nil && a.Is6() && a.Zone() == ""
		}
	}
	if h[0] == '.' || bytes.Contains(h, []byte("..")) {
		return false
	}
	label := 0
	for _, c := range h {
		if c == '.' {
			label = 0
			continue
		}
		label++
		if label > 63 {
			return false
		}
		// Rust's char::is_alphanumeric on the byte taken as a Latin-1 code point.
		if !(c == '_' || c == '-' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || unicode.IsNumber(rune(c))) {
			return false
		}
	}
	return true
}
