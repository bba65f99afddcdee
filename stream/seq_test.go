package stream

import "testing"

func TestSeqWrap(t *testing.T) {
	tests := []struct {
		a, b        Seq
		lt, leq, gt bool
	}{
		{1, 2, true, true, false},
		{2, 1, false, false, true},
		{5, 5, false, true, false},
		{0xfffffff0, 0x10, true, true, false}, // 0x10 is after the wrap
		{0x10, 0xfffffff0, false, false, true},
	}
	for _, tt := range tests {
		if got := tt.a.LT(tt.b); got != tt.lt {
			t.Errorf("%#x.LT(%#x) = %v", tt.a, tt.b, got)
		}
		if got := tt.a.LEQ(tt.b); got != tt.leq {
			t.Errorf("%#x.LEQ(%#x) = %v", tt.a, tt.b, got)
		}
		if got := tt.a.GT(tt.b); got != tt.gt {
			t.Errorf("%#x.GT(%#x) = %v", tt.a, tt.b, got)
		}
	}
	if d := Seq(0x10).Diff(0xfffffff0); d != 0x20 {
		t.Errorf("Diff across wrap = %d, want 32", d)
	}
	if !Seq(3).InRange(0xfffffffe, 5) || Seq(5).InRange(0xfffffffe, 5) {
		t.Errorf("InRange across wrap wrong")
	}
}
