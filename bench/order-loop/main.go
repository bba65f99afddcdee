// Command order-loop measures in one process whether the order of the rules in their files
// changes the engine's speed (issue #17, item 6): it builds one detection engine per rule file
// (the same rules in other orders, and a control: a second file of the same order), replays a
// capture through all of them with the packets interleaved in slices (every engine takes the
// next -slice packets in turn, the first engine rotating from slice to slice, so that a slow
// spell of a shared machine falls on every engine alike, as bench/firewall.sh's in-process
// loop does), and repeats for -rounds rounds, each building the engines afresh (the build
// order rotating too; each build is timed alone, with no other engine alive, by the process's
// CPU time, which is judged, and by wall-clock time, recorded, with the garbage collector off).
// It prints, per file, the median over the rounds of the build time and
// of the packet-loop time, the slowest over the fastest of the orders (the control left out)
// for each, the control against its twin, and whether every engine raised the same alerts.
//
//	go run ./bench/order-loop -capture DIR -mpm-cache DIR -json out.json \
//	    sorted=sorted.rules shuffled=shuffled.rules reversed=reversed.rules \
//	    broadlast=broadlast.rules control=control.rules
//
// The first round is a warm-up (it fills the Hyperscan database cache) and is not counted.
// It uses only the public API of rules, detect, flow, decode and capture: decode, flow
// lookup and detect.Engine.Inspect per packet, as a worker does without defragmentation,
// stream reassembly or outputs. The alerts are compared by a digest of (packet, sid,
// action) per engine.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// order is one rule file and what was measured of it.
type order struct {
	Name   string    `json:"order"`
	Path   string    `json:"file"`
	Loaded int       `json:"rules_loaded"`
	BuildS []float64 `json:"build_s"`
	// BuildCPU is the process's user and system CPU time over each build: on a shared VM
	// it is less disturbed by other tenants than wall-clock time, and it is what is judged.
	BuildCPU  []float64 `json:"build_cpu_s"`
	MedBldCPU float64   `json:"median_build_cpu_s"`
	LoopS     []float64 `json:"packet_loop_s"`
	Alerts    int       `json:"alerts"`
	Digest    string    `json:"alerts_digest"`
	MedBld    float64   `json:"median_build_s"`
	MedLoop   float64   `json:"median_packet_loop_s"`

	rs []*rules.Rule
}

// result is the JSON record.
type result struct {
	Capture    string   `json:"capture"`
	Packets    int      `json:"packets"`
	Rounds     int      `json:"rounds"`
	Slice      int      `json:"slice_packets"`
	Orders     []*order `json:"orders"`
	LoopRatio  float64  `json:"packet_loop_slowest_over_fastest"`
	BuildRatio float64  `json:"build_slowest_over_fastest"`
	// BuildCPURatio and ControlBuildCPU are the same for the builds' CPU time, the judged
	// figure (wall-clock build times are recorded beside it).
	BuildCPURatio   float64 `json:"build_cpu_slowest_over_fastest"`
	ControlBuildCPU float64 `json:"control_build_cpu_ratio"`
	ControlLoop     float64 `json:"control_packet_loop_ratio"`
	ControlBuild    float64 `json:"control_build_ratio"`
	Identical       bool    `json:"alerts_identical"`
	Bar             float64 `json:"bar"`
	VerdictLoop     string  `json:"verdict_packet_loop"`
	VerdictBuild    string  `json:"verdict_build"`
}

func main() {
	capPath := flag.String("capture", "", "capture file or directory")
	rounds := flag.Int("rounds", 5, "measured rounds (after one warm-up round)")
	slice := flag.Int("slice", 256, "packets per engine turn")
	cache := flag.String("mpm-cache", "", "Hyperscan database cache directory (recommended)")
	control := flag.String("control", "control", "name of the control file (left out of the ratios; compared with -twin)")
	twin := flag.String("twin", "sorted", "the order the control is a copy of")
	bar := flag.Float64("bar", 1.03, "the bar for slowest/fastest")
	jsonOut := flag.String("json", "", "also write the results as JSON to this file")
	flag.Parse()
	if *capPath == "" || flag.NArg() < 2 || *rounds < 1 || *slice < 1 {
		fmt.Fprintln(os.Stderr, "usage: order-loop -capture PATH [flags] name=file.rules name=file.rules ...")
		os.Exit(2)
	}
	var os_ []*order
	for _, a := range flag.Args() {
		name, path, ok := strings.Cut(a, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "order-loop: %q is not name=file\n", a)
			os.Exit(2)
		}
		os_ = append(os_, &order{Name: name, Path: path})
	}
	res, err := run(*capPath, os_, *rounds, *slice, *cache, *control, *twin, *bar)
	if err != nil {
		fmt.Fprintln(os.Stderr, "order-loop:", err)
		os.Exit(1)
	}
	report(os.Stdout, res, *control)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "order-loop:", err)
			os.Exit(1)
		}
	}
	if !res.Identical {
		os.Exit(1)
	}
}

