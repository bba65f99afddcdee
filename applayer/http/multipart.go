package http

import "bytes"

// Request files from multipart/form-data bodies (Suricata's HtpRequestBodyHandleMultipart
// over its MIME decoder): every part whose Content-Disposition names a filename becomes a
// request file. The parts are re-read from the kept request body (bounded by
// request-body-limit) each time it grows, so a file's bytes are the first body-limit bytes
// of the body, as Suricata's are.

// multipartBoundary returns the boundary of a multipart/form-data Content-Type.
func multipartBoundary(ct []byte) ([]byte, bool) {
	if !containsFold(ct, "multipart/form-data") {
		return nil, false
	}
	for i := 0; i+9 <= len(ct); i++ {
		if equalFoldBS(ct[i:i+9], "boundary=") {
			b := ct[i+9:]
			if len(b) > 0 && b[0] == '"' {
				b = b[1:]
				if q := bytes.IndexByte(b, '"'); q >= 0 {
					b = b[:q]
				}
			} else if e := bytes.IndexAny(b, "; \t"); e >= 0 {
				b = b[:e]
			}
			return b, len(b) > 0 && len(b) <= 200
		}
	}
	return nil, false
}

// scanMultipart rebuilds t.RequestFiles from the kept body; done says the body ended.
func (s *State) scanMultipart(t *Tx, done bool) {
	ct, _ := t.RequestHeaders.Header("Content-Type")
	bnd, ok := multipartBoundary(ct)
	if !ok {
		return
	}
	data := t.RequestBody.Data
	var delim [204]byte
	n := copy(delim[:], "--")
	n += copy(delim[n:], bnd)
	d := delim[:n]
	files := t.RequestFiles[:0]
	part := 0
	pos := bytes.Index(data, d)
	for pos >= 0 {
		p := data[pos+len(d):]
		if bytes.HasPrefix(p, []byte("--")) {
			break
		}
		eol := bytes.IndexByte(p, '\n')
		if eol < 0 {
			break
		}
		p = p[eol+1:]
		he := bytes.Index(p, []byte("\r\n\r\n"))
		hl := 4
		if he < 0 {
			he = bytes.Index(p, []byte("\n\n"))
			hl = 2
		}
		if he < 0 {
			break
		}
		hdr := p[:he]
		content := p[he+hl:]
		end := bytes.Index(content, d)
		complete := end >= 0
		if complete {
			content = content[:end]
			content = bytes.TrimSuffix(content, []byte("\n"))
			content = bytes.TrimSuffix(content, []byte("\r"))
		}
		var name []byte
		for _, l := range bytes.Split(hdr, []byte("\n")) {
			l = trim(l)
			if len(l) > 20 && equalFoldBS(l[:20], "content-disposition:") {
				name, _ = dispositionFilename(l[20:])
			}
		}
		if name != nil {
			for len(t.partBodies) <= part {
				t.partBodies = append(t.partBodies, Body{})
			}
			b := &t.partBodies[part]
			b.Data = append(b.Data[:0], content...)
			b.Len = uint64(len(content))
			b.Complete = complete || done
			st := FileOpen
			if complete {
				st = FileClosed
			} else if done {
				st = FileTruncated
			}
			if cap(files) > len(files) {
				files = files[:len(files)+1]
			} else {
				files = append(files, File{})
			}
			f := &files[len(files)-1]
			f.Name = append(f.Name[:0], name...)
			f.Size, f.State, f.Data, f.Gaps = uint64(len(content)), st, b, false
			part++
		}
		if !complete {
			break
		}
		pos = bytes.Index(data[len(data)-len(p)+he+hl+end:], d)
		if pos >= 0 {
			pos += len(data) - len(p) + he + hl + end
		}
	}
	t.RequestFiles = files
}
