package stream

import "github.com/meerkat-ids/meerkat/flow"

// Raw stream inspection after src/stream-tcp-reassemble.c: StreamReassembleRawHasDataReady
// and StreamReassembleRawCheckLimit decide whether a packet inspects its direction's stream,
// StreamReassembleRawDo (IDS) and StreamReassembleRawInline (inline) what it sees, and
// StreamReassembleRawUpdateProgress moves the raw progress.

// rawCheckLimit is StreamTcpReassembleRawCheckLimit.
func (t *Tracker) rawCheckLimit(s *Session, st *Stream, pseudo bool) bool {
	if st.flags&(stDepthReached|stTriggerRaw|stNewRawDisabled) != 0 {
		return true
	}
	if s.state > flow.TCPTimeWait || pseudo {
		return true
	}
	diff := int64(st.lastAckAbs()) - int64(st.rawProg)
	return int64(t.chunkSize(s, st)) <= diff
}

// raw fills buf; see Tracker.Raw. It reports StreamReassembleRawHasDataReady (the packet's
// PKT_DETECT_HAS_STREAMDATA), which can hold with no data handed out: in IDS mode when the
// chunk limit or trigger says "inspect now" but nothing past the raw progress is ACKed yet.
// buf.End is then the raw progress (StreamReassembleRawDo's progress_out for no data).
// With flush (a rule with SIG_FLAG_FLUSH: respect_inspect_depth), a pending app-layer trigger
// starts the data min-inspect-depth bytes before the app progress.
func (t *Tracker) raw(s *Session, dir flow.Direction, pseudo, flush bool, buf *RawBuffer) bool {
	st := s.streamOf(dir)
	if t.cfg.Inline {
		return t.rawInline(s, st, dir, pseudo, buf)
	}
	if !pseudo && s.state < flow.TCPEstablished {
		return false
	}
	if st.ra.Segments() == 0 || st.flags&(stNoReassembly|stDisableRaw) != 0 {
		return false
	}
	if st.rawProg == st.dataEnd || !t.rawCheckLimit(s, st, pseudo) {
		return false
	}
	progress := st.rawProg
	if flush && st.flags&stTriggerRaw != 0 && st.minInspectDepth != 0 {
		p := uint64(0)
		if st.appProg > st.minInspectDepth {
			p = st.appProg - st.minInspectDepth
		}
		progress = min(p, st.rawProg)
	}
	re := st.lastAckAbs()
	used := 0
	buf.End = progress
	for cursor := progress; ; {
		bs, be, ok := st.ra.NextBlock(cursor)
		if !ok {
			break
		}
		cursor = be
		n := be - bs
		if !pseudo {
			if re < progress {
				break
			}
			if progress+n > re {
				n = re - progress
			}
		}
		if n == 0 {
			break
		}
		used = t.appendChunk(st, bs, bs+n, used, buf)
		switch {
		case bs == progress:
			progress += n
		case bs > progress && bs < re:
			progress = bs
		case bs > progress && bs == re:
			progress = re
		}
	}
	buf.End = progress
	return true
}

// appendChunk adds the bytes [a, b) of st to buf, copying them into the raw scratch (from
// used on) when they span pages; it returns the scratch in use.
func (t *Tracker) appendChunk(st *Stream, a, b uint64, used int, buf *RawBuffer) int {
	if n := int(b - a); a/PageSize != (b-1)/PageSize && cap(t.rawScratch)-used < n {
		// A new scratch: the chunks already handed out keep the old one.
		t.rawScratch = make([]byte, 0, max(2*cap(t.rawScratch), n))
		used = 0
	}
	sc := t.rawScratch[used:used]
	out := st.ra.Bytes(a, b, sc)
	if cap(sc) > 0 && len(out) > 0 && &out[0] == &sc[:1][0] {
		used += len(out)
	}
	buf.Chunks = append(buf.Chunks, out)
	buf.Offsets = append(buf.Offsets, a)
	return used
}

// rawInline is StreamReassembleRawInline: the contiguous data around the packet's payload,
// trimmed to about a chunk, or the payload itself when it is not wholly in the stream.
func (t *Tracker) rawInline(s *Session, st *Stream, dir flow.Direction, pseudo bool, buf *RawBuffer) bool {
	// StreamReassembleRawHasDataReady: besides a payload added to the stream, there must be
	// segments and neither NOREASSEMBLY nor DISABLE_RAW (stream.reassembly.raw off).
	lp := &t.last
	if pseudo || lp.slot != st || !lp.added || len(lp.payload) == 0 ||
		st.ra.Segments() == 0 || st.flags&(stNoReassembly|stDisableRaw) != 0 {
		return false
	}
	plen := uint64(len(lp.payload))
	chunk := uint64(t.chunkSize(s, st))
	if chunk <= plen || (chunk/3)*2 < plen {
		chunk = plen + chunk/3
	}
	pl := lp.offset
	pr := pl + plen
	// The block holding the packet's first byte.
	var ds, de uint64
	found := false
	for cursor := st.ra.Base(); ; {
		bs, be, ok := st.ra.NextBlock(cursor)
		if !ok {
			break
		}
		if be > pl {
			ds, de, found = bs, be, bs <= pl
			break
		}
		cursor = be
	}
	if !found || pl < ds || pr > de {
		buf.Chunks = append(buf.Chunks, lp.payload)
		buf.Offsets = append(buf.Offsets, pl)
		buf.FromPacket = true
		buf.End = t.inlineProgress(st, pl, plen)
		return true
	}
	if de-ds > chunk {
		excess := de - ds - chunk
		switch {
		case de == pr:
			ds += excess
		case ds == pl:
			de -= excess
		default:
			absBefore := pl - ds
			absAfter := de - pr
			before, after := absBefore, absAfter
			half := (chunk - plen) / 2
			if after >= half {
				if before >= half {
					before, after = half, half
				} else {
					after = (chunk - plen) - before
				}
			} else if before >= half {
				before = (chunk - plen) - after
			}
			ds += absBefore - before
			de -= absAfter - after
		}
	}
	t.appendChunk(st, ds, de, 0, buf)
	buf.End = t.inlineProgress(st, ds, de-ds)
	return true
}

// inlineProgress is the progress StreamReassembleRawInline hands back for data [off,
// off+n) when the stream has several blocks.
func (t *Tracker) inlineProgress(st *Stream, off, n uint64) uint64 {
	la := st.lastAckAbs()
	if st.rawProg < la {
		if off > la {
			return la
		}
		return off + n
	}
	return st.rawProg
}

// rawConsumed is StreamReassembleRawUpdateProgress.
func (t *Tracker) rawConsumed(s *Session, st *Stream, end uint64) {
	if end > st.rawProg {
		st.rawProg = end
		st.flags &^= stTriggerRaw
	} else if end == 0 {
		target := st.lastAckAbs()
		if s.flags&ssnAppDisabled == 0 {
			target = st.appProg
		}
		if target > st.rawProg {
			st.rawProg = target
		}
		st.flags &^= stTriggerRaw
	}
	if st.flags&stNewRawDisabled != 0 {
		st.flags |= stDisableRaw
	}
}
