package transform

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// grow returns dst[:n], reallocated when its capacity is short.
func grow(dst []byte, n int) []byte {
	if cap(dst) < n {
		return make([]byte, n, n+n/4)
	}
	return dst[:n]
}

// isWS is Suricata's transform white space: \t \n \v \f \r and space.
func isWS(c byte) bool {
	return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' '
}

// lowerX is to_lowercase (casechange.rs: tolower_transform): ASCII only.
type lowerX struct{}

func (lowerX) key() string { return "to_lowercase" }
func (lowerX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = grow(dst, len(src))
	for i, c := range src {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

// upperX is to_uppercase (casechange.rs: toupper_transform): ASCII only.
type upperX struct{}

func (upperX) key() string { return "to_uppercase" }
func (upperX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = grow(dst, len(src))
	for i, c := range src {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

// dotprefixX is dotprefix (dotprefix.rs): one '.' in front.
type dotprefixX struct{}

func (dotprefixX) key() string { return "dotprefix" }
func (dotprefixX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = append(dst[:0], '.')
	return append(dst, src...)
}

// stripWSX is strip_whitespace (strip_whitespace.rs): every white space byte removed.
type stripWSX struct{}

func (stripWSX) key() string { return "strip_whitespace" }
func (stripWSX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = dst[:0]
	for _, c := range src {
		if !isWS(c) {
			dst = append(dst, c)
		}
	}
	return dst
}

// compressWSX is compress_whitespace (compress_whitespace.rs): each run of white space is
// replaced by its first byte.
type compressWSX struct{}

func (compressWSX) key() string { return "compress_whitespace" }
func (compressWSX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = dst[:0]
	space := false
	for _, c := range src {
		if !isWS(c) {
			dst = append(dst, c)
			space = false
		} else if !space {
			dst = append(dst, c)
			space = true
		}
	}
	return dst
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// urlDecodeX is url_decode (urldecode.rs: url_decode_transform_do): '+' is a space, %HH a
// byte; an invalid escape is copied as '%', the hex digit already read and the offending byte
// (which is not looked at again), a truncated one at the end as '%' and its digit.
type urlDecodeX struct{}

func (urlDecodeX) key() string { return "url_decode" }
func (urlDecodeX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = dst[:0]
	state := 0 // 0: none, 1: after '%', 2: after '%' and one hex digit
	var first byte
	for _, c := range src {
		switch {
		case state > 0:
			if v, ok := hexVal(c); ok {
				if state == 1 {
					state, first = 2, c
				} else {
					h, _ := hexVal(first)
					dst = append(dst, h<<4|v)
					state = 0
				}
			} else {
				dst = append(dst, '%')
				if state == 2 {
					dst = append(dst, first)
				}
				dst = append(dst, c)
				state = 0
			}
		case c == '%':
			state = 1
		case c == '+':
			dst = append(dst, ' ')
		default:
			dst = append(dst, c)
		}
	}
	if state > 0 {
		dst = append(dst, '%')
		if state == 2 {
			dst = append(dst, first)
		}
	}
	return dst
}

// xorX is xor (xor.rs): the buffer XORed with the key, cyclically.
type xorX struct{ k []byte }

// compileXor parses the key like xor_parse_do: an even number of hex digits, at most 255
// bytes.
func compileXor(arg string) (xform, error) {
	if len(arg)%2 != 0 {
		return nil, fmt.Errorf("xor: XOR transform key's length must be an even number")
	}
	if len(arg)/2 > 255 {
		return nil, fmt.Errorf("xor: Key length too big for XOR transform")
	}
	k, err := hex.DecodeString(arg)
	if err != nil || len(k) == 0 {
		return nil, fmt.Errorf("xor: XOR transform key must be hexadecimal characters only")
	}
	return xorX{k: k}, nil
}

func (x xorX) key() string { return "xor:" + hex.EncodeToString(x.k) }
func (x xorX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = grow(dst, len(src))
	ki := 0
	for i, c := range src {
		dst[i] = c ^ x.k[ki]
		ki++
		if ki == len(x.k) {
			ki = 0
		}
	}
	return dst
}

// headerLowerX is header_lowercase (http_headers.rs: header_lowertransform_do): bytes are
// lower-cased up to a ':', then copied up to and including '\n'.
type headerLowerX struct{}

func (headerLowerX) key() string { return "header_lowercase" }
func (headerLowerX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = grow(dst, len(src))
	inValue := false
	for i, c := range src {
		if !inValue {
			if c == ':' {
				inValue = true
			} else if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
		} else if c == '\n' {
			inValue = false
		}
		dst[i] = c
	}
	return dst
}

// stripPseudoX is strip_pseudo_headers (http_headers.rs: strip_pseudo_transform_do): every
// line (ending in '\n', or the final unterminated one) that starts with ':' is dropped.
type stripPseudoX struct{}

func (stripPseudoX) key() string { return "strip_pseudo_headers" }
func (stripPseudoX) apply(dst, src []byte, _ *Scratch) []byte {
	dst = dst[:0]
	for len(src) > 0 {
		n := len(src)
		for i, c := range src {
			if c == '\n' {
				n = i + 1
				break
			}
		}
		if src[0] != ':' {
			dst = append(dst, src[:n]...)
		}
		src = src[n:]
	}
	return dst
}

type hashKind uint8

const (
	hashMD5 hashKind = iota
	hashSHA1
	hashSHA256
)

// hashX is to_md5 / to_sha1 / to_sha256 (hash.rs): the buffer becomes its raw digest.
type hashX struct{ kind hashKind }

func (h hashX) key() string {
	return [...]string{"to_md5", "to_sha1", "to_sha256"}[h.kind]
}
func (h hashX) apply(dst, src []byte, _ *Scratch) []byte {
	switch h.kind {
	case hashMD5:
		d := md5.Sum(src)
		return append(dst[:0], d[:]...)
	case hashSHA1:
		d := sha1.Sum(src)
		return append(dst[:0], d[:]...)
	default:
		d := sha256.Sum256(src)
		return append(dst[:0], d[:]...)
	}
}
