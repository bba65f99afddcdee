package stream

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The handshake states: StreamTcpPacketStateSynSent and StreamTcpPacketStateSynRecv. The
// queues of resent SYNs and SYN/ACKs with other ISNs (max-syn-queued, max-synack-queued)
// are not kept: a resent SYN replaces the session's SYN, a SYN/ACK with another ISN is
// ignored.

// synSentValidateTimestamp is StateSynSentValidateTimestamp: only a to_client response is
// checked against the SYN's timestamp.
func synSentValidateTimestamp(s *Session, c *pctx) bool {
	if c.toServer || !c.p.TCPHasTS {
		return true
	}
	rcv := &s.client
	echo := c.p.TCPTSEcr
	if rcv.flags&stTimestamp != 0 {
		if rcv.lastTS != 0 && echo != 0 && echo != rcv.lastTS {
			return false
		}
	} else if rcv.lastTS == 0 && echo != 0 {
		return false
	}
	return true
}

func (t *Tracker) stateSynSent(s *Session, c *pctx) bool {
	synack := c.flags&(thSYN|thACK) == thSYN|thACK
	switch {
	case synack && !c.toServer:
		// liberal timestamps: a SYN/ACK's timestamp mismatch is not held against it.
		if !(c.tfo || s.flags&ssnTFO != 0) {
			if c.ack != s.client.isn+1 {
				t.event(c, decode.EventStream3WHSSynAckWithWrongAck)
				return false
			}
		} else {
			switch {
			case c.ack == s.client.nextSeq:
			case c.ack == s.client.isn+1:
				s.client.nextSeq = s.client.isn
				t.event(c, decode.EventStream3WHSSynAckTFODataIgnored)
				s.flags |= ssnTFODataIgnored
			default:
				t.event(c, decode.EventStream3WHSSynAckWithWrongAck)
				return false
			}
			s.flags |= ssnTFO
		}
		t.synAckUpdate(s, c)
		return true

	case synack && c.toServer:
		if s.flags&ssn4WHS == 0 {
			t.event(c, decode.EventStream3WHSSynAckInWrongDirection)
			return false
		}
		if c.ack != s.server.isn+1 {
			t.event(c, decode.EventStream4WHSSynAckWithWrongAck)
			return false
		}
		if c.seq != s.client.isn {
			t.event(c, decode.EventStream4WHSSynAckWithWrongSyn)
			return false
		}
		t.setState(s, c, flow.TCPSynRecv)
		s.client.setBase(t, c.seq, s.depth)
		s.client.nextSeq = s.client.isn + 1
		s.server.window = uint32(c.win)
		if c.p.TCPHasTS && s.server.flags&stTimestamp != 0 {
			s.client.lastTS = c.p.TCPTSVal
			s.flags |= ssnTimestamp
			s.client.lastPktTS = c.tsSec
			if s.client.lastTS == 0 {
				s.client.flags |= stZeroTimestamp
			}
		} else {
			s.server.lastTS, s.client.lastTS = 0, 0
			s.server.flags &^= stZeroTimestamp
		}
		s.server.lastAck = c.ack
		s.client.lastAck = s.client.isn + 1
		if s.flags&ssnServerWscale != 0 && c.p.HasWScale {
			s.server.wscale = c.wscale()
		} else {
			s.server.wscale = 0
		}
		if s.flags&ssnClientSackOK != 0 && c.p.TCPSackOK {
			s.flags |= ssnSackOK
		}
		s.client.nextWin = s.client.lastAck + Seq(s.client.window)
		s.server.nextWin = s.server.lastAck + Seq(s.server.window)
		return true
	}

	if !synSentValidateTimestamp(s, c) {
		t.event(c, decode.EventStreamPktInvalidTimestamp)
		return false
	}
	switch {
	case c.has(thRST):
		if !t.validateRst(s, c) {
			return false
		}
		if c.toServer {
			if c.seq == s.client.isn && c.win == 0 && c.ack == s.client.isn+1 {
				s.server.flags |= stRstRecv
				t.closeWithReset(s, c)
			}
		} else {
			s.client.flags |= stRstRecv
			t.closeWithReset(s, c)
		}
	case c.has(thFIN):
	case c.has(thSYN):
		if !c.toServer {
			// A SYN from the server: the 4-way handshake (simultaneous open).
			s.flags |= ssn4WHS
			s.server.setBase(t, c.seq, s.depth)
			s.server.nextSeq = s.server.isn + 1
			if c.p.TCPHasTS {
				s.server.lastTS = c.p.TCPTSVal
				if s.server.lastTS == 0 {
					s.server.flags |= stZeroTimestamp
				}
				s.server.lastPktTS = c.tsSec
				s.server.flags |= stTimestamp
			}
			s.server.window = uint32(c.win)
			if c.p.HasWScale {
				s.flags |= ssnServerWscale
				s.server.wscale = c.wscale()
			} else {
				s.flags &^= ssnServerWscale
				s.server.wscale = 0
			}
			if c.p.TCPSackOK {
				s.flags |= ssnClientSackOK
			} else {
				s.flags &^= ssnClientSackOK
			}
		} else {
			// A resent SYN: the session takes the latest one.
			s.client.setBase(t, c.seq, s.depth)
			s.client.nextSeq = s.client.isn + 1
			s.client.flags &^= stTimestamp | stZeroTimestamp
			s.client.lastTS, s.client.lastPktTS = 0, 0
			if c.p.TCPHasTS {
				s.client.lastTS = c.p.TCPTSVal
				if s.client.lastTS == 0 {
					s.client.flags |= stZeroTimestamp
				}
				s.client.lastPktTS = c.tsSec
				s.client.flags |= stTimestamp
			}
			s.server.window = uint32(c.win)
			s.flags &^= ssnServerWscale | ssnClientSackOK
			s.server.wscale = 0
			if c.p.HasWScale {
				s.flags |= ssnServerWscale
				s.server.wscale = c.wscale()
			}
			if c.p.TCPSackOK {
				s.flags |= ssnClientSackOK
			}
		}
	case c.has(thACK):
		if !t.cfg.AsyncOneside {
			return true
		}
		if c.seq != s.client.nextSeq {
			t.event(c, decode.EventStream3WHSAsyncWrongSeq)
			return false
		}
		s.flags |= ssnAsync
		t.setState(s, c, flow.TCPEstablished)
		s.client.window = uint32(c.win)
		s.client.lastAck = c.seq
		s.client.nextWin = s.client.lastAck + Seq(s.client.window)
		s.server.setBase(t, c.ack-1, s.depth)
		s.server.nextSeq = s.server.isn + 1
		s.server.lastAck = s.server.nextSeq
		s.server.nextWin = s.server.lastAck
		if s.flags&ssnServerWscale != 0 {
			s.client.wscale = wscaleMax
		}
		if c.p.TCPHasTS && s.client.flags&stTimestamp != 0 {
			s.flags |= ssnTimestamp
			s.client.flags &^= stTimestamp
			s.client.lastPktTS = c.tsSec
		} else {
			s.client.lastTS = 0
			s.client.flags &^= stZeroTimestamp
		}
		if s.flags&ssnClientSackOK != 0 {
			s.flags |= ssnSackOK
		}
		t.handleSegment(s, &s.client, c)
	}
	return true
}

