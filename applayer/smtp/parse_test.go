package smtp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

const (
	ts = flow.ToServer
	tc = flow.ToClient
)

// step is one call of Parse and the state it must leave, as Suricata's SMTPParserTest*
// check cmds_cnt, cmds_idx, cmds[0] and parser_state after each AppLayerParserParse.
type step struct {
	dir     applayer.Dir
	data    string
	cmds    int
	idx     int
	cmd0    uint8 // cmds[0] when cmds > 0
	pstate  uint8
	change  bool
	wantErr bool
}

func newState(cfg *Config) *State {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	return NewPool(cfg).NewState()
}

// feed hands data to the parser as the framework does: the unconsumed rest comes again
// with the next data.
func feed(s *State, dir applayer.Dir, pending *[]byte, data []byte) applayer.Result {
	buf := append(*pending, data...)
	r := s.Parse(dir, buf, 0)
	if r.Err == nil {
		*pending = append((*pending)[:0], buf[r.Consumed:]...)
	}
	return r
}

func runSteps(t *testing.T, s *State, steps []step) {
	t.Helper()
	var pend [2][]byte
	for i, st := range steps {
		r := feed(s, st.dir, &pend[st.dir], []byte(st.data))
		if (r.Err != nil) != st.wantErr {
			t.Fatalf("step %d: err %v, want error %v", i, r.Err, st.wantErr)
		}
		if st.wantErr {
			continue
		}
		if len(s.cmds) != st.cmds || s.cmdsIdx != st.idx || s.parserState != st.pstate {
			t.Fatalf("step %d: cmds %v idx %d state %#x, want %d cmds idx %d state %#x",
				i, s.cmds, s.cmdsIdx, s.parserState, st.cmds, st.idx, st.pstate)
		}
		if st.cmds > 0 && s.cmds[0] != st.cmd0 {
			t.Fatalf("step %d: cmds[0] %d, want %d", i, s.cmds[0], st.cmd0)
		}
		if (r.Change != nil) != st.change {
			t.Fatalf("step %d: change %v, want %v", i, r.Change, st.change)
		}
		if r.Change != nil && r.Change.Expect != applayer.ProtoTLS {
			t.Fatalf("step %d: change expects %v", i, r.Change.Expect)
		}
	}
}

const welcome = "220 mx.google.com ESMTP d15sm986283wfl.6\r\n"

// TestStartTLS is SMTPParserTest01: the banner, EHLO and its multi-line reply, STARTTLS and
// 220: data mode and a protocol change to TLS.
func TestStartTLS(t *testing.T) {
	s := newState(nil)
	runSteps(t, s, []step{
		{dir: tc, data: welcome, pstate: psFirstReply},
		{dir: ts, data: "EHLO [192.168.0.158]\r\n", cmds: 1, cmd0: cmdOther, pstate: psFirstReply},
		{dir: tc, data: "250-mx.google.com at your service, [117.198.115.50]\r\n250-SIZE 35882577\r\n250-8BITMIME\r\n250-STARTTLS\r\n250 ENHANCEDSTATUSCODES\r\n", pstate: psFirstReply},
		{dir: ts, data: "STARTTLS\r\n", cmds: 1, cmd0: cmdStartTLS, pstate: psFirstReply},
		{dir: tc, data: "220 2.0.0 Ready to start TLS\r\n", pstate: psFirstReply | psDataMode, change: true},
	})
	if h, ok := s.Helo(); !ok || string(h) != "[192.168.0.158]" {
		t.Fatalf("helo %q %v", h, ok)
	}
	if len(s.txs) != 1 || !s.txs[0].Done {
		t.Fatalf("the STARTTLS tx is done: %d txs", len(s.txs))
	}
	// a refused change raises FAILED_PROTOCOL_CHANGE on the current tx
	s.ProtocolChangeRefused(tc)
	if !s.txs[0].data.Events.Has(EvFailedProtocolChange) {
		t.Fatal("no FAILED_PROTOCOL_CHANGE")
	}
}

