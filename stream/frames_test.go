package stream

import (
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// framesConv sends a request in two segments, ACKed, consumes it as the app layer and the raw
// inspection do, then sends one more ACK so that the stream prunes what both passed.
func framesConv(t *testing.T, edge bool) *conv {
	cfg := defaultConfig()
	cfg.Raw = false // no raw inspection: the app layer alone decides what is released
	c := newConv(t, cfg)
	c.handshake(100, 500)
	if edge {
		c.tr.SetFrameEdge(c.f, flow.ToServer, 0)
	}
	c.send(pkt{flags: fPA, seq: 101, ack: 501, data: "GET /a"})
	c.send(pkt{flags: fPA, seq: 107, ack: 501, data: " HTTP/1.0\r\n\r\n"})
	c.send(pkt{fromServer: true, flags: fACK, seq: 501, ack: 120})
	if d, _ := c.app(flow.ToServer); d != "GET /a HTTP/1.0\r\n\r\n" {
		t.Fatalf("app data %q", d)
	}
	c.send(pkt{flags: fACK, seq: 120, ack: 501})
	c.send(pkt{fromServer: true, flags: fACK, seq: 501, ack: 120})
	return c
}

// TestFrameBytesAcrossSegments: a frame's bytes span the segments they came in; the frame
// edge keeps them through pruning (GetLeftEdge with frames), and without it they are released
// once the app layer and raw inspection passed them.
func TestFrameBytesAcrossSegments(t *testing.T) {
	c := framesConv(t, true)
	if got := string(c.tr.FrameBytes(c.f, flow.ToServer, 0, 19, nil)); got != "GET /a HTTP/1.0\r\n\r\n" {
		t.Errorf("frame bytes %q", got)
	}
	if got := string(c.tr.FrameBytes(c.f, flow.ToServer, 4, 10, []byte("x"))); got != "x/a HTT" {
		t.Errorf("frame bytes [4,10) %q", got)
	}
	if got := c.tr.FrameBytes(c.f, flow.ToServer, 0, ^uint64(0), nil); len(got) != 19 {
		t.Errorf("open frame: %d bytes, want the 19 stored", len(got))
	}
	c.tr.NoFrameEdge(c.f, flow.ToServer)
	c.send(pkt{flags: fACK, seq: 120, ack: 501})
	if got := c.tr.FrameBytes(c.f, flow.ToServer, 0, 19, nil); len(got) != 0 {
		t.Errorf("after the edge went: %q still stored", got)
	}
	c2 := framesConv(t, false)
	if got := c2.tr.FrameBytes(c2.f, flow.ToServer, 0, 19, nil); len(got) != 0 {
		t.Errorf("without an edge: %q still stored", got)
	}
}

// TestFrameEdgeBound: an edge further back than MaxFrameKeep does not hold data.
func TestFrameEdgeBound(t *testing.T) {
	st := &Stream{frameEdge: 1}
	if got := frameLeftEdge(st, MaxFrameKeep+10); got != MaxFrameKeep+10 {
		t.Errorf("left edge %d", got)
	}
	if got := frameLeftEdge(st, 100); got != 0 {
		t.Errorf("left edge %d, want 0", got)
	}
	st.frameEdge = 0
	if got := frameLeftEdge(st, 100); got != 100 {
		t.Errorf("no edge: %d", got)
	}
}
