package stream

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The byte stream the app layer reads, after ReassembleUpdateAppLayer, GetAppBuffer,
// AdjustToAcked and CheckGap (src/stream-tcp-reassemble.c), as a pull API: AppData hands out
// what Suricata would pass to AppLayerHandleTCPData, ConsumeApp moves the app progress.

// checkGap is CheckGap: is the hole at the app progress a gap the receiver ACKed?
func checkGap(s *Session, st *Stream) bool {
	ackAdded := uint64(0)
	if s.state >= flow.TCPFinWait1 {
		ackAdded = 1
	}
	la := st.lastAckAbs()
	if la < ackAdded {
		return false
	}
	la -= ackAdded
	if la <= st.appProg {
		return false
	}
	if st.lastAck.GT(st.nextSeq) {
		bs, _, ok := st.ra.NextBlock(st.ra.Base())
		if !ok {
			return false
		}
		nextAbs := st.ra.Offset(st.nextSeq)
		if bs > nextAbs && bs < la {
			return true
		}
	}
	return true
}

// adjustToAcked is AdjustToAcked: IDS hands out ACKed data only, except at flow end
// (pseudo) before the session closed or when it closed by RST.
func (t *Tracker) adjustToAcked(s *Session, st *Stream, pseudo bool, n uint64) uint64 {
	if t.cfg.Inline || n == 0 {
		return n
	}
	if pseudo && (s.state < flow.TCPClosed || s.flags&ssnClosedByRst != 0) {
		return n
	}
	la := st.lastAckAbs()
	if st.appProg <= la && st.appProg+n > la {
		return la - st.appProg
	}
	if st.appProg > la {
		return 0
	}
	return n
}

// appData is AppData; pseudo for a flow-end flush.
func (t *Tracker) appData(f *flow.Flow, s *Session, dir flow.Direction, pseudo bool) (data []byte, gap uint64, eof bool) {
	st := s.streamOf(dir)
	eof = s.state == flow.TCPClosed || pseudo
	if s.flags&ssnAppDisabled != 0 || st.flags&stNoReassembly != 0 {
		return nil, 0, eof
	}
	from := st.appProg
	bs, be, ok := st.ra.NextBlock(from)
	if !ok {
		return nil, 0, eof
	}
	if bs > from {
		// A hole at the app progress: a gap once the receiver ACKed past it.
		n := t.adjustToAcked(s, st, pseudo, bs-from)
		if n == 0 || !checkGap(s, st) {
			return nil, 0, eof
		}
		if st.pendingGap == 0 {
			t.eventOnCurrent(decode.EventStreamReassemblySeqGap)
			t.Counters.ReassemblyGap++
			st.flags |= stGap
			s.flags |= ssnLossy
			if st == &s.client { // EVE flow tcp.ts_gap / tcp.tc_gap
				f.TCP.TSGap = true
			} else {
				f.TCP.TCGap = true
			}
		}
		st.pendingGap = n
		gap = n
		if n < bs-from {
			return nil, gap, eof
		}
		from = bs
	}
	// data from `from`, clipped to ACKed data
	n := be - from
	saved := st.appProg
	st.appProg = from
	n = t.adjustToAcked(s, st, pseudo, n)
	st.appProg = saved
	if n == 0 {
		return nil, gap, eof
	}
	if cap(t.appScratch) < int(n) {
		t.appScratch = make([]byte, 0, n+n/4)
	}
	return st.ra.Bytes(from, from+n, t.appScratch[:0]), gap, eof
}

// consumeApp is ConsumeApp: the gap AppData reported, then n bytes.
func (t *Tracker) consumeApp(s *Session, st *Stream, n int) {
	st.appProg += st.pendingGap
	st.pendingGap = 0
	if n > 0 {
		st.appProg += uint64(n)
	}
}
