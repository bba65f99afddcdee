// Package pipeline runs packets from a capture source through decode, defrag, the flow table
// and (once it exists) detection, and hands records to the outputs. It owns the run modes:
// `single` runs everything on the calling goroutine; `workers` spreads packets over worker
// goroutines by a symmetric hash, in batches, with no lock on the per-packet path.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"github.com/meerkat-ids/meerkat/applayer"
	"io"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/defrag"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/output"
	"github.com/meerkat-ids/meerkat/stream"
)

// Runmode names how packets are spread over goroutines.
type Runmode string

// Run modes (Suricata's names). autofp is served by the workers implementation.
const (
	RunmodeSingle  Runmode = "single"
	RunmodeWorkers Runmode = "workers"
	RunmodeAutoFP  Runmode = "autofp"
)

// Outputs are the log destinations of a run. A nil Writer disables that log.
type Outputs struct {
	EVE *output.Writer
	// EVETypes selects which EVE event types are written.
	EVEFlow, EVEStats, EVEAlert, EVEDrop bool
	// DropAlerts adds the alert that caused a drop to drop records (drop's `alerts`);
	// DropAllFlows logs every dropped packet, not only a flow direction's first (`flows: all`).
	DropAlerts, DropAllFlows bool
	// StatsOmitZero leaves zero counters out of stats records (null-values: no).
	StatsOmitZero bool
	Alert         output.AlertOptions
	Fast          *output.Writer
	// Anomaly is what the anomaly type logs (all off when it is not listed or disabled).
	Anomaly output.AnomalyOptions
	// EVEHTTP writes http records (eve-log types http) with the options HTTP; EVEFiles
	// writes fileinfo records (types files) with the options Files.
	EVEHTTP, EVEFiles bool
	HTTP              output.HTTPOptions
	// EVEDNS writes dns records (eve-log types dns) with the options DNS.
	EVEDNS bool
	DNS    output.DNSOptions
	// EVETLS writes tls records (eve-log types tls) with the options TLS.
	EVETLS bool
	TLS    output.TLSOptions
	Files  output.FileOptions
	// EVESMTP writes smtp records (eve-log types smtp) with the options SMTP.
	EVESMTP bool
	SMTP    output.SMTPOptions
	// EVESSH writes ssh records (eve-log types ssh), EVEFTP ftp and ftp_data records
	// (types ftp).
	EVESSH, EVEFTP bool
	// TLSStore is the tls-store output (nil: off): the certificate chains tls.store rules
	// marked are written as PEM files. It does not need EVE.
	TLSStore *output.CertStore
}

// Config is everything a run needs.
type Config struct {
	Runmode Runmode
	// Workers is the number of worker goroutines in workers mode (0: one per CPU).
	Workers   int
	Checksums decode.ChecksumMode
	// PcapChecksumChecks is pcap-file.checksum-checks ("auto", "yes", "no"; "" reads as
	// "yes"): whether frames get Suricata's PKT_IGNORE_CHECKSUM (ChecksumGate).
	PcapChecksumChecks string
	Flow               flow.Config
	// FlowHashSize and FlowPrealloc size each worker's table (flow.hash-size, flow.prealloc),
	// divided among the workers.
	FlowHashSize, FlowPrealloc int
	Defrag                     defrag.Config
	// Stream is the TCP stream engine's configuration; nil runs without it (TCP state then
	// follows the flow table's flag machine, and every packet is inspected as a packet).
	Stream *stream.Config
	// AppLayer is the app layer's configuration (nil: no app layer); it runs on the stream
	// engine's byte streams, so only with Stream set. AppErrorPolicy is
	// app-layer.error-policy.
	AppLayer       *applayer.Config
	AppErrorPolicy stream.ExceptionPolicy
	// StreamDropInvalid drops, in IPS mode, packets the inline stream engine rejects
	// (stream.inline with stream.drop-invalid).
	StreamDropInvalid bool
	// StatsStreamEvents adds a stream.<event> counter per stream event to stats
	// (stats.stream-events).
	StatsStreamEvents bool
	Outputs           Outputs
	// Engine is the detection engine; nil runs without detection.
	Engine *detect.Engine
	// Hosts stores xbits and hostbits for all workers (nil: those keywords never match).
	Hosts *match.HostTable
	// RuleAlerts is what alert records take from the configuration besides the rules
	// (classification.config, reference.config); IPS and Firewall below complete it.
	RuleAlerts output.RuleAlertConfig
	// IPS marks drop rules' alerts as blocked and prints [Drop] in fast.log.
	IPS bool
	// Firewall is firewall mode (the engine was built with it; IPS is set too): verdicts come
	// from the firewall tables and threat detection combined, stats gain firewall.*.
	Firewall bool
	// RulesLoaded, RulesFailed and RulesSkipped are reported in stats detect.engines.
	RulesLoaded, RulesFailed, RulesSkipped uint64
	// Warn receives warnings (truncated capture ...). May be nil.
	Warn func(msg string)
	// Progress, when set, is kept up to date for a progress display (see Progress).
	Progress *Progress

	// alerts is the rule part of alert records, built once for all workers.
	alerts ruleAlerts
}

