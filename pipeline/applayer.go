package pipeline

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/stream"
)

// appStage is a worker's app layer: it takes the byte streams the stream engine hands out
// (AppData, ConsumeApp) and gives detection and the loggers the flow's transactions.
type appStage struct {
	l   *applayer.Layer
	ctx applayer.GetCtx
	// errPolicy is app-layer.error-policy, applied to a packet whose data the parser failed.
	errPolicy stream.ExceptionPolicy
}

func newAppStage(cfg *applayer.Config, errPolicy stream.ExceptionPolicy) *appStage {
	return &appStage{l: applayer.NewLayer(cfg), ctx: applayer.GetCtx{Inline: cfg.Inline}, errPolicy: errPolicy}
}

// setApp hands detection the packet's app-layer view before Engine.Inspect.
func (w *worker) setApp(pc *packetCtx) {
	if w.app == nil || pc.app == nil {
		w.tc.SetApp(nil, applayer.GetCtx{})
		return
	}
	ctx := w.app.ctx
	ctx.EOF = pc.p.Pseudo()
	ctx.PacketTime = pc.p.Timestamp.Unix()
	w.tc.SetApp(pc.app, ctx)
	w.setFrames(pc)
}

// appLayer runs the app layer for a TCP packet after the stream engine (Suricata's
// StreamTcpReassembleAppLayer, called from the stream engine for the directions
// res.AppUpdate names): each direction's new in-order data, and its gaps, go to protocol
// detection or the parser until nothing more is taken. It returns the flow's app-layer view
// for detection (nil without an app layer).
func (w *worker) appLayer(pc *packetCtx, update [2]bool) *applayer.FlowApp {
	a, f := w.app, pc.f
	if a == nil || f == nil {
		return nil
	}
	a.l.Begin(f, pc.dir)
	for d, up := range update {
		if up {
			w.appFeed(pc, flow.Direction(d), false)
		}
	}
	return a.l.Ready(f, pc.dir)
}

// appUDP runs the app layer for a UDP packet of a flow (FlowWorker's AppLayerHandleUdp,
// after the flow table and before detection): a datagram with payload goes to protocol
// detection or the parser; a detection that finds the flow the wrong way round reverses it.
// A packet of a flow dropped in IPS mode is not handed over.
func (w *worker) appUDP(pc *packetCtx) {
	a, f, p := w.app, pc.f, pc.p
	if a == nil || f == nil || !p.IsUDP() || p.Pseudo() || f.Action == flow.ActionDrop && w.cfg.IPS {
		return
	}
	a.l.Begin(f, pc.dir)
	if len(p.Payload) > 0 && a.l.UDP(f, pc.dir, p.Payload) {
		f.Reverse()
		pc.dir = 1 - pc.dir
	}
	pc.app = a.l.Ready(f, pc.dir)
}

// appFeed hands the app layer direction d's data of flow pc.f; pseudo for the flow-end
// flush (unACKed data too, EOF).
func (w *worker) appFeed(pc *packetCtx, d flow.Direction, pseudo bool) {
	a, t, f := w.app, w.stream.t, pc.f
	mid, synAck := t.Midstream(f)
	for range 64 { // each round takes one block or one gap; a bound, not a condition
		var data []byte
		var gap uint64
		var eof bool
		if pseudo {
			data, gap, eof = t.AppDataFlush(f, d)
		} else {
			data, gap, eof = t.AppData(f, d)
		}
		var r applayer.DataResult
		if gap > 0 {
			r = a.l.Gap(f, pc.dir, d, gap)
			w.appTrigger(pc, r)
			if r.Disable || r.Err != nil {
				w.appResult(pc, r)
				t.ConsumeApp(f, d, 0)
				return
			}
			if len(data) == 0 {
				t.ConsumeApp(f, d, 0)
				continue
			}
		}
		if len(data) == 0 && !eof {
			return
		}
		var flags applayer.Flags
		if eof {
			flags |= applayer.EOF
		}
		if mid {
			flags |= applayer.Midstream
		}
		r = a.l.Data(f, pc.dir, d, data, flags, synAck)
		if r.Reversed {
			w.appReverse(pc)
			d = 1 - d
		}
		if r.MinInspectSet {
			t.SetMinInspectDepth(f, d, r.MinInspect)
		}
		w.appTrigger(pc, r)
		t.ConsumeApp(f, d, r.Consumed)
		w.appResult(pc, r)
		if r.Disable || r.Consumed == 0 || len(data) == 0 || r.Changing {
			return
		}
	}
}