// synAckUpdate is StreamTcp3whsSynAckUpdate from the packet: the server's side of the
// session from its SYN/ACK.
func (t *Tracker) synAckUpdate(s *Session, c *pctx) {
	if s.state != flow.TCPSynRecv {
		t.setState(s, c, flow.TCPSynRecv)
	}
	c.f.TCP.SynAckSeen = true
	s.server.setBase(t, c.seq, s.depth)
	s.server.nextSeq = s.server.isn + 1
	s.client.window = uint32(c.win)
	if c.p.TCPHasTS && s.client.flags&stTimestamp != 0 {
		s.server.lastTS = c.p.TCPTSVal
		s.flags |= ssnTimestamp
		s.server.lastPktTS = c.tsSec
		if s.server.lastTS == 0 {
			s.server.flags |= stZeroTimestamp
		}
	} else {
		s.client.lastTS, s.server.lastTS = 0, 0
		s.client.flags &^= stZeroTimestamp
	}
	s.client.lastAck = c.ack
	s.server.lastAck = s.server.isn + 1
	if s.flags&ssnServerWscale != 0 && c.p.HasWScale {
		s.client.wscale = c.wscale()
	} else {
		s.client.wscale = 0
	}
	if s.flags&ssnClientSackOK != 0 && c.p.TCPSackOK {
		s.flags |= ssnSackOK
	} else {
		s.flags &^= ssnSackOK
	}
	s.server.nextWin = s.server.lastAck + Seq(s.server.window)
	s.client.nextWin = s.client.lastAck + Seq(s.client.window)
	s.flags &^= ssn4WHS
}

