package http

import (
	"bytes"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// Conformance: the suricata-verify HTTP tests' pcaps run through the parser; each check
// restates what the test's rules need from the buffers (the rule is quoted in the comment).
// Tests whose pcap is missing are skipped.

type svCheck func(t *testing.T, states []*State)

func anyTx(states []*State, f func(*Tx) bool) bool {
	for _, s := range states {
		for i := 0; i < s.TxCount(); i++ {
			if f(s.Tx(i)) {
				return true
			}
		}
	}
	return false
}

func bufHas(t *testing.T, name string, dir applayer.Dir, sub string) func(*Tx) bool {
	return func(tx *Tx) bool {
		ctx := &applayer.GetCtx{EOF: true}
		for i := 0; i < 64; i++ {
			b, ok := getBuf(t, name, tx, dir, i, ctx)
			if !ok {
				return false
			}
			if bytes.Contains(b, []byte(sub)) {
				return true
			}
			if !applayer.BufferOf(BufferIDs[name]).Multi {
				return false
			}
		}
		return false
	}
}

func evHas(name string) func(*Tx) bool { return func(tx *Tx) bool { return hasEvent(tx, name) } }

func TestSuricataVerify(t *testing.T) {
	ts, tc := flow.ToServer, flow.ToClient
	cases := map[string]svCheck{
		// content:" afterspace"; http_uri
		"http-uri-spaces": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "http.uri", ts, " afterspace")) {
				t.Error("uri with space")
			}
		},
		// content:"GET"; http_method; http_header_names; content:"User-Agent"
		"http-missing-protocol": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "http.method", ts, "GET")) || !anyTx(s, bufHas(t, "http.header_names", ts, "User-Agent")) {
				t.Error("method / header names")
			}
		},
		// http.response_line; content:"HTTP/1.1 400" matches; file.data must not; fileinfo.size 166
		"http-not09-file": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "http.response_line", tc, "HTTP/1.1 400")) {
				t.Error("response line")
			}
			if anyTx(s, bufHas(t, "file.data", tc, "HTTP/1.1 400")) {
				t.Error("status line in file.data")
			}
			if !anyTx(s, func(tx *Tx) bool { return len(tx.ResponseFiles) == 1 && tx.ResponseFiles[0].Size == 166 }) {
				t.Error("file size 166")
			}
		},
		// app-layer-event:http.request_chunk_extension
		"http-event-chunk": func(t *testing.T, s []*State) {
			if !anyTx(s, evHas("request_chunk_extension")) {
				t.Error("event")
			}
		},
		// app-layer-event:http.duplicate_content_length_field_in_request
		"http-multiple-cl": func(t *testing.T, s []*State) {
			if !anyTx(s, evHas("duplicate_content_length_field_in_request")) {
				t.Error("event")
			}
		},
		// http.request_header; content:"Connection|3a 20|" (and the response/User-Agent/Date ones)
		"http-request-header": func(t *testing.T, s []*State) {
			for _, c := range []struct {
				name string
				dir  applayer.Dir
				sub  string
			}{{"http.request_header", ts, "Connection: "}, {"http.response_header", tc, "Connection: "}, {"http.request_header", ts, "User-Agent: "}, {"http.response_header", tc, "Date: "}} {
				if !anyTx(s, bufHas(t, c.name, c.dir, c.sub)) {
					t.Errorf("%s %q", c.name, c.sub)
				}
			}
		},
		// http.request_header; bsize:69; content:"Key|3a 20|"; startswith
		"http-request-header-multi": func(t *testing.T, s []*State) {
			ok := anyTx(s, func(tx *Tx) bool {
				for i := 0; ; i++ {
					b, ok := getBuf(t, "http.request_header", tx, ts, i, nil)
					if !ok {
						return false
					}
					if len(b) == 69 && bytes.HasPrefix(b, []byte("Key: ")) {
						return true
					}
				}
			})
			if !ok || !anyTx(s, bufHas(t, "http.connection", ts, "Upgrade")) {
				t.Error("Key header of 69 bytes")
			}
		},
		// from_server; content:"ng1nx"; http_header
		"http-close-headers": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "http.header", tc, "ng1nx")) {
				t.Error("server header")
			}
		},
		// to_client; content:"Server|3a 20 20 20 20 20 20 20|Yx|28|"; http_raw_header
		"http-raw-header": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "http.header.raw", tc, "Server:       Yx(")) {
				t.Error("raw header")
			}
		},
		// http.header; content:"Host" / "Cookie" / "Transfer-Encoding" ... to_server
		"http-chunked": func(t *testing.T, s []*State) {
			for _, h := range []string{"Host", "X-Qlik-User", "User-Agent", "Content-Length", "Transfer-Encoding"} {
				if !anyTx(s, bufHas(t, "http.header", ts, h)) {
					t.Errorf("http.header %s", h)
				}
			}
			if !anyTx(s, bufHas(t, "http.cookie", ts, "X-Qlik-Session")) {
				t.Error("cookie")
			}
		},
		// flow:to_client; http.connection; content:"close"
		"http-connection-toclient": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "http.connection", tc, "close")) {
				t.Error("connection close to_client")
			}
		},
		// http_request_line; content:"GET /index.html HTTP/1.0"; bsize 10..100
		"http-request-line": func(t *testing.T, s []*State) {
			if !anyTx(s, func(tx *Tx) bool {
				return string(tx.RequestLine) == "GET /index.html HTTP/1.0"
			}) {
				t.Error("request line")
			}
		},
		// http_response_line; content:"HTTP/1.0 200 OK"
		"http-response-line": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "http.response_line", tc, "HTTP/1.0 200 OK")) {
				t.Error("response line")
			}
		},
		// flow:to_server; file_data; content:<EICAR>
		"http-post-file": func(t *testing.T, s []*State) {
			if !anyTx(s, bufHas(t, "file.data", ts, "EICAR-STANDARD-ANTIVIRUS-TEST-FILE")) {
				t.Error("request file EICAR")
			}
		},
	}
	for name, check := range cases {
		t.Run(name, func(t *testing.T) {
			p := svPcap(name)
			if p == "" {
				t.Skip("no pcap")
			}
			states := runPcap(t, svStateMaker(t, name), p)
			check(t, states)
		})
	}
}
