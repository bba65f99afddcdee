package stream

import (
	"math/rand"
	"runtime"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// TestSegmentStorm pushes over a million segments through one Tracker: a SYN flood over
// many flows, an out-of-order storm with holes on established flows, and overlapping
// retransmissions; the accounted memory must stay within the memcaps throughout and the
// heap bounded, and all of it must come back when the flows are released.
func TestSegmentStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("storm test in -short")
	}
	cfg := defaultConfig()
	cfg.ReassemblyMemcap = 8 << 20
	cfg.Memcap = 500 * sessionCost
	cfg.ToServerChunk, cfg.ToClientChunk = 2560, 2560
	cfg.CheckOverlapDiff = true
	tr := NewTracker(cfg)
	rng := rand.New(rand.NewSource(1))
	payload := make([]byte, 1460)
	for i := range payload {
		payload[i] = byte(i)
	}
	segments, added := 0, 0
	var buf RawBuffer
	var ms runtime.MemStats
	maxHeap := uint64(0)
	maxPool := uint64(0)
	check := func() {
		maxPool = max(maxPool, tr.Pool().InUse())
		if tr.Pool().InUse() > cfg.ReassemblyMemcap {
			t.Fatalf("pool in use %d > %d", tr.Pool().InUse(), cfg.ReassemblyMemcap)
		}
		if tr.SessionMemuse() > cfg.Memcap {
			t.Fatalf("sessions %d > %d", tr.SessionMemuse(), cfg.Memcap)
		}
	}
	heap := func() {
		runtime.ReadMemStats(&ms)
		maxHeap = max(maxHeap, ms.HeapInuse)
	}

	// SYN flood: 2000 flows, resent SYNs with new ISNs; half the sessions never get in.
	flood := make([]*conv, 2000)
	for i := range flood {
		flood[i] = newConvOn(t, tr)
	}
	for i := 0; i < 300000; i++ {
		c := flood[i%len(flood)]
		c.send(pkt{flags: fSYN, seq: rng.Uint32(), payload: payload[:i%3]})
		segments++
		if i%5000 == 4999 {
			for _, c := range flood[:len(flood)/2] {
				tr.Release(c.f)
			}
			check()
		}
	}
	heap()
	if tr.Counters.SsnMemcapDrop == 0 {
		t.Errorf("SYN flood never hit the session memcap")
	}
	for _, c := range flood {
		tr.Release(c.f)
	}
	if tr.SessionMemuse() != 0 {
		t.Fatalf("sessions left %d", tr.SessionMemuse())
	}

	// Out-of-order storm: 40 established flows, each sends windows of 64 segments in a
	// random order with every 16th segment missing; the server ACKs the window, the app
	// layer and raw inspection read, then the missing ones come as overlapping
	// retransmissions (a third of them with other bytes).
	flows := make([]*conv, 40)
	cseq := make([]uint32, len(flows))
	for i := range flows {
		flows[i] = newConvOn(t, tr)
		isn := rng.Uint32()
		handshakeWS(flows[i], isn, 7)
		cseq[i] = isn + 1
	}
	const seg = 512
	order := rng.Perm(64)
	other := make([]byte, seg*2)
	for round := 0; segments < 1050000; round++ {
		fi := round % len(flows)
		c := flows[fi]
		base := cseq[fi]
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, j := range order {
			if j%16 == 5 {
				continue
			}
			if c.send(pkt{flags: fPA, seq: base + uint32(j*seg), ack: 8, payload: payload[:seg]}).Added {
				added++
			}
			segments++
		}
		// overlapping retransmissions covering the holes and their neighbours
		for j := 5; j < 64; j += 16 {
			p := payload[:2*seg]
			if j%3 == 0 {
				p = other
			}
			c.send(pkt{flags: fPA, seq: base + uint32((j-1)*seg) + seg/2, ack: 8, payload: p})
			segments++
		}
		end := base + 64*seg
		c.send(pkt{fromServer: true, flags: fACK, seq: 8, ack: end})
		tr.Raw(c.f, flow.ToServer, false, &buf)
		for {
			d, _, _ := tr.AppData(c.f, flow.ToServer)
			if len(d) == 0 {
				break
			}
			tr.ConsumeApp(c.f, flow.ToServer, len(d))
		}
		c.send(pkt{flags: fACK, seq: end, ack: 8})
		if tr.Raw(c.f, flow.ToServer, false, &buf) {
			tr.RawConsumed(c.f, flow.ToServer, buf.End)
		} else {
			tr.RawConsumed(c.f, flow.ToServer, 0)
		}
		tr.Prune(c.f, flow.ToServer)
		cseq[fi] = end
		check()
		if round%20 == 0 {
			tr.Release(c.f) // a flow ends, a new one takes its slot
			flows[fi] = newConvOn(t, tr)
			isn := rng.Uint32()
			handshakeWS(flows[fi], isn, 7)
			cseq[fi] = isn + 1
		}
		if round%500 == 0 {
			heap()
		}
	}
	heap()

	// Unacked storm: data nobody ACKs fills the pool to its memcap; past it segments are
	// refused (reassembly_no_segment / insert_memcap), the sessions go lossy.
	for i := 0; i < 20000; i++ {
		c := flows[i%len(flows)]
		fi := i % len(flows)
		j := uint32(rng.Intn(4096))
		c.send(pkt{flags: fPA, seq: cseq[fi] + j*1460, ack: 8, payload: payload})
		segments++
		if i%1000 == 0 {
			check()
		}
	}
	check()
	heap()
	if tr.Counters.SegmentMemcapDrop == 0 {
		t.Errorf("the unacked storm never hit the reassembly memcap (pool %d)", tr.Pool().InUse())
	}
	if segments < 1000000 {
		t.Fatalf("only %d segments", segments)
	}
	if tr.Counters.Overlap == 0 || tr.Counters.OverlapDiffData == 0 {
		t.Errorf("no overlaps: %+v", tr.Counters)
	}
	for _, c := range flows {
		tr.Release(c.f)
	}
	if tr.Pool().InUse() != 0 || tr.SessionMemuse() != 0 {
		t.Fatalf("after release: pool %d sessions %d", tr.Pool().InUse(), tr.SessionMemuse())
	}
	if maxHeap > 256<<20 {
		t.Errorf("heap in use reached %d MiB", maxHeap>>20)
	}
	if added < 500000 {
		t.Errorf("only %d segments added", added)
	}
	tr.Counters.EachEvent(func(name string, v uint64) {
		if v != 0 {
			t.Logf("%s: %d", name, v)
		}
	})
	t.Logf("%d segments (%d out-of-order added), max heap %d MiB, max pool %d KiB", segments, added,
		maxHeap>>20, maxPool>>10)
}

// handshakeWS is a handshake with window scale 7 on both sides (8 MiB windows).
func handshakeWS(c *conv, cisn, sisn uint32) {
	c.send(pkt{flags: fSYN, seq: cisn, wscale: 7})
	c.send(pkt{fromServer: true, flags: fSA, seq: sisn, ack: cisn + 1, wscale: 7})
	c.send(pkt{flags: fACK, seq: cisn + 1, ack: sisn + 1})
	c.send(pkt{fromServer: true, flags: fACK, seq: sisn + 1, ack: cisn + 1})
}
