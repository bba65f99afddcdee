package pipeline

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/output"
	"github.com/meerkat-ids/meerkat/rules"
)

// BenchmarkFirewallVsIPS replays a capture from memory through one worker with the same
// threat-detection rules in IPS mode, in firewall mode with no firewall rules and an
// accept:hook packet-filter policy ("fw-empty"), and in firewall mode with a firewall rule file
// ("fw"), and in IPS mode with one shared Hyperscan database per protocol class and direction
// ("ips-shared", sgh-mpm-context: single), reporting ns per packet for each and the ratios of packets/s to IPS mode (the
// median over the rounds of each round's ratio); a second IPS engine ("ips-again") is the
// control. Each
// iteration replays the capture once in every mode, the order rotating, so that the machine's
// drift over time falls on all three alike. It measures the packet loop only (engines are
// built once, outside the timer), which the whole-process figures of bench/firewall.sh cannot
// separate from start-up. Inputs, all required:
//
//	MEERKAT_BENCH_CAPTURE  a capture file or a directory of captures
//	MEERKAT_BENCH_TD       threat-detection rule file
//	MEERKAT_BENCH_FW       firewall rule file
//
// MEERKAT_BENCH_MODES (optional) limits the modes, e.g. "ips" or "fw" (for profiles);
// MEERKAT_BENCH_BUILD_FIRST (optional) rotates the order the engines are built in;
// MEERKAT_BENCH_REBUILD=1 rebuilds every engine before each of its replays;
// MEERKAT_BENCH_INTERLEAVE=N replays the modes side by side, N packets each in turn;
// MEERKAT_BENCH_EVE=1 writes their EVE alert, drop and flow records to /dev/null;
// MEERKAT_BENCH_MPM_CACHE=DIR caches the compiled Hyperscan databases in DIR.
//
// Example: go test ./pipeline -run '^$' -bench FirewallVsIPS -benchtime 5x
func BenchmarkFirewallVsIPS(b *testing.B) {
	capPath, tdPath, fwPath := os.Getenv("MEERKAT_BENCH_CAPTURE"), os.Getenv("MEERKAT_BENCH_TD"), os.Getenv("MEERKAT_BENCH_FW")
	if capPath == "" || tdPath == "" || fwPath == "" {
		b.Skip("set MEERKAT_BENCH_CAPTURE, MEERKAT_BENCH_TD and MEERKAT_BENCH_FW")
	}
	frames := loadFrames(b, capPath)
	load := func(path string, fw bool) []*rules.Rule {
		l := rules.NewLoader(nil)
		l.Supported = detect.Supported
		l.Options.Firewall = fw
		l.LoadFile(path)
		return l.Rules()
	}
	td, fwRules := load(tdPath, false), load(fwPath, true)
	// fw-empty accepts everything: the packet filter and every HTTP/1 state (the app layer's
	// default policy would drop HTTP flows at their first request).
	httpStates := map[string][]string{}
	for _, side := range []string{"request", "response"} {
		for _, st := range []string{"started", "line", "headers", "body", "trailer", "complete"} {
			httpStates[side+"-"+st] = []string{"accept:hook"}
		}
	}
	accept, err := firewall.LoadPolicies(&config.Firewall{PacketFilter: []string{"accept:hook"},
		PacketPreFlow: config.DefaultPreFlowPolicy, PacketPreStream: config.DefaultPreStreamPolicy,
		App: map[string]map[string][]string{"http": httpStates}})
	if err != nil {
		b.Fatal(err)
	}
	// MEERKAT_BENCH_MPM_CACHE=DIR (optional) keeps the compiled Hyperscan databases in DIR, so
	// that later runs skip compiling them (as sgh-mpm-caching does for meerkat).
	cacheDir := os.Getenv("MEERKAT_BENCH_MPM_CACHE")
	build := func(rs []*rules.Rule, dc detect.Config) *detect.Engine {
		dc.MPMCacheDir = cacheDir
		e, _, err := detect.Build(rs, dc)
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	type mode struct {
		name string
		e    *detect.Engine
		fw   bool
	}
	modes := []mode{
		{name: "ips"},
		{name: "fw-empty", fw: true},
		{name: "fw", fw: true},
		// A second, identical IPS engine: how far apart two builds of the same thing measure
		// is the floor under the other ratios (Hyperscan databases and rule memory land at
		// other addresses in every build).
		{name: "ips-again"},
		// IPS with one Hyperscan database per protocol class and direction instead of one per
		// signature group (sgh-mpm-context: single).
		{name: "ips-shared"},
	}
	// Only the modes asked for are built.
	if only := os.Getenv("MEERKAT_BENCH_MODES"); only != "" {
		kept := modes[:0]
		for _, m := range modes {
			if strings.Contains(","+only+",", ","+m.name+",") {
				kept = append(kept, m)
			}
		}
		modes = kept
	}
	// Engines are built in turn, starting with mode MEERKAT_BENCH_BUILD_FIRST (an index,
	// default 0): the engine built first in a process tends to run fastest, so runs that
	// rotate the build order cancel that out.
	engine := func(name string) *detect.Engine {
		switch name {
		case "fw-empty":
			return build(td, detect.Config{Firewall: true, Policies: accept})
		case "fw":
			return build(append(append([]*rules.Rule(nil), fwRules...), td...), detect.Config{Firewall: true})
		case "ips-shared":
			return build(td, detect.Config{IPS: true, Grouping: detect.Grouping{SharedMPM: true}})
		}
		return build(td, detect.Config{IPS: true})
	}
	// MEERKAT_BENCH_REBUILD=1 builds every mode's engine afresh before each of its replays
	// (outside the timer), so that where an engine lands in memory varies from round to round
	// instead of favouring one mode for the whole run.
	rebuild := os.Getenv("MEERKAT_BENCH_REBUILD") == "1"
	first, _ := strconv.Atoi(os.Getenv("MEERKAT_BENCH_BUILD_FIRST"))
	for k := range modes {
		m := &modes[(first+k)%len(modes)]
		m.e = engine(m.name)
	}
	defer func() {
		for _, m := range modes {
			m.e.Close()
		}
	}()
	// MEERKAT_BENCH_EVE=1 writes every mode's EVE alert, drop and flow records to /dev/null,
	// as a run writes them to its log, so the comparison includes what each mode logs.
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
			cfg.Outputs = Outputs{EVE: devnull, EVEAlert: true, EVEDrop: true, EVEFlow: true}
		}
		cfg.Flow.MaxFlows = 1 << 20
		cfg.FlowHashSize, cfg.FlowPrealloc = 1<<16, 1<<14
		cfg.IPS, cfg.Firewall, cfg.Engine = true, m.fw, m.e
		cfg.Hosts = match.NewHostTable(4096)
		cfgs[i] = cfg
	}
	replay := func(cfg *Config) time.Duration {
		w, err := newWorker(0, 1, cfg)
		if err != nil {
			b.Fatal(err)
		}
		// Four 50k-rule engines make every garbage collection long; collect outside the
		// timer so that no replay pays for the others' garbage.
		runtime.GC()
		start := time.Now()
		for i := range frames {
			w.process(&frames[i])
		}
		w.flows.ExpireAt(w.flows.Now())
		w.flows.Shutdown()
		w.flush()
		d := time.Since(start)
		w.close()
		return d
	}
	// MEERKAT_BENCH_INTERLEAVE=N replays the modes side by side instead of one after another:
	// every mode's worker takes the next N packets in turn (the order rotating per chunk), so a
	// slow spell of a shared machine, which lasts longer than a chunk, falls on every mode alike.
	interleave, _ := strconv.Atoi(os.Getenv("MEERKAT_BENCH_INTERLEAVE"))
	replayInterleaved := func() []time.Duration {
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
			w.flows.ExpireAt(w.flows.Now())
			w.flows.Shutdown()
			w.flush()
			d[i] += time.Since(t0)
			w.close()
		}
		return d
	}
	spent := make([]time.Duration, len(modes))
	var perRound [][]time.Duration // each round's replay time per mode
	round := 0
	for b.Loop() {
		if interleave > 0 {
			d := replayInterleaved()
			for i := range d {
				spent[i] += d[i]
			}
			perRound = append(perRound, d)
			round++
			continue
		}
		d := make([]time.Duration, len(modes))
		for k := range modes {
			i := (round + k) % len(modes)
			if rebuild && round > 0 {
				modes[i].e.Close()
				modes[i].e = engine(modes[i].name)
				cfgs[i].Engine = modes[i].e
			}
			d[i] = replay(&cfgs[i])
			spent[i] += d[i]
		}
		perRound = append(perRound, d)
		round++
	}
	pkts := float64(round * len(frames))
	for i, m := range modes {
		b.ReportMetric(float64(spent[i].Nanoseconds())/pkts, m.name+"-ns/pkt")
		if i > 0 && modes[0].name == "ips" {
			// Median over the rounds of the round's packets/s ratio: each ratio compares
			// replays made seconds apart, so slow drift of the machine cancels out.
			ratios := make([]float64, 0, len(perRound))
			for _, d := range perRound {
				ratios = append(ratios, float64(d[0])/float64(d[i]))
			}
			slices.Sort(ratios)
			med := ratios[len(ratios)/2]
			if len(ratios)%2 == 0 {
				med = (ratios[len(ratios)/2-1] + med) / 2
			}
			b.ReportMetric(med, fmt.Sprintf("%s/ips-pps", m.name))
		}
	}
	b.Logf("%d packets per replay, %d rounds", len(frames), round)
}
