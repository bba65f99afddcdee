package applayer

import "github.com/meerkat-ids/meerkat/flow"

// Dir is the direction of data: flow.ToServer (the client's stream) or flow.ToClient.
type Dir = flow.Direction

// Events is a set of a protocol's app-layer event ids (the index of the name in its
// Parser.Events). 192 ids cover HTTP/1's list.
type Events [3]uint64

// Set adds event id e.
func (s *Events) Set(e uint8) {
	if int(e) < 64*len(s) {
		s[e/64] |= 1 << (e % 64)
	}
}

// Has reports whether event id e is set.
func (s *Events) Has(e uint8) bool { return int(e) < 64*len(s) && s[e/64]&(1<<(e%64)) != 0 }

// Empty reports whether no event is set.
func (s *Events) Empty() bool { return s[0]|s[1]|s[2] == 0 }

// Each calls fn for every set event id in increasing order.
func (s *Events) Each(fn func(e uint8)) {
	for w, x := range s {
		for x != 0 {
			b := uint8(0)
			for x&(1<<b) == 0 {
				b++
			}
			fn(uint8(w*64) + b)
			x &^= 1 << b
		}
	}
}

// TxData is what the framework, detection and the loggers keep of every transaction
// (Suricata's AppLayerTxData plus the tx id and progress): the parser owns and updates the
// progress and events, detection and output the rest.
type TxData struct {
	// ID is the transaction's 0-based index in its flow (tx_id).
	ID uint64
	// Progress is the transaction's progress per direction (index flow.ToServer: the
	// request side), in the parser's numbering; Parser.Complete gives the value of "done".
	Progress [2]uint8
	// Events are the app-layer events raised on the transaction.
	Events Events
	// Updated says, per direction, that the parser changed the transaction since detection
	// last inspected it in that direction (AppLayerTxData.updated_ts/_tc).
	Updated [2]bool
	// SkipInspect says, per direction, that detection never inspects the transaction in
	// that direction (AppLayerTxData's APP_LAYER_TX_SKIP_INSPECT_TS/_TC: a DNS request tx
	// has no to-client side, a response tx no to-server side).
	SkipInspect [2]bool
	// Logged is the loggers' bit set (one bit per EVE logger that wrote the tx).
	Logged uint32
	// Detect is detection's per-direction state of the tx (DetectEngineState): an index
	// into detection's own per-flow storage, 0 for none yet. The framework resets it with
	// the tx.
	Detect [2]uint32
	// EventsLogged are the events the anomaly logger has written (each event is logged
	// once, as JsonAnomalyTxLogger's event_last_logged keeps it).
	EventsLogged Events
	// GuessLogged counts the alerts of packet rules that were given this tx as a guess
	// (detect.guess-applayer-tx, limited by detect.stream-tx-log-limit).
	GuessLogged uint8
	// Bits are detection's transaction-scoped xbits (xbits with track tx; the txbits list
	// of Suricata's AppLayerTxData), reset with the tx.
	Bits TxBits
}

// MaxTxBits is the number of distinct tx xbits names a TxBits holds (names are numbered
// from 1 by detection).
const MaxTxBits = 128

// TxBits is a fixed set of tx-scoped xbits, bit i-1 for name number i (1..MaxTxBits).
// Suricata keeps a linked list per tx (tx-bit.c); a fixed set bounds it.
type TxBits [MaxTxBits / 64]uint64

// Set sets bit id and reports whether it was newly set (TxBitSet); ids outside
// 1..MaxTxBits are ignored.
func (b *TxBits) Set(id uint32) bool {
	if id == 0 || id > MaxTxBits {
		return false
	}
	i := id - 1
	if b[i/64]&(1<<(i%64)) != 0 {
		return false
	}
	b[i/64] |= 1 << (i % 64)
	return true
}

// Has reports whether bit id is set (TxBitIsset).
func (b *TxBits) Has(id uint32) bool {
	if id == 0 || id > MaxTxBits {
		return false
	}
	i := id - 1
	return b[i/64]&(1<<(i%64)) != 0
}

// Reset clears d for a transaction with the given id.
func (d *TxData) Reset(id uint64) { *d = TxData{ID: id} }

// Tx is one transaction of a flow's parser state.
type Tx interface {
	// TxData returns the transaction's framework data (never nil).
	TxData() *TxData
}

