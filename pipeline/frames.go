package pipeline

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/stream"
)

// frameStage hands detection the app-layer frames of a packet (Suricata's DetectRunFrames
// input): on a packet whose direction the app layer updated, the frames of that direction
// whose end is known, and at flow end (pseudo packet) the open ones with the bytes there are;
// each frame is inspected once and then dropped, and the stream keeps the bytes of the
// frames still open (SetFrameEdge).
type frameStage struct {
	on    bool
	buf   []byte
	spans []frameSpan
	views []detect.FrameView
	// inspected counts the frames handed to detection.
	inspected uint64
}

type frameSpan struct {
	from, to int
	fr       applayer.Frame
}

// initFrames enables in the app layer the frame types the rules inspect.
func (w *worker) initFrames() {
	if w.app == nil || w.cfg.Engine == nil {
		return
	}
	for _, ft := range w.cfg.Engine.FrameTypes() {
		w.app.l.EnableFrames(ft.Proto, ft.Type)
		w.fr.on = true
	}
}

// setFrames hands detection the packet's frames before Engine.Inspect.
func (w *worker) setFrames(pc *packetCtx) {
	if !w.fr.on {
		return
	}
	st := &w.fr
	st.views, st.spans, st.buf = st.views[:0], st.spans[:0], st.buf[:0]
	defer func() { w.tc.SetFrames(st.views) }()
	f := pc.f
	if f == nil || pc.app == nil || f.Proto != decode.ProtoTCP {
		return
	}
	fs := w.app.l.Frames(f)
	if fs == nil {
		return
	}
	t := w.stream.t
	// The stream keeps what the open frames need, also of the direction the packet does not
	// inspect (its frames wait for a packet of that direction).
	defer w.frameEdges(pc, fs)
	d := pc.dir
	pseudo := pc.p.Pseudo()
	if fs.Len(d) == 0 || !(pc.app.Updated[d] || pseudo) {
		return
	}
	for i, n := 0, fs.Len(d); i < n; i++ {
		fr := fs.At(d, i)
		end, known := fr.End()
		if !known {
			if !pseudo {
				continue
			}
			end = ^uint64(0)
		}
		room := stream.MaxFrameKeep - len(st.buf)
		if room <= 0 {
			break
		}
		if end-fr.Offset > uint64(room) {
			end = fr.Offset + uint64(room)
		}
		from := len(st.buf)
		st.buf = t.FrameBytes(f, d, fr.Offset, end, st.buf)
		st.spans = append(st.spans, frameSpan{from: from, to: len(st.buf), fr: *fr})
		fr.Len = -2 // inspected: dropped below
	}
	st.inspected += uint64(len(st.spans))
	proto := fs.Proto()
	for _, sp := range st.spans {
		st.views = append(st.views, detect.FrameView{Proto: proto, Type: sp.fr.Type, TxID: sp.fr.TxID,
			Data: st.buf[sp.from:sp.to]})
	}
	fs.Remove(d, func(fr *applayer.Frame) bool { return fr.Len == -2 })
}

// frameEdges tells the stream, per direction, where the oldest open frame starts.
func (w *worker) frameEdges(pc *packetCtx, fs *applayer.Frames) {
	for d := range 2 {
		dir := flow.Direction(d)
		if e, ok := fs.LeftEdge(dir); ok {
			w.stream.t.SetFrameEdge(pc.f, dir, e)
		} else {
			w.stream.t.NoFrameEdge(pc.f, dir)
		}
	}
}
