package http

import "bytes"

// Request files from multipart bodies, as Suricata's HtpRequestBodyHandleMultipart drives
// its MIME parser (rust/src/mime/mime.rs mime_process): the parser is fed the kept request
// body from the offset it has consumed so far (request_body.body_parsed), so each byte is
// parsed about once however the body arrives; it keeps only what it could not decide on
// yet (an incomplete header line, a CRLF that may start a boundary). The kept body is
// bounded by request-body-limit, so parts past it are not seen, as in Suricata.

// Limits of the MIME parser (mime.rs).
const (
	mimeBoundaryMaxBeforeEOL = 128 // MIME_BOUNDARY_MAX_BEFORE_EOL
	mimeHeaderMaxLine        = 4096
	mimeMaxToken             = 255 // RS_MIME_MAX_TOKEN_LEN
)

type mimeParserState uint8

const (
	mimeStart mimeParserState = iota
	mimeHeader
	mimeHeaderEnd
	mimeChunk
	mimeBoundaryWaitingForEOL
)

type mimeResult uint8

const (
	mimeNeedsMore mimeResult = iota
	mimeFileOpen
	mimeFileChunk
	mimeFileClose
)

// MIME parser warnings (MIME_EVENT_FLAG_*).
const (
	mimeWarnInvalidHeader = 1 << iota
	mimeWarnNoFiledata
)

// mimeState is one request's MIME parser (MimeStateHTTP) and its progress in the body.
type mimeState struct {
	boundary []byte // "--" + the boundary, backslashes removed
	filename []byte
	state    mimeParserState
	parsed   int  // body bytes consumed (body_parsed)
	open     bool // a part's file is open (HTP_FILENAME_SET)
	part     int  // parts with a file so far
}

func (m *mimeState) reset() {
	m.boundary, m.filename = m.boundary[:0], m.filename[:0]
	m.state, m.parsed, m.open, m.part = mimeStart, 0, false, 0
}

func isMimeSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// mimeHeaderToken finds token in a header value's parameters (mime_find_header_token):
// the parameters after the first ';', name=value or name="value" (escapes kept), the
// last of a repeated name winning; RFC 2231 sections name*0, name*1... are joined into
// scratch. ok is false when there is no ';' or no such token.
func mimeHeaderToken(v []byte, token string, scratch []byte) (val []byte, out []byte, ok bool) {
	i := bytes.IndexByte(v, ';')
	if i < 0 {
		return nil, scratch, false
	}
	v = v[i+1:]
	find := func(name []byte) ([]byte, bool) {
		in := v
		var found []byte
		has := false
		for len(in) > 0 {
			j := 0
			for j < len(in) && isMimeSpace(in[j]) {
				j++
			}
			in = in[j:]
			eq := bytes.IndexByte(in, '=')
			if eq < 0 {
				break
			}
			n := in[:eq]
			in = in[eq+1:]
			var value []byte
			if len(in) > 0 && in[0] == '"' {
				end, esc := -1, false
				for k := 1; k < len(in); k++ {
					if in[k] == '\\' {
						esc = true
					} else {
						if in[k] == '"' && !esc {
							end = k
							break
						}
						esc = false
					}
				}
				if end < 0 {
					// mime_parse_value_delimited falls back to the next quote
					q := bytes.IndexByte(in[1:], '"')
					if q < 0 {
						break
					}
					end = q + 1
				}
				value, in = in[1:end], in[end+1:]
			} else {
				semi := bytes.IndexByte(in, ';')
				if semi < 0 {
					semi = len(in)
				}
				value, in = in[:semi], in[semi:]
				for len(value) > 0 && isMimeSpace(value[len(value)-1]) {
					value = value[:len(value)-1]
				}
			}
			j = 0
			for j < len(in) && isMimeSpace(in[j]) {
				j++
			}
			in = in[j:]
			if len(in) > 0 && in[0] == ';' {
				in = in[1:]
			}
			if bytes.Equal(n, name) {
				found, has = value, true
			}
		}
		return found, has
	}
	var nb [mimeMaxToken + 16]byte
	name := append(nb[:0], token...)
	if val, ok := find(name); ok {
		return val, scratch, true
	}
	scratch = scratch[:0]
	for sec := 0; ; sec++ {
		name = append(append(nb[:0], token...), '*')
		name = appendInt(name, sec)
		val, ok := find(name)
		if !ok {
			if sec == 0 {
				return nil, scratch, false
			}
			return scratch, scratch, true
		}
		scratch = append(scratch, val...)
	}
}

