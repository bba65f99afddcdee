package http

import (
	"bytes"

	"github.com/meerkat-ids/meerkat/applayer"
)

// http09MaxJunk is HTTP09_MAX_JUNK_LEN: whitespace after a protocol-less request line that
// still leaves it HTTP/0.9.
const http09MaxJunk = 16

// isLineEmpty is libhtp is_line_empty (CR, LF or CRLF): ignored before a request line.
func isLineEmpty(b []byte) bool {
	return (len(b) == 1 && (b[0] == '\r' || b[0] == '\n')) || (len(b) == 2 && b[0] == '\r' && b[1] == '\n')
}

// knownMethods are libhtp's HtpMethod names (HtpMethod::new; exact case).
var knownMethods = []string{"GET", "PUT", "POST", "DELETE", "CONNECT", "OPTIONS", "TRACE",
	"PATCH", "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK",
	"VERSION-CONTROL", "CHECKOUT", "UNCHECKOUT", "CHECKIN", "UPDATE", "LABEL", "REPORT",
	"MKWORKSPACE", "MKACTIVITY", "BASELINE-CONTROL", "MERGE", "INVALID", "HEAD"}

func methodKnown(m []byte) bool {
	for _, k := range knownMethods {
		if string(m) == k {
			return true
		}
	}
	return false
}

