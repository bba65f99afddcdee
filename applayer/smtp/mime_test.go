package smtp

import (
	"crypto/md5"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/config"
)

// mailTx runs a whole mail transaction carrying msg (CRLF lines) through a state with cfg,
// handing the message in chunks of split bytes (0: at once), and returns the tx.
func mailTx(t *testing.T, cfg *Config, msg string, split int) *Tx {
	t.Helper()
	s := newState(cfg)
	var pend [2][]byte
	must := func(dir int, d string) {
		if r := feed(s, flowDir(dir), &pend[dir], []byte(d)); r.Err != nil {
			t.Fatalf("%q: %v", d, r.Err)
		}
	}
	must(1, welcome)
	must(0, "EHLO x.org\r\nMAIL FROM:<a@x.org>\r\nRCPT TO:<b@y.org>\r\nDATA\r\n")
	must(1, "250 x.org\r\n250 ok\r\n250 ok\r\n354 go\r\n")
	body := msg + ".\r\n"
	switch {
	case split < 0: // line by line
		for _, l := range strings.SplitAfter(body, "\n") {
			if l != "" {
				must(0, l)
			}
		}
	case split == 0:
		must(0, body)
	default:
		for i := 0; i < len(body); i += split {
			must(0, body[i:min(len(body), i+split)])
		}
	}
	if len(s.txs) != 1 || !s.txs[0].Done {
		t.Fatalf("mail tx not done (%d txs)", len(s.txs))
	}
	return s.txs[0]
}

func flowDir(d int) applayer.Dir { return applayer.Dir(d) }

// multipart is a message in the shape of SMTPParserTest14 and the MIME decoder tests of
// rust/src/mime/smtp.rs: a text part with a URL, a base64 attachment named by
// Content-Disposition, a quoted-printable attachment named by Content-Type, nested
// multipart/alternative inside.
const multipart = "From: Alice <alice@x.org>\r\n" +
	"To: bob@y.org, \"Doe, J\" <jd@y.org>\r\n" +
	"Cc: carol@z.org\r\n" +
	"Subject: a folded\r\n subject\r\n" +
	"Date: Mon, 1 Jan 2024 00:00:00 +0000\r\n" +
	"Message-ID: <id@x.org>\r\n" +
	"X-Mailer: tester 1.0\r\n" +
	"Received: from a\r\n" +
	"Received: from b\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=\"outer\"\r\n" +
	"\r\n" +
	"preamble http://not.logged/\r\n" +
	"--outer\r\n" +
	"Content-Type: multipart/alternative; boundary=inner\r\n" +
	"\r\n" +
	"--inner\r\n" +
	"Content-Type: text/plain\r\n" +
	"\r\n" +
	"see http://example.com/a and HTTP://Example.org/b\"x\r\n" +
	"--inner--\r\n" +
	"--outer\r\n" +
	"Content-Type: application/octet-stream\r\n" +
	"Content-Disposition: attachment; filename=\"a.bin\"\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"aGVsbG8g\r\n" +
	"d29ybGQ\r\n" +
	"--outer\r\n" +
	"Content-Type: text/plain; name=q.txt\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"caf=C3=A9 soft=\r\n" +
	"break\r\n" +
	"--outer--\r\n"

func TestMimeMultipart(t *testing.T) {
	// Data mode hands on a segment's last bytes as a line fragment and ends lines at a lone
	// CR (SMTPPreProcessCommands): a segment boundary between CR and LF, or a fragment that
	// is a lone ".", changes what Suricata decodes. Whole-line segments decode alike; other
	// splits keep the headers, names and URLs (checked below) and the file count.
	for _, split := range []int{0, -1, 2, 3, 5, 7, 11, 64} {
		exact := split <= 0
		tx := mailTx(t, nil, multipart, split)
		m := tx.Mime
		hdr := func(n string) string { v, _ := m.Header(n); return string(v) }
		// a folded line is appended without its first byte (mime_smtp_parse_line: value.extend(&i[1..]))
		if hdr("from") != "Alice <alice@x.org>" || hdr("subject") != "a foldedsubject" ||
			hdr("message-id") != "<id@x.org>" || hdr("x-mailer") != "tester 1.0" || hdr("cc") != "carol@z.org" {
			t.Fatalf("split %d: headers %q %q", split, hdr("from"), hdr("subject"))
		}
		if v, ok := m.HeaderAt("received", 1); !ok || string(v) != "from b" {
			t.Fatalf("split %d: received[1] %q", split, v)
		}
		if _, ok := m.HeaderAt("received", 2); ok {
			t.Fatal("three received")
		}
		u := m.URLs()
		// the preamble of a multipart/* is not text: its URL is not collected; the scheme is
		// matched without case and cut off (log-url-scheme no); '"' ends a URL
		if len(u) != 2 || string(u[0]) != "example.com/a" || string(u[1]) != "Example.org/b" {
			t.Fatalf("split %d: urls %q", split, u)
		}
		a := m.Attachments()
		if len(a) != 2 || string(a[0]) != "a.bin" || string(a[1]) != "q.txt" {
			t.Fatalf("split %d: attachments %q", split, a)
		}
		f := tx.Files()
		if len(f) != 2 {
			t.Fatalf("split %d: %d files", split, len(f))
		}
		if !exact {
			continue
		}
		if string(f[0].Name) != "a.bin" || string(f[0].Data) != "hello world" || f[0].State != FileClosed {
			t.Fatalf("split %d: file 0 %q %q %v", split, f[0].Name, f[0].Data, f[0].State)
		}
		// quoted-printable keeps the line end of its last line (quoted_buffer.extend(&full[i.len()..]))
		if string(f[1].Name) != "q.txt" || string(f[1].Data) != "café softbreak\r\n" || f[1].State != FileClosed {
			t.Fatalf("split %d: file 1 %q %q", split, f[1].Name, f[1].Data)
		}
	}
}

