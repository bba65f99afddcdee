package stream

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The checks the state handlers share (src/stream-tcp.c): sequence, ACK, RST and
// timestamp validation, and the pre-checks StreamTcpPacket runs before the state handler
// (keep-alives, zero-window probe ACKs, window updates, outdated ACKs, retransmissions,
// RST injection).

// updateLastAck is StreamTcpUpdateLastAck.
func updateLastAck(st *Stream, ack Seq) {
	if ack.GT(st.lastAck) && ack.GT(st.baseSeq()) {
		st.lastAck = ack
	}
}

// updateNextSeq is StreamTcpUpdateNextSeq (with StreamTcpAsyncLastAckUpdate).
func updateNextSeq(s *Session, st *Stream, seq Seq) {
	st.nextSeq = seq
	if s.flags&ssnAsync != 0 && st.nextSeq.GT(st.lastAck) {
		st.lastAck = st.nextSeq
	}
}

// updateNextWin is StreamTcpUpdateNextWin (no SACK accounting).
func updateNextWin(st *Stream, win Seq) {
	if win.GT(st.nextWin) {
		st.nextWin = win
	}
}

// ackInWindow is validateAck's first two cases, which accept the ACK without an event: it
// moves last_ack within the window, or repeats it. Callers on the per-packet path test it
// before the call.
func ackInWindow(st *Stream, ack Seq) bool {
	return ack.GT(st.lastAck) && ack.LEQ(st.nextWin) || ack == st.lastAck
}

// validateAck is StreamTcpValidateAck: st is the stream whose data the packet ACKs.
func (t *Tracker) validateAck(s *Session, st *Stream, c *pctx) bool {
	if !c.has(thACK) {
		return true
	}
	ack := c.ack
	if ack.GT(st.lastAck) && ack.LEQ(st.nextWin) {
		return true
	}
	if ack == st.lastAck {
		return true
	}
	if ack.LT(st.lastAck) {
		if st.window != 0 && ack.LT(st.lastAck-Seq(st.window)) {
			t.event(c, decode.EventStreamPktInvalidAck)
			return false
		}
		return true
	}
	if s.flags&ssnAsync != 0 {
		return true
	}
	if s.state > flow.TCPSynSent && ack.GT(st.nextWin) {
		t.event(c, decode.EventStreamPktInvalidAck)
		return false
	}
	if s.state == flow.TCPSynSent && !c.toServer && c.has(thRST) && ack == st.isn+1 {
		return true
	}
	t.event(c, decode.EventStreamPktInvalidAck)
	return false
}

// validateRst is StreamTcpValidateRst.
func (t *Tracker) validateRst(s *Session, c *pctx) bool {
	if s.flags&ssnLossy != 0 {
		return true
	}
	if s.flags&ssnTimestamp != 0 && !t.validateTimestamp(s, c) {
		return false
	}
	if c.plen > 0 {
		t.event(c, decode.EventStreamRstWithData)
	}
	pol := t.policyOf(c.rcv, c)
	if c.has(thACK) && c.ack != 0 && !t.validateAck(s, c.rcv, c) {
		t.event(c, decode.EventStreamRstInvalidAck)
		return false
	}
	if c.md5() {
		c.rcv.flags |= stRstRecv
	}
	snd := c.snd
	if s.flags&ssnAsync != 0 {
		return c.seq.GEQ(snd.nextSeq)
	}
	switch pol {
	case PolicyHPUX11:
		return c.seq.GEQ(snd.nextSeq)
	case PolicyOldLinux, PolicyLinux, PolicySolaris:
		if (c.seq + Seq(c.plen)).GEQ(snd.lastAck) {
			return c.seq.LT(snd.nextSeq + Seq(snd.window))
		}
		return false
	}
	return c.seq == snd.nextSeq
}

