package smtp

import (
	"bytes"
	"crypto/md5"
	"hash"
)

// The MIME parser of one SMTP DATA message: rust/src/mime/smtp.rs (mime_smtp_parse_line and
// its helpers) line by line. Headers (folded continuation lines appended), the message's
// main headers kept for the email.* buffers and EVE, multipart boundaries (nested), and part
// bodies decoded (base64, quoted-printable) into the current attachment file; URLs are
// collected from text parts.

// mimeParserState is MimeSmtpParserState.
type mimeParserState uint8

const (
	mimeStart mimeParserState = iota
	mimeHeader
	mimeBody
)

// mimeResult is MimeSmtpParserResult.
type mimeResult uint8

const (
	mimeNeedsMore mimeResult = iota
	mimeFileOpen
	mimeFileClose
	mimeFileChunk
)

type mimeEncoding uint8

const (
	encPlain mimeEncoding = iota
	encBase64
	encQP
)

type mimeContentType uint8

const (
	ctMessage mimeContentType = iota
	ctPlainText
	ctHTML
	ctUnknown
)

// The MIME anomaly flags (MIME_ANOM_*).
const (
	anomInvalidBase64   uint32 = 0x1
	anomInvalidQP       uint32 = 0x2
	anomLongLine        uint32 = 0x4
	anomLongEncLine     uint32 = 0x8
	anomLongHeaderName  uint32 = 0x10
	anomLongHeaderValue uint32 = 0x20
	anomLongBoundary    uint32 = 0x80
	anomLongFilename    uint32 = 0x100
)

// The limits of rust/src/mime/smtp.rs and mime.rs.
const (
	mimeMaxLineLen       = 998  // MAX_LINE_LEN (RFC 2045, without CRLF)
	mimeMaxEncLineLen    = 76   // MAX_ENC_LINE_LEN
	mimeMaxHeaderName    = 75   // MAX_HEADER_NAME
	mimeMaxHeaderValue   = 2000 // MAX_HEADER_VALUE (an event only)
	mimeMaxBoundaryLen   = 254  // MAX_BOUNDARY_LEN
	mimeMaxTokenLen      = 255  // RS_MIME_MAX_TOKEN_LEN
	mimeMaxDecodedLine   = 8192 // SMTP_MIME_MAX_DECODED_LINE_LENGTH
	mimeMaxFilenameBytes = mimeMaxTokenLen
)

// Header is one MIME header line (name as written, value after ": " with folded lines
// appended).
type Header struct {
	Name, Value []byte
}

// Mime is the MIME state of one message (MimeStateSMTP).
type Mime struct {
	cfg   *Config
	state mimeParserState
	// headers[:nHeaders] are live; the entries past it keep their slices for reuse.
	headers  []Header
	nHeaders int
	// mainN is main_headers_nb: the message's own headers are headers[:mainN] (0 until the
	// first header block ended).
	mainN    int
	filename []byte
	// attachments and urls keep their slices past nAtt/nURL for reuse.
	attachments [][]byte
	nAtt        int
	urls        [][]byte
	nURL        int
	boundaries  [][]byte
	nBound      int
	encoding    mimeEncoding
	hasDecoder  bool
	b64         b64Decoder
	ctype       mimeContentType
	decodedLine []byte
	bufeol      [2]byte
	bufeolen    int
	md5         hash.Hash
	md5State    uint8
	md5Sum      [16]byte
	// out is the decoded file data of the last line, appended by the caller to the open
	// file (FileAppendData); scratch is a decode buffer.
	out     []byte
	scratch []byte
	tokens  []token
	section []byte
}

const (
	md5Disabled uint8 = iota
	md5Inited
	md5Started
	md5Completed
)

