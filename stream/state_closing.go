package stream

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The closing states: StreamTcpPacketStateFinWait1, FinWait2, Closing, CloseWait, LastAck,
// TimeWait and Closed. In each, snd is the packet's sender's stream and rcv the other one;
// Suricata writes each handler twice (to_server, to_client), with small differences kept
// here as conditions on c.toServer.

// closingRst is the RST branch the closing states share.
func (t *Tracker) closingRst(s *Session, c *pctx) bool {
	if !t.validateRst(s, c) {
		return false
	}
	t.closeWithReset(s, c)
	if c.has(thACK) && t.validateAck(s, c.rcv, c) {
		updateLastAck(c.rcv, c.ack)
	}
	updateLastAck(c.snd, c.seq)
	if s.flags&ssnTimestamp != 0 {
		t.handleTimestamp(s, c)
	}
	t.handleSegment(s, c.snd, c)
	return true
}

// tsOK validates the timestamp when the session uses them.
func (t *Tracker) tsOK(s *Session, c *pctx) bool {
	return s.flags&ssnTimestamp == 0 || t.validateTimestamp(s, c)
}

func (t *Tracker) handleTS(s *Session, c *pctx) {
	if s.flags&ssnTimestamp != 0 {
		t.handleTimestamp(s, c)
	}
}

// outOfWindowSeq: seq before next_seq (minus slack) or past last_ack + window.
func outOfWindowSeq(st *Stream, seq, lo Seq) bool {
	return seq.LT(lo) || seq.GT(st.lastAck+Seq(st.window))
}

func (t *Tracker) stateFinWait1(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	switch {
	case c.has(thRST):
		return t.closingRst(s, c)

	case c.has(thFIN):
		if !t.tsOK(s, c) {
			return false
		}
		withAck := c.has(thACK)
		retrans := t.isRetransmission(snd, c) != 0
		if !retrans && withAck && !c.toServer && snd.nextSeq-1 == c.seq && rcv.lastAck == c.ack {
			retrans = true
		}
		if !retrans && outOfWindowSeq(snd, c.seq, snd.nextSeq-1) {
			t.event(c, decode.EventStreamFin1FinWrongSeq)
			return false
		}
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamFin1InvalidAck)
			return false
		}
		next := flow.TCPClosing
		if withAck {
			next = flow.TCPTimeWait
		}
		if withAck && !c.toServer {
			// FIN/ACK to_client: Suricata updates only when not a retransmission.
			t.handleTS(s, c)
			if !retrans {
				t.setState(s, c, next)
				rcv.window = c.scaled(rcv.wscale)
				if (rcv.nextSeq - 1).LT(c.ack) {
					rcv.nextSeq = c.ack
				}
				if snd.nextSeq-1 == c.seq {
					updateNextSeq(s, snd, c.seq+Seq(c.plen))
				}
				updateLastAck(rcv, c.ack)
			}
			t.handleSegment(s, snd, c)
			return true
		}
		if !retrans {
			t.setState(s, c, next)
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if (rcv.nextSeq - 1).LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		if withAck && c.toServer {
			if snd.nextSeq == c.seq {
				updateNextSeq(s, snd, c.seq+Seq(c.plen))
			}
			updateLastAck(rcv, c.ack)
		} else {
			if snd.nextSeq-1 == c.seq {
				updateNextSeq(s, snd, c.seq+Seq(c.plen))
			}
			if withAck {
				updateLastAck(rcv, c.ack)
			}
		}
		t.handleSegment(s, snd, c)

	case c.has(thSYN):
		t.event(c, decode.EventStreamShutdownSynResend)
		return false

	case c.has(thACK):
		if !t.tsOK(s, c) {
			return false
		}
		retrans := t.isRetransmission(snd, c) != 0
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamFin1InvalidAck)
			return false
		}
		end := c.seq + Seq(c.plen)
		inWin := end.LEQ(snd.nextWin) || s.flags&(ssnMidstream|ssnAsync) != 0
		if c.toServer {
			if c.ack.LT(rcv.nextSeq) {
				// ACK of data before the FIN
			} else if !retrans && c.ack == rcv.nextSeq {
				if !inWin {
					t.event(c, decode.EventStreamFin1AckWrongSeq)
					return false
				}
				if c.seq == snd.nextSeq {
					t.setState(s, c, flow.TCPFinWait2)
				}
				rcv.window = c.scaled(rcv.wscale)
			}
		} else if !retrans {
			if !inWin {
				t.event(c, decode.EventStreamFin1AckWrongSeq)
				return false
			}
			if c.seq == snd.nextSeq-1 {
				t.setState(s, c, flow.TCPFinWait2)
			}
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if (rcv.nextSeq - 1).LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		if c.toServer {
			if snd.nextSeq == c.seq {
				updateNextSeq(s, snd, c.seq+Seq(c.plen))
			}
		} else if snd.nextSeq-1 == c.seq {
			updateNextSeq(s, snd, c.seq+Seq(c.plen))
		}
		updateLastAck(rcv, c.ack)
		updateNextWin(rcv, rcv.lastAck+Seq(rcv.window))
		t.handleSegment(s, snd, c)
	}
	return true
}

