package applayer

import "strings"

import "github.com/meerkat-ids/meerkat/flow"

// App-layer frames (Suricata's src/app-layer-frames.c): a parser names byte ranges of a
// direction's stream (HTTP/1: each request and each response) by stream offset; a frame's
// length is -1 until the parser knows its end. Detection inspects a frame's bytes (the frame
// keyword) and the stream keeps them until then. Frames are tracked only for the frame types
// some rule uses (FrameConfigEnable), so flows pay nothing otherwise.

// FrameType is a protocol's frame type: the index of its name in Parser.FrameTypes.
type FrameType uint8

// MaxFrames is how many frames one direction of a flow holds at once; a frame beyond it is
// not made (AppLayerFrameNewByAbsoluteOffset returning NULL).
const MaxFrames = 16

// Frame is one frame: Len bytes of its direction's stream from Offset (a stream offset: the
// bytes of the direction since the app layer started, gaps included); Len is -1 while its
// end is unknown. TxID is the transaction it belongs to.
type Frame struct {
	Offset uint64
	Len    int64
	TxID   uint64
	// ID numbers the flow's frames of one direction from 1 (Frame.id); 0 is no frame.
	ID   int64
	Type FrameType
}

// End returns the stream offset past the frame's last byte, and whether it is known.
func (fr *Frame) End() (uint64, bool) {
	if fr.Len < 0 {
		return 0, false
	}
	return fr.Offset + uint64(fr.Len), true
}

// Frames are one flow's frames, per direction (Suricata's FramesContainer), in the order
// they were made. The Layer hands them to the parser before each Parse and Gap call with the
// stream offset of the call's first byte.
type Frames struct {
	list   [2][MaxFrames]Frame
	n      [2]int
	nextID [2]int64
	// base is per direction the stream offset of the data of the current Parse call.
	base [2]uint64
	// enabled are the frame types rules use, by type bit; proto the protocol whose parser
	// makes the frames.
	enabled uint64
	proto   Proto
	// Dropped counts frames not made because MaxFrames were open.
	Dropped uint64
}

// Enabled reports whether frames of type t are wanted (a rule inspects them).
func (fs *Frames) Enabled(t FrameType) bool { return fs != nil && fs.enabled&(1<<t) != 0 }

// Proto returns the protocol whose frames these are (the flow's protocol when the frames
// started: a protocol change leaves them to the old parser's types).
func (fs *Frames) Proto() Proto { return fs.proto }

// Base returns the stream offset of the first byte of the current Parse call's data.
func (fs *Frames) Base(dir Dir) uint64 { return fs.base[dir] }

// New makes a frame of type t in direction dir starting rel bytes into the current Parse
// call's data (negative rel: before it, in data of earlier calls), of unknown length, for
// transaction txID (AppLayerFrameNewByAbsoluteOffset, AppLayerFrameSetTxId). It returns the
// frame's id, 0 when the type is not enabled or the direction holds MaxFrames frames.
func (fs *Frames) New(dir Dir, rel int, t FrameType, txID uint64) int64 {
	if !fs.Enabled(t) {
		return 0
	}
	if fs.n[dir] >= MaxFrames {
		fs.Dropped++
		return 0
	}
	off := fs.base[dir]
	if rel >= 0 {
		off += uint64(rel)
	} else if uint64(-rel) <= off {
		off -= uint64(-rel)
	} else {
		off = 0
	}
	fs.nextID[dir]++
	fs.list[dir][fs.n[dir]] = Frame{Offset: off, Len: -1, TxID: txID, ID: fs.nextID[dir], Type: t}
	fs.n[dir]++
	return fs.nextID[dir]
}

// SetLen sets the length of frame id of direction dir (AppLayerFrameGetById, frame->len);
// an unknown id is ignored.
func (fs *Frames) SetLen(dir Dir, id int64, n int64) {
	if fs == nil || id == 0 || n < 0 {
		return
	}
	for i := range fs.n[dir] {
		if f := &fs.list[dir][i]; f.ID == id {
			f.Len = n
			return
		}
	}
}

