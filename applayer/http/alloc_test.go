package http

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// mix is a realistic exchange: pipelined GETs, a chunked response, a gzip body, a POST.
func mix() (reqs, resps []byte) { return mixOf(true) }

// mixOf is mix, with the first response gzip-encoded or plain.
func mixOf(gzipped bool) (reqs, resps []byte) {
	page := bytes.Repeat([]byte("<p>some html text of a page</p>\n"), 60)
	z := gz(string(page))
	var q, r bytes.Buffer
	q.WriteString("GET /index.html HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nAccept: text/html,*/*;q=0.8\r\nAccept-Encoding: gzip, deflate\r\nCookie: session=abcdef0123456789\r\nConnection: keep-alive\r\n\r\n")
	q.WriteString("GET /style.css?v=3 HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nReferer: http://www.example.com/index.html\r\n\r\n")
	fmt.Fprintf(&q, "POST /api/submit HTTP/1.1\r\nHost: www.example.com\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", 40, `{"name":"value","other":"field","n":123}`)
	if gzipped {
		fmt.Fprintf(&r, "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", len(z))
		r.Write(z)
	} else {
		fmt.Fprintf(&r, "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(page))
		r.Write(page)
	}
	r.WriteString("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/css\r\nTransfer-Encoding: chunked\r\n\r\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&r, "%x\r\n%s\r\n", 256, bytes.Repeat([]byte("a{b:c}"), 256/6+1)[:256])
	}
	r.WriteString("0\r\n\r\n")
	r.WriteString("HTTP/1.1 201 Created\r\nContent-Length: 2\r\nLocation: /api/1\r\n\r\nok")
	return q.Bytes(), r.Bytes()
}

// runMix parses one request/response mix in 1400-byte segments, then frees the txs.
func runMix(s *State, reqs, resps []byte) {
	for off := 0; off < len(reqs); off += 1400 {
		s.Parse(flow.ToServer, reqs[off:min(off+1400, len(reqs))], 0)
	}
	for off := 0; off < len(resps); off += 1400 {
		s.Parse(flow.ToClient, resps[off:min(off+1400, len(resps))], 0)
	}
	s.FreeTxs(s.nextID)
}

// A warm state parsing a further request+response allocates nothing (pooled txs, reused
// header, body and line storage). A gzip body costs what decompress costs: it starts one
// goroutine per compressed layer of a body (1 allocation).
func TestSteadyStateAllocs(t *testing.T) {
	for _, c := range []struct {
		gzip bool
		max  float64
	}{{false, 0}, {true, 1}} {
		reqs, resps := mixOf(c.gzip)
		s := testState(t, func(c *Config) { c.ResponseBodyLimit = 100 << 10; c.RequestBodyLimit = 100 << 10 })
		for i := 0; i < 3; i++ {
			runMix(s, reqs, resps)
		}
		if n := testing.AllocsPerRun(50, func() { runMix(s, reqs, resps) }); n > c.max {
			t.Fatalf("gzip %v: %v allocations per request/response mix", c.gzip, n)
		}
	}
	reqs, resps := mixOf(false)
	s := testState(t, nil)
	// and the getters
	runMix(s, reqs[:0], nil)
	s.Parse(flow.ToServer, reqs, 0)
	s.Parse(flow.ToClient, resps, 0)
	ctx := &applayer.GetCtx{}
	get := func() {
		for _, id := range BufferIDs {
			b := applayer.BufferOf(id)
			for i := 0; i < s.TxCount(); i++ {
				for d := 0; d < 2; d++ {
					if b.Dirs[d] {
						b.Get(s.Tx(i), applayer.Dir(d), 0, ctx)
					}
				}
			}
		}
	}
	get()
	if n := testing.AllocsPerRun(50, get); n != 0 {
		t.Fatalf("%v allocations in the getters", n)
	}
}

func BenchmarkParse(b *testing.B) {
	reqs, resps := mix()
	s := testState(b, func(c *Config) { c.ResponseBodyLimit = 100 << 10; c.RequestBodyLimit = 100 << 10 })
	runMix(s, reqs, resps)
	b.SetBytes(int64(len(reqs) + len(resps)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runMix(s, reqs, resps)
	}
}