// validateTimestamp is StreamTcpValidateTimestamp (liberal timestamps, Suricata's default).
func (t *Tracker) validateTimestamp(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	pol := t.policyOf(rcv, c)
	if !c.p.TCPHasTS {
		return true
	}
	ts := c.p.TCPTSVal
	lastPktTS, lastTS := snd.lastPktTS, snd.lastTS
	check := true
	if snd.flags&stZeroTimestamp != 0 {
		switch pol {
		case PolicyLinux, PolicyWindows2k3:
			check = false
		case PolicyOldLinux, PolicyWindows, PolicyVista:
			if snd.nextSeq == c.seq {
				lastTS = ts
				check = false
			}
		}
	}
	if pol == PolicyHPUX11 && snd.nextSeq != c.seq {
		check = false
	}
	if ts == 0 {
		switch pol {
		case PolicyOldLinux, PolicyWindows, PolicyWindows2k3, PolicyVista, PolicySolaris:
		default:
			t.event(c, decode.EventStreamPktInvalidTimestamp)
			return false
		}
	}
	if check {
		result := int32(ts-lastTS) + 1 // liberal timestamps
		if lastPktTS == 0 && s.flags&ssnMidstream != 0 {
			lastPktTS = c.tsSec()
		}
		bad := result < 0 || (snd.lastTS != 0 && c.tsSec() > lastPktTS+paws24Days)
		if bad && !(snd.nextSeq == c.seq && c.tsSec() > lastPktTS+paws24Days) {
			t.event(c, decode.EventStreamPktInvalidTimestamp)
			return false
		}
	}
	return true
}

// handleTimestamp is StreamTcpHandleTimestamp: validate and record the sender's timestamp.
func (t *Tracker) handleTimestamp(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	pol := t.policyOf(rcv, c)
	if !c.p.TCPHasTS {
		if pol == PolicySolaris {
			s.flags &^= ssnTimestamp
		}
		return true
	}
	ts := c.p.TCPTSVal
	check := true
	if snd.flags&stZeroTimestamp != 0 {
		switch pol {
		case PolicyLinux, PolicyWindows2k3:
			s.flags &^= ssnTimestamp
			check = false
		case PolicyOldLinux, PolicyWindows, PolicyVista:
			snd.flags &^= stZeroTimestamp
			if snd.nextSeq == c.seq {
				snd.lastTS = ts
				check = false
			}
		}
	}
	if pol == PolicyHPUX11 && snd.nextSeq != c.seq {
		check = false
	}
	if ts == 0 {
		switch pol {
		case PolicyOldLinux, PolicyWindows, PolicyWindows2k3, PolicyVista, PolicySolaris:
		default:
			t.event(c, decode.EventStreamPktInvalidTimestamp)
			return false
		}
	}
	if check {
		result := int32(ts-snd.lastTS) + 1
		if snd.lastPktTS == 0 && s.flags&ssnMidstream != 0 {
			snd.lastPktTS = c.tsSec()
		}
		bad := result < 0 || (snd.lastTS != 0 && c.tsSec() > snd.lastPktTS+paws24Days)
		if !bad {
			if snd.nextSeq == c.seq {
				snd.lastTS = ts
			}
			snd.lastPktTS = c.tsSec()
		} else if snd.nextSeq == c.seq && c.tsSec() > snd.lastPktTS+paws24Days {
			snd.lastTS = ts
			snd.lastPktTS = c.tsSec()
		} else {
			t.event(c, decode.EventStreamPktInvalidTimestamp)
			return false
		}
	}
	return true
}

// isRetransmission is StreamTcpPacketIsRetransmission on the sender's stream: 1 for data
// already ACKed (fully or partly), 2 for data in flight, 0 otherwise.
func (t *Tracker) isRetransmission(st *Stream, c *pctx) int {
	if c.plen == 0 {
		return 0
	}
	end := c.seq + Seq(c.plen)
	if c.seq.LT(st.lastAck) && end.GT(st.lastAck) {
		t.event(c, decode.EventStreamPktRetransmission)
		return 1
	}
	if end.LEQ(st.lastAck) {
		t.event(c, decode.EventStreamPktRetransmission)
		return 1
	}
	if end.LEQ(st.nextSeq) {
		t.event(c, decode.EventStreamPktRetransmission)
		return 2
	}
	return 0
}

func (t *Tracker) isKeepAlive(s *Session, c *pctx) bool {
	if c.plen > 1 || c.has(thSYN|thFIN|thRST) {
		return false
	}
	if c.ack == c.rcv.lastAck && c.seq == c.snd.nextSeq-1 {
		c.snd.flags |= stKeepAlive
		return true
	}
	return false
}