// parseRequest is libhtp's request_data loop over the inbound states.
func (s *State) parseRequest(data []byte, eof bool) applayer.Result {
	off := 0
	sd := &s.rq
	if eof {
		sd.closed = true
	}
	for {
		t := sd.tx
		switch s.rqs {
		case rqStop, rqTunnel, rqIgnore:
			// request_ignore_data_after_http_0_9 and tunnels: the data is dropped
			return applayer.Result{Consumed: len(data)}
		case rqConnectWait:
			// DATA_OTHER: wait for the CONNECT response with the data unconsumed
			return applayer.Result{Consumed: off}
		case rqConnectProbe:
			if r, stop := s.reqConnectProbe(t, data, &off); stop {
				return r
			}
		case rqIdle:
			if off >= len(data) {
				return applayer.Result{Consumed: off}
			}
			nt := s.newTx()
			if nt == nil {
				// libhtp refuses a transaction past max-tx: a stream error
				s.event(nil, EvUnknownError)
				return applayer.Result{Consumed: len(data), Err: errParse}
			}
			sd.tx = nt
			s.frameStart(0, off, nt)
			nt.data.Progress[0] = ReqLine
			touch(nt, 0)
			s.rqs = rqLine
		case rqLine:
			line, ok, err := s.takeLine(sd, data, &off, t, EvRequestFieldTooLong)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok {
				if sd.closed && len(sd.line) > 0 {
					line = sd.line
					sd.line = sd.line[:0]
				} else {
					return applayer.Result{Consumed: off}
				}
			}
			if isLineEmpty(line) {
				continue // is_line_ignorable
			}
			s.requestLine(t, chomp(line))
			sd.lfOnly = endsBareLF(line)
			touch(t, 0)
			if t.flags != 0 {
				s.requestFlagEvents(t)
			}
			// request_protocol
			if !t.Is09 {
				t.data.Progress[0] = ReqHeaders
				s.rqs = rqHeaders
				continue
			}
			rest := data[off:]
			sp := 0
			for sp < len(rest) && isSpace(rest[sp]) {
				sp++
			}
			if sp < len(rest) || sp > http09MaxJunk {
				t.Is09 = false
				t.data.Progress[0] = ReqHeaders
				s.event(t, EvRequestLineMissingProtocol)
				s.rqs = rqHeaders
				continue
			}
			s.reqComplete(t)
		case rqHeaders:
			line, ok, err := s.takeLine(sd, data, &off, t, EvRequestFieldTooLong)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok {
				if !sd.closed {
					return applayer.Result{Consumed: off}
				}
				// the stream closed inside the headers: what was buffered ends them
				if len(sd.line) > 0 {
					line = sd.line
					sd.line = sd.line[:0]
					if _, err := s.headerLine(sd, t, false, line); err != nil {
						return applayer.Result{Consumed: len(data), Err: err}
					}
				}
				line = []byte{}
			}
			done := true
			prevLF := sd.lfOnly
			sd.lfOnly = endsBareLF(line)
			if len(line) > 0 && prevLF && sd.hasHdr && string(line) == "\r\r\n" && startsEOL(data[off:]) {
				// headers.rs complete_eol_deformed (request side): "\n\r\r\n" before another
				// line end closes the header, and that line end closes the block
				err = s.flushHeader(sd, t, false)
				done = false
			} else if len(line) > 0 {
				done, err = s.headerLine(sd, t, false, line)
			} else if sd.hasHdr {
				err = s.flushHeader(sd, t, false)
			}
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			touch(t, 0)
			if !done {
				continue
			}
			if sd.trailer {
				sd.trailer = false
				s.reqComplete(t)
				continue
			}
			if err := s.reqHeadersDone(t); err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok && sd.closed && s.rqs != rqFinalize && s.rqs != rqIdle {
				return applayer.Result{Consumed: len(data)}
			}
		case rqBodyCL:
			if off >= len(data) {
				if sd.closed {
					s.reqBodyEnd()
					s.reqComplete(t)
				}
				return applayer.Result{Consumed: off}
			}
			n := min(uint64(len(data)-off), sd.left)
			t.RequestLength += n
			s.reqBodyData(t, data[off:off+int(n)])
			off += int(n)
			sd.left -= n
			if sd.left == 0 {
				s.reqBodyEnd()
				s.rqs = rqFinalize
			}
		case rqChunkLen:
			line, ok, err := s.takeLine(sd, data, &off, t, EvRequestFieldTooLong)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok {
				if !isValidChunkedLengthData(sd.line) {
					s.event(t, EvInvalidRequestChunkLen)
					return applayer.Result{Consumed: len(data), Err: errParse}
				}
				if sd.closed {
					s.reqBodyEnd()
					s.reqComplete(t)
				}
				return applayer.Result{Consumed: off}
			}
			t.RequestLength += uint64(len(line))
			if isChunkedCtlLine(line) {
				continue
			}
			n, valid, ext := parseChunkLen(line)
			if ext {
				s.event(t, EvRequestChunkExtension)
			}
			if !valid {
				s.event(t, EvInvalidRequestChunkLen)
				return applayer.Result{Consumed: len(data), Err: errParse}
			}
			if n == 0 {
				s.reqBodyEnd()
				sd.trailer = true
				t.data.Progress[0] = ReqTrailer
				touch(t, 0)
				s.rqs = rqHeaders
			} else {
				sd.left = n
				s.rqs = rqChunkData
			}
		case rqChunkData:
			if off >= len(data) {
				if sd.closed {
					s.reqBodyEnd()
					s.reqComplete(t)
				}
				return applayer.Result{Consumed: off}
			}
			n := min(uint64(len(data)-off), sd.left)
			t.RequestLength += n
			s.reqBodyData(t, data[off:off+int(n)])
			off += int(n)
			sd.left -= n
			if sd.left == 0 {
				s.rqs = rqChunkDataEnd
			}
		case rqChunkDataEnd:
			line, ok, err := s.takeLine(sd, data, &off, t, EvRequestFieldTooLong)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok {
				return applayer.Result{Consumed: off}
			}
			t.RequestLength += uint64(len(line))
			s.rqs = rqChunkLen
		case rqFinalize:
			if r, stop := s.reqFinalize(t, data, &off); stop {
				return r
			}
		}
	}
}

