// Package header is the witness index for rules without a fast pattern (issue #17): for each
// such rule it chooses one packet-header keyword as its witness, a necessary condition that
// can be tested for many rules at once, and indexes it, so that one lookup per packet returns
// the rules whose witness holds, as a bitset, without looping over rules.
//
// Every keyword of a rule's match list must hold for the rule to match (detect/match ANDs
// them), so any one of them is a necessary condition. The index keeps, per packet field
// (tcp.flags, ttl, itype, icode, ip_proto, tos, fragbits, tcp.wscale, dsize, tcp.window,
// tcp.mss, id, icmp_id, icmp_seq, fragoffset, vlan.id, tcp.seq, tcp.ack), the set of values
// each witness admits, computed with the keyword's own semantics (detect/match, Suricata
// 8.0.6): 8-bit fields by enumerating all 256 values, 16-bit fields by the intervals of the
// integer condition, the 32-bit sequence numbers by exact value. Per field, the interval
// endpoints of all witnesses cut the value domain into classes; each witness's interval is
// stored at O(log classes) nodes of a segment tree over the classes, and every value points
// straight at the deepest non-empty node of its class's root path, linked to the next
// non-empty ancestor. A lookup is one table read per field, then a walk over the few
// non-empty nodes of the chain, ORing their sparse (word, bits) lists into the result. Memory
// is O(rules x log classes), never classes x rules.
//
// The witness of a rule is chosen by selectivity: the estimated share of packets (a fixed
// prior per field, e.g. most TCP packets carry ACK or PSH|ACK, a third of them no payload)
// whose value the condition admits; flags:S beats dsize:0. The prefilter keyword forces its
// keyword when it is indexable. A rule with no usable witness (no header keyword, only
// negations that admit almost every value, per-flow conditions) gets none and a reason; the
// caller keeps it a candidate on every packet of its group, and Always reports them.
//
// Per-flow witnesses (flowbits:isset, with Options.FlowbitWitness) are chosen the same way
// but answered by the flow: such rules are in PerFlow, and the caller indexes them by flowbit
// number with an IDIndex, looked up with the flow's set bits (and, while a packet is
// inspected, with the bits its rules set).
//
// The caller numbers the rules densely (its slice order) and maps result bits back to its
// own ids, as with the broad-rule index. A lookup allocates nothing.
package header

import (
	"errors"
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/rules"
)

// Rule is what the index needs of one rule: its match-list keywords and the keyword its
// prefilter option names.
type Rule struct {
	// Matches are the rule's match-list keywords (rules.Rule.Matches); every one must hold
	// for the rule to match.
	Matches []*rules.Option
	// Prefilter is the option the rule's prefilter keyword follows (rules.Rule.Prefilter),
	// nil when the rule has none. It forces the witness when it is one of Matches and
	// indexable; otherwise the witness is chosen by selectivity.
	Prefilter *rules.Option
}

// FromRule returns what the index needs of a parsed rule.
func FromRule(r *rules.Rule) Rule { return Rule{Matches: r.Matches, Prefilter: r.Prefilter} }

// Options configures Build.
type Options struct {
	// PrefilterKeywordOnly gives a witness only to rules whose prefilter keyword names an
	// indexable keyword: Suricata's detect.prefilter.default mpm taken literally. Meerkat's
	// default (false) indexes every rule it can, in both mpm and auto modes, since the alerts
	// are the same either way.
	PrefilterKeywordOnly bool
	// MaxAdmit is the largest estimated share of packets a witness may admit (default 0.9,
	// when 0): a weaker condition is not worth a place in the index and the rule stays a
	// candidate on every packet, with a reason. A forced witness (prefilter keyword) is
	// indexed whatever it admits.
	MaxAdmit float64
	// FlowbitWitness lets flowbits:isset be a witness (estimated to admit 0.1% of packets, as
	// flows seldom carry a given bit): such a rule is in PerFlow, neither in the lookup nor in
	// Always, and the caller indexes it by its flowbit numbers with an IDIndex, fed with the
	// flow's set bits and with the bits rules set while the packet is inspected. Off, a
	// flowbits keyword is never a witness.
	FlowbitWitness bool
}

// Choice is the witness chosen for one rule.
type Choice struct {
	// Keyword is the witness's canonical keyword name, "" when the rule has no witness.
	Keyword string
	// Option is the witness option (one of Rule.Matches), nil when none.
	Option *rules.Option
	// Admits is the estimated share of packets the witness admits, among packets that carry
	// the keyword's field.
	Admits float64
	// Forced is set when the prefilter keyword chose the witness.
	Forced bool
	// PerFlow is set when the witness is a flow variable (flowbits:isset, with
	// Options.FlowbitWitness): the rule is in Index.PerFlow, for the caller's IDIndex.
	PerFlow bool
	// Reason says, when there is no witness, why: one "keyword: reason" per keyword that
	// could not serve, joined by "; ". Empty when there is a witness.
	Reason string
}

