package http

import (
	"bytes"

	"github.com/meerkat-ids/meerkat/applayer"
)

// uriNotSeen is the URI libhtp gives a tx created for a response without a request.
const uriNotSeen = "/libhtp::request_uri_not_seen"

// parseResponse is libhtp's response_data loop over the outbound states.
func (s *State) parseResponse(data []byte, eof bool) applayer.Result {
	off := 0
	sd := &s.rs
	if eof {
		sd.closed = true
	}
	for {
		t := sd.tx
		switch s.rss {
		case rsTunnel:
			if s.upgrade != applayer.ProtoUnknown && off < len(data) {
				// HTPHandleResponseData: the tunnel of a 101 upgrade asks again
				return applayer.Result{Consumed: len(data), Change: s.askChange(s.upgrade, s.upgradePort)}
			}
			return applayer.Result{Consumed: len(data)}
		case rsStop:
			return applayer.Result{Consumed: len(data)}
		case rsIdle:
			if off >= len(data) {
				return applayer.Result{Consumed: off}
			}
			if err := s.resStart(); err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			s.frameStart(1, off, s.rs.tx)
		case rsLine:
			line, ok, err := s.takeLine(sd, data, &off, t, EvResponseFieldTooLong)
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
				continue
			}
			if treatResponseLineAsBody(line) {
				// response_line_complete: a line that is not a status line is body data; the
				// parser keeps looking for a status line while data follows
				if len(data)-off > 1 && (data[off] == 'H' || len(chomp(line)) <= 2) {
					continue
				}
				t.ResponseSeen = true
				s.rs.dec.setupNone()
				s.resBodyWire(t, line)
				if off >= len(data) {
					t.data.Progress[1] = ResBody
					s.rss = rsFinalize
				}
				touch(t, 1)
				continue
			}
			s.responseLine(t, chomp(line))
			sd.lfOnly = endsBareLF(line)
			t.data.Progress[1] = ResHeaders
			touch(t, 1)
			s.rss = rsHeaders
		case rsHeaders:
			fromData := len(sd.line) == 0
			line, ok, err := s.takeLine(sd, data, &off, t, EvResponseFieldTooLong)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok {
				if !sd.closed {
					return applayer.Result{Consumed: off}
				}
				if len(sd.line) > 0 {
					l := sd.line
					sd.line = sd.line[:0]
					if _, err := s.headerLine(sd, t, true, l); err != nil {
						return applayer.Result{Consumed: len(data), Err: err}
					}
				}
				if sd.hasHdr {
					if err := s.flushHeader(sd, t, true); err != nil {
						return applayer.Result{Consumed: len(data), Err: err}
					}
				}
				if sd.trailer {
					s.resComplete()
					return applayer.Result{Consumed: len(data)}
				}
				if r, stop := s.resHeadersDone(t, off); stop {
					return r
				}
				continue
			}
			done, err := s.respHeaderLine(sd, t, line, data, &off, fromData)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			touch(t, 1)
			if !done {
				continue
			}
			if sd.trailer {
				sd.trailer = false
				s.rss = rsFinalize
				continue
			}
			if r, stop := s.resHeadersDone(t, off); stop {
				return r
			}
		case rsBodyCL:
			if off >= len(data) {
				if sd.closed {
					s.resEnd(FileTruncated)
				}
				return applayer.Result{Consumed: off}
			}
			n := min(uint64(len(data)-off), sd.left)
			s.resBodyWire(t, data[off:off+int(n)])
			off += int(n)
			sd.left -= n
			if sd.left == 0 {
				// the file stays open through response_finalize: bytes after the body that
				// are no status line are body too (SV http-gap-simple: C-L 12, file 14)
				s.rss = rsFinalize
			}
		case rsBodyClose:
			if off < len(data) {
				s.resBodyWire(t, data[off:])
				off = len(data)
			}
			if sd.closed {
				s.resComplete()
			}
			return applayer.Result{Consumed: off}
		case rsChunkLen:
			line, ok, err := s.takeLine(sd, data, &off, t, EvResponseFieldTooLong)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok {
				if !isValidChunkedLengthData(sd.line) {
					s.event(t, EvInvalidResponseChunkLen)
					return applayer.Result{Consumed: len(data), Err: errParse}
				}
				if sd.closed {
					s.resEnd(FileTruncated)
				}
				return applayer.Result{Consumed: off}
			}
			t.ResponseLength += uint64(len(line))
			touch(t, 1)
			if isChunkedCtlLine(line) {
				continue
			}
			n, valid, ext := parseChunkLen(line)
			if ext {
				s.event(t, EvResponseChunkExtension)
			}
			if !valid {
				s.event(t, EvInvalidResponseChunkLen)
				return applayer.Result{Consumed: len(data), Err: errParse}
			}
			if n == 0 {
				s.resBodyEnd(FileClosed)
				sd.trailer = true
				t.data.Progress[1] = ResTrailer
				s.rss = rsHeaders
			} else {
				sd.left = n
				s.rss = rsChunkData
			}
		case rsChunkData:
			if off >= len(data) {
				if sd.closed {
					s.resEnd(FileTruncated)
				}
				return applayer.Result{Consumed: off}
			}
			n := min(uint64(len(data)-off), sd.left)
			s.resBodyWire(t, data[off:off+int(n)])
			off += int(n)
			sd.left -= n
			if sd.left == 0 {
				s.rss = rsChunkDataEnd
			}
		case rsFinalize:
			if r, stop := s.resFinalize(t, data, &off); stop {
				return r
			}
		case rsChunkDataEnd:
			line, ok, err := s.takeLine(sd, data, &off, t, EvResponseFieldTooLong)
			if err != nil {
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if !ok {
				return applayer.Result{Consumed: off}
			}
			t.ResponseLength += uint64(len(line))
			s.rss = rsChunkLen
		}
	}
}

