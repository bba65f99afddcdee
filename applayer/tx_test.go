package applayer

import "testing"

// TestTxBits: TxBitSet reports a newly added bit (tx-bit.c TxBitAdd returns 1 only when the
// bit was not there), TxBitIsset finds it; ids outside 1..MaxTxBits are never set, and
// Reset clears the bits with the tx.
func TestTxBits(t *testing.T) {
	var d TxData
	steps := []struct {
		op   string
		id   uint32
		want bool
	}{
		{"has", 1, false},
		{"set", 1, true},
		{"set", 1, false},
		{"has", 1, true},
		{"has", 2, false},
		{"set", 64, true},
		{"set", 65, true},
		{"has", 64, true},
		{"has", 65, true},
		{"set", MaxTxBits, true},
		{"has", MaxTxBits, true},
		{"set", 0, false},
		{"has", 0, false},
		{"set", MaxTxBits + 1, false},
		{"has", MaxTxBits + 1, false},
	}
	for i, s := range steps {
		var got bool
		if s.op == "set" {
			got = d.Bits.Set(s.id)
		} else {
			got = d.Bits.Has(s.id)
		}
		if got != s.want {
			t.Errorf("step %d: %s(%d) = %v, want %v", i, s.op, s.id, got, s.want)
		}
	}
	d.Reset(7)
	if d.Bits.Has(1) || d.Bits.Has(MaxTxBits) || d.ID != 7 {
		t.Errorf("Reset kept bits: %+v", d.Bits)
	}
}
