package pipeline

import (
	"time"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/output"
	"github.com/meerkat-ids/meerkat/stream"
)

// streamStage is a worker's TCP stream engine and what it hands detection per packet.
type streamStage struct {
	t   *stream.Tracker
	raw stream.RawBuffer
	// rawOn: raw inspection runs (stream.reassembly.raw and a rule inspecting the stream);
	// sizes: a rule uses stream_size.
	rawOn, sizes bool
	// pseudo is the flow-end pseudo packet, reused.
	pseudo decode.Packet
	// logBuf and payload hold the stream payload of an alert record.
	logBuf  []byte
	payload output.AlertPayload
}

// newStreamStage makes a worker's stream engine, its memcaps shared out among n workers.
func newStreamStage(cfg stream.Config, n int, sizes bool) *streamStage {
	if n > 1 {
		cfg.Memcap /= uint64(n)
		cfg.ReassemblyMemcap /= uint64(n)
		cfg.SegmentPrealloc /= n
	}
	return &streamStage{t: stream.NewTracker(cfg), raw: stream.RawBuffer{Chunks: make([][]byte, 0, 8)},
		rawOn: cfg.Raw, sizes: sizes}
}

// track runs a TCP packet of a flow through the stream engine, after the flow table and
// before detection (Suricata's FlowWorker: StreamTcp between FlowHandlePacket and Detect): the
// session state, FLOW_PKT_ESTABLISHED, reassembly, stream events, and the raw stream data the
// packet inspects. In IPS mode a packet of a dropped flow does not reach the stream engine
// (StreamTcpCheckFlowDrops tests EngineModeIsIPS); in IDS mode it does, detection alone
// skips the flow.
func (w *worker) track(pc *packetCtx) {
	st, p, f := w.stream, pc.p, pc.f
	if st == nil {
		return
	}
	if f == nil || !p.IsTCP() || f.Action == flow.ActionDrop && w.cfg.IPS {
		if w.tc != nil {
			w.tc.SetStream(nil, false, 0, 0)
		}
		return
	}
	state := f.State
	res := st.t.Track(f, p, pc.dir) // valid until the next call on st.t: read it first
	pc.dir = res.Dir
	update := res.AppUpdate
	if res.Modified {
		p.FixTCPChecksum() // the inline stream engine rewrote overlapping bytes
	}
	if f.State != state {
		w.flows.Refresh(f) // the timeout follows the new state
	}
	p.StreamAdded = res.Added
	pc.streamInvalid = res.Invalid
	streamEst := res.StreamEst
	pc.streamEst = streamEst
	if res.Exception != stream.ExceptionIgnore {
		w.exception(pc, res.Exception, res.ExceptionCause)
	}
	if res.Drop && w.cfg.IPS {
		// urgent.policy or urgent.oob-limit-policy drop (inline): PKT_DROP_REASON_STREAM_URG.
		pc.exceptionDrop, pc.exceptionReason = true, alert.ReasonStreamUrgent
	}
	pc.app = w.appLayer(pc, update)
	if w.tc == nil {
		return
	}
	if st.rawOn && f.PacketFlowStart() && !w.cfg.Engine.RawStream(p, pc.dir) {
		// The direction's first rule group has no raw stream rule: Suricata stops raw
		// reassembly of the direction (DetectRunPostGetFirstRuleGroup).
		st.t.StopRaw(f, pc.dir)
	}
	w.streamInput(p, f, pc.dir, false, streamEst)
}

// streamInput hands detection what the stream engine has for packet p: the raw stream data it
// inspects (when raw inspection is on and the session is established after the packet, or it
// is a flow-end pseudo packet) and, when a rule uses stream_size, the session's stream sizes.
func (w *worker) streamInput(p *decode.Packet, f *flow.Flow, dir flow.Direction, pseudo, established bool) {
	st := w.stream
	var chunks [][]byte
	if st.rawOn && established && st.t.Raw(f, dir, pseudo, &st.raw) {
		p.StreamData, chunks = true, st.raw.Chunks
	}
	var cs, ss uint32
	var ok bool
	if st.sizes {
		cs, ss, ok = st.t.StreamSizes(f)
	}
	w.tc.SetStream(chunks, ok, cs, ss)
}

// inspected moves the raw stream progress past what the packet's detection inspected
// (DetectRunCleanup's StreamReassembleRawUpdateProgress), after its alerts were logged (their
// payload may be the stream), then prunes what the direction no longer needs.
func (w *worker) inspected(pc *packetCtx) {
	if pc.f == nil || !pc.p.IsTCP() {
		return
	}
	w.stream.t.Inspected(pc.f, pc.dir, pc.p.StreamData, w.stream.raw.End)
}

// deferEnd keeps an ending TCP flow until the packet being handled is done (flow.Config.Defer),
// so its pseudo packets and the release of its session run after it.
func (w *worker) deferEnd(f *flow.Flow) bool { return f.Proto == decode.ProtoTCP }

