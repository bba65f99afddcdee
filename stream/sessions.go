package stream

import "github.com/meerkat-ids/meerkat/flow"

// sessionChunk is how many sessions the table makes at once.
const sessionChunk = 256

// sessionTable keeps a worker's TCP sessions: a 4-byte index per flow slot, and the sessions
// themselves in chunks that only flows with a session take from, so the memory sessions hold
// follows the sessions stream.memcap charges, not the size of the flow table (Suricata takes
// its TcpSessions from a pool bounded by stream.memcap). Chunks never move: a *Session stays
// valid while its flow holds it.
type sessionTable struct {
	index  flow.Slots[int32] // per flow slot: 1 + the session's number, or 0 for none
	chunks []*[sessionChunk]Session
	free   []int32 // numbers of sessions no flow holds
}

func (st *sessionTable) get(n int32) *Session {
	return &st.chunks[n/sessionChunk][n%sessionChunk]
}

// Peek returns f's session, nil when it holds none.
func (st *sessionTable) Peek(f *flow.Flow) *Session {
	if i := *st.index.At(f); i != 0 {
		return st.get(i - 1)
	}
	return nil
}

// At returns f's session, giving f a zeroed one when it holds none.
func (st *sessionTable) At(f *flow.Flow) *Session {
	ip := st.index.At(f)
	if *ip == 0 {
		if len(st.free) == 0 {
			base := int32(len(st.chunks)) * sessionChunk
			st.chunks = append(st.chunks, new([sessionChunk]Session))
			for k := int32(sessionChunk - 1); k >= 0; k-- {
				st.free = append(st.free, base+k)
			}
		}
		n := st.free[len(st.free)-1]
		st.free = st.free[:len(st.free)-1]
		*ip = n + 1
		s := st.get(n)
		*s = Session{}
		return s
	}
	return st.get(*ip - 1)
}

// Drop takes f's session back (it must be inactive: released or never started).
func (st *sessionTable) Drop(f *flow.Flow) {
	ip := st.index.At(f)
	if *ip != 0 {
		st.free = append(st.free, *ip-1)
		*ip = 0
	}
}
