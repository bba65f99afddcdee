package http

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// Request-line cases: rust/htp/src/request.rs parse_request_line and the reference §5.2.
func TestRequestLine(t *testing.T) {
	cases := []struct {
		in                 string
		method, uri, proto string
		is09               bool
		events             []string
	}{
		// SV http-uri-spaces: spaces allowed, split at the last space
		{"GET /uri afterspace HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/uri afterspace", "HTTP/1.1", false, nil},
		{"GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/a\tb", "HTTP/1.1", false, []string{"uri_delim_non_compliant"}},
		{"GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", "HTTP/1.1", false, []string{"method_delim_non_compliant"}},
		{"  GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", "HTTP/1.1", false, []string{"request_line_leading_whitespace"}},
		{"GET /\r\n", "GET", "/", "", true, nil},
		{"FOO /\r\n", "FOO", "/", "", true, []string{"request_line_unknown_method_no_protocol"}},
		{"FOO\r\n", "FOO", "", "", true, []string{"request_line_unknown_method"}},
		{"FOO / BAR\r\n\r\n", "FOO", "/", "BAR", false, []string{"request_line_unknown_method_invalid_protocol"}},
		{"GET / HTTP/01.1\r\nHost: a\r\n\r\n", "GET", "/", "HTTP/01.1", false, []string{"protocol_contains_extra_data"}},
		// SV http-missing-protocol: data after a protocol-less line means headers
		{"GET /x\r\nHost: a\r\nUser-Agent: b\r\n\r\n", "GET", "/x", "", false, []string{"request_line_missing_protocol"}},
	}
	for _, c := range cases {
		s := testState(t, nil)
		req(t, s, c.in)
		if s.TxCount() != 1 {
			t.Errorf("%q: %d txs", c.in, s.TxCount())
			continue
		}
		tx := s.Tx(0)
		if string(tx.Method) != c.method || string(tx.URIRaw) != c.uri || string(tx.Protocol) != c.proto || tx.Is09 != c.is09 {
			t.Errorf("%q: got %q %q %q 0.9=%v", c.in, tx.Method, tx.URIRaw, tx.Protocol, tx.Is09)
		}
		if got := eventList(tx); fmt.Sprint(got) != fmt.Sprint(c.events) && !(len(got) == 0 && len(c.events) == 0) {
			t.Errorf("%q: events %v want %v", c.in, got, c.events)
		}
		if tx.data.Progress[0] != ReqComplete {
			t.Errorf("%q: progress %d", c.in, tx.data.Progress[0])
		}
	}
}

// Header merging: §5.4, request.rs process_request_header; SV http-multiple-cl.
func TestHeaderMerging(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\nX-A: 3\r\nFold: a\r\n  b\r\n\tc\r\nContent-Length: 0\r\ncontent-length: 5\r\n\r\n")
	tx := s.Tx(0)
	if v, _ := tx.RequestHeaders.Header("x-a"); string(v) != "1, 2, 3" {
		t.Errorf("merged %q", v)
	}
	if v, _ := tx.RequestHeaders.Header("fold"); string(v) != "a b\tc" {
		t.Errorf("folded %q", v)
	}
	if v, _ := tx.RequestHeaders.Header("Content-Length"); string(v) != "0" {
		t.Errorf("C-L %q", v)
	}
	if n, _ := tx.RequestHeaders.At(1); string(n) != "X-A" {
		t.Errorf("name case %q", n)
	}
	for _, e := range []string{"request_header_repetition", "duplicate_content_length_field_in_request"} {
		if !hasEvent(tx, e) {
			t.Errorf("missing %s: %v", e, eventList(tx))
		}
	}
	if tx.RequestHeaders.Len() != 4 {
		t.Errorf("len %d", tx.RequestHeaders.Len())
	}
	if !bytes.HasSuffix(tx.RequestHeadersRaw, []byte("content-length: 5\r\n\r\n")) || !bytes.HasPrefix(tx.RequestHeadersRaw, []byte("Host: a\r\n")) {
		t.Errorf("raw %q", tx.RequestHeadersRaw)
	}
}

