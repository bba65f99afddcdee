package stream

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The handshake states: StreamTcpPacketStateSynSent and StreamTcpPacketStateSynRecv, with
// the queue of resent SYNs (max-syn-queued) a SYN/ACK may answer, and of SYN/ACKs with
// other ISNs (max-synack-queued) the final ACK may pick (TcpStateQueue).

// Queue entry flags (STREAMTCP_QUEUE_FLAG_*).
const (
	qTS   = 1
	qWS   = 2
	qSACK = 4
)

// stateQueue is a queued SYN or SYN/ACK (TcpStateQueue).
type stateQueue struct {
	flags, wscale uint8
	win           uint16
	seq, ack      uint32
	ts, pktTS     uint32
}

// queueCost is what a queue entry is charged against stream.memcap.
const queueCost = 32

func (t *Tracker) maxSynQueued() int {
	if t.cfg.MaxSynQueued > 0 {
		return t.cfg.MaxSynQueued
	}
	return 10
}

func (t *Tracker) maxSynAckQueued() int {
	if t.cfg.MaxSynAckQueued > 0 {
		return t.cfg.MaxSynAckQueued
	}
	return 5
}

// queueCharge charges one entry against stream.memcap (StreamTcpCheckMemcap).
func (t *Tracker) queueCharge() bool {
	if t.cfg.Memcap != 0 && t.ssnMem+queueCost > t.cfg.Memcap {
		return false
	}
	t.ssnMem += queueCost
	return true
}

// freeQueue is StreamTcp3wsFreeQueue.
func (t *Tracker) freeQueue(s *Session) {
	t.ssnMem -= uint64(len(s.queue)) * queueCost
	s.queue = s.queue[:0]
}

func synAckToQueue(c *pctx) stateQueue {
	q := stateQueue{win: c.win, seq: uint32(c.seq), ack: uint32(c.ack), pktTS: c.tsSec()}
	if c.p.TCPSackOK {
		q.flags |= qSACK
	}
	if c.p.HasWScale {
		q.flags |= qWS
		q.wscale = c.wscale()
	}
	if c.p.TCPHasTS {
		q.flags |= qTS
		q.ts = c.p.TCPTSVal
	}
	return q
}

// queueFromSsnSyn is TcpStateQueueInitFromSsnSyn.
func queueFromSsnSyn(s *Session) stateQueue {
	q := stateQueue{seq: uint32(s.client.isn), win: uint16(s.server.window), pktTS: s.client.lastPktTS}
	if s.flags&ssnClientSackOK != 0 {
		q.flags |= qSACK
	}
	if s.flags&ssnServerWscale != 0 {
		q.flags |= qWS
		q.wscale = s.server.wscale
	}
	if s.client.flags&stTimestamp != 0 {
		q.flags |= qTS
		q.ts = s.client.lastTS
	}
	return q
}

// queueFromPktSyn is TcpStateQueueInitFromPktSyn.
func queueFromPktSyn(c *pctx) stateQueue {
	q := stateQueue{seq: uint32(c.seq), win: c.win, pktTS: c.tsSec()}
	if c.p.TCPSackOK {
		q.flags |= qSACK
	}
	if c.p.HasWScale {
		q.flags |= qWS
		q.wscale = c.wscale()
	}
	if c.p.TCPHasTS {
		q.flags |= qTS
		q.ts = c.p.TCPTSVal
	}
	return q
}

// queueFromPktSynAck is TcpStateQueueInitFromPktSynAck: the SYN a SYN/ACK answers.
func queueFromPktSynAck(c *pctx) stateQueue {
	q := stateQueue{seq: uint32(c.ack - 1), win: c.win, pktTS: c.tsSec()}
	if c.p.TCPSackOK {
		q.flags |= qSACK
	}
	if c.p.HasWScale {
		q.flags |= qWS
		q.wscale = c.wscale()
	}
	if c.p.TCPHasTS {
		q.flags |= qTS
		q.ts = c.p.TCPTSEcr
	}
	return q
}

// findSyn is StreamTcp3whsFindSyn.
func findSyn(s *Session, k *stateQueue, ignoreTS bool) *stateQueue {
	for i := range s.queue {
		q := &s.queue[i]
		if k.flags&qTS != 0 {
			if q.flags&qTS != 0 && k.ts == q.ts && k.seq == q.seq {
				return q
			}
		} else if ignoreTS && k.seq == q.seq {
			return q
		}
	}
	return nil
}

// storeSyn is StreamTcp3whsStoreSyn: keep the session's current SYN in the queue.
func (t *Tracker) storeSyn(s *Session, c *pctx) {
	k := queueFromSsnSyn(s)
	if len(s.queue) > 0 && findSyn(s, &k, false) != nil {
		return
	}
	if len(s.queue) > 0 && len(s.queue) == t.maxSynQueued() {
		t.event(c, decode.EventStream3WHSSynFlood)
		copy(s.queue, s.queue[1:])
		s.queue[len(s.queue)-1] = k
		return
	}
	if !t.queueCharge() {
		return
	}
	s.queue = append(s.queueStore(), k)
}

