package pipeline

import (
	"runtime"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestSYNFloodMemoryBounded: a million SYNs from distinct tuples, each with a data segment and
// a resent SYN, through one worker with the stream engine on. The flow table is bounded by its
// memcap and the stream engine by its own: the heap the worker holds may not grow past what
// those memcaps allow (with slack for the runtime), whatever the number of flows the flood
// tries to open.
func TestSYNFloodMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a million-SYN flood; skipped with -short")
	}
	cfg := testConfig(RunmodeSingle)
	cfg.Flow.MaxFlows = 50000
	cfg.FlowHashSize, cfg.FlowPrealloc = 1<<14, 1024
	sc := benchStreamConfig()
	sc.Memcap = 8 << 20
	sc.ReassemblyMemcap = 8 << 20
	cfg.Stream = sc
	w, err := newWorker(0, 1, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	ts := time.Unix(1700000000, 0)
	syn := seqFrame([4]byte{10, 0, 0, 1}, [4]byte{10, 9, 9, 9}, 1, 80, 0, 0, decode.TCPFlagSYN, "")
	data := seqFrame([4]byte{10, 0, 0, 1}, [4]byte{10, 9, 9, 9}, 1, 80, 0, 0, decode.TCPFlagACK|decode.TCPFlagPSH, string(make([]byte, 900)))
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	const n = 1_000_000
	var fr capture.Frame
	for i := 0; i < n; i++ {
		src := [4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}
		sport := uint16(1024 + i%60000)
		for k, b := range [][]byte{syn, data, syn} {
			copy(b[14+12:], src[:])
			b[14+20], b[14+21] = byte(sport>>8), byte(sport)
			seq := uint32(i * 7)
			if k == 1 {
				seq++
			}
			b[14+20+4], b[14+20+5], b[14+20+6], b[14+20+7] = byte(seq>>24), byte(seq>>16), byte(seq>>8), byte(seq)
			fr = capture.Frame{Data: b, Timestamp: ts.Add(time.Duration(i) * time.Microsecond), LinkType: decode.LinkTypeEthernet, Cnt: uint64(3*i + k + 1)}
			w.process(&fr)
		}
		if i%100000 == 99999 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
			if got := w.stream.t.Pool().InUse(); got > sc.ReassemblyMemcap {
				t.Fatalf("segment pool %d bytes past its memcap %d", got, sc.ReassemblyMemcap)
			}
			if got := w.stream.t.SessionMemuse(); got > sc.Memcap {
				t.Fatalf("sessions %d bytes past stream.memcap %d", got, sc.Memcap)
			}
		}
	}
	// What the memcaps allow: the flows (flow.FlowSize each, as flow.memcap counts them), the
	// two stream memcaps, and 16 MiB for the rest (detection off, buffers, the runtime).
	allowed := uint64(cfg.Flow.MaxFlows)*uint64(flowSize()) + sc.Memcap + sc.ReassemblyMemcap + 16<<20
	t.Logf("%d SYN flows, %d packets: heap held %d MiB at most (allowed %d MiB); sessions %d, memcap drops %d",
		n, 3*n, peak>>20, allowed>>20, w.stream.t.Counters.Sessions, w.stream.t.Counters.SsnMemcapDrop)
	if peak > allowed {
		t.Errorf("the worker held %d MiB, more than the memcaps allow (%d MiB)", peak>>20, allowed>>20)
	}
}

func flowSize() int { return flow.FlowSize }
