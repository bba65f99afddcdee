package rules

import (
	"strconv"
	"strings"
)

// parseUintC parses an unsigned number the way Suricata's strict StringParseUint* helpers do
// with base 0: leading white space and a '+' are allowed, "0x" means hex and a leading 0 octal,
// nothing may follow the number.
func parseUintC(s string, max uint64) (uint64, error) {
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	t = strings.TrimPrefix(t, "+")
	if t == "" {
		return 0, errf("invalid number \"%s\"", s)
	}
	v, err := strconv.ParseUint(t, 0, 64)
	if err != nil || strings.ContainsRune(t, '_') || v > max {
		return 0, errf("invalid number \"%s\"", s)
	}
	return v, nil
}

// parseIntC is parseUintC for signed numbers within [min, max].
func parseIntC(s string, min, max int64) (int64, error) {
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	if t == "" {
		return 0, errf("invalid number \"%s\"", s)
	}
	v, err := strconv.ParseInt(t, 0, 64)
	if err != nil || strings.ContainsRune(t, '_') || v < min || v > max {
		return 0, errf("invalid number \"%s\"", s)
	}
	return v, nil
}

// parseUintStrict parses a plain decimal number (digits only) up to max.
func parseUintStrict(s string, max uint64) (uint64, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, errf("invalid number \"%s\"", s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > max {
		return 0, errf("invalid number \"%s\"", s)
	}
	return v, nil
}

// parseUintLoose parses a number like C's strtoull with base 10 in Suricata's non-strict
// helpers (ByteExtractStringUint32): leading white space and a sign are allowed and whatever
// follows the digits is ignored; at least one digit is needed and the text is at most 23 bytes.
func parseUintLoose(s string, max uint64) (uint64, error) {
	if len(s) > 23 {
		return 0, errf("invalid number \"%s\"", s)
	}
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, errf("invalid number \"%s\"", s)
	}
	v, err := strconv.ParseUint(t[:i], 10, 64)
	if err != nil {
		return 0, errf("invalid number \"%s\"", s)
	}
	if neg && v != 0 {
		v = -v // strtoull wraps negative input
	}
	if v > max {
		return 0, errf("invalid number \"%s\"", s)
	}
	return v, nil
}

// isAlpha reports whether c is an ASCII letter.
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
