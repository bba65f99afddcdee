package smtp

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
)

// allocSession is a whole SMTP session with a MIME message (headers, a text part with a
// URL, a base64 attachment), in segments as a stream hands them.
var allocSession = []struct {
	dir  applayer.Dir
	data string
}{
	{tc, welcome},
	{ts, "EHLO x.org\r\n"},
	{tc, "250-x.org\r\n250 PIPELINING\r\n"},
	{ts, "MAIL FROM:<a@x.org>\r\nRCPT TO:<b@y.org>\r\nRCPT TO:<c@y.org>\r\nDATA\r\n"},
	{tc, "250 ok\r\n250 ok\r\n250 ok\r\n354 go\r\n"},
	{ts, "From: a@x.org\r\nSubject: hi\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"},
	{ts, "Content-Type: text/plain\r\n\r\nsee http://example.com/x\r\n--b\r\n"},
	{ts, "Content-Disposition: attachment; filename=a.bin\r\nContent-Transfer-Encoding: base64\r\n\r\n"},
	{ts, "aGVsbG8gd29ybGQ=\r\n--b--\r\n.\r\n"},
	{tc, "250 queued\r\n"},
	{ts, "QUIT\r\n"},
	{tc, "221 bye\r\n"},
}

// TestAllocFlow: a warm pool parses another whole session (a new flow's state, its mail
// transaction, MIME headers, URL, attachment) without allocating (dependency-measurements
// §4b: a parser's steady state reuses its pool).
func TestAllocFlow(t *testing.T) {
	p := NewPool(nil)
	segs := make([][]byte, len(allocSession))
	for i, seg := range allocSession {
		segs[i] = []byte(seg.data)
	}
	run := func() {
		s := p.NewState()
		for i, seg := range allocSession {
			if r := s.Parse(seg.dir, segs[i], 0); r.Err != nil || r.Consumed != len(segs[i]) {
				t.Fatalf("segment %d: %+v", i, r)
			}
		}
		if s.TxCount() != 1 || len(s.Tx(0).Files()) != 1 || string(s.Tx(0).Files()[0].Data) != "hello world" {
			t.Fatal("session not parsed")
		}
		s.FreeTxs(^uint64(0))
		p.Put(s)
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Fatalf("%.1f allocations per session, want 0", n)
	}
}

// BenchmarkSession parses allocSession plus a 64 KiB base64 attachment per iteration on a
// warm pool.
func BenchmarkSession(b *testing.B) {
	p := NewPool(nil)
	var att []byte
	line := []byte("QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\r\n")
	for len(att) < 64<<10 {
		att = append(att, line...)
	}
	segs := make([][]byte, 0, len(allocSession)+1)
	var dirs []applayer.Dir
	for i, seg := range allocSession {
		if i == 8 {
			segs, dirs = append(segs, att), append(dirs, ts)
		}
		segs, dirs = append(segs, []byte(seg.data)), append(dirs, seg.dir)
	}
	total := 0
	for _, s := range segs {
		total += len(s)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		s := p.NewState()
		for i, seg := range segs {
			if r := s.Parse(dirs[i], seg, 0); r.Err != nil {
				b.Fatal(r.Err)
			}
		}
		s.FreeTxs(^uint64(0))
		p.Put(s)
	}
}