// TestMailTransaction is the first mail of SMTPParserTest02: MAIL FROM, RCPT TO, DATA, 354,
// the message, ".", 250; then QUIT and 221. One tx per mail transaction; QUIT joins the
// done tx while it is live (NoNewTx).
func TestMailTransaction(t *testing.T) {
	s := newState(nil)
	runSteps(t, s, []step{
		{dir: tc, data: welcome, pstate: psFirstReply},
		{dir: ts, data: "EHLO boo.com\r\n", cmds: 1, cmd0: cmdOther, pstate: psFirstReply},
		{dir: tc, data: "250-poona_slack_vm1.localdomain\r\n250-PIPELINING\r\n250 DSN\r\n", pstate: psFirstReply | psPipeliningSrv},
		{dir: ts, data: "MAIL FROM:<asdff@asdf.com> SIZE=100\r\n", cmds: 1, cmd0: cmdOther, pstate: psFirstReply | psPipeliningSrv},
		{dir: tc, data: "250 2.1.0 Ok\r\n", pstate: psFirstReply | psPipeliningSrv},
		{dir: ts, data: "RCPT TO:bimbs@gmail.com\r\nRCPT TO: <two@x.org>\r\n", cmds: 2, cmd0: cmdOther, pstate: psFirstReply | psPipeliningSrv},
		{dir: tc, data: "250 2.1.5 Ok\r\n250 2.1.5 Ok\r\n", pstate: psFirstReply | psPipeliningSrv},
		// pipelining server: DATA enters data mode at once
		{dir: ts, data: "DATA\r\n", cmds: 1, cmd0: cmdData, pstate: psFirstReply | psPipeliningSrv | psDataMode},
		{dir: tc, data: "354 End data with <CR><LF>.<CR><LF>\r\n", pstate: psFirstReply | psPipeliningSrv | psDataMode},
		{dir: ts, data: "FROM:asdff@asdf.com\r\nSubject: test\r\n\r\nhello http://example.com/x world\r\n.\r\n", cmds: 1, cmd0: cmdDataMode, pstate: psFirstReply | psPipeliningSrv},
		{dir: tc, data: "250 2.0.0 Ok: queued as 6A1AF20BF2\r\n", pstate: psFirstReply | psPipeliningSrv},
		{dir: ts, data: "QUIT\r\n", cmds: 1, cmd0: cmdOther, pstate: psFirstReply | psPipeliningSrv},
		{dir: tc, data: "221 2.0.0 Bye\r\n", pstate: psFirstReply | psPipeliningSrv},
	})
	if len(s.txs) != 1 {
		t.Fatalf("%d txs, want 1", len(s.txs))
	}
	tx := s.txs[0]
	if !tx.Done || tx.data.Progress != [2]uint8{1, 1} {
		t.Fatalf("tx not done: %+v", tx.data.Progress)
	}
	if string(tx.MailFrom) != "<asdff@asdf.com>" {
		t.Fatalf("mail_from %q", tx.MailFrom)
	}
	r := tx.RcptTo()
	if len(r) != 2 || string(r[0]) != "bimbs@gmail.com" || string(r[1]) != "<two@x.org>" {
		t.Fatalf("rcpt_to %q", r)
	}
	if v, ok := tx.Mime.Header("subject"); !ok || string(v) != "test" {
		t.Fatalf("subject %q", v)
	}
	if v, ok := tx.Mime.Header("from"); !ok || string(v) != "asdff@asdf.com" {
		t.Fatalf("from %q", v)
	}
	if u := tx.Mime.URLs(); len(u) != 1 || string(u[0]) != "example.com/x" {
		t.Fatalf("urls %q", u)
	}
	// freed, the done tx is forgotten: the next QUIT starts a new tx with the flow's HELO
	// (the 8.0.6 extra QUIT tx of test smtp-keywords)
	s.FreeTxs(1)
	var pend []byte
	feed(s, ts, &pend, []byte("QUIT\r\n"))
	if len(s.txs) != 1 || s.txs[0].data.ID != 1 {
		t.Fatalf("QUIT after free: %d txs", len(s.txs))
	}
	if h, ok := s.txs[0].Helo(); !ok || string(h) != "boo.com" {
		t.Fatalf("QUIT tx helo %q", h)
	}
}