// ruleAlerts returns the rule part of alert records for cfg's engine, built on first use.
func (cfg *Config) ruleAlerts() ruleAlerts {
	if cfg.alerts == nil && cfg.Engine != nil {
		rc := cfg.RuleAlerts
		rc.IPS, rc.Firewall = cfg.IPS || cfg.Firewall, cfg.Firewall
		cfg.alerts = newRuleAlerts(cfg.Engine, rc)
	}
	return cfg.alerts
}

// Result summarises a run.
type Result struct {
	Packets uint64
	Bytes   uint64
	Elapsed time.Duration
	// CPU is the process's user and system CPU time over the same span as Elapsed: on a
	// shared machine it is less disturbed by other tenants than wall-clock time.
	CPU    time.Duration
	Alerts uint64
	Drops  uint64
	// AllocsPerPacket is the number of heap allocations per packet measured over the packet
	// loop (runtime.MemStats.Mallocs before and after).
	AllocsPerPacket float64
	// Allocs is the number of heap allocations made during the packet loop.
	Allocs uint64
	Stats  *output.Stats
	Flows  uint64
	// CandidatesMean and CandidatesMax are the candidate rules per packet with candidates
	// collected (detection's cost per packet): the mean and the most.
	CandidatesMean float64
	CandidatesMax  uint64
	// Interrupted is true when the run was stopped by its context before the end of capture.
	Interrupted bool
}

// Run reads src to its end (or until ctx is done), processes every packet and writes the logs.
// It always flushes what was logged, also when stopped early.
func Run(ctx context.Context, src capture.Source, cfg Config) (*Result, error) {
	if cfg.Runmode == "" {
		cfg.Runmode = RunmodeWorkers
	}
	n := 1
	if cfg.Runmode != RunmodeSingle {
		n = cfg.Workers
		if n <= 0 {
			n = runtime.GOMAXPROCS(0)
		}
	}
	workers := make([]*worker, n)
	for i := range workers {
		w, err := newWorker(i, n, &cfg)
		if err != nil {
			return nil, err
		}
		workers[i] = w
		defer w.close()
	}
	var pool *batchPool
	if cfg.Runmode != RunmodeSingle {
		pool = newBatchPool(n)
		pool.start(workers, cfg.Progress)
	}
	// Load the local time zone now (the first conversion to local time reads it from disk),
	// so the packet loop does not pay for it.
	time.Now().Local().Zone()
	start := time.Now()
	cpu0 := processCPU()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var err error
	var interrupted bool
	var last time.Time
	if pool == nil {
		interrupted, last, err = runSingle(ctx, src, workers[0], &cfg)
	} else {
		interrupted, last, err = runWorkers(ctx, src, workers, pool, &cfg)
	}
	runtime.ReadMemStats(&ms1)

	res := &Result{Interrupted: interrupted}
	for _, w := range workers {
		res.Packets += w.packets
		res.Bytes += w.bytes
	}
	if res.Packets > 0 {
		res.Allocs = ms1.Mallocs - ms0.Mallocs
		res.AllocsPerPacket = float64(res.Allocs) / float64(res.Packets)
	}
	// End of capture: flows whose timeout passed by the flow clock at the capture's end (the
	// latest packet time, see runWorkers) end with reason "timeout", the rest with "shutdown",
	// in every worker alike.
	for _, w := range workers {
		w.flows.ExpireAll(last)
		w.flows.Shutdown()
		w.finishEnded()
	}
	// Elapsed covers the packet loop and the end-of-capture work (ending and logging the
	// remaining flows), not start-up.
	elapsed := time.Since(start)
	res.Elapsed = elapsed
	res.CPU = processCPU() - cpu0
	res.Stats = collectStats(workers, &cfg)
	res.Alerts = res.Stats.Value("detect.alert")
	res.Drops = res.Stats.Value("ips.blocked") + res.Stats.Value("firewall.blocked")
	res.Flows = res.Stats.Value("flow.total")
	if n := res.Stats.Value("detect.candidates.packets"); n > 0 {
		res.CandidatesMean = float64(res.Stats.Value("detect.candidates.total")) / float64(n)
		res.CandidatesMax = res.Stats.Value("detect.candidates.max")
	}
	if cfg.Outputs.EVE != nil && cfg.Outputs.EVEStats {
		var j output.JSON
		output.StatsRecord(&j, res.Stats, time.Now(), int64(elapsed/time.Second), cfg.Outputs.StatsOmitZero)
		workers[0].eve.Line(j.B)
	}
	for _, w := range workers {
		if ferr := w.flush(); ferr != nil && err == nil {
			err = ferr
		}
	}
	return res, err
}