// reqConnectProbe is request_connect_probe_data: after a CONNECT's 2xx response (one that
// Suricata does not turn into a protocol change) the client's next line, up to LF or NUL,
// is probed: a known method means the tunnel carries HTTP and parsing goes on with the
// CONNECT request complete; anything else makes both directions a tunnel. The probed
// bytes are not consumed. stop is true when the call must return.
func (s *State) reqConnectProbe(t *Tx, data []byte, off *int) (applayer.Result, bool) {
	sd := &s.rq
	rest := data[*off:]
	end := -1
	for i, c := range rest {
		if c == '\n' || c == 0 {
			end = i + 1
			break
		}
	}
	if end < 0 && !sd.closed {
		// handle_request_absent_lf: buffered until the line is whole (or the limit)
		if len(sd.line)+len(rest) > s.cfg.MetaFieldLimit {
			s.event(t, EvRequestFieldTooLong)
			return applayer.Result{Consumed: len(data), Err: errParse}, true
		}
		sd.line = append(sd.line, rest...)
		*off = len(data)
		return applayer.Result{Consumed: *off}, true
	}
	if end < 0 {
		end = len(rest)
	}
	// the method: leading whitespace skipped, up to the next whitespace, over the
	// buffered part and this line
	var m [32]byte
	n, started, long := 0, false, false
	scan := func(b []byte) bool {
		for _, c := range b {
			if isSpace(c) {
				if started {
					return true
				}
				continue
			}
			started = true
			if n == len(m) {
				long = true
				return true
			}
			m[n] = c
			n++
		}
		return false
	}
	if !scan(sd.line) {
		scan(rest[:end])
	}
	if long || !methodKnown(m[:n]) {
		s.rqs, s.rss = rqTunnel, rsTunnel
		sd.line = sd.line[:0]
		if t != nil {
			t.Tunnel = true
			t.data.Progress[0] = ReqComplete
			touch(t, 0)
			sd.tx = nil
		}
		return applayer.Result{Consumed: len(data)}, true
	}
	// the line is the next request's: hand the buffered part back to the line parser
	s.reqComplete(t)
	return applayer.Result{}, false
}

// reqFinalize is request_finalize: a line after the body that does not start with a known
// method is more body data (request_body_unexpected when no body was expected); otherwise
// the request completes and the line is left for the next request. stop is true when the
// call must return.
func (s *State) reqFinalize(t *Tx, data []byte, off *int) (applayer.Result, bool) {
	sd := &s.rq
	rest := data[*off:]
	if len(rest) == 0 && len(sd.line) == 0 {
		s.reqComplete(t)
		return applayer.Result{}, false
	}
	i := indexLF(rest)
	if i < 0 && !sd.closed {
		if len(sd.line)+len(rest) > s.cfg.MetaFieldLimit {
			s.event(t, EvRequestFieldTooLong)
			return applayer.Result{Consumed: len(data), Err: errParse}, true
		}
		sd.line = append(sd.line, rest...)
		*off = len(data)
		return applayer.Result{Consumed: *off}, true
	}
	end := len(rest)
	if i >= 0 {
		end = i + 1
	}
	// the candidate line: buffered part + rest[:end]
	var tok []byte
	lineStart := sd.line
	j := 0
	all := func(k int) byte {
		if k < len(lineStart) {
			return lineStart[k]
		}
		return rest[k-len(lineStart)]
	}
	total := len(lineStart) + end
	work := total
	if i >= 0 {
		work-- // without the LF
	}
	for j < work && isSpace(all(j)) {
		j++
	}
	k := j
	for k < work && !isSpace(all(k)) {
		k++
	}
	if k-j > 0 && k-j <= 32 {
		var m [32]byte
		for x := j; x < k; x++ {
			m[x-j] = all(x)
		}
		tok = m[:k-j]
	}
	if k == j || (len(tok) == 0 || !methodKnown(tok)) {
		if k != j && sd.left == 0 {
			s.event(t, EvRequestBodyUnexpected)
		}
		// more body data
		if len(lineStart) > 0 {
			t.RequestLength += uint64(len(lineStart))
			s.reqBodyData(t, lineStart)
			sd.line = sd.line[:0]
		}
		t.RequestLength += uint64(end)
		s.reqBodyData(t, rest[:end])
		*off += end
		if i < 0 {
			s.reqComplete(t)
		}
		return applayer.Result{}, false
	}
	s.reqComplete(t)
	return applayer.Result{}, false
}

