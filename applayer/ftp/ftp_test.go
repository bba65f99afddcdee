package ftp

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

func newState(cfg *Settings) *State { return NewPool(cfg).NewState(nil) }

// feed hands data to dir as the framework does (the unconsumed rest comes again first).
type feeder struct {
	s    *State
	pend [2][]byte
	err  error
}

func (f *feeder) feed(dir applayer.Dir, b string) applayer.Result {
	f.pend[dir] = append(f.pend[dir], b...)
	r := f.s.Parse(dir, f.pend[dir], 0)
	if r.Err != nil {
		f.err = r.Err
		f.pend[dir] = f.pend[dir][:0]
		return r
	}
	f.pend[dir] = append(f.pend[dir][:0], f.pend[dir][min(r.Consumed, len(f.pend[dir])):]...)
	return r
}

func cmdOf(t *Tx) string { n, _ := t.Command(); return n }

// TestCommands is FTPParserTest01/11/12 (the state's last command) and the command table:
// canonical upper-case names whatever the case written, unknown lines make no tx, the first
// pattern ending in the line wins (MPM search: "XMKD" is MKD).
func TestCommands(t *testing.T) {
	s := newState(nil)
	f := &feeder{s: s}
	f.feed(flow.ToServer, "PORT 192,168,1,1,0,80\r\n")
	if s.command != CmdPORT {
		t.Fatalf("FTPParserTest01: command %d", s.command)
	}
	f.feed(flow.ToServer, "RETR\r\n")
	f.feed(flow.ToClient, "227 OK\r\n")
	if s.command != CmdRETR {
		t.Fatalf("FTPParserTest11: command %d", s.command)
	}
	f.feed(flow.ToServer, "user anonymous\r\nBLAH\r\nXMKD dir\npass x\r\n")
	var got []string
	for _, tx := range s.txs {
		got = append(got, cmdOf(tx))
	}
	if want := "PORT RETR USER MKD PASS"; strings.Join(got, " ") != want {
		t.Errorf("commands %q, want %q", got, want)
	}
	if r, _ := s.txs[2].Request(); string(r) != "user anonymous" {
		t.Errorf("request %q", r)
	}
	// ftp.command_data ends with the NUL CopyCommandLine adds (request_length counts it).
	if d, ok := s.txs[2].CommandData(); !ok || string(d) != "anonymous\x00" {
		t.Errorf("command_data %q %v", d, ok)
	}
	if d, ok := s.txs[2].EVECommandData(); !ok || string(d) != "anonymous" {
		t.Errorf("EVE command_data %q %v", d, ok)
	}
	if _, ok := s.txs[1].CommandData(); ok {
		t.Errorf("RETR without argument has command_data")
	}
}

// TestReplies: a reply completes the oldest open tx; 1xx preliminary replies keep it open;
// lines are split into code and text (150 then 226 for RETR); a multi-line "230-" line has no code; progress ts 1 at
// once, tc 1 once the reply is complete.
func TestReplies(t *testing.T) {
	s := newState(nil)
	f := &feeder{s: s}
	f.feed(flow.ToServer, "USER a\r\nRETR f.txt\r\n")
	if p := s.txs[0].td.Progress; p != [2]uint8{1, 0} {
		t.Fatalf("progress before reply %v", p)
	}
	f.feed(flow.ToClient, "331 Please specify the password.\r\n150 Opening\r\n")
	if !s.txs[0].Done || s.txs[1].Done || s.txs[0].td.Progress != [2]uint8{1, 1} {
		t.Fatalf("after 331/150: done %v %v", s.txs[0].Done, s.txs[1].Done)
	}
	f.feed(flow.ToClient, "226 Transfer complete.\r\n230-multi\r\n")
	tx := s.txs[1]
	if !tx.Done || tx.Replies() != 3 {
		t.Fatalf("RETR done %v replies %d", tx.Done, tx.Replies())
	}
	code, text, _ := tx.Reply(1)
	if string(code) != "226" || string(text) != "Transfer complete." {
		t.Errorf("reply %q %q", code, text)
	}
	// All txs done: the 230- line went to the last one, with no code.
	code, text, _ = tx.Reply(2)
	if len(code) != 0 || string(text) != "230-multi" {
		t.Errorf("multi-line %q %q", code, text)
	}
	// A reply with no tx at all makes a to-client tx without command.
	s2 := newState(nil)
	s2.Parse(flow.ToClient, []byte("220 (vsFTPd 3.0.3)\r\n"), 0)
	if len(s2.txs) != 1 || s2.txs[0].code != CmdUnknown || !s2.txs[0].Done {
		t.Errorf("banner tx %+v", s2.txs)
	}
}

