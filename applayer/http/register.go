package http

import (
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// methodPatterns are the to_server detection patterns (HTPRegisterPatternsForProtocolDetection):
// each method followed by a space or a tab, case-insensitive at offset 0.
var methodPatterns = []string{"GET", "PUT", "POST", "HEAD", "TRACE", "OPTIONS", "CONNECT",
	"DELETE", "PATCH", "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK",
	"CHECKOUT", "UNCHECKOUT", "CHECKIN", "UPDATE", "LABEL", "REPORT", "MKWORKSPACE",
	"MKACTIVITY", "MERGE", "INVALID", "VERSION-CONTROL", "BASELINE-CONTROL"}

func patterns() [2][]applayer.Pattern {
	var p [2][]applayer.Pattern
	for _, m := range methodPatterns {
		for _, sep := range []string{" ", "\t"} {
			b := []byte(m + sep)
			p[flow.ToServer] = append(p[flow.ToServer], applayer.Pattern{Bytes: b, Offset: 0, Depth: len(b), NoCase: true})
		}
	}
	for _, v := range []string{"HTTP/0.9", "HTTP/1.0", "HTTP/1.1"} {
		p[flow.ToClient] = append(p[flow.ToClient], applayer.Pattern{Bytes: []byte(v), Offset: 0, Depth: len(v), NoCase: true})
	}
	return p
}

// Parser is HTTP/1's registration record.
var Parser = &applayer.Parser{
	Proto:     applayer.ProtoHTTP1,
	IPProto:   6,
	Patterns:  patterns(),
	Configure: Configure,
	NewPool:   func(cfg any) applayer.Pool { return NewPool(cfg.(*Settings)) },
	Complete:  [2]uint8{ReqComplete, ResComplete},
	ProgressNames: [2][]string{
		{"request_started", "request_line", "request_headers", "request_body", "request_trailer", "request_complete"},
		{"response_started", "response_line", "response_headers", "response_body", "response_trailer", "response_complete"},
	},
	Events: EventNames,
}

func init() { applayer.Register(Parser) }

// Pool is one worker's pool of HTTP/1 flow states and transactions.
type Pool struct {
	settings *Settings
	states   []*State
	txs      []*Tx
}

// NewPool makes a worker's pool for settings (nil: built-in defaults).
func NewPool(settings *Settings) *Pool {
	if settings == nil {
		settings, _ = configure(nil)
	}
	return &Pool{settings: settings}
}

// Get returns a state for a flow; the server address selects the server-config.
func (p *Pool) Get(info applayer.FlowInfo) applayer.State { return p.NewState(info) }

// NewState is Get returning *State.
func (p *Pool) NewState(info applayer.FlowInfo) *State {
	var s *State
	if n := len(p.states); n > 0 {
		s = p.states[n-1]
		p.states = p.states[:n-1]
	} else {
		s = &State{pool: p}
		s.rq.dec.init()
		s.rs.dec.init()
	}
	s.cfg = p.settings.Default
	if info.F != nil {
		s.cfg = p.settings.For(info.F.DstIP)
	}
	s.uriNorm.configure(s.cfg)
	return s
}

// Put takes back a state (after Reset).
func (p *Pool) Put(st applayer.State) {
	s, ok := st.(*State)
	if !ok {
		return
	}
	s.Reset()
	p.states = append(p.states, s)
}

func (p *Pool) getTx() *Tx {
	if n := len(p.txs); n > 0 {
		t := p.txs[n-1]
		p.txs = p.txs[:n-1]
		return t
	}
	return &Tx{}
}

func (p *Pool) putTx(t *Tx) { p.txs = append(p.txs, t) }

func (c *Config) apache2() bool {
	return strings.EqualFold(c.Personality, "apache_2") || strings.EqualFold(c.Personality, "apache")
}

// leadingWSIgnored: the personalities whose requestline_leading_whitespace_unwanted is
// Ignore (set_server_personality: minimal, generic, ids); the others keep the whitespace
// in the method.
func (c *Config) leadingWSIgnored() bool {
	switch strings.ToLower(c.Personality) {
	case "minimal", "generic", "ids", "":
		return true
	}
	return false
}