// 64 repetitions at most are merged (process_request_header: reps < 64).
func TestHeaderRepetitionCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("GET / HTTP/1.1\r\nHost: a\r\n")
	for i := 0; i < 100; i++ {
		b.WriteString("X: y\r\n")
	}
	b.WriteString("\r\n")
	s := testState(t, nil)
	req(t, s, b.String())
	v, _ := s.Tx(0).RequestHeaders.Header("X")
	// the first value, the first repetition (flag set), then 64 counted ones
	if n := strings.Count(string(v), "y"); n != 66 {
		t.Errorf("values merged: %d", n)
	}
}

func TestHeaderEvents(t *testing.T) {
	cases := []struct {
		hdr   string
		resp  bool
		event string
	}{
		{"NoColonHere\r\n", false, "request_field_missing_colon"},
		{"NoColonHere\r\n", true, "response_field_missing_colon"},
		{": empty\r\n", false, "request_invalid_empty_name"},
		{": empty\r\n", true, "response_invalid_empty_name"},
		{"Name : v\r\n", false, "request_invalid_lws_after_name"},
		{"Name : v\r\n", true, "response_invalid_lws_after_name"},
		{"Na(me: v\r\n", false, "request_header_invalid"},
		{"Na(me: v\r\n", true, "response_header_name_not_token"},
		{" Lead: v\r\n", false, "invalid_request_field_folding"},
		{" Lead: v\r\n", true, "invalid_response_field_folding"},
	}
	for _, c := range cases {
		s := testState(t, nil)
		if c.resp {
			req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
			resp(t, s, "HTTP/1.1 200 OK\r\n"+c.hdr+"Content-Length: 0\r\n\r\n")
		} else {
			req(t, s, "GET / HTTP/1.1\r\n"+c.hdr+"Host: a\r\n\r\n")
		}
		if !hasEvent(s.Tx(0), c.event) {
			t.Errorf("%q resp=%v: want %s, got %v", c.hdr, c.resp, c.event, eventList(s.Tx(0)))
		}
	}
}

func TestHeadersLimit(t *testing.T) {
	s := testState(t, func(c *Config) { c.HeadersLimit = 4 })
	r := req(t, s, "GET / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\nF: 1\r\n\r\n")
	if r.Err == nil || !hasEvent(s.Tx(0), "request_too_many_headers") {
		t.Fatalf("err %v events %v", r.Err, eventList(s.Tx(0)))
	}
}

func TestFieldTooLong(t *testing.T) {
	s := testState(t, func(c *Config) { c.MetaFieldLimit = 100 })
	r := req(t, s, "GET / HTTP/1.1\r\nA: "+strings.Repeat("x", 200)+"\r\n\r\n")
	if r.Err == nil || !hasEvent(s.Tx(0), "request_field_too_long") {
		t.Fatalf("err %v events %v", r.Err, eventList(s.Tx(0)))
	}
}

// Host and port: §5.5, transaction.rs process_request_headers.
func TestHostPort(t *testing.T) {
	cases := []struct {
		in      string
		host    string
		port    int
		hostRaw string
		events  []string
	}{
		{"GET / HTTP/1.1\r\nHost: WWW.Example.COM.\r\n\r\n", "www.example.com", -1, "WWW.Example.COM.", nil},
		{"GET / HTTP/1.1\r\nHost: a.b:8080\r\n\r\n", "a.b", 8080, "a.b:8080", nil},
		{"GET / HTTP/1.1\r\n\r\n", "", -1, "", []string{"missing_host_header"}},
		{"GET / HTTP/1.0\r\n\r\n", "", -1, "", nil},
		{"GET / HTTP/1.1\r\nHost: a.b:xx\r\n\r\n", "a.b", -1, "a.b:xx", []string{"request_header_host_invalid"}},
	}
	for _, c := range cases {
		s := testState(t, nil)
		req(t, s, c.in)
		tx := s.Tx(0)
		if string(tx.Hostname) != c.host || tx.Port != c.port || string(tx.HostRaw) != c.hostRaw {
			t.Errorf("%q: host %q port %d raw %q", c.in, tx.Hostname, tx.Port, tx.HostRaw)
		}
		for _, e := range c.events {
			if !hasEvent(tx, e) {
				t.Errorf("%q: want %s got %v", c.in, e, eventList(tx))
			}
		}
		if len(c.events) == 0 && len(eventList(tx)) != 0 {
			t.Errorf("%q: events %v", c.in, eventList(tx))
		}
	}
}