// applySyn is StreamTcp3whsStoreSynApplyToSsn.
func (t *Tracker) applySyn(s *Session, q *stateQueue) {
	if q.flags&qTS != 0 {
		s.client.lastPktTS = q.pktTS
		s.client.lastTS = q.ts
		s.client.flags |= stTimestamp
	}
	if q.flags&qWS != 0 {
		s.flags |= ssnServerWscale
		s.server.wscale = q.wscale
	} else {
		// Suricata 8.0.6 writes `flags &= SERVER_WSCALE` here, which clears every other
		// session flag (and leaves SERVER_WSCALE as it was).
		s.flags &= ssnServerWscale
		s.server.wscale = 0
	}
	s.server.window = uint32(q.win)
	if q.flags&qSACK != 0 {
		s.flags |= ssnClientSackOK
	} else {
		s.flags &^= ssnClientSackOK
	}
	s.client.setBase(t, Seq(q.seq), s.depth)
	s.client.nextSeq = s.client.isn + 1
}

// queueSynAck is StreamTcp3whsQueueSynAck; false rejects the packet.
func (t *Tracker) queueSynAck(s *Session, c *pctx) bool {
	k := synAckToQueue(c)
	for i := range s.queue {
		if s.queue[i].flags == k.flags && s.queue[i].wscale == k.wscale && s.queue[i].win == k.win &&
			s.queue[i].seq == k.seq && s.queue[i].ack == k.ack && s.queue[i].ts == k.ts {
			return true
		}
	}
	if len(s.queue) == t.maxSynAckQueued() {
		t.event(c, decode.EventStream3WHSSynAckFlood)
		return false
	}
	if !t.queueCharge() {
		return false
	}
	s.queue = append(s.queueStore(), stateQueue{})
	copy(s.queue[1:], s.queue)
	s.queue[0] = k
	return true
}

// findSynAckByAck is StreamTcp3whsFindSynAckByAck.
func findSynAckByAck(s *Session, c *pctx) *stateQueue {
	ack, seq := uint32(c.seq), uint32(c.ack-1)
	for i := range s.queue {
		if s.queue[i].seq == seq && s.queue[i].ack == ack {
			return &s.queue[i]
		}
	}
	return nil
}

// checkSynAckQueue looks for a queued SYN the SYN/ACK answers and applies it.
func (t *Tracker) checkSynAckQueue(s *Session, c *pctx) bool {
	if len(s.queue) == 0 {
		return false
	}
	k := queueFromPktSynAck(c)
	q := findSyn(s, &k, true) // liberal timestamps
	if q == nil {
		return false
	}
	t.applySyn(s, q)
	return true
}

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
		if !(c.tfo() || s.flags&ssnTFO != 0) {
			if c.ack != s.client.isn+1 && !t.checkSynAckQueue(s, c) {
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
			case t.checkSynAckQueue(s, c):
			default:
				t.event(c, decode.EventStream3WHSSynAckWithWrongAck)
				return false
			}
			s.flags |= ssnTFO
		}
		t.freeQueue(s)
		q := synAckToQueue(c)
		t.synAckUpdate(s, c, &q)
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
			s.client.lastPktTS = c.tsSec()
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
				t.freeQueue(s)
			}
		} else {
			s.client.flags |= stRstRecv
			t.closeWithReset(s, c)
			t.freeQueue(s)
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
				s.server.lastPktTS = c.tsSec()
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
			// A resent SYN: the session's SYN is queued (when it differs) and the new one
			// taken, as the most likely to be answered.
			k := queueFromPktSyn(c)
			if k != queueFromSsnSyn(s) {
				t.storeSyn(s, c)
			}
			t.applySyn(s, &k)
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
		t.freeQueue(s)
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
			s.client.lastPktTS = c.tsSec()
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

// synAckUpdate is StreamTcp3whsSynAckUpdate: the server's side of the session from its
// SYN/ACK q (the packet's, or a queued one).
func (t *Tracker) synAckUpdate(s *Session, c *pctx, q *stateQueue) {
	if s.state != flow.TCPSynRecv {
		t.setState(s, c, flow.TCPSynRecv)
	}
	c.f.TCP.SynAckSeen = true
	s.server.setBase(t, Seq(q.seq), s.depth)
	s.server.nextSeq = s.server.isn + 1
	s.client.window = uint32(q.win)
	if q.flags&qTS != 0 && s.client.flags&stTimestamp != 0 {
		s.server.lastTS = q.ts
		s.flags |= ssnTimestamp
		s.server.lastPktTS = q.pktTS
		if s.server.lastTS == 0 {
			s.server.flags |= stZeroTimestamp
		}
	} else {
		s.client.lastTS, s.server.lastTS = 0, 0
		s.client.flags &^= stZeroTimestamp
	}
	s.client.lastAck = Seq(q.ack)
	s.server.lastAck = s.server.isn + 1
	if s.flags&ssnServerWscale != 0 && q.flags&qWS != 0 {
		s.client.wscale = q.wscale
	} else {
		s.client.wscale = 0
	}
	if s.flags&ssnClientSackOK != 0 && q.flags&qSACK != 0 {
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
		if c.seq != s.server.isn && !t.queueSynAck(s, c) {
			return false
		}

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
	if len(s.queue) > 0 {
		if q := findSynAckByAck(s, c); q != nil {
			qq := *q
			t.synAckUpdate(s, c, &qq)
		}
	}
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

// queueStore returns the session's queue, set on its inline buffer when it has no storage yet.
func (s *Session) queueStore() []stateQueue {
	if cap(s.queue) == 0 {
		s.queue = s.queueBuf[:0]
	}
	return s.queue
}
