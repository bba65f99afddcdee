package http

import "github.com/meerkat-ids/meerkat/applayer"

// HTTP/1 frames (Suricata's HttpFrameTypes): one request frame per request, one response
// frame per response, made at request / response start with an unknown length and given
// their length at request / response complete (HTPCallbackRequestStart/Complete,
// HTPCallbackResponseStart/Complete).
const (
	// FrameRequest is the http1.request frame; FrameResponse the http1.response frame.
	FrameRequest applayer.FrameType = iota
	FrameResponse
)

// frameTypes name the frame types by FrameType.
var frameTypes = []string{"request", "response"}

// frameState is the parser's frame bookkeeping per direction: the open frame's id, whether
// its tx completed and its length waits for the end offset, and the end of the previous
// request or response (last_request_data_stamp / last_response_data_stamp), from which
// Suricata measures a frame's length.
type frameState struct {
	fs      *applayer.Frames
	id      [2]int64
	pending [2]bool
	stamp   [2]uint64
}

// SetFrames implements applayer.FrameUser.
func (s *State) SetFrames(fs *applayer.Frames) { s.fr.fs = fs }

// lineHeld is how many bytes of direction dir the parser holds in its line buffer: bytes
// consumed from the stream that belong to what is parsed next.
func (s *State) lineHeld(dir int) int {
	if dir == 0 {
		return len(s.rq.line)
	}
	return len(s.rs.line)
}

// frameStart opens the frame of a request (dir 0) or response (dir 1) starting off bytes
// into the current data (less what the line buffer holds), for tx t; a frame whose tx
// completed before gets its length first.
func (s *State) frameStart(dir, off int, t *Tx) {
	s.messageStarts(dir) // a message starts here: the same callbacks set the min inspect depth
	fs := s.fr.fs
	if fs == nil {
		return
	}
	s.frameEnd(dir, off)
	typ := FrameRequest
	if dir == 1 {
		typ = FrameResponse
	}
	s.fr.id[dir] = fs.New(applayer.Dir(dir), off-s.lineHeld(dir), typ, t.data.ID)
}

// frameDone notes that the request or response completed: its frame's length is set once
// the end offset is known (frameEnd).
func (s *State) frameDone(dir int) {
	if s.fr.fs != nil {
		s.fr.pending[dir] = true
	}
}

// frameEnd sets the length of a completed request's or response's frame, which ends off
// bytes into the current data less what the line buffer holds: the end minus the previous
// end (HTPCallbackRequestComplete's abs_right_edge - last_request_data_stamp).
func (s *State) frameEnd(dir, off int) {
	fs := s.fr.fs
	if fs == nil || !s.fr.pending[dir] {
		return
	}
	s.fr.pending[dir] = false
	end := fs.Base(applayer.Dir(dir))
	if rel := off - s.lineHeld(dir); rel >= 0 {
		end += uint64(rel)
	} else {
		end -= min(end, uint64(-rel))
	}
	if end >= s.fr.stamp[dir] {
		fs.SetLen(applayer.Dir(dir), s.fr.id[dir], int64(end-s.fr.stamp[dir]))
	}
	s.fr.stamp[dir] = end
	s.fr.id[dir] = 0
}

func init() { Parser.FrameTypes = frameTypes }
