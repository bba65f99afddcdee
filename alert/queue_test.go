package alert

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func alertE(iid uint32) Entry { return Entry{IID: iid, Action: ActionAlert, TxID: NoTx} }
func dropE(iid uint32) Entry {
	return Entry{IID: iid, Action: ActionDrop | ActionAlert, TxID: NoTx}
}
func passE(iid uint32) Entry { return Entry{IID: iid, Action: ActionPass, TxID: NoTx} }

func iids(es []Entry) []uint32 {
	out := make([]uint32, len(es))
	for i, e := range es {
		out[i] = e.IID
	}
	return out
}

type step struct {
	e    Entry
	d    Disposition
	want Status
}

func TestQueueTable(t *testing.T) {
	flowPass := passE(2)
	flowPass.Flags = FlagApplyToFlow
	flowDrop := dropE(1)
	flowDrop.Flags = FlagApplyToFlow
	noalert := Entry{IID: 4, Action: 0, TxID: NoTx}
	reject := Entry{IID: 6, Action: ActionReject | ActionDrop | ActionAlert, TxID: NoTx}

	tests := []struct {
		name       string
		max        int
		preDropped bool
		steps      []step
		entries    []uint32
		passed     bool
		verdict    Action
		flow       FlowAction
		overflow   int
		suppressed int
		dropIID    int // -1: no drop record
	}{
		{
			name: "append in order", max: 15,
			steps:   []step{{alertE(1), Matched, Added}, {alertE(3), Matched, Added}, {alertE(3), Matched, Added}, {alertE(9), Matched, Added}},
			entries: []uint32{1, 3, 3, 9}, dropIID: -1,
		},
		{
			name: "out of order insert", max: 15,
			steps:   []step{{alertE(5), Matched, Added}, {alertE(9), Matched, Added}, {alertE(1), Matched, Added}, {alertE(7), Matched, Added}, {alertE(5), Matched, Added}},
			entries: []uint32{1, 5, 5, 7, 9}, dropIID: -1,
		},
		{
			name: "overflow keeps lowest iids", max: 3,
			steps: []step{
				{alertE(5), Matched, Added}, {alertE(6), Matched, Added}, {alertE(7), Matched, Added},
				{alertE(8), Matched, Overflow}, {alertE(1), Matched, Replaced}, {alertE(6), Matched, Overflow},
				{alertE(9), Matched, Overflow},
			},
			entries: []uint32{1, 5, 6}, overflow: 4, dropIID: -1,
		},
		{
			name: "drop kept despite overflow", max: 1,
			steps:   []step{{alertE(1), Matched, Added}, {dropE(9), Matched, Overflow}, {reject, Matched, Overflow}},
			entries: []uint32{1}, verdict: ActionDrop | ActionReject, overflow: 2, dropIID: 9,
		},
		{
			name: "pass cuts later and earlier arrivals", max: 15,
			steps: []step{
				{alertE(5), Matched, Added}, {dropE(7), Matched, Added}, {noalert, Matched, Suppressed},
				{flowPass, Matched, Added}, // arrives late (tx phase), sorts first: 5, 7 and 4 go
				{alertE(1), Matched, Added}, {dropE(9), Matched, AfterPass}, {alertE(2), Matched, AfterPass},
			},
			entries: []uint32{1}, passed: true, flow: FlowPass, dropIID: 7,
		},
		{
			name: "drop before pass (action-order drop first)", max: 15,
			steps:   []step{{flowDrop, Matched, Added}, {flowPass, Matched, Added}, {alertE(3), Matched, AfterPass}},
			entries: []uint32{1}, passed: true, verdict: ActionDrop, flow: FlowDrop, dropIID: 1,
		},
		{
			name: "packet dropped before detection: pass not applied", max: 15, preDropped: true,
			steps:   []step{{flowPass, Matched, Added}, {alertE(3), Matched, AfterPass}},
			entries: []uint32{}, passed: true, verdict: ActionDrop, flow: FlowNone, dropIID: -1,
		},
		{
			name: "pass that does not fit ends nothing", max: 2,
			steps: []step{
				{alertE(0), Matched, Added}, {alertE(1), Matched, Added}, {flowPass, Matched, Overflow},
				{dropE(5), Matched, Overflow},
			},
			entries: []uint32{0, 1}, verdict: ActionDrop, flow: FlowPass, overflow: 2, dropIID: 5,
		},
		{
			name: "pass pushed out by late higher-priority alerts", max: 2,
			steps: []step{
				{passE(5), Matched, Added}, {dropE(7), Matched, AfterPass},
				{alertE(1), Matched, Added}, {alertE(2), Matched, Replaced},
			},
			entries: []uint32{1, 2}, verdict: ActionDrop, overflow: 2, dropIID: 7,
		},
		{
			name: "noalert and thresholds", max: 15,
			steps: []step{
				{noalert, Matched, Suppressed},
				{dropE(8), SuppressedKeepAction, Suppressed},
				{Entry{IID: 9, Action: ActionReject | ActionDrop | ActionAlert, TxID: NoTx}, SuppressedNoAction, Suppressed},
				{alertE(10), SuppressedNoAction, Suppressed},
				{Entry{IID: 11, Action: ActionConfig, TxID: NoTx}, Matched, Suppressed},
				{alertE(12), Matched, Added},
			},
			entries: []uint32{12}, verdict: ActionDrop, suppressed: 5, dropIID: 8,
		},
		{
			name: "suppressed pass applies to flow but does not cut", max: 15,
			steps:   []step{{flowPass, SuppressedKeepAction, Suppressed}, {alertE(3), Matched, Added}},
			entries: []uint32{3}, flow: FlowPass, suppressed: 1, dropIID: -1,
		},
		{
			name: "max 1", max: 1,
			steps:   []step{{alertE(9), Matched, Added}, {alertE(3), Matched, Replaced}, {alertE(4), Matched, Overflow}, {alertE(3), Matched, Overflow}},
			entries: []uint32{3}, overflow: 3, dropIID: -1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := New(tc.max)
			for round := 0; round < 2; round++ { // the second round checks Reset
				q.Reset()
				if tc.preDropped {
					q.SetDropped()
				}
				for i, s := range tc.steps {
					if got := q.Add(s.e, s.d); got != s.want {
						t.Fatalf("step %d (iid %d): status %d, want %d", i, s.e.IID, got, s.want)
					}
				}
				if got := iids(q.Entries()); !slices.Equal(got, tc.entries) && !(len(got) == 0 && len(tc.entries) == 0) {
					t.Fatalf("entries %v, want %v", got, tc.entries)
				}
				if q.Len() != len(tc.entries) {
					t.Fatalf("Len %d", q.Len())
				}
				for i := range q.Len() {
					if q.At(i) != q.Entries()[i] {
						t.Fatalf("At(%d) differs", i)
					}
				}
				if q.Passed() != tc.passed {
					t.Fatalf("Passed %v", q.Passed())
				}
				if pe, ok := q.PassEntry(); ok != tc.passed || ok && !pe.isPass() {
					t.Fatalf("PassEntry %v %v", pe, ok)
				}
				if q.Verdict() != tc.verdict {
					t.Fatalf("Verdict %#x, want %#x", q.Verdict(), tc.verdict)
				}
				if q.FlowVerdict() != tc.flow {
					t.Fatalf("FlowVerdict %d, want %d", q.FlowVerdict(), tc.flow)
				}
				if q.OverflowCount() != tc.overflow || q.SuppressedCount() != tc.suppressed {
					t.Fatalf("overflow %d suppressed %d, want %d %d", q.OverflowCount(), q.SuppressedCount(), tc.overflow, tc.suppressed)
				}
				de, ok := q.DropEntry()
				if tc.dropIID < 0 && ok || tc.dropIID >= 0 && (!ok || de.IID != uint32(tc.dropIID)) {
					t.Fatalf("DropEntry %v %v, want iid %d", de, ok, tc.dropIID)
				}
			}
			q.Reset()
			want := Counters{Alerts: 2 * uint64(len(tc.entries)), QueueOverflow: 2 * uint64(tc.overflow), Suppressed: 2 * uint64(tc.suppressed)}
			if q.Counters != want {
				t.Fatalf("counters %+v, want %+v", q.Counters, want)
			}
		})
	}
}

