// Package broad indexes "broad" rules (rules without a usable fast pattern: IP-only rules,
// header-only rules, firewall-style rules) so that one lookup per packet direction returns,
// as a bitset, every broad rule whose header accepts the packet, without looping over rules.
//
// Layout (DESIGN.md, "The hot path without sorting", step 3):
//   - per address family, a source and a destination CIDR trie. Every prefix of every rule's
//     address set (rules.Address ranges, negations already applied, split into CIDR blocks)
//     is a trie node. Prefixes of merged ranges form a laminar family, so the longest inserted
//     prefix P containing an address is covered entirely by every rule that covers the address;
//     the rules covering the address are therefore exactly the rules owning P or one of its
//     inserted ancestors. Each node stores only its own rules as a sparse (word, bits) list and
//     a link to its nearest inserted ancestor: one longest-prefix lookup, then a walk up a chain
//     (at most 33 / 129 nodes, usually 1-3) yields the full covering set. Memory is linear in
//     the number of (rule, prefix) pairs, never nodes x rules.
//   - per side, a port -> class array (65536 entries) and deduplicated class bitsets;
//   - per (family, has-ports, IP protocol) a deduplicated bitset holding the protocol, the
//     ipv4/ipv6-only restriction and the "port-less packets need any/any ports" rule.
//
// The result is AND(src, dst, src port, dst port, protocol). Each dense bitset also has a
// summary, one bit per word telling whether the word is non-zero; given a scratch buffer
// (ScratchWords) and an index of at least minSummaryWords words, Lookup ANDs the five
// factors' summaries first and computes only the words that can be non-zero. That pays when the caller numbers the rules so that rules with the
// same header sit side by side (the detection engine sorts them by header).
package broad

import (
	"errors"
	"math/bits"
	"net/netip"
	"slices"
	"unsafe"

	"github.com/meerkat-ids/meerkat/rules"
)

// Rule is what the index needs of one broad rule: its dense index among the broad rules is
// its position in the slice given to Build (0..n-1); the caller maps it back to the engine's iid.
// A nil address or port means any.
type Rule struct {
	Src, Dst           *rules.Address
	SrcPort, DstPort   *rules.Port
	Protos             []uint8 // empty: any IP protocol
	IPv4Only, IPv6Only bool
}

// Options configures Build.
type Options struct {
	// Trie selects the CIDR trie: TrieBart (default, "") or TrieCidranger.
	Trie string
}

// entry is one non-zero word of a sparse bitset.
type entry struct {
	w    uint32
	bits uint64
}

// node is one inserted prefix: its own rules (entries[lo:hi]) and its nearest inserted
// ancestor (-1: none).
type node struct {
	parent int32
	lo, hi uint32
	// dense is 1 + the pool id of the node's own rules when they are too many for a sparse
	// list (more than a quarter of the words); 0 otherwise.
	dense uint32
}

// maxChain bounds a node chain: one node per prefix length at most.
const maxChain = 129

// chunk is the number of words Lookup combines at a time in a stack buffer.
const chunk = 64

// Index is the broad-rule index. It is immutable once built and safe for concurrent Lookups.
type Index struct {
	n, w    int
	trie    string
	tries   [2][2]lpm // [family v4=0/v6=1][side src=0/dst=1]
	nodes   []node
	entries []entry
	// pool holds the deduplicated dense bitsets, w words each.
	pool []uint64
	// proto[f*2+hasPorts][proto] is a pool id.
	proto [4][256]uint32
	// portCls[side][port] is a pool id.
	portCls  [2][]uint32
	nBitsets int
	nPrefix  int
	// sw is the number of words of a summary: one bit per result word. sums holds, per pool
	// id, the summary of that bitset: which of its words are not zero.
	sw   int
	sums []uint64
}

// minSummaryWords is the smallest index (in result words) for which Lookup uses the
// summaries: below it, walking every word costs less than the summaries' bookkeeping.
const minSummaryWords = 8

// Len returns the number of indexed rules.
func (x *Index) Len() int { return x.n }

