package tls

import (
	"errors"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/tls/ja"
	"github.com/meerkat-ids/meerkat/flow"
)

var (
	dirTS   = [2]bool{flow.ToServer: true}
	dirTC   = [2]bool{flow.ToClient: true}
	dirBoth = [2]bool{true, true}
)

func stateOf(tx applayer.Tx) *State {
	s, _ := tx.(*State)
	return s
}

// certConn is the side whose certificate a cert keyword inspects: the server's to the
// client, the client's to the server.
func certConn(s *State, dir applayer.Dir) *Conn {
	if dir == flow.ToClient {
		return &s.Server
	}
	return &s.Client
}

func certField(f func(c *Conn) []byte) func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
	return func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil {
			return nil, false
		}
		c := certConn(s, dir)
		if !c.HasCert {
			return nil, false
		}
		return f(c), true
	}
}

// random returns the 32-byte random of dir's side when the flag Suricata checks is set: the
// to-server buffer needs TLS_TS_RANDOM_SET, which the ServerHello sets, the to-client one
// TLS_TC_RANDOM_SET, set by the ClientHello (src/detect-tls-random.c).
func random(s *State, dir applayer.Dir) ([]byte, bool) {
	if dir == flow.ToServer {
		if s.Flags&FlagTSRandomSet == 0 {
			return nil, false
		}
		return s.Client.Random[:], true
	}
	if s.Flags&FlagTCRandomSet == 0 {
		return nil, false
	}
	return s.Server.Random[:], true
}

// JA4 returns the JA4 of the flow's ClientHello(s), computed into the state's buffer (valid
// until the next call or parse); without a ClientHello it is JA4 of nothing.
func (s *State) JA4() []byte {
	if !s.Client.helloSet {
		s.ja4Buf = ja.JA4(s.ja4Buf[:0], nil)
	} else {
		s.ja4Buf = ja.JA4(s.ja4Buf[:0], &s.Client.Hello)
	}
	return s.ja4Buf
}

// useJA3 is DetectJa3*Setup's check: a ja3.* / ja3s.* rule turns JA3 on (SSLEnableJA3) or
// fails to load when ja3-fingerprints is no.
func useJA3() error {
	if !EnableJA3() {
		return errors.New("ja3 support is not enabled")
	}
	return nil
}

// useJA4 is DetectJa4HashSetup's check (SSLEnableJA4; ja4-fingerprints: no refuses the rule).
func useJA4() error {
	if !EnableJA4() {
		return errors.New("ja4 support is not enabled")
	}
	return nil
}

// registerBuffers registers TLS's sticky buffers, its integer keyword and its own-grammar
// keywords (§2.6 of the reference; src/detect-tls*.c, src/detect-ssl-*.c, src/detect-ja*.c).
func registerBuffers() {
	p := applayer.ProtoTLS
	reg := func(name string, dirs [2]bool, prog [2]uint8, multi bool,
		get func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool)) {
		b := applayer.Buffer{Name: name, Proto: p, Dirs: dirs, Progress: prog, Multi: multi, Get: get}
		switch {
		case strings.HasPrefix(name, "ja3"):
			b.Use = useJA3
		case strings.HasPrefix(name, "ja4"):
			b.Use = useJA4
		}
		applayer.RegisterBuffer(b)
	}
	certProg := [2]uint8{ClientCertDone, ServerCertDone}
	reg("tls.sni", dirTS, [2]uint8{ClientHelloDone, 0}, false, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil || s.Client.SNI == nil {
			return nil, false
		}
		return s.Client.SNI, true
	})
	reg("tls.cert_subject", dirBoth, certProg, false, certField(func(c *Conn) []byte { return c.Cert.Subject }))
	reg("tls.cert_issuer", dirBoth, certProg, false, certField(func(c *Conn) []byte { return c.Cert.Issuer }))
	reg("tls.cert_serial", dirBoth, certProg, false, certField(func(c *Conn) []byte { return c.Cert.Serial }))
	reg("tls.cert_fingerprint", dirBoth, certProg, false, certField(func(c *Conn) []byte { return c.Cert.Fingerprint }))
	reg("tls.certs", dirBoth, certProg, true, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil {
			return nil, false
		}
		c := certConn(s, dir)
		if i >= len(c.Certs) {
			return nil, false
		}
		return c.Certs[i], true
	})
	reg("tls.subjectaltname", dirTC, [2]uint8{0, ServerCertDone}, true, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil || !s.Server.HasCert || i >= len(s.Server.Cert.SANs) {
			return nil, false
		}
		return s.Server.Cert.SANs[i], true
	})
	reg("tls.alpn", dirBoth, [2]uint8{ClientHelloDone, ServerHello}, true, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil {
			return nil, false
		}
		c := s.conn(dir)
		if i >= len(c.Hello.ALPNs) {
			return nil, false
		}
		return c.Hello.ALPNs[i], true
	})
	reg("tls.random", dirBoth, [2]uint8{0, 0}, false, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil {
			return nil, false
		}
		return random(s, dir)
	})
	reg("tls.random_time", dirBoth, [2]uint8{ClientHelloDone, ServerHello}, false, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil {
			return nil, false
		}
		r, ok := random(s, dir)
		if !ok {
			return nil, false
		}
		return r[:4], true
	})
	reg("tls.random_bytes", dirBoth, [2]uint8{ClientHelloDone, ServerHello}, false, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil {
			return nil, false
		}
		r, ok := random(s, dir)
		if !ok {
			return nil, false
		}
		return r[4:], true
	})
	ja3 := func(server, hash bool) func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		return func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
			s := stateOf(tx)
			if s == nil {
				return nil, false
			}
			c := &s.Client
			if server {
				c = &s.Server
			}
			if !c.ja3Done {
				return nil, false
			}
			if hash {
				return c.JA3Hash, true
			}
			return c.JA3, true
		}
	}
	reg("ja3.hash", dirTS, [2]uint8{ClientHelloDone, 0}, false, ja3(false, true))
	reg("ja3.string", dirTS, [2]uint8{ClientHelloDone, 0}, false, ja3(false, false))
	reg("ja3s.hash", dirTC, [2]uint8{0, ServerHello}, false, ja3(true, true))
	reg("ja3s.string", dirTC, [2]uint8{0, ServerHello}, false, ja3(true, false))
	reg("ja4.hash", dirTS, [2]uint8{ClientHelloDone, 0}, false, func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
		s := stateOf(tx)
		if s == nil {
			return nil, false
		}
		return s.JA4(), true
	})

	applayer.RegisterValue(applayer.Value{Name: "tls.cert_chain_len", Proto: p, Dirs: dirTC,
		Progress: [2]uint8{0, ServerCertDone}, Max: 0xffffffff,
		Get: func(tx applayer.Tx, dir applayer.Dir, i int, ctx *applayer.GetCtx) (uint64, bool) {
			s := stateOf(tx)
			if s == nil || i > 0 {
				return 0, false
			}
			return uint64(len(s.Server.Certs)), true
		}})
	registerKeywords()
}