func TestMax255(t *testing.T) {
	q := New(255)
	for i := 299; i >= 0; i-- { // worst case: every arrival out of order
		q.Add(alertE(uint32(i)), Matched)
	}
	if q.Len() != 255 || q.OverflowCount() != 45 {
		t.Fatalf("len %d overflow %d", q.Len(), q.OverflowCount())
	}
	for i, e := range q.Entries() {
		if e.IID != uint32(i) {
			t.Fatalf("entry %d is iid %d", i, e.IID)
		}
	}
	for _, bad := range []int{0, -1, 256} {
		if New(bad).Max() != DefaultMax {
			t.Fatalf("New(%d).Max() = %d", bad, New(bad).Max())
		}
	}
	if New(1).Max() != 1 || New(255).Max() != 255 {
		t.Fatal("valid max not kept")
	}
}

func TestOrderTablesAndTx(t *testing.T) {
	q := New(15)
	in := []Entry{
		{Table: 4, IID: 1, Action: ActionAlert, TxID: NoTx},
		{Table: 6, IID: 0, Action: ActionAlert, TxID: 3},
		{Table: 4, IID: 7, Action: ActionAlert, TxID: NoTx},
		{Table: 4, IID: 7, Action: ActionAlert, TxID: 1},
		{Table: 4, IID: 7, Action: ActionAlert, TxID: 5},
		{Table: 3, IID: 9, Action: ActionAlert, TxID: NoTx},
		{Table: 4, IID: 7, Action: ActionAlert, TxID: 0},
		{Table: 4, IID: 7, Action: ActionAlert | ActionConfig, TxID: 5}, // equal key: after the first
	}
	for _, e := range in {
		q.Add(e, Matched)
	}
	want := []Entry{in[5], in[0], in[4], in[7], in[3], in[6], in[2], in[1]}
	if !slices.Equal(q.Entries(), want) {
		t.Fatalf("order\n got %v\nwant %v", q.Entries(), want)
	}
	if !in[4].Less(in[3]) || in[3].Less(in[4]) || !in[6].Less(in[2]) || in[4].Less(in[7]) {
		t.Fatal("Less disagrees")
	}
	if q.AfterPass(in[0]) {
		t.Fatal("AfterPass without a pass")
	}
	q.Add(Entry{Table: 4, IID: 7, Action: ActionPass, TxID: 1}, Matched)
	if !q.AfterPass(in[3]) || !q.AfterPass(in[6]) || q.AfterPass(in[4]) || q.AfterPass(in[5]) {
		t.Fatal("AfterPass wrong")
	}
	if got := iids(q.Entries()); !slices.Equal(got, []uint32{9, 1, 7, 7, 7}) {
		t.Fatalf("after pass %v", got)
	}
}