// readErr classifies a capture error: io.EOF ends the run cleanly; a truncated capture is a
// warning and reading goes on (a file source then reports io.EOF, a directory source goes on
// with its next file); anything else is an error.
func readErr(err error, cfg *Config) (stop bool, fatal error) {
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	if errors.Is(err, capture.ErrTruncated) {
		if cfg.Warn != nil {
			cfg.Warn(fmt.Sprintf("capture truncated: %v; everything before it was processed", err))
		}
		return false, nil
	}
	return true, fmt.Errorf("pipeline: reading capture: %w", err)
}

// newChecksumGate returns the run's checksum gate.
func newChecksumGate(cfg *Config) *ChecksumGate {
	mode := cfg.PcapChecksumChecks
	if mode == "" {
		mode = "yes"
	}
	return NewChecksumGate(mode, cfg.Checksums != decode.ChecksumNone)
}

// runSingle reads and processes every frame on the calling goroutine. It returns whether ctx
// stopped it and the flow clock at the end (see runWorkers).
func runSingle(ctx context.Context, src capture.Source, w *worker, cfg *Config) (bool, time.Time, error) {
	gate := newChecksumGate(cfg)
	var fr capture.Frame
	var clock int64
	started := false
	done := ctx.Done()
	pr := cfg.Progress
	pr.setWorkers(1)
	defer func() { pr.setPackets(w.packets); pr.setAlerts(0, w) }()
	for i := 0; ; i++ {
		if i&1023 == 0 {
			pr.setPackets(w.packets)
			pr.setAlerts(0, w)
			select {
			case <-done:
				return true, time.Unix(0, clock), nil
			default:
			}
		}
		if err := src.Next(&fr); err != nil {
			if stop, fatal := readErr(err, cfg); stop {
				return false, time.Unix(0, clock), fatal
			}
			continue
		}
		ts := fr.Timestamp.UnixNano()
		if started && flow.JumpsBack(clock, ts) {
			// Another capture starts earlier than the last one ended: first end the flows
			// that the last one's time had timed out (see runWorkers).
			w.flows.ExpireAll(time.Unix(0, clock))
			w.finishEnded()
		}
		clock, started = flow.NextClock(clock, ts), true
		w.flows.SetClock(clock)
		w.finishEnded()
		gate.Mark(&fr)
		w.process(&fr)
	}
}

// batchSize is how many frames the reader hands a worker at once.
const (
	batchSize      = 64
	batchArena     = 512 << 10
	batchesPerWork = 8
)

type batch struct {
	n      int
	frames [batchSize]capture.Frame
	// clocks holds the flow clock of the whole capture at each frame (flow.NextClock); a
	// tick entry carries no frame: its worker ends the flows timed out by its clock.
	clocks [batchSize]int64
	ticks  [batchSize]bool
	arena  []byte
}

// addTick appends a tick at clock; false when the batch is full.
func (b *batch) addTick(clock int64) bool {
	if b.n == batchSize {
		return false
	}
	b.frames[b.n] = capture.Frame{}
	b.clocks[b.n], b.ticks[b.n] = clock, true
	b.n++
	return true
}

func (b *batch) add(fr *capture.Frame, clock int64) bool {
	if b.n == batchSize {
		return false
	}
	var data []byte
	if len(fr.Data) > batchArena {
		data = append([]byte(nil), fr.Data...) // oversized frame: its own copy
	} else {
		if len(b.arena)+len(fr.Data) > cap(b.arena) {
			return false
		}
		off := len(b.arena)
		b.arena = append(b.arena, fr.Data...)
		data = b.arena[off:len(b.arena):len(b.arena)]
	}
	f := &b.frames[b.n]
	*f = *fr
	f.Data = data
	b.clocks[b.n], b.ticks[b.n] = clock, false
	b.n++
	return true
}