// Words returns the number of uint64 words of a result bitset.
func (x *Index) Words() int { return x.w }

// ScratchWords is the buffer length with which Lookup can skip the words that no rule can
// set: the first Words hold the result, the rest is scratch (the caller must not write to
// it; Lookup keeps what it needs there).
func (x *Index) ScratchWords() int { return 2*x.w + 2*x.sw }

// sum returns the summary of pool bitset id.
func (x *Index) sum(id uint32) []uint64 {
	o := int(id) * x.sw
	return x.sums[o : o+x.sw : o+x.sw]
}

// Trie returns the name of the trie implementation in use.
func (x *Index) Trie() string { return x.trie }

// Stats describes the built index.
type Stats struct {
	Rules, Words    int
	Prefixes        int // trie nodes over all four tries
	SparseEntries   int // (word, bits) entries held by the nodes
	DistinctBitsets int // deduplicated dense bitsets (protocol, port classes, dense nodes)
	DenseNodes      int // trie nodes whose own rules are held as a dense bitset
}

// Stats returns sizes of the built index.
func (x *Index) Stats() Stats {
	st := Stats{Rules: x.n, Words: x.w, Prefixes: x.nPrefix, SparseEntries: len(x.entries), DistinctBitsets: x.nBitsets}
	for _, n := range x.nodes {
		if n.dense != 0 {
			st.DenseNodes++
		}
	}
	return st
}

func (x *Index) bits(id uint32) []uint64 {
	o := int(id) * x.w
	return x.pool[o : o+x.w : o+x.w]
}

// interner deduplicates dense bitsets into Index.pool.
type interner struct {
	x *Index
	m map[string]uint32
}

func (in *interner) intern(b []uint64) uint32 {
	var key string
	if len(b) > 0 {
		key = string(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*8))
	}
	if id, ok := in.m[key]; ok {
		return id
	}
	id := uint32(len(in.m))
	in.m[key] = id
	in.x.pool = append(in.x.pool, b...)
	return id
}

func portAny(p *rules.Port) bool { return p == nil || p.Any }

// Build indexes rs. Rule i is bit i of every result.
func Build(rs []Rule, opts Options) (*Index, error) {
	if len(rs) >= 1<<31 {
		return nil, errors.New("broad: too many rules")
	}
	x := &Index{n: len(rs), w: (len(rs) + 63) / 64, trie: opts.Trie}
	if x.trie == "" {
		x.trie = TrieBart
	}
	in := &interner{x: x, m: map[string]uint32{}}
	for f := range 2 {
		for s := range 2 {
			t, err := newLPM(x.trie)
			if err != nil {
				return nil, err
			}
			x.tries[f][s] = t
			if err := x.buildTrie(rs, f, s, in); err != nil {
				return nil, err
			}
		}
	}
	x.buildProto(rs, in)
	x.buildPorts(rs, in, 0)
	x.buildPorts(rs, in, 1)
	x.nBitsets = len(in.m)
	x.sw = (x.w + 63) / 64
	x.sums = make([]uint64, x.nBitsets*x.sw)
	for id := range x.nBitsets {
		sm := x.sum(uint32(id))
		for w, v := range x.bits(uint32(id)) {
			if v != 0 {
				sm[w>>6] |= 1 << (w & 63)
			}
		}
	}
	return x, nil
}

var (
	allV4 = []rules.IPRange{rules.AllIPv4}
	allV6 = []rules.IPRange{rules.AllIPv6}
)

