package transform

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

type b64Mode uint8

const (
	modeRFC4648 b64Mode = iota // Suricata's default
	modeRFC2045
	modeStrict
)

var b64ModeNames = [...]string{"rfc4648", "rfc2045", "strict"}

// base64X is from_base64 (base64.rs: base64_transform).
type base64X struct {
	nbytes, offset uint32
	mode           b64Mode
}

// compileBase64 parses the options like parse_transform_base64: up to three
// comma-separated "name value" pairs among bytes, offset (both numbers up to 65535; bytes is
// checked after truncation to 32 bits, as Suricata does) and mode (rfc4648, rfc2045, strict,
// case-sensitive), each at most once. A list element that is empty ends the list: what
// follows is ignored.
func compileBase64(arg string) (xform, error) {
	x := base64X{}
	if arg == "" {
		return x, nil
	}
	var vals []string
	for _, part := range strings.Split(arg, ",") {
		part = strings.TrimLeft(part, " \t\r\n")
		if part == "" {
			break
		}
		vals = append(vals, part)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("from_base64: invalid argument %q", arg)
	}
	if len(vals) > 3 {
		return nil, fmt.Errorf("from_base64: Incorrect argument string; at least 1 value must be specified but no more than 3: %q", arg)
	}
	var seen [3]bool
	for _, v := range vals {
		i := strings.IndexAny(v, " \t\r\n")
		if i < 0 {
			return nil, fmt.Errorf("from_base64: invalid option %q", v)
		}
		name, val := strings.TrimSpace(v[:i]), strings.TrimSpace(v[i:])
		switch name {
		case "mode":
			if seen[0] {
				return nil, fmt.Errorf("from_base64: mode already set")
			}
			seen[0] = true
			switch val {
			case "rfc4648":
				x.mode = modeRFC4648
			case "rfc2045":
				x.mode = modeRFC2045
			case "strict":
				x.mode = modeStrict
			default:
				return nil, fmt.Errorf("from_base64: invalid mode value: %s", val)
			}
		case "offset", "bytes":
			idx := 1
			if name == "bytes" {
				idx = 2
			}
			if seen[idx] {
				return nil, fmt.Errorf("from_base64: %s already set", name)
			}
			seen[idx] = true
			tok := val
			if j := strings.IndexAny(tok, " \t,"); j >= 0 {
				tok = tok[:j]
			}
			n, err := strconv.ParseUint(tok, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("from_base64: %s value must be a value, not a variable name", name)
			}
			if name == "offset" {
				if n > 65535 {
					return nil, fmt.Errorf("from_base64: invalid offset value: must be between 0 and 65535: %d", n)
				}
				x.offset = uint32(n)
			} else {
				if uint32(n) > 65535 {
					return nil, fmt.Errorf("from_base64: invalid bytes value: must be between 0 and 65535: %d", n)
				}
				x.nbytes = uint32(n)
			}
		default:
			return nil, fmt.Errorf("from_base64: unknown base64 keyword: %s", name)
		}
	}
	return x, nil
}

func (x base64X) key() string {
	return fmt.Sprintf("from_base64:%d,%d,%s", x.nbytes, x.offset, b64ModeNames[x.mode])
}

func (x base64X) apply(dst, src []byte, _ *Scratch) []byte {
	in := src
	if x.offset > 0 {
		if int(x.offset) >= len(in) {
			return src
		}
		in = in[x.offset:]
	}
	if x.nbytes > 0 {
		if int(x.nbytes) >= len(in) {
			return src
		}
		in = in[:x.nbytes]
	}
	dst = grow(dst, len(in))
	var n int
	switch x.mode {
	case modeRFC4648:
		n = decodeRFC4648(dst, in)
	case modeRFC2045:
		n = decodeRFC2045(dst, in)
	default:
		n = decodeStrict(dst, in)
	}
	if n == 0 {
		// SCBase64Decode decoded nothing (or failed): the buffer is left as it was.
		return src
	}
	return dst[:n]
}

// b64Val maps the standard alphabet; 0xff for any other byte.
var b64Val = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = byte(i)
	}
	return t
}()

// quantum decodes four collected bytes (alphabet or '=') like Suricata's decoders: '=' in
// the third place gives one byte (the fourth is not looked at), in the fourth two; '=' in the
// first two places is an error, which makes the whole decode fail.
func quantum(out []byte, q *[4]byte) (int, bool) {
	a, b := b64Val[q[0]], b64Val[q[1]]
	if a == 0xff || b == 0xff {
		return 0, false
	}
	out[0] = a<<2 | b>>4
	if q[2] == '=' {
		return 1, true
	}
	c := b64Val[q[2]]
	out[1] = b<<4 | c>>2
	if q[3] == '=' {
		return 2, true
	}
	out[2] = c<<6 | b64Val[q[3]]
	return 3, true
}

// decodeRFC4648 is utils/base64.rs: decode_rfc4648: decoding stops at the first byte that
// is neither in the alphabet nor '='; a partial last quantum is padded with '=' and decoded
// (so a single leftover character fails the whole decode). On failure nothing is decoded.
func decodeRFC4648(out, in []byte) int {
	var q [4]byte
	nb, off := 0, 0
	for len(in) > 0 {
		stop := false
		for nb < 4 {
			if len(in) > 0 && (b64Val[in[0]] != 0xff || in[0] == '=') {
				q[nb] = in[0]
				nb++
				in = in[1:]
				continue
			}
			for nb > 0 && nb < 4 {
				q[nb] = '='
				nb++
			}
			stop = true
			break
		}
		if nb == 4 {
			k, ok := quantum(out[off:], &q)
			if !ok {
				return 0
			}
			off += k
			nb = 0
		}
		if stop {
			break
		}
	}
	return off
}

// decodeRFC2045 is utils/base64.rs: decode_rfc2045: bytes outside the alphabet (and '=') are
// skipped; a partial last quantum is dropped. On failure nothing is decoded.
func decodeRFC2045(out, in []byte) int {
	var q [4]byte
	nb, off := 0, 0
	for _, c := range in {
		if b64Val[c] == 0xff && c != '=' {
			continue
		}
		q[nb] = c
		nb++
		if nb == 4 {
			k, ok := quantum(out[off:], &q)
			if !ok {
				return 0
			}
			off += k
			nb = 0
		}
	}
	return off
}

var strictEnc = base64.StdEncoding.Strict()

// decodeStrict is the base64 crate's STANDARD engine (canonical padding, no trailing bits, no
// byte outside the alphabet): all or nothing. Go's decoder skips \r and \n, the crate does
// not.
func decodeStrict(out, in []byte) int {
	if bytes.IndexByte(in, '\n') >= 0 || bytes.IndexByte(in, '\r') >= 0 {
		return 0
	}
	if len(out) < strictEnc.DecodedLen(len(in)) {
		return 0
	}
	n, err := strictEnc.Decode(out, in)
	if err != nil {
		return 0
	}
	return n
}
