package flow

import "sync/atomic"

// Every Flow of a Table has a stable slot, a small number fixed when the table allocates the
// Flow and kept when the Flow is recycled, and a serial that is new for every flow the slot
// holds. The stages after the flow table (detect today; stream and app layer next) keep their
// per-flow state in Slots indexed by the slot, so that Flow carries no state of theirs, as
// Suricata's flow keeps its stream and app-layer state as opaque pointers owned by those
// layers.

// Slot returns the flow's slot: a dense index, below the number of flows its table has
// allocated, that the Flow keeps for its whole life in the table.
func (f *Flow) Slot() uint32 { return f.slot }

// detachedSerial numbers flows made by NewDetached; they count down from the top so they
// never meet a table's serials.
var detachedSerial atomic.Uint64

// NewDetached returns a flow that belongs to no Table (for tools and tests that inspect
// packets with hand-made flows). It has a slot and serial of its own; do not mix such flows
// with a Table's flows in one Slots.
func NewDetached() *Flow {
	n := detachedSerial.Add(1)
	return &Flow{slot: uint32(n), serial: ^n}
}

// slotPage is how many slots one page of a Slots holds.
const slotPage = 256

// Slots holds one T per flow, indexed by the flow's slot. At returns the flow's T, zeroed the
// first time it is asked for on behalf of a flow other than the one it last served (the
// serial tells), so an ended flow's state never leaks into the next flow of its slot. Pages
// are allocated as flows with new slots appear, so in steady state At allocates nothing. Like
// a Table, a Slots belongs to one worker and is not safe for concurrent use.
type Slots[T any] struct {
	pages [][]slotEntry[T]
}

type slotEntry[T any] struct {
	serial uint64
	v      T
}

// At returns f's value.
func (s *Slots[T]) At(f *Flow) *T {
	pg, i := f.slot/slotPage, f.slot%slotPage
	if int(pg) >= len(s.pages) {
		s.grow(int(pg))
	}
	page := s.pages[pg]
	if page == nil {
		page = make([]slotEntry[T], slotPage)
		s.pages[pg] = page
	}
	e := &page[i]
	if e.serial != f.serial {
		var zero T
		e.v, e.serial = zero, f.serial
	}
	return &e.v
}

func (s *Slots[T]) grow(pg int) {
	n := max(2*len(s.pages), pg+1)
	pages := make([][]slotEntry[T], n)
	copy(pages, s.pages)
	s.pages = pages
}
