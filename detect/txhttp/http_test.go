// Package txhttp_test runs transaction detection over the real HTTP/1 parser
// (applayer/http), with expectations from suricata-verify tests and the reference (§4, §5.9).
package txhttp_test

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

type conn struct {
	t  testing.TB
	e  *detect.Engine
	tc *detect.ThreadCtx
	f  *flow.Flow
	fa applayer.FlowApp
}

func newConn(t testing.TB, cfg detect.Config, texts ...string) *conn {
	t.Helper()
	var rs []*rules.Rule
	for _, s := range texts {
		r, err := rules.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		rs = append(rs, r)
	}
	e, errs, err := detect.Build(rs, cfg)
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	t.Cleanup(e.Close)
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	c := &conn{t: t, e: e, tc: tc, f: flow.NewDetached()}
	c.f.SetPacketEstablished(true)
	c.f.Proto = decode.ProtoTCP
	c.fa = applayer.FlowApp{Proto: applayer.ProtoHTTP1, ProtoDir: [2]applayer.Proto{applayer.ProtoHTTP1, applayer.ProtoHTTP1},
		Parser: http.Parser, State: http.NewPool(nil).NewState(applayer.FlowInfo{})}
	return c
}

func packet(dir flow.Direction, payload string) *decode.Packet {
	src, dst, sp, dp := "10.0.0.1", "10.0.0.2", uint16(40000), uint16(80)
	if dir == flow.ToClient {
		src, dst, sp, dp = dst, src, dp, sp
	}
	return &decode.Packet{Data: make([]byte, 54+len(payload)), Timestamp: time.Unix(1700000000, 0), IPVersion: 4,
		SrcIP: netip.MustParseAddr(src), DstIP: netip.MustParseAddr(dst), IPProto: decode.ProtoTCP, HasL4: true,
		SrcPort: sp, DstPort: dp, TCPFlags: decode.TCPFlagACK | decode.TCPFlagPSH, Payload: []byte(payload), TTL: 64}
}

// send parses data of direction dir and inspects a packet of that direction, returning the
// queue as "sid/txid".
func (c *conn) send(dir flow.Direction, data string) []string {
	if res := c.fa.State.Parse(dir, []byte(data), 0); res.Err != nil || res.Consumed != len(data) {
		c.t.Fatalf("parse %q: consumed %d, %v", data, res.Consumed, res.Err)
	}
	c.fa.Updated[dir] = true
	c.tc.SetApp(&c.fa, applayer.GetCtx{})
	c.e.Inspect(c.tc, packet(dir, data), c.f, dir)
	st := c.fa.State
	for i := 0; i < st.TxCount(); i++ {
		st.TxAt(i).TxData().Updated[dir] = false
	}
	c.fa.Updated = [2]bool{}
	var out []string
	for _, en := range c.tc.Queue.Entries() {
		sid := c.e.Rule(en.IID).Src.SID
		if en.TxID == alert.NoTx {
			out = append(out, fmt.Sprintf("%d/-", sid))
		} else {
			out = append(out, fmt.Sprintf("%d/%d", sid, en.TxID))
		}
	}
	return out
}

type step struct {
	dir  flow.Direction
	data string
	want []string
}

func run(t *testing.T, rs []string, steps []step) {
	t.Helper()
	for _, cfg := range []detect.Config{{}, {NoTxPrefilter: true}} {
		c := newConn(t, cfg, rs...)
		for i, s := range steps {
			if got := c.send(s.dir, s.data); !slices.Equal(got, s.want) {
				t.Errorf("prefilter off %v, step %d: alerts %q, want %q", cfg.NoTxPrefilter, i, got, s.want)
			}
		}
	}
}

const ts, tc = flow.ToServer, flow.ToClient

// TestHTTPBuffers: the HTTP/1 buffers of §5.9 at their progress, over a request sent in
// pieces (the uri engine matches on the request line's packet, the header engine once the
// header block ended), its response, and a second, pipelined pair.
func TestHTTPBuffers(t *testing.T) {
	rs := []string{
		`alert http any any -> any any (msg:"uri"; http.uri; content:"/index.html"; sid:1;)`,
		`alert http any any -> any any (msg:"method+ua"; http.method; content:"GET"; http.user_agent; content:"Mozilla"; sid:2;)`,
		`alert http any any -> any any (msg:"uricontent legacy"; uricontent:"index"; sid:3;)`,
		`alert http any any -> any any (msg:"urilen"; urilen:11; sid:4;)`,
		`alert http any any => any any (msg:"GET then 404"; http.method; content:"GET"; http.stat_code; content:"404"; sid:5;)`,
		`alert http any any -> any any (msg:"body"; file.data; content:"hello"; sid:6;)`,
		`alert http any any -> any any (msg:"server header"; http.server; content:"nginx"; sid:7;)`,
		`alert http any any -> any any (msg:"host"; http.host; content:"example.com"; bsize:11; sid:8;)`,
		`alert http any any -> any any (msg:"missing host"; app-layer-event:http.missing_host_header; sid:9;)`,
	}
	run(t, rs, []step{
		{ts, "GET /index.html HTTP/1.1\r\n", []string{"1/0", "3/0", "4/0"}},
		{ts, "Host: example.com\r\nUser-Agent: Mozilla/5.0\r\n\r\n", []string{"2/0", "8/0"}},
		{tc, "HTTP/1.1 404 Not Found\r\nServer: nginx\r\nContent-Length: 5\r\n\r\n", []string{"5/0", "7/0"}},
		{tc, "hello", []string{"6/0"}},
		{ts, "GET /other HTTP/1.1\r\n\r\n", []string{"9/1"}},
	})
}

// BenchmarkHTTPTx: 200 tx rules over the real HTTP/1 buffers, a packet that adds to an
// existing request's body (the tx is inspected again: its body engines at BODY).
func BenchmarkHTTPTx(b *testing.B) {
	var texts []string
	for i := 0; i < 200; i++ {
		switch i % 4 {
		case 0:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (http.uri; content:"/p%d"; sid:%d;)`, i, i+1))
		case 1:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (http.method; content:"POST"; http.header; content:"H%d"; sid:%d;)`, i, i+1))
		case 2:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (http.request_body; content:"body%d"; sid:%d;)`, i, i+1))
		case 3:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (http.user_agent; content:!"X%d"; sid:%d;)`, i, i+1))
		}
	}
	c := newConn(b, detect.Config{}, texts...)
	c.send(ts, "POST /index HTTP/1.1\r\nHost: a\r\nUser-Agent: b\r\nContent-Length: 100000000\r\n\r\nsome body")
	p := packet(ts, "more body")
	st := c.fa.State
	b.ReportAllocs()
	for b.Loop() {
		st.TxAt(0).TxData().Updated[ts] = true
		c.fa.Updated[ts] = true
		c.tc.SetApp(&c.fa, applayer.GetCtx{})
		c.e.Inspect(c.tc, p, c.f, ts)
	}
}
