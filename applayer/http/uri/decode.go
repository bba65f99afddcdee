package uri

import "sort"

// Flags records what normalisation saw (libhtp HtpFlags PATH_* / HOSTU_*
// plus the DOUBLE_ENCODED_URI log code); the HTTP parser turns them into tx
// flags and app-layer events.
type Flags uint32

const (
	// FlagEncodedNul: %00 (or %u0000) in the path or a decoded field
	// (PATH_ENCODED_NUL).
	FlagEncodedNul Flags = 1 << iota
	// FlagRawNul: a raw NUL in a url-decoded field other than the path
	// (PATH_RAW_NUL; libhtp's path decoder does not raise it).
	FlagRawNul
	// FlagInvalidEncoding: an invalid %-escape (PATH_INVALID_ENCODING).
	FlagInvalidEncoding
	// FlagOverlongU: %u00XX in the path (PATH_OVERLONG_U).
	FlagOverlongU
	// FlagEncodedSeparator: %2F, or %5C with backslash conversion, or a %u
	// escape that maps to one (PATH_ENCODED_SEPARATOR).
	FlagEncodedSeparator
	// FlagUTF8Valid: the path had valid multi-byte UTF-8 and no invalid
	// sequence (PATH_UTF8_VALID).
	FlagUTF8Valid
	// FlagInvalidUTF8: an invalid UTF-8 sequence in the path
	// (PATH_UTF8_INVALID).
	FlagInvalidUTF8
	// FlagUTF8Overlong: an overlong UTF-8 form (PATH_UTF8_OVERLONG).
	FlagUTF8Overlong
	// FlagHalfFullRange: %uFFxx or a U+FF00..U+FFEF character in the path
	// (PATH_HALF_FULL_RANGE).
	FlagHalfFullRange
	// FlagHostInvalid: the URI's port is not a valid number or its hostname
	// fails ValidateHostname (HOSTU_INVALID: request_uri_host_invalid).
	FlagHostInvalid
	// FlagDoubleEncoded: the second decoding pass of double-decode-path or
	// -query shortened it (log code DOUBLE_ENCODED_URI: double_encoded_uri).
	FlagDoubleEncoded
)

// bestfit maps the UTF-16 code unit c1<<8|c2 through the Windows-1252 best-fit
// table (libhtp UnicodeBestfitMap::get).
func (c *Config) bestfit(key uint16) byte {
	i := sort.Search(len(bestfitKeys), func(i int) bool { return bestfitKeys[i] >= key })
	if i < len(bestfitKeys) && bestfitKeys[i] == key {
		return bestfitVals[i]
	}
	return c.BestfitReplacement
}

