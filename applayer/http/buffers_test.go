package http

import (
	"bytes"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

func getBuf(t *testing.T, name string, tx *Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
	t.Helper()
	id, ok := BufferIDs[name]
	if !ok {
		t.Fatalf("no buffer %s", name)
	}
	b := applayer.BufferOf(id)
	if !b.Dirs[dir] {
		t.Fatalf("%s not in dir %d", name, dir)
	}
	return b.Get(tx, dir, i, ctx)
}

// Buffer contents per §5.9 (src/detect-http-*.c): each case names the buffer, the direction
// and the expected bytes for one request/response pair.
func TestBufferContents(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /a%20b?q=1 HTTP/1.1\r\nHost: WWW.Site.com:8080\r\nUser-Agent: UA/1\r\nCookie: c=1\r\nAccept: */*\r\nAccept-Encoding: gzip\r\nAccept-Language: en\r\nReferer: http://r/\r\nConnection: keep-alive\r\n\r\n")
	resp(t, s, "HTTP/1.1 302 Found\r\nServer: srv\r\nLocation: /x\r\nSet-Cookie: s=2\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody")
	tx := s.Tx(0)
	ts, tc := flow.ToServer, flow.ToClient
	cases := []struct {
		name string
		dir  applayer.Dir
		want string
	}{
		{"http.uri.raw", ts, "/a%20b?q=1"},
		{"http.method", ts, "GET"},
		{"http.request_line", ts, "GET /a%20b?q=1 HTTP/1.1"},
		{"http.protocol", ts, "HTTP/1.1"},
		{"http.protocol", tc, "HTTP/1.1"},
		{"http.stat_code", tc, "302"},
		{"http.stat_msg", tc, "Found"},
		{"http.response_line", tc, "HTTP/1.1 302 Found"},
		// http.header: no Cookie, no final empty line (DetectHttpHeader GetBufferForTX)
		{"http.header", ts, "Host: WWW.Site.com:8080\r\nUser-Agent: UA/1\r\nAccept: */*\r\nAccept-Encoding: gzip\r\nAccept-Language: en\r\nReferer: http://r/\r\nConnection: keep-alive\r\n"},
		{"http.header", tc, "Server: srv\r\nLocation: /x\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n"},
		{"http.header_names", tc, "\r\nServer\r\nLocation\r\nSet-Cookie\r\nContent-Type\r\nContent-Length\r\nConnection\r\n\r\n"},
		{"http.start", tc, "HTTP/1.1 302 Found\r\nServer: srv\r\nLocation: /x\r\nSet-Cookie: s=2\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\n"},
		{"http.header.raw", tc, "Server: srv\r\nLocation: /x\r\nSet-Cookie: s=2\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\n"},
		{"http.cookie", ts, "c=1"},
		{"http.cookie", tc, "s=2"},
		{"http.user_agent", ts, "UA/1"},
		{"http.host", ts, "www.site.com"},
		{"http.host.raw", ts, "WWW.Site.com:8080"},
		{"http.accept", ts, "*/*"},
		{"http.accept_enc", ts, "gzip"},
		{"http.accept_lang", ts, "en"},
		{"http.referer", ts, "http://r/"},
		{"http.connection", ts, "keep-alive"},
		{"http.connection", tc, "close"},
		{"http.content_len", tc, "4"},
		{"http.content_type", tc, "text/plain"},
		{"http.server", tc, "srv"},
		{"http.location", tc, "/x"},
		{"file.data", tc, "body"},
	}
	ctx := &applayer.GetCtx{}
	for _, c := range cases {
		got, ok := getBuf(t, c.name, tx, c.dir, 0, ctx)
		if !ok || string(got) != c.want {
			t.Errorf("%s dir %d: %q %v, want %q", c.name, c.dir, got, ok, c.want)
		}
	}
	// multi-buffers: one "Name: value" per header (SV http-request-header)
	var all []string
	for i := 0; ; i++ {
		b, ok := getBuf(t, "http.response_header", tx, tc, i, ctx)
		if !ok {
			break
		}
		all = append(all, string(b))
	}
	if len(all) != 6 || all[0] != "Server: srv" || all[5] != "Connection: close" {
		t.Errorf("response_header %q", all)
	}
	if _, ok := getBuf(t, "http.cookie", tx, ts, 1, ctx); ok {
		t.Error("single buffer instance 1")
	}
}

