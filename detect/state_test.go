package detect

import (
	"fmt"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestStateHandover is the basis of hot rule reload: an engine built with its predecessor's
// State, and a ThreadCtx that continues from the old one's per-flow state, go on counting
// thresholds and tags as if no swap had happened; an engine built afresh starts over.
func TestStateHandover(t *testing.T) {
	texts := []string{
		// limit: one alert per source per minute (Suricata's threshold type limit).
		`alert tcp any any -> any 80 (msg:"limited"; content:"x"; threshold:type limit, track by_src, count 1, seconds 60; sid:1;)`,
		// threshold: an alert every third match.
		`alert tcp any any -> any 80 (msg:"every third"; content:"y"; threshold:type threshold, track by_dst, count 3, seconds 60; sid:2;)`,
		`alert tcp any any -> any 80 (msg:"session tag"; content:"tagme"; tag:session,4,packets; sid:3;)`,
		`alert tcp any any -> any 80 (msg:"host tag"; content:"hosttag"; tag:host,4,packets,src; sid:4;)`,
	}
	ts := time.Unix(1700000000, 0)
	pkt := func(src string, sp uint16, payload string) *decode.Packet {
		p := tcpPacket(src, "192.168.0.1", sp, 80, payload)
		ts = ts.Add(time.Second)
		p.Timestamp = ts
		return p
	}
	pkts := func() []*decode.Packet {
		ts = time.Unix(1700000000, 0)
		return []*decode.Packet{
			pkt("10.0.0.1", 1000, "x y tagme"),
			pkt("10.0.0.1", 1000, "x y"),
			pkt("10.0.0.2", 2000, "hosttag"),
			pkt("10.0.0.1", 1000, "x y"),
			pkt("10.0.0.1", 1000, "x"),
			pkt("10.0.0.2", 2001, "y"),
			pkt("10.0.0.1", 1000, "y"),
			pkt("10.0.0.2", 2002, "z"),
		}
	}
	build := func(st *State) *Engine {
		e, errs, err := Build(mustRules(t, texts...), Config{State: st})
		if err != nil || len(errs) > 0 {
			t.Fatalf("build: %v %v", err, errs)
		}
		t.Cleanup(e.Close)
		return e
	}
	// run inspects the packets, swapping to a new engine before packet swapAt (never when
	// swapAt is 0); handOver passes the State and the per-flow state on.
	run := func(swapAt int, handOver bool) []string {
		e := build(nil)
		tc, err := e.NewThreadCtx(nil)
		if err != nil {
			t.Fatal(err)
		}
		to := flow.Timeouts{New: time.Hour, Established: time.Hour, Closed: time.Hour}
		flows := flow.NewTable(flow.Config{TCP: to, UDP: to, ICMP: to, Default: to}, 1024, 0)
		var out []string
		for i, p := range pkts() {
			if i == swapAt && swapAt > 0 {
				var st *State
				if handOver {
					st = e.State()
				}
				e2 := build(st)
				tc2, err := e2.NewThreadCtx(nil)
				if err != nil {
					t.Fatal(err)
				}
				if handOver {
					tc2.ContinueFrom(tc)
				}
				tc.Close()
				e, tc = e2, tc2
			}
			f, dir := flows.Packet(p)
			e.Inspect(tc, p, f, dir)
			var sids []uint32
			for _, en := range tc.Queue.Entries() {
				sids = append(sids, e.Rule(en.IID).Src.SID)
			}
			out = append(out, fmt.Sprintf("%v tagged=%v", sids, tc.Tagged))
		}
		tc.Close()
		return out
	}
	want := run(0, false)
	for swapAt := 1; swapAt < len(want); swapAt++ {
		got := run(swapAt, true)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("swap before packet %d: packet %d: %s, without a swap %s", swapAt+1, i+1, got[i], want[i])
			}
		}
	}
	// Without the handover the new engine starts afresh, which the packets must show (else
	// the test above could not fail).
	fresh := run(4, false)
	same := true
	for i := range want {
		same = same && fresh[i] == want[i]
	}
	if same {
		t.Errorf("a fresh engine after packet 4 gives the same results: %v", fresh)
	}
}