// TestEvents pins the events of SMTPProcessReply, SMTPProcessRequest and
// SMTPInsertCommandIntoCommandBuffer, each on the current tx.
func TestEvents(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		ev    uint8
	}{
		{"no welcome", []step{{dir: ts, data: "HELO a\r\n", cmds: 1, cmd0: cmdOther}}, EvNoServerWelcomeMessage},
		{"duplicate helo", []step{{dir: tc, data: welcome, pstate: psFirstReply},
			{dir: ts, data: "HELO a\r\nHELO b\r\n", cmds: 2, cmd0: cmdOther, pstate: psFirstReply}}, EvDuplicateFields},
		{"tls rejected", []step{{dir: tc, data: welcome, pstate: psFirstReply},
			{dir: ts, data: "STARTTLS\r\n", cmds: 1, cmd0: cmdStartTLS, pstate: psFirstReply},
			{dir: tc, data: "454 TLS not available\r\n", pstate: psFirstReply}}, EvTLSRejected},
		{"data rejected", []step{{dir: tc, data: welcome, pstate: psFirstReply},
			{dir: ts, data: "DATA\r\n", cmds: 1, cmd0: cmdData, pstate: psFirstReply},
			{dir: tc, data: "554 no\r\n", pstate: psFirstReply}}, EvDataCommandRejected},
		{"pipelined after DATA", []step{{dir: tc, data: welcome, pstate: psFirstReply},
			{dir: ts, data: "DATA\r\nNOOP\r\n", cmds: 2, cmd0: cmdData, pstate: psFirstReply}}, EvInvalidPipelinedSequence},
		{"banner not 220", []step{{dir: tc, data: "554 go away\r\n", pstate: psFirstReply},
			{dir: ts, data: "QUIT\r\n", cmds: 1, cmd0: cmdOther, pstate: psFirstReply}}, EvInvalidReply},
		{"second DATA", []step{{dir: tc, data: welcome, pstate: psFirstReply},
			{dir: ts, data: "DATA\r\nDATA\r\n", cmds: 1, cmd0: cmdData, pstate: psFirstReply}}, EvUnparsableContent},
		{"truncated line", []step{{dir: tc, data: welcome, pstate: psFirstReply},
			{dir: ts, data: "HELO " + strings.Repeat("a", 5000) + "\r\n", cmds: 1, cmd0: cmdOther, pstate: psFirstReply}}, EvTruncatedLine},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newState(nil)
			// the banner-only case has no tx when its event is raised: it goes to the next
			if c.ev == EvInvalidReply {
				runSteps(t, s, c.steps[:1])
				if len(s.txs) != 0 {
					t.Fatal("tx before a command")
				}
				return
			}
			runSteps(t, s, c.steps)
			found := false
			for _, tx := range s.txs {
				found = found || tx.data.Events.Has(c.ev)
			}
			if !found {
				t.Fatalf("event %s not raised", EventNames[c.ev])
			}
		})
	}
}

// TestReplyErrors: a reply shorter than 3 bytes or with a code not in smtp_reply_map is a
// parse error (SMTPProcessReply returns -1).
func TestReplyErrors(t *testing.T) {
	for _, r := range []string{"22\r\n", "999 what\r\n", "abc\r\n"} {
		s := newState(nil)
		res := s.Parse(tc, []byte(r), 0)
		if res.Err == nil {
			t.Errorf("%q: no error", r)
		}
	}
	// a lone LF as the first byte is skipped
	s := newState(nil)
	if res := s.Parse(tc, []byte("\n"+welcome), 0); res.Err != nil || s.parserState != psFirstReply {
		t.Fatalf("lone LF: %v %#x", res.Err, s.parserState)
	}
}

// TestIncomplete: a line without its LF is asked for again with one more byte
// (APP_LAYER_INCOMPLETE(consumed, len+1)).
func TestIncomplete(t *testing.T) {
	s := newState(nil)
	r := s.Parse(ts, []byte("HELO a\r\nMAIL FR"), 0)
	if r.Consumed != 8 || r.Needed != 8 {
		t.Fatalf("consumed %d needed %d, want 8, 8", r.Consumed, r.Needed)
	}
	// a 4096-byte line without LF is cut, the rest dropped until the LF
	s = newState(nil)
	r = s.Parse(ts, bytes.Repeat([]byte{'x'}, 5000), 0)
	if r.Consumed != 5000 || !s.discard[ts] {
		t.Fatalf("long line: consumed %d discard %v", r.Consumed, s.discard[ts])
	}
	r = s.Parse(ts, []byte("yyy\r\nHELO b\r\n"), 0)
	if h, _ := s.Helo(); r.Err != nil || string(h) != "b" {
		t.Fatalf("after discard: helo %q err %v", h, r.Err)
	}
}