// appTrigger passes the parser's raw inspection requests to the stream
// (AppLayerParserTriggerRawStreamInspection).
func (w *worker) appTrigger(pc *packetCtx, r applayer.DataResult) {
	for d, on := range r.TriggerRaw {
		if on {
			w.stream.t.TriggerRaw(pc.f, flow.Direction(d))
		}
	}
}

// appReverse swaps flow and packet after protocol detection found a midstream flow the
// wrong way round (TCPProtoDetect's PacketSwap, FlowSwap).
func (w *worker) appReverse(pc *packetCtx) {
	pc.f.Reverse()
	w.stream.t.Swap(pc.f)
	pc.dir = 1 - pc.dir
}

// appResult applies what the app layer decided: the stream stops app-layer reassembly of a
// disabled flow; a parser error meets app-layer.error-policy.
func (w *worker) appResult(pc *packetCtx, r applayer.DataResult) {
	if r.Disable {
		w.stream.t.DisableApp(pc.f)
	}
	if r.Flags&applayer.NoInspectionPayload != 0 && !pc.f.NoPayloadInspect {
		// APP_LAYER_PARSER_NO_INSPECTION_PAYLOAD (AppLayerParserParse): no payload
		// inspection for the flow's later packets, raw reassembly off both ways.
		pc.f.NoPayloadInspect = true
		w.stream.t.DisableRaw(pc.f, flow.ToServer)
		w.stream.t.DisableRaw(pc.f, flow.ToClient)
	}
	if r.Flags&applayer.NoInspection != 0 && !pc.p.NoPayloadInspection && !pc.p.Pseudo() &&
		pc.p.Source != decode.SourceStreamDetectLogFlush {
		// FlowWorkerStreamTCPUpdate's setting_nopayload: the first packet whose parse set
		// APP_LAYER_PARSER_NO_INSPECTION (SSH once encrypted, TLS bypass) without the packet
		// having PKT_NOPAYLOAD_INSPECTION gets the detect/log flush pseudo packets
		// (StreamTcpDetectLogFlush), and the flow FLOW_NOPAYLOAD_INSPECTION.
		pc.logFlush = true
	}
	if r.Flags&(applayer.NoInspection|applayer.BypassReady) == applayer.NoInspection|applayer.BypassReady {
		// BYPASS_READY: PacketBypassCallback at the end of the packet's stream handling; in
		// a capture without bypass support the flow is bypassed locally.
		pc.f.Bypassed = true
	}
	if r.Err != nil && w.app.errPolicy != stream.ExceptionIgnore {
		w.exception(pc, w.app.errPolicy, stream.CauseAppLayerError)
	}
}

// appFlush hands the app layer the rest of direction dir at flow end (STREAM_EOF) before
// the direction's pseudo packet is inspected.
func (w *worker) appFlush(pc *packetCtx) *applayer.FlowApp {
	if w.app == nil {
		return nil
	}
	w.app.l.BeginPseudo(pc.f, pc.dir)
	w.appFeed(pc, pc.dir, true)
	return w.app.l.Ready(pc.f, pc.dir)
}

// appEnd finishes the app layer's part of a packet after detection and logging: the
// direction's update flag is cleared and finished transactions are freed.
func (w *worker) appEnd(pc *packetCtx) {
	if w.app == nil || pc.f == nil {
		return
	}
	switch pc.f.Proto {
	case decode.ProtoTCP:
		w.app.l.End(pc.f, pc.dir, pc.p.Pseudo(), pc.streamEst, w.txLogged)
	case decode.ProtoUDP:
		if pc.app != nil {
			w.app.l.End(pc.f, pc.dir, pc.p.Pseudo(), true, w.txLogged)
		}
	}
}
