package detect

import "testing"

// TestSetBits checks the word-at-a-time bit range against setting bits one by one.
func TestSetBits(t *testing.T) {
	for _, r := range [][2]uint32{{0, 65535}, {0, 0}, {63, 64}, {1, 127}, {80, 80}, {1000, 2000}, {65472, 65535}, {5, 70}} {
		var got, want [1024]uint64
		setBits(got[:], r[0], r[1])
		for b := r[0]; b <= r[1]; b++ {
			want[b>>6] |= 1 << (b & 63)
		}
		if got != want {
			t.Errorf("setBits %d..%d differs from the bit-by-bit result", r[0], r[1])
		}
	}
}
