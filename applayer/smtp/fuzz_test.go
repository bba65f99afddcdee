package smtp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
)

// FuzzSMTP runs a session through one state: the input is "C:" and "S:" lines (client and
// server data) handed in random-sized segments chosen by the input's first bytes, with the
// framework's handling of the unconsumed rest, transactions freed as they complete. The
// parser must not panic, must consume within its data, and must stay within its bounds.
func FuzzSMTP(f *testing.F) {
	for _, s := range smtpSeeds() {
		f.Add(s)
	}
	f.Fuzz(fuzzSMTP)
}

func fuzzSMTP(t *testing.T, in []byte) {
	if len(in) < 2 {
		return
	}
	splits := in[:2]
	in = in[2:]
	cfg := DefaultConfig()
	cfg.BodyMD5 = splits[0]&1 != 0
	cfg.RawExtraction = splits[0]&2 != 0
	cfg.DecodeMIME = splits[0]&4 == 0
	cfg.MaxTx = 16
	cfg.ContentLimit = 1024
	p := NewPool(cfg)
	s := p.NewState()
	var pend [2][]byte
	step := 0
	for _, l := range bytes.SplitAfter(in, []byte{'\n'}) {
		dir := applayer.Dir(0)
		if bytes.HasPrefix(l, []byte("S:")) {
			dir, l = 1, l[2:]
		} else {
			l = bytes.TrimPrefix(l, []byte("C:"))
		}
		for len(l) > 0 {
			n := min(1+int(splits[step%2]>>1)%13, len(l))
			step++
			buf := append(pend[dir], l[:n]...)
			l = l[n:]
			r := s.Parse(dir, buf, 0)
			if r.Err != nil {
				p.Put(s)
				return // the framework disables the app layer
			}
			if r.Consumed < 0 || r.Consumed > len(buf) {
				t.Fatalf("consumed %d of %d", r.Consumed, len(buf))
			}
			pend[dir] = append(pend[dir][:0], buf[r.Consumed:]...)
			if len(pend[dir]) > lineLimit+1 {
				t.Fatalf("%d bytes held", len(pend[dir]))
			}
			checkBounds(t, s, cfg)
			if n := s.TxCount(); n > 0 && s.Tx(n-1).Done {
				s.FreeTxs(s.Tx(n - 1).data.ID)
			}
		}
	}
	p.Put(s)
}

func checkBounds(t *testing.T, s *State, cfg *Config) {
	for i := range s.TxCount() {
		tx := s.Tx(i)
		if tx.nRcpt > MaxRcptTo || len(tx.MailFrom) > 65535 {
			t.Fatal("unbounded tx")
		}
		for _, f := range tx.Files() {
			if len(f.Data) > int(cfg.ContentLimit) {
				t.Fatalf("file data %d over the limit", len(f.Data))
			}
		}
		if m := tx.Mime; m != nil && (m.nHeaders > MaxHeaders || m.nURL > MaxURLs || len(m.decodedLine) > 2*mimeMaxDecodedLine+lineLimit) {
			t.Fatal("unbounded mime state")
		}
	}
	if s.TxCount() > int(cfg.MaxTx)+1 {
		t.Fatalf("%d live txs", s.TxCount())
	}
}

// FuzzMIME hands the MIME parser lines split at LF (and, by the first byte, some at CR
// alone), as SMTP's data mode does.
func FuzzMIME(f *testing.F) {
	for _, s := range mimeSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 1 {
			return
		}
		cfg := DefaultConfig()
		cfg.BodyMD5 = in[0]&1 != 0
		cfg.LogURLScheme = in[0]&2 != 0
		cfg.URLSchemes = append(cfg.URLSchemes, []byte("https://"))
		var m Mime
		m.reset(cfg)
		for _, l := range bytes.SplitAfter(in[1:], []byte{'\n'}) {
			ln := bytes.TrimRight(l, "\r\n")
			m.parseLine(ln, l)
			if len(m.out) > 3*len(l)+4 {
				t.Fatalf("%d bytes out of a %d-byte line", len(m.out), len(l))
			}
		}
		m.complete()
		if m.nHeaders > MaxHeaders || m.nURL > MaxURLs || m.nAtt > MaxAttachments || m.nBound > MaxBoundaries {
			t.Fatal("unbounded")
		}
	})
}

func smtpSeeds() map[string][]byte {
	session := func(ctl string, lines ...string) []byte {
		b := []byte(ctl)
		for _, l := range lines {
			b = append(b, l...)
		}
		return b
	}
	return map[string][]byte{
		"mail": session("\x00\x10", "S:"+welcome, "C:EHLO x.org\r\n", "S:250-x\r\nS:250 PIPELINING\r\n",
			"C:MAIL FROM:<a@b>\r\nC:RCPT TO:<c@d>\r\nC:DATA\r\n", "S:250 ok\r\nS:250 ok\r\nS:354 go\r\n",
			"C:"+multipart, "C:.\r\n", "S:250 queued\r\n", "C:QUIT\r\n", "S:221 bye\r\n"),
		"starttls": session("\x03\x05", "S:"+welcome, "C:EHLO a\r\nC:STARTTLS\r\n", "S:250 a\r\nS:220 go\r\n", "C:\x16\x03\x01\x00\x05hello"),
		"bdat":     session("\x01\x07", "S:"+welcome, "C:BDAT 5\r\nC:abc\r\n", "S:250 ok\r\n"),
		"raw":      session("\x06\x02", "S:"+welcome, "C:DATA\r\n", "S:354 go\r\n", "C:Subject: x\r\n\r\nbody\r\n.\r\n"),
		"longline": session("\x00\xff", "C:HELO "+string(bytes.Repeat([]byte{'a'}, 4200))+"\r\nC:QUIT\r\n"),
		"badreply": session("\x00\x02", "S:99\r\n"),
	}
}

func mimeSeeds() map[string][]byte {
	return map[string][]byte{
		"multipart": append([]byte{0}, multipart...),
		"md5-qp":    append([]byte{3}, "Content-Transfer-Encoding: quoted-printable\r\n\r\n=4\r\n=\r\nhttps://x.org/=3D\r\n"...),
		"encap":     append([]byte{0}, "Content-Type: message/rfc822\r\n\r\nSubject: inner\r\n\r\nbody http://a.b\r\n"...),
	}
}

// TestWriteFuzzSeeds checks the seeds under testdata/fuzz (Go's corpus format);
// MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	for name, seeds := range map[string]map[string][]byte{"FuzzSMTP": smtpSeeds(), "FuzzMIME": mimeSeeds()} {
		dir := filepath.Join("testdata", "fuzz", name)
		keys := make([]string, 0, len(seeds))
		for k := range seeds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			path := filepath.Join(dir, k)
			content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seeds[k])
			if os.Getenv("MEERKAT_WRITE_SEEDS") != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != content {
				t.Errorf("seed %s/%s missing or stale (run with MEERKAT_WRITE_SEEDS=1): %v", name, k, err)
			}
		}
	}
}
