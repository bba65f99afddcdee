package http

import (
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// TestMinInspectAtMessageStart: each request and response start sets the stream's minimal
// inspection depth of its direction to the body minimal inspect size
// (HTPCallbackRequestStart / HTPCallbackResponseStart call StreamTcpReassemblySetMinInspectDepth
// with request.inspect_min_size / response.inspect_min_size), reported once.
func TestMinInspectAtMessageStart(t *testing.T) {
	s := testState(t, func(c *Config) { c.RequestMinInspect, c.ResponseMinInspect = 1000, 2000 })
	if _, set := s.TakeMinInspect(flow.ToServer); set {
		t.Fatal("nothing started yet")
	}
	feed(t, s, flow.ToServer, []byte("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"), 0, false)
	if d, set := s.TakeMinInspect(flow.ToServer); !set || d != 1000 {
		t.Fatalf("request start: depth %d set %v, want 1000", d, set)
	}
	if _, set := s.TakeMinInspect(flow.ToServer); set {
		t.Fatal("reported twice")
	}
	feed(t, s, flow.ToClient, []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), 0, false)
	if d, set := s.TakeMinInspect(flow.ToClient); !set || d != 2000 {
		t.Fatalf("response start: depth %d set %v, want 2000", d, set)
	}
}
