package alert

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// oooFraction is the share of a packet's matches that arrive out of order in BenchmarkAlertQueue
// (as from a later detection phase): go test -bench AlertQueue ./alert/ -args -ooo=0.3
var oooFraction = flag.Float64("ooo", 0.1, "fraction of matches arriving out of iid order in BenchmarkAlertQueue")

// benchMatches returns nPkts match streams of n distinct iids out of 50,000 rules: in iid order
// except a fraction frac that is moved, shuffled, to the end. One match in ten is a drop.
func benchMatches(n, nPkts int, frac float64) [][]Entry {
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	pkts := make([][]Entry, nPkts)
	for p := range pkts {
		ids := rng.Perm(50000)[:n]
		slices.Sort(ids)
		var head, tail []Entry
		for _, id := range ids {
			e := Entry{IID: uint32(id), Action: ActionAlert, TxID: NoTx}
			if rng.IntN(10) == 0 {
				e.Action |= ActionDrop
			}
			if rng.Float64() < frac {
				e.TxID = uint64(rng.IntN(3))
				tail = append(tail, e)
			} else {
				head = append(head, e)
			}
		}
		rng.Shuffle(len(tail), func(i, j int) { tail[i], tail[j] = tail[j], tail[i] })
		pkts[p] = append(head, tail...)
	}
	return pkts
}

// BenchmarkAlertQueue compares, per packet with n co-matching rules and packet-alert-max 15:
//   - ordered: this package (Reset, Add each match, read the verdict, walk the logged entries);
//   - append-sort: Suricata's way (append every match to a reused array, sort by (iid, tx) as
//     PacketAlertFinalizeProcessQueue's qsort does, walk it applying drops and copying at most
//     15 entries, counting the rest as overflow, then walk the logged entries).
func BenchmarkAlertQueue(b *testing.B) {
	const nPkts = 16
	const max = DefaultMax
	for _, n := range []int{10, 100, 1000, 10000} {
		pkts := benchMatches(n, nPkts, *oooFraction)
		b.Run(fmt.Sprintf("ordered/n=%d", n), func(b *testing.B) {
			q := New(max)
			var sum int
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q.Reset()
				for _, e := range pkts[i%nPkts] {
					q.Add(e, Matched)
				}
				sum += int(q.Verdict())
				for _, e := range q.Entries() {
					sum += int(e.IID)
				}
				i++
			}
			sinkInt = sum
		})
		b.Run(fmt.Sprintf("append-sort/n=%d", n), func(b *testing.B) {
			queue := make([]Entry, 0, n)
			var logged [MaxLimit]Entry
			var c Counters
			var sum int
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				queue = queue[:0]
				for _, e := range pkts[i%nPkts] {
					queue = append(queue, e)
				}
				slices.SortFunc(queue, refCompare)
				cnt := 0
				var verdict Action
				for _, e := range queue {
					if e.Action&ActionDrop != 0 {
						verdict |= e.Action & verdictBits
					}
					if cnt < max {
						logged[cnt] = e
						cnt++
					} else {
						c.QueueOverflow++
					}
				}
				sum += int(verdict)
				for _, e := range logged[:cnt] {
					sum += int(e.IID)
				}
				i++
			}
			sinkInt = sum
		})
	}
}

// sinkInt keeps benchmark results alive.
var sinkInt int
