package http

import (
	"strings"
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

// Bytes after a Content-Length body that are no status line are more body of the same tx
// (response_finalize) and reach its file, which closes at response complete; a gap in a
// body counts in the file's size and leaves it TRUNCATED (FileAppendDataDo without data,
// FileCloseFilePtr). SV http-gap-simple: C-L 12 with 14 bytes sent gives a 14-byte file;
// 56 bytes and a 14-byte gap of a C-L 70 body give 70, TRUNCATED, gaps.
func TestResponseFileFinalizeAndGap(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /1 HTTP/1.0\r\n\r\n")
	resp(t, s, "HTTP/1.0 200 OK\r\nContent-Length: 12\r\n\r\n")
	resp(t, s, "Hello World!\r\n")
	req(t, s, "GET /2 HTTP/1.0\r\n\r\n")
	resp(t, s, "HTTP/1.0 200 OK\r\nContent-Length: 70\r\n\r\nAAAAAAAAAAAAAA")
	s.Gap(flow.ToClient, 14)
	resp(t, s, strings.Repeat("A", 42))
	for i, want := range []struct {
		size  uint64
		state FileState
		gaps  bool
	}{{14, FileClosed, false}, {70, FileTruncated, true}} {
		tx := s.Tx(i)
		if len(tx.ResponseFiles) != 1 {
			t.Fatalf("tx %d: %d files", i, len(tx.ResponseFiles))
		}
		f := tx.ResponseFiles[0]
		if f.Size != want.size || f.State != want.state || f.Gaps != want.gaps {
			t.Errorf("tx %d: size %d state %v gaps %v, want %+v", i, f.Size, f.State, f.Gaps, want)
		}
	}
}
