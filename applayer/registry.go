package applayer

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// Parser is one protocol's registration (Suricata's RustParser record plus its protocol
// detection patterns): what detection looks for, how states are made, and the names of its
// progress values and events. A protocol package registers it from init.
type Parser struct {
	Proto Proto
	// IPProto is the transport: 6 (TCP) or 17 (UDP).
	IPProto uint8
	// Patterns are the detection patterns per direction (index flow.ToServer: data the
	// client sends), tried on the first bytes of a direction (the PM step).
	Patterns [2][]Pattern
	// Probe are the probing parsers per direction (the PP step), nil for none; they run on
	// flows whose port is one of Ports (or the configured detection-ports).
	Probe [2]ProbeFunc
	// ProbeMin and ProbeMax bound the bytes a probing parser needs and may look at.
	ProbeMin, ProbeMax int
	// Ports is the built-in port list of the probing parsers (a Suricata port list string),
	// "" for none.
	Ports string
	// FirstData, when set, is the direction whose data must come first (else the event
	// applayer_wrong_direction_first_data and the app layer is disabled for the flow).
	FirstData *Dir
	// Configure reads app-layer.protocols.<name> (conf may be nil) once at start-up into the
	// protocol's own configuration, which NewPool receives; a bad value stops start-up.
	Configure func(conf *config.Node) (any, error)
	// Preconfigure, when set, reads the settings of app-layer.protocols.<name> (conf may be
	// nil) that rule loading depends on, before the rules load (ja3-fingerprints: no makes
	// ja3 rules fail); Buffer.Use then sees them. Configure still runs later.
	Preconfigure func(conf *config.Node) error
	// NewPool makes one worker's pool of flow states from Configure's result.
	NewPool func(cfg any) Pool
	// Complete is the progress value of a complete transaction, per direction.
	Complete [2]uint8
	// ProgressNames name the progress values per direction (EVE ts_progress/tc_progress, the
	// firewall hooks).
	ProgressNames [2][]string
	// Events name the protocol's app-layer events by id (app-layer-event:<proto>.<name>).
	Events []string
	// FrameTypes name the protocol's frame types by FrameType (the frame keyword's
	// <proto>.<name>; GetFrameIdByName); nil for a parser without frames.
	FrameTypes []string
	// MaxDepth is how far into a direction pattern detection looks (0: 4096... as the
	// patterns' depth gives).
	MaxDepth int
	// UDP, for a TCP protocol that also runs over UDP (DNS: Suricata registers one parser
	// per transport under the same protocol), is its UDP detection: the probing parsers
	// and ports the UDP path uses. A UDP-only protocol has IPProto 17 and uses the fields
	// above.
	UDP *UDPDetect
}

// UDPDetect is a protocol's protocol detection over UDP.
type UDPDetect struct {
	Patterns           [2][]Pattern
	Probe              [2]ProbeFunc
	ProbeMin, ProbeMax int
	Ports              string
}

// udp returns the parser's UDP detection, nil when it does not run over UDP.
func (p *Parser) udp() *UDPDetect {
	if p.UDP != nil {
		return p.UDP
	}
	if p.IPProto == 17 {
		return &UDPDetect{Patterns: p.Patterns, Probe: p.Probe, ProbeMin: p.ProbeMin, ProbeMax: p.ProbeMax, Ports: p.Ports}
	}
	return nil
}

// OnTCP reports whether the protocol runs over TCP.
func (p *Parser) OnTCP() bool { return p.IPProto == 6 }

// OnUDP reports whether the protocol runs over UDP.
func (p *Parser) OnUDP() bool { return p.IPProto == 17 || p.UDP != nil }

// Pattern is one protocol-detection pattern: Bytes at Offset, within Depth bytes of the
// direction's start, compared case-insensitively when NoCase. Confirm, when set, must also
// accept the data.
type Pattern struct {
	Bytes         []byte
	Offset, Depth int
	NoCase        bool
	Confirm       func(data []byte) bool
}

// ProbeResult is a probing parser's answer.
type ProbeResult uint8

