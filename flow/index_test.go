package flow

import (
	"math/rand/v2"
	"testing"
)

// TestIndexAgainstMap inserts and removes flows at random, with hashes drawn from a small
// range so probe runs collide and wrap, and checks every lookup against a Go map.
func TestIndexAgainstMap(t *testing.T) {
	for _, hashRange := range []uint32{7, 1000, 1 << 31} {
		rng := rand.New(rand.NewPCG(1, uint64(hashRange)))
		ix := newIndex(4)
		ref := map[Key]*Flow{}
		for step := 0; step < 20000; step++ {
			var k Key
			k.LoPort = uint16(rng.IntN(3000))
			k.Proto = 6
			h := uint32(k.LoPort) % hashRange
			if hashRange > 1<<30 {
				h = hashKey(&k)
			}
			got := ix.find(h, &k)
			if got != ref[k] {
				t.Fatalf("range %d step %d: find %v, map %v", hashRange, step, got, ref[k])
			}
			if got == nil {
				f := &Flow{Key: k, Hash: h}
				ix.insert(f)
				ref[k] = f
			} else if rng.IntN(2) == 0 {
				ix.remove(got)
				delete(ref, k)
			}
			if ix.n != len(ref) {
				t.Fatalf("range %d step %d: %d entries, map %d", hashRange, step, ix.n, len(ref))
			}
		}
		for k, f := range ref {
			if ix.find(f.Hash, &k) != f {
				t.Fatalf("range %d: lost %v", hashRange, k)
			}
		}
	}
}
