// Package txtest_test tests detection over app-layer transactions through the API the
// pipeline uses (Build, SetApp, Inspect, ReleaseTx), with a small line-based stand-in for
// HTTP/1 registered as applayer.ProtoHTTP1 in this test binary only (what Suricata's
// template parser is for): rules can then use the HTTP buffer names package rules knows,
// while the detect package's own tests keep seeing no HTTP parser.
package txtest_test

import (
	"bytes"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// The stand-in's message, per direction: a start line ("GET /uri" or "200"), header lines,
// an empty line, body lines, and a line "." that completes the direction. Progress follows
// HTTP/1's numbering (§4.1): 1 after the start line, 2 during headers, 3 in the body, 5
// complete.
const (
	progLine     = 1
	progHeaders  = 2
	progBody     = 3
	progComplete = 5
)

// Event ids, in the order of lineParser.Events (names HTTP/1 has, so rules accept them).
const (
	evMissingHost  = 0
	evMissingColon = 1
)

type lineTx struct {
	td    applayer.TxData
	start [2][]byte
	hdrs  [2][][]byte
	// hdrBlock is every "Name: value\r\n" of a direction, built once the headers end.
	hdrBlock [2][]byte
	body     [2][]byte
	// inspected counts Buffer.Inspected calls of file.data per direction.
	inspected [2]int
}

func (t *lineTx) TxData() *applayer.TxData { return &t.td }

// lineState is a flow's state. Transactions are kept until FreeTxs; their memory is not
// reused (the tests do not need a pool).
type lineState struct {
	txs    []*lineTx
	nextID uint64
}

func (s *lineState) TxCount() int                             { return len(s.txs) }
func (s *lineState) TxAt(i int) applayer.Tx                   { return s.txs[i] }
func (s *lineState) Reset()                                   { *s = lineState{} }
func (s *lineState) Gap(applayer.Dir, uint64) applayer.Result { return applayer.Result{} }

func (s *lineState) FreeTxs(below uint64) {
	kept := s.txs[:0]
	for _, t := range s.txs {
		if t.td.ID >= below {
			kept = append(kept, t)
		}
	}
	s.txs = kept
}

// current returns the tx the next line of dir belongs to: the first one not complete in
// dir; a new one for a request, or for a response without a request (then the request side
// is complete, as libhtp's synthetic request).
func (s *lineState) current(dir applayer.Dir) *lineTx {
	for _, t := range s.txs {
		if t.td.Progress[dir] < progComplete {
			return t
		}
	}
	t := &lineTx{}
	t.td.Reset(s.nextID)
	s.nextID++
	if dir == flow.ToClient {
		t.td.Progress[flow.ToServer] = progComplete
	}
	s.txs = append(s.txs, t)
	return t
}

func (s *lineState) Parse(dir applayer.Dir, data []byte, flags applayer.Flags) applayer.Result {
	used := 0
	for {
		nl := bytes.IndexByte(data[used:], '\n')
		if nl < 0 {
			break
		}
		line := data[used : used+nl]
		used += nl + 1
		t := s.current(dir)
		t.td.Updated[dir] = true
		switch p := t.td.Progress[dir]; {
		case p == 0:
			t.start[dir] = append([]byte(nil), line...)
			t.td.Progress[dir] = progLine
		case p < progBody:
			if len(line) == 0 {
				for _, h := range t.hdrs[dir] {
					t.hdrBlock[dir] = append(append(t.hdrBlock[dir], h...), "\r\n"...)
				}
				t.td.Progress[dir] = progBody
				continue
			}
			if bytes.IndexByte(line, ':') < 0 {
				t.td.Events.Set(evMissingColon)
			}
			t.hdrs[dir] = append(t.hdrs[dir], append([]byte(nil), line...))
			t.td.Progress[dir] = progHeaders
		default:
			if string(line) == "." {
				t.td.Progress[dir] = progComplete
				if dir == flow.ToServer && !hasHost(t.hdrs[dir]) {
					t.td.Events.Set(evMissingHost)
				}
				continue
			}
			t.body[dir] = append(t.body[dir], line...)
		}
	}
	return applayer.Result{Consumed: used}
}

func hasHost(hdrs [][]byte) bool {
	for _, h := range hdrs {
		if len(h) >= 5 && bytes.EqualFold(h[:5], []byte("host:")) {
			return true
		}
	}
	return false
}

var lineParser = &applayer.Parser{
	Proto: applayer.ProtoHTTP1, IPProto: 6,
	Complete: [2]uint8{progComplete, progComplete},
	Events:   []string{"missing_host_header", "request_field_missing_colon"},
	// HTTP/1's state names, for the firewall hooks.
	ProgressNames: [2][]string{
		{"request_started", "request_line", "request_headers", "request_body", "request_trailer", "request_complete"},
		{"response_started", "response_line", "response_headers", "response_body", "response_trailer", "response_complete"},
	},
}

func lineTxOf(tx applayer.Tx) *lineTx { return tx.(*lineTx) }

func init() {
	applayer.Register(lineParser)
	ts, tc, both := [2]bool{true, false}, [2]bool{false, true}, [2]bool{true, true}
	// http.method and http.uri: the request line's two words, at LINE (§5.9).
	applayer.RegisterBuffer(applayer.Buffer{Name: "http.method", Proto: applayer.ProtoHTTP1, Dirs: ts,
		Progress: [2]uint8{progLine, progLine},
		Get: func(tx applayer.Tx, dir applayer.Dir, _ int, _ *applayer.GetCtx) ([]byte, bool) {
			l := lineTxOf(tx).start[flow.ToServer]
			if l == nil {
				return nil, false
			}
			m, _, _ := bytes.Cut(l, []byte(" "))
			return m, true
		}})
	applayer.RegisterBuffer(applayer.Buffer{Name: "http.uri", Proto: applayer.ProtoHTTP1, Dirs: ts,
		Progress: [2]uint8{progLine, progLine},
		Get: func(tx applayer.Tx, dir applayer.Dir, _ int, _ *applayer.GetCtx) ([]byte, bool) {
			_, u, ok := bytes.Cut(lineTxOf(tx).start[flow.ToServer], []byte(" "))
			return u, ok
		}})
	applayer.RegisterBuffer(applayer.Buffer{Name: "http.stat_code", Proto: applayer.ProtoHTTP1, Dirs: tc,
		Progress: [2]uint8{progLine, progLine},
		Get: func(tx applayer.Tx, dir applayer.Dir, _ int, _ *applayer.GetCtx) ([]byte, bool) {
			l := lineTxOf(tx).start[flow.ToClient]
			return l, l != nil
		}})
	// http.header: both directions, registered at HEADERS, present once the block ended.
	applayer.RegisterBuffer(applayer.Buffer{Name: "http.header", Proto: applayer.ProtoHTTP1, Dirs: both,
		Progress: [2]uint8{progHeaders, progHeaders},
		Get: func(tx applayer.Tx, dir applayer.Dir, _ int, _ *applayer.GetCtx) ([]byte, bool) {
			t := lineTxOf(tx)
			if t.td.Progress[dir] <= progHeaders || len(t.hdrBlock[dir]) == 0 {
				return nil, false
			}
			return t.hdrBlock[dir], true
		}})
	// http.request_header: a multi-buffer, one instance per request header.
	applayer.RegisterBuffer(applayer.Buffer{Name: "http.request_header", Proto: applayer.ProtoHTTP1, Dirs: ts,
		Progress: [2]uint8{progHeaders, progHeaders}, Multi: true,
		Get: func(tx applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			h := lineTxOf(tx).hdrs[flow.ToServer]
			if i >= len(h) {
				return nil, false
			}
			return h[i], true
		}})
	// file.data: the body of either direction at BODY, with an Inspected callback.
	applayer.RegisterBuffer(applayer.Buffer{Name: "file.data", Proto: applayer.ProtoHTTP1, Dirs: both,
		Progress: [2]uint8{progBody, progBody}, Multi: true,
		Get: func(tx applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			b := lineTxOf(tx).body[dir]
			if i > 0 || len(b) == 0 {
				return nil, false
			}
			return b, true
		},
		Inspected: func(tx applayer.Tx, dir applayer.Dir, _ *applayer.GetCtx) { lineTxOf(tx).inspected[dir]++ }})
}