// TestPorts: the port parsers of rust/src/ftp/mod.rs (their unit tests' values) and the
// dynamic port and mode they give the tx.
func TestPorts(t *testing.T) {
	for _, tc := range []struct {
		fn   func([]byte) uint16
		in   string
		want uint16
	}{
		{parsePASV, "227 Entering Passive Mode (212,27,32,66,221,243).", 56819},
		{parsePASV, "227 Entering Passive Mode (212,27,32,66,221,243)", 56819},
		{parseEPSV, "229 Entering Extended Passive Mode (|||48758|).", 48758},
		{parseEPSV, "229 Entering Extended Passive Mode (|||48758|)", 48758},
		{parseEPRT, "EPRT |2|2a01:e34:ee97:b130:8c3e:45ea:5ac6:e301|41813|", 41813},
		{parsePORT, "PORT 192,168,0,13,234,10", 59914},
		{parsePASV, "227 Entering Passive Mode (212,27,32,66,257,243).", 0},
		{parsePASV, "227 Entering Passive Mode (212,27,32,66,255,65535).", 0},
		{parseEPRT, "EPRT |2|2a01:e34:ee97:b130:8c3e:45ea:5ac6:e301|81813|", 0},
		{parsePORT, "PORT 212,27,32,66,257,243", 0},
		{parsePORT, "PORT 212,27,32,66,255,65535", 0},
	} {
		if got := tc.fn([]byte(tc.in)); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.in, got, tc.want)
		}
	}
	s := newState(nil)
	f := &feeder{s: s}
	f.feed(flow.ToServer, "PORT 192,168,0,13,234,10\r\n")
	f.feed(flow.ToClient, "200 PORT command successful.\r\n")
	if tx := s.txs[0]; tx.DynPort != 59914 || !tx.Active || s.dynPort != 59914 {
		t.Errorf("PORT: %d %v", tx.DynPort, tx.Active)
	}
	f.feed(flow.ToServer, "PASV\r\n")
	f.feed(flow.ToClient, "227 Entering Passive Mode (212,27,32,66,221,243).\r\n")
	if tx := s.txs[1]; tx.DynPort != 56819 || tx.Active {
		t.Errorf("PASV: %d %v", tx.DynPort, tx.Active)
	}
}

// TestExpectation: a transfer command after a negotiated port announces the data
// connection (AppLayerExpectationCreate's arguments), with the file name after "RETR "; a
// transfer without a port raises file_before_port, RETR without name file_without_name.
func TestExpectation(t *testing.T) {
	var got []string
	old := Expect
	Expect = func(_ *flow.Flow, dir applayer.Dir, dport uint16, cmd *TransferCmd) error {
		got = append(got, fmt.Sprintf("%d %d %s %q", dir, dport, CommandName(cmd.Cmd), cmd.FileName))
		return nil
	}
	defer func() { Expect = old }()
	s := NewPool(nil).NewState(&flow.Flow{})
	f := &feeder{s: s}
	f.feed(flow.ToServer, "RETR a\r\n")
	if !s.txs[0].td.Events.Has(EventFileBeforePort) {
		t.Errorf("no file_before_port")
	}
	f.feed(flow.ToServer, "PASV\r\n")
	f.feed(flow.ToClient, "500 x\r\n227 Entering Passive Mode (1,2,3,4,0,21).\r\n")
	f.feed(flow.ToServer, "RETR file.bin\r\nRETR\r\n")
	if len(got) != 1 || got[0] != `1 21 RETR "file.bin"` {
		t.Errorf("expectations %q", got)
	}
	if !s.txs[len(s.txs)-1].td.Events.Has(EventFileWithoutName) {
		t.Errorf("no file_without_name")
	}
}

