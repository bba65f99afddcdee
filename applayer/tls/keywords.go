package tls

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

func registerKeywords() {
	p := applayer.ProtoTLS
	reg := func(name string, dirs [2]bool, prog [2]uint8, compile func(string, bool) (applayer.TxMatch, error)) {
		applayer.RegisterKeyword(applayer.Keyword{Name: name, Proto: p, Dirs: dirs, Progress: prog, Compile: compile})
	}
	certProg := [2]uint8{ClientCertDone, ServerCertDone}
	reg("tls.version", dirBoth, [2]uint8{0, 0}, CompileVersion)
	reg("ssl_version", dirBoth, [2]uint8{0, 0}, CompileSSLVersion)
	reg("ssl_state", dirBoth, [2]uint8{0, 0}, CompileSSLState)
	reg("tls.subject", dirBoth, certProg, func(v string, neg bool) (applayer.TxMatch, error) {
		return compileCertSubstr(v, neg, func(c *Conn) []byte { return c.Cert.Subject })
	})
	reg("tls.issuerdn", dirBoth, certProg, func(v string, neg bool) (applayer.TxMatch, error) {
		return compileCertSubstr(v, neg, func(c *Conn) []byte { return c.Cert.Issuer })
	})
	reg("tls.fingerprint", dirBoth, certProg, CompileFingerprint)
	validity := func(kind validityKind) func(string, bool) (applayer.TxMatch, error) {
		return func(v string, neg bool) (applayer.TxMatch, error) { return CompileValidity(kind, v) }
	}
	reg("tls_cert_notbefore", dirTC, [2]uint8{0, ServerCertDone}, validity(ValidityNotBefore))
	reg("tls_cert_notafter", dirTC, [2]uint8{0, ServerCertDone}, validity(ValidityNotAfter))
	reg("tls_cert_expired", dirTC, [2]uint8{0, ServerCertDone}, validity(ValidityExpired))
	reg("tls_cert_valid", dirTC, [2]uint8{0, ServerCertDone}, validity(ValidityValid))
}

// unquote takes the quotes off a value the rule quoted (the keywords' regexes accept "x").
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// isDraft13 reports a TLS 1.3 draft version (0x7fXX).
func isDraft13(v uint16) bool { return v>>8 == 0x7f }

// versionArgOK is tls.version's regex ^\s*([A-z0-9\.]+|"[A-z0-9\.]+")\s*$ (A-z includes
// [\]^_` as the regex's range does).
func versionArgOK(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'z' || c >= '0' && c <= '9' || c == '.') {
			return false
		}
	}
	return true
}

// CompileVersion is tls.version (DetectTlsVersionParse, DetectTlsVersionMatch): 1.0, 1.1,
// 1.2, 1.3 (prefix compared, as strncmp does) or a raw 0xNNNN; equality with the inspected
// side's version, every TLS 1.3 draft counting as 1.3 unless the version was written raw.
func CompileVersion(value string, negated bool) (applayer.TxMatch, error) {
	v := unquote(strings.TrimSpace(value))
	if !versionArgOK(v) {
		return nil, errors.New("invalid tls.version option")
	}
	var want uint16
	raw := false
	switch {
	case strings.HasPrefix(v, "1.0"):
		want = VersionTLS10
	case strings.HasPrefix(v, "1.1"):
		want = VersionTLS11
	case strings.HasPrefix(v, "1.2"):
		want = VersionTLS12
	case strings.HasPrefix(v, "1.3"):
		want = VersionTLS13
	case strings.HasPrefix(v, "0x") && len(value) == 6:
		n, err := strconv.ParseUint(v[2:], 16, 16)
		if err != nil {
			n = 0 // strtol stops at the first non-hex digit
			for _, c := range v[2:] {
				d, ok := hexVal(byte(c))
				if !ok {
					break
				}
				n = n<<4 | uint64(d)
			}
		}
		want, raw = uint16(n), true
	default:
		return nil, errors.New("invalid tls.version value")
	}
	return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
		s := stateOf(tx)
		if s == nil {
			return false
		}
		ver := s.conn(dir).Version
		if !raw && isDraft13(ver) {
			ver = VersionTLS13
		}
		return ver == want
	}, nil
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// sslVersionWords are ssl_version's names, by set bit.
var sslVersionWords = []string{"sslv2", "sslv3", "tls1.0", "tls1.1", "tls1.2", "tls1.3"}