// Witnessed reports whether the rule has a witness.
func (c Choice) Witnessed() bool { return c.Option != nil }

// entry is one non-zero word of a sparse bitset.
type entry struct {
	w    uint32
	bits uint64
}

// node is one non-empty segment-tree node: its rules (Index.entries[lo:hi]) and its nearest
// non-empty ancestor (-1: none).
type node struct {
	parent int32
	lo, hi uint32
}

// engine indexes the witnesses on one packet field.
type engine struct {
	f field
	// head maps a (clamped) field value to the first node of its chain, -1 none. nil for
	// the exact engines (tcp.seq, tcp.ack), which use keys.
	head []int32
	// keys are the distinct values of an exact engine, ascending; keyNode[i] is the node of
	// keys[i].
	keys    []uint32
	keyNode []int32
	nodes   []node
	rules   int // witnesses on this field
}

// Index is the header witness index. It is immutable once built and safe for concurrent
// lookups.
type Index struct {
	n, w    int
	engines []engine
	entries []entry
	// always has a bit for each rule without a witness, perFlow for each rule whose witness
	// is a flow variable.
	always  []uint64
	perFlow []uint64
	choices []Choice
}

// Len returns the number of rules given to Build.
func (x *Index) Len() int { return x.n }

// Words returns the number of uint64 words of a result bitset.
func (x *Index) Words() int { return x.w }

// Choice returns the witness chosen for rule i.
func (x *Index) Choice(i int) Choice { return x.choices[i] }

// Always returns the bitset (Words long) of the rules without a witness: those the caller
// keeps as candidates on every packet. The caller must not modify it.
func (x *Index) Always() []uint64 { return x.always }

// PerFlow returns the bitset (Words long) of the rules whose witness is a flow variable
// (Choice.PerFlow): the caller finds them with an IDIndex. The caller must not modify it.
func (x *Index) PerFlow() []uint64 { return x.perFlow }

// Witnessed reports whether rule i has a witness.
func (x *Index) Witnessed(i int) bool { return x.always[i>>6]&(1<<(uint(i)&63)) == 0 }

// Stats describes the built index.
type Stats struct {
	Rules, Witnessed, Words int
	// PerKeyword counts the witnesses by keyword.
	PerKeyword map[string]int
	// Nodes is the number of non-empty tree nodes, Entries their (word, bits) entries.
	Nodes, Entries int
}

// Stats returns sizes of the built index.
func (x *Index) Stats() Stats {
	st := Stats{Rules: x.n, Words: x.w, PerKeyword: map[string]int{}, Entries: len(x.entries)}
	for _, e := range x.engines {
		st.PerKeyword[fieldNames[e.f]] += e.rules
		st.Witnessed += e.rules
		st.Nodes += len(e.nodes)
	}
	return st
}

