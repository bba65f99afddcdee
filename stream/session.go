package stream

import (
	"unsafe"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The session tracker after Suricata 8.0.6's src/stream-tcp.c: a Session per flow with a
// Stream per direction (TcpSession{client, server} of TcpStream, src/stream-tcp-private.h),
// the state handlers split by state (state_*.go), and the packet pre-checks and the data
// path (StreamTcpReassembleHandleSegment) here.

// ssnFlags are the per-session flags (STREAMTCP_FLAG_*).
type ssnFlags uint32

const (
	ssnMidstream            ssnFlags = 1 << iota // STREAMTCP_FLAG_MIDSTREAM
	ssnMidstreamEstablished                      // MIDSTREAM_ESTABLISHED
	ssnMidstreamSynAck                           // MIDSTREAM_SYNACK
	ssnTimestamp                                 // TIMESTAMP: both sides use timestamps
	ssnServerWscale                              // SERVER_WSCALE
	ssnClosedByRst                               // CLOSED_BY_RST
	ssnAsync                                     // ASYNC
	ssn4WHS                                      // 4WHS
	ssnEvasion                                   // DETECTION_EVASION_ATTEMPT
	ssnClientSackOK                              // CLIENT_SACKOK
	ssnSackOK                                    // SACKOK
	ssnLossy                                     // LOSSY_BE_LIBERAL
	ssn3WHSConfirmed                             // 3WHS_CONFIRMED
	ssnAppDisabled                               // APP_LAYER_DISABLED
	ssnTFO                                       // TCP_FAST_OPEN
	ssnTFODataIgnored                            // TFO_DATA_IGNORED
	ssnZWPToServer                               // ZWP_TS
	ssnZWPToClient                               // ZWP_TC
)

// streamFlags are the per-direction flags (STREAMTCP_STREAM_FLAG_*).
type streamFlags uint16

const (
	stGap            streamFlags = 1 << iota // HAS_GAP
	stNoReassembly                           // NOREASSEMBLY
	stKeepAlive                              // KEEPALIVE
	stDepthReached                           // DEPTH_REACHED
	stTriggerRaw                             // TRIGGER_RAW
	stTimestamp                              // TIMESTAMP (this side sent the option on its SYN)
	stZeroTimestamp                          // ZERO_TIMESTAMP
	stNewRawDisabled                         // NEW_RAW_DISABLED
	stDisableRaw                             // DISABLE_RAW
	stRstRecv                                // RST_RECV
)

// wscaleMax is TCP_WSCALE_MAX.
const wscaleMax = 14

// paws24Days is PAWS_24DAYS, in seconds.
const paws24Days = 2073600

// Stream is one direction of a session: the sender's sequence space as the receiver sees it
// (TcpStream).
type Stream struct {
	flags     streamFlags
	wscale    uint8
	policy    Policy
	policySet bool
	tcpFlags  uint8

	isn, nextSeq, lastAck, nextWin Seq
	window                         uint32

	lastTS, lastPktTS uint32

	// urgOffset is the count of out-of-band bytes taken out of the sequence space
	// (urg_offset_ts / urg_offset_tc).
	urgOffset uint16

	// dataEnd is the offset past the furthest byte stored (segs_right_edge); hasData
	// whether anything was.
	dataEnd uint64
	hasData bool

	appProg, rawProg uint64 // app-layer and raw progress, as stream offsets
	minInspectDepth  uint64
	// pendingGap is the gap AppData reported at appProg, which ConsumeApp skips.
	pendingGap uint64
	// frameEdge is one past the stream offset of the oldest byte an app-layer frame still
	// needs (0: none); pruning keeps it (SetFrameEdge).
	frameEdge uint64

	// ra, the segment store, comes last: the fields above are read on every packet and
	// share cache lines, ra's only when data is stored or read.
	ra Reassembly
}

// baseSeq is the sequence number of the first byte kept (base_seq).
func (s *Stream) baseSeq() Seq { return s.ra.SeqAt(s.ra.Base()) }

// setBase sets ISN and base (STREAMTCP_SET_RA_BASE_SEQ) on a stream that holds no data.
func (s *Stream) setBase(t *Tracker, isn Seq, depth uint64) {
	s.isn = isn
	if s.hasData || s.ra.Segments() > 0 {
		s.ra.Free(t.pool)
	}
	s.ra.Init(isn+1, depth)
	s.dataEnd, s.hasData, s.appProg, s.rawProg, s.pendingGap = 0, false, 0, 0, 0
}

// lastAckAbs is GetAbsLastAck: the stream offset of last_ack, not before the base.
func (s *Stream) lastAckAbs() uint64 {
	base := s.ra.Base()
	if d := s.lastAck.Diff(s.baseSeq()); d > 0 {
		return base + uint64(d)
	}
	return base
}

// Session is one TCP session (TcpSession).
type Session struct {
	active bool
	state  flow.TCPSessionState
	pstate flow.TCPSessionState
	flags  ssnFlags
	depth  uint64

	client, server Stream
	// queue holds resent SYNs (SYN_SENT) or SYN/ACKs with other ISNs (SYN_RECV); its first
	// entries live in queueBuf, so a session that queues one or two needs no allocation.
	queue    []stateQueue
	queueBuf [2]stateQueue
}

// sessionCost is what a session is charged against stream.memcap.
const sessionCost = uint64(unsafe.Sizeof(Session{}))

// pctx is one packet as the state handlers see it.
type pctx struct {
	f        *flow.Flow
	p        *decode.Packet
	res      *PacketResult
	seq, ack Seq
	win      uint16
	flags    uint8
	plen     uint32
	toServer bool
	// snd and rcv are the sender's and the receiver's streams.
	snd, rcv *Stream
	// added: the payload entered the stream (PKT_STREAM_ADD).
	added bool
}

func (c *pctx) has(fl uint8) bool { return c.flags&fl != 0 }

// tsSec is the packet's time in seconds, for the timestamp checks (computed when asked: most
// packets never need it).
func (c *pctx) tsSec() uint32 { return uint32(c.p.Timestamp.Unix()) }

const (
	thFIN = decode.TCPFlagFIN
	thSYN = decode.TCPFlagSYN
	thRST = decode.TCPFlagRST
	thACK = decode.TCPFlagACK
	thURG = decode.TCPFlagURG
)

// The options the stream engine tests that the state of the packet does not otherwise carry,
// as the decoder found them: SACK blocks, TCP-MD5 or TCP-AO, TCP Fast Open. Read from the
// packet when a check needs them.
func (c *pctx) sack() bool { return c.p.TCPHasSACK }
func (c *pctx) md5() bool  { return c.p.TCPHasMD5 }
func (c *pctx) tfo() bool  { return c.p.TCPHasTFO }

func (t *Tracker) session(f *flow.Flow) *Session {
	s := t.sessions.Peek(f)
	if s == nil || !s.active {
		return nil
	}
	return s
}

// streamOf returns the stream of direction dir (to_server: the client's).
func (s *Session) streamOf(dir flow.Direction) *Stream {
	if dir == flow.ToServer {
		return &s.client
	}
	return &s.server
}

// packet is StreamTcp + StreamTcpPacket.
func (t *Tracker) packet(f *flow.Flow, p *decode.Packet, dir flow.Direction) {
	t.res = PacketResult{Dir: dir}
	res := &t.res
	fl := p.TCPFlags
	switch {
	case fl&(thSYN|thACK) == thSYN|thACK:
		t.Counters.SynAck++
	case fl&thSYN != 0:
		t.Counters.Syn++
	}
	if fl&thRST != 0 {
		t.Counters.Rst++
	}
	s := t.session(f)
	// FLOW_PKT_ESTABLISHED, as FlowHandlePacketUpdate decides it before the stream engine.
	est := f.State == flow.StateEstablished || s != nil && s.state >= flow.TCPEstablished
	if p.L4ChecksumBad && !p.ChecksumIgnored {
		// StreamTcp returns before StreamTcpPacket: no PKT_STREAM_EST, so detection sees no
		// raw stream data and no transactions on this packet.
		t.Counters.InvalidChecksum++
		res.Established = est
		f.SetPacketEstablished(est)
		return
	}
	res.Established = est
	t.cur = p

	// cv is on the stack: the handlers take it by pointer and keep it no longer than the call.
	// Its fields are set one by one: a composite literal is built in a temporary and copied
	// with wide loads of narrow stores just made, which stall store-to-load forwarding.
	var cv pctx
	c := &cv
	c.f, c.p, c.res = f, p, res
	c.seq, c.ack, c.win = Seq(p.TCPSeq), Seq(p.TCPAck), p.TCPWindow
	c.flags, c.plen, c.toServer = fl, uint32(len(p.Payload)), dir == flow.ToServer

	if s != nil {
		t.trackFlags(f, s, c)
		if s.flags&ssnAsync != 0 && s.client.tcpFlags != 0 && s.server.tcpFlags != 0 {
			s.flags &^= ssnAsync
		}
	}
	if fl&thACK == 0 && p.TCPAck != 0 {
		t.event(c, decode.EventStreamPktBrokenAck)
	}
	if fl&thURG != 0 && t.cfg.Inline && t.cfg.Urgent == UrgentDrop {
		// StreamTcpPacket returns before its session block: no PKT_STREAM_EST.
		res.Drop = true
		f.SetPacketEstablished(res.Established)
		c.f, c.p, c.res = nil, nil, nil
		return
	}

	ok := true
	if s == nil || s.state == flow.TCPNone {
		if s == nil {
			s = t.sessions.At(f)
		}
		ok = t.stateNone(s, c)
		if !s.active {
			t.sessions.Drop(f) // no session came of it: the record goes back
		}
	} else {
		// prune returns at once for a stream that is no longer reassembled: test that here,
		// without the call.
		if s.client.flags&stNoReassembly == 0 {
			t.prune(s, &s.client)
		}
		if s.server.flags&stNoReassembly == 0 {
			t.prune(s, &s.server)
		}
		c.setStreams(s)
		ok = t.preChecks(s, c)
	}
	// PKT_STREAM_EST is set after the state handling only: a stream error (a handler's -1,
	// "goto error" in StreamTcpPacket) skips it, so such a packet inspects no raw stream.
	if ok && s.active && s.state >= flow.TCPEstablished {
		res.StreamEst = true
	}
	res.Invalid = !ok
	res.Added = c.added
	f.SetPacketEstablished(res.Established)
	c.f, c.p, c.res = nil, nil, nil
	return
}

// trackFlags keeps the flags seen (ssn->tcp_packet_flags and per stream) and f.TCP's copy.
func (t *Tracker) trackFlags(f *flow.Flow, s *Session, c *pctx) {
	f.TCP.Flags |= c.flags
	if c.toServer {
		s.client.tcpFlags |= c.flags
		f.TCP.ClientFlags |= c.flags
	} else {
		s.server.tcpFlags |= c.flags
		f.TCP.ServerFlags |= c.flags
	}
}

func (c *pctx) setStreams(s *Session) {
	if c.toServer {
		c.snd, c.rcv = &s.client, &s.server
	} else {
		c.snd, c.rcv = &s.server, &s.client
	}
}

// preChecks runs StreamTcpPacket's checks for a session in a state past NONE and then the
// state handler. It returns false on a stream error.
func (t *Tracker) preChecks(s *Session, c *pctx) bool {
	ok := true
	switch {
	case t.isKeepAlive(s, c):
	case t.isKeepAliveAck(s, c):
		c.snd.flags &^= stKeepAlive
	default:
		c.snd.flags &^= stKeepAlive
		zwpAck := t.isZWPAck(s, c)
		if c.toServer {
			s.flags &^= ssnZWPToClient
		} else {
			s.flags &^= ssnZWPToServer
		}
		if zwpAck {
			break
		}
		// The calls that do not inline are guarded here by their first test: a window that
		// did not shrink is no bad window update, a packet without payload no spurious
		// retransmission (both free of effects up to that test).
		if !t.isFinShutdownAck(s, c) && !t.isWindowUpdate(s, c) {
			if c.scaled(c.rcv.wscale) < c.rcv.window && t.isBadWindowUpdate(s, c) || t.isOutdatedAck(s, c) {
				break
			}
		}
		if c.plen == 0 {
			// no spurious retransmission
		} else if r := t.isSpuriousRetransmission(c); r > 0 {
			t.event(c, decode.EventStreamPktSpuriousRetransmission)
			if r == 2 {
				break
			}
		}
		if s.state == flow.TCPEstablished { // most packets: the call without dispatch's switch
			ok = t.stateEstablished(s, c)
		} else {
			ok = t.dispatch(s, c, s.state)
		}
	}
	t.checkPostRst(s, c)
	return ok
}

// dispatch is StreamTcpStateDispatch.
func (t *Tracker) dispatch(s *Session, c *pctx, st flow.TCPSessionState) bool {
	switch st {
	case flow.TCPSynSent:
		return t.stateSynSent(s, c)
	case flow.TCPSynRecv:
		return t.stateSynRecv(s, c)
	case flow.TCPEstablished:
		return t.stateEstablished(s, c)
	case flow.TCPFinWait1:
		return t.stateFinWait1(s, c)
	case flow.TCPFinWait2:
		return t.stateFinWait2(s, c)
	case flow.TCPClosing:
		return t.stateClosing(s, c)
	case flow.TCPCloseWait:
		return t.stateCloseWait(s, c)
	case flow.TCPLastAck:
		return t.stateLastAck(s, c)
	case flow.TCPTimeWait:
		return t.stateTimeWait(s, c)
	case flow.TCPClosed:
		return t.stateClosed(s, c)
	}
	return true
}

// newSession is StreamTcpNewSession with the stream.memcap check.
func (t *Tracker) newSession(s *Session, c *pctx) bool {
	if t.cfg.Memcap != 0 && t.ssnMem+sessionCost > t.cfg.Memcap {
		t.Counters.SsnMemcapDrop++
		c.res.setException(t.cfg.MemcapPolicy, CauseMemcap)
		return false
	}
	t.ssnMem += sessionCost
	*s = Session{active: true, depth: t.cfg.Depth, queue: s.queue[:0]}
	init := streamFlags(0)
	if !t.cfg.Raw {
		init = stDisableRaw
		if !t.cfg.AppLayer {
			// Nothing reads the stream: no app layer, no raw inspection (--disable-detection,
			// stream.reassembly.raw: no, no rule inspecting the stream). Not reassembled at
			// all, as StreamTcpPruneSession makes such a stream (APP_LAYER_DISABLED and
			// DISABLE_RAW), from the first packet rather than the first prune.
			s.flags |= ssnAppDisabled
			init |= stNoReassembly
		}
	}
	s.client.flags, s.server.flags = init, init
	s.client.ra.Init(1, s.depth)
	s.server.ra.Init(1, s.depth)
	if t.cfg.MaxRegions != 0 {
		s.client.ra.SetMaxRegions(t.cfg.MaxRegions)
		s.server.ra.SetMaxRegions(t.cfg.MaxRegions)
	}
	t.Counters.Sessions++
	t.Counters.ActiveSessions++
	c.f.TCP.Flags = c.flags
	if c.toServer {
		s.client.tcpFlags = c.flags
		c.f.TCP.ClientFlags, c.f.TCP.ServerFlags = c.flags, 0
	} else {
		s.server.tcpFlags = c.flags
		c.f.TCP.ClientFlags, c.f.TCP.ServerFlags = 0, c.flags
	}
	c.setStreams(s)
	return true
}

// setState is StreamTcpPacketSetState.
func (t *Tracker) setState(s *Session, c *pctx, st flow.TCPSessionState) {
	if st == s.state {
		return
	}
	s.pstate = s.state
	s.state = st
	c.f.SetTCPState(st)
}

func (t *Tracker) closeWithReset(s *Session, c *pctx) {
	s.flags |= ssnClosedByRst
	t.setState(s, c, flow.TCPClosed)
}

// policyOf is the stream's OS policy, set from the packet's destination the first time it is
// needed (StreamTcpSetOSPolicy).
func (t *Tracker) policyOf(st *Stream, c *pctx) Policy {
	if st.policySet { // small enough to inline: the timestamp checks ask on every packet
		return st.policy
	}
	return t.setPolicy(st, c)
}

func (t *Tracker) setPolicy(st *Stream, c *pctx) Policy {
	st.policySet = true
	st.policy = PolicyBSD
	if t.cfg.PolicyFor != nil {
		st.policy = t.cfg.PolicyFor(c.p.DstIP)
	}
	return st.policy
}

// scaled is the packet's window shifted by wscale.
func (c *pctx) scaled(wscale uint8) uint32 { return uint32(c.win) << wscale }

func clampWscale(w uint8) uint8 {
	if w > wscaleMax {
		return wscaleMax
	}
	return w
}

func (c *pctx) wscale() uint8 {
	if !c.p.HasWScale {
		return 0
	}
	return clampWscale(c.p.TCPWScale)
}

// handleSegment is StreamTcpReassembleHandleSegment for the sender's stream st: it says
// which directions the app layer is to be updated for, and stores the payload.
func (t *Tracker) handleSegment(s *Session, st *Stream, c *pctx) {
	const (
		opposing = iota
		packet
		both
	)
	dir := opposing
	switch {
	case t.cfg.Inline:
		dir = packet
	case c.has(thRST):
		dir = packet
	case c.has(thFIN) && s.state > flow.TCPTimeWait:
		if c.has(thACK) {
			dir = both
		} else {
			dir = packet
		}
	case s.state == flow.TCPClosed:
		dir = both
	case s.flags&ssnAsync != 0:
		dir = packet
	}
	own := flow.ToServer
	if st == &s.server {
		own = flow.ToClient
	}
	if dir == opposing || dir == both {
		c.res.AppUpdate[1-own] = true
	}
	if c.plen > 0 && st.flags&stNoReassembly == 0 && !c.has(thRST) {
		if t.handleData(s, st, c) {
			c.added = true
		}
	}
	if st.flags&(stDepthReached|stNoReassembly) == stDepthReached {
		dir = packet
	}
	if dir == packet || dir == both {
		c.res.AppUpdate[own] = true
	}
}

// handleData is StreamTcpReassembleHandleSegmentHandleData: it stores the payload and maps
// what the store did to events and counters. It returns false on a memcap failure.
func (t *Tracker) handleData(s *Session, st *Stream, c *pctx) bool {
	pol := t.policyOf(st, c)
	if s.flags&ssnAppDisabled != 0 && st.flags&stNewRawDisabled != 0 {
		return true
	}
	seq := c.seq - Seq(st.urgOffset)
	data := c.p.Payload
	if c.has(thURG) {
		// Urgent data (StreamTcpReassembleHandleSegmentHandleData): with oob or gap, the
		// last payload byte is taken out; oob also shifts later sequence numbers.
		urg := c.p.TCPUrgent
		pol := t.cfg.Urgent
		if urg > 0 && uint32(urg) <= c.plen && (pol == UrgentOOB || pol == UrgentGap) {
			if st.urgOffset < 0xffff {
				if pol == UrgentOOB {
					st.urgOffset++
				}
				if st.urgOffset == 0xffff {
					t.event(c, decode.EventStreamReassemblyUrgentOOBLimitReached)
				}
			} else if t.cfg.UrgentOOBLimit == UrgentDrop {
				c.res.Drop = true
				return true
			}
			cut := true
			if pol == UrgentOOB {
				t.Counters.UrgentOOB++
				if st.urgOffset == 0xffff && t.cfg.UrgentOOBLimit == UrgentInline {
					cut = false
				}
			}
			if cut {
				if urg == 1 && c.plen == 1 {
					return true
				}
				data = data[:len(data)-1]
			}
		}
	}
	if c.tfo() && c.has(thSYN) {
		seq++
	}
	c.res.Offset = st.ra.Offset(seq)
	r := st.ra.Insert(t.pool, seq, data, InsertOptions{Policy: pol,
		CheckOverlapDiff: t.cfg.CheckOverlapDiff || t.cfg.Inline, Inline: t.cfg.Inline})
	if st.ra.DepthReached() {
		st.flags |= stDepthReached
		t.event(c, decode.EventStreamReassemblyDepthReached)
		t.Counters.StreamDepthReached++
	}
	if r.NoSegment {
		t.event(c, decode.EventStreamReassemblyNoSegment)
		t.Counters.SegmentMemcapDrop++
		s.flags |= ssnLossy
		c.res.setException(t.cfg.ReassemblyMemcapPolicy, CauseReassemblyMemcap)
		return false
	}
	if r.Overlap {
		t.Counters.Overlap++
	}
	if r.Rewritten {
		c.res.Modified = true
	}
	if r.OverlapDiff {
		t.event(c, decode.EventStreamReassemblyOverlapDifferentData)
		t.Counters.OverlapDiffData++
	}
	if r.InsertLimit {
		// SC_ELIMIT (max-regions): the event only for an overlapping segment (DoHandleData).
		if r.Overlap {
			t.event(c, decode.EventStreamReassemblyInsertLimit)
			t.Counters.InsertDataOverlapFail++
		} else {
			t.Counters.InsertDataNormalFail++
		}
		return false
	}
	if r.Memcap {
		// Suricata sets the event only when the failing insert overlapped (DoHandleData).
		if r.Overlap {
			t.event(c, decode.EventStreamReassemblyInsertMemcap)
			t.Counters.InsertDataOverlapFail++
		} else {
			t.Counters.InsertDataNormalFail++
		}
		t.Counters.SegmentMemcapDrop++
		s.flags |= ssnLossy
		c.res.setException(t.cfg.ReassemblyMemcapPolicy, CauseReassemblyMemcap)
		return false
	}
	if r.Stored || r.Overlap {
		st.hasData = true
		if e := st.ra.End(); e > st.dataEnd {
			st.dataEnd = e
		}
	}
	return true
}

// prune is StreamTcpPruneSession for one stream: release what app and raw progress (and
// last_ack) have passed; after the depth, stop reassembly.
func (t *Tracker) prune(s *Session, st *Stream) {
	if st.flags&stNoReassembly != 0 {
		return
	}
	if st.flags&stDepthReached != 0 || (s.flags&ssnAppDisabled != 0 && st.flags&stDisableRaw != 0) {
		st.flags |= stNoReassembly
		st.ra.Free(t.pool)
		return
	}
	left := t.leftEdge(s, st)
	if left > st.ra.Base() {
		st.ra.Release(t.pool, left)
	}
}

// leftEdge is GetLeftEdge (stream-tcp-list.c).
func (t *Tracker) leftEdge(s *Session, st *Stream) uint64 {
	useApp := s.flags&ssnAppDisabled == 0
	useRaw := st.flags&stDisableRaw == 0
	var left uint64
	switch {
	case useRaw:
		raw := st.rawProg
		if t.cfg.Inline {
			chunk := uint64(t.chunkSize(s, st))
			if raw < chunk {
				raw = 0
			} else {
				raw -= chunk
			}
		}
		if useApp && st.minInspectDepth != 0 && s.state < flow.TCPClosed {
			if raw < st.minInspectDepth {
				raw = 0
			} else {
				raw -= st.minInspectDepth
			}
		}
		left = raw
		if useApp {
			left = min(st.appProg, raw)
		}
	case useApp:
		left = st.appProg
	default:
		left = st.ra.Contiguous(st.ra.Base())
	}
	return min(frameLeftEdge(st, left), st.lastAckAbs())
}

func (t *Tracker) chunkSize(s *Session, st *Stream) uint32 {
	if st == &s.client {
		return t.cfg.ToServerChunk
	}
	return t.cfg.ToClientChunk
}

// release frees the session's storage and its memcap charge.
func (t *Tracker) release(s *Session) {
	if !s.active {
		return
	}
	s.client.ra.Free(t.pool)
	s.server.ra.Free(t.pool)
	t.freeQueue(s)
	t.ssnMem -= sessionCost
	t.Counters.ActiveSessions--
	*s = Session{}
}