const (
	// ProbeNeedMore: not enough data to decide.
	ProbeNeedMore ProbeResult = iota
	// ProbeMatch: the data is the protocol.
	ProbeMatch
	// ProbeMatchReverse: the data is the protocol, seen from the other direction (a
	// response where a request was expected).
	ProbeMatchReverse
	// ProbeFail: the data is not the protocol.
	ProbeFail
)

// ProbeFunc is a probing parser.
type ProbeFunc func(data []byte) ProbeResult

// Pool hands out flow states of one protocol for one worker, so that no flow allocates its
// state in steady state.
type Pool interface {
	Get(info FlowInfo) State
	Put(s State)
}

var parsers [protoMax]*Parser

// Register adds a protocol's parser; a second registration of a protocol panics.
func Register(p *Parser) {
	if parsers[p.Proto] != nil {
		panic(fmt.Sprintf("applayer: protocol %s registered twice", p.Proto))
	}
	parsers[p.Proto] = p
}

// ParserOf returns the registered parser of proto, nil for none.
func ParserOf(proto Proto) *Parser {
	if proto < protoMax {
		return parsers[proto]
	}
	return nil
}

// EventByName returns the id of proto's app-layer event name (case-insensitive).
func EventByName(proto Proto, name string) (uint8, bool) {
	p := ParserOf(proto)
	if p == nil {
		return 0, false
	}
	for i, n := range p.Events {
		if strings.EqualFold(n, name) {
			return uint8(i), true
		}
	}
	return 0, false
}

// BufferID is the dense id of a registered inspection buffer.
type BufferID uint16

// Buffer is one inspection buffer a protocol offers detection (a sticky buffer such as
// http.uri): its name, protocol and directions, the progress at which it is inspected, and
// its getter. Suricata registers the same name once per protocol (http.uri for HTTP/1 and
// HTTP/2); so does this registry.
type Buffer struct {
	Name  string
	Proto Proto
	// Dirs says in which directions the buffer exists (index flow.ToServer).
	Dirs [2]bool
	// Progress is the tx progress per direction from which the buffer is inspected (its
	// inspect engine's progress): below it detection waits, at it a missing buffer or a
	// mismatch means "retry later", past it "cannot match".
	Progress [2]uint8
	// Multi marks a multi-buffer (one instance per header, per query, ...): Get is called
	// with i = 0, 1, ... until it reports none.
	Multi bool
	// Get returns the buffer's bytes for tx in direction dir (the i-th instance of a
	// multi-buffer); ok is false when the tx has no such buffer (yet). The bytes are valid
	// until the parser next runs on the flow.
	Get func(tx Tx, dir Dir, i int, ctx *GetCtx) (data []byte, ok bool)
	// Inspected, when set, is called once a packet's detection is done with tx in dir (the
	// body buffers move their inspection window).
	Inspected func(tx Tx, dir Dir, ctx *GetCtx)
	// Use, when set, is called as every rule that inspects the buffer compiles (more than
	// once per rule: the engine compiles rules again in their final order; Use must be
	// idempotent):
	// the protocol turns on what the buffer needs (ja3.hash: JA3 computation, the rules'
	// auto mode) or refuses the rule (its error is the rule's load error: "ja3 support is
	// not enabled").
	Use func() error
}

// GetCtx is what a getter may need to know of the packet being inspected.
type GetCtx struct {
	// EOF says the direction's stream ended (a flow-end pseudo packet).
	EOF bool
	// Inline says the engine runs inline (IPS): bodies are inspected as they arrive
	// (http-body-inline: auto).
	Inline bool
	// PacketTime is the packet's time in Unix seconds (tls_cert_expired compares a
	// certificate's validity with the flow's last packet time, not the wall clock).
	PacketTime int64
}

var buffers []*Buffer

// RegisterBuffer adds a buffer and returns its id.
func RegisterBuffer(b Buffer) BufferID {
	for _, o := range buffers {
		if o.Name == b.Name && o.Proto == b.Proto {
			panic(fmt.Sprintf("applayer: buffer %s registered twice for %s", b.Name, b.Proto))
		}
	}
	buffers = append(buffers, &b)
	return BufferID(len(buffers) - 1)
}