// buildTrie inserts the prefixes of family f (0 v4, 1 v6) of side s (0 src, 1 dst).
func (x *Index) buildTrie(rs []Rule, f, s int, in *interner) error {
	dense := make([]uint64, x.w)
	owners := map[netip.Prefix][]uint32{}
	// Rules often share one parsed address ($HOME_NET): split each one only once.
	cache := map[*rules.Address][]netip.Prefix{}
	var buf []netip.Prefix
	for i := range rs {
		r := &rs[i]
		if (f == 0 && r.IPv6Only) || (f == 1 && r.IPv4Only) {
			continue
		}
		a := r.Src
		if s == 1 {
			a = r.Dst
		}
		var rgs []rules.IPRange
		switch {
		case a == nil && f == 0:
			rgs = allV4
		case a == nil:
			rgs = allV6
		case f == 0:
			rgs = a.V4
		default:
			rgs = a.V6
		}
		ps, ok := cache[a]
		if !ok {
			buf = buf[:0]
			for _, rg := range rgs {
				buf = rangePrefixes(buf, rg)
			}
			ps = buf
			if a != nil {
				ps = slices.Clone(buf)
				cache[a] = ps
			}
		}
		for _, p := range ps {
			owners[p] = append(owners[p], uint32(i))
		}
	}
	ps := make([]netip.Prefix, 0, len(owners))
	for p := range owners {
		ps = append(ps, p)
	}
	// Address then length: a pre-order walk of the laminar family (ancestors first).
	slices.SortFunc(ps, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return a.Bits() - b.Bits()
	})
	type open struct {
		p  netip.Prefix
		id int32
	}
	var stack []open
	t := x.tries[f][s]
	for _, p := range ps {
		for len(stack) > 0 {
			top := stack[len(stack)-1].p
			if top.Bits() <= p.Bits() && top.Contains(p.Addr()) {
				break
			}
			stack = stack[:len(stack)-1]
		}
		parent := int32(-1)
		if len(stack) > 0 {
			parent = stack[len(stack)-1].id
		}
		id := int32(len(x.nodes))
		lo := uint32(len(x.entries))
		ids := owners[p]
		slices.Sort(ids)
		for _, r := range ids {
			w := r / 64
			if k := len(x.entries); k > int(lo) && x.entries[k-1].w == w {
				x.entries[k-1].bits |= 1 << (r % 64)
			} else {
				x.entries = append(x.entries, entry{w: w, bits: 1 << (r % 64)})
			}
		}
		nd := node{parent: parent, lo: lo, hi: uint32(len(x.entries))}
		if int(nd.hi-nd.lo) > x.w/4 && nd.hi-nd.lo > 8 {
			clear(dense)
			for _, e := range x.entries[nd.lo:nd.hi] {
				dense[e.w] = e.bits
			}
			x.entries = x.entries[:lo]
			nd.hi, nd.dense = lo, 1+in.intern(dense)
		}
		x.nodes = append(x.nodes, nd)
		if err := t.insert(p, uint32(id)); err != nil {
			return err
		}
		stack = append(stack, open{p, id})
	}
	x.nPrefix += len(ps)
	return nil
}

// buildProto fills the (family, has-ports, protocol) table.
func (x *Index) buildProto(rs []Rule, in *interner) {
	var named [256][]int // rules naming each protocol
	ok := func(r *Rule, f, hp int) bool {
		if (f == 0 && r.IPv6Only) || (f == 1 && r.IPv4Only) {
			return false
		}
		return hp == 1 || portAny(r.SrcPort) && portAny(r.DstPort)
	}
	for i := range rs {
		for _, p := range rs[i].Protos {
			if l := named[p]; len(l) == 0 || l[len(l)-1] != i {
				named[p] = append(named[p], i)
			}
		}
	}
	base := make([]uint64, x.w)
	b := make([]uint64, x.w)
	for f := range 2 {
		for hp := range 2 {
			clear(base)
			for i := range rs {
				if len(rs[i].Protos) == 0 && ok(&rs[i], f, hp) {
					base[i/64] |= 1 << (i % 64)
				}
			}
			baseID := in.intern(base)
			for p := range 256 {
				if len(named[p]) == 0 {
					x.proto[f*2+hp][p] = baseID
					continue
				}
				copy(b, base)
				for _, i := range named[p] {
					if ok(&rs[i], f, hp) {
						b[i/64] |= 1 << (i % 64)
					}
				}
				x.proto[f*2+hp][p] = in.intern(b)
			}
		}
	}
}

