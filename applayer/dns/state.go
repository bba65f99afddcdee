package dns

import (
	"encoding/binary"
	"errors"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// The events of DNSEvent, by id (app-layer-event:dns.<name>).
const (
	EventMalformedData uint8 = iota
	EventNotRequest
	EventNotResponse
	EventZFlagSet
	EventInvalidOpcode
	EventNameTooLong
	EventInfiniteLoop
	EventTooManyLabels
	EventInvalidAdditionals
	EventInvalidAuthorities
)

// EventNames are the event names in id order (the derive-generated snake case of DNSEvent).
var EventNames = []string{
	"malformed_data", "not_request", "not_response", "z_flag_set", "invalid_opcode",
	"name_too_long", "infinite_loop", "too_many_labels", "invalid_additionals",
	"invalid_authorities",
}

// maxTxs bounds a flow's live transactions: a message beyond it gets no tx (Suricata has no
// limit; the framework frees logged and inspected txs after each packet).
const maxTxs = 1024

// arenaKeep is the arena capacity a freed tx keeps for reuse; a bigger one is dropped.
const arenaKeep = 64 << 10

// errParse is the error of a TCP message that fails (parse_request_tcp's AppLayerResult::err).
var errParse = errors.New("dns: invalid message")

// Tx is one DNS message of one direction (DNSTransaction): a request tx (Request true, sent
// to the server) or a response tx.
type Tx struct {
	td applayer.TxData
	// Request says the message came from the client (the tx's request side).
	Request bool
	// Msg is the message.
	Msg Message
	// respNames caches ResponseNames.
	respNames []Span
	respBuilt bool
}

// TxData returns the framework data.
func (t *Tx) TxData() *applayer.TxData { return &t.td }

// Dir is the direction the tx's message travelled.
func (t *Tx) Dir() applayer.Dir {
	if t.Request {
		return flow.ToServer
	}
	return flow.ToClient
}

// State is a flow's DNS state (DNSState).
type State struct {
	tcp  bool
	txs  []*Tx
	free []*Tx
	next uint64
	// gap is set by a stream gap: the to-client side skips input until it probes as DNS.
	gap bool
}

// newTx takes a tx from the free list, reset for the next id.
func (s *State) newTx() *Tx {
	var t *Tx
	if n := len(s.free); n > 0 {
		t, s.free = s.free[n-1], s.free[:n-1]
	} else {
		t = &Tx{}
	}
	return t
}

func (s *State) recycle(t *Tx) {
	if cap(t.Msg.arena) > arenaKeep {
		t.Msg.arena = nil
	}
	s.free = append(s.free, t)
}

// setEvent is DNSState::set_event: an event of a failed message goes to the flow's most
// recent tx, and is lost when there is none.
func (s *State) setEvent(e uint8) {
	if n := len(s.txs); n > 0 {
		s.txs[n-1].td.Events.Set(e)
	}
}

// message parses one message of direction dir (DNSState::parse_request / parse_response); ok
// is false for a message that fails (header validity: only TCP fails on it).
func (s *State) message(dir applayer.Dir, msg []byte) bool {
	h, ok := parseHeader(msg)
	if !ok {
		return !s.tcp
	}
	if valid, _ := headerValid(&h, len(msg)); !valid {
		return !s.tcp
	}
	req := dir == flow.ToServer
	if len(s.txs) >= maxTxs {
		return true
	}
	t := s.newTx()
	if t.Msg.parse(msg, h) != pOK {
		s.recycle(t)
		s.setEvent(EventMalformedData)
		return false
	}
	if req && h.Flags&FlagQR != 0 {
		s.recycle(t)
		s.setEvent(EventNotRequest)
		return false
	}
	t.td.Reset(s.next)
	s.next++
	t.Request = req
	t.respNames, t.respBuilt = t.respNames[:0], false
	// AppLayerTxData::for_direction: updated in the message's direction only, never
	// inspected in the other; progress is complete (1) both ways.
	t.td.Progress = [2]uint8{1, 1}
	t.td.Updated[dir] = true
	t.td.SkipInspect[1-dir] = true
	m := &t.Msg
	if m.InvalidAdditionals {
		t.td.Events.Set(EventInvalidAdditionals)
	}
	if m.InvalidAuthorities {
		t.td.Events.Set(EventInvalidAuthorities)
	}
	if !req && h.Flags&FlagQR == 0 {
		t.td.Events.Set(EventNotResponse)
	}
	if h.Flags&FlagZ != 0 {
		t.td.Events.Set(EventZFlagSet)
	}
	if h.Opcode() >= 7 {
		t.td.Events.Set(EventInvalidOpcode)
	}
	if m.flags&nameTruncated != 0 {
		t.td.Events.Set(EventNameTooLong)
	}
	if m.flags&nameInfiniteLoop != 0 {
		t.td.Events.Set(EventInfiniteLoop)
	}
	if m.flags&nameLabelLimit != 0 {
		t.td.Events.Set(EventTooManyLabels)
	}
	s.txs = append(s.txs, t)
	return true
}

// Parse parses data of direction dir: one whole datagram on UDP (always accepted), a stream
// of length-prefixed messages on TCP (parse_request_tcp / parse_response_tcp).
func (s *State) Parse(dir applayer.Dir, data []byte, flags applayer.Flags) applayer.Result {
	if !s.tcp {
		if len(data) > 0 {
			s.message(dir, data)
		}
		return applayer.Result{Consumed: len(data)}
	}
	if s.gap {
		dns, _, incomplete := probeTCP(data)
		if dns || incomplete {
			s.gap = false
		} else if dir == flow.ToClient {
			// The to-client side waits for data that probes as DNS; the to-server side
			// computes the same but goes on parsing (8.0.6's parse_request_tcp drops the
			// result of AppLayerResult::ok()).
			return applayer.Result{Consumed: len(data)}
		}
	}
	consumed := 0
	var r applayer.Result
	for consumed < len(data) {
		rest := data[consumed:]
		if len(rest) == 1 {
			return applayer.Result{Consumed: consumed, Needed: 2, TriggerRaw: r.TriggerRaw}
		}
		size := int(binary.BigEndian.Uint16(rest))
		switch {
		case size == 0:
			consumed += 2
		case len(rest) >= size+2:
			r.TriggerRaw[dir] = true
			if !s.message(dir, rest[2:size+2]) {
				return applayer.Result{Consumed: consumed, Err: errParse, TriggerRaw: r.TriggerRaw}
			}
			consumed += size + 2
		default:
			return applayer.Result{Consumed: consumed, Needed: size + 2, TriggerRaw: r.TriggerRaw}
		}
	}
	return applayer.Result{Consumed: consumed, TriggerRaw: r.TriggerRaw}
}

// Gap notes a stream gap (request_gap / response_gap).
func (s *State) Gap(dir applayer.Dir, n uint64) applayer.Result {
	if n > 0 {
		s.gap = true
	}
	return applayer.Result{}
}

// TxCount returns the number of live transactions.
func (s *State) TxCount() int { return len(s.txs) }

// TxAt returns the i-th live transaction.
func (s *State) TxAt(i int) applayer.Tx { return s.txs[i] }

// Tx returns the i-th live transaction.
func (s *State) Tx(i int) *Tx { return s.txs[i] }

// FreeTxs releases the transactions with ids below id.
func (s *State) FreeTxs(below uint64) {
	i := 0
	for i < len(s.txs) && s.txs[i].td.ID < below {
		s.recycle(s.txs[i])
		i++
	}
	if i > 0 {
		n := copy(s.txs, s.txs[i:])
		clear(s.txs[n:])
		s.txs = s.txs[:n]
	}
}

// Reset empties the state for another flow.
func (s *State) Reset() {
	for _, t := range s.txs {
		s.recycle(t)
	}
	clear(s.txs)
	s.txs = s.txs[:0]
	s.next, s.gap, s.tcp = 0, false, false
}

// pool is one worker's free states.
type pool struct{ free []*State }

func (p *pool) Get(info applayer.FlowInfo) applayer.State {
	var s *State
	if n := len(p.free); n > 0 {
		s, p.free = p.free[n-1], p.free[:n-1]
	} else {
		s = &State{}
	}
	s.tcp = info.F == nil || info.F.Proto == 6
	return s
}

func (p *pool) Put(st applayer.State) {
	s, ok := st.(*State)
	if !ok {
		return
	}
	s.Reset()
	if len(p.free) < 4096 {
		p.free = append(p.free, s)
	}
}

// NewState makes a state for one flow (tests and tools): tcp selects the length-prefixed
// framing.
func NewState(tcp bool) *State { return &State{tcp: tcp} }

// probe is probe(): data is DNS when it parses as a message of dlen bytes with a valid header;
// with less than dlen bytes only the header is checked. incomplete says the body needed more
// than dlen bytes.
func probe(data []byte, dlen int) (dns, request, incomplete bool) {
	if len(data) > dlen {
		data = data[:dlen]
	}
	h, ok := parseHeader(data)
	if !ok {
		return false, false, false
	}
	if len(data) < dlen {
		dns, request = headerValid(&h, dlen)
		return dns, request, false
	}
	m := Message{dry: true} // validates only: nothing is kept, nothing allocated
	switch m.parse(data, h) {
	case errIncomplete:
		return false, false, true
	case errBad:
		return false, false, false
	}
	dns, request = headerValid(&h, dlen)
	return dns, request, false
}

// probeTCP is probe_tcp: the 2-byte length, then probe.
func probeTCP(data []byte) (dns, request, incomplete bool) {
	if len(data) < 2 {
		return false, false, true
	}
	return probe(data[2:], int(binary.BigEndian.Uint16(data)))
}

func probeResult(dns, request bool, want applayer.Dir) applayer.ProbeResult {
	switch {
	case !dns:
		return applayer.ProbeFail
	case request == (want == flow.ToServer):
		return applayer.ProbeMatch
	}
	return applayer.ProbeMatchReverse
}

// ProbeUDP is probe_udp for data of direction want: a whole message of at least a header,
// whose direction follows QR.
func ProbeUDP(data []byte, want applayer.Dir) applayer.ProbeResult {
	if len(data) < headerLen {
		return applayer.ProbeFail
	}
	dns, req, _ := probe(data, len(data))
	return probeResult(dns, req, want)
}

// ProbeTCP is c_probe_tcp for data of direction want: the length prefix and a header at
// least.
func ProbeTCP(data []byte, want applayer.Dir) applayer.ProbeResult {
	if len(data) < headerLen+2 {
		return applayer.ProbeNeedMore
	}
	dns, req, _ := probeTCP(data)
	return probeResult(dns, req, want)
}
