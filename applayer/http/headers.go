package http

import "bytes"

// maxRawHeaders bounds the raw header block kept per direction (http.header.raw): Suricata
// keeps it in HtpTxUserData under the stream memcap; here a fixed bound.
const maxRawHeaders = 1 << 20

// Transaction flags the parser tracks (libhtp HtpFlags that become events).
const (
	txFlagInvalidTE uint32 = 1 << iota
	txFlagInvalidCL
	txFlagHostMissing
	txFlagHostAmbiguous
	txFlagHostUInvalid
	txFlagHostHInvalid
	txFlagAuthInvalid
	txFlagSmuggling
	txFlagTooManyHeaders
	txFlagFlagsChecked // reserved
)

// headerLine handles one line (LF included) of a header or trailer block (libhtp's
// headers parser): folding, missing colon, name checks, merging. done is true at the empty
// line ending the block.
func (s *State) headerLine(sd *side, t *Tx, resp bool, line []byte) (done bool, err error) {
	appendRaw(t, resp, line)
	return s.headerBody(sd, t, resp, chomp(line))
}

func appendRaw(t *Tx, resp bool, b []byte) {
	raw := &t.RequestHeadersRaw
	if resp {
		raw = &t.ResponseHeadersRaw
	}
	if len(*raw)+len(b) <= maxRawHeaders {
		*raw = append(*raw, b...)
	}
}

// endsBareLF says whether a line ends with LF not preceded by CR.
func endsBareLF(line []byte) bool {
	n := len(line)
	return n > 0 && line[n-1] == '\n' && (n < 2 || line[n-2] != '\r')
}

// startsEOL says whether b starts with LF or CRLF.
func startsEOL(b []byte) bool {
	return (len(b) > 0 && b[0] == '\n') || (len(b) > 1 && b[0] == '\r' && b[1] == '\n')
}

// respHeaderLine handles one LF-terminated line of a response header block with libhtp's
// response line ends (headers.rs, Side::Response): a bare CR ends a line too (is_eol;
// 108-response-headers-cr-only), "\n\r" is one line end, and the deformed ends
// "\n\r\r\n" (before LF or CRLF) and "\r\n\r[\r \t]+\n" (not before LF or CRLF) close the
// header with deformed_eol (complete_eol_deformed; parse_response_headers warns
// DEFORMED_EOL; 109-response-headers-deformed-eol). Where a CR line end is followed by
// another line end the block ends there and the rest of the line is body: when the line
// lies in data it is given back by moving *off; a line joined from the buffer is kept.
func (s *State) respHeaderLine(sd *side, t *Tx, line, data []byte, off *int, fromData bool) (done bool, err error) {
	prevLF := sd.lfOnly
	sd.lfOnly = endsBareLF(line)
	next := data[*off:]
	giveBack := func(n int) {
		if fromData && n > 0 {
			*off -= n
			line = line[:len(line)-n]
		}
	}
	if len(line) >= 2 && line[0] == '\r' && line[1] != '\n' {
		if sd.hasHdr && deformedEOL(line, prevLF, next) {
			appendRaw(t, true, line)
			s.event(t, EvDeformedEol)
			return false, s.flushHeader(sd, t, true)
		}
		if !prevLF {
			// after CRLF a CR is an empty line: the block ends, the rest is body
			giveBack(len(line) - 1)
			if fromData {
				appendRaw(t, true, line)
				return s.headerBody(sd, t, true, nil)
			}
		}
		// "\n\r" is one line end: the line starts after the CR
		appendRaw(t, true, line[:1])
		line = line[1:]
	}
	body := line[:len(line)-1]
	if len(body) > 0 && body[len(body)-1] == '\r' {
		body = body[:len(body)-1]
	}
	if bytes.IndexByte(body, '\r') < 0 {
		appendRaw(t, true, line)
		return s.headerBody(sd, t, true, body)
	}
	// bare CRs split the line; an empty piece (a CR line end after another one) ends
	// the block
	start := 0
	for {
		i := bytes.IndexByte(body[start:], '\r')
		seg := body[start:]
		if i >= 0 {
			seg = body[start : start+i]
		}
		if len(seg) == 0 && start > 0 {
			end := start // bytes of line up to and including the CR before seg
			if i >= 0 {
				end = start + i + 1
			}
			if i >= 0 {
				giveBack(len(line) - end)
			}
			appendRaw(t, true, line)
			return s.headerBody(sd, t, true, nil)
		}
		if len(seg) == 0 {
			// the line starts with a CR (after "\n\r"): the block ends
			giveBack(len(line) - 1)
			appendRaw(t, true, line)
			return s.headerBody(sd, t, true, nil)
		}
		if _, err := s.headerBody(sd, t, true, seg); err != nil {
			return false, err
		}
		if i < 0 {
			appendRaw(t, true, line)
			return false, nil
		}
		start += i + 1
	}
}

// deformedEOL reports libhtp's deformed response line ends at a line starting with CR.
func deformedEOL(line []byte, prevLF bool, next []byte) bool {
	if prevLF {
		return string(line) == "\r\r\n" && startsEOL(next)
	}
	// "\r\n" ended the previous line: "\r" [\r \t]+ "\n", not before a line end
	for _, c := range line[1 : len(line)-1] {
		if c != '\r' && c != ' ' && c != '\t' {
			return false
		}
	}
	return len(line) >= 3 && !startsEOL(next)
}