// Build chooses a witness for every rule and indexes them. Rule i is bit i of every result.
func Build(rs []Rule, opts Options) (*Index, error) {
	if len(rs) >= 1<<31 {
		return nil, errors.New("header: too many rules")
	}
	maxAdmit := opts.MaxAdmit
	if maxAdmit == 0 {
		maxAdmit = 0.9
	}
	x := &Index{n: len(rs), w: (len(rs) + 63) / 64, choices: make([]Choice, len(rs))}
	x.always = make([]uint64, x.w)
	x.perFlow = make([]uint64, x.w)
	var per [nFields][]witness
	var reasons []string
	// Rules repeat conditions (flags:S, dsize:0 ...): each distinct one is computed once.
	type key struct {
		name, value string
		negated     bool
		arg         any // the parsed argument by value (comparable kinds only)
	}
	type memo struct {
		c   cand
		why string
	}
	seen := map[key]memo{}
	for i := range rs {
		r := &rs[i]
		reasons = reasons[:0]
		best, bestOK := cand{}, false
		forced := false
		for _, o := range r.Matches {
			if o == nil {
				continue
			}
			k := key{name: o.Name, value: o.Value, negated: o.Negated}
			switch a := o.Arg.(type) {
			case rules.IntMatch, uint64:
				k.arg = a
			case *rules.TCPFlags:
				if a != nil {
					k.arg = *a
				}
			}
			mm, ok := seen[k]
			if !ok {
				mm.c, mm.why = candidate(o)
				seen[k] = mm
			}
			c, why := mm.c, mm.why
			c.opt = o
			if c.perFlow && !opts.FlowbitWitness {
				why = "flow variable, needs the flow's set bits (a per-flow witness, Options.FlowbitWitness off)"
			}
			if why != "" {
				if o == r.Prefilter {
					why += " (named by prefilter)"
				}
				reasons = append(reasons, o.Name+": "+why)
				continue
			}
			if o == r.Prefilter {
				best, bestOK, forced = c, true, true
				break
			}
			if !bestOK || c.admits < best.admits {
				best, bestOK = c, true
			}
		}
		ch := &x.choices[i]
		switch {
		case !bestOK && len(reasons) == 0:
			ch.Reason = "no header keyword"
		case !bestOK:
			ch.Reason = strings.Join(reasons, "; ")
		case opts.PrefilterKeywordOnly && !forced:
			ch.Reason = "no prefilter keyword on an indexable keyword (prefilter default mpm)"
		case !forced && best.admits > maxAdmit:
			reasons = append(reasons, fmt.Sprintf("%s: admits about %.0f%% of packets", best.opt.Name, 100*best.admits))
			ch.Reason = strings.Join(reasons, "; ")
		case best.perFlow:
			*ch = Choice{Keyword: best.opt.Name, Option: best.opt, Admits: best.admits, Forced: forced, PerFlow: true}
			x.perFlow[i>>6] |= 1 << (uint(i) & 63)
			continue
		default:
			*ch = Choice{Keyword: best.opt.Name, Option: best.opt, Admits: best.admits, Forced: forced}
			per[best.f] = append(per[best.f], witness{rule: uint32(i), c: best})
			continue
		}
		x.always[i>>6] |= 1 << (uint(i) & 63)
	}
	for f := range nFields {
		if len(per[f]) == 0 {
			continue
		}
		if fieldMax[f] == exactField {
			x.buildExact(field(f), per[f])
		} else {
			x.buildTree(field(f), per[f])
		}
	}
	return x, nil
}

// Lookup returns the bitset (one bit per rule, in Build order) of the rules whose witness
// holds for p; rules without a witness are not in it (see Always and Filter). The result is
// written into dst (len >= Words()); nothing allocates.
func (x *Index) Lookup(dst []uint64, p *decode.Packet) []uint64 {
	out := dst[:x.w]
	clear(out)
	for i := range x.engines {
		e := &x.engines[i]
		if e.f == fVLAN || e.f == fVLANLayer {
			// vlan.id (detect/match) needs a VLAN layer and reads any layer (the default),
			// every layer (all: the condition then holds on the first) or one given layer,
			// which reads an entry of the array (the one past the last layer too): so any
			// or all search the layers, a given layer the whole array.
			n := min(int(p.VLANCount), decode.MaxVLANs)
			if n == 0 {
				continue
			}
			if e.f == fVLANLayer {
				n = decode.MaxVLANs
			}
			for _, v := range p.VLAN[:n] {
				x.walk(out, e, e.head[clamp(uint64(v), fieldMax[fVLAN])])
			}
			continue
		}
		v, ok := value(p, e.f)
		if !ok {
			continue
		}
		if e.head != nil {
			x.walk(out, e, e.head[clamp(v, fieldMax[e.f])])
			continue
		}
		// Exact engine: binary search of the 32-bit value.
		k := uint32(v)
		lo, hi := 0, len(e.keys)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if e.keys[m] < k {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(e.keys) && e.keys[lo] == k {
			x.walk(out, e, e.keyNode[lo])
		}
	}
	return out
}

// walk ORs the rules of the chain starting at node n into out.
func (x *Index) walk(out []uint64, e *engine, n int32) {
	for n >= 0 {
		nd := &e.nodes[n]
		for _, en := range x.entries[nd.lo:nd.hi] {
			out[en.w] |= en.bits
		}
		n = nd.parent
	}
}

// Filter narrows words, a candidate bitset over the same numbering (for instance the
// broad-rule index's result, when the caller numbers both indexes alike), to the rules that
// have no witness or whose witness holds for p: words[i] &= Always[i] | Lookup[i] |
// flow[i]. flow is the caller's per-flow result for the PerFlow rules (an IDIndex lookup of
// the flow's bits; nil: none). scratch (len >= Words()) holds the lookup. Nothing allocates.
func (x *Index) Filter(words, scratch []uint64, p *decode.Packet, flow []uint64) {
	h := x.Lookup(scratch, p)
	if flow == nil {
		for i := range words[:x.w] {
			words[i] &= x.always[i] | h[i]
		}
		return
	}
	for i := range words[:x.w] {
		words[i] &= x.always[i] | h[i] | flow[i]
	}
}

// clamp maps a field value to the domain [0, max+1]: every value above max reads as max+1.
func clamp(v uint64, max uint32) uint32 {
	if v > uint64(max) {
		return max + 1
	}
	return uint32(v)
}