// requestLine is parse_request_line (request.rs) plus the tx's parse_request_line
// (transaction.rs): method, URI (spaces allowed, split at the last space), protocol.
func (s *State) requestLine(t *Tx, line []byte) {
	t.RequestLine = append(t.RequestLine[:0], line...)
	data := t.RequestLine
	if s.cfg.apache2() {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			data = data[:i]
		}
	}
	i := 0
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	ls := data[:i]
	j := i
	for j < len(data) && !isSpace(data[j]) {
		j++
	}
	method := data[i:j]
	k := j
	for k < len(data) && isSpace(data[k]) {
		k++
	}
	ws := data[j:k]
	remaining := data[k:]
	if len(ls) > 0 {
		s.event(t, EvRequestLineLeadingWhitespace)
		// the IDS personality ignores leading whitespace (requestline_leading_whitespace_unwanted
		// = Ignore); others keep it in the method
		if !s.cfg.leadingWSIgnored() {
			method = data[:j]
		}
	}
	t.Method = append(t.Method[:0], method...)
	t.MethodKnown = methodKnown(t.Method)
	for _, c := range ws {
		if c != ' ' {
			s.event(t, EvMethodDelimNonCompliant)
			break
		}
	}
	if len(remaining) == 0 {
		t.Is09 = true
		t.ProtocolNumber = Proto09
		if !t.MethodKnown {
			s.event(t, EvRequestLineUnknownMethod)
		}
		return
	}
	remaining = trim(remaining)
	uriB, proto := splitLast(remaining, func(c byte) bool { return c == ' ' })
	nonCompliant := false
	for _, c := range uriB {
		if isSpace(c) && c != ' ' {
			nonCompliant = true
			break
		}
	}
	if nonCompliant {
		s.event(t, EvUriDelimNonCompliant)
		if len(uriB) == len(remaining) {
			uriB, proto = splitLast(remaining, isSpace)
		}
	}
	t.URIRaw = append(t.URIRaw[:0], uriB...)
	t.HasURI = true
	s.parseURI(t)
	if len(proto) == 0 {
		t.Is09 = true
		t.ProtocolNumber = Proto09
		if !t.MethodKnown {
			s.event(t, EvRequestLineUnknownMethodNoProtocol)
		}
		return
	}
	t.Protocol = append(t.Protocol[:0], proto...)
	num, extra := parseProtocol(proto)
	if extra {
		s.event(t, EvProtocolContainsExtraData)
	}
	t.ProtocolNumber = num
	if !t.MethodKnown && num == ProtoInvalid {
		s.event(t, EvRequestLineUnknownMethodInvalidProtocol)
	}
}

// splitLast is split_on_predicate(reverse, trim): at the last byte matching pred.
func splitLast(b []byte, pred func(byte) bool) (first, second []byte) {
	for i := len(b) - 1; i >= 0; i-- {
		if pred(b[i]) {
			return trim(b[:i]), trim(b[i+1:])
		}
	}
	return trim(b), nil
}

// requestFlagEvents is HTPErrorCheckTxRequestFlags.
func (s *State) requestFlagEvents(t *Tx) {
	f := t.flags
	if f&txFlagInvalidTE != 0 {
		flagEvent(t, EvInvalidTransferEncodingValueInRequest)
	}
	if f&txFlagInvalidCL != 0 {
		flagEvent(t, EvInvalidContentLengthFieldInRequest)
	}
	if f&txFlagHostMissing != 0 {
		flagEvent(t, EvMissingHostHeader)
	}
	if f&txFlagHostAmbiguous != 0 {
		flagEvent(t, EvHostHeaderAmbiguous)
	}
	if f&txFlagHostUInvalid != 0 {
		flagEvent(t, EvRequestUriHostInvalid)
	}
	if f&txFlagHostHInvalid != 0 {
		flagEvent(t, EvRequestHeaderHostInvalid)
	}
	if f&txFlagAuthInvalid != 0 {
		flagEvent(t, EvRequestAuthUnrecognized)
	}
}