// flushStream runs the flow-end pseudo packets of a TCP flow that ends (Suricata's
// FlowFinish with FlowNeedsReassembly): to_server first, then to_client, each inspecting the
// data left in its direction, none for a dropped flow; then it releases the session.
func (w *worker) flushStream(f *flow.Flow) {
	st := w.stream
	// CheckWorkQueue runs FlowFinish only for a flow without FLOW_ACTION_DROP.
	if w.tc != nil && f.Action != flow.ActionDrop {
		needs := st.t.NeedsFlush(f)
		if w.app != nil {
			an := w.app.l.NeedsFlush(f, w.txLogged)
			needs[0], needs[1] = needs[0] || an[0], needs[1] || an[1]
		}
		for _, dir := range [2]flow.Direction{flow.ToServer, flow.ToClient} {
			if needs[dir] {
				w.pseudoPacket(f, dir)
			}
		}
	}
	st.t.Release(f)
}

// pseudoPacket builds and inspects one flow-end pseudo packet of f in direction dir: no
// payload and no pcap_cnt, the flow's tuple as seen in that direction, the time of the flow
// clock (the last packet's in pcap mode), established by definition.
func (w *worker) pseudoPacket(f *flow.Flow, dir flow.Direction) {
	st := w.stream
	p := &st.pseudo
	setPseudoPacket(p, f, dir, w.flows.Now(), st.t.NextSeq(f, dir))
	f.SetPacketEstablished(true)
	st.t.PseudoPacket(f, dir)
	// DetectFlow: no detection in a passed flow (in firewall mode only once it is accepted
	// too), so no alert and no raw progress.
	if f.Action == flow.ActionPass && (!w.cfg.Firewall || f.Accept) {
		return
	}
	pc := packetCtx{p: p, f: f, dir: dir, streamEst: true}
	pc.app = w.appFlush(&pc)
	w.streamInput(p, f, dir, true, true)
	if w.cfg.Firewall {
		w.tc.StartPacket()
	}
	w.setApp(&pc)
	w.cfg.Engine.Inspect(w.tc, p, f, dir)
	w.logAlerts(&pc, nil, nil)
	w.tc.Tagged = false // a pseudo packet is not logged as a tagged packet
	w.logTxs(&pc)
	w.inspected(&pc)
	w.appEnd(&pc)
}

// detectLogFlush runs, after a packet whose app-layer parse disabled the flow's inspection
// (pc.logFlush), the two pseudo packets of Suricata's StreamTcpDetectLogFlush
// (FlowWorkerStreamTCPUpdate's setting_nopayload): both streams get a raw inspection trigger,
// then one pseudo packet per direction goes through detection and the alert outputs, the
// packet's own direction first in IDS mode, the opposite one first with an inline stream. They
// are not flow-end packets (PKT_PSEUDO_DETECTLOG_FLUSH, not PKT_PSEUDO_STREAM_END), so packet
// rules, firewall ones included, are evaluated on them (DetectRulePacketRules skips only
// PKT_PSEUDO_STREAM_END); like every pseudo packet they are not counted in the flow's packets
// nor in the ips/firewall verdict counters. The flow then has FLOW_NOPAYLOAD_INSPECTION
// (FlowSetNoPayloadInspectionFlag): its later packets have no payload inspection.
//
// Suricata runs them before the packet's own detection; Meerkat runs them after it, so the
// packet's verdict and detection state stay its own (the alert order differs, the alerts do
// not).
func (w *worker) detectLogFlush(pc *packetCtx) {
	f := pc.f
	if f == nil || w.stream == nil || w.tc == nil {
		return
	}
	f.NoPayloadInspect = true
	w.stream.t.TriggerRaw(f, flow.ToServer)
	w.stream.t.TriggerRaw(f, flow.ToClient)
	first := pc.dir
	if w.app != nil && w.app.ctx.Inline {
		first = 1 - first
	}
	for _, d := range [2]flow.Direction{first, 1 - first} {
		w.flushPacket(f, d)
	}
}

