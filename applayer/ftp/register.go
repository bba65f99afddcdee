package ftp

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// probeServer is FTPServerProbingParser on the first 5 to-client bytes (min and max depth
// 5): "220" then a space or '-', and a line end after them. Suricata also requires the
// client side to be FTP or unknown after more than 4 bytes, which a prober here cannot see.
func probeServer(b []byte) applayer.ProbeResult {
	if len(b) < 5 {
		return applayer.ProbeNeedMore
	}
	if b[0] != '2' || b[1] != '2' || b[2] != '0' || b[3] != ' ' && b[3] != '-' {
		return applayer.ProbeFail
	}
	if indexByte(b[4:], '\n') >= 0 {
		return applayer.ProbeMatch
	}
	return applayer.ProbeNeedMore
}

// Parser is FTP's registration (RegisterFTPParsers, FTPRegisterPatternsForProtocolDetection):
// "220 (" to the client, FEAT, "USER " (case-sensitive), "PASS " and "PORT " to the server,
// and the server banner prober on port 21.
var Parser = &applayer.Parser{
	Proto:   applayer.ProtoFTP,
	IPProto: 6,
	Patterns: [2][]applayer.Pattern{
		flow.ToServer: {
			{Bytes: []byte("FEAT"), Depth: 4, NoCase: true},
			{Bytes: []byte("USER "), Depth: 5},
			{Bytes: []byte("PASS "), Depth: 5, NoCase: true},
			{Bytes: []byte("PORT "), Depth: 5, NoCase: true},
		},
		flow.ToClient: {{Bytes: []byte("220 ("), Depth: 5, NoCase: true}},
	},
	Probe:     [2]applayer.ProbeFunc{flow.ToClient: probeServer},
	ProbeMin:  5,
	ProbeMax:  5,
	Ports:     "21",
	Configure: Configure,
	NewPool: func(cfg any) applayer.Pool {
		c, _ := cfg.(*Settings)
		return NewPool(c)
	},
	Complete: [2]uint8{1, 1},
	Events:   EventNames,
}

func init() {
	applayer.Register(Parser)
	registerDetect()
}

// commandBytes are the command names as the ftp.command buffer hands them out.
var commandBytes = func() (b [len(commands)][]byte) {
	for i, c := range commands {
		b[i] = []byte(c.name)
	}
	return b
}()

func asTx(tx applayer.Tx) (*Tx, bool) {
	t, ok := tx.(*Tx)
	return t, ok && t.code != CmdUnknown
}

// registerDetect registers FTP's buffers and keywords (src/detect-ftp-*.c,
// src/detect-ftpbounce.c).
func registerDetect() {
	ts := [2]bool{flow.ToServer: true}
	tc := [2]bool{flow.ToClient: true}
	both := [2]bool{true, true}
	done := [2]uint8{1, 1}
	applayer.RegisterBuffer(applayer.Buffer{Name: "ftp.command", Proto: applayer.ProtoFTP, Dirs: ts, Progress: done,
		Get: func(tx applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t, ok := asTx(tx)
			if !ok || i != 0 {
				return nil, false
			}
			return commandBytes[t.cmdIdx], true
		}})
	applayer.RegisterBuffer(applayer.Buffer{Name: "ftp.command_data", Proto: applayer.ProtoFTP, Dirs: ts, Progress: done,
		Get: func(tx applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t, ok := asTx(tx)
			if !ok || i != 0 {
				return nil, false
			}
			return t.CommandData()
		}})
	reply := func(code bool) func(applayer.Tx, applayer.Dir, int, *applayer.GetCtx) ([]byte, bool) {
		return func(tx applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t, ok := asTx(tx)
			if !ok || i >= len(t.replies) {
				return nil, false
			}
			c, text, _ := t.Reply(i)
			if code {
				return c, true
			}
			return text, true
		}
	}
	applayer.RegisterBuffer(applayer.Buffer{Name: "ftp.reply", Proto: applayer.ProtoFTP, Dirs: tc, Progress: done, Multi: true, Get: reply(false)})
	applayer.RegisterBuffer(applayer.Buffer{Name: "ftp.completion_code", Proto: applayer.ProtoFTP, Dirs: tc, Progress: done, Multi: true, Get: reply(true)})
	applayer.RegisterValue(applayer.Value{Name: "ftp.dynamic_port", Proto: applayer.ProtoFTP, Dirs: both, Progress: done, Max: 0xffff,
		Get: func(tx applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) (uint64, bool) {
			t, ok := asTx(tx)
			if !ok || i != 0 || t.DynPort == 0 {
				return 0, false
			}
			return uint64(t.DynPort), true
		}})
	applayer.RegisterKeyword(applayer.Keyword{Name: "ftp.mode", Proto: applayer.ProtoFTP, Dirs: both, Progress: done,
		Compile: func(v string, _ bool) (applayer.TxMatch, error) {
			var active bool
			switch strings.ToLower(strings.TrimSpace(v)) { // SCFTPParseMode
			case "active":
				active = true
			case "passive":
			default:
				return nil, fmt.Errorf("ftp.mode: invalid value %q (active or passive)", v)
			}
			return func(tx applayer.Tx, _ applayer.Dir, _ *applayer.GetCtx) bool {
				t, ok := asTx(tx)
				return ok && t.DynPort != 0 && t.Active == active
			}, nil
		}})
	applayer.RegisterKeyword(applayer.Keyword{Name: "ftp.reply_received", Proto: applayer.ProtoFTP, Dirs: tc,
		Compile: func(v string, _ bool) (applayer.TxMatch, error) {
			var want bool
			switch strings.ToLower(strings.TrimSpace(v)) { // SCFTPParseReplyReceived
			case "true", "1", "yes", "on":
				want = true
			case "false", "0", "no", "off":
			default:
				return nil, fmt.Errorf("ftp.reply_received: invalid value %q", v)
			}
			return func(tx applayer.Tx, _ applayer.Dir, _ *applayer.GetCtx) bool {
				t, ok := asTx(tx)
				return ok && t.Done == want
			}, nil
		}})
	applayer.RegisterKeyword(applayer.Keyword{Name: "ftpbounce", Proto: applayer.ProtoFTP, Dirs: ts, Progress: done,
		Compile: func(string, bool) (applayer.TxMatch, error) {
			return func(tx applayer.Tx, _ applayer.Dir, _ *applayer.GetCtx) bool {
				t, ok := tx.(*Tx)
				if !ok || t.st == nil {
					return false
				}
				line, port := t.st.PortLine()
				return port && Bounce(line, t.st.ClientIP(), 0)
			}, nil
		}})
}
