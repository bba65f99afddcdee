package payload

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/meerkat-ids/meerkat/rules"
)

// base64_decode and base64_data (detect-base64-decode.c, detect-base64-data.c and the
// DETECT_BASE64_DECODE case of detect-engine-content-inspection.c).
//
// base64_decode decodes, in RFC 4648 mode, at most `bytes` bytes of the inspected buffer
// from `offset` (from the current inspection offset when `relative`, else from the start)
// into the worker's decode buffer. When it decoded something and the rule has a base64_data
// list, that list is inspected over the decoded bytes as a new buffer (inspection offset 0,
// same recursion counter); its match is the match of the whole buffer: base64_data is a
// terminal list, the keywords after base64_decode in the buffer are never evaluated. In
// every other case (nothing decoded, no base64_data list, the list did not match) the
// keyword does not match, and the list's "give up" (-1) becomes a plain no-match.

// Base64DecodeMax is BASE64_DECODE_MAX: the `bytes` of a base64_decode that gives none (or
// 0), the largest `bytes` Suricata accepts, and so the size of State's decode buffer.
const Base64DecodeMax = 65535

// b64OptRe is the pattern DetectBase64DecodeParse matches the option text against (PCRE \s is
// the five ASCII spaces and VT). It always matches at the start: every part is optional.
var b64OptRe = regexp.MustCompile(`^[\t\n\v\f\r ]*(bytes[\t\n\v\f\r ]+([0-9]+),?)?[\t\n\v\f\r ]*(offset[\t\n\v\f\r ]+([0-9]+),?)?[\t\n\v\f\r ]*([0-9A-Za-z_]+)?`)

// ParseBase64Decode parses a base64_decode option text as DetectBase64DecodeParse does: the
// options must come in the order bytes, offset, relative; what the pattern does not take is
// ignored (so "bytes 10 , offset 2" is bytes 10 alone); a word in the relative place that is
// not "relative", a bytes over 65535 or an offset over 2^32-1 is an error, and so is text in
// which not even the bytes part matched. bytes 0 (or none) is Base64DecodeMax. value "" is
// the keyword without an argument: the defaults.
func ParseBase64Decode(value string) (nbytes, offset uint32, relative bool, err error) {
	nbytes = Base64DecodeMax
	if value == "" {
		return nbytes, 0, false, nil
	}
	m := b64OptRe.FindStringSubmatchIndex(value)
	// pcre2_match's return: 1 + the highest group that took part in the match.
	rc := 1
	for g := 1; g <= 5; g++ {
		if m[2*g] >= 0 {
			rc = g + 1
		}
	}
	group := func(g int) (string, bool) {
		if m[2*g] < 0 {
			return "", false
		}
		return value[m[2*g]:m[2*g+1]], true
	}
	if rc < 3 {
		return 0, 0, false, fmt.Errorf("base64_decode: invalid argument %q", value)
	}
	if s, ok := group(2); ok {
		n, perr := strconv.ParseUint(s, 10, 16)
		if perr != nil {
			return 0, 0, false, fmt.Errorf("base64_decode: Bad value for bytes: %q", s)
		}
		if n != 0 {
			nbytes = uint32(n)
		}
	}
	if s, ok := group(4); ok {
		n, perr := strconv.ParseUint(s, 10, 32)
		if perr != nil {
			return 0, 0, false, fmt.Errorf("base64_decode: Bad value for offset: %q", s)
		}
		offset = uint32(n)
	}
	if s, ok := group(5); ok {
		if s != "relative" {
			return 0, 0, false, fmt.Errorf("base64_decode: Invalid argument: %q", s)
		}
		relative = true
	}
	return nbytes, offset, relative, nil
}