// sslVersionBit is the ssl_version bit of a side's version, -1 for a version the keyword does
// not know (DetectSslVersionMatch's switch: the 1.3 drafts 16-28 and pre-16 are tls1.3).
func sslVersionBit(v uint16) int {
	switch {
	case v == VersionSSL2:
		return 0
	case v == VersionSSL3:
		return 1
	case v == VersionTLS10:
		return 2
	case v == VersionTLS11:
		return 3
	case v == VersionTLS12:
		return 4
	case v == VersionTLS13, v == VersionTLS13Draft, v >= 0x7f10 && v <= 0x7f1c:
		return 5
	}
	return -1
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// CompileSSLVersion is ssl_version (DetectSslVersionParse): a list of names separated by
// commas or spaces, case-insensitive, no duplicates, an optional leading '!' negating the
// set. An unknown side version never matches, negated or not.
func CompileSSLVersion(value string, negated bool) (applayer.TxMatch, error) {
	str := value
	for len(str) > 0 && isSpace(str[0]) {
		str = str[1:]
	}
	if str == "" && !negated {
		return nil, errors.New("invalid empty value")
	}
	neg := negated
	if strings.HasPrefix(str, "!") {
		neg = true
		str = str[1:]
	}
	var set [6]bool
	for len(str) > 0 {
		n := 0
		for n < len(str) && !isSpace(str[n]) && str[n] != ',' {
			n++
		}
		w := str[:n]
		found := false
		for i, k := range sslVersionWords {
			if strings.EqualFold(k, w) {
				if set[i] {
					return nil, errors.New("invalid duplicate value")
				}
				set[i], found = true, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("invalid unknown value %q", w)
		}
		str = str[n:]
		for len(str) > 0 && (isSpace(str[0]) || str[0] == ',') {
			str = str[1:]
		}
	}
	return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
		s := stateOf(tx)
		if s == nil {
			return false
		}
		b := sslVersionBit(s.conn(dir).Version)
		if b < 0 {
			return false
		}
		return set[b] != neg
	}, nil
}

// sslStates are ssl_state's names and the state flags they test.
var sslStates = map[string]uint32{
	"client_hello": FlagStateClientHello, "server_hello": FlagStateServerHello,
	"client_keyx": FlagStateClientKeyx, "server_keyx": FlagStateServerKeyx, "unknown": FlagStateUnknown,
}

func isWordChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// CompileSSLState is ssl_state (DetectSslStateParse, DetectSslStateMatch): names separated by
// '|' or ',', each optionally '!'; it matches when (named bits AND the flags of the handshake
// messages just parsed) XOR (the '!' bits) is non-zero.
func CompileSSLState(value string, negated bool) (applayer.TxMatch, error) {
	str := value
	if negated {
		str = "!" + str
	}
	var flags, mask uint32
	first := true
	for first || len(str) > 0 {
		if !first {
			i := 0
			for i < len(str) && isSpace(str[i]) {
				i++
			}
			if i >= len(str) || str[i] != '|' && str[i] != ',' {
				return nil, fmt.Errorf("invalid ssl_state option %q", value)
			}
			i++
			for i < len(str) && isSpace(str[i]) {
				i++
			}
			str = str[i:]
		}
		first = false
		neg := false
		if strings.HasPrefix(str, "!") {
			neg, str = true, str[1:]
		}
		n := 0
		for n < len(str) && isWordChar(str[n]) {
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("invalid ssl_state option %q", value)
		}
		f, ok := sslStates[str[:n]]
		if !ok {
			return nil, fmt.Errorf("found invalid option %q in ssl_state keyword", str[:n])
		}
		flags |= f
		if neg {
			mask |= f
		}
		str = str[n:]
	}
	return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
		s := stateOf(tx)
		if s == nil {
			return false
		}
		return (flags&s.CurrentFlags)^mask != 0
	}, nil
}

// subjectArgOK is tls.subject's / tls.issuerdn's character set [A-z0-9\s\-\.=,\*@].
func subjectArgOK(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'z' || c >= '0' && c <= '9' || isSpace(c) || strings.IndexByte("-.=,*@", c) >= 0) {
			return false
		}
	}
	return true
}

// compileCertSubstr is tls.subject / tls.issuerdn (DetectTlsSubjectMatch): a case-sensitive
// substring of the side's cert0 field, negated by '!'; without a certificate no match.
func compileCertSubstr(value string, negated bool, field func(c *Conn) []byte) (applayer.TxMatch, error) {
	value = unquote(value)
	if strings.HasPrefix(value, "!") {
		negated, value = true, value[1:]
	}
	if !subjectArgOK(value) {
		return nil, fmt.Errorf("invalid value %q", value)
	}
	want := []byte(value)
	return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
		s := stateOf(tx)
		if s == nil {
			return false
		}
		c := certConn(s, dir)
		if !c.HasCert {
			return false
		}
		return bytes.Contains(field(c), want) != negated
	}, nil
}

