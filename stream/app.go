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
	// Suricata's further test of an ACK past next_seq ends in "gap" either way, and its
	// one other way out (no data at all) cannot be taken from appSpan, which found a block.
	return la-ackAdded > st.appProg
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
	from, n, gap, eof := t.appSpan(f, s, dir, pseudo)
	if n == 0 {
		return nil, gap, eof
	}
	if cap(t.appScratch) < int(n) {
		t.appScratch = make([]byte, 0, n+n/4)
	}
	return s.streamOf(dir).ra.Bytes(from, from+n, t.appScratch[:0]), gap, eof
}

// appSpan is where AppData's bytes lie: n bytes at stream offset from, after a gap of gap
// bytes (declared here, with its event and counters, the first time it is met).
func (t *Tracker) appSpan(f *flow.Flow, s *Session, dir flow.Direction, pseudo bool) (from, n, gap uint64, eof bool) {
	st := s.streamOf(dir)
	eof = s.state == flow.TCPClosed || pseudo
	if s.flags&ssnAppDisabled != 0 || st.flags&stNoReassembly != 0 {
		return 0, 0, 0, eof
	}
	from = st.appProg
	bs, be, ok := st.ra.NextBlock(from)
	if !ok {
		return 0, 0, 0, eof
	}
	if bs > from {
		// A hole at the app progress: a gap once the receiver ACKed past it.
		g := t.adjustToAcked(s, st, pseudo, bs-from)
		if g == 0 || !checkGap(s, st) {
			return 0, 0, 0, eof
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
		st.pendingGap = g
		gap = g
		if g < bs-from {
			return 0, 0, gap, eof
		}
		from = bs
	}
	// data from `from`, clipped to ACKed data
	n = be - from
	saved := st.appProg
	st.appProg = from
	n = t.adjustToAcked(s, st, pseudo, n)
	st.appProg = saved
	return from, n, gap, eof
}

// drainApp stands for an app layer where there is none yet (Config.AppLayer off): it takes
// every in-order byte the app layer would be given, and every gap, as Suricata's app layer
// takes them while it looks for the flow's protocol, so storage is released, gaps are
// declared (reassembly_seq_gap, tcp.reassembly_gap, flow tcp.*_gap) and packets enter the
// stream as they do in Suricata.
func (t *Tracker) drainApp(f *flow.Flow, s *Session, dir flow.Direction, pseudo bool) {
	st := s.streamOf(dir)
	for range 64 { // each round moves past one block or one gap; a bound, not a condition
		_, n, gap, _ := t.appSpan(f, s, dir, pseudo)
		if n == 0 && gap == 0 {
			return
		}
		t.consumeApp(s, st, int(n))
	}
}

// consumeApp is ConsumeApp: the gap AppData reported, then n bytes.
func (t *Tracker) consumeApp(s *Session, st *Stream, n int) {
	st.appProg += st.pendingGap
	st.pendingGap = 0
	if n > 0 {
		st.appProg += uint64(n)
	}
}