// TestLongLine: a line of max-line-length or more is truncated with
// request_command_too_long, the rest up to its LF discarded.
func TestLongLine(t *testing.T) {
	s := newState(&Settings{MaxTx: 1024, MaxLineLen: 16})
	f := &feeder{s: s}
	f.feed(flow.ToServer, "STOR "+strings.Repeat("a", 30))
	if len(s.txs) != 1 || !s.txs[0].requestTruncated || !s.txs[0].td.Events.Has(EventRequestCommandTooLong) {
		t.Fatalf("txs %d", len(s.txs))
	}
	if r, _ := s.txs[0].Request(); len(r) != 16 {
		t.Errorf("request %q", r)
	}
	f.feed(flow.ToServer, strings.Repeat("b", 40)) // still the same line: dropped, bounded
	f.feed(flow.ToServer, "bb\r\nQUIT\r\n")        // its end and what came with it: discarded
	f.feed(flow.ToServer, "NOOP\r\n")
	if n := len(s.txs); n != 2 || cmdOf(s.txs[1]) != "NOOP" {
		t.Errorf("%d txs, last %q", n, cmdOf(s.txs[len(s.txs)-1]))
	}
	if len(f.pend[flow.ToServer]) != 0 {
		t.Errorf("pending %d bytes", len(f.pend[flow.ToServer]))
	}
}

// TestMaxTx: beyond max-tx open transactions the oldest open one is closed with
// too_many_transactions and parsing fails (FTPTransactionCreate).
func TestMaxTx(t *testing.T) {
	s := newState(&Settings{MaxTx: 2, MaxLineLen: 4096})
	r := s.Parse(flow.ToServer, []byte("NOOP\r\nNOOP\r\nNOOP\r\nNOOP\r\n"), 0)
	if r.Err == nil || !s.txs[0].td.Events.Has(EventTooManyTransactions) || !s.txs[0].Done {
		t.Fatalf("%+v", r)
	}
}

// TestBounce is DetectFtpbounceMatchArgs: a PORT address other than the client's matches.
func TestBounce(t *testing.T) {
	c := netip.MustParseAddr("192.168.1.1")
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"PORT 192,168,1,1,0,80", false},
		{"PORT 192,168,1,2,0,80", true},
		{"PORT 10 ,0,0,1,0,80", true},
		{"PORT 10 , 0,0,1,0,80", false}, // white space after a comma is not skipped
		{"PORT 1,2", false},
		{"PORT 999,1,1,1,0,80", false},
	} {
		if got := Bounce([]byte(tc.line), c, 0); got != tc.want {
			t.Errorf("%q: %v", tc.line, got)
		}
	}
}

// TestDetect: the registered buffers and keywords.
func TestDetect(t *testing.T) {
	s := newState(nil)
	f := &feeder{s: s}
	f.feed(flow.ToServer, "PORT 192,168,0,13,234,10\r\n")
	f.feed(flow.ToClient, "200 PORT command successful.\r\n")
	tx := s.txs[0]
	get := func(name string, dir applayer.Dir, i int) string {
		for _, id := range applayer.BuffersNamed(name) {
			if b := applayer.BufferOf(id); b.Proto == applayer.ProtoFTP {
				v, ok := b.Get(tx, dir, i, nil)
				if !ok {
					return "<none>"
				}
				return string(v)
			}
		}
		return "<unregistered>"
	}
	if got := get("ftp.command", flow.ToServer, 0); got != "PORT" {
		t.Errorf("ftp.command %q", got)
	}
	if got := get("ftp.completion_code", flow.ToClient, 0); got != "200" {
		t.Errorf("ftp.completion_code %q", got)
	}
	if got := get("ftp.reply", flow.ToClient, 0); got != "PORT command successful." {
		t.Errorf("ftp.reply %q", got)
	}
	if got := get("ftp.reply", flow.ToClient, 1); got != "<none>" {
		t.Errorf("ftp.reply[1] %q", got)
	}
	if v, ok := applayer.ValueFor("ftp.dynamic_port", applayer.ProtoFTP).Get(tx, flow.ToClient, 0, nil); !ok || v != 59914 {
		t.Errorf("ftp.dynamic_port %d %v", v, ok)
	}
	for _, kc := range []struct {
		kw, arg string
		want    bool
	}{{"ftp.mode", "active", true}, {"ftp.mode", "passive", false}, {"ftp.reply_received", "yes", true},
		{"ftp.reply_received", "no", false}} {
		m, err := applayer.KeywordFor(kc.kw, applayer.ProtoFTP).Compile(kc.arg, false)
		if err != nil {
			t.Fatal(err)
		}
		if m(tx, flow.ToClient, nil) != kc.want {
			t.Errorf("%s:%s != %v", kc.kw, kc.arg, kc.want)
		}
	}
	if _, err := applayer.KeywordFor("ftp.mode", applayer.ProtoFTP).Compile("both", false); err == nil {
		t.Error("ftp.mode:both loaded")
	}
}