// buildPorts fills the port -> class table of side s by a sweep over the range boundaries.
func (x *Index) buildPorts(rs []Rule, in *interner, s int) {
	type ev struct {
		at   int // port where the change applies
		rule int
		set  bool
	}
	cur := make([]uint64, x.w)
	var evs []ev
	for i := range rs {
		p := rs[i].SrcPort
		if s == 1 {
			p = rs[i].DstPort
		}
		if portAny(p) {
			cur[i/64] |= 1 << (i % 64)
			continue
		}
		for _, r := range p.Ranges {
			evs = append(evs, ev{int(r.First), i, true}, ev{int(r.Last) + 1, i, false})
		}
	}
	// Clears before sets at one port, so that adjacent ranges of one rule stay set.
	slices.SortFunc(evs, func(a, b ev) int {
		if a.at != b.at {
			return a.at - b.at
		}
		if a.set != b.set {
			if a.set {
				return 1
			}
			return -1
		}
		return 0
	})
	cls := make([]uint32, 65536)
	j := 0
	id := in.intern(cur)
	for port := 0; port < 65536; {
		for j < len(evs) && evs[j].at == port {
			e := evs[j]
			if e.set {
				cur[e.rule/64] |= 1 << (e.rule % 64)
			} else {
				cur[e.rule/64] &^= 1 << (e.rule % 64)
			}
			j++
			if j == len(evs) || evs[j].at != port {
				id = in.intern(cur)
			}
		}
		next := 65536
		if j < len(evs) && evs[j].at < next {
			next = evs[j].at
		}
		for ; port < next; port++ {
			cls[port] = id
		}
	}
	x.portCls[s] = cls
}

// Lookup returns the bitset (one bit per broad rule, in index order) of the rules whose header
// accepts a packet with these fields. The result is written into dst (len >= Words()), no
// allocation. hasPorts=false for protocols without ports or for fragments: then rules with
// port restrictions never match (Suricata: ports only for TCP/UDP/SCTP; fragments fail
// port-specific rules; other protocols need any/any).
func (x *Index) Lookup(dst []uint64, src, dstIP netip.Addr, proto uint8, sp, dp uint16, hasPorts bool) []uint64 {
	out := dst[:x.w]
	clear(out)
	src, dstIP = src.Unmap(), dstIP.Unmap()
	if x.w == 0 || !src.IsValid() || !dstIP.IsValid() || src.Is4() != dstIP.Is4() {
		return out
	}
	f := 1
	if src.Is4() {
		f = 0
	}
	sn, ok := x.tries[f][0].lookup(src)
	if !ok {
		return out
	}
	dn, ok := x.tries[f][1].lookup(dstIP)
	if !ok {
		return out
	}
	hp := 0
	if hasPorts {
		hp = 1
	}
	pid := x.proto[f*2+hp][proto]
	if x.w >= minSummaryWords && len(dst) >= x.ScratchWords() &&
		x.lookupSummary(out, dst[x.w:2*x.w], dst[2*x.w:2*x.w+x.sw], dst[2*x.w+x.sw:2*x.w+2*x.sw], sn, dn, pid, sp, dp, hasPorts) {
		return out
	}
	nodes, ents := x.nodes, x.entries
	for n := int32(sn); n >= 0; n = nodes[n].parent {
		if d := nodes[n].dense; d != 0 {
			for i, w := range x.bits(d - 1) {
				out[i] |= w
			}
			continue
		}
		for _, e := range ents[nodes[n].lo:nodes[n].hi] {
			out[e.w] |= e.bits
		}
	}
	pb := x.bits(pid)
	var spb, dpb []uint64
	if hasPorts {
		spb = x.bits(x.portCls[0][sp])
		dpb = x.bits(x.portCls[1][dp])
	}
	// AND with the union of the destination chain, chunk by chunk through a stack buffer.
	var cur, end, dense [maxChain]uint32
	k, kd := 0, 0
	for n := int32(dn); n >= 0 && k < maxChain; n = nodes[n].parent {
		if d := nodes[n].dense; d != 0 {
			dense[kd] = d - 1
			kd++
		} else if nodes[n].lo < nodes[n].hi {
			cur[k], end[k] = nodes[n].lo, nodes[n].hi
			k++
		}
	}
	var tmp [chunk]uint64
	for base := 0; base < len(out); base += chunk {
		o := out[base:min(base+chunk, len(out))]
		lim := uint32(base + len(o))
		for j := range k {
			c, e := cur[j], end[j]
			for c < e && ents[c].w < lim {
				tmp[ents[c].w-uint32(base)] |= ents[c].bits
				c++
			}
			cur[j] = c
		}
		t := tmp[:len(o)]
		for _, d := range dense[:kd] {
			db := x.bits(d)[base : base+len(o)]
			for i := range t {
				t[i] |= db[i]
			}
		}
		p := pb[base : base+len(o)]
		if hasPorts {
			s, d := spb[base:base+len(o)], dpb[base:base+len(o)]
			for i := range o {
				o[i] &= t[i] & p[i] & s[i] & d[i]
			}
		} else {
			for i := range o {
				o[i] &= t[i] & p[i]
			}
		}
		clear(t)
	}
	return out
}

