package stream

import (
	"strconv"

	"github.com/meerkat-ids/meerkat/flow"
)

// LogData appends to dst the reassembled data of f's direction dir from the stream base up to
// the ACKed edge, each hole written "[N bytes missing]", at most limit bytes in all (0: no
// limit): the payload of an alert that matched on the stream (Suricata's AlertJsonStreamData
// over StreamReassembleLog). A direction no longer reassembled logs nothing.
func (t *Tracker) LogData(f *flow.Flow, dir flow.Direction, dst []byte, limit int) []byte {
	s := t.session(f)
	if s == nil {
		return dst
	}
	st := s.streamOf(dir)
	if st.flags&stNoReassembly != 0 {
		return dst
	}
	room := func() int {
		if limit <= 0 {
			return int(^uint(0) >> 1)
		}
		return limit - len(dst)
	}
	right := st.lastAckAbs()
	last := st.ra.Base()
	for from := last; from < right && room() > 0; {
		start, end, ok := st.ra.NextBlock(from)
		if !ok || start >= right {
			break
		}
		end = min(end, right)
		if start > last {
			// MemBufferWriteString: the note goes in whole or not at all.
			note := "[" + strconv.FormatUint(start-last, 10) + " bytes missing]"
			if len(note) > room() {
				break
			}
			dst = append(dst, note...)
		}
		n := min(end-start, uint64(room()))
		// Bytes copies across pages into the spare capacity of dst, where the append
		// below then finds the bytes already in place.
		dst = append(dst, st.ra.Bytes(start, start+n, dst[len(dst):])...)
		last, from = start+n, start+n
		if n < end-start {
			break
		}
	}
	return dst
}
