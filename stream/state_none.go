package stream

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// stateNone is StreamTcpPacketStateNone: the first packet of a session. s is the flow's
// slot value, not yet active.
func (t *Tracker) stateNone(s *Session, c *pctx) bool {
	switch {
	case c.has(thRST):
		t.event(c, decode.EventStreamRstButNoSession)
		return false

	case c.has(thFIN):
		c.res.setException(t.cfg.MidstreamPolicy, CauseMidstream)
		if !t.cfg.Midstream || c.plen == 0 || !t.midstreamAllowed() {
			t.event(c, decode.EventStreamFinButNoSession)
			return false
		}
		if !s.active {
			if !t.newSession(s, c) {
				return false
			}
			t.Counters.Midstream++
		}
		t.setState(s, c, flow.TCPFinWait1)
		s.flags = ssnMidstream | ssnMidstreamEstablished
		if t.cfg.AsyncOneside {
			s.flags |= ssnAsync
		}
		t.midstreamSeqs(s, c, c.seq+Seq(c.plen)+1)
		t.handleSegment(s, &s.client, c)
		s.flags |= ssnSackOK

	case c.flags&(thSYN|thACK) == thSYN|thACK:
		c.res.setException(t.cfg.MidstreamPolicy, CauseMidstream)
		if !t.cfg.Midstream && !t.cfg.AsyncOneside || !t.midstreamAllowed() {
			return true
		}
		if !s.active {
			if !t.newSession(s, c) {
				return false
			}
			t.Counters.Midstream++
		}
		// The SYN/ACK's sender is the server: reverse the flow and the packet. Suricata's
		// session keeps the flags recorded before the swap (the SYN/ACK's as the client's).
		cf := c.f.TCP.ClientFlags
		sf := c.f.TCP.ServerFlags
		c.f.Reverse()
		c.f.TCP.ClientFlags, c.f.TCP.ServerFlags = cf, sf
		c.toServer = !c.toServer
		c.res.Dir = 1 - c.res.Dir
		c.setStreams(s)
		t.setState(s, c, flow.TCPSynRecv)
		s.flags |= ssnMidstream | ssnMidstreamSynAck
		if t.cfg.AsyncOneside {
			s.flags |= ssnAsync
		}
		s.server.setBase(t, c.seq, s.depth)
		s.server.nextSeq = s.server.isn + 1
		s.server.window = uint32(c.win)
		s.client.setBase(t, c.ack-1, s.depth)
		s.client.nextSeq = s.client.isn + 1
		s.client.lastAck = c.ack
		s.server.lastAck = c.seq
		s.server.nextWin = s.server.lastAck + Seq(s.server.window)
		if c.p.HasWScale {
			s.client.wscale = c.wscale()
			s.server.wscale = wscaleMax
		}
		if c.p.TCPHasTS {
			s.server.lastTS = c.p.TCPTSVal
			s.client.lastTS = c.p.TCPTSEcr
			s.flags |= ssnTimestamp
			s.server.lastPktTS = c.tsSec()
			if s.server.lastTS == 0 {
				s.server.flags |= stZeroTimestamp
			}
			if s.client.lastTS == 0 {
				s.client.flags |= stZeroTimestamp
			}
		} else {
			s.server.lastTS, s.client.lastTS = 0, 0
		}
		if c.p.TCPSackOK {
			s.flags |= ssnSackOK
		}

	case c.has(thSYN):
		if !s.active {
			if !t.newSession(s, c) {
				return false
			}
		}
		t.setState(s, c, flow.TCPSynSent)
		if t.cfg.AsyncOneside {
			s.flags |= ssnAsync
		}
		s.client.setBase(t, c.seq, s.depth)
		s.client.nextSeq = s.client.isn + 1
		if c.p.TCPHasTS {
			s.client.lastTS = c.p.TCPTSVal
			if s.client.lastTS == 0 {
				s.client.flags |= stZeroTimestamp
			}
			s.client.lastPktTS = c.tsSec()
			s.client.flags |= stTimestamp
		}
		s.server.window = uint32(c.win)
		if c.p.HasWScale {
			s.flags |= ssnServerWscale
			s.server.wscale = c.wscale()
		}
		if c.p.TCPSackOK {
			s.flags |= ssnClientSackOK
		}
		if c.tfo() {
			s.flags |= ssnTFO
			if c.plen > 0 {
				updateNextSeq(s, &s.client, s.client.nextSeq+Seq(c.plen))
				t.handleSegment(s, &s.client, c)
				c.res.StreamEst = true
			}
		}

	case c.has(thACK):
		c.res.setException(t.cfg.MidstreamPolicy, CauseMidstream)
		if !t.cfg.Midstream || !t.midstreamAllowed() {
			return true
		}
		if !s.active {
			if !t.newSession(s, c) {
				return false
			}
			t.Counters.Midstream++
		}
		t.setState(s, c, flow.TCPEstablished)
		s.flags = ssnMidstream | ssnMidstreamEstablished
		if t.cfg.AsyncOneside {
			s.flags |= ssnAsync
		}
		t.midstreamSeqs(s, c, c.seq+Seq(c.plen))
		t.handleSegment(s, &s.client, c)
		s.flags |= ssnSackOK
	}
	return true
}

// midstreamSeqs sets up both streams from a packet picked up mid-stream, sent by the client
// (as Suricata takes it, whatever the packet's direction): window scale assumed 14.
func (t *Tracker) midstreamSeqs(s *Session, c *pctx, next Seq) {
	s.client.wscale, s.server.wscale = wscaleMax, wscaleMax
	s.client.setBase(t, c.seq-1, s.depth)
	s.client.nextSeq = next
	s.client.window = c.scaled(s.client.wscale)
	s.client.lastAck = c.seq
	s.client.nextWin = s.client.lastAck + Seq(s.client.window)
	s.server.setBase(t, c.ack-1, s.depth)
	s.server.nextSeq = s.server.isn + 1
	s.server.lastAck = c.ack
	s.server.nextWin = s.server.lastAck
	if c.p.TCPHasTS {
		s.client.lastTS = c.p.TCPTSVal
		s.server.lastTS = c.p.TCPTSEcr
		s.flags |= ssnTimestamp
		s.client.lastPktTS = c.tsSec()
		if s.server.lastTS == 0 {
			s.server.flags |= stZeroTimestamp
		}
		if s.client.lastTS == 0 {
			s.client.flags |= stZeroTimestamp
		}
	} else {
		s.server.lastTS, s.client.lastTS = 0, 0
	}
}

// midstreamAllowed reports whether stream.midstream-policy lets a session be picked up
// midstream: only when it is ignore (not set) or pass-flow.
func (t *Tracker) midstreamAllowed() bool {
	return t.cfg.MidstreamPolicy == ExceptionIgnore || t.cfg.MidstreamPolicy == ExceptionPassFlow
}
