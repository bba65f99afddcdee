package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/output"
	"github.com/meerkat-ids/meerkat/rules"
	"github.com/meerkat-ids/meerkat/stream"
)

// benchStreamConfig is the stream engine as the shipped suricata.yaml configures it (IDS).
func benchStreamConfig() *stream.Config {
	return &stream.Config{Memcap: 64 << 20, ReassemblyMemcap: 256 << 20, SegmentPrealloc: 2048,
		Depth: 1 << 20, ToServerChunk: 2560, ToClientChunk: 2560, Raw: true, DropInvalid: true,
		MaxSynQueued: 10, MaxSynAckQueued: 5}
}

// BenchmarkStreamCost replays a capture from memory through one worker per mode, the modes
// side by side: every mode's worker takes the next MEERKAT_BENCH_INTERLEAVE packets (default
// 256) in turn, so the machine's slow spells fall on all alike. Modes:
//
//	nostream         no detection, no stream engine (TCP by the flow table's flag machine)
//	stream           no detection, the stream engine on (--disable-detection as run)
//	stream-again     a second "stream" worker: the control
//	detect           the stream engine and the rules of MEERKAT_BENCH_RULES (when set)
//
// It reports ns per packet of each and, per round, the packets/s ratios stream/nostream,
// stream-again/stream and detect/stream, as medians over the rounds; and heap allocations
// per packet of each mode's replay (measured in a separate, single-mode replay).
//
//	MEERKAT_BENCH_CAPTURE  a capture file or a directory of captures (required)
//	MEERKAT_BENCH_RULES    rule files for the detect mode, a glob (optional)
//	MEERKAT_BENCH_EVE=1    EVE alert and flow records to /dev/null
//	MEERKAT_BENCH_MODES    only these modes, comma separated (for profiles)
//
// Example: MEERKAT_BENCH_CAPTURE=../shared/corpus/pcaps go test ./pipeline -run '^$' -bench StreamCost -benchtime 5x
func BenchmarkStreamCost(b *testing.B) {
	capPath := os.Getenv("MEERKAT_BENCH_CAPTURE")
	if capPath == "" {
		b.Skip("set MEERKAT_BENCH_CAPTURE")
	}
	frames := loadFrames(b, capPath)
	modes := []string{"nostream", "stream", "stream-again"}
	var engine *detect.Engine
	if glob := os.Getenv("MEERKAT_BENCH_RULES"); glob != "" {
		l := rules.NewLoader(nil)
		l.Supported = detect.Supported
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			l.LoadFile(f)
		}
		e, _, err := detect.Build(l.Rules(), detect.Config{MPMCacheDir: os.Getenv("MEERKAT_BENCH_MPM_CACHE")})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		engine = e
		modes = append(modes, "detect")
	}
	if only := os.Getenv("MEERKAT_BENCH_MODES"); only != "" { // for profiles
		kept := modes[:0]
		for _, m := range modes {
			if strings.Contains(","+only+",", ","+m+",") {
				kept = append(kept, m)
			}
		}
		modes = kept
	}
	eve := os.Getenv("MEERKAT_BENCH_EVE") == "1"
	cfgs := make([]Config, len(modes))
	for i, m := range modes {
		cfg := testConfig(RunmodeSingle)
		if eve {
			devnull, err := output.OpenWriter(os.DevNull, true)
			if err != nil {
				b.Fatal(err)
			}
			defer devnull.Close()
			cfg.Outputs = Outputs{EVE: devnull, EVEAlert: true, EVEFlow: true}
		}
		cfg.Flow.MaxFlows = 1 << 20
		cfg.FlowHashSize, cfg.FlowPrealloc = 1<<16, 1<<14
		if m != "nostream" {
			// As meerkat runs it: raw stream data is kept only when rules inspect it.
			cfg.Stream = benchStreamConfig()
			cfg.Stream.Raw = m == "detect" && engine.HasStreamRules()
		}
		if m == "detect" {
			cfg.Engine = engine
			cfg.Hosts = match.NewHostTable(4096)
		}
		cfgs[i] = cfg
	}
	interleave, _ := strconv.Atoi(os.Getenv("MEERKAT_BENCH_INTERLEAVE"))
	if interleave <= 0 {
		interleave = 256
	}
	finish := func(w *worker) {
		w.flows.ExpireAt(w.flows.Now())
		w.flows.Shutdown()
		w.finishEnded()
		w.flush()
	}
	round := func() []time.Duration {
		ws := make([]*worker, len(modes))
		for i := range modes {
			w, err := newWorker(0, 1, &cfgs[i])
			if err != nil {
				b.Fatal(err)
			}
			ws[i] = w
		}
		runtime.GC()
		d := make([]time.Duration, len(modes))
		chunk := 0
		for start := 0; start < len(frames); start += interleave {
			end := min(start+interleave, len(frames))
			for k := range ws {
				i := (chunk + k) % len(ws)
				t0 := time.Now()
				for j := start; j < end; j++ {
					ws[i].process(&frames[j])
				}
				d[i] += time.Since(t0)
			}
			chunk++
		}
		for i, w := range ws {
			t0 := time.Now()
			finish(w)
			d[i] += time.Since(t0)
			w.close()
		}
		return d
	}
	var perRound [][]time.Duration
	spent := make([]time.Duration, len(modes))
	for b.Loop() {
		d := round()
		for i := range d {
			spent[i] += d[i]
		}
		perRound = append(perRound, d)
	}
	pkts := float64(len(perRound) * len(frames))
	for i, m := range modes {
		b.ReportMetric(float64(spent[i].Nanoseconds())/pkts, m+"-ns/pkt")
	}
	ratio := func(num, den string) {
		a, c := slices.Index(modes, num), slices.Index(modes, den)
		if a < 0 || c < 0 {
			return
		}
		rs := make([]float64, 0, len(perRound))
		for _, d := range perRound {
			rs = append(rs, float64(d[c])/float64(d[a])) // packets/s of num over den
		}
		slices.Sort(rs)
		med := rs[len(rs)/2]
		if len(rs)%2 == 0 {
			med = (rs[len(rs)/2-1] + med) / 2
		}
		b.ReportMetric(med, strings.ReplaceAll(fmt.Sprintf("%s/%s-pps", num, den), "-again", "2"))
	}
	ratio("stream", "nostream")
	ratio("stream-again", "stream")
	ratio("detect", "stream")
	// Allocations per packet of each mode, in a replay of its own (the counters would mix the
	// modes in an interleaved one), as the run's summary counts them: the whole packet loop.
	for i, m := range modes {
		w, err := newWorker(0, 1, &cfgs[i])
		if err != nil {
			b.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for j := range frames {
			w.process(&frames[j])
		}
		runtime.ReadMemStats(&m1)
		finish(w)
		w.close()
		b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(len(frames)), m+"-allocs/pkt")
	}
	b.Logf("%d packets per replay, %d rounds, interleaved by %d", len(frames), len(perRound), interleave)
}
