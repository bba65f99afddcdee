package flow

// index is the table's hash index: open addressing with linear probing over a power-of-two
// array, keyed by the flow hash that the flow_id needs anyway. Lookups compare the stored
// hash before the key, and deletion shifts entries back instead of leaving tombstones, so
// probe sequences stay short under churn. It grows by doubling when half full; it never
// allocates on a lookup.
type index struct {
	slots []slot
	mask  uint32
	n     int
	// scratch is each's list of flows, kept for the next call.
	scratch []*Flow
}

type slot struct {
	hash uint32
	f    *Flow
}

func newIndex(size int) index {
	c := 1024
	for c < size*2 {
		c <<= 1
	}
	return index{slots: make([]slot, c), mask: uint32(c - 1)}
}

func (ix *index) find(h uint32, k *Key) *Flow {
	for i := h & ix.mask; ; i = (i + 1) & ix.mask {
		s := &ix.slots[i]
		if s.f == nil {
			return nil
		}
		if s.hash == h && s.f.Key == *k {
			return s.f
		}
	}
}

func (ix *index) insert(f *Flow) {
	if (ix.n+1)*2 > len(ix.slots) {
		ix.grow()
	}
	ix.place(f)
	ix.n++
}

func (ix *index) place(f *Flow) {
	for i := f.Hash & ix.mask; ; i = (i + 1) & ix.mask {
		if ix.slots[i].f == nil {
			ix.slots[i] = slot{hash: f.Hash, f: f}
			return
		}
	}
}

func (ix *index) grow() {
	old := ix.slots
	ix.slots = make([]slot, len(old)*2)
	ix.mask = uint32(len(ix.slots) - 1)
	for _, s := range old {
		if s.f != nil {
			ix.place(s.f)
		}
	}
}

// remove deletes f, moving later entries of its probe run back so no gap breaks a lookup.
func (ix *index) remove(f *Flow) {
	i := f.Hash & ix.mask
	for ix.slots[i].f != f {
		if ix.slots[i].f == nil {
			return // not present
		}
		i = (i + 1) & ix.mask
	}
	ix.slots[i] = slot{}
	ix.n--
	for j := (i + 1) & ix.mask; ix.slots[j].f != nil; j = (j + 1) & ix.mask {
		home := ix.slots[j].hash & ix.mask
		// Move slots[j] into the hole at i when its home is not in the cyclic range (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			ix.slots[i] = ix.slots[j]
			ix.slots[j] = slot{}
			i = j
		}
	}
}

// each calls fn for every flow; fn may remove the flow it is given. The flows are listed
// first in a slice kept from call to call (a call from inside fn lists in its own).
func (ix *index) each(fn func(f *Flow)) {
	all := ix.scratch[:0]
	ix.scratch = nil
	for _, s := range ix.slots {
		if s.f != nil {
			all = append(all, s.f)
		}
	}
	for _, f := range all {
		fn(f)
	}
	clear(all) // keep no ended flow reachable from here
	ix.scratch = all[:0]
}