// x2c converts two bytes assumed to be hex digits, wrapping on anything else
// as libhtp's x2c does in a release build.
func x2c(c1, c2 byte) byte {
	var d byte
	if c1 >= 'A' {
		d = (c1 & 0xdf) - 'A' + 10
	} else {
		d = c1 - '0'
	}
	d *= 16
	if c2 >= 'A' {
		d += (c2 & 0xdf) - 'A' + 10
	} else {
		d += c2 - '0'
	}
	return d
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func isU(c byte) bool { return c == 'u' || c == 'U' }

// control is libhtp path_decode_control: backslash conversion and
// lowercasing of one decoded path byte.
func (c *Config) control(b byte) byte {
	if b == '\\' && c.ConvertBackslash {
		b = '/'
	}
	if c.ConvertLowercase && 'A' <= b && b <= 'Z' {
		b += 'a' - 'A'
	}
	return b
}

// pathU is libhtp path_decode_u_encoding on four bytes.
func (c *Config) pathU(h []byte, f *Flags) byte {
	c1, c2 := x2c(h[0], h[1]), x2c(h[2], h[3])
	r := c2
	if c1 == 0 {
		*f |= FlagOverlongU
	} else {
		if c1 == 0xff {
			*f |= FlagHalfFullRange
		}
		r = c.bestfit(uint16(c1)<<8 | uint16(c2))
	}
	if r == '/' || (c.ConvertBackslash && r == '\\') {
		*f |= FlagEncodedSeparator
	}
	return r
}

// decodePath is libhtp path_decode_uri over b, in place: the result is
// b[:n]. Decoding never lengthens its input, so writing behind the read
// position is safe.
func (c *Config) decodePath(b []byte, f *Flags) int {
	w := 0
	put := func(x byte) {
		if x == '/' && c.CompressSeparators && w > 0 && b[w-1] == '/' {
			return
		}
		b[w] = x
		w++
	}
	for i := 0; i < len(b); {
		ch := b[i]
		if ch != '%' {
			// path_parse_other
			if ch == 0 && c.NulRawTerminates {
				return w
			}
			put(c.control(ch))
			i++
			continue
		}
		rest := b[i+1:]
		switch {
		case len(rest) > 0 && isU(rest[0]):
			switch {
			case !c.UEncodingDecode:
				put(c.control('%'))
				i++
			case len(rest) >= 5 && isHex(rest[1]) && isHex(rest[2]) && isHex(rest[3]) && isHex(rest[4]):
				// path_decode_valid_u_encoding
				r := c.pathU(rest[1:5], f)
				if r == 0 {
					*f |= FlagEncodedNul
					if c.NulEncodedTerminates {
						return w
					}
				}
				i += 6
				put(c.control(r))
			case len(rest) >= 5:
				// path_decode_invalid_u_encoding
				*f |= FlagInvalidEncoding
				switch c.InvalidHandling {
				case RemovePercent:
					i++
				case DecodeInvalid:
					r := c.pathU(rest[1:5], f)
					i += 6
					put(c.control(r))
				default:
					i++
					put(c.control('%'))
				}
			default:
				// incomplete %u
				*f |= FlagInvalidEncoding
				i++
				if c.InvalidHandling != RemovePercent {
					put('%')
				}
			}
		case len(rest) >= 2 && isHex(rest[0]) && isHex(rest[1]):
			// path_decode_valid_hex
			r := x2c(rest[0], rest[1])
			if r == 0 {
				*f |= FlagEncodedNul
				if c.NulEncodedTerminates {
					return w
				}
			}
			n := 3
			if r == '/' || (c.ConvertBackslash && r == '\\') {
				*f |= FlagEncodedSeparator
				if !c.DecodeSeparators {
					r, n = '%', 1
				}
			}
			i += n
			put(c.control(r))
		case len(rest) >= 2:
			// path_decode_invalid_hex
			*f |= FlagInvalidEncoding
			switch c.InvalidHandling {
			case RemovePercent:
				i++
			case DecodeInvalid:
				r := x2c(rest[0], rest[1])
				i += 3
				put(c.control(r))
			default:
				i++
				put(c.control('%'))
			}
		default:
			// not even two bytes after '%'
			*f |= FlagInvalidEncoding
			i++
			if c.InvalidHandling != RemovePercent {
				put('%')
			}
		}
	}
	return w
}

// urlFlags are the URLEN_* flags of libhtp decode_uri that
// decode_uri_with_flags passes on.
const (
	urlInvalid Flags = FlagInvalidEncoding
	urlNul     Flags = FlagEncodedNul
	urlRawNul  Flags = FlagRawNul
)

// decodeURL is libhtp decode_uri (the query / credentials / host / fragment
// decoder, also the second pass of double decoding) over b, in place; the
// result is b[:n]. Only the invalid-encoding and NUL flags are reported, which
// is all that decode_uri_with_flags passes on.
func (c *Config) decodeURL(b []byte, f *Flags) int {
	w := 0
	for i := 0; i < len(b); {
		ch := b[i]
		if ch == '+' {
			if c.PlusSpaceDecode {
				ch = ' '
			}
			b[w] = ch
			w++
			i++
			continue
		}
		if ch != '%' {
			if ch == 0 {
				*f |= urlRawNul
				if c.NulRawTerminates {
					return w
				}
			}
			b[w] = ch
			w++
			i++
			continue
		}
		rest := b[i+1:]
		var out byte
		insert := true
		switch {
		case len(rest) > 0 && isU(rest[0]):
			switch {
			case !c.UEncodingDecode:
				out = '%'
				i++
			case len(rest) >= 5 && isHex(rest[1]) && isHex(rest[2]) && isHex(rest[3]) && isHex(rest[4]):
				out = c.urlU(rest[1:5])
				i += 6
			case len(rest) >= 5:
				*f |= urlInvalid
				switch c.InvalidHandling {
				case RemovePercent:
					insert = false
					i++
				case DecodeInvalid:
					out = c.urlU(rest[1:5])
					i += 6
				default:
					out = '%'
					i++
				}
			default:
				*f |= urlInvalid
				out = '%'
				insert = c.InvalidHandling != RemovePercent
				i++
			}
		case len(rest) >= 2 && isHex(rest[0]) && isHex(rest[1]):
			out = x2c(rest[0], rest[1])
			i += 3
		default:
			// decode_invalid_hex, or the fallback when fewer than two bytes
			// remain for decode_invalid.
			*f |= urlInvalid
			switch {
			case c.InvalidHandling == RemovePercent:
				insert = false
				i++
			case c.InvalidHandling == DecodeInvalid && len(rest) >= 2:
				out = x2c(rest[0], rest[1])
				i += 3
			default:
				out = '%'
				i++
			}
		}
		if out == 0 && insert {
			*f |= urlNul
			if c.NulEncodedTerminates {
				return w
			}
		}
		if insert {
			b[w] = out
			w++
		}
	}
	return w
}

// urlU is libhtp decode_u_encoding_params (its overlong / half-full flags are
// not passed on by any caller that Suricata's http.uri depends on).
func (c *Config) urlU(h []byte) byte {
	c1, c2 := x2c(h[0], h[1]), x2c(h[2], h[3])
	if c1 == 0 {
		return c2
	}
	return c.bestfit(uint16(c1)<<8 | uint16(c2))
}