func run(capPath string, os_ []*order, rounds, slice int, cache, control, twin string, bar float64) (*result, error) {
	frames, err := loadFrames(capPath)
	if err != nil {
		return nil, err
	}
	for _, o := range os_ {
		l := rules.NewLoader(nil)
		l.Supported = detect.Supported
		l.LoadFile(o.Path)
		o.rs = l.Rules()
		o.Loaded = len(o.rs)
	}
	res := &result{Capture: capPath, Packets: len(frames), Rounds: rounds, Slice: slice, Orders: os_, Bar: bar}
	for r := 0; r <= rounds; r++ {
		// The builds are timed one at a time, each engine closed before the next is built:
		// with the others alive, a build's garbage collection would walk their heaps, and the
		// later builds of a round would be slower for their position alone (the control
		// measured 1.07 against its twin that way). The replay's engines are built after.
		for k := range os_ {
			i := (r + k) % len(os_)
			// The collector is off while a build is timed: how much it works depends on the
			// heap the process holds, not on the rules' order (the loader hands Build the
			// threat-detection rules in sid order whatever the file's order).
			runtime.GC()
			gc := debug.SetGCPercent(-1)
			c0, t0 := processCPU(), time.Now()
			e, _, err := detect.Build(os_[i].rs, detect.Config{MPMCacheDir: cache})
			d, c := time.Since(t0), processCPU()-c0
			debug.SetGCPercent(gc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", os_[i].Name, err)
			}
			e.Close()
			if r > 0 {
				os_[i].BuildS = append(os_[i].BuildS, d.Seconds())
				os_[i].BuildCPU = append(os_[i].BuildCPU, c.Seconds())
			}
		}
		runtime.GC()
		engines := make([]*detect.Engine, len(os_))
		for i := range os_ {
			e, _, err := detect.Build(os_[i].rs, detect.Config{MPMCacheDir: cache})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", os_[i].Name, err)
			}
			engines[i] = e
		}
		loops, alerts, digests, err := replay(frames, engines, slice, r)
		for _, e := range engines {
			e.Close()
		}
		if err != nil {
			return nil, err
		}
		for i, o := range os_ {
			if r > 0 {
				o.LoopS = append(o.LoopS, loops[i].Seconds())
			}
			o.Alerts, o.Digest = alerts[i], fmt.Sprintf("%016x", digests[i])
		}
	}
	res.Identical = true
	var bs, bc, ls []float64
	var ctl, tw *order
	for _, o := range os_ {
		o.MedBld, o.MedLoop, o.MedBldCPU = median(o.BuildS), median(o.LoopS), median(o.BuildCPU)
		if o.Digest != os_[0].Digest || o.Alerts != os_[0].Alerts {
			res.Identical = false
		}
		switch o.Name {
		case control:
			ctl = o
			continue
		case twin:
			tw = o
		}
		bs, ls, bc = append(bs, o.MedBld), append(ls, o.MedLoop), append(bc, o.MedBldCPU)
	}
	res.BuildRatio, res.LoopRatio, res.BuildCPURatio = spread(bs), spread(ls), spread(bc)
	if ctl != nil && tw != nil {
		res.ControlBuild = spread([]float64{ctl.MedBld, tw.MedBld})
		res.ControlBuildCPU = spread([]float64{ctl.MedBldCPU, tw.MedBldCPU})
		res.ControlLoop = spread([]float64{ctl.MedLoop, tw.MedLoop})
	}
	res.VerdictLoop, res.VerdictBuild = verdict(res.LoopRatio <= bar), verdict(res.BuildCPURatio <= bar)
	return res, nil
}

// processCPU returns the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// worker is one engine's packet path.
type worker struct {
	e     *detect.Engine
	tc    *detect.ThreadCtx
	dec   decode.Decoder
	flows *flow.Table
	p     decode.Packet
}