// Len returns how many frames direction dir holds; At the i-th of them.
func (fs *Frames) Len(dir Dir) int {
	if fs == nil {
		return 0
	}
	return fs.n[dir]
}

// At returns the i-th frame of direction dir (0 <= i < Len(dir)).
func (fs *Frames) At(dir Dir, i int) *Frame { return &fs.list[dir][i] }

// Remove drops the frames of direction dir for which done reports true, keeping the order of
// the others (FramesPrune).
func (fs *Frames) Remove(dir Dir, done func(fr *Frame) bool) {
	if fs == nil {
		return
	}
	k := 0
	for i := range fs.n[dir] {
		if !done(&fs.list[dir][i]) {
			fs.list[dir][k] = fs.list[dir][i]
			k++
		}
	}
	fs.n[dir] = k
}

// LeftEdge returns the smallest offset a frame of direction dir starts at, ok false without
// frames: the stream must keep its bytes from there.
func (fs *Frames) LeftEdge(dir Dir) (uint64, bool) {
	if fs == nil || fs.n[dir] == 0 {
		return 0, false
	}
	e := fs.list[dir][0].Offset
	for i := 1; i < fs.n[dir]; i++ {
		e = min(e, fs.list[dir][i].Offset)
	}
	return e, true
}

func (fs *Frames) reset(proto Proto, enabled uint64) {
	*fs = Frames{enabled: enabled, proto: proto}
}

// FrameUser is a State that makes frames: the Layer hands it the flow's frames before each
// Parse and Gap call (nil when no rule uses the protocol's frames).
type FrameUser interface {
	SetFrames(fs *Frames)
}

// FrameTypeByName returns proto's frame type named name (case-insensitive, the parser's
// GetFrameIdByName).
func FrameTypeByName(proto Proto, name string) (FrameType, bool) {
	ps := ParserOf(proto)
	if ps == nil {
		return 0, false
	}
	for i, n := range ps.FrameTypes {
		if strings.EqualFold(n, name) {
			return FrameType(i), true
		}
	}
	return 0, false
}

// EnableFrames asks the layer to track frames of type t of proto (FrameConfigEnable): rules
// inspect them.
func (l *Layer) EnableFrames(proto Proto, t FrameType) {
	if proto < protoMax && t < 64 {
		l.frameTypes[proto] |= 1 << t
	}
}

// Frames returns f's frames, nil when the flow tracks none.
func (l *Layer) Frames(f *flow.Flow) *Frames { return l.flows.At(f).frames }

// framesFor gives the flow its frames container when rules use its parser's frame types,
// from the layer's free list (so that no flow allocates one in steady state).
func (l *Layer) framesFor(fa *flowApp) *Frames {
	if fa.frames != nil {
		return fa.frames
	}
	if fa.Proto >= protoMax || l.frameTypes[fa.Proto] == 0 {
		return nil
	}
	var fs *Frames
	if n := len(l.freeFrames); n > 0 {
		fs, l.freeFrames = l.freeFrames[n-1], l.freeFrames[:n-1]
	} else {
		fs = &Frames{}
	}
	fs.reset(fa.Proto, l.frameTypes[fa.Proto])
	fa.frames = fs
	return fs
}

// handFrames gives the flow's parser its frames before a Parse or Gap call of direction d.
func (l *Layer) handFrames(fa *flowApp, d Dir) {
	if fa.Proto < protoMax && l.frameTypes[fa.Proto] == 0 {
		// No rule uses the protocol's frames: its states never get a container (and Reset
		// clears one), so there is nothing to hand.
		return
	}
	fu, ok := fa.State.(FrameUser)
	if !ok {
		return
	}
	fs := l.framesFor(fa)
	if fs != nil && fs.proto != fa.Proto {
		fs = nil // frames of the protocol before a change: the new parser makes none
	}
	if fs != nil {
		fs.base[d] = fa.streamOff[d]
	}
	fu.SetFrames(fs)
}

// releaseFrames puts the flow's frames container back on the free list.
func (l *Layer) releaseFrames(fa *flowApp) {
	if fa.frames != nil {
		l.freeFrames = append(l.freeFrames, fa.frames)
		fa.frames = nil
	}
}
