package smtp

import (
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
)

func buffer(t *testing.T, name string) *applayer.Buffer {
	t.Helper()
	for _, id := range applayer.BuffersNamed(name) {
		if b := applayer.BufferOf(id); b.Proto == applayer.ProtoSMTP {
			return b
		}
	}
	t.Fatalf("no smtp buffer %s", name)
	return nil
}

// TestBuffers reads every SMTP buffer through the registry as detection does: names and
// multi-ness as rules/keywords_buffers.go lists them (all to server, progress 0:
// src/detect-smtp.c, src/detect-email.c).
func TestBuffers(t *testing.T) {
	tx := mailTx(t, nil, multipart, 0)
	get := func(name string, i int) string {
		b := buffer(t, name)
		if b.Dirs[tc] || !b.Dirs[ts] || b.Progress != [2]uint8{} {
			t.Fatalf("%s: dirs %v progress %v", name, b.Dirs, b.Progress)
		}
		v, ok := b.Get(tx, ts, i, &applayer.GetCtx{})
		if !ok {
			return "<none>"
		}
		return string(v)
	}
	cases := []struct {
		name  string
		i     int
		want  string
		multi bool
	}{
		{"smtp.helo", 0, "x.org", false},
		{"smtp.mail_from", 0, "<a@x.org>", false},
		{"smtp.rcpt_to", 0, "<b@y.org>", true},
		{"smtp.rcpt_to", 1, "<none>", true},
		{"email.from", 0, "Alice <alice@x.org>", false},
		{"email.subject", 0, "a foldedsubject", false},
		{"email.to", 0, "bob@y.org, \"Doe, J\" <jd@y.org>", false},
		{"email.cc", 0, "carol@z.org", false},
		{"email.date", 0, "Mon, 1 Jan 2024 00:00:00 +0000", false},
		{"email.message_id", 0, "<id@x.org>", false},
		{"email.x_mailer", 0, "tester 1.0", false},
		{"email.received", 0, "from a", true},
		{"email.received", 1, "from b", true},
		{"email.received", 2, "<none>", true},
		{"email.url", 0, "example.com/a", true},
		{"email.url", 1, "Example.org/b", true},
		{"file.data", 0, "hello world", true},
		{"file.data", 1, "café softbreak\r\n", true},
		{"file.data", 2, "<none>", true},
	}
	for _, c := range cases {
		if got := get(c.name, c.i); got != c.want {
			t.Errorf("%s[%d] = %q, want %q", c.name, c.i, got, c.want)
		}
		if b := buffer(t, c.name); b.Multi != c.multi {
			t.Errorf("%s multi %v", c.name, b.Multi)
		}
	}
}

// TestFileDataWindow: file.data waits for content-inspect-min-size bytes of an open file
// (IDS), then gives what is new plus history up to the window (FiledataGetDataCallback
// with the SMTP inspect sizes), and nothing once inspected.
func TestFileDataWindow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ContentInspectMinSize, cfg.ContentInspectWindow = 64, 16
	s := newState(cfg)
	var pend [2][]byte
	feed(s, tc, &pend[1], []byte(welcome))
	feed(s, ts, &pend[0], []byte("DATA\r\n"))
	feed(s, tc, &pend[1], []byte("354 go\r\n"))
	feed(s, ts, &pend[0], []byte("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Disposition: attachment; filename=f\r\n\r\n"))
	feed(s, ts, &pend[0], []byte(strings.Repeat("a", 40)+"\r\n"))
	b := buffer(t, "file.data")
	tx := s.Tx(0)
	ctx := &applayer.GetCtx{}
	if _, ok := b.Get(tx, ts, 0, ctx); ok {
		t.Fatal("40 bytes of an open file are inspected before the minimal size")
	}
	feed(s, ts, &pend[0], []byte(strings.Repeat("b", 40)+"\r\n"))
	v, ok := b.Get(tx, ts, 0, ctx)
	if !ok || len(v) != 82 { // 40 a, CRLF (bufeol), 40 b
		t.Fatalf("after the minimal size: %d bytes %v", len(v), ok)
	}
	b.Inspected(tx, ts, ctx)
	if _, ok := b.Get(tx, ts, 0, ctx); ok {
		t.Fatal("nothing new after inspection")
	}
	feed(s, ts, &pend[0], []byte("cc\r\n"))
	v, ok = b.Get(tx, ts, 0, ctx)
	// inspected (80) > min size: the new bytes plus history making up the window (16)
	if !ok || len(v) != 16 || !strings.HasSuffix(string(v), "cc") {
		t.Fatalf("window %q %v", v, ok)
	}
}
