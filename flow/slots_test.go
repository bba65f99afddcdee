package flow

import (
	"testing"
	"time"
)

// TestSlots: each flow of a table has its own slot value; a flow that takes over a recycled
// slot starts from a zero value; a known flow's lookup allocates nothing.
func TestSlots(t *testing.T) {
	cfg := testConfig()
	var ended []*Flow
	cfg.OnEnd = func(f *Flow) { ended = append(ended, f) }
	tbl := NewTable(cfg, 1024, 4)
	var s Slots[int]
	a, _ := tbl.Packet(udpPkt("10.0.0.1", "10.0.0.2", 1000, 53, 0))
	b, _ := tbl.Packet(udpPkt("10.0.0.3", "10.0.0.2", 1000, 53, 0))
	if a.Slot() == b.Slot() {
		t.Fatalf("two live flows share slot %d", a.Slot())
	}
	*s.At(a), *s.At(b) = 1, 2
	if *s.At(a) != 1 || *s.At(b) != 2 {
		t.Fatalf("values %d %d, want 1 2", *s.At(a), *s.At(b))
	}
	// Let a time out (30 s) while b lives on; the next new flow reuses a's Flow (the free list
	// is LIFO) and slot.
	tbl.Packet(udpPkt("10.0.0.3", "10.0.0.2", 1000, 53, 25*time.Second))
	tbl.Packet(udpPkt("10.0.0.3", "10.0.0.2", 1000, 53, 50*time.Second))
	if len(ended) != 1 || ended[0] != a {
		t.Fatalf("ended %v, want flow a", ended)
	}
	slot := a.Slot()
	c, _ := tbl.Packet(udpPkt("10.0.0.9", "10.0.0.2", 1000, 53, 51*time.Second))
	if c.Slot() != slot {
		t.Fatalf("new flow has slot %d, want the recycled %d", c.Slot(), slot)
	}
	if v := *s.At(c); v != 0 {
		t.Errorf("recycled slot kept the old flow's value %d", v)
	}
	if v := *s.At(b); v != 2 {
		t.Errorf("live flow's value %d, want 2", v)
	}
	if n := testing.AllocsPerRun(100, func() { *s.At(b)++; *s.At(c)++ }); n != 0 {
		t.Errorf("At on known flows: %v allocations", n)
	}
	// Slots beyond the first page.
	big := NewTable(cfg, 1024, 0)
	var fs []*Flow
	for i := range 600 {
		f, _ := big.Packet(udpPkt("10.1.0.1", "10.0.0.2", uint16(2000+i), 53, 0))
		fs = append(fs, f)
	}
	var s2 Slots[int]
	for i, f := range fs {
		*s2.At(f) = i + 1
	}
	for i, f := range fs {
		if *s2.At(f) != i+1 {
			t.Fatalf("flow %d (slot %d): %d", i, f.Slot(), *s2.At(f))
		}
	}
}
