// Package candidates holds the per-packet candidate set: the rules (by internal id, iid) that the
// prefilter stages found worth a full evaluation for the current packet.
//
// Suricata collects candidates in an array that prefilter engines fill in arbitrary order and
// with duplicates, then sorts it (QuickSortSigIntId) and removes adjacent duplicates
// (DetectPrefilterCopyDeDup) on every packet, so that rules are evaluated once each in iid order
// (reference/suricata-semantics.md §3.2). A Set gives the same two guarantees without sorting:
// it is a bitset over iids, so adding an iid twice is a no-op and walking the set bits yields
// ascending iids.
//
// A Set never needs clearing. Every 64-bit word carries the generation (packet number) that last
// wrote it; a word whose stamp is not the current generation counts as empty. Reset only
// increments the generation. A second, smaller level (one summary bit per word, stamped the same
// way) records which words are live, so iteration skips empty regions 4096 iids at a time.
//
// A Set belongs to one worker and is not safe for concurrent use. Nothing allocates after New.
package candidates

import (
	"iter"
	"math/bits"
)

// word is one 64-iid block of the set with the generation that last wrote it. Bits and stamp sit
// together so that an Add touches one cache line.
type word struct {
	bits uint64
	gen  uint32
}

// Set is a set of rule internal ids in [0, n), cleared in O(1) per packet by a generation stamp.
// The zero value is an empty set of capacity 0; use New.
type Set struct {
	n       int
	gen     uint32
	count   int
	words   []word // len (n+63)/64
	summary []word // bit j of summary[i] set: words[i*64+j] is live and non-zero
}

// New returns an empty Set for iids 0..n-1 (n rules). It panics if n is negative.
func New(n int) *Set {
	if n < 0 {
		panic("candidates: negative size")
	}
	nw := (n + 63) >> 6
	return &Set{
		n:       n,
		gen:     1, // stamps start at 0, so everything is stale
		words:   make([]word, nw),
		summary: make([]word, (nw+63)>>6),
	}
}

// Cap returns the number of iids the Set was built for (n of New).
func (s *Set) Cap() int { return s.n }

// Reset empties the set for the next packet. It is O(1): it moves to the next generation, which
// makes every word stale. When the 32-bit generation wraps around (after 2^32-1 resets) every
// stamp is cleared once, so that a word written 2^32 generations ago cannot come back to life.
func (s *Set) Reset() {
	s.count = 0
	s.gen++
	if s.gen == 0 {
		clear(s.words)
		clear(s.summary)
		s.gen = 1
	}
}

// Add puts iid into the set. Adding an iid that is already present does nothing. It panics if
// iid is outside [0, n).
func (s *Set) Add(iid int) {
	if uint(iid) >= uint(s.n) {
		panic("candidates: iid out of range")
	}
	wi := iid >> 6
	bit := uint64(1) << (uint(iid) & 63)
	w := &s.words[wi]
	if w.gen != s.gen {
		w.gen = s.gen
		w.bits = bit
		s.count++
		s.mark(wi)
		return
	}
	if w.bits&bit == 0 {
		w.bits |= bit
		s.count++
	}
}

// mark records in the summary that words[wi] is live in this generation.
func (s *Set) mark(wi int) {
	sm := &s.summary[wi>>6]
	bit := uint64(1) << (uint(wi) & 63)
	if sm.gen != s.gen {
		sm.gen = s.gen
		sm.bits = bit
		return
	}
	sm.bits |= bit
}