// resFinalize is response_finalize: after a body, a line that is not a status line is
// more body (response_body_unexpected); a status line completes the response and is left
// for the next one.
func (s *State) resFinalize(t *Tx, data []byte, off *int) (applayer.Result, bool) {
	sd := &s.rs
	rest := data[*off:]
	if len(rest) == 0 && (!sd.closed || len(sd.line) == 0) {
		s.resComplete()
		return applayer.Result{}, false
	}
	work := rest
	if !sd.closed && rest[0] != '\n' {
		i := indexLF(rest)
		if i < 0 {
			if len(sd.line)+len(rest) > s.cfg.MetaFieldLimit {
				s.event(t, EvResponseFieldTooLong)
				return applayer.Result{Consumed: len(data), Err: errParse}, true
			}
			sd.line = append(sd.line, rest...)
			*off = len(data)
			return applayer.Result{Consumed: *off}, true
		}
		work = rest[:i+1]
	}
	line := work
	if len(sd.line) > 0 {
		sd.join = append(append(sd.join[:0], sd.line...), work...)
		line = sd.join
	}
	if len(line) == 0 {
		s.resComplete()
		return applayer.Result{}, false
	}
	if treatResponseLineAsBody(line) {
		s.event(t, EvResponseBodyUnexpected)
		s.resBodyWire(t, line)
		sd.line = sd.line[:0]
		*off += len(work)
		return applayer.Result{}, false
	}
	s.resComplete()
	return applayer.Result{}, false
}

// treatResponseLineAsBody is libhtp treat_response_line_as_body: (?i)^\s*http.
func treatResponseLineAsBody(line []byte) bool {
	i := 0
	for i < len(line) && (isSpace(line[i]) || line[i] == 0) {
		i++
	}
	return len(line)-i < 4 || !equalFoldBS(line[i:i+4], "http")
}

// resStart is state_response_start: the response goes to the oldest tx without one; with
// none, a tx is made whose request was not seen (unable_to_match_response_to_request).
func (s *State) resStart() error {
	var t *Tx
	if s.respNext < len(s.txs) {
		t = s.txs[s.respNext]
	} else {
		t = s.newTx()
		if t == nil {
			s.event(nil, EvUnknownError)
			return errParse
		}
		t.RequestSynthetic = true
		t.URIRaw = append(t.URIRaw[:0], uriNotSeen...)
		t.HasURI = true
		s.parseURI(t)
		t.data.Progress[0] = ReqComplete
		touch(t, 0)
		s.event(t, EvUnableToMatchResponseToRequest)
	}
	s.respNext++
	s.rs.tx = t
	t.data.Progress[1] = ResLine
	touch(t, 1)
	// state_response_start: a response to a tx still in its request line
	if len(t.Method) == 0 && !t.HasURI && s.rqs == rqLine && s.rq.tx == t {
		s.event(t, EvRequestLineIncomplete)
	}
	if t.Is09 {
		// HTTP/0.9: no status line, the whole response is body until close
		t.ResponseSeen = true
		t.data.Progress[1] = ResBody
		s.rs.dec.setupNone()
		t.resFileWait = true
		s.rss = rsBodyClose
		return nil
	}
	s.rss = rsLine
	return nil
}