func (m *Mime) reset(cfg *Config) {
	m.cfg = cfg
	m.state = mimeStart
	m.nHeaders, m.mainN, m.nAtt, m.nURL, m.nBound = 0, 0, 0, 0, 0
	m.filename = m.filename[:0]
	m.encoding, m.hasDecoder, m.b64 = encPlain, false, b64Decoder{}
	m.ctype = ctMessage
	m.decodedLine = m.decodedLine[:0]
	m.bufeol, m.bufeolen = [2]byte{}, 0
	m.md5State = md5Disabled
	m.md5Sum = [16]byte{}
	m.out = m.out[:0]
}

// restart is MimeStateSMTP::restart: a new part begins (after a boundary).
func (m *Mime) restart() {
	m.state = mimeStart
	m.nHeaders = m.mainN
	m.encoding, m.hasDecoder, m.b64 = encPlain, false, b64Decoder{}
	m.filename = m.filename[:0]
	m.bufeolen = 0
	m.ctype = ctMessage
	m.decodedLine = m.decodedLine[:0]
}

// Headers returns the message's main headers (headers[..main_headers_nb]), empty until the
// header block ended.
func (m *Mime) Headers() []Header {
	if m == nil {
		return nil
	}
	return m.headers[:m.mainN]
}

// Header returns the value of the first main header named name (lower case), as
// SCDetectMimeEmailGetData.
func (m *Mime) Header(name string) ([]byte, bool) {
	for i := range m.Headers() {
		if equalLower(m.headers[i].Name, name) {
			return m.headers[i].Value, true
		}
	}
	return nil, false
}

// HeaderAt returns the value of the idx-th main header named name (SCDetectMimeEmailGetDataArray).
func (m *Mime) HeaderAt(name string, idx int) ([]byte, bool) {
	n := 0
	for i := range m.Headers() {
		if equalLower(m.headers[i].Name, name) {
			if n == idx {
				return m.headers[i].Value, true
			}
			n++
		}
	}
	return nil, false
}

// Attachments are the file names of the message's parts, in order.
func (m *Mime) Attachments() [][]byte {
	if m == nil {
		return nil
	}
	return m.attachments[:m.nAtt]
}

// URLs are the URLs found in the message's text parts, in the order found.
func (m *Mime) URLs() [][]byte {
	if m == nil {
		return nil
	}
	return m.urls[:m.nURL]
}

// BodyMD5 returns the MD5 of the body once the message completed with body-md5 on.
func (m *Mime) BodyMD5() ([16]byte, bool) {
	if m == nil || m.md5State != md5Completed {
		return [16]byte{}, false
	}
	return m.md5Sum, true
}

// Filename is the current part's file name (SCMimeSmtpGetFilename), empty for none.
func (m *Mime) Filename() []byte { return m.filename }