// flushPacket builds and inspects one detect/log flush pseudo packet of f in direction dir
// (StreamTcpPseudoPacketCreateDetectLogFlush): the flow's tuple as seen in that direction,
// established, no payload and no pcap_cnt.
func (w *worker) flushPacket(f *flow.Flow, dir flow.Direction) {
	st := w.stream
	if f.Action == flow.ActionDrop {
		return // DetectFlow: a dropped flow is not inspected
	}
	if f.Action == flow.ActionPass && (!w.cfg.Firewall || f.Accept) {
		return // DetectFlow: nor a passed one (in firewall mode, once accepted too)
	}
	p := &st.pseudo
	setPseudoPacket(p, f, dir, w.flows.Now(), st.t.NextSeq(f, dir))
	p.Source = decode.SourceStreamDetectLogFlush
	f.SetPacketEstablished(true)
	pc := packetCtx{p: p, f: f, dir: dir, streamEst: true}
	if w.app != nil {
		// BeginPseudo: a pseudo packet does not take the detection-done flag a detection
		// left for the direction's next packet (it does not pass FlowHandlePacketUpdate).
		w.app.l.BeginPseudo(f, dir)
		pc.app = w.app.l.Ready(f, dir)
	}
	w.streamInput(p, f, dir, false, true)
	var fwAlerts []*detect.Rule
	var pv *alert.PacketVerdict
	if w.cfg.Firewall {
		w.tc.StartPacket()
		w.setApp(&pc)
		w.cfg.Engine.Inspect(w.tc, p, f, dir)
		fwAlerts, pv = w.tc.FirewallAlerts(), &w.tc.Verdict
	} else {
		w.setApp(&pc)
		w.cfg.Engine.Inspect(w.tc, p, f, dir)
		if f.Action == flow.ActionNone {
			switch w.tc.Queue.FlowVerdict() {
			case alert.FlowPass:
				f.Action = flow.ActionPass
			case alert.FlowDrop:
				f.Action = flow.ActionDrop
			}
		}
	}
	w.logAlerts(&pc, fwAlerts, pv)
	w.tc.Tagged = false // a pseudo packet is not logged as a tagged packet
	w.inspected(&pc)
	w.appEnd(&pc)
}

// alertPayload is the stream payload of an alert that matched on the stream (nil otherwise,
// or when no payload is logged): the reassembled data of the packet's direction
// (AlertJsonStreamData).
func (w *worker) alertPayload(pc *packetCtx, fl alert.Flags) *output.AlertPayload {
	o := &w.cfg.Outputs.Alert
	if fl&(alert.FlagStreamMatch|alert.FlagStateMatch) == 0 || w.stream == nil || pc.f == nil ||
		!(o.Payload || o.PayloadPrintable || o.PayloadLength) {
		return nil
	}
	st := w.stream
	st.logBuf = st.t.LogData(pc.f, pc.dir, st.logBuf[:0], o.PayloadBufferSize)
	st.payload = output.AlertPayload{StreamMatch: true, Stream: st.logBuf}
	return &st.payload
}

// exception applies an exception policy the stream engine met (ExceptionPolicyApply):
// stream.midstream-policy on a packet of a flow without a session, stream.memcap-policy or
// stream.reassembly.memcap-policy on a packet without room. drop-flow and the rejects
// (inline) drop the flow and the packet, drop-packet the packet, pass-flow and bypass pass the
// flow, pass-packet skips the packet's inspection. The drop reason follows the cause.
func (w *worker) exception(pc *packetCtx, e stream.ExceptionPolicy, cause stream.ExceptionCause) {
	f := pc.f
	pc.exceptionReason = alert.ReasonStreamMidstream
	switch cause {
	case stream.CauseMemcap:
		pc.exceptionReason = alert.ReasonStreamMemcap
	case stream.CauseReassemblyMemcap:
		pc.exceptionReason = alert.ReasonStreamReassembly
	case stream.CauseAppLayerError:
		pc.exceptionReason = alert.ReasonAppLayerError
	}
	switch e {
	case stream.ExceptionReject, stream.ExceptionRejectBoth, stream.ExceptionDropFlow:
		if !w.cfg.IPS {
			return
		}
		if f.Action == flow.ActionNone || f.Action == flow.ActionAccept {
			f.Action = flow.ActionDrop
			f.ByException = true
		}
		pc.exceptionDrop = true
	case stream.ExceptionDropPacket:
		pc.exceptionDrop = w.cfg.IPS
	case stream.ExceptionPassFlow, stream.ExceptionBypassFlow:
		if f.Action == flow.ActionNone {
			f.Action = flow.ActionPass
		}
	case stream.ExceptionPassPacket:
		pc.noInspect = true
	}
}

// setPseudoPacket fills p as Suricata's FlowPseudoPacketSetup (src/flow-timeout.c) does the
// flow-end pseudo packet of f in direction dir: the flow's tuple as seen in that direction,
// a TCP header with no flags, window 10, the sending side's next_seq and ACK 0, no payload,
// and now as time (never before the flow's last packet).
func setPseudoPacket(p *decode.Packet, f *flow.Flow, dir flow.Direction, now time.Time, nextSeq uint32) {
	*p = decode.Packet{
		Timestamp: now,
		Source:    decode.SourceStreamFlowTimeout,
		VLAN:      f.VLAN,
		VLANCount: f.VLANs,
		IPVersion: f.IPv,
		IPProto:   decode.ProtoTCP,
		HasL4:     true,
		SrcIP:     f.SrcIP, DstIP: f.DstIP, SrcPort: f.SrcPort, DstPort: f.DstPort,
		TCPSeq: nextSeq, TCPWindow: 10,
	}
	if dir == flow.ToClient {
		p.SrcIP, p.DstIP, p.SrcPort, p.DstPort = f.DstIP, f.SrcIP, f.DstPort, f.SrcPort
	}
	if p.Timestamp.Before(f.Last()) {
		p.Timestamp = f.Last()
	}
}
