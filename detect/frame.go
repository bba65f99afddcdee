package detect

import (
	"strings"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/detect/payload"
	"github.com/meerkat-ids/meerkat/rules"
)

// Frame inspection (Suricata's src/detect-engine-frame.c): a rule's frame buffer (the frame
// keyword) inspects the bytes of app-layer frames of one type in the packet's direction. The
// pipeline hands detection the frames to inspect on a packet (SetFrames): each frame once,
// when its end is known (or at the flow's end with the bytes there are), so a frame alerts
// once, on the packet that completed it. Frame rules are candidates of their group on every
// packet (no fast pattern from frame content): the rule's other keywords and the frames
// decide.

// FrameView is one frame handed to detection: its protocol, type, transaction and bytes.
type FrameView struct {
	Proto applayer.Proto
	Type  applayer.FrameType
	TxID  uint64
	Data  []byte
}

// FrameType names one protocol's frame type that some rule inspects.
type FrameType struct {
	Proto applayer.Proto
	Type  applayer.FrameType
}

// frameProg is one frame buffer of a rule: the frame type and the payload program run on
// the frame's bytes.
type frameProg struct {
	proto applayer.Proto
	typ   applayer.FrameType
	prog  *payload.Program
}

// isFrameBuffer reports whether a rule buffer is a frame buffer (rules.FrameBufferPrefix).
func isFrameBuffer(name string) bool { return strings.HasPrefix(name, rules.FrameBufferPrefix) }

// frameTypeOf resolves a frame buffer's "<proto>.<type>" to the parser's frame type.
func frameTypeOf(name string) (applayer.Proto, applayer.FrameType, bool) {
	pn, tn, ok := strings.Cut(strings.TrimPrefix(name, rules.FrameBufferPrefix), ".")
	if !ok {
		return 0, 0, false
	}
	p, ok := applayer.ProtoByName(pn)
	if !ok || applayer.ParserOf(p) == nil {
		return 0, 0, false
	}
	t, ok := applayer.FrameTypeByName(p, tn)
	return p, t, ok
}

// compileFrames compiles the rule's frame buffers.
func compileFrames(r *rules.Rule) ([]frameProg, error) {
	var out []frameProg
	for _, b := range r.Buffers {
		if !isFrameBuffer(b.Name) || len(b.Matches) == 0 {
			continue
		}
		p, t, ok := frameTypeOf(b.Name)
		if !ok {
			return nil, Missing{"keyword", b.Name}
		}
		prog, err := payload.CompileRule(r, b)
		if err != nil {
			return nil, err
		}
		out = append(out, frameProg{proto: p, typ: t, prog: prog})
	}
	return out, nil
}

// FrameTypes returns the frame types the rules inspect, each once: the app layer tracks
// those (applayer.Layer.EnableFrames).
func (e *Engine) FrameTypes() []FrameType {
	var out []FrameType
	for _, r := range e.rules {
		for _, fp := range r.frames {
			ft := FrameType{fp.proto, fp.typ}
			dup := false
			for _, o := range out {
				dup = dup || o == ft
			}
			if !dup {
				out = append(out, ft)
			}
		}
	}
	return out
}

// SetFrames hands detection the frames of the next packet inspected (its direction's frames
// that are ready, DetectRunFrames); the slice and the bytes must stay valid until Inspect
// returns. The pipeline calls it before every Inspect when rules inspect frames.
func (tc *ThreadCtx) SetFrames(frames []FrameView) { tc.frames = frames }

// framesMatch reports whether every frame buffer of r matches some frame of the packet
// (DetectRunFrameInspectRule: each frame of the buffer's type is inspected).
func (r *Rule) framesMatch(tc *ThreadCtx) bool {
	if tc.frameSel >= 0 {
		fv := &tc.frames[tc.frameSel]
		fp := &r.frames[0]
		return fv.Proto == fp.proto && fv.Type == fp.typ && fp.prog.Inspect(fv.Data, tc.pst)
	}
	for _, fp := range r.frames {
		hit := false
		for i := range tc.frames {
			fv := &tc.frames[i]
			if fv.Proto == fp.proto && fv.Type == fp.typ && fp.prog.Inspect(fv.Data, tc.pst) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// frameMatches evaluates a rule with one frame buffer on each frame of its type and queues
// an alert per frame it matches, naming the frame's transaction (DetectRunFrame's
// AlertQueueAppend with the frame's tx id and PACKET_ALERT_FLAG_FRAME).
func (e *Engine) frameMatches(tc *ThreadCtx, r *Rule, p *decode.Packet, f *flow.Flow) {
	fp := &r.frames[0]
	for i := range tc.frames {
		if fv := &tc.frames[i]; fv.Proto != fp.proto || fv.Type != fp.typ {
			continue
		}
		tc.frameSel = i
		ok := r.matches(tc, p)
		tc.frameSel = -1
		if ok {
			e.addMatch(tc, r, p, f, tc.frames[i].TxID, alert.FlagFrame)
		}
	}
}