func TestFinalizeAndCounters(t *testing.T) {
	q := New(2)
	q.Add(alertE(5), Matched)
	q.Add(alertE(6), Matched)
	q.Add(alertE(7), Matched)
	q.Add(alertE(8), SuppressedNoAction)
	q.Finalize()
	q.Finalize()
	if q.Counters != (Counters{Alerts: 2, QueueOverflow: 1, Suppressed: 1}) {
		t.Fatalf("%+v", q.Counters)
	}
	q.Add(passE(1), Matched) // after Finalize: the change is folded in by the next Finalize
	q.Reset()
	if q.Counters != (Counters{Alerts: 0, QueueOverflow: 0, Suppressed: 0}) {
		t.Fatalf("after late pass %+v", q.Counters)
	}
	q.Add(alertE(1), Matched)
	q.Reset()
	var names []string
	var sum uint64
	q.Counters.Each(func(n string, v uint64) { names = append(names, n); sum += v })
	if !slices.Equal(names, []string{"detect.alert", "detect.alert_queue_overflow", "detect.alerts_suppressed"}) || sum != 1 {
		t.Fatalf("Each %v sum %d", names, sum)
	}
	var c Counters
	c.Add(&q.Counters)
	c.Add(&q.Counters)
	if c.Alerts != 2 {
		t.Fatalf("Add %+v", c)
	}
}