func (t *Tracker) stateFinWait2(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	switch {
	case c.has(thRST):
		return t.closingRst(s, c)

	case c.has(thFIN):
		if !t.tsOK(s, c) {
			return false
		}
		retrans := false
		if c.seq == snd.nextSeq-1 && c.ack == rcv.lastAck {
			retrans = true
		} else if t.isRetransmission(snd, c) != 0 {
			retrans = true
		} else if outOfWindowSeq(snd, c.seq, snd.nextSeq) {
			t.event(c, decode.EventStreamFin2FinWrongSeq)
			return false
		}
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamFin2InvalidAck)
			return false
		}
		if !retrans {
			t.setState(s, c, flow.TCPTimeWait)
			if c.toServer && snd.nextSeq == c.seq {
				updateNextSeq(s, snd, snd.nextSeq+Seq(c.plen))
			}
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if rcv.nextSeq.LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		if c.has(thACK) {
			updateLastAck(rcv, c.ack)
		}
		t.handleSegment(s, snd, c)

	case c.has(thSYN):
		t.event(c, decode.EventStreamShutdownSynResend)
		return false

	case c.has(thACK):
		if !t.tsOK(s, c) {
			return false
		}
		retrans := t.isRetransmission(snd, c) != 0
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamFin2InvalidAck)
			return false
		}
		if !retrans {
			if !((c.seq + Seq(c.plen)).LEQ(snd.nextWin) || s.flags&(ssnMidstream|ssnAsync) != 0) {
				t.event(c, decode.EventStreamFin2AckWrongSeq)
				return false
			}
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if snd.nextSeq == c.seq {
			updateNextSeq(s, snd, snd.nextSeq+Seq(c.plen))
		}
		updateLastAck(rcv, c.ack)
		updateNextWin(rcv, rcv.lastAck+Seq(rcv.window))
		t.handleSegment(s, snd, c)
	}
	return true
}

func (t *Tracker) stateClosing(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	switch {
	case c.has(thRST):
		return t.closingRst(s, c)
	case c.has(thSYN):
		t.event(c, decode.EventStreamShutdownSynResend)
		return false
	case c.has(thACK):
		if !t.tsOK(s, c) {
			return false
		}
		retrans := t.isRetransmission(snd, c) != 0
		if c.seq != snd.nextSeq {
			t.event(c, decode.EventStreamClosingAckWrongSeq)
			return false
		}
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamClosingInvalidAck)
			return false
		}
		if !retrans {
			t.setState(s, c, flow.TCPTimeWait)
			// Suricata sets the client's window in both directions here.
			s.client.window = c.scaled(s.client.wscale)
		}
		t.handleTS(s, c)
		if rcv.nextSeq.LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		updateLastAck(rcv, c.ack)
		t.handleSegment(s, snd, c)
	}
	return true
}