// Result is what a parser did with the data it was given (Suricata's AppLayerResult).
type Result struct {
	// Consumed is how many of the bytes were used; the rest is handed again, with what
	// follows, on the next call.
	Consumed int
	// Needed asks for at least this many bytes in all (from the first unconsumed one)
	// before the next call; 0 for no minimum.
	Needed int
	// Err is a parse error: the app layer is disabled for the flow, as libhtp's stream
	// error disables Suricata's (AppLayerParserParse), and app-layer.error-policy applies.
	Err error
	// Change asks for a protocol change (HTTP CONNECT answered 2xx, 101 Upgrade): detection
	// restarts on the data that follows, expecting Change.Expect.
	Change *ProtocolChange
	// TriggerRaw asks, per direction, for raw stream inspection of that direction now
	// (AppLayerParserTriggerRawStreamInspection: HTTP at request and response complete, and
	// when a body reaches its minimal inspect size), so that stream rules see the bytes on
	// the packet the transaction's rules see them.
	TriggerRaw [2]bool
	// Flags are parser-state flags the parser sets for the flow (AppLayerParserStateSetFlag),
	// such as the encryption-handling of SSH once both sides sent NEWKEYS.
	Flags ParserFlags
}

// ParserFlags are flags a parser sets on its flow's parser state (Suricata's
// APP_LAYER_PARSER_* state flags that AppLayerParserParse acts on).
type ParserFlags uint8

const (
	// NoInspection is APP_LAYER_PARSER_NO_INSPECTION: the parser is at EOF in both
	// directions and the app layer is disabled for the flow (StreamTcpDisableAppLayer); its
	// transactions stay to be inspected and logged.
	NoInspection ParserFlags = 1 << iota
	// NoReassembly is APP_LAYER_PARSER_NO_REASSEMBLY (with NoInspection): raw stream
	// reassembly stops in both directions too.
	NoReassembly
	// BypassReady is APP_LAYER_PARSER_BYPASS_READY (with NoInspection): the flow may be
	// bypassed (StreamTcpSetSessionBypassFlag).
	BypassReady
	// NoInspectionPayload is APP_LAYER_PARSER_NO_INSPECTION_PAYLOAD (TLS's encryption-handling
	// track-only or bypass at the first application-data record): the flow's packet and
	// stream payload are no longer inspected and raw stream reassembly stops both ways
	// (FlowSetNoPayloadInspectionFlag, StreamTcpSetDisableRawReassemblyFlag); the parser
	// keeps running.
	NoInspectionPayload
)

// ProtocolChange is a parser's request to hand the flow to another protocol
// (AppLayerRequestProtocolChange).
type ProtocolChange struct {
	// Expect is the protocol expected next (ProtoUnknown: whatever is detected).
	Expect Proto
	// Port is the destination port detection's probing parsers use after the change
	// (the CONNECT authority's port), 0 for the flow's own.
	Port uint16
}

// ChangeRefuser is implemented by a State that wants to hear that the protocol change its
// last Parse or Gap asked for was refused because another change is pending
// (AppLayerRequestProtocolChange returning false; HTTP then raises failed_protocol_change).
type ChangeRefuser interface {
	ProtocolChangeRefused(dir Dir)
}

// Flags qualify one call of State.Parse.
type Flags uint8

const (
	// EOF says the direction's stream ended: no more data will come.
	EOF Flags = 1 << iota
	// Midstream says the flow was picked up midstream.
	Midstream
)

// State is a flow's parser state for one protocol (Suricata's alstate). It is drawn from
// the protocol's pool by Parser.NewState and handed back with Reset when the flow ends.
type State interface {
	// Parse parses data of one direction. It is called again with the unconsumed rest and
	// any new data; data may be empty with EOF set.
	Parse(dir Dir, data []byte, flags Flags) Result
	// Gap tells the parser that n bytes of direction dir are missing (a stream gap); the
	// parser resynchronises as it can, or returns an error to stop.
	Gap(dir Dir, n uint64) Result
	// TxCount returns the number of live transactions (not yet freed).
	TxCount() int
	// TxAt returns the i-th live transaction, in tx id order (0 <= i < TxCount()).
	TxAt(i int) Tx
	// FreeTxs releases the transactions with ids below id: every direction is complete and
	// logged and detection is done with them. The framework calls it; a parser may also
	// drop transactions itself beyond its own limit (max-tx).
	FreeTxs(below uint64)
	// Reset empties the state for reuse by another flow.
	Reset()
}

// FlowInfo is what a parser may know of its flow when the state is made (the server
// address selects libhtp's server-config, the ports its port checks).
type FlowInfo struct {
	F *flow.Flow
	// Expected is the data of the expectation the flow fulfilled (its protocol was found
	// by Expect: an FTP data connection's transfer command), nil for none.
	Expected any
}

// MinInspecter is implemented by a parser state that sets the stream's minimal inspection
// depth (StreamTcpReassemblySetMinInspectDepth: HTTP at each request and response start, so
// that raw inspection keeps the message's bytes in view). TakeMinInspect returns the depth
// set for dir since the last call.
type MinInspecter interface {
	TakeMinInspect(dir Dir) (depth uint64, set bool)
}