// responseLine is parse_response_line and validate_response_line.
func (s *State) responseLine(t *Tx, line []byte) {
	t.ResponseSeen = true
	t.ResponseLine = append(t.ResponseLine[:0], line...)
	d := t.ResponseLine
	i := 0
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	j := i
	for j < len(d) && !isSpace(d[j]) {
		j++
	}
	t.ResponseProtocol = append(t.ResponseProtocol[:0], d[i:j]...)
	num, extra := parseProtocol(t.ResponseProtocol)
	if extra {
		s.event(t, EvProtocolContainsExtraData)
	}
	t.ResponseProtocolNumber = num
	k := j
	for k < len(d) && isSpace(d[k]) {
		k++
	}
	m := k
	for m < len(d) && !isSpace(d[m]) {
		m++
	}
	t.StatusCode = append(t.StatusCode[:0], d[k:m]...)
	for m < len(d) && isSpace(d[m]) {
		m++
	}
	t.StatusMsg = append(t.StatusMsg[:0], d[m:]...)
	t.Status = parseStatus(t.StatusCode)
	if num == ProtoInvalid {
		s.event(t, EvResponseLineInvalidProtocol)
	}
	if t.Status == 0 {
		s.event(t, EvResponseLineInvalidResponseStatus)
	}
}

// protoDetected says whether protocol detection knows p (AppLayerProtoDetectGetProtoName
// is not NULL): a protocol with a registered parser record.
var protoDetected = func(p applayer.Proto) bool { return applayer.ParserOf(p) != nil }