// Bodies: §5.6 (chunked, C-L, until close), SV http-event-chunk.
func TestBodies(t *testing.T) {
	for _, split := range []int{0, 1, 3, 5} {
		s := testState(t, nil)
		feed(t, s, flow.ToServer, []byte("POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer-A: x\r\n\r\n"), split, false)
		feed(t, s, flow.ToClient, []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), split, false)
		tx := s.Tx(0)
		if string(tx.RequestBody.Data) != "hello world" || !tx.RequestBody.Complete {
			t.Fatalf("split %d: req body %q", split, tx.RequestBody.Data)
		}
		if !hasEvent(tx, "request_chunk_extension") {
			t.Errorf("split %d: events %v", split, eventList(tx))
		}
		if v, _ := tx.RequestHeaders.Header("Trailer-A"); string(v) != "x" {
			t.Errorf("trailer %q", v)
		}
		if string(tx.ResponseBody.Data) != "abc" || tx.ResponseLength != uint64(len("3\r\nabc\r\n0\r\n")) {
			t.Errorf("split %d: resp body %q length %d", split, tx.ResponseBody.Data, tx.ResponseLength)
		}
		if tx.data.Progress != [2]uint8{5, 5} {
			t.Errorf("progress %v", tx.data.Progress)
		}
		if len(tx.RequestFiles) != 1 || tx.RequestFiles[0].Size != 11 || string(tx.RequestFiles[0].Name) != "/up" || tx.RequestFiles[0].State != FileClosed {
			t.Errorf("request file %+v", tx.RequestFiles)
		}
	}
	// until close
	s := testState(t, nil)
	req(t, s, "GET /dir/file.bin?q=1 HTTP/1.0\r\n\r\n")
	resp(t, s, "HTTP/1.0 200 OK\r\n\r\nsome data")
	tx := s.Tx(0)
	if tx.data.Progress[1] != ResBody {
		t.Fatalf("close-delimited body not open: %d", tx.data.Progress[1])
	}
	s.Parse(flow.ToClient, nil, applayer.EOF)
	if string(tx.ResponseBody.Data) != "some data" || tx.data.Progress[1] != ResComplete || string(tx.ResponseFiles[0].Name) != "/dir/file.bin" {
		t.Fatalf("close body %q %d %+v", tx.ResponseBody.Data, tx.data.Progress[1], tx.ResponseFiles)
	}
}

func TestBodyLimit(t *testing.T) {
	s := testState(t, func(c *Config) { c.ResponseBodyLimit = 4 })
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789")
	tx := s.Tx(0)
	if string(tx.ResponseBody.Data) != "0123" || tx.ResponseBody.Len != 10 || !tx.ResponseBody.Truncated || tx.ResponseFiles[0].Size != 10 {
		t.Fatalf("%q %d %v", tx.ResponseBody.Data, tx.ResponseBody.Len, tx.ResponseBody.Truncated)
	}
}

