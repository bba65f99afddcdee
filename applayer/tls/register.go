// Package tls is the TLS (and SSLv2) parser (src/app-layer-ssl.c): protocol detection, the
// record layer, handshake reassembly, hellos, certificates (through applayer/tls/cert) and
// the JA3/JA3S/JA4 fingerprints (through applayer/tls/ja), with the buffers and keywords
// detection reads. A flow's State is also its only transaction.
package tls

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// ProgressNames are the progress names per direction (tls_state_client_table,
// tls_state_server_table).
var ProgressNames = [2][]string{
	{"client_in_progress", "client_hello_done", "client_cert_done", "client_handshake_done", "client_finished"},
	{"server_in_progress", "server_hello", "server_cert_done", "server_hello_done", "server_handshake_done", "server_finished"},
}

// patterns are SSLRegisterPatternsForProtocolDetection's: to the server a handshake record
// (16 03 0x) or an SSLv2-compatible hello (01 03 0x) at offset 0, and 01 00 02 at offset 2
// confirmed by the probing parser; to the client an alert, handshake or application-data
// record (15|16|17 03 0x).
func patterns() [2][]applayer.Pattern {
	var p [2][]applayer.Pattern
	p[flow.ToServer] = append(p[flow.ToServer], applayer.Pattern{Bytes: []byte{1, 0, 2}, Offset: 2, Depth: 5,
		Confirm: func(d []byte) bool { return Probe(d) == applayer.ProbeMatch }})
	for v := byte(0); v <= 3; v++ {
		for _, t := range []byte{1, 0x16} {
			p[flow.ToServer] = append(p[flow.ToServer], applayer.Pattern{Bytes: []byte{t, 3, v}, Depth: 3})
		}
		for _, t := range []byte{0x15, 0x16, 0x17} {
			p[flow.ToClient] = append(p[flow.ToClient], applayer.Pattern{Bytes: []byte{t, 3, v}, Depth: 3})
		}
	}
	return p
}

// Probe is SSLProbingParser: an SSLv2 record with a 2-byte header (top bit set) whose
// message is a ClientHello.
func Probe(data []byte) applayer.ProbeResult {
	if len(data) < 3 {
		return applayer.ProbeNeedMore
	}
	if data[0]&0x80 != 0 && data[2] == 1 {
		return applayer.ProbeMatch
	}
	return applayer.ProbeFail
}

var toServer = flow.ToServer

// Parser is TLS's registration record (RegisterSSLParsers): probing on port 443 (or
// detection-ports), client data first, complete at client_finished / server_finished.
var Parser = &applayer.Parser{
	Proto:         applayer.ProtoTLS,
	IPProto:       6,
	Patterns:      patterns(),
	Probe:         [2]applayer.ProbeFunc{flow.ToServer: Probe},
	ProbeMin:      0,
	ProbeMax:      3,
	Ports:         "443",
	FirstData:     &toServer,
	Configure:     Configure,
	Preconfigure:  Preconfigure,
	NewPool:       func(cfg any) applayer.Pool { return NewPool(cfg.(*Settings)) },
	Complete:      [2]uint8{ClientFinished, ServerFinished},
	ProgressNames: ProgressNames,
	Events:        EventNames,
}

func init() {
	applayer.Register(Parser)
	registerBuffers()
}

// Pool is one worker's pool of TLS states.
type Pool struct {
	cfg    *Settings
	states []*State
}

// NewPool makes a worker's pool (nil settings: the defaults).
func NewPool(cfg *Settings) *Pool {
	if cfg == nil {
		cfg = DefaultSettings()
	}
	return &Pool{cfg: cfg}
}

// Get returns a state for a new flow.
func (p *Pool) Get(applayer.FlowInfo) applayer.State { return p.NewState() }

// NewState is Get returning *State.
func (p *Pool) NewState() *State {
	if n := len(p.states); n > 0 {
		s := p.states[n-1]
		p.states = p.states[:n-1]
		return s
	}
	s := &State{cfg: p.cfg}
	s.Client.presize()
	s.Server.presize()
	s.Reset()
	return s
}

// Put takes a state back.
func (p *Pool) Put(st applayer.State) {
	if s, ok := st.(*State); ok {
		s.Reset()
		p.states = append(p.states, s)
	}
}