// AddWords ORs a precomputed bitset into the set: bit j of words[i] stands for iid
// base + 64*i + j. This is how a per-direction result of the broad-rule (IP-only) index joins the
// candidates. base must be a multiple of 64 and the words must lie within the set's range; bits
// for iids at or beyond n are ignored. Zero words cost one comparison each.
func (s *Set) AddWords(words []uint64, base int) {
	if base < 0 || base&63 != 0 || (base>>6)+len(words) > len(s.words) {
		panic("candidates: AddWords out of range")
	}
	w0 := base >> 6
	last := len(s.words) - 1
	for i, v := range words {
		if v == 0 {
			continue
		}
		wi := w0 + i
		if wi == last && s.n&63 != 0 {
			v &= uint64(1)<<(uint(s.n)&63) - 1
			if v == 0 {
				continue
			}
		}
		w := &s.words[wi]
		if w.gen != s.gen {
			w.gen = s.gen
			w.bits = v
			s.count += bits.OnesCount64(v)
			s.mark(wi)
			continue
		}
		if add := v &^ w.bits; add != 0 {
			w.bits |= add
			s.count += bits.OnesCount64(add)
		}
	}
}

// Has reports whether iid is in the set. iids outside [0, n) are never present.
func (s *Set) Has(iid int) bool {
	if uint(iid) >= uint(s.n) {
		return false
	}
	w := s.words[iid>>6]
	return w.gen == s.gen && w.bits&(uint64(1)<<(uint(iid)&63)) != 0
}

// Len returns the number of distinct iids in the set.
func (s *Set) Len() int { return s.count }

// Empty reports whether the set holds no iid.
func (s *Set) Empty() bool { return s.count == 0 }

// Next returns the smallest iid in the set that is >= from, and true; or 0 and false when there
// is none. A loop `for i, ok := s.Next(0); ok; i, ok = s.Next(i + 1)` visits the set in
// ascending order. Adding iids greater than the last one returned during such a loop is allowed
// and they will be visited (the flowbits post-match case of §3.2 item 4).
func (s *Set) Next(from int) (int, bool) {
	if from < 0 {
		from = 0
	}
	if from >= s.n {
		return 0, false
	}
	wi := from >> 6
	if w := s.words[wi]; w.gen == s.gen {
		if b := w.bits >> (uint(from) & 63); b != 0 {
			return from + bits.TrailingZeros64(b), true
		}
	}
	wi++
	si := wi >> 6
	if si >= len(s.summary) {
		return 0, false
	}
	var b uint64
	if sm := s.summary[si]; sm.gen == s.gen {
		b = sm.bits & (^uint64(0) << (uint(wi) & 63))
	}
	for {
		if b != 0 {
			w := si<<6 + bits.TrailingZeros64(b)
			return w<<6 + bits.TrailingZeros64(s.words[w].bits), true
		}
		si++
		if si >= len(s.summary) {
			return 0, false
		}
		if sm := s.summary[si]; sm.gen == s.gen {
			b = sm.bits
		}
	}
}

// ForEach calls fn with every iid in the set in ascending order until fn returns false.
// fn must not change the set; a loop that adds candidates while it runs (flowbits post-match,
// §3.2 item 4) uses Next.
func (s *Set) ForEach(fn func(iid int) bool) {
	gen := s.gen
	for si := range s.summary {
		sm := s.summary[si]
		if sm.gen != gen {
			continue
		}
		for b := sm.bits; b != 0; b &= b - 1 {
			wi := si<<6 + bits.TrailingZeros64(b)
			base := wi << 6
			for w := s.words[wi].bits; w != 0; w &= w - 1 {
				if !fn(base + bits.TrailingZeros64(w)) {
					return
				}
			}
		}
	}
}

// All returns an iterator over the set's iids in ascending order, for use with range:
// `for iid := range s.All() { ... }`. It has the same semantics as ForEach.
func (s *Set) All() iter.Seq[int] {
	return func(yield func(int) bool) { s.ForEach(yield) }
}

// AppendTo appends the set's iids in ascending order to dst and returns the extended slice.
func (s *Set) AppendTo(dst []int) []int {
	gen := s.gen
	for si := range s.summary {
		sm := s.summary[si]
		if sm.gen != gen {
			continue
		}
		for b := sm.bits; b != 0; b &= b - 1 {
			wi := si<<6 + bits.TrailingZeros64(b)
			base := wi << 6
			for w := s.words[wi].bits; w != 0; w &= w - 1 {
				dst = append(dst, base+bits.TrailingZeros64(w))
			}
		}
	}
	return dst
}
