package stream

import "github.com/meerkat-ids/meerkat/flow"

// Frames (Suricata's app-layer frames, src/app-layer-frames.c) are byte ranges of a
// direction's stream that the app layer names (an HTTP request, a response). Detection reads
// their bytes from the stream store, so pruning keeps what the oldest frame still needs
// (Suricata's GetLeftEdge takes the frames' left edge into account), within MaxFrameKeep.

// MaxFrameKeep bounds how far behind the app-layer and raw progress a frame edge may hold
// stream data: a frame that would keep more is not waited for (its start is released).
const MaxFrameKeep = 1 << 20

// SetFrameEdge says that direction dir of f needs its stream bytes from offset off on for
// frames (off: the start of the oldest frame not yet inspected); NoFrameEdge clears it.
func (t *Tracker) SetFrameEdge(f *flow.Flow, dir flow.Direction, off uint64) {
	if s := t.session(f); s != nil {
		s.streamOf(dir).frameEdge = off + 1
	}
}

// NoFrameEdge says no frame of direction dir of f needs stream bytes any more.
func (t *Tracker) NoFrameEdge(f *flow.Flow, dir flow.Direction) {
	if s := t.session(f); s != nil {
		s.streamOf(dir).frameEdge = 0
	}
}

// frameLeftEdge lowers the release edge left to the frame edge, when one is set and it is
// within MaxFrameKeep of left.
func frameLeftEdge(st *Stream, left uint64) uint64 {
	if st.frameEdge == 0 {
		return left
	}
	e := st.frameEdge - 1
	if e < left && left-e <= MaxFrameKeep {
		return e
	}
	return left
}

// FrameBytes appends to dst the stored bytes of direction dir of f in [from, to): from the
// first stored byte at or after from up to the first hole or to, whichever comes first
// (a frame's bytes as the frame inspection reads them). It returns dst unchanged when none is
// stored.
func (t *Tracker) FrameBytes(f *flow.Flow, dir flow.Direction, from, to uint64, dst []byte) []byte {
	s := t.session(f)
	if s == nil || to <= from {
		return dst
	}
	st := s.streamOf(dir)
	if st.flags&stNoReassembly != 0 {
		return dst
	}
	from = max(from, st.ra.Base())
	start, end, ok := st.ra.NextBlock(from)
	if !ok || start >= to || start > from {
		return dst
	}
	end = min(end, to)
	n := len(dst)
	if cap(dst)-n < int(end-start) {
		grown := make([]byte, n, n+int(end-start))
		copy(grown, dst)
		dst = grown
	}
	b := st.ra.Bytes(start, end, dst[n:n])
	return append(dst, b...)
}