func TestChunkErrors(t *testing.T) {
	s := testState(t, nil)
	r := req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
	if r.Err == nil || !hasEvent(s.Tx(0), "invalid_request_chunk_len") {
		t.Errorf("request: %v %v", r.Err, eventList(s.Tx(0)))
	}
	s = testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	r = resp(t, s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n")
	if r.Err == nil || !hasEvent(s.Tx(0), "invalid_response_chunk_len") {
		t.Errorf("response: %v %v", r.Err, eventList(s.Tx(0)))
	}
	s = testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x\r\nab\r\n0\r\n\r\n")
	if !hasEvent(s.Tx(0), "response_chunk_extension") {
		t.Errorf("ext: %v", eventList(s.Tx(0)))
	}
}

func TestTransferEncodingRules(t *testing.T) {
	// chunked on HTTP/1.0: accepted with the T-E flag (invalid_transfer_encoding_value_in_request)
	s := testState(t, nil)
	req(t, s, "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n")
	if tx := s.Tx(0); string(tx.RequestBody.Data) != "a" || !hasEvent(tx, "invalid_transfer_encoding_value_in_request") || !tx.reqSmuggling {
		t.Errorf("1.0 chunked: %q %v", tx.RequestBody.Data, eventList(tx))
	}
	// other T-E: request_body_determine fails
	s = testState(t, nil)
	r := req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n")
	if r.Err == nil || !hasEvent(s.Tx(0), "invalid_transfer_encoding_value_in_request") {
		t.Errorf("gzip T-E: %v %v", r.Err, eventList(s.Tx(0)))
	}
	// invalid C-L
	s = testState(t, nil)
	r = req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n")
	if r.Err == nil || !hasEvent(s.Tx(0), "invalid_content_length_field_in_request") {
		t.Errorf("bad C-L: %v %v", r.Err, eventList(s.Tx(0)))
	}
	// C-L with junk
	s = testState(t, nil)
	req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: x3y\r\n\r\nabc")
	if tx := s.Tx(0); string(tx.RequestBody.Data) != "abc" || !hasEvent(tx, "content_length_extra_data_start") || !hasEvent(tx, "content_length_extra_data_end") {
		t.Errorf("junk C-L: %q %v", tx.RequestBody.Data, eventList(tx))
	}
	// response: chunked on 1.0, abnormal value
	s = testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.0 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n")
	if tx := s.Tx(0); !hasEvent(tx, "response_chunked_old_proto") || !hasEvent(tx, "response_abnormal_transfer_encoding") {
		t.Errorf("resp T-E: %v", eventList(tx))
	}
	// invalid response C-L is an error
	s = testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	if r := resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: -\r\n\r\n"); r.Err == nil || !hasEvent(s.Tx(0), "invalid_content_length_field_in_response") {
		t.Errorf("resp C-L: %v", eventList(s.Tx(0)))
	}
}

// Pipelining and pairing: §5.8.
func TestPipelining(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nPOST /3 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nab")
	if s.TxCount() != 3 {
		t.Fatalf("txs %d", s.TxCount())
	}
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 NF\r\nContent-Length: 1\r\n\r\nbHTTP/1.1 201 C\r\nContent-Length: 0\r\n\r\n")
	for i, want := range []int{200, 404, 201} {
		tx := s.Tx(i)
		if tx.Status != want || tx.data.Progress != [2]uint8{5, 5} || tx.data.ID != uint64(i) {
			t.Errorf("tx %d: status %d progress %v", i, tx.Status, tx.data.Progress)
		}
	}
	if string(s.Tx(0).URIRaw) != "/1" || string(s.Tx(2).RequestBody.Data) != "ab" {
		t.Errorf("uris")
	}
	// a further response without a request
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	if s.TxCount() != 4 {
		t.Fatalf("txs %d", s.TxCount())
	}
	tx := s.Tx(3)
	if string(tx.URIRaw) != "/libhtp::request_uri_not_seen" || !hasEvent(tx, "unable_to_match_response_to_request") || tx.data.Progress != [2]uint8{5, 5} {
		t.Errorf("unmatched: %q %v %v", tx.URIRaw, eventList(tx), tx.data.Progress)
	}
	s.FreeTxs(2)
	if s.TxCount() != 2 || s.Tx(0).data.ID != 2 {
		t.Errorf("free: %d", s.TxCount())
	}
}