// reqHeadersDone is state_request_headers: process_request_headers, the CONNECT check,
// decompressors and request_body_determine.
func (s *State) reqHeadersDone(t *Tx) error {
	s.processRequestHeaders(t)
	if string(t.Method) == "CONNECT" {
		s.rqs = rqConnectWait
		return nil
	}
	s.rq.dec.setup(s, t, false)
	te, hasTE := t.RequestHeaders.Header("Transfer-Encoding")
	switch {
	case hasTE && len(te) > 0 && containsFold(te, "chunked"):
		t.reqChunked = true
		t.data.Progress[0] = ReqBody
		s.rqs = rqChunkLen
	case hasTE && len(te) > 0:
		s.requestFlagEvents(t)
		return errParse
	case t.reqCL > 0:
		t.data.Progress[0] = ReqBody
		s.rq.left = uint64(t.reqCL)
		s.rqs = rqBodyCL
	default:
		if t.flags&txFlagInvalidCL != 0 {
			s.requestFlagEvents(t)
			return errParse
		}
		s.rqs = rqFinalize
	}
	if s.rqs != rqFinalize {
		// HTPCallbackRequestBodyData: POST bodies are multipart (files per part) or one
		// file, PUT bodies one file, named by the URI path (HtpRequestBodyHandlePOSTorPUT)
		switch string(t.Method) {
		case "POST":
			ct, _ := t.RequestHeaders.Header("Content-Type")
			if len(ct) > 0 {
				t.mime.boundary, t.mimeScratch, t.multipart = multipartBoundary(t.mime.boundary, ct, t.mimeScratch)
			}
			if !t.multipart {
				s.openFile(t, false)
			}
		case "PUT":
			s.openFile(t, false)
		}
	}
	touch(t, 0)
	return nil
}

// processRequestHeaders is the tx's process_request_headers: transfer coding, C-L, host
// and port (§5.5).
func (s *State) processRequestHeaders(t *Tx) {
	h := &t.RequestHeaders
	cl, hasCL := h.Header("Content-Length")
	te, hasTE := h.Header("Transfer-Encoding")
	if hasTE && len(te) > 0 {
		if !containsFold(te, "chunked") {
			t.flags |= txFlagInvalidTE
		} else {
			if t.ProtocolNumber < Proto11 {
				t.flags |= txFlagInvalidTE | txFlagSmuggling
			}
			if hasCL && len(cl) > 0 {
				t.flags |= txFlagSmuggling
			}
		}
	} else if hasCL && len(cl) > 0 {
		if f, _ := h.headerFlags("Content-Length"); f != 0 {
			t.flags |= txFlagSmuggling
		}
		n, ok, js, je := parseContentLength(cl)
		if js {
			s.event(t, EvContentLengthExtraDataStart)
		}
		if je {
			s.event(t, EvContentLengthExtraDataEnd)
		}
		if ok {
			t.reqCL = n
		} else {
			t.flags |= txFlagInvalidCL
		}
	}
	t.reqSmuggling = t.flags&txFlagSmuggling != 0
	hasURIHost := t.hostFromURI
	if hv, ok := h.Header("Host"); ok && len(hv) > 0 {
		host, port, hasPort, valid := parseHostPort(hv)
		if !valid {
			t.flags |= txFlagHostHInvalid
		}
		if !hasURIHost {
			t.Hostname = appendNormHost(t.Hostname[:0], host)
			if hasPort {
				t.Port = port
			}
			t.HostRaw = append(t.HostRaw[:0], hv...)
			t.HasHostRaw = true
		} else {
			if !bytes.EqualFold(t.Hostname, trimDots(host)) && !bytes.EqualFold(t.ParsedURI.Hostname, host) {
				t.flags |= txFlagHostAmbiguous
			}
			if hasPort && t.Port >= 0 && t.Port != port {
				t.flags |= txFlagHostAmbiguous
			}
		}
	} else if ok && hasURIHost {
		t.flags |= txFlagHostAmbiguous
	} else if !ok && t.ProtocolNumber >= Proto11 {
		t.flags |= txFlagHostMissing
	}
	if v, ok := h.Header("Expect"); ok && bytes.Equal(v, []byte("100-continue")) {
		t.expectContinue = true
	}
	if v, ok := h.Header("Authorization"); ok && len(v) > 0 {
		if !validAuth(v) {
			t.flags |= txFlagAuthInvalid
		}
	}
}

// validAuth approximates parse_authorization: Basic and Digest (with a quoted username)
// are recognised, other schemes are unrecognised (request_auth_unrecognized).
func validAuth(v []byte) bool {
	switch {
	case len(v) >= 5 && equalFoldBS(v[:5], "basic"):
		return true
	case len(v) >= 6 && equalFoldBS(v[:6], "digest"):
		return bytes.Contains(v, []byte(`username="`))
	case len(v) >= 6 && equalFoldBS(v[:6], "bearer"):
		return true
	}
	return false
}

