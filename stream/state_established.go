package stream

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// stateEstablished is StreamTcpPacketStateEstablished.
func (t *Tracker) stateEstablished(s *Session, c *pctx) bool {
	switch {
	case c.has(thRST):
		if !t.validateRst(s, c) {
			return false
		}
		t.closeWithReset(s, c)
		snd, rcv := c.snd, c.rcv
		rcv.nextSeq = c.ack
		if c.toServer {
			snd.nextSeq = c.seq + Seq(c.plen)
		} else {
			snd.nextSeq = c.seq + Seq(c.plen) + 1
		}
		snd.window = c.scaled(snd.wscale)
		if c.has(thACK) && t.validateAck(s, rcv, c) {
			updateLastAck(rcv, c.ack)
		}
		updateLastAck(snd, c.seq)
		if s.flags&ssnTimestamp != 0 {
			t.handleTimestamp(s, c)
		}
		t.handleSegment(s, snd, c)

	case c.has(thFIN):
		if s.flags&ssnTimestamp != 0 && !t.validateTimestamp(s, c) {
			return false
		}
		return t.handleFin(s, c)

	case c.flags&(thSYN|thACK) == thSYN|thACK:
		if c.toServer {
			t.event(c, decode.EventStreamEstSynAckToServer)
			return false
		}
		if c.ack != s.client.lastAck {
			t.event(c, decode.EventStreamEstSynAckResendWithDiffAck)
			return false
		}
		if c.seq != s.server.isn {
			t.event(c, decode.EventStreamEstSynAckResendWithDiffSeq)
			return false
		}
		if s.flags&ssn3WHSConfirmed != 0 {
			t.event(c, decode.EventStreamEstSynAckResend)
			return false
		}

	case c.has(thSYN):
		if !c.toServer {
			t.event(c, decode.EventStreamEstSynToClient)
			return false
		}
		// Suricata compares the SYN's ACK field with the ISN here.
		if c.ack != s.client.isn {
			t.event(c, decode.EventStreamEstSynResendDiffSeq)
			return false
		}
		t.event(c, decode.EventStreamEstSynResend)
		return false

	case c.has(thACK):
		if s.flags&ssnTimestamp != 0 && !t.validateTimestamp(s, c) {
			return false
		}
		if !c.toServer {
			s.flags |= ssn3WHSConfirmed
		}
		// A rejected ACK or data packet raises its event but is no stream error.
		t.establishedPacket(s, c)
	}
	return true
}

// establishedPacket is HandleEstablishedPacketToServer / ToClient: ACK and window checks,
// then the data.
func (t *Tracker) establishedPacket(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	seq, plen := c.seq, c.plen
	end := seq + Seq(plen)
	zwpSent, zwpOther := ssnZWPToServer, ssnZWPToClient
	if !c.toServer {
		zwpSent, zwpOther = ssnZWPToClient, ssnZWPToServer
	}
	if c.has(thACK) {
		if s.flags&zwpOther != 0 && c.ack == rcv.nextSeq+1 {
			t.event(c, decode.EventStreamEstAckZWPData)
		} else if !ackInWindow(rcv, c.ack) && !t.validateAck(s, rcv, c) {
			t.event(c, decode.EventStreamEstInvalidAck)
			return false
		}
	}
	if !c.toServer && s.flags&ssnMidstream != 0 && s.flags&ssnMidstreamEstablished != 0 {
		s.server.window = c.scaled(s.server.wscale)
		s.server.nextWin = s.server.lastAck + Seq(s.server.window)
		s.flags &^= ssnMidstreamEstablished
	}

	if (plen == 0 || plen == 1) && seq == snd.nextSeq-1 {
		// keep-alive
	} else if !end.GEQ(snd.lastAck) {
		switch {
		case s.flags&ssnAsync != 0:
			if c.toServer {
				updateLastAck(snd, seq)
			} else {
				snd.lastAck = seq
			}
		case c.toServer && snd.nextSeq == seq && t.cfg.AsyncOneside && s.flags&ssnMidstream != 0:
			updateLastAck(snd, seq)
			s.flags |= ssnAsync
		case c.toServer && snd.lastAck == snd.isn+1 && t.cfg.AsyncOneside && s.flags&ssnMidstream != 0:
			updateLastAck(snd, seq)
			s.flags |= ssnAsync
		case snd.lastAck.GT(snd.nextSeq) && end.GT(snd.nextSeq):
			// ACKed data we never saw: accept what lies past next_seq.
		default:
			t.event(c, decode.EventStreamEstPktBeforeLastAck)
			return false
		}
	}

	zwp := false
	if plen == 1 && seq == snd.nextSeq && snd.window == 0 {
		zwp = true
		s.flags |= zwpSent
		t.handleSegment(s, snd, c)
	} else if end.GEQ(snd.nextSeq) {
		updateNextSeq(s, snd, end)
	}

	if zwp {
		return true
	}
	if end.LEQ(snd.nextWin) || s.flags&(ssnMidstream|ssnAsync) != 0 {
		rcv.window = c.scaled(rcv.wscale)
		if c.has(thACK) {
			updateLastAck(rcv, c.ack)
			if s.flags&ssnAsync == 0 && rcv.lastAck.GT(rcv.nextSeq) {
				t.Counters.AckUnseenData++
			}
		}
		if s.flags&ssnTimestamp != 0 {
			t.handleTimestamp(s, c)
		}
		updateNextWin(rcv, rcv.lastAck+Seq(rcv.window))
		t.handleSegment(s, snd, c)
		return true
	}
	t.event(c, decode.EventStreamEstPacketOutOfWindow)
	return false
}

// handleFin is StreamTcpHandleFin (SYN_RECV and ESTABLISHED): a to_server FIN moves to
// CLOSE_WAIT, a to_client FIN to FIN_WAIT1 (Suricata names the states from the server's
// side).
func (t *Tracker) handleFin(s *Session, c *pctx) bool {
	snd, rcv := c.snd, c.rcv
	if !t.validateAck(s, rcv, c) {
		t.event(c, decode.EventStreamFinInvalidAck)
		return false
	}
	end := c.seq + Seq(c.plen)
	if !(c.seq.GEQ(snd.lastAck) && end.LEQ(snd.nextWin)) {
		t.event(c, decode.EventStreamFinOutOfWindow)
		return false
	}
	if c.toServer {
		if c.has(thSYN) {
			t.event(c, decode.EventStreamFinSyn)
			return false
		}
		t.setState(s, c, flow.TCPCloseWait)
		// Suricata's to_server FIN leaves the FIN's sequence number out of next_seq.
		snd.nextSeq = end
	} else {
		t.setState(s, c, flow.TCPFinWait1)
		snd.nextSeq = end + 1
	}
	rcv.window = c.scaled(rcv.wscale)
	if s.flags&ssnTimestamp != 0 {
		t.handleTimestamp(s, c)
	}
	if rcv.nextSeq.LT(c.ack) {
		rcv.nextSeq = c.ack
	}
	if c.has(thACK) {
		updateLastAck(rcv, c.ack)
	}
	t.handleSegment(s, snd, c)
	return true
}