// lookupSummary is Lookup with scratch space: acc (Words long, zero on entry, zero again on
// return) and s and c (summary-sized, overwritten). It first ANDs the summaries of the five
// factors (source chain, destination chain, protocol, source port, destination port) to find
// the result words that can be non-zero, then computes only those: with rules clustered by
// header (the caller's order), most words of a large index drop out. When more than a quarter
// of the words remain it computes nothing and returns false: the word-by-word path is then
// cheaper.
func (x *Index) lookupSummary(out, acc, s, c []uint64, sn, dn, pid uint32, sp, dp uint16, hasPorts bool) bool {
	copy(s, x.sum(pid))
	var spb, dpb []uint64
	if hasPorts {
		spid, dpid := x.portCls[0][sp], x.portCls[1][dp]
		spb, dpb = x.bits(spid), x.bits(dpid)
		for i, v := range x.sum(spid) {
			s[i] &= v
		}
		for i, v := range x.sum(dpid) {
			s[i] &= v
		}
	}
	nodes, ents := x.nodes, x.entries
	for _, start := range [2]uint32{sn, dn} {
		clear(c)
		for n := int32(start); n >= 0; n = nodes[n].parent {
			if d := nodes[n].dense; d != 0 {
				for i, v := range x.sum(d - 1) {
					c[i] |= v
				}
				continue
			}
			for _, e := range ents[nodes[n].lo:nodes[n].hi] {
				c[e.w>>6] |= 1 << (e.w & 63)
			}
		}
		for i := range s {
			s[i] &= c[i]
		}
	}
	left := 0
	for _, v := range s {
		left += bits.OnesCount64(v)
	}
	if 4*left > x.w {
		return false
	}
	// Source chain into out, destination chain into acc, on the summary's words only.
	for side, start := range [2]uint32{sn, dn} {
		dstw := out
		if side == 1 {
			dstw = acc
		}
		for n := int32(start); n >= 0; n = nodes[n].parent {
			if d := nodes[n].dense; d != 0 {
				b := x.bits(d - 1)
				for i, sv := range s {
					for sv != 0 {
						w := i<<6 | bits.TrailingZeros64(sv)
						sv &= sv - 1
						dstw[w] |= b[w]
					}
				}
				continue
			}
			for _, e := range ents[nodes[n].lo:nodes[n].hi] {
				if s[e.w>>6]>>(e.w&63)&1 != 0 {
					dstw[e.w] |= e.bits
				}
			}
		}
	}
	pb := x.bits(pid)
	for i, sv := range s {
		for sv != 0 {
			w := i<<6 | bits.TrailingZeros64(sv)
			sv &= sv - 1
			v := out[w] & acc[w] & pb[w]
			if hasPorts {
				v &= spb[w] & dpb[w]
			}
			out[w], acc[w] = v, 0
		}
	}
	return true
}
