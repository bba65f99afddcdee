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

// TestConnectProbe reproduces libhtp's request_connect_probe_data (test main.rs
// ConnectRequestWithExtraData-style Tunnelled1 over 106-tunnelled-1.t): after a 2xx to a
// CONNECT that is not the flow's first transaction (the first one Suricata hands to
// protocol detection, HTPCallbackResponseComplete), a client line starting with a known
// method is parsed as the next request; anything else makes both directions a tunnel.
func TestConnectProbe(t *testing.T) {
	for _, c := range []struct {
		name   string
		next   string
		txs    int
		tunnel bool
	}{
		{"http inside", "GET / HTTP/1.1\r\nUser-Agent: Victor/1.0\r\n\r\n", 3, false},
		{"tls inside", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n", 2, true},
		{"unknown method", "FOO / HTTP/1.1\r\n\r\n", 2, true},
	} {
		s := testState(t, nil)
		req(t, s, "GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
		resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		in := []byte("CONNECT abc:443 HTTP/1.1\r\nUser-Agent: Victor/1.0\r\n\r\n" + c.next)
		r := s.Parse(flow.ToServer, in, 0)
		if r.Err != nil || r.Consumed == len(in) {
			t.Fatalf("%s: connect wait: %+v", c.name, r)
		}
		rest := in[r.Consumed:]
		if rr := s.Parse(flow.ToClient, []byte("HTTP/1.1 200 OK\r\nServer: VictorServer/1.0\r\n\r\n"), 0); rr.Err != nil || rr.Change != nil {
			t.Fatalf("%s: response %+v", c.name, rr)
		}
		if r = s.Parse(flow.ToServer, rest, 0); r.Err != nil || r.Consumed != len(rest) {
			t.Fatalf("%s: probe %+v", c.name, r)
		}
		if s.TxCount() != c.txs {
			t.Fatalf("%s: %d txs", c.name, s.TxCount())
		}
		ct := s.Tx(1)
		if string(ct.Method) != "CONNECT" || ct.Status != 200 || ct.data.Progress != [2]uint8{ReqComplete, ResComplete} {
			t.Errorf("%s: connect tx %q %d %v", c.name, ct.Method, ct.Status, ct.data.Progress)
		}
		if got := s.rqs == rqTunnel && s.rss == rsTunnel; got != c.tunnel {
			t.Errorf("%s: tunnel %v (states %d %d)", c.name, got, s.rqs, s.rss)
		}
		if !c.tunnel {
			if g := s.Tx(2); string(g.Method) != "GET" || g.data.Progress[0] != ReqComplete {
				t.Errorf("%s: next tx %q %v", c.name, g.Method, g.data.Progress)
			}
		}
	}
	// the first transaction's 2xx CONNECT is a protocol change (to detection) instead
	s := testState(t, nil)
	in := []byte("CONNECT abc:443 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n")
	r := s.Parse(flow.ToServer, in, 0)
	if rr := s.Parse(flow.ToClient, []byte("HTTP/1.1 200 OK\r\n\r\n"), 0); rr.Change == nil {
		t.Fatalf("first CONNECT: no protocol change %+v (req %+v)", rr, r)
	}
}

// TestResponseLineEnds checks the response header block against libhtp's response line
// ends (rust/htp/src/headers.rs, Side::Response): the expected headers come from
// main.rs ResponseHeaderCrOnly (108-response-headers-cr-only.t), ResponseHeaderDeformedEOL
// (109-response-headers-deformed-eol.t: two headers, DEFORMED_EOL, body "abcdef") and the
// headers.rs test_header / test_headers cases named in each row (their response results).
func TestResponseLineEnds(t *testing.T) {
	type hv struct{ name, value string }
	for _, c := range []struct {
		name     string
		block    string // after the status line, up to and including the body
		headers  []hv
		body     string
		deformed bool
		split    bool // also fed a byte at a time (no give-back case)
	}{
		{name: "108 cr only", block: "Content-Type: text/html\rContent-Length: 7\r\n\r\nabcdefg",
			headers: []hv{{"Content-Type", "text/html"}, {"Content-Length", "7"}}, body: "abcdefg", split: true},
		{name: "109 deformed", block: "Content-Type: text/html\r\nContent-Length: 6\n\r\r\n\r\nabcdef",
			headers: []hv{{"Content-Type", "text/html"}, {"Content-Length", "6"}}, body: "abcdef", deformed: true},
		{name: "cr_in_name", block: "Host:www.google.com\rName: Value\r\nContent-Length: 1\r\n\r\nx",
			headers: []hv{{"Host", "www.google.com"}, {"Name", "Value"}, {"Content-Length", "1"}}, body: "x", split: true},
		{name: "folding with cr", block: "K: V\r a\r\n l\n u\r\n\te\r\nContent-Length: 1\r\n\r\nx",
			headers: []hv{{"K", "V a l u\te"}, {"Content-Length", "1"}}, body: "x", split: true},
		{name: "deformed_folding_1", block: "K:deformed folded\n\r V\nContent-Length: 1\n\r\r\n\nx",
			headers: []hv{{"K", "deformed folded V"}, {"Content-Length", "1"}}, body: "x", deformed: true},
		{name: "deformed_folding_2", block: "Content-Length: 1\r\nK:deformed folded\n\r V\r\n\r\nx",
			headers: []hv{{"Content-Length", "1"}, {"K", "deformed folded V"}}, body: "x", split: true},
		{name: "deformed crlf cr", block: "Content-Length: 1\r\n\r\r\nX: Y\r\n\r\nx",
			headers: []hv{{"Content-Length", "1"}, {"X", "Y"}}, body: "x", deformed: true},
		{name: "cr cr ends the block", block: "Content-Length: 4\r\rabc\n",
			headers: []hv{{"Content-Length", "4"}}, body: "abc\n"},
		{name: "cr after crlf ends the block", block: "Content-Length: 5\r\n\rabcd\n",
			headers: []hv{{"Content-Length", "5"}}, body: "abcd\n"},
		{name: "n r is one line end", block: "A: 1\n\rContent-Length: 1\n\rB: 2\r\n\r\nx",
			headers: []hv{{"A", "1"}, {"Content-Length", "1"}, {"B", "2"}}, body: "x", split: true},
	} {
		for _, split := range []int{0, 1} {
			if split == 1 && !c.split {
				continue
			}
			s := testState(t, nil)
			req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
			feed(t, s, flow.ToClient, []byte("HTTP/1.1 200 OK\r\n"+c.block), split, false)
			tx := s.Tx(0)
			if tx.ResponseHeaders.Len() != len(c.headers) {
				t.Errorf("%s/%d: %d headers %q", c.name, split, tx.ResponseHeaders.Len(), tx.ResponseHeadersRaw)
				continue
			}
			for i, h := range c.headers {
				n, v := tx.ResponseHeaders.At(i)
				if string(n) != h.name || string(v) != h.value {
					t.Errorf("%s/%d: header %d %q: %q, want %q: %q", c.name, split, i, n, v, h.name, h.value)
				}
			}
			if string(tx.ResponseBody.Data) != c.body {
				t.Errorf("%s/%d: body %q, want %q", c.name, split, tx.ResponseBody.Data, c.body)
			}
			if hasEvent(tx, "deformed_eol") != c.deformed {
				t.Errorf("%s/%d: events %v", c.name, split, eventList(tx))
			}
		}
	}
}

// TestRequestDeformedEOL: headers.rs complete_eol_deformed on the request side: "\n\r\r\n"
// before CRLF closes the header and that CRLF the block, so the body starts after it (no
// event: only parse_response_headers warns DEFORMED_EOL).
func TestRequestDeformedEOL(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\n\r\r\n\r\nabc")
	tx := s.Tx(0)
	if string(tx.RequestBody.Data) != "abc" || tx.data.Progress[0] != ReqComplete || hasEvent(tx, "deformed_eol") {
		t.Fatalf("body %q progress %d events %v", tx.RequestBody.Data, tx.data.Progress[0], eventList(tx))
	}
}

// TestHeaderNUL: NUL in header lines as headers.rs treats it: kept inside values
// (test_headers null_does_not_terminate: "v2 before\0v2 after"), and a line starting with
// NUL is folding whose joining byte is the NUL (folding_lws takes "\0"; value() pushes
// ofold[0]).
func TestHeaderNUL(t *testing.T) {
	for _, resp := range []bool{false, true} {
		s := testState(t, nil)
		blk := "k1:v1\r\nk2:v2 before\x00v2 after\r\nk3: a\r\n\x00b\r\n\r\n"
		req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n"+map[bool]string{false: blk, true: "\r\n"}[resp])
		h := &s.Tx(0).RequestHeaders
		if resp {
			feed(t, s, flow.ToClient, []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"+blk), 0, false)
			h = &s.Tx(0).ResponseHeaders
		}
		for n, want := range map[string]string{"k2": "v2 before\x00v2 after", "k3": "a\x00b"} {
			if v, _ := h.Header(n); string(v) != want {
				t.Errorf("resp %v: %s = %q, want %q", resp, n, v, want)
			}
		}
	}
}

// TestTooManyLzmaLayers: response_initialize_decompressors / request_initialize_
// decompressors count "lzma" entries of a Content-Encoding list against the lzma limit
// (lzma-enabled: true is 1, a number that many; Suricata's default 0 sets no limit:
// htp_config_set_lzma_layers) and warn *_TOO_MANY_LZMA_LAYERS past it.
func TestTooManyLzmaLayers(t *testing.T) {
	for _, c := range []struct {
		layers int
		ce     string
		want   bool
	}{{1, "lzma, lzma", true}, {2, "lzma, lzma", false}, {0, "lzma, lzma, lzma", false}, {1, "gzip, lzma", false}} {
		s := testState(t, func(cf *Config) { cf.LzmaLayers = c.layers })
		req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Encoding: "+c.ce+"\r\nContent-Length: 1\r\n\r\nx")
		resp(t, s, "HTTP/1.1 200 OK\r\nContent-Encoding: "+c.ce+"\r\nContent-Length: 1\r\n\r\nx")
		tx := s.Tx(0)
		if hasEvent(tx, "request_too_many_lzma_layers") != c.want || hasEvent(tx, "response_too_many_lzma_layers") != c.want {
			t.Errorf("%d %q: events %v", c.layers, c.ce, eventList(tx))
		}
	}
}

// TestResponseFileOpensWithData: Suricata opens a response file from the body data
// callback (HtpResponseBodyHandle in HTPCallbackResponseBodyData), so a response whose
// body never arrives has no file, and a gap as the first body data opens one with gaps.
func TestResponseFileOpensWithData(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
	if n := len(s.Tx(0).ResponseFiles); n != 0 {
		t.Fatalf("%d files before any body data", n)
	}
	s.Parse(flow.ToClient, nil, 1) // EOF
	if n := len(s.Tx(0).ResponseFiles); n != 0 {
		t.Fatalf("%d files without body data", n)
	}
	s = testState(t, nil)
	req(t, s, "GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
	if r := s.Gap(flow.ToClient, 2); r.Err != nil {
		t.Fatal(r.Err)
	}
	resp(t, s, "abc")
	fs := s.Tx(0).ResponseFiles
	if len(fs) != 1 || fs[0].Size != 5 || !fs[0].Gaps || fs[0].State != FileTruncated || string(fs[0].Name) != "/a" {
		t.Fatalf("files %+v", fs)
	}
}