// replay runs the frames through every engine, interleaved by slice, and returns each
// engine's packet-loop time, alert count and alert digest.
func replay(frames []capture.Frame, engines []*detect.Engine, slice, round int) ([]time.Duration, []int, []uint64, error) {
	to := flow.Timeouts{New: 30 * time.Second, Established: 300 * time.Second, Closed: 10 * time.Second}
	ws := make([]*worker, len(engines))
	for i, e := range engines {
		tc, err := e.NewThreadCtx(nil)
		if err != nil {
			return nil, nil, nil, err
		}
		defer tc.Close()
		ws[i] = &worker{e: e, tc: tc, dec: decode.Decoder{Checksums: decode.ChecksumNone},
			flows: flow.NewTable(flow.Config{MaxFlows: 1 << 20, TCP: to, UDP: to, ICMP: to, Default: to}, 1<<16, 1<<14)}
	}
	loops := make([]time.Duration, len(ws))
	alerts := make([]int, len(ws))
	hs := make([]uint64, len(ws))
	for i := range hs {
		hs[i] = fnv.New64a().Sum64()
	}
	runtime.GC()
	chunk := round
	var buf [16]byte
	for start := 0; start < len(frames); start += slice {
		end := min(start+slice, len(frames))
		for k := range ws {
			i := (chunk + k) % len(ws)
			w := ws[i]
			h := fnv.New64a()
			t0 := time.Now()
			for j := start; j < end; j++ {
				fr := &frames[j]
				p := &w.p
				w.dec.Decode(p, fr.LinkType, fr.Data)
				p.Timestamp, p.PcapCnt, p.WireLen = fr.Timestamp, fr.Cnt, fr.WireLen
				f, dir := w.flows.Packet(p)
				if f != nil && (f.Action == flow.ActionPass || f.Action == flow.ActionDrop) {
					continue
				}
				w.e.Inspect(w.tc, p, f, dir)
				q := w.tc.Queue
				if f != nil && f.Action == flow.ActionNone {
					switch q.FlowVerdict() {
					case alert.FlowPass:
						f.Action = flow.ActionPass
					case alert.FlowDrop:
						f.Action = flow.ActionDrop
					}
				}
				for _, en := range q.Entries() {
					sid := w.e.Rule(en.IID).Src.SID
					putU64(buf[:8], uint64(j))
					putU64(buf[8:], uint64(sid)<<16|uint64(en.Action))
					h.Write(buf[:])
					alerts[i]++
				}
			}
			loops[i] += time.Since(t0)
			hs[i] = hs[i]*1099511628211 ^ h.Sum64()
		}
		chunk++
	}
	return loops, alerts, hs, nil
}

func putU64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

// loadFrames reads every frame of a capture file or directory into memory.
func loadFrames(path string) ([]capture.Frame, error) {
	src, err := capture.OpenPath(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var frames []capture.Frame
	for {
		var fr capture.Frame
		if err := src.Next(&fr); err != nil {
			if errors.Is(err, io.EOF) {
				return frames, nil
			}
			continue // a truncated capture: a directory source goes on with the next file
		}
		fr.Data = append([]byte(nil), fr.Data...)
		frames = append(frames, fr)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// spread is the largest over the smallest of xs (1 when there is nothing to compare).
func spread(xs []float64) float64 {
	if len(xs) < 2 || slices.Min(xs) <= 0 {
		return 1
	}
	return slices.Max(xs) / slices.Min(xs)
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func report(w io.Writer, res *result, control string) {
	fmt.Fprintf(w, "in-process rule order: %d packets, %d rounds (after a warm-up), slices of %d packets\n", res.Packets, res.Rounds, res.Slice)
	fmt.Fprintf(w, "%-10s %8s %14s %14s %18s %8s  %s\n", "order", "rules", "build s (med)", "build cpu s", "packet loop s (med)", "alerts", "digest")
	for _, o := range res.Orders {
		fmt.Fprintf(w, "%-10s %8d %14.3f %14.3f %18.4f %8d  %s\n", o.Name, o.Loaded, o.MedBld, o.MedBldCPU, o.MedLoop, o.Alerts, o.Digest)
	}
	fmt.Fprintf(w, "slowest/fastest (without %s): packet loop %.3f, build CPU %.3f (bar %.2f): %s, %s; build wall-clock %.3f (recorded); control against its twin: packet loop %.3f, build CPU %.3f, build wall-clock %.3f; alerts identical: %v\n",
		control, res.LoopRatio, res.BuildCPURatio, res.Bar, res.VerdictLoop, res.VerdictBuild, res.BuildRatio, res.ControlLoop, res.ControlBuildCPU, res.ControlBuild, res.Identical)
}