// headerBody handles one header-block line without its line end (empty: the block ends).
func (s *State) headerBody(sd *side, t *Tx, resp bool, body []byte) (done bool, err error) {
	if len(body) == 0 {
		if sd.hasHdr {
			err = s.flushHeader(sd, t, resp)
		}
		return true, err
	}
	if (body[0] == ' ' || body[0] == '\t' || body[0] == 0) && sd.hasHdr && !(resp && looksLikeHeader(body)) {
		// folded continuation: joined with its first whitespace character
		// (headers.rs value(): value.push(ofold[0])); NUL folds too (folding_lws) and
		// is the joining byte
		cont := trim(body[1:])
		if len(cont) > 0 {
			if len(sd.hdr) > 0 && sd.hdr[len(sd.hdr)-1] != ':' {
				sd.hdr = append(sd.hdr, body[0])
			}
			sd.hdr = append(sd.hdr, cont...)
		}
		sd.folded = true
		return false, nil
	}
	if sd.hasHdr {
		if err := s.flushHeader(sd, t, resp); err != nil {
			return false, err
		}
	}
	sd.hdr = append(sd.hdr[:0], body...)
	sd.hasHdr = true
	sd.folded = false
	return false, nil
}

// looksLikeHeader is the response-side exception to folding in headers.rs value(): a
// continuation line of the form [ws]token[ws]: starts a new header.
func looksLikeHeader(b []byte) bool {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && isToken(b[j]) {
		j++
	}
	if j == i {
		return false
	}
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	return j < len(b) && b[j] == ':'
}

// flushHeader parses the pending logical header and adds it (parse_request_headers /
// parse_response_headers and their process_*_header).
func (s *State) flushHeader(sd *side, t *Tx, resp bool) error {
	p := sd.hdr
	sd.hasHdr = false
	folded := sd.folded
	sd.folded = false
	var name, value []byte
	colon := bytes.IndexByte(p, ':')
	if colon < 0 {
		value = trim(p)
		if resp {
			s.eventOnce(t, EvResponseFieldMissingColon)
		} else {
			s.eventOnce(t, EvRequestFieldMissingColon)
		}
	} else {
		name = p[:colon]
		value = trim(p[colon+1:])
		if len(name) > 0 && isSpace(name[len(name)-1]) {
			s.eventOnce(t, pick(resp, EvResponseInvalidLwsAfterName, EvRequestInvalidLwsAfterName))
		}
		if len(name) > 0 && isSpace(name[0]) {
			s.eventOnce(t, pick(resp, EvInvalidResponseFieldFolding, EvInvalidRequestFieldFolding))
		}
		name = trim(name)
		for _, c := range name {
			if !isToken(c) {
				s.eventOnce(t, pick(resp, EvResponseHeaderNameNotToken, EvRequestHeaderInvalid))
				break
			}
		}
		if len(name) == 0 {
			s.eventOnce(t, pick(resp, EvResponseInvalidEmptyName, EvRequestInvalidEmptyName))
		}
	}
	return s.addHeader(t, resp, name, value, folded)
}

func pick(resp bool, a, b uint8) uint8 {
	if resp {
		return a
	}
	return b
}

// addHeader is process_request_header / process_response_header: a repeated name is merged
// into the first (", "), Content-Length keeps its first value, 64 repetitions at most, more
// than headers-limit distinct names is an error.
func (s *State) addHeader(t *Tx, resp bool, name, value []byte, folded bool) error {
	h, reps := &t.RequestHeaders, &t.reqReps
	if resp {
		h, reps = &t.ResponseHeaders, &t.resReps
	}
	if i := h.indexB(name); i >= 0 {
		r := &h.refs[i]
		repeated := false
		if r.flags&hdrRepeated == 0 {
			repeated = true
		} else if *reps < 64 {
			*reps++
		} else {
			return nil
		}
		r.flags |= hdrRepeated
		if folded {
			r.flags |= hdrFolded
		}
		if equalFoldBS(name, "Content-Length") {
			_, old := h.At(i)
			a, oka, _, _ := parseContentLength(old)
			b, okb, _, _ := parseContentLength(value)
			if !oka || !okb || a != b {
				s.event(t, pick(resp, EvDuplicateContentLengthFieldInResponse, EvDuplicateContentLengthFieldInRequest))
			}
		} else {
			h.appendValue(i, value)
		}
		if repeated {
			s.event(t, pick(resp, EvResponseHeaderRepetition, EvRequestHeaderRepetition))
		}
		return nil
	}
	if h.Len() > s.cfg.HeadersLimit {
		if t.flags&txFlagTooManyHeaders == 0 {
			s.event(t, pick(resp, EvResponseTooManyHeaders, EvRequestTooManyHeaders))
			t.flags |= txFlagTooManyHeaders
		}
		return errParse
	}
	h.add(name, value)
	if folded {
		h.refs[len(h.refs)-1].flags |= hdrFolded
	}
	return nil
}

// headerFlags returns the flags of header name.
func (h *Headers) headerFlags(name string) (uint8, bool) {
	if i := h.index(name); i >= 0 {
		return h.refs[i].flags, true
	}
	return 0, false
}