// 100-continue: §5.7, response.rs response_body_determine.
func TestContinue(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
	resp(t, s, "HTTP/1.1 100 Continue\r\n\r\n")
	tx := s.Tx(0)
	if tx.data.Progress[1] != ResLine || tx.Status != 100 {
		t.Fatalf("after 100: %v %d", tx.data.Progress, tx.Status)
	}
	req(t, s, "abc")
	resp(t, s, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	if tx.Status != 200 || tx.data.Progress != [2]uint8{5, 5} || !hasEvent(tx, "100_continue_already_seen") {
		t.Fatalf("final: %d %v %v", tx.Status, tx.data.Progress, eventList(tx))
	}
	if v, ok := tx.ResponseHeaders.Header("Content-Length"); !ok || string(v) != "0" || tx.ResponseHeaders.Len() != 1 {
		t.Errorf("headers of the 100 not dropped")
	}
	// a 4xx to an Expect request that sent no body ends the request
	s = testState(t, nil)
	req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
	resp(t, s, "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n")
	if tx := s.Tx(0); tx.data.Progress != [2]uint8{5, 5} {
		t.Errorf("417: %v", tx.data.Progress)
	}
	req(t, s, "GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
	if s.TxCount() != 2 || string(s.Tx(1).URIRaw) != "/next" {
		t.Errorf("after 417: %d", s.TxCount())
	}
}

// HTTP/0.9: §5.2, the response has no status line and further request data is ignored.
func TestHTTP09(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /\r\n")
	req(t, s, "GET /again HTTP/1.1\r\n\r\n")
	resp(t, s, "<html>hello</html>")
	s.Parse(flow.ToClient, nil, applayer.EOF)
	if s.TxCount() != 1 {
		t.Fatalf("txs %d", s.TxCount())
	}
	tx := s.Tx(0)
	if !tx.Is09 || string(tx.ResponseBody.Data) != "<html>hello</html>" || len(tx.ResponseLine) != 0 || tx.data.Progress != [2]uint8{5, 5} {
		t.Fatalf("0.9: %q %q %v", tx.ResponseBody.Data, tx.ResponseLine, tx.data.Progress)
	}
}

// Protocol change: §3.9 (CONNECT 2xx for the first tx, 101 Upgrade h2c / websocket).
func TestProtocolChange(t *testing.T) {
	s := testState(t, nil)
	r := req(t, s, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01")
	if r.Consumed != len("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n") {
		t.Fatalf("CONNECT consumed %d", r.Consumed)
	}
	rs := []byte("HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x03")
	r = s.Parse(flow.ToClient, rs, 0)
	if r.Change == nil || r.Change.Expect != applayer.ProtoUnknown || r.Change.Port != 443 || r.Consumed != len(rs)-3 {
		t.Fatalf("CONNECT change %+v consumed %d", r.Change, r.Consumed)
	}
	if tx := s.Tx(0); tx.data.Progress != [2]uint8{5, 5} {
		t.Errorf("progress %v", tx.data.Progress)
	}
	// HTPHandleResponseData: a 101 upgrade to a protocol detection knows asks for the
	// change (the HTTP/1 part consumed, the rest left for the new protocol), and asks again
	// on each new data in the tunnel until the framework takes it; failed_protocol_change
	// when it is refused. To a protocol detection does not know: the tunnel, no change.
	defer func(f func(applayer.Proto) bool) { protoDetected = f }(protoDetected)
	for _, c := range []struct {
		up   string
		want applayer.Proto
	}{{"h2c", applayer.ProtoHTTP2}, {"WebSocket", applayer.ProtoWebSocket}} {
		protoDetected = func(applayer.Proto) bool { return true }
		s := testState(t, nil)
		req(t, s, "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: "+c.up+"\r\n\r\n")
		rs := []byte("HTTP/1.1 101 Switching\r\nUpgrade: " + c.up + "\r\n\r\nDATA")
		r := s.Parse(flow.ToClient, rs, 0)
		if r.Change == nil || r.Change.Expect != c.want || r.Consumed != len(rs)-4 {
			t.Errorf("%s: %+v %d", c.up, r.Change, r.Consumed)
		}
		s.ProtocolChangeRefused(flow.ToClient)
		if !hasEvent(s.Tx(0), "failed_protocol_change") {
			t.Errorf("%s: refused change raised no failed_protocol_change", c.up)
		}
		if r := s.Parse(flow.ToClient, []byte("DATA"), 0); r.Change == nil || r.Change.Expect != c.want || r.Consumed != 4 {
			t.Errorf("%s: tunnel data asks again: %+v %d", c.up, r.Change, r.Consumed)
		}
		protoDetected = func(applayer.Proto) bool { return false }
		s = testState(t, nil)
		req(t, s, "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: "+c.up+"\r\n\r\n")
		if r := s.Parse(flow.ToClient, rs, 0); r.Change != nil || r.Consumed != len(rs)-4 {
			t.Errorf("%s without detection: %+v %d, want the tunnel", c.up, r.Change, r.Consumed)
		}
		if r := s.Parse(flow.ToClient, []byte("DATA"), 0); r.Change != nil || r.Consumed != 4 {
			t.Errorf("%s without detection: the tunnel takes the data: %+v %d", c.up, r.Change, r.Consumed)
		}
	}
	// CONNECT refused: the request side goes on
	s = testState(t, nil)
	req(t, s, "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n")
	resp(t, s, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	if s.TxCount() != 2 || s.Tx(0).data.Progress != [2]uint8{5, 5} {
		t.Errorf("refused CONNECT: %d", s.TxCount())
	}
}

func TestResponseLine(t *testing.T) {
	cases := []struct {
		line        string
		proto, code string
		msg         string
		status      int
		events      []string
	}{
		{"HTTP/1.1 200 OK", "HTTP/1.1", "200", "OK", 200, nil},
		{"HTTP/1.1 2000 Big", "HTTP/1.1", "2000", "Big", 0, []string{"response_line_invalid_response_status"}},
		{"HTTP/9.9 200 OK", "HTTP/9.9", "200", "OK", 200, []string{"response_line_invalid_protocol"}},
		{"HTTP/1.0 404 Not Found here", "HTTP/1.0", "404", "Not Found here", 404, nil},
	}
	for _, c := range cases {
		s := testState(t, nil)
		req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		resp(t, s, c.line+"\r\nContent-Length: 0\r\n\r\n")
		tx := s.Tx(0)
		if string(tx.ResponseProtocol) != c.proto || string(tx.StatusCode) != c.code || string(tx.StatusMsg) != c.msg || tx.Status != c.status || string(tx.ResponseLine) != c.line {
			t.Errorf("%q: %q %q %q %d", c.line, tx.ResponseProtocol, tx.StatusCode, tx.StatusMsg, tx.Status)
		}
		for _, e := range c.events {
			if !hasEvent(tx, e) {
				t.Errorf("%q: want %s got %v", c.line, e, eventList(tx))
			}
		}
	}
}

func TestNoBodyResponses(t *testing.T) {
	for _, c := range []struct{ method, status string }{{"HEAD", "200"}, {"GET", "204"}, {"GET", "304"}} {
		s := testState(t, nil)
		req(t, s, c.method+" / HTTP/1.1\r\nHost: a\r\n\r\n"+c.method+" /b HTTP/1.1\r\nHost: a\r\n\r\n")
		resp(t, s, "HTTP/1.1 "+c.status+" X\r\nContent-Type: text/html\r\n\r\nHTTP/1.1 "+c.status+" X\r\n\r\n")
		if s.Tx(0).data.Progress[1] != ResComplete || s.Tx(1).data.Progress[1] != ResComplete {
			t.Errorf("%v: %v %v", c, s.Tx(0).data.Progress, s.Tx(1).data.Progress)
		}
	}
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 204 X\r\nContent-Length: 2\r\n\r\nab")
	if !hasEvent(s.Tx(0), "response_body_unexpected") {
		t.Errorf("204 with body: %v", eventList(s.Tx(0)))
	}
}

func TestUnexpectedBody(t *testing.T) {
	// request_finalize: a line after a body-less request that is not a request
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\nNOTAMETHOD junk\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n")
	if s.TxCount() != 2 || !hasEvent(s.Tx(0), "request_body_unexpected") || string(s.Tx(0).RequestBody.Data) != "NOTAMETHOD junk\r\n" {
		t.Fatalf("%d %v %q", s.TxCount(), eventList(s.Tx(0)), s.Tx(0).RequestBody.Data)
	}
	// response_finalize: data after a C-L body that is not a status line
	s = testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naextra\r\n")
	if !hasEvent(s.Tx(0), "response_body_unexpected") {
		t.Errorf("resp: %v", eventList(s.Tx(0)))
	}
}

func TestTooManyWarnings(t *testing.T) {
	s := testState(t, nil)
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\nX: 2\r\nY: 1\r\nY: 2\r\nZ: 1\r\nZ: 2\r\n\r\n")
	}
	req(t, s, b.String())
	last := s.Tx(s.TxCount() - 1)
	if !hasEvent(last, "too_many_warnings") || hasEvent(last, "request_header_repetition") {
		t.Fatalf("events %v (txs %d)", eventList(last), s.TxCount())
	}
}

func TestMaxTx(t *testing.T) {
	s := testState(t, func(c *Config) { c.MaxTx = 3 })
	r := req(t, s, strings.Repeat("GET / HTTP/1.1\r\nHost: a\r\n\r\n", 5))
	if r.Err == nil || s.TxCount() != 3 {
		t.Fatalf("err %v txs %d", r.Err, s.TxCount())
	}
}

func TestGap(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab")
	if r := s.Gap(flow.ToClient, 5); r.Err != nil {
		t.Fatal(r.Err)
	}
	resp(t, s, "cde")
	tx := s.Tx(0)
	if tx.data.Progress[1] != ResComplete || !tx.ResponseFiles[0].Gaps || tx.ResponseLength != 10 {
		t.Fatalf("%v %+v", tx.data.Progress, tx.ResponseFiles[0])
	}
	// a gap in the headers stops the parser with invalid_gap
	s = testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHo")
	if r := s.Gap(flow.ToServer, 3); r.Err == nil || !hasEvent(s.Tx(0), "invalid_gap") {
		t.Fatalf("gap in headers: %v", eventList(s.Tx(0)))
	}
}

func TestContentRangeAndFilename(t *testing.T) {
	s := testState(t, func(c *Config) { c.ForceHash = true })
	req(t, s, "GET /a/b.txt HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 206 Partial\r\nContent-Range: bytes 0-2/10\r\nContent-Disposition: attachment; filename=\"x.pdf\"\r\nContent-Length: 3\r\n\r\nabc")
	tx := s.Tx(0)
	cr := tx.ContentRange
	if !cr.Valid || cr.Start != 0 || cr.End != 2 || cr.Size != 10 || string(cr.Raw) != "bytes 0-2/10" {
		t.Errorf("range %+v", cr)
	}
	f := tx.ResponseFiles[0]
	if string(f.Name) != "x.pdf" || !f.Hashed || fmt.Sprintf("%x", f.MD5) != "900150983cd24fb0d6963f7d28e17f72" {
		t.Errorf("file %q %x", f.Name, f.MD5)
	}
}

func TestMultipart(t *testing.T) {
	body := "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfile content\r\n--XyZ\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\nvalue\r\n--XyZ--\r\n"
	s := testState(t, nil)
	req(t, s, fmt.Sprintf("POST /u HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	tx := s.Tx(0)
	if len(tx.RequestFiles) != 1 || string(tx.RequestFiles[0].Name) != "a.txt" || string(tx.RequestFiles[0].Data.Data) != "file content" || tx.RequestFiles[0].State != FileClosed {
		t.Fatalf("%+v", tx.RequestFiles)
	}
}

func TestRangeInvalidAndIncompleteLine(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 206 P\r\nContent-Range: bytes 5-2/10\r\nContent-Length: 0\r\n\r\n")
	if !hasEvent(s.Tx(0), "range_invalid") {
		t.Errorf("range: %v", eventList(s.Tx(0)))
	}
	s = testState(t, nil)
	req(t, s, "GET /very-long-line")
	resp(t, s, "HTTP/1.1 408 Timeout\r\nContent-Length: 0\r\n\r\n")
	if !hasEvent(s.Tx(0), "request_line_incomplete") {
		t.Errorf("incomplete: %v", eventList(s.Tx(0)))
	}
}

// Further events, each with the input that raises it in libhtp.
func TestMoreEvents(t *testing.T) {
	type step struct {
		dir  applayer.Dir
		data string
	}
	ts, tc := flow.ToServer, flow.ToClient
	cases := []struct {
		event string
		steps []step
		mod   func(*Config)
	}{
		{"duplicate_content_length_field_in_response", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}, {tc, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\na"}}, nil},
		{"response_header_repetition", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}, {tc, "HTTP/1.1 200 OK\r\nX: 1\r\nX: 2\r\nContent-Length: 0\r\n\r\n"}}, nil},
		{"response_field_too_long", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}, {tc, "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("y", 300) + "\r\n\r\n"}}, func(c *Config) { c.MetaFieldLimit = 100 }},
		{"response_too_many_headers", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}, {tc, "HTTP/1.1 200 OK\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\n\r\n"}}, func(c *Config) { c.HeadersLimit = 2 }},
		{"response_multipart_byteranges", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}, {tc, "HTTP/1.1 206 P\r\nContent-Type: multipart/byteranges; boundary=x\r\n\r\n"}}, nil},
		{"switching_proto_with_content_length", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}, {tc, "HTTP/1.1 101 S\r\nUpgrade: h2c\r\nContent-Length: 0\r\n\r\n"}}, nil},
		{"request_auth_unrecognized", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Weird xyz\r\n\r\n"}}, nil},
		{"unknown_error", []step{{ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"}}, func(c *Config) { c.MaxTx = 1 }},
	}
	for _, c := range cases {
		s := testState(t, c.mod)
		for _, st := range c.steps {
			feed(t, s, st.dir, []byte(st.data), 0, false)
		}
		found := false
		for i := 0; i < s.TxCount(); i++ {
			found = found || hasEvent(s.Tx(i), c.event)
		}
		if !found {
			t.Errorf("%s not raised: %v", c.event, eventList(s.Tx(0)))
		}
	}
}

// headers.rs value(): in responses a continuation that looks like "token:" is a new header
// (with the leading-whitespace name warning), in requests it is folded.
func TestResponseFoldingException(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n Y: b\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nX: a\r\n Y: b\r\nContent-Length: 0\r\n\r\n")
	tx := s.Tx(0)
	if v, _ := tx.RequestHeaders.Header("X"); string(v) != "a Y: b" {
		t.Errorf("request fold %q", v)
	}
	if v, ok := tx.ResponseHeaders.Header("Y"); !ok || string(v) != "b" || !hasEvent(tx, "invalid_response_field_folding") {
		t.Errorf("response %q %v %v", v, ok, eventList(tx))
	}
}

// Progress values per §4.1, byte by byte: LINE when the request starts, HEADERS after the
// line, BODY after the header block, TRAILER for a chunked trailer, COMPLETE at the end;
// Updated is set whenever the tx changed in a direction.
func TestProgressSequence(t *testing.T) {
	seq := func(dir applayer.Dir, s *State, data string) []uint8 {
		var out []uint8
		for i := 0; i < len(data); i++ {
			s.Parse(dir, []byte{data[i]}, 0)
			if s.TxCount() == 0 {
				continue
			}
			tx := s.Tx(s.TxCount() - 1)
			p := tx.data.Progress[dir]
			if len(out) == 0 || out[len(out)-1] != p {
				out = append(out, p)
				if !tx.data.Updated[dir] {
					t.Errorf("progress %d without Updated", p)
				}
			}
			tx.data.Updated[dir] = false
		}
		return out
	}
	s := testState(t, nil)
	got := seq(flow.ToServer, s, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nT: 1\r\n\r\n")
	if fmt.Sprint(got) != "[1 2 3 4 5]" {
		t.Errorf("request %v", got)
	}
	got = seq(flow.ToClient, s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab")
	if fmt.Sprint(got) != "[1 2 3 5]" {
		t.Errorf("response %v", got)
	}
}