// TestMimePlainAttachment: a plain (unencoded) attachment keeps the line ends between its
// lines but not the last one before the boundary (bufeol).
func TestMimePlainAttachment(t *testing.T) {
	msg := "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n" +
		"Content-Disposition: attachment; filename*0=\"long\"; filename*1=\"name.txt\"\r\n\r\n" +
		"line1\r\nline2\r\n--b--\r\n"
	tx := mailTx(t, nil, msg, 0)
	f := tx.Files()
	if len(f) != 1 || string(f[0].Name) != "longname.txt" || string(f[0].Data) != "line1\r\nline2" {
		t.Fatalf("files %+v", f)
	}
}

// TestMimeEvents: MIME anomalies become the tx's events (SetMimeEvents).
func TestMimeEvents(t *testing.T) {
	msg := "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n" +
		"Content-Disposition: attachment; filename=x\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n" +
		"=AAA\r\n" + strings.Repeat("QUFB", 30) + "\r\n--b--\r\n" +
		strings.Repeat("y", 1000) + "\r\n"
	tx := mailTx(t, nil, msg, 0)
	for _, e := range []uint8{EvMimeInvalidBase64, EvMimeLongEncLine, EvMimeLongLine} {
		if !tx.data.Events.Has(e) {
			t.Errorf("no %s", EventNames[e])
		}
	}
}

// TestMimeBodyMD5: body-md5 covers the body from its first line to the end of the data.
func TestMimeBodyMD5(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BodyMD5 = true
	tx := mailTx(t, cfg, "Subject: s\r\n\r\nbody line\r\n", 0)
	sum, ok := tx.Mime.BodyMD5()
	if !ok || sum != md5.Sum([]byte("body line\r\n")) {
		t.Fatalf("body md5 %x %v", sum, ok)
	}
}

// TestRawExtraction: raw-extraction makes the message one file "rawmsg".
func TestRawExtraction(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DecodeMIME, cfg.RawExtraction = false, true
	tx := mailTx(t, cfg, "Subject: s\r\n\r\nbody\r\n", 0)
	f := tx.Files()
	if tx.Mime != nil || len(f) != 1 || string(f[0].Name) != "rawmsg" || string(f[0].Data) != "Subject: s\r\n\r\nbody\r\n" {
		t.Fatalf("raw files %+v", f)
	}
}

func TestBase64Decoder(t *testing.T) {
	cases := []struct {
		in   []string
		want string
		ok   bool
	}{
		{[]string{"aGVsbG8="}, "hello", true},
		{[]string{"aGVs", "bG8="}, "hello", true},
		{[]string{"aG Vs\tbG8"}, "hel", true}, // skipped characters; "bG8" waits
		{[]string{"a=AA"}, "", false},
	}
	for _, c := range cases {
		var d b64Decoder
		var out []byte
		ok := true
		for _, s := range c.in {
			var r bool
			out, r = d.decode([]byte(s), out)
			ok = ok && r
		}
		if string(out) != c.want || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.in, out, ok, c.want, c.ok)
		}
	}
}

func TestFindToken(t *testing.T) {
	var m Mime
	cases := []struct{ hdr, name, want string }{
		{"attachment; filename=\"a b.txt\"", "filename", "a b.txt"},
		{"attachment; filename=plain.txt ; size=3", "filename", "plain.txt"},
		{"text/plain; charset=utf-8; name=\"x\\\"y\"", "name", "x\\\"y"},
		{"attachment; filename*0=a; filename*1=b; filename*2=c", "filename", "abc"},
		{"attachment", "filename", ""},
	}
	for _, c := range cases {
		v, _ := m.findToken([]byte(c.hdr), c.name)
		if string(v) != c.want {
			t.Errorf("%q %s: %q, want %q", c.hdr, c.name, v, c.want)
		}
	}
}

func TestConfigureYAML(t *testing.T) {
	c, err := config.Parse("t.yaml", []byte("%YAML 1.1\n---\napp-layer:\n  protocols:\n    smtp:\n"+
		"      raw-extraction: yes\n      max-tx: 10\n      mime:\n        decode-mime: no\n"+
		"        extract-urls-schemes: [http, HTTPS, ftp://]\n        log-url-scheme: yes\n"+
		"        body-md5: yes\n        header-value-depth: 100\n"+
		"      inspected-tracker:\n        content-limit: 1kb\n        content-inspect-window: 512\n"))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := c.Get("app-layer.protocols.smtp")
	got, err := configure(n)
	if err != nil {
		t.Fatal(err)
	}
	if got.DecodeMIME || !got.RawExtraction || got.MaxTx != 10 || !got.LogURLScheme || !got.BodyMD5 ||
		got.HeaderValueDepth != 100 || got.ContentLimit != 1024 || got.ContentInspectWindow != 512 ||
		got.ContentInspectMinSize != 32768 || len(got.URLSchemes) != 3 || string(got.URLSchemes[1]) != "https://" ||
		string(got.URLSchemes[2]) != "ftp://" {
		t.Fatalf("%+v", got)
	}
}