func (t *Tracker) stateSynRecv(s *Session, c *pctx) bool {
	switch {
	case c.has(thRST):
		if !t.validateRst(s, c) {
			return false
		}
		reset := true
		if s.flags&ssnEvasion != 0 {
			switch c.rcv.policy {
			case PolicyLinux, PolicyOldLinux, PolicySolaris:
				reset = false
			}
		}
		if reset {
			t.closeWithReset(s, c)
			if s.flags&ssnTimestamp != 0 {
				t.handleTimestamp(s, c)
			}
		}

	case c.has(thFIN):
		if s.flags&ssnTimestamp != 0 && !t.validateTimestamp(s, c) {
			return false
		}
		return t.handleFin(s, c)

	case c.flags&(thSYN|thACK) == thSYN|thACK:
		if c.toServer {
			t.event(c, decode.EventStream3WHSSynAckToServerOnSynRecv)
			return false
		}
		if c.ack != s.client.lastAck {
			t.event(c, decode.EventStream3WHSSynAckResendWithDiffAck)
			return false
		}
		// A SYN/ACK with another ISN would be queued (not kept here).

	case c.has(thSYN):
		if !c.toServer {
			t.event(c, decode.EventStream3WHSSynToClientOnSynRecv)
			return false
		}
		if c.seq != s.client.isn {
			t.event(c, decode.EventStream3WHSSynResendDiffSeqOnSynRecv)
			return false
		}

	case c.has(thACK):
		return t.synRecvAck(s, c)
	}
	return true
}

