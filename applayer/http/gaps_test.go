package http

import (
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// TestFileSizeGapAndFinalize reproduces suricata-verify http-gap-simple: a CRLF after a
// Content-Length body is more body (libhtp response_finalize hands it to
// response_body_data) and reaches the file, which Suricata closes only at
// HTPCallbackResponseComplete (sizes 14, not 12); a gap in a body adds its length to the
// file (FileAppendDataDo with no data) and the file closes TRUNCATED with gaps
// (FileCloseFilePtr: FILE_HAS_GAPS).
func TestFileSizeGapAndFinalize(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /1 HTTP/1.0\r\nUser-Agent: Mozilla\r\n\r\n")
	resp(t, s, "HTTP/1.0 200 OK\r\nContent-Length: 12\r\n\r\n")
	resp(t, s, "Hello World!\r\n")
	req(t, s, "GET /2 HTTP/1.0\r\nUser-Agent: Mozilla\r\n\r\n")
	resp(t, s, "HTTP/1.0 200 OK\r\nContent-Length: 70\r\n\r\n")
	resp(t, s, strings.Repeat("A", 14))
	if r := s.Gap(flow.ToClient, 14); r.Err != nil {
		t.Fatal(r.Err)
	}
	for i := 0; i < 3; i++ {
		resp(t, s, strings.Repeat("A", 14))
	}
	req(t, s, "GET /3 HTTP/1.0\r\nUser-Agent: Mozilla\r\n\r\n")
	resp(t, s, "HTTP/1.0 200 OK\r\nContent-Length: 12\r\n\r\nHello People\r\n")
	s.Parse(flow.ToClient, nil, 1) // EOF
	for i, w := range []struct {
		size  uint64
		state FileState
		gaps  bool
	}{{14, FileClosed, false}, {70, FileTruncated, true}, {14, FileClosed, false}} {
		tx := s.Tx(i)
		if len(tx.ResponseFiles) != 1 {
			t.Fatalf("tx %d: files %+v", i, tx.ResponseFiles)
		}
		f := tx.ResponseFiles[0]
		if f.Size != w.size || f.State != w.state || f.Gaps != w.gaps {
			t.Errorf("tx %d: size %d state %v gaps %v, want %d %v %v", i, f.Size, f.State, f.Gaps, w.size, w.state, w.gaps)
		}
	}
}

// TestFileNames checks the names HTPFileOpen gets (src/app-layer-htp.c): a response file is
// named by Content-Disposition, else the whole normalised URI path (suricata-verify bug-130
// expects /publication/pub.home/home.html, HtpResponseBodyHandle); a PUT/POST body by the
// URI path only, whatever its Content-Disposition (HtpRequestBodyHandlePOSTorPUT); a name
// over SC_FILENAME_MAX is cut and raises file_name_too_long.
func TestFileNames(t *testing.T) {
	long := "/" + strings.Repeat("a", fileNameMax+10)
	for _, c := range []struct {
		name       string
		req, resp  string
		reqFile    string
		respFile   string
		tooLong    bool
		noRespFile bool
	}{
		{name: "bug-130 path", req: "GET /publication/pub.home/home.html?x=1 HTTP/1.1\r\nHost: a\r\n\r\n",
			resp: "HTTP/1.1 401 No\r\nContent-Length: 2\r\n\r\nab", respFile: "/publication/pub.home/home.html"},
		{name: "normalised path", req: "GET /a/../b/%63.txt HTTP/1.1\r\nHost: a\r\n\r\n",
			resp: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab", respFile: "/b/c.txt"},
		{name: "disposition", req: "GET /a/b HTTP/1.1\r\nHost: a\r\n\r\n",
			resp: "HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename=\"x.pdf\"\r\nContent-Length: 2\r\n\r\nab", respFile: "x.pdf"},
		{name: "put ignores disposition", req: "PUT /up/f.bin HTTP/1.1\r\nHost: a\r\nContent-Disposition: attachment; filename=\"x.pdf\"\r\nContent-Length: 2\r\n\r\nab",
			resp: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", reqFile: "/up/f.bin", noRespFile: true},
		{name: "too long", req: "GET " + long + " HTTP/1.1\r\nHost: a\r\n\r\n",
			resp: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab", respFile: long[:fileNameMax], tooLong: true},
	} {
		s := testState(t, func(c *Config) { c.MetaFieldLimit = 3 * fileNameMax })
		req(t, s, c.req)
		resp(t, s, c.resp)
		tx := s.Tx(0)
		if c.reqFile != "" && (len(tx.RequestFiles) != 1 || string(tx.RequestFiles[0].Name) != c.reqFile) {
			t.Errorf("%s: request files %+v", c.name, tx.RequestFiles)
		}
		if c.noRespFile {
			if len(tx.ResponseFiles) != 0 {
				t.Errorf("%s: response files %+v", c.name, tx.ResponseFiles)
			}
		} else if len(tx.ResponseFiles) != 1 || string(tx.ResponseFiles[0].Name) != c.respFile {
			t.Errorf("%s: response files %+v", c.name, tx.ResponseFiles)
		}
		if hasEvent(tx, "file_name_too_long") != c.tooLong {
			t.Errorf("%s: events %v", c.name, eventList(tx))
		}
	}
}
