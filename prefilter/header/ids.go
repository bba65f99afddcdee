package header

import (
	"math/bits"
	"slices"
)

// IDIndex maps small ids (flowbit numbers; app-layer protocol ids) to the rules that need
// one of them: the per-flow witnesses, which the flow, not the packet header, answers. Rule
// numbers are the caller's dense numbering, as in Index. It is immutable once built and safe
// for concurrent use; nothing allocates after BuildIDs.
type IDIndex struct {
	n, w int
	// rules[start[id]:start[id+1]] are the rules needing id, ascending; entries the same as
	// (word, bits) pairs, at estart.
	start, estart []uint32
	rules         []uint32
	entries       []entry
}

// BuildIDs indexes n rules; ids[i] lists the ids rule i needs any of (an OR: flowbits:isset,a|b
// lists both), empty for a rule not indexed here.
func BuildIDs(n int, ids [][]uint32) *IDIndex {
	x := &IDIndex{n: n, w: (n + 63) / 64}
	var top uint32
	for _, l := range ids {
		for _, id := range l {
			top = max(top, id+1)
		}
	}
	by := make([][]uint32, top)
	for i, l := range ids {
		for _, id := range l {
			if k := len(by[id]); k == 0 || by[id][k-1] != uint32(i) {
				by[id] = append(by[id], uint32(i))
			}
		}
	}
	x.start = make([]uint32, top+1)
	x.estart = make([]uint32, top+1)
	for id, rs := range by {
		slices.Sort(rs)
		rs = slices.Compact(rs)
		x.rules = append(x.rules, rs...)
		for _, r := range rs {
			w := r / 64
			if k := len(x.entries); k > int(x.estart[id]) && x.entries[k-1].w == w {
				x.entries[k-1].bits |= 1 << (r % 64)
			} else {
				x.entries = append(x.entries, entry{w: w, bits: 1 << (r % 64)})
			}
		}
		x.start[id+1] = uint32(len(x.rules))
		x.estart[id+1] = uint32(len(x.entries))
	}
	return x
}

// Words returns the number of uint64 words of a result bitset.
func (x *IDIndex) Words() int { return x.w }

// Rules returns the rules needing id, ascending (nil for an id no rule needs): what a rule
// setting flowbit id adds to the packet's candidates (those after it in inspection order).
// The caller must not modify it.
func (x *IDIndex) Rules(id uint32) []uint32 {
	if int(id)+1 >= len(x.start) {
		return nil
	}
	return x.rules[x.start[id]:x.start[id+1]]
}

// Add ORs the rules needing id into dst (len >= Words()).
func (x *IDIndex) Add(dst []uint64, id uint32) {
	if int(id)+1 >= len(x.estart) {
		return
	}
	for _, e := range x.entries[x.estart[id]:x.estart[id+1]] {
		dst[e.w] |= e.bits
	}
}

// AddSet ORs into dst the rules needing any id whose bit is set in set (bit j of set[i] is id
// 64*i + j; a flow's inline flowbits).
func (x *IDIndex) AddSet(dst []uint64, set []uint64) {
	for i, word := range set {
		for ; word != 0; word &= word - 1 {
			x.Add(dst, uint32(i<<6+bits.TrailingZeros64(word)))
		}
	}
}