// TestMaxTx: SMTPTransactionCreate fails once tx_cnt exceeds max-tx, a parse error.
func TestMaxTx(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxTx = 2
	s := newState(cfg)
	s.Parse(tc, []byte(welcome), 0)
	var err error
	n := 0
	for i := 0; i < 5 && err == nil; i++ {
		// each RSET answered 250 completes the tx; the next command opens another
		err = s.Parse(ts, []byte("MAIL FROM:<a@b>\r\nRSET\r\n"), 0).Err
		if err == nil {
			s.Parse(tc, []byte("250 ok\r\n250 ok\r\n"), 0)
			n++
		}
	}
	if err == nil || s.txCnt != 3 {
		t.Fatalf("err %v after %d txs (txCnt %d), want an error at the 4th", err, n, s.txCnt)
	}
}

// TestBDAT: BDAT's chunk is data mode for exactly its length (SMTPProcessCommandBDAT); a
// longer chunk is BDAT_CHUNK_LEN_EXCEEDED and a parse error.
func TestBDAT(t *testing.T) {
	s := newState(nil)
	s.Parse(tc, []byte(welcome), 0)
	if r := s.Parse(ts, []byte("BDAT 7 LAST\r\n"), 0); r.Err == nil {
		t.Fatal("BDAT with option is not a plain number: error")
	}
	s = newState(nil)
	s.Parse(tc, []byte(welcome), 0)
	r := s.Parse(ts, []byte("BDAT 7\r\nhello\r\n"), 0)
	if r.Err != nil || s.parserState&psDataMode != 0 || s.currentCommand != cmdBDAT {
		t.Fatalf("BDAT 7: err %v state %#x", r.Err, s.parserState)
	}
	s = newState(nil)
	s.Parse(tc, []byte(welcome), 0)
	r = s.Parse(ts, []byte("BDAT 3\r\nhello\r\n"), 0)
	if r.Err == nil || !s.txs[0].data.Events.Has(EvBDATChunkLenExceeded) {
		t.Fatalf("BDAT 3 with 7 bytes: err %v", r.Err)
	}
}

// TestProbe pins SMTPServerProbingParser (with the client side unknown) and SCValidateDomain.
func TestProbe(t *testing.T) {
	cases := []struct {
		in   string
		want applayer.ProbeResult
	}{
		{"220", applayer.ProbeNeedMore},
		{"220 mx.google.com ESMTP\r\n", applayer.ProbeMatch},
		{"220-mail.example.org hi\r\n", applayer.ProbeMatch},
		{"220 f\n", applayer.ProbeFail},                 // no dot: not a domain
		{"220 mx.google.com ESMTP", applayer.ProbeFail}, // no line end within max_depth
		{"221 mx.google.com\r\n", applayer.ProbeFail},
		{"220_mx.google.com\r\n", applayer.ProbeFail},
		{"220 1x.google.com\r\n", applayer.ProbeFail}, // a label starts with a letter
		{"220 mx-.google.com\r\n", applayer.ProbeFail},
	}
	for _, c := range cases {
		if got := ProbeServer([]byte(c.in)); got != c.want {
			t.Errorf("%q: %v, want %v", c.in, got, c.want)
		}
	}
}

// TestConfigure reads the suricata.yaml keys of SMTPConfigure.
func TestConfigure(t *testing.T) {
	c, err := configure(nil)
	if err != nil || !c.DecodeMIME || !c.DecodeBase64 || !c.DecodeQP || !c.ExtractURLs || c.BodyMD5 ||
		c.RawExtraction || c.MaxTx != 256 || c.ContentLimit != 100000 || c.ContentInspectMinSize != 32768 ||
		c.ContentInspectWindow != 4096 || len(c.URLSchemes) != 1 || string(c.URLSchemes[0]) != "http://" {
		t.Fatalf("defaults: %+v %v", c, err)
	}
}