func appendInt(b []byte, n int) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// appendUnescaped appends v without its backslashes (the unescape of mime_state_init and
// mime_parse_headers).
func appendUnescaped(dst, v []byte) []byte {
	for _, c := range v {
		if c != '\\' {
			dst = append(dst, c)
		}
	}
	return dst
}

// multipartBoundary is HtpRequestBodySetupMultipart / mime_state_init: a Content-Type
// with a boundary parameter of at most 255 bytes makes the body multipart, whatever its
// media type. The result is "--" + boundary in dst.
func multipartBoundary(dst, ct, scratch []byte) (bnd, sc []byte, ok bool) {
	v, sc, ok := mimeHeaderToken(ct, "boundary", scratch)
	if !ok || len(v) > mimeMaxToken {
		return dst, sc, false
	}
	dst = append(dst[:0], '-', '-')
	return appendUnescaped(dst, v), sc, true
}

// process is mime_process: it parses in until it has a result for the caller.
func (m *mimeState) process(in []byte, scratch *[]byte) (r mimeResult, consumed int, warn int) {
	b := m.boundary
	for len(in) > 0 {
		switch m.state {
		case mimeStart:
			// mime_parse_boundary: the boundary line, else skip a line, else a boundary
			// without its line end for too long
			lf := bytes.IndexByte(in, '\n')
			switch {
			case bytes.HasPrefix(in, b) && lf >= 0:
				m.state = mimeHeader
				consumed += lf + 1
				in = in[lf+1:]
			case lf >= 0:
				consumed += lf + 1
				in = in[lf+1:]
			case bytes.HasPrefix(in, b) && len(in) >= len(b)+mimeBoundaryMaxBeforeEOL:
				n := len(b) + mimeBoundaryMaxBeforeEOL
				m.state = mimeBoundaryWaitingForEOL
				consumed += n
				in = in[n:]
			default:
				return mimeNeedsMore, consumed, warn
			}
		case mimeBoundaryWaitingForEOL:
			if lf := bytes.IndexByte(in, '\n'); lf >= 0 {
				m.state = mimeHeader
				consumed += lf + 1
				in = in[lf+1:]
			} else {
				consumed += len(in)
				in = in[len(in):]
			}
		case mimeHeader:
			n, next, open, bad, ok := m.headers(in, scratch)
			if !ok {
				return mimeNeedsMore, consumed, warn
			}
			m.state = next
			consumed += n
			in = in[n:]
			if bad {
				warn |= mimeWarnInvalidHeader
			}
			if open {
				return mimeFileOpen, consumed, warn
			}
		case mimeHeaderEnd:
			if len(in) < len(b) {
				if bytes.Equal(in, b[:len(in)]) {
					return mimeNeedsMore, consumed, warn
				}
				m.state = mimeChunk
			} else if bytes.Equal(in[:len(b)], b) {
				m.state = mimeStart
				if len(m.filename) > 0 {
					warn |= mimeWarnNoFiledata
				}
				m.filename = m.filename[:0]
				return mimeFileClose, consumed, warn
			} else {
				m.state = mimeChunk
			}
		case mimeChunk:
			n, eof, ok := consumeChunk(b, in)
			if !ok {
				return mimeNeedsMore, consumed, warn
			}
			consumed += n
			in = in[n:]
			if eof {
				m.state = mimeStart
				m.filename = m.filename[:0]
				return mimeFileClose, consumed, warn
			}
			if len(in) < len(b)+2 {
				return mimeFileChunk, consumed, warn
			}
		}
	}
	return mimeNeedsMore, consumed, warn
}

// headers is mime_parse_headers: CRLF-ended header lines up to an empty one; a
// Content-Disposition with a filename parameter opens a file; a line without a colon or
// with an empty value is an invalid header. ok false: an incomplete first line.
func (m *mimeState) headers(in []byte, scratch *[]byte) (n int, next mimeParserState, open, bad, ok bool) {
	rest := in
	for len(rest) > 0 {
		e := bytes.Index(rest, []byte("\r\n"))
		if e < 0 {
			if len(rest) > mimeHeaderMaxLine {
				return len(in) - len(rest), mimeBoundaryWaitingForEOL, open, bad, true
			}
			if len(rest) < len(in) {
				return len(in) - len(rest), mimeHeader, open, bad, true
			}
			return 0, mimeHeader, false, false, false
		}
		line := rest[:e]
		if c := bytes.IndexByte(line, ':'); c >= 0 {
			name, value := line[:c], line[c+1:]
			for len(value) > 0 && isMimeSpace(value[0]) {
				value = value[1:]
			}
			if equalFoldBS(name, "content-disposition") {
				fn, sc, found := mimeHeaderToken(value, "filename", *scratch)
				*scratch = sc
				if found && len(fn) > 0 {
					m.filename = appendUnescaped(m.filename[:0], fn)
					open = true
				}
			}
			if len(value) == 0 {
				bad = true
			}
		} else if len(line) > 0 {
			bad = true
		}
		rest = rest[e+2:]
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			return len(in) - len(rest), mimeHeaderEnd, open, bad, true
		}
	}
	return len(in) - len(rest), mimeHeader, open, bad, true
}

