package candidates

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// benchRules is the rule count of the candidate benchmarks.
const benchRules = 50000

// benchPackets returns nPkts candidate streams of k distinct iids out of benchRules, each iid
// pushed twice (as when payload and stream MPM both hit), in random order.
func benchPackets(k, nPkts int) [][]uint32 {
	rng := rand.New(rand.NewPCG(uint64(k), 7))
	pkts := make([][]uint32, nPkts)
	for p := range pkts {
		ids := rng.Perm(benchRules)[:k]
		s := make([]uint32, 0, 2*k)
		for _, id := range ids {
			s = append(s, uint32(id), uint32(id))
		}
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		pkts[p] = s
	}
	return pkts
}

// quickSortIDs sorts ids ascending in place: the textbook quicksort Suricata's QuickSortSigIntId
// is described as (middle element pivot, two-pointer partition, recursion on both halves;
// reference/suricata-semantics.md §3.2 item 2). Written here from that description.
func quickSortIDs(ids []uint32) {
	for len(ids) >= 2 {
		pivot := ids[len(ids)/2]
		l, r := 0, len(ids)-1
		for l <= r {
			for ids[l] < pivot {
				l++
			}
			for ids[r] > pivot {
				r--
			}
			if l <= r {
				ids[l], ids[r] = ids[r], ids[l]
				l++
				r--
			}
		}
		quickSortIDs(ids[:r+1])
		ids = ids[l:]
	}
}

// BenchmarkCandidates compares, per packet, collecting k co-matching candidates (each pushed
// twice, random order) and walking them once each in ascending iid:
//   - set: this package (Reset, Add all, ForEach);
//   - sort-dedup: Suricata's way with Go's sort: append to a reused array, slices.Sort, skip
//     adjacent duplicates while walking (QuickSortSigIntId + DetectPrefilterCopyDeDup);
//   - qsort-dedup: the same with a plain quicksort like QuickSortSigIntId.
func BenchmarkCandidates(b *testing.B) {
	const nPkts = 16
	for _, k := range []int{10, 100, 1000, 10000} {
		pkts := benchPackets(k, nPkts)
		b.Run(fmt.Sprintf("set/k=%d", k), func(b *testing.B) {
			s := New(benchRules)
			var sum int
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s.Reset()
				for _, id := range pkts[i%nPkts] {
					s.Add(int(id))
				}
				s.ForEach(func(iid int) bool { sum += iid; return true })
				i++
			}
			sink = sum
		})
		b.Run(fmt.Sprintf("sort-dedup/k=%d", k), func(b *testing.B) {
			arr := make([]uint32, 0, 2*k)
			var sum int
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				arr = append(arr[:0], pkts[i%nPkts]...)
				slices.Sort(arr)
				last := uint32(1<<32 - 1)
				for _, id := range arr {
					if id == last {
						continue
					}
					last = id
					sum += int(id)
				}
				i++
			}
			sink = sum
		})
		b.Run(fmt.Sprintf("qsort-dedup/k=%d", k), func(b *testing.B) {
			arr := make([]uint32, 0, 2*k)
			var sum int
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				arr = append(arr[:0], pkts[i%nPkts]...)
				quickSortIDs(arr)
				last := uint32(1<<32 - 1)
				for _, id := range arr {
					if id == last {
						continue
					}
					last = id
					sum += int(id)
				}
				i++
			}
			sink = sum
		})
	}
}

// sink keeps benchmark results alive.
var sink int

func TestQuickSortIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 300 {
		ids := make([]uint32, n)
		for i := range ids {
			ids[i] = uint32(rng.IntN(n/2 + 1))
		}
		want := slices.Clone(ids)
		slices.Sort(want)
		quickSortIDs(ids)
		if !slices.Equal(ids, want) {
			t.Fatalf("n=%d: quickSortIDs wrong", n)
		}
	}
}
