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
	raw := &t.RequestHeadersRaw
	if resp {
		raw = &t.ResponseHeadersRaw
	}
	if len(*raw)+len(line) <= maxRawHeaders {
		*raw = append(*raw, line...)
	}
	body := chomp(line)
	if len(body) == 0 {
		if sd.hasHdr {
			err = s.flushHeader(sd, t, resp)
		}
		return true, err
	}
	if (body[0] == ' ' || body[0] == '\t') && sd.hasHdr {
		// folded continuation: joined with its first whitespace character
		// (headers.rs value(): value.push(ofold[0]))
		cont := trim(body)
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