// TestAllocs: a warm state parsing another session's commands and replies allocates nothing.
func TestAllocs(t *testing.T) {
	p := NewPool(nil)
	req := []byte("USER anonymous\r\nPASS x\r\nPORT 192,168,0,13,234,10\r\nNOOP\r\n")
	rsp := []byte("331 Please\r\n230 ok\r\n200 PORT ok\r\n200 NOOP\r\n")
	run := func() {
		s := p.NewState(nil)
		s.Parse(flow.ToServer, req, 0)
		s.Parse(flow.ToClient, rsp, 0)
		s.FreeTxs(^uint64(0))
		p.Put(s)
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per session", n)
	}
}

func fuzzSeeds() map[string][]byte {
	both := func(ts, tc string) []byte {
		b := binary.BigEndian.AppendUint16(nil, uint16(len(ts)))
		return append(append(b, ts...), tc...)
	}
	return map[string][]byte{
		"session": both("USER a\r\nPASS b\r\nPASV\r\nRETR f\r\nQUIT\r\n",
			"220 (vsFTPd)\r\n331 p\r\n230 ok\r\n227 Entering Passive Mode (1,2,3,4,5,6).\r\n150 go\r\n226 done\r\n221 bye\r\n"),
		"active": both("PORT 10,0,0,1,4,1\r\nEPRT |1|10.0.0.1|1025|\r\nSTOR x\r\nEPSV\r\n",
			"200 ok\r\n200 ok\r\n150 ok\r\n229 Entering Extended Passive Mode (|||48758|).\r\n"),
		"long":    both(strings.Repeat("A", 5000)+"\nNOOP\n", "230-"+strings.Repeat("x", 5000)+"\n"),
		"lowcase": both("user x\nauth_tls\r\n", "234 go\r\n"),
	}
}

// FuzzFTP feeds both directions in chunks (the first two bytes give the to-server length):
// no panic, bounded lines.
func FuzzFTP(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	p := NewPool(&Settings{MaxTx: 64, MaxLineLen: 512})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		n := min(int(binary.BigEndian.Uint16(in)), len(in)-2)
		dirs := [2][]byte{in[2 : 2+n], in[2+n:]}
		s := p.NewState(nil)
		fd := &feeder{s: s}
		for round := 0; round < 64 && (len(dirs[0]) > 0 || len(dirs[1]) > 0) && fd.err == nil; round++ {
			d := applayer.Dir(round % 2)
			c := min(1+round*11%17, len(dirs[d]))
			fd.feed(d, string(dirs[d][:c]))
			dirs[d] = dirs[d][c:]
			if len(fd.pend[d]) > 512+17 {
				t.Fatalf("%d bytes pending", len(fd.pend[d]))
			}
		}
		for _, tx := range s.txs {
			if r, _ := tx.Request(); len(r) > 512 {
				t.Fatalf("request of %d bytes", len(r))
			}
		}
		s.FreeTxs(^uint64(0))
		p.Put(s)
	})
}

// TestWriteFuzzSeeds keeps testdata/fuzz/FuzzFTP in step with fuzzSeeds (MEERKAT_WRITE_SEEDS=1
// rewrites it).
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzFTP")
	seeds := fuzzSeeds()
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seeds[name])
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
			t.Errorf("seed %s missing or stale (run with MEERKAT_WRITE_SEEDS=1): %v", name, err)
		}
	}
}