// batchPool holds each worker's input queue and its free batches, made before the packet
// loop so the loop itself allocates nothing.
type batchPool struct {
	in, free []chan *batch
	cur      []*batch // the batch the reader fills for each worker
	wg       sync.WaitGroup
}

func newBatchPool(n int) *batchPool {
	bp := &batchPool{in: make([]chan *batch, n), free: make([]chan *batch, n)}
	for i := 0; i < n; i++ {
		bp.in[i] = make(chan *batch, batchesPerWork)
		bp.free[i] = make(chan *batch, batchesPerWork)
		for k := 0; k < batchesPerWork; k++ {
			bp.free[i] <- &batch{arena: make([]byte, 0, batchArena)}
		}
	}
	return bp
}

// start launches one goroutine per worker, reading its batches until its queue is closed.
// It runs before the packet loop is measured, like the rest of the set-up.
func (bp *batchPool) start(workers []*worker, pr *Progress) {
	pr.setWorkers(len(workers))
	for i, w := range workers {
		bp.wg.Add(1)
		go func(i int, w *worker, in <-chan *batch, free chan<- *batch) {
			defer bp.wg.Done()
			for b := range in {
				for k := 0; k < b.n; k++ {
					if b.ticks[k] {
						w.flows.ExpireAll(time.Unix(0, b.clocks[k]))
						w.finishEnded()
						continue
					}
					w.flows.SetClock(b.clocks[k])
					w.finishEnded()
					w.process(&b.frames[k])
				}
				b.n = 0
				b.arena = b.arena[:0]
				free <- b
				pr.setAlerts(i, w)
			}
		}(i, w, bp.in[i], bp.free[i])
	}
	bp.cur = make([]*batch, len(workers))
	for i := range bp.cur {
		bp.cur[i] = <-bp.free[i]
	}
}

// runWorkers reads the frames and hands each to the worker its flow hashes to, in batches.
// Every frame carries the flow clock of the whole capture (flow.NextClock over every frame
// read), and when that clock jumps back (a directory's next capture starts earlier) every
// worker first gets a tick that ends the flows the old clock had timed out: so each worker
// keeps, times out and reuses flows exactly as runSingle's one table does, as Suricata's one
// packet thread does in single mode. It returns whether ctx stopped it and the clock at the end.
func runWorkers(ctx context.Context, src capture.Source, workers []*worker, bp *batchPool, cfg *Config) (bool, time.Time, error) {
	n := len(workers)
	in, free, cur := bp.in, bp.free, bp.cur
	gate := newChecksumGate(cfg)
	var fr capture.Frame
	var fatal error
	var clock int64
	started := false
	interrupted := false
	done := ctx.Done()
	pr := cfg.Progress
	read := uint64(0)
	for i := 0; ; i++ {
		if i&1023 == 0 {
			pr.setPackets(read)
			select {
			case <-done:
				interrupted = true
			default:
			}
			if interrupted {
				break
			}
		}
		if err := src.Next(&fr); err != nil {
			var stop bool
			if stop, fatal = readErr(err, cfg); stop {
				break
			}
			continue
		}
		read++
		ts := fr.Timestamp.UnixNano()
		if started && flow.JumpsBack(clock, ts) {
			for k := range cur {
				if !cur[k].addTick(clock) {
					in[k] <- cur[k]
					cur[k] = <-free[k]
					cur[k].addTick(clock)
				}
			}
		}
		clock, started = flow.NextClock(clock, ts), true
		gate.Mark(&fr)
		k := 0
		if n > 1 {
			k = int(peekHash(fr.LinkType, fr.Data) % uint32(n))
		}
		if !cur[k].add(&fr, clock) {
			in[k] <- cur[k]
			cur[k] = <-free[k]
			cur[k].add(&fr, clock)
		}
	}
	pr.setPackets(read)
	for k := range cur {
		if cur[k].n > 0 {
			in[k] <- cur[k]
		}
		close(in[k])
	}
	bp.wg.Wait()
	return interrupted, time.Unix(0, clock), fatal
}

// processCPU returns the user and system CPU time the process has used so far (0 where the
// platform cannot tell).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
