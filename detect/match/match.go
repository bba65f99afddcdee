// Package match evaluates the packet, flow and state keywords of a rule (Suricata's match and
// post-match lists): flow, tcp.flags, ttl, itype, icode, icmp_id, icmp_seq, ip_proto, ipopts,
// fragbits, fragoffset, id, tos, sameip, tcp.seq, tcp.ack, tcp.window, tcp.mss, tcp.wscale,
// dsize, decode-event, the checksum keywords (ipv4-csum ... icmpv6-csum), flowbits, flowint,
// xbits and hostbits.
//
// A rule's Matches compile to a Matcher (every keyword must match); its PostMatches
// (flowbits set/unset/toggle, flowint =/+/-, xbits and hostbits set/unset/toggle) compile to a
// Post, applied right after the rule fully matched so that rules inspected later on the same
// packet see the change. Keywords this package cannot evaluate yet make Compile and
// CompilePost fail with "keyword <name> is not supported yet".
//
// Semantics follow Suricata 8.0.6, including its quirks:
//
//   - flow: the match counts the required conditions exactly as FlowMatch does (one frag
//     condition, one direction, one state: established / not_established / stateless); a flow
//     keyword with a state or frag option needs a flow (packets without one never match). A
//     direction-only flow keyword is checked too (flowless packets count as to_server, the
//     group Suricata inspects them with). Without stream reassembly every inspected packet is
//     a real packet: only_stream and no_stream select the payload source and are left to the
//     engine (rules.Rule.RequireStream / RequirePacket); they do not change the Matcher.
//     only_frag / no_frag test decode.SourceDefrag (Suricata's PKT_REBUILT_FRAGMENT).
//   - tcp.flags: the packet flags are ANDed with the inverted ignore mask; default exact
//     match, + all listed set, * any listed set, ! not all listed set; flags:0 with a packet
//     carrying flags only matches with !.
//   - fragbits: + means all listed set AND some other bit set (Suricata's FragBitsMatch);
//     IPv4 only.
//   - fragoffset: IPv4 compares the raw 13-bit field (8-byte units), IPv6 the fragment
//     header's offset in bytes (only when a fragment header is present).
//   - ipopts:any never matches (Suricata 8.0.6 tests all 16 flag bits with 0xffff).
//   - flowbits: a|b is an OR for isset/isnotset; set/unset/toggle of an OR list act on an
//     unnamed bit no check reads (Suricata uses index 0). '&' has no special meaning in
//     Suricata 8 flowbits: it is part of the name.
//   - flowint: comparisons need the variable set; a variable operand that is unset reads 0;
//     adding to an unset variable sets it, subtracting from one does nothing.
//   - xbits/hostbits: hostbits and xbits track ip_src/ip_dst share one namespace (host
//     bits); ip_pair bits are keyed by the unordered address pair. Default expiry is 30 s
//     for xbits and 300 s for hostbits; a bit is set while expire >= packet time.
//   - xbits track tx (only set and isset, as DetectXbitParse allows): the bit lives in the
//     transaction's applayer.TxData.Bits. isset is not a packet match: detection makes it
//     an inspect engine at the rule's hook (DetectXbitSetup puts it on the hook's list), so
//     Compile skips it; set is a post-match on the transaction the rule matched on
//     (Input.Tx; DetectXbitPostMatchTx does nothing without det_ctx->tx_id_set).
package match