// CompileFingerprint is the legacy tls.fingerprint: Suricata turns it into content:"x" on the
// tls.cert_fingerprint buffer (DetectTlsFingerprintSetup, the buffer lower-casing the content
// at load); here it is that content match, done by the keyword: the lower-cased value is a
// substring of the side's fingerprint ('!': is not), no certificate no match.
func CompileFingerprint(value string, negated bool) (applayer.TxMatch, error) {
	value = unquote(value)
	if strings.HasPrefix(value, "!") {
		negated, value = true, value[1:]
	}
	if value == "" {
		return nil, errors.New("tls.fingerprint: empty value")
	}
	for i := 0; i < len(value); i++ {
		c := value[i]
		if !(c >= 'A' && c <= 'z' || c >= '0' && c <= '9' || c == ':' || c == '*' || c == ' ') {
			return nil, fmt.Errorf("tls.fingerprint: invalid value %q", value)
		}
	}
	want := []byte(strings.ToLower(value))
	return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
		s := stateOf(tx)
		if s == nil {
			return false
		}
		c := certConn(s, dir)
		if !c.HasCert {
			return false
		}
		return bytes.Contains(c.Cert.Fingerprint, want) != negated
	}, nil
}

// validityKind says which tls validity keyword is compiled.
type validityKind uint8

// The validity keywords.
const (
	ValidityNotBefore validityKind = iota
	ValidityNotAfter
	ValidityExpired
	ValidityValid
)

// CompileValidity is tls_cert_notbefore / tls_cert_notafter ([<|>]date or date1<>date2: '<'
// is <=, '>' >=, a range is inclusive, a plain date equality) and tls_cert_expired /
// tls_cert_valid (no argument: the packet time is after notAfter / not after it). A date is
// epoch seconds or %Y-%m[-%d[ %H[:%M[:%S]]]] (or with 'T'), UTC (DetectTlsValidityParse,
// DateStringToEpoch). A certificate time of 0 never matches.
func CompileValidity(kind validityKind, value string) (applayer.TxMatch, error) {
	var mode byte // '=', '<', '>', 'r'
	var e1, e2 int64
	switch kind {
	case ValidityExpired, ValidityValid:
		if strings.TrimSpace(value) != "" {
			return nil, errors.New("keyword takes no argument")
		}
	default:
		v := strings.TrimSpace(value)
		mode = '='
		if v != "" && (v[0] == '<' || v[0] == '>') {
			mode, v = v[0], strings.TrimSpace(v[1:])
		}
		a, b, isRange := strings.Cut(v, "<>")
		if isRange {
			if mode != '=' {
				return nil, errors.New("range with a mode")
			}
			mode = 'r'
		}
		var err error
		if e1, err = dateToEpoch(a); err != nil {
			return nil, err
		}
		if isRange {
			if e2, err = dateToEpoch(b); err != nil {
				return nil, err
			}
			if e1 >= e2 {
				return nil, errors.New("date range: first date must be earlier")
			}
		}
	}
	return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
		s := stateOf(tx)
		if s == nil || dir != flow.ToClient {
			return false
		}
		c := &s.Server
		if !c.HasCert {
			return false
		}
		t := c.Cert.NotAfter
		if kind == ValidityNotBefore {
			t = c.Cert.NotBefore
		}
		if t == 0 {
			return false
		}
		now := int64(0)
		if ctx != nil {
			now = ctx.PacketTime
		}
		switch kind {
		case ValidityExpired:
			return now > t
		case ValidityValid:
			return now <= t
		}
		switch mode {
		case '=':
			return t == e1
		case '<':
			return t <= e1
		case '>':
			return t >= e1
		default:
			return t >= e1 && t <= e2
		}
	}, nil
}

// dateLayouts are DateStringToEpoch's strptime patterns.
var dateLayouts = []string{
	"2006-1", "2006-1-2", "2006-1-2 15", "2006-1-2 15:4", "2006-1-2 15:4:5",
	"2006-1-2T15", "2006-1-2T15:4", "2006-1-2T15:4:5", "15:4", "15:4:5",
}

func dateToEpoch(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) >= 20 {
		return 0, fmt.Errorf("invalid date %q", v)
	}
	allDigits := true
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid date %q", v)
		}
		return n, nil
	}
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			return t.Unix(), nil
		}
	}
	return 0, fmt.Errorf("invalid date %q", v)
}
