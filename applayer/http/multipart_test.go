package http

import (
	"fmt"
	"strings"
	"testing"
)

// TestMultipartParts checks request files and events from multipart bodies against
// Suricata's MIME parser (rust/src/mime/mime.rs mime_process, driven by
// HtpRequestBodyHandleMultipart): a Content-Disposition filename opens a file, the CRLF
// before the boundary is not part of it; a part header line without a colon or with an
// empty value raises multipart_invalid_header (mime_parse_headers errored); a file part
// whose boundary follows its headers at once raises multipart_no_filedata; RFC 2231
// filename*0/*1 sections are joined (mime_find_header_token); any Content-Type with a
// boundary parameter is multipart (mime_state_init). Each body is also fed in pieces: the
// names and events stay, the contents may not (mime.rs decides on what each call holds: a
// CRLF split over two calls is part content, a chunk result stores all the call consumed),
// so they are checked whole only.
func TestMultipartParts(t *testing.T) {
	type file struct{ name, data string }
	for _, c := range []struct {
		name    string
		ct      string
		body    string
		files   []file
		invalid bool
		noData  bool
	}{
		{name: "two files", ct: "multipart/form-data; boundary=XyZ",
			body:  "--XyZ\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.txt\"\r\n\r\nAAA\r\nA\r\n--XyZ\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\nvalue\r\n--XyZ\r\nContent-Disposition: form-data; name=\"b\"; filename=b.bin\r\nContent-Type: application/octet-stream\r\n\r\nB\r\n--XyZ--\r\n",
			files: []file{{"a.txt", "AAA\r\nA"}, {"b.bin", "B"}}},
		{name: "invalid header", ct: "multipart/form-data; boundary=XyZ",
			body:  "--XyZ\r\nContent-Disposition: form-data; filename=\"c\"\r\nbogus\r\n\r\ndata\r\n--XyZ--\r\n",
			files: []file{{"c", "data"}}, invalid: true},
		{name: "empty value", ct: "multipart/form-data; boundary=XyZ",
			body:  "--XyZ\r\nContent-Type:\r\nContent-Disposition: form-data; filename=\"d\"\r\n\r\nx\r\n--XyZ--\r\n",
			files: []file{{"d", "x"}}, invalid: true},
		{name: "no filedata", ct: "multipart/form-data; boundary=XyZ",
			body:  "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"e.txt\"\r\n\r\n--XyZ--\r\n",
			files: []file{{"e.txt", ""}}, noData: true},
		{name: "rfc2231 sections", ct: "multipart/form-data; boundary=\"XyZ\"",
			body:  "--XyZ\r\nContent-Disposition: form-data; filename*0=\"long\"; filename*1=\"name.txt\"\r\n\r\nz\r\n--XyZ--\r\n",
			files: []file{{"longname.txt", "z"}}},
		{name: "escaped filename", ct: "multipart/form-data; boundary=XyZ",
			body:  "--XyZ\r\nContent-Disposition: form-data; filename=\"q\\\"x\"\r\n\r\nz\r\n--XyZ--\r\n",
			files: []file{{"q\"x", "z"}}},
		{name: "mixed type", ct: "multipart/mixed; boundary=XyZ",
			body:  "preamble\r\n--XyZ\r\nContent-Disposition: attachment; filename=m\r\n\r\nmm\r\n--XyZ--\r\n",
			files: []file{{"m", "mm"}}},
	} {
		for _, split := range []int{0, 1, 7} {
			s := testState(t, nil)
			in := fmt.Sprintf("POST /u HTTP/1.1\r\nHost: a\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", c.ct, len(c.body), c.body)
			feed(t, s, 0, []byte(in), split, false)
			tx := s.Tx(0)
			if len(tx.RequestFiles) == 0 || len(tx.RequestFiles) > len(c.files) || (split == 0 && len(tx.RequestFiles) != len(c.files)) {
				t.Errorf("%s/%d: files %+v", c.name, split, tx.RequestFiles)
				continue
			}
			for i, g := range tx.RequestFiles {
				f := c.files[i]
				if string(g.Name) != f.name || g.Size != uint64(len(g.Data.Data)) || g.State != FileClosed || (split == 0 && string(g.Data.Data) != f.data) {
					t.Errorf("%s/%d: file %d %q %q size %d %v, want %q %q", c.name, split, i, g.Name, g.Data.Data, g.Size, g.State, f.name, f.data)
				}
			}
			if hasEvent(tx, "multipart_invalid_header") != c.invalid || hasEvent(tx, "multipart_no_filedata") != c.noData {
				t.Errorf("%s/%d: events %v", c.name, split, eventList(tx))
			}
		}
	}
}

// TestMultipartIncremental: the MIME parser is fed the body from where it stopped
// (body_parsed), so after every piece it has consumed all but what may still be a boundary
// or a header line: the work per piece does not grow with the body.
func TestMultipartIncremental(t *testing.T) {
	content := strings.Repeat("0123456789abcdef\r\n", 20000) // 360 KB
	body := "--XyZ\r\nContent-Disposition: form-data; filename=\"big\"\r\n\r\n" + content + "\r\n--XyZ--\r\n"
	s := testState(t, func(c *Config) { c.RequestBodyLimit = 1 << 20 })
	req(t, s, fmt.Sprintf("POST /u HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: %d\r\n\r\n", len(body)))
	tx := s.Tx(0)
	for off := 0; off < len(body); off += 100 {
		end := min(off+100, len(body))
		req(t, s, body[off:end])
		if lag := len(tx.RequestBody.Data) - tx.mime.parsed; lag > len("\r\n--XyZ")+100 {
			t.Fatalf("at %d: %d body bytes not parsed", end, lag)
		}
	}
	if len(tx.RequestFiles) != 1 || string(tx.RequestFiles[0].Data.Data) != content || tx.RequestFiles[0].State != FileClosed {
		t.Fatalf("file %d bytes state %v", len(tx.RequestFiles[0].Data.Data), tx.RequestFiles[0].State)
	}
}
