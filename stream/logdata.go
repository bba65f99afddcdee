package stream

import "github.com/meerkat-ids/meerkat/flow"

// LogData appends to dst the reassembled data of f's direction dir from the stream base up to
// the ACKed edge, holes written "[N bytes missing]", at most limit bytes (0: no limit): the
// payload of an alert that matched on the stream (StreamReassembleLog).
func (t *Tracker) LogData(f *flow.Flow, dir flow.Direction, dst []byte, limit int) []byte {
	return dst
}
