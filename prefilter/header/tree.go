package header

import (
	"slices"

	"github.com/meerkat-ids/meerkat/decode"
)

// buildTree indexes the witnesses of a table field: the interval endpoints cut [0, max+1]
// into classes; each witness interval goes to the O(log classes) canonical nodes of a
// segment tree over the classes; every value points at the deepest non-empty node of its
// class's root path.
func (x *Index) buildTree(f field, ws []witness) {
	top := fieldMax[f] + 1 // the last value of the domain
	cuts := []uint32{0}
	for _, w := range ws {
		for _, v := range w.c.ivs {
			cuts = append(cuts, v.lo)
			if v.hi < top {
				cuts = append(cuts, v.hi+1)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts) // class k is [cuts[k], cuts[k+1]-1]
	classOf := func(v uint32) int {
		i, found := slices.BinarySearch(cuts, v)
		if !found {
			i--
		}
		return i
	}
	nc := len(cuts)
	size := 1
	for size < nc {
		size <<= 1
	}
	own := map[int][]uint32{} // tree node -> rules
	for _, w := range ws {
		for _, v := range w.c.ivs {
			l, r := classOf(v.lo)+size, classOf(v.hi)+size+1
			for l < r {
				if l&1 == 1 {
					own[l] = append(own[l], w.rule)
					l++
				}
				if r&1 == 1 {
					r--
					own[r] = append(own[r], w.rule)
				}
				l >>= 1
				r >>= 1
			}
		}
	}
	e := engine{f: f, rules: len(ws)}
	// Compact nodes, ancestors first (smaller tree index), so a parent id exists when its
	// child is made.
	ids := make([]int, 0, len(own))
	for t := range own {
		ids = append(ids, t)
	}
	slices.Sort(ids)
	compact := make(map[int]int32, len(ids))
	nearest := func(t int) int32 { // nearest non-empty node on t's root path, t included
		for ; t > 0; t >>= 1 {
			if id, ok := compact[t]; ok {
				return id
			}
		}
		return -1
	}
	for _, t := range ids {
		parent := nearest(t >> 1)
		compact[t] = int32(len(e.nodes))
		e.nodes = append(e.nodes, x.node(parent, own[t]))
	}
	e.head = make([]int32, int(top)+1)
	for k := range nc {
		h := nearest(k + size)
		end := int(top) + 1
		if k+1 < nc {
			end = int(cuts[k+1])
		}
		for v := int(cuts[k]); v < end; v++ {
			e.head[v] = h
		}
	}
	x.engines = append(x.engines, e)
}

// buildExact indexes the witnesses of an exact field (one value each).
func (x *Index) buildExact(f field, ws []witness) {
	by := map[uint32][]uint32{}
	for _, w := range ws {
		by[w.c.exact] = append(by[w.c.exact], w.rule)
	}
	e := engine{f: f, rules: len(ws)}
	for k := range by {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	for _, k := range e.keys {
		e.keyNode = append(e.keyNode, int32(len(e.nodes)))
		e.nodes = append(e.nodes, x.node(-1, by[k]))
	}
	x.engines = append(x.engines, e)
}

// node makes a tree node holding rules ids (any order, duplicates allowed).
func (x *Index) node(parent int32, ids []uint32) node {
	slices.Sort(ids)
	lo := uint32(len(x.entries))
	for _, r := range ids {
		w := r / 64
		if k := len(x.entries); k > int(lo) && x.entries[k-1].w == w {
			x.entries[k-1].bits |= 1 << (r % 64)
		} else {
			x.entries = append(x.entries, entry{w: w, bits: 1 << (r % 64)})
		}
	}
	return node{parent: parent, lo: lo, hi: uint32(len(x.entries))}
}

// prior is an assumed distribution of a field's values over [0, max+1], as segments of
// constant density; it only serves to rank a rule's possible witnesses.
type prior []pseg

type pseg struct {
	lo, hi uint32
	mass   float64 // of the whole segment
}

// mass returns the share of packets whose value lies in ivs.
func (p prior) mass(ivs []iv) float64 {
	var m float64
	for _, v := range ivs {
		for _, s := range p {
			lo, hi := max(v.lo, s.lo), min(v.hi, s.hi)
			if lo > hi {
				continue
			}
			m += s.mass * float64(hi-lo+1) / float64(s.hi-s.lo+1)
		}
	}
	return min(m, 1)
}

// mkPrior returns a prior over [0, top] with the given segments (disjoint, ascending); the
// mass they leave is spread evenly over the values in between.
func mkPrior(top uint32, known ...pseg) prior {
	var p prior
	left := 1.0
	var gaps uint64
	at := uint32(0)
	for _, s := range known {
		left -= s.mass
		gaps += uint64(s.lo - at)
		at = s.hi + 1
	}
	gaps += uint64(top) + 1 - uint64(at)
	at = 0
	gap := func(lo, hi uint32) {
		if lo <= hi && gaps > 0 {
			p = append(p, pseg{lo, hi, left * float64(hi-lo+1) / float64(gaps)})
		}
	}
	for _, s := range known {
		if s.lo > at {
			gap(at, s.lo-1)
		}
		p = append(p, s)
		at = s.hi + 1
	}
	if at <= top {
		gap(at, top)
	}
	return p
}

func spike(v uint32, m float64) pseg { return pseg{v, v, m} }

// priors are the per-field value distributions used to rank witnesses, over [0, max+1]:
// rough shapes of ordinary traffic (most TCP packets are ACK or PSH|ACK, a third carry no
// payload, MTU-sized segments, DF set, offset 0), uniform where nothing better is known. The
// value max+1 (larger than any rule value) gets no mass except for dsize.
var priors = [nFields]prior{
	fFlags: mkPrior(256, spike(0x02, 0.03), spike(0x04, 0.02), spike(0x10, 0.42), spike(0x11, 0.03),
		spike(0x12, 0.03), spike(0x14, 0.02), spike(0x18, 0.33), spike(0x19, 0.02), spike(256, 0)),
	fTTL:     mkPrior(256, spike(256, 0)),
	fIType:   mkPrior(256, spike(0, 0.3), spike(3, 0.2), spike(8, 0.3), spike(11, 0.1), spike(256, 0)),
	fICode:   mkPrior(256, spike(0, 0.85), spike(256, 0)),
	fIPProto: mkPrior(256, spike(1, 0.02), spike(6, 0.8), spike(17, 0.16), spike(256, 0)),
	fTOS:     mkPrior(256, spike(0, 0.9), spike(256, 0)),
	fFragbits: mkPrior(8, spike(0, 0.5), spike(uint32(decode.IPv4FlagMF), 0.02),
		spike(uint32(decode.IPv4FlagDF), 0.46), spike(8, 0)),
	fWScale:     mkPrior(256, pseg{0, 14, 1}),
	fDsize:      mkPrior(65536, spike(0, 0.35), pseg{1, 1460, 0.55}, pseg{1461, 65535, 0.0999}, spike(65536, 0.0001)),
	fWindow:     mkPrior(65536, spike(0, 0.01), spike(65536, 0)),
	fMSS:        mkPrior(65536, spike(1460, 0.5), spike(65536, 0)),
	fID:         mkPrior(65536, spike(0, 0.2), spike(65536, 0)),
	fICMPID:     mkPrior(65536, spike(65536, 0)),
	fICMPSeq:    mkPrior(65536, spike(65536, 0)),
	fFragoffset: mkPrior(65536, spike(0, 0.97), spike(65536, 0)),
	fVLAN:       mkPrior(4096, spike(4096, 0)),
}
