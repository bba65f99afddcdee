package http

import (
	"net/netip"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

type frameWant struct {
	off  uint64
	len  int64
	tx   uint64
	kind applayer.FrameType
}

// frameLayer runs the HTTP/1 parser under the framework with both frame types enabled.
func frameLayer(t *testing.T) (*applayer.Layer, *flow.Flow) {
	t.Helper()
	cfg, err := applayer.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	l := applayer.NewLayer(cfg)
	l.EnableFrames(applayer.ProtoHTTP1, FrameRequest)
	l.EnableFrames(applayer.ProtoHTTP1, FrameResponse)
	f := &flow.Flow{SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"), SrcPort: 1234, DstPort: 80}
	return l, f
}

// feedLayer hands data of dir in pieces as the pipeline does (unconsumed bytes again).
func feedLayer(l *applayer.Layer, f *flow.Flow, dir applayer.Dir, pieces ...string) {
	var pend []byte
	for _, p := range pieces {
		pend = append(pend, p...)
		l.Begin(f, dir)
		r := l.Data(f, dir, dir, pend, 0, false)
		pend = append(pend[:0], pend[r.Consumed:]...)
		l.Ready(f, dir)
	}
}

func checkFrames(t *testing.T, fs *applayer.Frames, dir applayer.Dir, want []frameWant) {
	t.Helper()
	if fs.Len(dir) != len(want) {
		t.Fatalf("dir %d: %d frames, want %d", dir, fs.Len(dir), len(want))
	}
	for i, w := range want {
		fr := fs.At(dir, i)
		if fr.Offset != w.off || fr.Len != w.len || fr.TxID != w.tx || fr.Type != w.kind {
			t.Errorf("dir %d frame %d: %+v, want %+v", dir, i, *fr, w)
		}
	}
}

// TestFramesPipelined: three pipelined requests in one segment (SV eve-payload-07-http-gap's
// 40-byte requests) give three request frames of 40 bytes at offsets 0, 40, 80; the responses,
// split across calls, give response frames whose length is set at response complete
// (HTPCallbackRequestStart/Complete, HTPCallbackResponseStart/Complete).
func TestFramesPipelined(t *testing.T) {
	l, f := frameLayer(t)
	r1 := "GET /1 HTTP/1.0\r\nUser-Agent: Mozilla\r\n\r\n"
	r2 := "GET /2 HTTP/1.0\r\nUser-Agent: Mozilla\r\n\r\n"
	r3 := "GET /3 HTTP/1.0\r\nUser-Agent: Mozilla\r\n\r\n"
	if len(r1) != 40 {
		t.Fatal(len(r1))
	}
	feedLayer(l, f, flow.ToServer, r1+r2+r3)
	fs := l.Frames(f)
	if fs == nil {
		t.Fatal("no frames")
	}
	checkFrames(t, fs, flow.ToServer, []frameWant{{0, 40, 0, FrameRequest}, {40, 40, 1, FrameRequest}, {80, 40, 2, FrameRequest}})
	resp := "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc"
	feedLayer(l, f, flow.ToClient, resp[:10], resp[10:30])
	checkFrames(t, fs, flow.ToClient, []frameWant{{0, -1, 0, FrameResponse}})
	feedLayer(l, f, flow.ToClient, resp[30:], resp)
	n := int64(len(resp))
	checkFrames(t, fs, flow.ToClient, []frameWant{{0, n, 0, FrameResponse}, {uint64(n), n, 1, FrameResponse}})
}

// TestFramesSplitRequest: a request whose line arrives in pieces starts its frame at its
// first byte; a request after a gap inside a C-L body starts after the gap bytes.
func TestFramesSplitRequest(t *testing.T) {
	l, f := frameLayer(t)
	a := "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"
	feedLayer(l, f, flow.ToServer, a[:3], a[3:20], a[20:])
	l.Gap(f, flow.ToServer, flow.ToServer, 10)
	b := "GET /b HTTP/1.1\r\nHost: x\r\n\r\n"
	feedLayer(l, f, flow.ToServer, b)
	fs := l.Frames(f)
	la := int64(len(a)) + 10
	checkFrames(t, fs, flow.ToServer, []frameWant{{0, la, 0, FrameRequest}, {uint64(la), int64(len(b)), 1, FrameRequest}})
	fs.Remove(flow.ToServer, func(fr *applayer.Frame) bool { return fr.TxID == 0 })
	if e, ok := fs.LeftEdge(flow.ToServer); !ok || e != uint64(la) {
		t.Errorf("left edge %d %v, want %d", e, ok, la)
	}
}

// TestFramesDisabled: without a rule using the frame types no frames are tracked.
func TestFramesDisabled(t *testing.T) {
	cfg, _ := applayer.DefaultConfig()
	l := applayer.NewLayer(cfg)
	f := &flow.Flow{SrcPort: 1, DstPort: 80}
	feedLayer(l, f, flow.ToServer, "GET / HTTP/1.0\r\n\r\n")
	if l.Frames(f) != nil {
		t.Fatal("frames tracked without EnableFrames")
	}
}
