package uri

// removeDotSegments is libhtp normalize_uri_path_inplace (RFC 3986 5.2.4 as
// libhtp implements it) over b, in place; the result is b[:n].
func removeDotSegments(b []byte) int {
	const (
		start = iota
		dotStart
		twoDotStart
		slash
		slashDot
		slashDotDot
		slashDotDotSlash
		regular
	)
	state := start
	w := 0
	back := func() {
		for w > 0 && b[w-1] != '/' {
			w--
		}
		if w > 0 {
			w--
		}
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch state {
		case start:
			switch c {
			case '.':
				state = dotStart
			case '/':
				state = slash
			default:
				b[w] = c
				w++
				state = regular
			}
		case dotStart:
			switch c {
			case '.':
				state = twoDotStart
			case '/':
				state = start
			default:
				b[w], b[w+1] = '.', c
				w += 2
				state = regular
			}
		case twoDotStart:
			if c == '/' {
				state = start
			} else {
				b[w], b[w+1], b[w+2] = '.', '.', c
				w += 3
				state = regular
			}
		case slash, slashDotDotSlash:
			if c == '.' {
				state = slashDot
			} else {
				b[w], b[w+1] = '/', c
				w += 2
				state = regular
			}
		case slashDot:
			switch c {
			case '/':
				state = slashDotDotSlash
			case '.':
				state = slashDotDot
			default:
				b[w], b[w+1], b[w+2] = '/', '.', c
				w += 3
				state = regular
			}
		case slashDotDot:
			if c == '/' {
				back()
				state = slashDotDotSlash
			} else {
				b[w], b[w+1], b[w+2], b[w+3] = '/', '.', '.', c
				w += 4
				state = regular
			}
		case regular:
			if c == '/' {
				state = slash
			} else {
				b[w] = c
				w++
			}
		}
	}
	switch state {
	case slash:
		b[w] = '/'
		w++
	case slashDotDot:
		back()
	}
	return w
}

// decodeFlagged appends raw url-decoded (libhtp decode_uri_with_flags) to dst.
func (c *Config) decodeFlagged(dst, raw []byte, f *Flags) []byte {
	n := len(dst)
	dst = append(dst, raw...)
	return dst[:n+c.decodeURL(dst[n:], f)]
}

// NormalizePath appends the normalized form of a raw path (libhtp
// Uri::normalized_path: path decoding per personality, UTF-8 validation and
// best-fit conversion, dot-segment removal) to dst. It does not apply
// double-decode-path; Normalize does.
func (c *Config) NormalizePath(dst, path []byte, flags *Flags) []byte {
	n := len(dst)
	dst = append(dst, path...)
	p := dst[n:]
	p = p[:c.decodePath(p, flags)]
	d := utf8Decoder{cfg: c, out: p, write: c.UTF8ConvertBestfit}
	for i, b := range p {
		d.decodeByte(b, i+1 == len(p))
	}
	if d.seenValid && d.flags&FlagInvalidUTF8 == 0 {
		d.flags |= FlagUTF8Valid
	}
	*flags |= d.flags
	if c.UTF8ConvertBestfit {
		p = p[:d.w]
	}
	p = p[:removeDotSegments(p)]
	return dst[:n+len(p)]
}

// Normalize appends to dst the normalized URI that Suricata's http.uri buffer
// holds for the parsed request target u (libhtp normalize_parsed_uri then
// generate_normalized_uri, returned by htp_tx_normalized_uri): the partial
// form path[?query][#fragment], or with IncludeAll the complete form
// scheme://[user:pass@]host followed by it. As in libhtp the complete form
// never contains the port (normalize_parsed_uri keeps only its number).
//
// Path, fragment and credentials/host are decoded once (the path per the
// personality); the query is url-decoded once with '+' kept unless
// PlusSpaceDecode; DoubleDecodePath/Query decode once more and raise
// FlagDoubleEncoded when that shortens the part. When libhtp would have no
// normalized URI (the form is empty) nothing is appended. Flags gets what the
// decoders saw, FlagHostInvalid for an invalid port or hostname.
func (c *Config) Normalize(dst []byte, u *URI, flags *Flags) []byte {
	var f Flags
	base := len(dst)
	if c.IncludeAll {
		if u.HasScheme {
			n := len(dst)
			dst = append(dst, u.Scheme...)
			for i := n; i < len(dst); i++ {
				if 'A' <= dst[i] && dst[i] <= 'Z' {
					dst[i] += 'a' - 'A'
				}
			}
			dst = append(dst, "://"...)
		}
		if u.HasUsername || u.HasPassword {
			if u.HasUsername {
				dst = c.decodeFlagged(dst, u.Username, &f)
			}
			dst = append(dst, ':')
			if u.HasPassword {
				dst = c.decodeFlagged(dst, u.Password, &f)
			}
			dst = append(dst, '@')
		}
	} else {
		// The credentials are decoded (and flagged) even when not shown:
		// decode them into dst's spare room and drop the result.
		n := len(dst)
		if u.HasUsername {
			dst = c.decodeFlagged(dst, u.Username, &f)[:n]
		}
		if u.HasPassword {
			dst = c.decodeFlagged(dst, u.Password, &f)[:n]
		}
	}
	if u.HasAuthority {
		n := len(dst)
		dst = c.decodeFlagged(dst, u.Hostname, &f)
		h := dst[n:]
		end := len(NormalizeHostname(h[:0], h))
		if !ValidateHostname(h[:end]) {
			f |= FlagHostInvalid
		}
		if c.IncludeAll {
			dst = dst[:n+end]
		} else {
			dst = dst[:n]
		}
	}
	if u.Port != nil {
		if _, ok := ParsePort(u.Port); !ok {
			f |= FlagHostInvalid
		}
	}
	partial := len(dst)
	if u.Path != nil {
		n := len(dst)
		dst = c.NormalizePath(dst, u.Path, &f)
		if c.DoubleDecodePath {
			var ignored Flags
			m := c.decodeURL(dst[n:], &ignored)
			if n+m < len(dst) {
				f |= FlagDoubleEncoded
			}
			dst = dst[:n+m]
		}
	}
	if u.HasQuery {
		dst = append(dst, '?')
		n := len(dst)
		dst = append(dst, u.Query...)
		var ignored Flags
		m := c.decodeURL(dst[n:], &ignored)
		if c.DoubleDecodeQuery {
			m2 := c.decodeURL(dst[n:n+m], &ignored)
			if m2 < m {
				f |= FlagDoubleEncoded
			}
			m = m2
		}
		dst = dst[:n+m]
	}
	if u.HasFragment {
		dst = append(dst, '#')
		dst = c.decodeFlagged(dst, u.Fragment, &f)
	}
	*flags |= f
	if c.IncludeAll {
		return dst
	}
	if len(dst) == partial {
		return dst[:base]
	}
	return dst
}