// base64Decode compiles a base64_decode (DetectBase64DecodeSetup).
func (c *compiler) base64Decode(m *rules.Option) (op, error) {
	o := op{kind: kBase64Decode, distVar: noVar, withinVar: noVar, depthVar: noVar, offsetVar: noVar,
		dataVar: noVar, nbytesVar: noVar, offVar: noVar, valueVar: noVar, resultVar: noVar}
	var err error
	if o.b64Bytes, o.b64Offset, o.relative, err = ParseBase64Decode(m.Value); err != nil {
		return o, err
	}
	if o.b64, err = c.base64Data(); err != nil {
		return o, err
	}
	return o, nil
}

// base64Decode is DetectBase64DecodeDoMatch followed by the inspection of the base64_data
// list (DetectEngineContentInspectionInternal, DETECT_BASE64_DECODE): 1 when the list
// matched the decoded bytes, else 0.
func (o *op) base64Decode(buf []byte, st *State) int {
	data := buf
	if o.relative {
		if int(st.bo) > len(data) {
			return 0 // cannot happen: no keyword moves the offset past the buffer
		}
		data = data[st.bo:]
	}
	if o.b64Offset != 0 {
		if uint64(o.b64Offset) >= uint64(len(data)) {
			return 0
		}
		data = data[o.b64Offset:]
	}
	if uint64(len(data)) > uint64(o.b64Bytes) {
		data = data[:o.b64Bytes]
	}
	if len(data) > 0 {
		if st.b64 == nil {
			st.b64 = make([]byte, Base64DecodeMax)
		}
		// data may lie in st.b64 itself (a base64_decode inside base64_data): the decoder
		// writes each quantum behind the bytes it has read, as Suricata's does in place.
		st.b64Len = decodeRFC4648(st.b64, data)
	}
	// With nothing to decode, Suricata leaves base64_decoded_len as the last decode of the
	// packet left it, and so does this.
	if st.b64Len == 0 || o.b64 == nil || len(o.b64.ops) == 0 {
		return 0
	}
	st.bo = 0 // the decoded data is a new buffer
	if o.b64.inspect(0, st.b64[:st.b64Len], st) == 1 {
		return 1
	}
	return 0
}

// Base64Decoded returns what the last base64_decode of this packet decoded
// (det_ctx->base64_decoded): valid until the next Inspect or StartPacket.
func (st *State) Base64Decoded() []byte {
	if st.b64 == nil {
		return nil
	}
	return st.b64[:st.b64Len]
}

// b64Map maps the standard alphabet (base64_map in rust/src/utils/base64.rs); 0xff marks any
// other byte.
var b64Map = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = byte(i)
	}
	return t
}()

// decodeRFC4648 is SCBase64Decode in SCBase64ModeRFC4648 (decode_rfc4648): it takes bytes
// of the alphabet or '=' four at a time and stops at the first other byte, padding a partial
// last quantum with '='. A quantum decodes to one byte when its third byte is '=' (the fourth
// is not looked at), to two when the fourth is, else to three. A '=' in the first two places
// is an error, after which SCBase64Decode reports nothing decoded (the bytes written stay).
// out must hold len(in) bytes; it may start at or before in in the same array.
func decodeRFC4648(out, in []byte) int {
	var q [4]byte
	nb, n := 0, 0
	for i := 0; ; {
		for nb < 4 && i < len(in) && (b64Map[in[i]] != 0xff || in[i] == '=') {
			q[nb] = in[i]
			nb++
			i++
		}
		stop := nb < 4 // a byte outside the alphabet, or the end of the input
		if stop {
			if nb == 0 {
				break
			}
			for ; nb < 4; nb++ {
				q[nb] = '='
			}
		}
		a, b := b64Map[q[0]], b64Map[q[1]]
		if a == 0xff || b == 0xff {
			return 0
		}
		out[n] = a<<2 | b>>4
		n++
		if q[2] != '=' {
			c := b64Map[q[2]]
			out[n] = b<<4 | c>>2
			n++
			if q[3] != '=' {
				out[n] = c<<6 | b64Map[q[3]]
				n++
			}
		}
		nb = 0
		if stop || i == len(in) {
			break
		}
	}
	return n
}