// BufferOf returns the buffer with id.
func BufferOf(id BufferID) *Buffer { return buffers[id] }

// BuffersNamed returns the ids of the buffers registered under name, for any protocol.
func BuffersNamed(name string) []BufferID {
	var out []BufferID
	for i, b := range buffers {
		if b.Name == name {
			out = append(out, BufferID(i))
		}
	}
	return out
}

// Keyword is a protocol's match keyword that is not a sticky buffer and whose argument has a
// grammar of its own (ssl_state, tls.version, tls_cert_notbefore, ftpbounce ...): detection
// hands the rule's argument to Compile and runs the matcher it returns as one inspect engine
// per direction of Dirs, on a transaction whose progress has reached Progress (Suricata
// registers one inspect engine per such keyword: DetectAppLayerInspectEngineRegister).
type Keyword struct {
	Name  string
	Proto Proto
	// Dirs and Progress are as for Buffer.
	Dirs     [2]bool
	Progress [2]uint8
	// Compile parses the keyword's argument as the rule wrote it (value: the text after the
	// ':' without surrounding quotes, "" for a keyword without argument; negated: the rule
	// parser took a leading '!' off value, for keywords that allow it) into a matcher. Its
	// errors are the keyword's load errors.
	Compile func(value string, negated bool) (TxMatch, error)
}

// TxMatch is a compiled Keyword: does tx match in direction dir? A false answer at the
// keyword's progress is "no match yet"; detection stops retrying once the direction is
// complete, as it does for buffers.
type TxMatch func(tx Tx, dir Dir, ctx *GetCtx) bool

// Value is a protocol's integer keyword (dns.opcode, dns.rrtype, tls.cert_chain_len ...):
// Get gives a transaction's value (the i-th of a multi-valued one) and detection compares it
// with the rule's integer expression (rules.ParseIntMatch, up to Max); a multi-valued keyword
// matches when any value does (DetectU16Match over every element).
type Value struct {
	Name  string
	Proto Proto
	// Dirs, Progress and Multi are as for Buffer.
	Dirs     [2]bool
	Progress [2]uint8
	Multi    bool
	// Max is the largest value an expression may name.
	Max uint64
	// Names are symbolic values the rule may write instead of a number (dns.rcode's
	// NXDOMAIN, dns.rrtype's MX), compared case-insensitively and allowed only as "name" or
	// "!name" (detect_parse_uint_enum); nil for a numeric keyword.
	Names map[string]uint64
	Get   func(tx Tx, dir Dir, i int, ctx *GetCtx) (v uint64, ok bool)
}

var (
	keywords []*Keyword
	values   []*Value
)

// RegisterKeyword adds a match keyword of a protocol.
func RegisterKeyword(k Keyword) {
	for _, o := range keywords {
		if o.Name == k.Name && o.Proto == k.Proto {
			panic(fmt.Sprintf("applayer: keyword %s registered twice for %s", k.Name, k.Proto))
		}
	}
	keywords = append(keywords, &k)
}

// RegisterValue adds an integer keyword of a protocol.
func RegisterValue(v Value) {
	for _, o := range values {
		if o.Name == v.Name && o.Proto == v.Proto {
			panic(fmt.Sprintf("applayer: value %s registered twice for %s", v.Name, v.Proto))
		}
	}
	values = append(values, &v)
}

// KeywordFor returns proto's match keyword name, nil for none.
func KeywordFor(name string, proto Proto) *Keyword {
	for _, k := range keywords {
		if k.Name == name && k.Proto == proto {
			return k
		}
	}
	return nil
}

// ValueFor returns proto's integer keyword name, nil for none.
func ValueFor(name string, proto Proto) *Value {
	for _, v := range values {
		if v.Name == name && v.Proto == proto {
			return v
		}
	}
	return nil
}

// HasKeyword reports whether some protocol registered a match keyword or an integer keyword
// name.
func HasKeyword(name string) bool {
	for _, k := range keywords {
		if k.Name == name {
			return true
		}
	}
	for _, v := range values {
		if v.Name == name {
			return true
		}
	}
	return false
}