// synRecvAck handles an ACK in SYN_RECV: the ACK completing the handshake, and its
// variants (4WHS, async, missed packets).
func (t *Tracker) synRecvAck(s *Session, c *pctx) bool {
	if s.flags&ssnTimestamp != 0 && !t.validateTimestamp(s, c) {
		return false
	}
	if s.flags&ssn4WHS != 0 && !c.toServer {
		if c.seq != s.server.nextSeq {
			t.event(c, decode.EventStream4WHSWrongSeq)
			return false
		}
		if !t.validateAck(s, &s.client, c) {
			t.event(c, decode.EventStream4WHSInvalidAck)
			return false
		}
		if s.flags&ssnTimestamp != 0 {
			t.handleTimestamp(s, c)
		}
		updateLastAck(&s.client, c.ack)
		updateNextSeq(s, &s.server, s.server.nextSeq+Seq(c.plen))
		s.client.window = c.scaled(s.client.wscale)
		s.client.nextWin = s.client.lastAck + Seq(s.client.window)
		t.setState(s, c, flow.TCPEstablished)
		t.handleSegment(s, &s.server, c)
		return true
	}

	missedAck := false
	if !c.toServer && s.flags&(ssnMidstreamSynAck|ssnTFO) == 0 {
		if t.cfg.Inline {
			if c.plen > 0 && c.ack == s.client.lastAck && c.seq == s.server.nextSeq {
				t.event(c, decode.EventStream3WHSAckDataInject)
				return false
			}
			t.event(c, decode.EventStream3WHSAckInWrongDir)
			return false
		}
		missedAck = true
	}

	switch {
	case c.seq == s.client.nextSeq && c.ack == s.server.nextSeq:
		if s.flags&ssnTimestamp != 0 {
			t.handleTimestamp(s, c)
		}
		updateLastAck(&s.server, c.ack)
		updateNextSeq(s, &s.client, s.client.nextSeq+Seq(c.plen))
		s.server.window = c.scaled(s.server.wscale)
		s.server.nextWin = s.server.lastAck + Seq(s.server.window)
		if s.flags&ssnMidstream != 0 {
			s.client.window = c.scaled(s.client.wscale)
			s.client.nextWin = s.client.lastAck + Seq(s.client.window)
			s.server.nextWin = s.server.lastAck + Seq(s.server.window)
			if s.flags&ssnMidstreamSynAck == 0 {
				s.server.wscale, s.client.wscale = wscaleMax, wscaleMax
				s.flags |= ssnSackOK
			}
		}
		t.setState(s, c, flow.TCPEstablished)
		// Data on the ACK completing the handshake: this packet is established already.
		if c.plen > 0 {
			c.res.Established = true
		}
		t.handleSegment(s, &s.client, c)

	case t.cfg.AsyncOneside && c.seq == s.server.nextSeq:
		s.flags |= ssnAsync
		s.server.nextSeq += Seq(c.plen)
		s.server.lastAck = c.seq
		s.client.window = c.scaled(s.client.wscale)
		s.client.lastAck = c.ack
		if s.flags&ssnTimestamp != 0 {
			t.handleTimestamp(s, c)
		}
		if s.flags&ssnMidstream != 0 {
			s.server.window = uint32(c.win)
			s.server.nextWin = s.server.lastAck + Seq(s.server.window)
			s.server.wscale, s.client.wscale = wscaleMax, wscaleMax
			s.flags |= ssnSackOK
		}
		t.setState(s, c, flow.TCPEstablished)
		t.handleSegment(s, &s.server, c)

	case c.seq == s.client.nextSeq:
		s.flags |= ssnEvasion
		t.event(c, decode.EventStream3WHSRightSeqWrongAckEvasion)
		return false

	case !c.toServer && !t.cfg.Inline && c.seq.GT(s.client.nextSeq) && c.ack.GT(s.client.lastAck):
		// A to_client packet after the SYN/ACK: packets were lost.
		if s.flags&ssnTimestamp != 0 {
			t.handleTimestamp(s, c)
		}
		updateLastAck(&s.client, c.ack)
		s.server.nextSeq = c.seq + Seq(c.plen)
		s.client.window = c.scaled(s.client.wscale)
		s.client.nextWin = s.client.lastAck + Seq(s.client.window)
		s.client.window = uint32(c.win)
		s.server.nextWin = s.server.lastAck + Seq(s.server.window)
		t.setState(s, c, flow.TCPEstablished)
		t.handleSegment(s, &s.server, c)

	case c.seq.GT(s.client.nextSeq) && c.seq.LEQ(s.client.nextWin) && c.ack == s.server.nextSeq:
		// Right ACK, SEQ past next_seq but in the window: data was missed.
		if s.flags&ssnTimestamp != 0 {
			t.handleTimestamp(s, c)
		}
		s.client.nextSeq = c.seq + Seq(c.plen)
		updateLastAck(&s.server, c.ack)
		s.server.window = c.scaled(s.server.wscale)
		s.server.nextWin = s.server.lastAck + Seq(s.server.window)
		if s.flags&ssnMidstream != 0 {
			s.client.window = uint32(c.win)
			s.server.nextWin = s.server.lastAck + Seq(s.server.window)
			s.server.wscale, s.client.wscale = wscaleMax, wscaleMax
			s.flags |= ssnSackOK
		}
		t.setState(s, c, flow.TCPEstablished)
		t.handleSegment(s, &s.client, c)

	case (missedAck || s.flags&ssnTFO != 0) && c.ack == s.client.lastAck && c.seq == s.server.nextSeq:
		// to_client data after the handshake's final ACK was missed.
		updateNextSeq(s, &s.server, c.seq+Seq(c.plen))
		s.server.window = c.scaled(s.server.wscale)
		s.server.nextWin = s.server.lastAck + Seq(s.server.window)
		t.setState(s, c, flow.TCPEstablished)
		t.handleSegment(s, &s.server, c)

	default:
		t.event(c, decode.EventStream3WHSWrongSeqWrongAck)
		return false
	}
	return true
}