// consumeChunk is mime_consume_chunk: part content up to a CRLF that starts the boundary
// (eof: consumed through the CRLF), holding back a CRLF that may still become one.
func consumeChunk(b, in []byte) (n int, eof, ok bool) {
	e := bytes.Index(in, []byte("\r\n"))
	if e < 0 {
		return len(in), false, true
	}
	next := in[e+2:]
	if len(next) < len(b) {
		if bytes.Equal(next, b[:len(next)]) {
			if e > 0 {
				return e, false, true
			}
			return 0, false, false
		}
		return len(in), false, true
	}
	if bytes.Equal(next[:len(b)], b) {
		return e + 2, true, true
	}
	return e + 2, false, true
}

// scanMultipart feeds the request body kept since the last call to the MIME parser and
// turns its results into request files (HtpRequestBodyHandleMultipart).
func (s *State) scanMultipart(t *Tx) {
	m := &t.mime
	data := t.RequestBody.Data
	for m.parsed < len(data) {
		cur := data[m.parsed:]
		r, n, warn := m.process(cur, &t.mimeScratch)
		m.parsed += n
		if warn&mimeWarnInvalidHeader != 0 {
			flagEvent(t, EvMultipartInvalidHeader)
		}
		if warn&mimeWarnNoFiledata != 0 {
			flagEvent(t, EvMultipartNoFiledata)
		}
		switch r {
		case mimeNeedsMore:
			return
		case mimeFileOpen:
			if len(m.filename) > 0 {
				s.openPartFile(t)
			}
		case mimeFileChunk:
			if m.open {
				s.partFileData(t, cur[:n])
			}
		case mimeFileClose:
			if m.open {
				last := cur[:n]
				if len(last) > 0 && last[len(last)-1] == '\n' {
					last = last[:len(last)-1]
					if len(last) > 0 && last[len(last)-1] == '\r' {
						last = last[:len(last)-1]
					}
				}
				s.partFileData(t, last)
				closeFile(t, t.RequestFiles, FileClosed, s.cfg.ForceHash)
			}
			m.open = false
		}
		if n == 0 && r != mimeFileClose && r != mimeFileOpen {
			return // no progress (cannot happen: every result but NeedsMore consumes)
		}
	}
}

// openPartFile opens a request file for the current part, named by its filename
// (HTPFileOpen from HtpRequestBodyHandleMultipart).
func (s *State) openPartFile(t *Tx) {
	m := &t.mime
	closeFile(t, t.RequestFiles, FileClosed, s.cfg.ForceHash)
	for len(t.partBodies) <= m.part {
		t.partBodies = append(t.partBodies, Body{})
	}
	b := &t.partBodies[m.part]
	b.reset()
	m.part++
	files := &t.RequestFiles
	if cap(*files) > len(*files) {
		*files = (*files)[:len(*files)+1]
	} else {
		*files = append(*files, File{})
	}
	f := &(*files)[len(*files)-1]
	name := append(f.Name[:0], m.filename...)
	*f = File{Name: name, State: FileOpen, Data: b}
	if s.cfg.ForceHash {
		h := t.hashes()
		h.md5.Reset()
		h.sha1.Reset()
		h.sha256.Reset()
	}
	m.open = true
}

// partFileData appends part content to the open part file (HTPFileStoreChunk).
func (s *State) partFileData(t *Tx, b []byte) {
	n := len(t.RequestFiles)
	if n == 0 || len(b) == 0 || t.RequestFiles[n-1].State != FileOpen {
		return
	}
	f := &t.RequestFiles[n-1]
	f.Data.Data = append(f.Data.Data, b...)
	f.Data.Len += uint64(len(b))
	f.Size += uint64(len(b))
	if s.cfg.ForceHash {
		h := t.hashes()
		h.md5.Write(b)
		h.sha1.Write(b)
		h.sha256.Write(b)
	}
}