// resHeadersDone is response_body_determine (response.rs) with Suricata's protocol change
// (HTPCallbackResponseComplete for CONNECT, HTPHandleResponseData for 101). off is how much
// of the current data the HTTP part used.
func (s *State) resHeadersDone(t *Tx, off int) (applayer.Result, bool) {
	h := &t.ResponseHeaders
	cl, hasCL := h.Header("Content-Length")
	te, hasTE := h.Header("Transfer-Encoding")
	hasCL = hasCL && len(cl) > 0
	hasTE = hasTE && len(te) > 0
	t.ContentRange = parseContentRange(h)
	if cr := &t.ContentRange; cr.Raw != nil {
		// HTPParseAndCheckContentRange
		if !cr.Valid || (cr.HasStart && cr.HasSize && cr.End > 0 && cr.Size > 0 && (cr.Start > cr.End || cr.End > cr.Size-1)) {
			flagEvent(t, EvRangeInvalid)
		}
	}
	isConnect := string(t.Method) == "CONNECT"
	if isConnect {
		if t.Status >= 200 && t.Status <= 299 {
			s.resHeadersComplete(t)
			if t.data.ID == 0 {
				// HTPCallbackResponseComplete: the first transaction's 2xx CONNECT turns
				// the flow over to protocol detection (AppLayerRequestProtocolChange to
				// ALPROTO_UNKNOWN, the port of the request)
				t.Tunnel = true
				s.finishTx(t)
				s.rss = rsTunnel
				s.rqs = rqTunnel
				t.data.Progress[0] = ReqComplete
				touch(t, 0)
				port := uint16(0)
				if t.Port > 0 {
					port = uint16(t.Port)
				}
				return applayer.Result{Consumed: off, Change: s.askChange(applayer.ProtoUnknown, port)}, true
			}
			// response_body_determine: no body, the response completes and the request
			// side probes the client's next bytes (request_connect_wait_response moves
			// to request_connect_probe_data)
			t.ResponseBody.Complete = true
			s.resComplete()
			if s.rqs == rqConnectWait && s.rq.tx == t {
				s.rqs = rqConnectProbe
			}
			return applayer.Result{}, false
		}
		// the CONNECT failed: the request side resumes
		if s.rqs == rqConnectWait && s.rq.tx == t {
			s.reqComplete(t)
		}
	}
	switch {
	case t.Status == 101:
		if !hasTE && !hasCL {
			t.Tunnel = true
			s.resHeadersComplete(t)
			s.finishTx(t)
			s.rss = rsTunnel
			s.rqs = rqTunnel
			up, ok := h.Header("Upgrade")
			port := uint16(0)
			if t.Port > 0 {
				port = uint16(t.Port)
			}
			// An upgrade to a protocol without detection keeps the tunnel, no change asked
			// (HTPHandleResponseData: AppLayerProtoDetectGetProtoName(...) == NULL).
			if ok && string(up) == "h2c" && protoDetected(applayer.ProtoHTTP2) {
				s.upgrade, s.upgradePort, s.upgradeTx = applayer.ProtoHTTP2, port, t
				return applayer.Result{Consumed: off, Change: s.askChange(applayer.ProtoHTTP2, port)}, true
			}
			if ok && equalFoldBS(up, "websocket") && protoDetected(applayer.ProtoWebSocket) {
				s.upgrade, s.upgradePort, s.upgradeTx = applayer.ProtoWebSocket, port, t
				return applayer.Result{Consumed: off, Change: s.askChange(applayer.ProtoWebSocket, port)}, true
			}
			return applayer.Result{Consumed: off}, true
		}
		s.event(t, EvSwitchingProtoWithContentLength)
	case t.Status == 100 && !hasTE:
		n, ok, _, _ := parseContentLength(cl)
		if !hasCL || !ok || n <= 0 {
			if t.continueSeen {
				s.event(t, Ev100ContinueAlreadySeen)
			}
			t.continueSeen = true
			t.ResponseHeaders.reset()
			t.ResponseHeadersRaw = t.ResponseHeadersRaw[:0]
			t.data.Progress[1] = ResLine
			touch(t, 1)
			s.rss = rsLine
			return applayer.Result{}, false
		}
	case t.Status >= 400 && t.Status <= 499:
		// a refused Expect: 100-continue request sent no body: it is complete
		if t.expectContinue && s.rq.tx == t && s.rqs == rqBodyCL && t.reqCL > 0 && s.rq.left == uint64(t.reqCL) {
			s.reqComplete(t)
		}
	}
	s.resHeadersComplete(t)
	noBody := false
	if string(t.Method) == "HEAD" {
		noBody = true
	} else if (t.Status >= 100 && t.Status <= 199) || t.Status == 204 || t.Status == 304 {
		if !hasTE && !hasCL {
			noBody = true
		} else {
			s.event(t, EvResponseBodyUnexpected)
		}
	}
	if noBody {
		s.resComplete()
		return applayer.Result{}, false
	}
	ct, _ := h.Header("Content-Type")
	multipart := containsFold(ct, "multipart/byteranges")
	s.rs.dec.setup(s, t, true)
	switch {
	case hasTE && containsFold(te, "chunked"):
		if !equalFoldBS(te, "chunked") {
			s.event(t, EvResponseAbnormalTransferEncoding)
		}
		if t.ResponseProtocolNumber < Proto11 {
			s.event(t, EvResponseChunkedOldProto)
		}
		t.resChunked = true
		t.data.Progress[1] = ResBody
		s.rss = rsChunkLen
	case hasCL:
		n, ok, js, je := parseContentLength(cl)
		if js {
			s.event(t, EvContentLengthExtraDataStart)
		}
		if je {
			s.event(t, EvContentLengthExtraDataEnd)
		}
		if !ok {
			s.event(t, EvInvalidContentLengthFieldInResponse)
			return applayer.Result{Consumed: off, Err: errParse}, true
		}
		t.resCL = n
		if n == 0 {
			s.resComplete()
			return applayer.Result{}, false
		}
		t.data.Progress[1] = ResBody
		s.rs.left = uint64(n)
		s.rss = rsBodyCL
	default:
		if multipart {
			s.event(t, EvResponseMultipartByteranges)
			return applayer.Result{Consumed: off, Err: errParse}, true
		}
		t.data.Progress[1] = ResBody
		s.rss = rsBodyClose
	}
	// the file opens with the first body data (HtpResponseBodyHandle runs from
	// HTPCallbackResponseBodyData): a response whose body never comes has none
	t.resFileWait = true
	touch(t, 1)
	return applayer.Result{}, false
}

