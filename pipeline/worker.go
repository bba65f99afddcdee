package pipeline

import (
	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/defrag"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/output"
)

// worker owns everything one goroutine needs for its share of the packets: the reused
// Packets, the decoder, its flow table shard, its defragmenter and its output buffers.
type worker struct {
	id      int
	cfg     *Config
	dec     decode.Decoder
	pkt     decode.Packet
	rebuilt decode.Packet // a datagram rebuilt from fragments
	flows   *flow.Table
	defrag  *defrag.Reassembler
	json    output.JSON
	eve     output.Buffer
	fast    output.Buffer
	tc      *detect.ThreadCtx // nil without detection
	line    []byte            // fast.log line scratch

	packets uint64
	bytes   uint64
}

func newWorker(id, n int, cfg *Config) (*worker, error) {
	w := &worker{id: id, cfg: cfg}
	w.dec.Checksums = cfg.Checksums
	fc := cfg.Flow
	fc.MaxFlows = max(fc.MaxFlows/n, 1)
	fc.OnEnd = w.flowEnded
	w.flows = flow.NewTable(fc, cfg.FlowHashSize/n, cfg.FlowPrealloc/n)
	dc := cfg.Defrag
	if n > 1 {
		dc.Memcap /= uint64(n)
		dc.Trackers = max(dc.Trackers/n, 1)
	}
	w.defrag = defrag.New(dc)
	w.eve.W = cfg.Outputs.EVE
	w.fast.W = cfg.Outputs.Fast
	w.json.B = make([]byte, 0, 4096)
	w.eve.Grow(128 << 10)
	if cfg.Engine != nil {
		tc, err := cfg.Engine.NewThreadCtx(cfg.Hosts)
		if err != nil {
			return nil, err
		}
		w.tc = tc
	}
	return w, nil
}

func (w *worker) close() {
	if w.tc != nil {
		w.tc.Close()
	}
}

// process handles one captured frame: decode, the packet itself, and the datagram it may
// complete when it is a fragment.
func (w *worker) process(fr *capture.Frame) {
	p := &w.pkt
	w.dec.Decode(p, fr.LinkType, fr.Data)
	p.Timestamp = fr.Timestamp
	p.PcapCnt = fr.Cnt
	p.WireLen = fr.WireLen
	w.packets++
	w.bytes += uint64(len(fr.Data))
	w.handle(p)
	if p.IsFragment {
		if datagram, done := w.defrag.Add(p); done {
			r := &w.rebuilt
			w.dec.Decode(r, decode.LinkTypeRaw, datagram)
			// The rebuilt datagram is not a captured packet: keep decoder.pkts, bytes and raw
			// counting frames as they came from the capture.
			w.dec.Counters.Pkts--
			w.dec.Counters.Bytes -= uint64(len(datagram))
			w.dec.Counters.Raw--
			r.Timestamp = p.Timestamp
			r.PcapCnt = p.PcapCnt
			r.Source = decode.SourceDefrag
			r.VLAN, r.VLANCount = p.VLAN, p.VLANCount
			w.handle(r)
		}
		w.defrag.Expire(p.Timestamp)
	}
}

// handle runs one decoded packet through the flow table and detection, and logs its alerts.
func (w *worker) handle(p *decode.Packet) {
	f, dir := w.flows.Packet(p)
	if w.tc == nil {
		return
	}
	if f != nil && (f.Action == flow.ActionPass || f.Action == flow.ActionDrop) {
		// A flow-scoped pass or drop matched earlier: the flow is no longer inspected
		// (Suricata's DetectFlow, in IDS mode too).
		return
	}
	e := w.cfg.Engine
	e.Inspect(w.tc, p, f, dir)
	if f != nil && f.Action == flow.ActionNone {
		// The first flow-scoped pass or drop decides the flow (RuleActionToFlow); the flow
		// record shows it as flow.action.
		switch w.tc.Queue.FlowVerdict() {
		case alert.FlowPass:
			f.Action = flow.ActionPass
		case alert.FlowDrop:
			f.Action = flow.ActionDrop
		}
	}
	entries := w.tc.Queue.Entries()
	if len(entries) == 0 {
		return
	}
	if f != nil {
		f.Alerted = true
	}
	outs := &w.cfg.Outputs
	for _, en := range entries {
		a := &e.Rule(en.IID).Alert
		if w.eve.W != nil && outs.EVEAlert {
			output.AlertRecord(&w.json, p, f, dir, a, outs.Alert)
			w.eve.Line(w.json.B)
		}
		if w.fast.W != nil {
			w.line = output.FastLine(w.line[:0], p, a, w.cfg.IPS)
			w.fast.Lines(w.line)
		}
	}
}

// flowEnded logs a flow that timed out or was ended at shutdown.
func (w *worker) flowEnded(f *flow.Flow) {
	if w.cfg.Engine != nil {
		w.cfg.Engine.ForgetFlow(f)
	}
	if w.eve.W == nil || !w.cfg.Outputs.EVEFlow {
		return
	}
	output.FlowRecord(&w.json, f, f.Ended)
	w.eve.Line(w.json.B)
}

func (w *worker) flush() error {
	err := w.eve.Flush()
	if ferr := w.fast.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	return err
}

// collectStats adds up every worker's counters into Suricata's stats tree.
func collectStats(workers []*worker, cfg *Config) *output.Stats {
	var dec decode.Counters
	var fl flow.Counters
	var df defrag.Counters
	var al alert.Counters
	for _, w := range workers {
		dec.Add(&w.dec.Counters)
		fl.Add(&w.flows.Counters)
		df.Add(&w.defrag.Counters)
		if w.tc != nil {
			al.Add(&w.tc.Queue.Counters)
		}
	}
	s := &output.Stats{}
	dec.Each(s.Set)
	df.Each(s.Set)
	fl.Each(s.Set)
	var j output.JSON
	j.B = append(j.B, '[')
	j.Begin()
	j.Uint("id", 0)
	j.Uint("rules_loaded", cfg.RulesLoaded)
	j.Uint("rules_failed", cfg.RulesFailed)
	j.Uint("rules_skipped", cfg.RulesSkipped)
	j.End()
	j.B = append(j.B, ']')
	s.SetRaw("detect.engines", j.B)
	al.Each(s.Set)
	return s
}
