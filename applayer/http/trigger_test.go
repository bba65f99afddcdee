package http

import (
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// The parser asks for raw stream inspection where Suricata's HTP callbacks call
// AppLayerParserTriggerRawStreamInspection: request complete (HTPCallbackRequestComplete,
// to_server), response complete (HTPCallbackResponseComplete, to_client), and a body that
// reached its minimal inspect size while detection has not looked at it
// (HTPCallbackRequestBodyData / HTPCallbackResponseBodyData). Partial messages do not.
func TestTriggerRaw(t *testing.T) {
	ts, tc := flow.ToServer, flow.ToClient
	small := func(c *Config) { c.RequestMinInspect, c.ResponseMinInspect = 8, 8 }
	for _, c := range []struct {
		name string
		mod  func(*Config)
		dir  flow.Direction
		data string
		want [2]bool
	}{
		{"request line only", nil, ts, "GET / HTTP/1.1\r\n", [2]bool{}},
		{"request complete", nil, ts, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", [2]bool{true, false}},
		{"request body short", nil, ts, "POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n0123456789", [2]bool{}},
		{"request body min inspect", small, ts, "POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n0123456789", [2]bool{true, false}},
		{"response headers only", nil, tc, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", [2]bool{}},
		{"response complete", nil, tc, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", [2]bool{false, true}},
		{"response body min inspect", small, tc, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", [2]bool{false, true}},
	} {
		s := testState(t, c.mod)
		if c.dir == tc {
			if r := req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"); !r.TriggerRaw[0] {
				t.Fatalf("%s: request did not trigger", c.name)
			}
		}
		r := s.Parse(c.dir, []byte(c.data), 0)
		if r.TriggerRaw != c.want {
			t.Errorf("%s: TriggerRaw %v, want %v", c.name, r.TriggerRaw, c.want)
		}
		// A trigger is reported once: the next call without news reports none.
		if r := s.Parse(c.dir, nil, 0); r.TriggerRaw != ([2]bool{}) {
			t.Errorf("%s: trigger repeated: %v", c.name, r.TriggerRaw)
		}
	}
}