// resHeadersComplete is reached when the response header block is processed.
func (s *State) resHeadersComplete(t *Tx) {
	if t.data.Progress[1] < ResHeaders {
		t.data.Progress[1] = ResHeaders
	}
	touch(t, 1)
}

// finishTx marks the response side complete without a body (tunnels).
func (s *State) finishTx(t *Tx) {
	t.ResponseBody.Complete = true
	t.data.Progress[1] = ResComplete
	touch(t, 1)
	s.trigger[1] = true // HTPCallbackResponseComplete
	s.frameDone(1)
	s.rs.tx = nil
}

// resBodyWire takes response body bytes as transferred (EVE length) and decodes them.
func (s *State) resBodyWire(t *Tx, b []byte) {
	t.ResponseLength += uint64(len(b))
	if len(b) > 0 {
		s.rs.dec.write(s, t, true, b)
	}
	touch(t, 1)
}

// resBodyEnd ends the response body. A body cut short (st FileTruncated) closes the file
// now; a complete one leaves it open for the bytes response_finalize may still add as body
// (a trailing CRLF after a Content-Length body): Suricata closes the file only in
// HTPCallbackResponseComplete.
func (s *State) resBodyEnd(st FileState) {
	t := s.rs.tx
	if t == nil || t.ResponseBody.Complete {
		return
	}
	s.rs.dec.finish(s, t, true)
	t.ResponseBody.Complete = true
	if st != FileClosed {
		closeFile(t, t.ResponseFiles, st, s.cfg.ForceHash)
	}
	touch(t, 1)
}

// resEnd ends a response cut by the end of the stream.
func (s *State) resEnd(st FileState) {
	s.resBodyEnd(st)
	s.resComplete()
}

// resComplete is state_response_complete.
func (s *State) resComplete() {
	t := s.rs.tx
	if t == nil {
		s.rss = rsIdle
		return
	}
	s.resBodyEnd(FileClosed)
	// HTPCallbackResponseComplete: HTPFileClose(flags 0)
	closeFile(t, t.ResponseFiles, FileClosed, s.cfg.ForceHash)
	t.data.Progress[1] = ResComplete
	touch(t, 1)
	s.trigger[1] = true // HTPCallbackResponseComplete
	s.frameDone(1)
	s.rs.left = 0
	s.rs.trailer = false
	s.rs.tx = nil
	s.rss = rsIdle
}

// parseContentRange parses "bytes START-END/SIZE" (Suricata's HTPParseContentRange).
func parseContentRange(h *Headers) ContentRange {
	v, ok := h.Header("Content-Range")
	if !ok {
		return ContentRange{}
	}
	cr := ContentRange{Raw: v, Start: -1, End: -1, Size: -1}
	b := trim(v)
	if len(b) >= 5 && equalFoldBS(b[:5], "bytes") {
		b = trim(b[5:])
	}
	if len(b) > 0 && b[0] == '*' {
		b = b[1:]
	} else {
		d := bytes.IndexByte(b, '-')
		if d <= 0 {
			return cr
		}
		st, ok1 := atoi64(b[:d])
		rest := b[d+1:]
		sl := bytes.IndexByte(rest, '/')
		if sl < 0 {
			return cr
		}
		en, ok2 := atoi64(rest[:sl])
		if !ok1 || !ok2 {
			return cr
		}
		cr.Start, cr.End, cr.HasStart = st, en, true
		b = rest[sl:]
	}
	if len(b) == 0 || b[0] != '/' {
		return cr
	}
	b = b[1:]
	if len(b) == 1 && b[0] == '*' {
		cr.Valid = cr.HasStart
		return cr
	}
	sz, ok3 := atoi64(b)
	if !ok3 {
		return cr
	}
	cr.Size, cr.HasSize, cr.Valid = sz, true, true
	return cr
}

func atoi64(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var x int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	return x, true
}