// The instances of a multi-buffer stay valid together: detection reads instance 0..n and
// keeps them all for the packet (GetHttp1HeaderData builds them all into one buffer on
// local_id 0). SV http-request-header: "Connection: " is neither the first nor the last
// request header and must still be found.
func TestMultiHeaderInstancesHeldTogether(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nAccept: */*\r\nHost: h\r\nConnection: close\r\nUser-Agent: u\r\n\r\n")
	tx := s.Tx(0)
	var held [][]byte
	for i := 0; ; i++ {
		b, ok := getBuf(t, "http.request_header", tx, flow.ToServer, i, nil)
		if !ok {
			break
		}
		held = append(held, b)
	}
	want := []string{"Accept: */*", "Host: h", "Connection: close", "User-Agent: u"}
	if len(held) != len(want) {
		t.Fatalf("%d instances, want %d", len(held), len(want))
	}
	for i, w := range want {
		if string(held[i]) != w {
			t.Errorf("instance %d %q, want %q", i, held[i], w)
		}
	}
	// Asking for instance 0 again rebuilds the same bytes in place.
	if b, _ := getBuf(t, "http.request_header", tx, flow.ToServer, 0, nil); string(b) != want[0] || string(held[2]) != want[2] {
		t.Errorf("rebuild: %q %q", b, held[2])
	}
}

// Buffers appear at their progress: the request line ones once the line is parsed, the
// header composites once the header block is complete (H*).
func TestBufferProgress(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /x HTTP/1.1\r\nHost: a\r\nUser-Agent: u\r\n")
	tx := s.Tx(0)
	ctx := &applayer.GetCtx{}
	if tx.data.Progress[0] != ReqHeaders {
		t.Fatalf("progress %d", tx.data.Progress[0])
	}
	if b, ok := getBuf(t, "http.uri.raw", tx, flow.ToServer, 0, ctx); !ok || string(b) != "/x" {
		t.Error("uri at HEADERS")
	}
	if b, ok := getBuf(t, "http.host", tx, flow.ToServer, 0, ctx); ok {
		t.Errorf("host before the header block ended: %q", b)
	}
	if _, ok := getBuf(t, "http.header", tx, flow.ToServer, 0, ctx); ok {
		t.Error("http.header before the header block ended")
	}
	req(t, s, "\r\n")
	if b, ok := getBuf(t, "http.header", tx, flow.ToServer, 0, ctx); !ok || string(b) != "Host: a\r\nUser-Agent: u\r\n" {
		t.Errorf("http.header %q", b)
	}
	for _, name := range []string{"http.uri", "http.uri.raw", "http.method", "http.request_line", "http.protocol"} {
		if p := applayer.BufferOf(BufferIDs[name]).Progress[0]; p != ReqLine {
			t.Errorf("%s progress %d", name, p)
		}
	}
	for _, name := range []string{"http.request_body", "file.data", "http.header.raw"} {
		if p := applayer.BufferOf(BufferIDs[name]).Progress; p != [2]uint8{3, 3} {
			t.Errorf("%s progress %v", name, p)
		}
	}
}

// Body inspection windows (§5.6, HttpRequestBodyGetDataCallback): IDS defers until the
// minimal inspect size or the end of the body; later inspections add history.
func TestBodyWindow(t *testing.T) {
	s := testState(t, func(c *Config) {
		c.RequestMinInspect, c.RequestInspectWindow, c.RequestBodyLimit = 10, 8, 1000
	})
	req(t, s, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 30\r\n\r\n01234")
	tx := s.Tx(0)
	ids := &applayer.GetCtx{}
	b := applayer.BufferOf(BufferIDs["http.request_body"])
	if d, ok := b.Get(tx, flow.ToServer, 0, ids); ok {
		t.Fatalf("deferred below min size: %q", d)
	}
	if d, ok := b.Get(tx, flow.ToServer, 0, &applayer.GetCtx{Inline: true}); !ok || string(d) != "01234" {
		t.Fatalf("inline %q", d)
	}
	req(t, s, "567890123")
	if d, ok := b.Get(tx, flow.ToServer, 0, ids); !ok || string(d) != "01234567890123" {
		t.Fatalf("at min size %q", d)
	}
	b.Inspected(tx, flow.ToServer, ids)
	if _, ok := b.Get(tx, flow.ToServer, 0, ids); ok {
		t.Fatal("nothing new")
	}
	req(t, s, "ab")
	// 2 new bytes < window 8: 6 bytes of history
	if d, ok := b.Get(tx, flow.ToServer, 0, ids); !ok || string(d) != "890123ab" {
		t.Fatalf("window %q", d)
	}
	b.Inspected(tx, flow.ToServer, ids)
	req(t, s, "ABCDEFGHIJKLMN")
	// 14 new bytes >= window: window/4 = 2 bytes of history
	if d, ok := b.Get(tx, flow.ToServer, 0, ids); !ok || string(d) != "abABCDEFGHIJKLMN" {
		t.Fatalf("window/4 %q", d)
	}
	if !bytes.Equal(tx.RequestBody.Data, []byte("01234567890123abABCDEFGHIJKLMN")) || tx.data.Progress[0] != ReqComplete {
		t.Fatalf("body %q", tx.RequestBody.Data)
	}
}