import (
	"errors"
	"fmt"
	"sync"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// Input is what a matcher sees of one packet.
type Input struct {
	P     *decode.Packet
	F     *flow.Flow     // nil for packets without a flow
	Dir   flow.Direction // meaningful when F != nil
	Hosts *HostTable     // xbits/hostbits storage (may be nil: then those keywords never match / do nothing)
	// Session says the packet's flow has a TCP session in the stream engine; ClientSize and
	// ServerSize are then next_seq - ISN of each side after this packet (stream_size).
	Session                bool
	ClientSize, ServerSize uint32
	// App is the flow's app layer on this packet (app-layer-protocol, packet-level
	// app-layer-event); nil for a packet without one.
	App *applayer.FlowApp
	// Tx is the transaction a tx rule matched on while its post-match runs (xbits track
	// tx set), nil otherwise.
	Tx *applayer.TxData
}

// notSupported is the error for a keyword this package cannot evaluate.
func notSupported(name string) error {
	return errors.New("keyword " + name + " is not supported yet")
}

// Supports reports whether keyword (canonical name) can be evaluated here.
func Supports(keyword string) bool {
	_, ok := compilers[keyword]
	return ok || postOnly[keyword]
}

// postOnly are the keywords that have only a post-match form (CompilePost).
var postOnly = map[string]bool{"tls_store": true}

// Names numbers flowbit / flowint / xbit names for one engine (shared by all rules of it).
// Numbers start at 1; flowbit 0 is the unnamed bit set/unset/toggle of an OR list act on.
type Names struct {
	mu       sync.Mutex
	flowbits map[string]uint32
	flowints map[string]uint32
	hostbits map[string]uint32
	pairbits map[string]uint32
	txbits   map[string]uint32
}

// NewNames returns an empty name table.
func NewNames() *Names {
	return &Names{
		flowbits: map[string]uint32{},
		flowints: map[string]uint32{},
		hostbits: map[string]uint32{},
		pairbits: map[string]uint32{},
		txbits:   map[string]uint32{},
	}
}

func (n *Names) id(m map[string]uint32, name string) uint32 {
	n.mu.Lock()
	defer n.mu.Unlock()
	if id, ok := m[name]; ok {
		return id
	}
	id := uint32(len(m) + 1)
	m[name] = id
	return id
}

// Flowbit returns the number of flowbit name.
func (n *Names) Flowbit(name string) uint32 { return n.id(n.flowbits, name) }

// Flowint returns the number of flowint name.
func (n *Names) Flowint(name string) uint32 { return n.id(n.flowints, name) }

// Hostbit returns the number of host bit name (hostbits, xbits track ip_src/ip_dst).
func (n *Names) Hostbit(name string) uint32 { return n.id(n.hostbits, name) }

// IPPairbit returns the number of ip pair bit name (xbits track ip_pair).
func (n *Names) IPPairbit(name string) uint32 { return n.id(n.pairbits, name) }

// Txbit returns the number of tx bit name (xbits track tx), from 1; a number above
// applayer.MaxTxBits does not fit a transaction's bit set (TxbitID refuses it).
func (n *Names) Txbit(name string) uint32 { return n.id(n.txbits, name) }

// TxbitID returns the number of tx bit name, or an error when the engine has more distinct
// tx bit names than a transaction holds (applayer.MaxTxBits).
func (n *Names) TxbitID(name string) (uint32, error) {
	id := n.Txbit(name)
	if id > applayer.MaxTxBits {
		return 0, fmt.Errorf("xbits track tx: more than %d distinct names", applayer.MaxTxBits)
	}
	return id, nil
}

// IsTxXbit reports whether o is an xbits keyword with track tx.
func IsTxXbit(o *rules.Option) bool {
	x, ok := o.Arg.(*rules.Xbit)
	return ok && x != nil && x.Track == "tx"
}

// FlowbitNames returns the number of distinct flowbit names (for sizing, stats).
func (n *Names) FlowbitNames() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.flowbits)
}

// check is one compiled keyword.
type check interface {
	match(in *Input) bool
}

// Matcher is the compiled Matches of one rule.
type Matcher struct {
	checks []check
	// names are the keyword names of checks, in order (for debugging and profiling).
	names []string
}

// Compile compiles r.Matches (and the direction of r.Flow when the flow keyword adds no
// match of its own); unsupported keywords give an error whose text is exactly
// "keyword <name> is not supported yet".
func Compile(r *rules.Rule, names *Names) (*Matcher, error) {
	if names == nil {
		names = NewNames()
	}
	m := &Matcher{}
	flowSeen := false
	for _, o := range r.Matches {
		if IsTxXbit(o) {
			continue // an inspect engine at the rule's hook (detect compiles it)
		}
		c, err := compileMatch(o, names)
		if err != nil {
			return nil, err
		}
		if o.Name == "flow" {
			flowSeen = true
		}
		m.checks = append(m.checks, c)
		m.names = append(m.names, o.Name)
	}
	if r.Flow != nil && !flowSeen && (r.Flow.ToServer || r.Flow.ToClient) {
		m.checks = append([]check{&dirCheck{toClient: r.Flow.ToClient}}, m.checks...)
		m.names = append([]string{"flow"}, m.names...)
	}
	if r.Type() == rules.TypePDOnly {
		m.markPDOnly()
	}
	return m, nil
}

// Match reports whether every keyword matches. A nil Matcher or an Input without a packet
// never matches... except a Matcher without keywords, which always matches.
func (m *Matcher) Match(in *Input) bool {
	if m == nil {
		return true
	}
	if in == nil || in.P == nil {
		return len(m.checks) == 0
	}
	for _, c := range m.checks {
		if !c.match(in) {
			return false
		}
	}
	return true
}

// Len returns the number of compiled keywords.
func (m *Matcher) Len() int {
	if m == nil {
		return 0
	}
	return len(m.checks)
}

// Keywords returns the names of the compiled keywords in evaluation order.
func (m *Matcher) Keywords() []string {
	if m == nil {
		return nil
	}
	return append([]string(nil), m.names...)
}
