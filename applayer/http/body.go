package http

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"hash"
)

// fileHash holds the digests of a tracked file (Suricata's FileAppendData with
// FILE_MD5/SHA1/SHA256); made once per pooled tx and reset per file.
type fileHash struct {
	md5, sha1, sha256 hash.Hash
}

func (t *Tx) hashes() *fileHash {
	if t.hash == nil {
		t.hash = &fileHash{md5: md5.New(), sha1: sha1.New(), sha256: sha256.New()}
	}
	return t.hash
}

// storeBody keeps decoded body bytes: the first limit bytes for detection
// (HTPCallbackRequestBodyData / HTPCallbackResponseBodyData), the length, and the file.
func (s *State) storeBody(t *Tx, resp bool, b []byte) {
	if resp && t.resFileWait && len(b) > 0 {
		t.resFileWait = false
		s.openFile(t, true)
	}
	body, limit, files := &t.RequestBody, s.cfg.RequestBodyLimit, t.RequestFiles
	if resp {
		body, limit, files = &t.ResponseBody, s.cfg.ResponseBodyLimit, t.ResponseFiles
	}
	body.Len += uint64(len(b))
	keep := b
	if limit > 0 {
		room := int64(limit) - int64(len(body.Data))
		if room < int64(len(keep)) {
			if room < 0 {
				room = 0
			}
			keep = keep[:room]
			body.Truncated = true
		}
	}
	body.Data = append(body.Data, keep...)
	// A body reaching its minimal inspect size before detection looked at it is inspected
	// now, the raw stream with it (HTPCallbackRequestBodyData, HTPCallbackResponseBodyData).
	minSize := s.cfg.RequestMinInspect
	if resp {
		minSize = s.cfg.ResponseMinInspect
	}
	if body.inspected == 0 && body.Len >= minSize {
		s.trigger[dirIdx(resp)] = true
	}
	// a multipart body's files get their part's bytes from the MIME parser instead
	if n := len(files); n > 0 && files[n-1].State == FileOpen && (resp || !t.multipart) {
		f := &files[n-1]
		f.Size += uint64(len(b))
		if s.cfg.ForceHash {
			h := t.hashes()
			h.md5.Write(b)
			h.sha1.Write(b)
			h.sha256.Write(b)
		}
	}
}

// fileNameMax is SC_FILENAME_MAX (util-file.h): longer names are cut and raise
// file_name_too_long.
const fileNameMax = 4096

// openFile starts tracking the body of tx as a file (HTPFileOpen). The name is, for a
// response (HtpResponseBodyHandle), the Content-Disposition filename, else the normalised
// URI path (htp_uri_path of the parsed URI: the whole path, not its last segment); for a
// request PUT/POST body (HtpRequestBodyHandlePOSTorPUT) always the normalised URI path. A
// transaction without a URI path gets no file.
func (s *State) openFile(t *Tx, resp bool) {
	files := &t.RequestFiles
	body := &t.RequestBody
	if resp {
		files, body = &t.ResponseFiles, &t.ResponseBody
	}
	if n := len(*files); n > 0 && (*files)[n-1].State == FileOpen {
		return
	}
	var name []byte
	if n := len(*files); cap(*files) > n {
		name = (*files)[:n+1][n].Name[:0]
	}
	if resp {
		if cd, ok := t.ResponseHeaders.Header("Content-Disposition"); ok && len(cd) > 0 {
			if fn, ok := dispositionFilename(cd); ok {
				name = append(name, fn...)
			}
		}
	}
	if len(name) == 0 {
		if t.ParsedURI.Path == nil {
			return
		}
		var f uriFlags
		name = s.uriNorm.cfg.NormalizePath(name, t.ParsedURI.Path, &f)
	}
	if len(name) > fileNameMax {
		name = name[:fileNameMax]
		s.event(t, EvFileNameTooLong)
	}
	if cap(*files) > len(*files) {
		*files = (*files)[:len(*files)+1]
	} else {
		*files = append(*files, File{})
	}
	f := &(*files)[len(*files)-1]
	*f = File{Name: name, State: FileOpen, Data: body}
	if s.cfg.ForceHash {
		h := t.hashes()
		h.md5.Reset()
		h.sha1.Reset()
		h.sha256.Reset()
	}
}

// closeFile ends the open file of files with state st (HTPFileClose / FileCloseFile).
func closeFile(t *Tx, files []File, st FileState, hashed bool) {
	n := len(files)
	if n == 0 || files[n-1].State != FileOpen {
		return
	}
	f := &files[n-1]
	// FileCloseFilePtr: a file with gaps ends TRUNCATED
	if f.Gaps && st == FileClosed {
		st = FileTruncated
	}
	f.State = st
	if f.Data != nil {
		f.Data.Complete = true
	}
	if hashed && t.hash != nil {
		t.hash.md5.Sum(f.MD5[:0])
		t.hash.sha1.Sum(f.SHA1[:0])
		t.hash.sha256.Sum(f.SHA256[:0])
		f.Hashed = true
	}
}

// dispositionFilename finds filename= in a Content-Disposition value (quoted or not).
func dispositionFilename(v []byte) ([]byte, bool) {
	i := 0
	for i < len(v) {
		j := bytes.IndexByte(v[i:], '=')
		if j < 0 {
			return nil, false
		}
		key := trim(v[i : i+j])
		if k := bytes.LastIndexAny(key, "; "); k >= 0 {
			key = key[k+1:]
		}
		val := v[i+j+1:]
		end := bytes.IndexByte(val, ';')
		rest := len(val)
		if end >= 0 {
			rest = end
		}
		if equalFoldBS(key, "filename") {
			val = trim(val)
			if len(val) > 0 && val[0] == '"' {
				if q := bytes.IndexByte(val[1:], '"'); q >= 0 {
					return val[1 : 1+q], true
				}
				return val[1:], true
			}
			if end >= 0 {
				val = trim(val[:bytes.IndexByte(val, ';')])
			}
			return val, len(val) > 0
		}
		i += j + 1 + rest
		if end >= 0 {
			i++
		}
	}
	return nil, false
}

// dirIdx is the direction index of a message: 1 (to_client) for a response.
func dirIdx(resp bool) int {
	if resp {
		return 1
	}
	return 0
}