// TestManySuppressed covers more non-alerting matches than the queue remembers.
func TestManySuppressed(t *testing.T) {
	q := New(15)
	for i := range 1000 {
		q.Add(Entry{IID: uint32(100 + i), TxID: NoTx}, Matched)
	}
	if q.SuppressedCount() != 1000 {
		t.Fatalf("suppressed %d", q.SuppressedCount())
	}
	q.Add(passE(3000), Matched) // sorts after all of them: nothing changes
	if q.SuppressedCount() != 1000 {
		t.Fatalf("suppressed with late pass %d", q.SuppressedCount())
	}
	q.Reset()
	q.Add(passE(1), Matched)
	for i := range 1000 {
		q.Add(Entry{IID: uint32(100 + i), TxID: NoTx}, Matched)
	}
	if q.SuppressedCount() != 0 {
		t.Fatalf("suppressed after pass %d", q.SuppressedCount())
	}
}

func TestZeroAllocs(t *testing.T) {
	q := New(15)
	rng := rand.New(rand.NewPCG(1, 1))
	in := make([]Entry, 500)
	for i := range in {
		in[i] = Entry{IID: uint32(rng.IntN(10000)), Action: ActionAlert, TxID: NoTx}
		if i%7 == 0 {
			in[i].Action = ActionDrop | ActionAlert
		}
	}
	in[400] = passE(3)
	var sink int
	allocs := testing.AllocsPerRun(200, func() {
		q.Reset()
		for i, e := range in {
			q.Add(e, Disposition(i%3/2))
		}
		q.Finalize()
		for _, e := range q.Entries() {
			sink += int(e.IID)
		}
		sink += int(q.Verdict()) + int(q.FlowVerdict()) + q.SuppressedCount()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per packet", allocs)
	}
	_ = sink
}

// ---- reference model: collect all, sort, walk (PacketAlertFinalizeProcessQueue, 8.0, non-fw) ----

type refMatch struct {
	e Entry
	d Disposition
}

type refOut struct {
	logged                []Entry
	pass                  *Entry
	verdict               Action
	flow                  FlowAction
	firstDrop, dropRecord *Entry
	suppressed, discarded int
}

func refCompare(a, b Entry) int {
	ah, al := a.key()
	bh, bl := b.key()
	if c := cmp.Compare(ah, bh); c != 0 {
		return c
	}
	return cmp.Compare(al, bl)
}

func reference(max int, ms []refMatch, preDropped bool) refOut {
	var out refOut
	for i := range ms {
		if ms[i].e.Action&ActionDrop != 0 {
			out.dropRecord = &ms[i].e
			break
		}
	}
	s := slices.Clone(ms)
	slices.SortStableFunc(s, func(a, b refMatch) int { return refCompare(a.e, b.e) })
	dropped := preDropped
	if preDropped {
		out.verdict |= ActionDrop
	}
	cnt := 0
	for i := range s {
		e := s[i].e
		if s[i].d != SuppressedNoAction {
			skip := dropped && e.Action&(ActionPass|ActionAccept) != 0
			if !skip {
				if e.Action&ActionDrop != 0 {
					dropped = true
					out.verdict |= e.Action & verdictBits
					if out.firstDrop == nil {
						out.firstDrop = &s[i].e
					}
					if e.Flags&FlagApplyToFlow != 0 && out.flow == FlowNone {
						out.flow = FlowDrop
					}
				} else if e.Action&ActionPass != 0 && e.Flags&FlagApplyToFlow != 0 && out.flow == FlowNone {
					out.flow = FlowPass
				}
			}
		}
		if s[i].d != Matched || e.Action&(ActionAlert|ActionPass) == 0 {
			out.suppressed++
		} else if cnt < max {
			if e.Action&(ActionPass|ActionAlert) == ActionPass {
				out.pass = &s[i].e
				break
			}
			out.logged = append(out.logged, e)
			cnt++
			if e.Action&ActionPass != 0 {
				out.pass = &s[i].e
				break
			}
		} else {
			out.discarded++
		}
	}
	return out
}

func randomMatches(rng *rand.Rand) []refMatch {
	n := rng.IntN(60)
	iidRange := 1 + rng.IntN(50)
	fw := rng.IntN(4) == 0
	ms := make([]refMatch, n)
	for i := range ms {
		e := Entry{IID: uint32(rng.IntN(iidRange)), TxID: NoTx}
		if fw {
			e.Table = uint8(1 + rng.IntN(6))
		}
		if rng.IntN(3) == 0 {
			e.TxID = uint64(rng.IntN(4))
		}
		switch r := rng.IntN(20); {
		case r < 9:
			e.Action = ActionAlert
		case r < 12:
			e.Action = ActionDrop | ActionAlert
		case r < 13:
			e.Action = []Action{ActionReject, ActionRejectDst, ActionRejectBoth}[rng.IntN(3)] | ActionDrop | ActionAlert
		case r < 16:
			e.Action = ActionPass
		case r < 17:
			e.Action = ActionPass | ActionAlert
		case r < 18:
			e.Action = ActionDrop // noalert drop
		case r < 19:
			e.Action = ActionConfig
		default:
			e.Action = 0
		}
		if rng.IntN(2) == 0 {
			e.Flags = FlagApplyToFlow
		}
		d := Matched
		if r := rng.IntN(10); r == 0 {
			d = SuppressedKeepAction
		} else if r == 1 {
			d = SuppressedNoAction
		}
		ms[i] = refMatch{e, d}
	}
	// Arrival order: fully random, sorted, or sorted with a fraction moved to the end (a later
	// detection phase).
	switch rng.IntN(3) {
	case 1:
		slices.SortStableFunc(ms, func(a, b refMatch) int { return refCompare(a.e, b.e) })
	case 2:
		slices.SortStableFunc(ms, func(a, b refMatch) int { return refCompare(a.e, b.e) })
		var head, tail []refMatch
		for _, m := range ms {
			if rng.IntN(4) == 0 {
				tail = append(tail, m)
			} else {
				head = append(head, m)
			}
		}
		ms = append(head, tail...)
	}
	return ms
}

func TestQueueProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 43))
	for _, max := range []int{1, 2, 3, 5, 15, 255} {
		q := New(max)
		var want Counters
		for iter := range 20000 {
			ms := randomMatches(rng)
			pre := rng.IntN(8) == 0
			q.Reset()
			if pre {
				q.SetDropped()
			}
			for _, m := range ms {
				q.Add(m.e, m.d)
			}
			r := reference(max, ms, pre)
			fail := func(what string, got, w any) {
				t.Helper()
				t.Fatalf("max=%d iter=%d pre=%v %s: got %v, want %v\nmatches %v", max, iter, pre, what, got, w, ms)
			}
			if got := q.Entries(); !slices.Equal(got, r.logged) && !(len(got) == 0 && len(r.logged) == 0) {
				fail("entries", got, r.logged)
			}
			pe, ok := q.PassEntry()
			if ok != (r.pass != nil) || ok && pe != *r.pass {
				fail("pass", fmt.Sprint(pe, ok), r.pass)
			}
			if q.Verdict() != r.verdict {
				fail("verdict", q.Verdict(), r.verdict)
			}
			if q.FlowVerdict() != r.flow {
				fail("flow", q.FlowVerdict(), r.flow)
			}
			if fd, ok := q.FirstDrop(); ok != (r.firstDrop != nil) || ok && fd != *r.firstDrop {
				fail("first drop", fmt.Sprint(fd, ok), r.firstDrop)
			}
			if dr, ok := q.DropEntry(); ok != (r.dropRecord != nil) || ok && dr != *r.dropRecord {
				fail("drop record", fmt.Sprint(dr, ok), r.dropRecord)
			}
			if q.OverflowCount() != r.discarded {
				fail("overflow", q.OverflowCount(), r.discarded)
			}
			if q.SuppressedCount() != r.suppressed {
				fail("suppressed", q.SuppressedCount(), r.suppressed)
			}
			want.Alerts += uint64(len(r.logged))
			want.QueueOverflow += uint64(r.discarded)
			want.Suppressed += uint64(r.suppressed)
		}
		q.Reset()
		if q.Counters != want {
			t.Fatalf("max=%d counters %+v, want %+v", max, q.Counters, want)
		}
	}
}