func (t *Tracker) stateCloseWait(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	switch {
	case c.has(thRST):
		return t.closingRst(s, c)

	case c.has(thFIN):
		if !t.tsOK(s, c) {
			return false
		}
		retrans := t.isRetransmission(snd, c) != 0
		if !retrans && outOfWindowSeq(snd, c.seq, snd.nextSeq) {
			t.event(c, decode.EventStreamCloseWaitFinOutOfWindow)
			return false
		}
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamCloseWaitInvalidAck)
			return false
		}
		if !retrans {
			if !c.toServer {
				t.setState(s, c, flow.TCPLastAck)
			}
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if rcv.nextSeq.LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		if c.has(thACK) {
			updateLastAck(rcv, c.ack)
		}
		t.handleSegment(s, snd, c)

	case c.has(thSYN):
		t.event(c, decode.EventStreamShutdownSynResend)
		return false

	case c.has(thACK):
		if !t.tsOK(s, c) {
			return false
		}
		retrans := t.isRetransmission(snd, c) != 0
		if c.plen > 0 && (c.seq + Seq(c.plen)).LEQ(snd.lastAck) {
			t.event(c, decode.EventStreamCloseWaitPktBeforeLastAck)
			return false
		} else if c.seq.GT(snd.lastAck + Seq(snd.window)) {
			t.event(c, decode.EventStreamCloseWaitAckOutOfWindow)
			return false
		}
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamCloseWaitInvalidAck)
			return false
		}
		if !retrans {
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if rcv.nextSeq.LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		if c.seq == snd.nextSeq {
			updateNextSeq(s, snd, snd.nextSeq+Seq(c.plen))
		}
		updateLastAck(rcv, c.ack)
		t.handleSegment(s, snd, c)
	}
	return true
}

func (t *Tracker) stateLastAck(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	switch {
	case c.has(thRST):
		return t.closingRst(s, c)
	case c.has(thFIN):
	case c.has(thSYN):
		t.event(c, decode.EventStreamShutdownSynResend)
		return false
	case c.has(thACK):
		if !t.tsOK(s, c) {
			return false
		}
		if !c.toServer {
			// Suricata handles only the client's final ACK here.
			return true
		}
		retrans := t.isRetransmission(snd, c) != 0
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamLastAckInvalidAck)
			return false
		}
		if !retrans {
			if c.seq.LT(snd.nextSeq) {
				// an ACK for data before the FIN
			} else if c.seq != snd.nextSeq && c.seq != snd.nextSeq+1 {
				t.event(c, decode.EventStreamLastAckAckWrongSeq)
				return false
			} else {
				t.setState(s, c, flow.TCPClosed)
			}
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if rcv.nextSeq.LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		updateLastAck(rcv, c.ack)
		t.handleSegment(s, snd, c)
	}
	return true
}

func (t *Tracker) stateTimeWait(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	switch {
	case c.has(thRST):
		return t.closingRst(s, c)
	case c.has(thFIN):
	case c.has(thSYN):
		t.event(c, decode.EventStreamShutdownSynResend)
		return false
	case c.has(thACK):
		if !t.tsOK(s, c) {
			return false
		}
		retrans := false
		if t.isRetransmission(snd, c) != 0 {
			retrans = true
		} else if c.toServer {
			if c.seq != snd.nextSeq && c.seq != snd.nextSeq+1 {
				t.event(c, decode.EventStreamTimeWaitAckWrongSeq)
				return false
			}
		} else if c.seq != snd.nextSeq-1 && c.seq != snd.nextSeq {
			if c.plen > 0 && c.seq == snd.lastAck {
				return true
			}
			t.event(c, decode.EventStreamTimeWaitAckWrongSeq)
			return false
		}
		if !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamTimeWaitInvalidAck)
			return false
		}
		if !retrans {
			t.setState(s, c, flow.TCPClosed)
			rcv.window = c.scaled(rcv.wscale)
		}
		t.handleTS(s, c)
		if rcv.nextSeq.LT(c.ack) {
			rcv.nextSeq = c.ack
		}
		updateLastAck(rcv, c.ack)
		t.handleSegment(s, snd, c)
	}
	return true
}

// stateClosed is StreamTcpPacketStateClosed: while only one side received a RST, the other
// side's packets are handled by the previous state.
func (t *Tracker) stateClosed(s *Session, c *pctx) bool {
	if c.has(thRST) {
		return true
	}
	if c.snd.flags&stRstRecv == 0 && c.rcv.flags&stRstRecv != 0 {
		if !t.dispatch(s, c, s.pstate) {
			return false
		}
		if s.state == flow.TCPClosed {
			s.state = s.pstate
			c.f.SetTCPState(s.state)
		}
	}
	return true
}