func equalLower(s []byte, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := range s {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isMimeSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// addHeader appends a header (bounded by MaxHeaders and MaxHeaderValue).
func (m *Mime) addHeader(name, value []byte) uint32 {
	var w uint32
	if len(name) > mimeMaxHeaderName {
		w |= anomLongHeaderName
	}
	if len(value) > mimeMaxHeaderValue {
		w |= anomLongHeaderValue
	}
	if m.nHeaders >= MaxHeaders {
		return w
	}
	if m.nHeaders == len(m.headers) {
		m.headers = append(m.headers, Header{})
	}
	h := &m.headers[m.nHeaders]
	h.Name = append(h.Name[:0], name...)
	h.Value = append(h.Value[:0], value[:min(len(value), MaxHeaderValue)]...)
	m.nHeaders++
	return w
}

// parseHeaderLine is mime_parse_header_line: the name up to ':', then the value after
// MIME spaces; ok is false for a line without ':'.
func parseHeaderLine(line []byte) (name, value []byte, ok bool) {
	for i, c := range line {
		if c == ':' {
			v := line[i+1:]
			for len(v) > 0 && isMimeSpace(v[0]) {
				v = v[1:]
			}
			return line[:i], v, true
		}
	}
	return nil, nil, false
}

// parseLine is mime_smtp_parse_line for one line: line without its delimiter, full with it.
func (m *Mime) parseLine(line, full []byte) (mimeResult, uint32) {
	m.out = m.out[:0]
	if m.md5State == md5Started {
		m.md5.Write(full)
	}
	var w uint32
	switch m.state {
	case mimeStart, mimeHeader:
		if m.state == mimeStart && m.cfg.BodyMD5 && m.md5State != md5Started {
			if m.md5 == nil {
				m.md5 = md5.New()
			}
			m.md5.Reset()
			m.md5State = md5Inited
		}
		if len(line) == 0 {
			pw, encap := m.processHeaders()
			w |= pw
			if m.mainN == 0 {
				m.mainN = m.nHeaders
			}
			if encap {
				m.restart()
				return mimeNeedsMore, w
			}
			m.state = mimeBody
			return mimeFileOpen, w
		}
		if m.state == mimeHeader && (line[0] == ' ' || line[0] == '\t') {
			if m.nHeaders > 0 {
				h := &m.headers[m.nHeaders-1]
				room := MaxHeaderValue - len(h.Value)
				h.Value = append(h.Value, line[1:][:max(0, min(room, len(line)-1))]...)
			}
			return mimeNeedsMore, w
		}
		if name, value, ok := parseHeaderLine(line); ok {
			m.state = mimeHeader
			w |= m.addHeader(name, value)
		}
		return mimeNeedsMore, w
	case mimeBody:
		return m.parseBody(line, full)
	}
	return mimeNeedsMore, w
}

func (m *Mime) parseBody(line, full []byte) (mimeResult, uint32) {
	var w uint32
	if m.md5State == md5Inited {
		m.md5State = md5Started
		m.md5.Write(full)
	}
	if m.nBound > 0 {
		b := m.boundaries[m.nBound-1]
		if len(line) >= len(b) && string(line[:len(b)]) == string(b) {
			if m.encoding == encBase64 && m.cfg.DecodeBase64 && m.hasDecoder && m.b64.nb > 0 {
				// flush the decoder with padding
				var pad [4]byte
				k := 0
				for range 4 - m.b64.nb {
					pad[k] = '='
					k++
				}
				if out, ok := m.b64.decode(pad[:k], m.out[:0]); ok {
					m.out = out
				}
			}
			toclose := len(m.filename) > 0
			if len(line) >= len(b)+2 && line[len(b)] == '-' && line[len(b)+1] == '-' {
				m.nBound--
			}
			m.restart()
			if toclose {
				return mimeFileClose, 0
			}
			return mimeNeedsMore, 0
		}
	}
	if len(m.filename) == 0 {
		if m.ctype == ctPlainText || m.ctype == ctHTML || m.ctype == ctMessage {
			switch m.encoding {
			case encPlain, encQP:
				m.findURLs(full)
			case encBase64:
				if m.cfg.DecodeBase64 && m.hasDecoder {
					if len(line) > mimeMaxEncLineLen {
						w |= anomLongEncLine
					}
					if dec, ok := m.b64.decode(line, m.scratch[:0]); ok {
						m.scratch = dec
						m.findURLs(dec)
					} else {
						w |= anomInvalidBase64
					}
				}
			}
		}
		return mimeNeedsMore, w
	}
	switch m.encoding {
	case encPlain:
		m.findURLs(full)
		if m.bufeolen > 0 {
			// FileAppendData of bufeol.len(): both bytes of the buffer, whatever bufeolen
			// (a line ended by LF alone carries a stale second byte, as in 8.0.6).
			m.out = append(m.out, m.bufeol[:]...)
		}
		m.out = append(m.out, line...)
		m.bufeolen = len(full) - len(line)
		if m.bufeolen > 2 {
			m.bufeolen = 2
		}
		copy(m.bufeol[:m.bufeolen], full[len(line):])
	case encBase64:
		if m.cfg.DecodeBase64 && m.hasDecoder {
			if len(line) > mimeMaxEncLineLen {
				w |= anomLongEncLine
			}
			start := len(m.out)
			if dec, ok := m.b64.decode(line, m.out); ok {
				m.out = dec
				m.findURLs(dec[start:])
			} else {
				m.out = m.out[:start]
				w |= anomInvalidBase64
			}
		}
	case encQP:
		if m.cfg.DecodeQP {
			w |= m.decodeQP(line, full)
			m.findURLs(m.out)
		}
	}
	return mimeFileChunk, w
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeQP is the quoted-printable branch of mime_smtp_parse_line: "=XX" escapes (upper
// case hex only), a soft line break "=" at the end of a line, an escape cut by the end of a
// fragment kept in bufeol for the next one.
func (m *Mime) decodeQP(line, full []byte) uint32 {
	var w uint32
	if len(line) > mimeMaxEncLineLen {
		w |= anomLongEncLine
	}
	c := 0
	eolEqual := false
	out := m.out[:0]
	if m.bufeolen > 0 && m.bufeol[0] == '=' {
		if len(line) >= 2 {
			h1, h2 := line[0], line[1]
			if m.bufeolen != 1 {
				h1, h2 = m.bufeol[1], line[0]
			}
			if v, ok := hexVal(h1); ok {
				if v2, ok := hexVal(h2); ok {
					out = append(out, v<<4|v2)
				}
			}
		}
		if len(out) == 0 {
			w |= anomInvalidQP
		}
		c = 3 - m.bufeolen
		m.bufeolen = 0
	} else if m.bufeolen > 0 {
		out = append(out, m.bufeol[:m.bufeolen]...)
		m.bufeolen = 0
	}
	for c < len(line) {
		if line[c] == '=' {
			if c == len(line)-1 && len(full) > len(line) {
				eolEqual = true
				break
			} else if c+2 >= len(line) {
				if len(full) > len(line) {
					w |= anomInvalidQP
				} else {
					m.bufeolen = len(line) - c
					m.bufeol[0] = '='
					if m.bufeolen == 2 {
						m.bufeol[1] = line[c+1]
					}
				}
				break
			}
			if v, ok := hexVal(line[c+1]); ok {
				if v2, ok := hexVal(line[c+2]); ok {
					out = append(out, v<<4|v2)
				} else {
					w |= anomInvalidQP
				}
			} else {
				w |= anomInvalidQP
			}
			c += 3
		} else {
			out = append(out, line[c])
			c++
		}
	}
	if len(line) == 0 {
		m.bufeolen = min(len(full)-len(line), 2)
		copy(m.bufeol[:m.bufeolen], full[len(line):])
	} else if !eolEqual {
		out = append(out, full[len(line):]...)
	}
	m.out = out
	return w
}

// complete is mime_smtp_complete: the body MD5 is final, the last unfinished line is
// searched for URLs.
func (m *Mime) complete() {
	if m.md5State == md5Started {
		m.md5State = md5Completed
		m.md5.Sum(m.md5Sum[:0])
	}
	m.findURLs(newline)
}

var newline = []byte{'\n'}

// findURLs is mime_smtp_find_url_strings: URLs are searched per line; a line not ended yet
// is buffered (up to SMTP_MIME_MAX_DECODED_LINE_LENGTH).
func (m *Mime) findURLs(in []byte) {
	if !m.cfg.ExtractURLs {
		return
	}
	input := in
	newLen := len(in)
	if len(m.decodedLine) > 0 {
		m.decodedLine = append(m.decodedLine, in...)
		input = m.decodedLine
	}
	if len(input) == 0 {
		return
	}
	if input[len(input)-1] == '\n' || len(input) > mimeMaxDecodedLine {
		m.extractURLs(input)
		m.decodedLine = m.decodedLine[:0]
		return
	}
	// the last LF within the new bytes
	x := -1
	for i := len(input) - 1; i >= len(input)-newLen && i >= 0; i-- {
		if input[i] == '\n' {
			x = i
			break
		}
	}
	if x >= 0 {
		m.extractURLs(input[:x])
		if len(m.decodedLine) > 0 {
			n := copy(m.decodedLine, m.decodedLine[x:])
			m.decodedLine = m.decodedLine[:n]
		} else {
			m.decodedLine = append(m.decodedLine, in[x:]...)
		}
	} else if len(m.decodedLine) == 0 {
		m.decodedLine = append(m.decodedLine, in...)
	}
}

// indexNoCase is BasicSearchNocaseIndex: the first index of needle (lower case) in data,
// len(data) if none.
func indexNoCase(data, needle []byte) int {
	if len(needle) == 0 {
		return 0
	}
	c0 := needle[0]
	u0 := c0
	if 'a' <= c0 && c0 <= 'z' {
		u0 = c0 - ('a' - 'A')
	}
	for i := 0; i+len(needle) <= len(data); {
		// the next place the first byte (either case) is
		j := bytes.IndexByte(data[i:len(data)-len(needle)+1], c0)
		if u0 != c0 {
			if k := bytes.IndexByte(data[i:len(data)-len(needle)+1], u0); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			break
		}
		i += j
		ok := true
		for k := 1; k < len(needle); k++ {
			x := data[i+k]
			if 'A' <= x && x <= 'Z' {
				x += 'a' - 'A'
			}
			if x != needle[k] {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
		i++
	}
	return len(data)
}

// finishURL is mime_smtp_finish_url: a URL ends at a space, quote, angle bracket, ']' or
// tab (not at CR or LF: a URL ending a line keeps the line end, as in 8.0.6).
func finishURL(in []byte) []byte {
	for i, c := range in {
		switch c {
		case ' ', '"', '\'', '<', '>', ']', '\t':
			return in[:i]
		}
	}
	return in
}

// extractURLs is mime_smtp_extract_urls.
func (m *Mime) extractURLs(in []byte) {
	for _, s := range m.cfg.URLSchemes {
		input := in
		start := indexNoCase(input, s)
		for start < len(input) {
			url := finishURL(input[start:])
			v := url
			if !m.cfg.LogURLScheme {
				v = url[len(s):]
			}
			m.addURL(v)
			input = input[start+len(url):]
			start = indexNoCase(input, s)
		}
	}
}

func (m *Mime) addURL(v []byte) {
	if m.nURL >= MaxURLs {
		return
	}
	if m.nURL == len(m.urls) {
		m.urls = append(m.urls, nil)
	}
	m.urls[m.nURL] = append(m.urls[m.nURL][:0], v...)
	m.nURL++
}

func (m *Mime) addAttachment(v []byte) {
	if m.nAtt >= MaxAttachments {
		return
	}
	if m.nAtt == len(m.attachments) {
		m.attachments = append(m.attachments, nil)
	}
	m.attachments[m.nAtt] = append(m.attachments[m.nAtt][:0], v...)
	m.nAtt++
}

func (m *Mime) pushBoundary(v []byte) {
	if m.nBound >= MaxBoundaries {
		return
	}
	if m.nBound == len(m.boundaries) {
		m.boundaries = append(m.boundaries, nil)
	}
	b := append(m.boundaries[m.nBound][:0], '-', '-')
	m.boundaries[m.nBound] = append(b, v...)
	m.nBound++
}

// processHeaders is mime_smtp_process_headers over the current part's headers: the file
// name (Content-Disposition filename, else Content-Type name), the transfer encoding, the
// boundary and the content type; encap says the part is an encapsulated message/*.
func (m *Mime) processHeaders() (w uint32, encap bool) {
	for i := m.mainN; i < m.nHeaders; i++ {
		h := &m.headers[i]
		switch {
		case equalLower(h.Name, "content-disposition"):
			if len(m.filename) == 0 {
				if v, ok := m.findToken(h.Value, "filename"); ok {
					if len(v) > mimeMaxTokenLen {
						w |= anomLongFilename
						v = v[:mimeMaxTokenLen]
					}
					m.filename = append(m.filename[:0], v...)
					m.addAttachment(v)
				}
			}
		case equalLower(h.Name, "content-transfer-encoding"):
			if equalLower(h.Value, "base64") {
				m.encoding, m.hasDecoder, m.b64 = encBase64, true, b64Decoder{}
			} else if equalLower(h.Value, "quoted-printable") {
				m.encoding = encQP
			}
		case equalLower(h.Name, "content-type"):
			if len(m.filename) == 0 {
				if v, ok := m.findToken(h.Value, "name"); ok {
					if len(v) > mimeMaxTokenLen {
						w |= anomLongFilename
						v = v[:mimeMaxTokenLen]
					}
					m.filename = append(m.filename[:0], v...)
					m.addAttachment(v)
				}
			}
			if v, ok := m.findToken(h.Value, "boundary"); ok {
				if len(v) > mimeMaxBoundaryLen {
					w |= anomLongBoundary
				}
				m.pushBoundary(v)
			}
			ct := h.Value
			for j, c := range ct {
				if c == ';' {
					ct = ct[:j]
					break
				}
			}
			switch string(ct) {
			case "text/plain":
				m.ctype = ctPlainText
			case "text/html":
				m.ctype = ctHTML
			default:
				if len(ct) >= 8 && string(ct[:8]) == "message/" {
					encap = true
				}
				m.ctype = ctUnknown
			}
		}
	}
	return w, encap
}

// token is one name=value parameter of a header value.
type token struct{ name, value []byte }

// findToken is mime_find_header_token: the parameters after the first ';' of a header
// value (name=value or name="value"), the value of name, or the RFC 2231 sections name*0,
// name*1, ... concatenated. The first of duplicate names is replaced by later ones, as the
// HashMap insert does.
func (m *Mime) findToken(header []byte, name string) ([]byte, bool) {
	semi := -1
	for i, c := range header {
		if c == ';' {
			semi = i
			break
		}
	}
	if semi < 0 {
		return nil, false
	}
	m.tokens = m.tokens[:0]
	in := header[semi+1:]
	for len(in) > 0 {
		rest, t, ok := parseToken(in)
		if !ok || len(rest) == len(in) {
			break
		}
		replaced := false
		for k := range m.tokens {
			if string(m.tokens[k].name) == string(t.name) {
				m.tokens[k].value = t.value
				replaced = true
				break
			}
		}
		if !replaced && len(m.tokens) < 64 {
			m.tokens = append(m.tokens, t)
		}
		in = rest
	}
	get := func(n []byte) ([]byte, bool) {
		for _, t := range m.tokens {
			if string(t.name) == string(n) {
				return t.value, true
			}
		}
		return nil, false
	}
	if v, ok := get([]byte(name)); ok {
		return v, true
	}
	m.section = append(append(m.section[:0], name...), '*', '0')
	v, ok := get(m.section)
	if !ok {
		return nil, false
	}
	// the sections' concatenation goes in scratch space that outlives the call
	out := append([]byte(nil), v...)
	for n := 1; n < 1000; n++ {
		m.section = append(m.section[:len(name)+1], itoa(n)...)
		v, ok := get(m.section)
		if !ok {
			break
		}
		out = append(out, v...)
	}
	return out, true
}

func itoa(n int) []byte {
	var b [8]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return b[i:]
}

// parseToken is mime_parse_header_token: spaces, a name up to '=', a quoted value (a
// backslash escapes the next quote) or a value up to ';' with trailing spaces trimmed, then
// spaces and an optional ';'.
func parseToken(in []byte) (rest []byte, t token, ok bool) {
	for len(in) > 0 && isMimeSpace(in[0]) {
		in = in[1:]
	}
	eq := -1
	for i, c := range in {
		if c == '=' {
			eq = i
			break
		}
	}
	if eq < 0 {
		return nil, t, false
	}
	t.name = in[:eq]
	in = in[eq+1:]
	if len(in) > 0 && in[0] == '"' {
		orig := in
		in = in[1:]
		escaping := false
		end := -1
		for i, c := range in {
			if c == '\\' {
				escaping = true
				continue
			}
			if c == '"' && !escaping {
				end = i
				break
			}
			escaping = false
		}
		if end < 0 {
			// take_until("\"") fails: the alternative (the value until ';') runs from
			// the quote
			var v []byte
			v, in = untilSemicolon(orig)
			t.value = v
		} else {
			t.value = in[:end]
			in = in[end+1:]
		}
	} else {
		var v []byte
		v, in = untilSemicolon(in)
		t.value = v
	}
	for len(in) > 0 && isMimeSpace(in[0]) {
		in = in[1:]
	}
	if len(in) > 0 && in[0] == ';' {
		in = in[1:]
	}
	return in, t, true
}

func untilSemicolon(in []byte) (value, rest []byte) {
	end := len(in)
	for i, c := range in {
		if c == ';' {
			end = i
			break
		}
	}
	v := in[:end]
	for len(v) > 0 && isMimeSpace(v[len(v)-1]) {
		v = v[:len(v)-1]
	}
	return v, in[end:]
}

// b64Decoder is rust/src/utils/base64.rs Decoder with decode_rfc2045: characters outside
// the alphabet (and '=') are skipped, groups of four decode, '=' ends a group early.
type b64Decoder struct {
	tmp [4]byte
	nb  int
}

func b64Map(c byte) (byte, bool) {
	switch {
	case 'A' <= c && c <= 'Z':
		return c - 'A', true
	case 'a' <= c && c <= 'z':
		return c - 'a' + 26, true
	case '0' <= c && c <= '9':
		return c - '0' + 52, true
	case c == '+':
		return 62, true
	case c == '/':
		return 63, true
	}
	return 0, false
}

// decode appends the bytes decoded from in to out; ok is false on an invalid group (a '='
// in the first two places, or a character after '='), which resets the decoder.
func (d *b64Decoder) decode(in []byte, out []byte) ([]byte, bool) {
	for len(in) > 0 {
		// fast path: four alphabet characters at a group boundary
		for d.nb == 0 && len(in) >= 4 {
			a, b, c, e := b64Table[in[0]], b64Table[in[1]], b64Table[in[2]], b64Table[in[3]]
			if a|b|c|e >= 64 {
				break
			}
			out = append(out, a<<2|b>>4, b<<4|c>>2, c<<6|e)
			in = in[4:]
		}
		for d.nb < 4 && len(in) > 0 {
			if _, ok := b64Map(in[0]); ok || in[0] == '=' {
				d.tmp[d.nb] = in[0]
				d.nb++
			}
			in = in[1:]
		}
		if d.nb == 4 {
			d.nb = 0
			a, ok1 := b64Map(d.tmp[0])
			b, ok2 := b64Map(d.tmp[1])
			if !ok1 || !ok2 {
				return out, false
			}
			if d.tmp[2] == '=' {
				out = append(out, a<<2|b>>4)
				continue
			}
			c, ok3 := b64Map(d.tmp[2])
			if !ok3 {
				return out, false
			}
			if d.tmp[3] == '=' {
				out = append(out, a<<2|b>>4, b<<4|c>>2)
				continue
			}
			e, ok4 := b64Map(d.tmp[3])
			if !ok4 {
				return out, false
			}
			out = append(out, a<<2|b>>4, b<<4|c>>2, c<<6|e)
		}
	}
	return out, true
}

// b64Table maps a byte to its base64 value, 0xff for any other byte.
var b64Table = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
		if v, ok := b64Map(byte(i)); ok {
			t[i] = v
		}
	}
	return t
}()