// parseHostPort is libhtp parse_hostport: host[:port] or [v6][:port]; valid is false for a
// bad port or host.
func parseHostPort(v []byte) (host []byte, port int, hasPort, valid bool) {
	v = trim(v)
	valid = true
	var rest []byte
	if len(v) > 0 && v[0] == '[' {
		e := bytes.IndexByte(v, ']')
		if e < 0 {
			return v, -1, false, false
		}
		host, rest = v[:e+1], v[e+1:]
	} else if c := bytes.IndexByte(v, ':'); c >= 0 {
		host, rest = v[:c], v[c:]
	} else {
		host = v
	}
	if len(rest) > 0 {
		if rest[0] != ':' {
			valid = false
		} else if p, ok := atoiPort(trim(rest[1:])); ok {
			port, hasPort = p, true
		} else if len(trim(rest[1:])) > 0 {
			valid = false
		}
	}
	if !validHostname(host) {
		valid = false
	}
	return host, port, hasPort, valid
}

func atoiPort(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 5 {
		return 0, false
	}
	x := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int(c-'0')
	}
	if x == 0 || x > 65535 {
		return 0, false
	}
	return x, true
}

// validHostname is libhtp validate_hostname (relaxed): labels of at most 63 bytes, no
// whitespace or delimiters, at most 255 bytes; an IPv6 literal in brackets.
func validHostname(h []byte) bool {
	if len(h) == 0 || len(h) > 255 {
		return false
	}
	if h[0] == '[' {
		return h[len(h)-1] == ']' && len(h) > 2
	}
	label := 0
	for _, c := range h {
		switch {
		case c == '.':
			if label == 0 {
				return false
			}
			label = 0
		case c <= ' ' || c >= 0x7f || c == '/' || c == '?' || c == '#' || c == '@' || c == '[' || c == ']':
			return false
		default:
			label++
			if label > 63 {
				return false
			}
		}
	}
	return true
}

func trimDots(h []byte) []byte {
	for len(h) > 0 && h[len(h)-1] == '.' {
		h = h[:len(h)-1]
	}
	return h
}

// appendNormHost is normalize_hostname: lowercase, trailing dots removed.
func appendNormHost(dst, h []byte) []byte {
	for _, c := range trimDots(h) {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// reqBodyEnd finishes the request body (request_body_data(None)).
func (s *State) reqBodyEnd() {
	t := s.rq.tx
	if t == nil || t.RequestBody.Complete {
		return
	}
	s.rq.dec.finish(s, t, false)
	t.RequestBody.Complete = true
	if t.multipart {
		s.scanMultipart(t)
	}
	touch(t, 0)
}

// reqComplete is state_request_complete.
func (s *State) reqComplete(t *Tx) {
	if t == nil {
		s.rqs = rqIdle
		return
	}
	if !t.RequestBody.Complete {
		s.reqBodyEnd()
	}
	// HTPCallbackRequestComplete: HTPFileClose(flags 0), after request_finalize may have
	// added the bytes following a body as more body
	closeFile(t, t.RequestFiles, FileClosed, s.cfg.ForceHash)
	t.data.Progress[0] = ReqComplete
	if t.flags != 0 {
		s.requestFlagEvents(t)
	}
	touch(t, 0)
	// request done: raw reassembly now, to inspect tx and stream at the same time
	// (HTPCallbackRequestComplete)
	s.trigger[0] = true
	s.frameDone(0)
	s.rq.left = 0
	s.rq.trailer = false
	if t.Is09 {
		s.rqs = rqIgnore
	} else {
		s.rqs = rqIdle
	}
	s.rq.tx = nil
}

// reqBodyData passes de-chunked body bytes through the decoder to the body store.
func (s *State) reqBodyData(t *Tx, b []byte) {
	if len(b) == 0 {
		return
	}
	s.rq.dec.write(s, t, false, b)
	if t.multipart {
		s.scanMultipart(t)
	}
	touch(t, 0)
}