func (t *Tracker) isKeepAliveAck(s *Session, c *pctx) bool {
	if c.plen > 0 || c.has(thSYN|thFIN|thRST) || c.win == 0 {
		return false
	}
	if c.scaled(c.rcv.wscale) != c.rcv.window {
		return false
	}
	if c.rcv.flags&stKeepAlive != 0 && c.ack == c.rcv.lastAck && c.seq == c.snd.nextSeq {
		c.rcv.flags &^= stKeepAlive
		return true
	}
	return false
}

// isZWPAck is StreamTcpPacketIsZeroWindowProbeAck.
func (t *Tracker) isZWPAck(s *Session, c *pctx) bool {
	if s.state < flow.TCPEstablished || c.plen != 0 || c.flags&(thACK|thSYN|thFIN|thRST) != thACK {
		return false
	}
	if c.toServer {
		if s.flags&ssnZWPToClient == 0 {
			return false
		}
	} else if s.flags&ssnZWPToServer == 0 {
		return false
	}
	w := c.scaled(c.snd.wscale)
	return w == 0 && w == c.rcv.window && c.seq == c.snd.nextSeq && c.ack == c.rcv.lastAck
}

func (t *Tracker) isWindowUpdate(s *Session, c *pctx) bool {
	if s.state < flow.TCPEstablished || c.plen > 0 || c.has(thSYN|thFIN|thRST) || c.win == 0 {
		return false
	}
	if c.scaled(c.rcv.wscale) == c.rcv.window {
		return false
	}
	return c.ack == c.rcv.lastAck && c.seq == c.snd.nextSeq
}

func (t *Tracker) isFinShutdownAck(s *Session, c *pctx) bool {
	if s.state != flow.TCPTimeWait && s.state != flow.TCPCloseWait && s.state != flow.TCPLastAck {
		return false
	}
	if c.flags != thACK || c.plen != 0 {
		return false
	}
	return c.snd.nextSeq+1 == c.seq && c.ack == c.rcv.nextSeq+1
}

func (t *Tracker) isBadWindowUpdate(s *Session, c *pctx) bool {
	if s.state < flow.TCPEstablished || s.state == flow.TCPClosed || c.has(thSYN|thFIN|thRST) {
		return false
	}
	w := c.scaled(c.rcv.wscale)
	if w < c.rcv.window {
		diff := c.rcv.window - w
		if diff > c.plen && c.ack.GT(c.rcv.nextSeq) && c.seq.GT(c.snd.nextSeq) {
			adiff := uint32(c.ack - c.rcv.lastAck)
			if (w > 1024 && diff > adiff+32) || (w <= 1024 && diff > adiff) {
				t.event(c, decode.EventStreamPktBadWindowUpdate)
				return true
			}
		}
	}
	return false
}

// isOutdatedAck is StreamTcpPacketIsOutdatedAck; a packet with SACK blocks is never taken as
// outdated (no SACK records are kept).
func (t *Tracker) isOutdatedAck(s *Session, c *pctx) bool {
	if s.state < flow.TCPEstablished || c.plen != 0 || c.flags&(thACK|thSYN|thFIN|thRST) != thACK {
		return false
	}
	return c.seq == c.snd.nextSeq && c.ack.LT(c.rcv.lastAck) && !c.sack()
}

// isSpuriousRetransmission: 2 when the data lies wholly before base_seq, 1 before last_ack.
func (t *Tracker) isSpuriousRetransmission(c *pctx) int {
	if c.plen == 0 {
		return 0
	}
	end := c.seq + Seq(c.plen)
	st := c.snd
	if st.flags&stNoReassembly == 0 && end.LEQ(st.baseSeq()) {
		return 2
	}
	if end.LEQ(st.lastAck) {
		return 1
	}
	return 0
}

// checkPostRst is StreamTcpPacketCheckPostRst.
func (t *Tracker) checkPostRst(s *Session, c *pctx) {
	if c.has(thRST) {
		return
	}
	if c.rcv.flags&stRstRecv != 0 {
		c.rcv.flags &^= stRstRecv
		s.flags &^= ssnClosedByRst
		t.event(c, decode.EventStreamSuspectedRstInject)
	}
}
