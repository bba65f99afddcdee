package stream

import (
	"net/netip"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The stream engine's API: the pipeline, detect and the app layer program against it. The
// session tracker is in session.go and state_*.go, raw inspection in raw.go, the app-layer
// byte stream in app.go.

// Config is the stream engine's configuration (suricata.yaml stream.*, host-os-policy).
type Config struct {
	Midstream bool // stream.midstream
	// MidstreamPolicy is stream.midstream-policy, resolved (MidstreamPolicy): applied to the
	// first packet of a flow without a session that is not a SYN; only ignore and pass-flow
	// let midstream pickup happen.
	MidstreamPolicy ExceptionPolicy
	// MemcapPolicy and ReassemblyMemcapPolicy are stream.memcap-policy and
	// stream.reassembly.memcap-policy, resolved (MemcapPolicy): applied to a packet that
	// finds no room for its session or its segment.
	MemcapPolicy, ReassemblyMemcapPolicy ExceptionPolicy
	AsyncOneside                         bool // stream.async-oneside
	Inline                               bool // stream.inline, resolved (auto: IPS mode)
	DropInvalid                          bool // stream.drop-invalid (inline only)
	// Memcap is stream.memcap: the bytes sessions may take.
	Memcap uint64
	// ReassemblyMemcap is stream.reassembly.memcap; SegmentPrealloc its segment-prealloc.
	ReassemblyMemcap uint64
	SegmentPrealloc  int
	// Depth is stream.reassembly.depth (0: unlimited).
	Depth uint64
	// ToServerChunk and ToClientChunk are the raw inspection chunk sizes, already
	// randomized (toserver-chunk-size / toclient-chunk-size).
	ToServerChunk, ToClientChunk uint32
	// Raw is stream.reassembly.raw: keep raw stream data for inspection.
	Raw bool
	// AppLayer says an app layer reads the byte stream (AppData, ConsumeApp). Without one,
	// when raw inspection keeps the stream, the tracker takes the in-order data and the gaps
	// itself on the packets Suricata hands them to its app layer (PacketResult.AppUpdate), as
	// Suricata's app layer does while it looks for a flow's protocol, so gaps are declared;
	// with raw inspection off too, nothing reads the stream and it is not reassembled.
	AppLayer bool
	// CheckOverlapDiff is stream.reassembly.check-overlap-different-data.
	CheckOverlapDiff bool
	// PolicyFor gives the OS policy of a destination address (host-os-policy); nil: bsd.
	PolicyFor func(dst netip.Addr) Policy
	// MaxRegions is stream.reassembly.max-regions, as Reassembly.SetMaxRegions takes it
	// (0: Suricata's default 8; negative: no limit, Suricata's 0).
	MaxRegions int
	// MaxSynQueued and MaxSynAckQueued are max-syn-queued and max-synack-queued.
	MaxSynQueued, MaxSynAckQueued int
	// Urgent is stream.reassembly.urgent.policy (zero value: inline, Suricata's built-in
	// default; the shipped suricata.yaml says oob) and UrgentOOBLimit its oob-limit-policy
	// (zero value: inline; shipped: drop).
	Urgent, UrgentOOBLimit UrgentPolicy
}

// UrgentPolicy is how URG data is handled (stream.reassembly.urgent).
type UrgentPolicy uint8

// Urgent policies.
const (
	UrgentInline UrgentPolicy = iota // the urgent byte stays in the stream
	UrgentOOB                        // the byte is out of band: removed, later bytes shifted
	UrgentGap                        // the byte is removed, leaving a one-byte hole
	UrgentDrop                       // inline mode: packets with URG are dropped
)

// ParseUrgentPolicy reads a policy name (inline, oob, gap, drop).
func ParseUrgentPolicy(name string) (UrgentPolicy, bool) {
	switch name {
	case "inline":
		return UrgentInline, true
	case "oob":
		return UrgentOOB, true
	case "gap":
		return UrgentGap, true
	case "drop":
		return UrgentDrop, true
	}
	return UrgentInline, false
}

// Counters are the stream engine's stats counters, named as Suricata names them.
type Counters struct {
	Sessions           uint64 // tcp.sessions
	SsnMemcapDrop      uint64 // tcp.ssn_memcap_drop
	SegmentMemcapDrop  uint64 // tcp.segment_memcap_drop
	ReassemblyGap      uint64 // tcp.reassembly_gap
	Overlap            uint64 // tcp.overlap
	OverlapDiffData    uint64 // tcp.overlap_diff_data
	Midstream          uint64 // tcp.midstream_pickups
	PseudoPackets      uint64 // tcp.pseudo
	InvalidChecksum    uint64 // tcp.invalid_checksum
	Syn, SynAck, Rst   uint64 // tcp.syn, tcp.synack, tcp.rst
	StreamDepthReached uint64 // tcp.stream_depth_reached
	// ActiveSessions is tcp.active_sessions: sessions not yet released.
	ActiveSessions uint64
	// AckUnseenData is tcp.ack_unseen_data: ACKs of data never seen.
	AckUnseenData uint64
	// InsertDataNormalFail and InsertDataOverlapFail are tcp.insert_data_normal_fail and
	// tcp.insert_data_overlap_fail: inserts that failed for memory.
	InsertDataNormalFail, InsertDataOverlapFail uint64
	// UrgentOOB is tcp.urgent_oob_data: urgent bytes taken out of band.
	UrgentOOB uint64
	// Events counts each stream event (decode.EventStream3WHSAckInWrongDir onward), the
	// stream.<event> counters Suricata keeps when stats.stream-events is on (EachEvent).
	Events [numStreamEvents]uint64
}

// Add adds o into c.
func (c *Counters) Add(o *Counters) {
	c.Sessions += o.Sessions
	c.SsnMemcapDrop += o.SsnMemcapDrop
	c.SegmentMemcapDrop += o.SegmentMemcapDrop
	c.ReassemblyGap += o.ReassemblyGap
	c.Overlap += o.Overlap
	c.OverlapDiffData += o.OverlapDiffData
	c.Midstream += o.Midstream
	c.PseudoPackets += o.PseudoPackets
	c.InvalidChecksum += o.InvalidChecksum
	c.Syn += o.Syn
	c.SynAck += o.SynAck
	c.Rst += o.Rst
	c.StreamDepthReached += o.StreamDepthReached
	c.ActiveSessions += o.ActiveSessions
	c.AckUnseenData += o.AckUnseenData
	c.InsertDataNormalFail += o.InsertDataNormalFail
	c.InsertDataOverlapFail += o.InsertDataOverlapFail
	c.UrgentOOB += o.UrgentOOB
	for i := range c.Events {
		c.Events[i] += o.Events[i]
	}
}

// Each calls fn with every tcp.* counter under its Suricata stats name.
func (c *Counters) Each(fn func(name string, v uint64)) {
	fn("tcp.active_sessions", c.ActiveSessions)
	fn("tcp.sessions", c.Sessions)
	fn("tcp.ssn_memcap_drop", c.SsnMemcapDrop)
	fn("tcp.pseudo", c.PseudoPackets)
	fn("tcp.invalid_checksum", c.InvalidChecksum)
	fn("tcp.midstream_pickups", c.Midstream)
	fn("tcp.pkt_on_wrong_thread", 0)
	fn("tcp.ack_unseen_data", c.AckUnseenData)
	fn("tcp.segment_memcap_drop", c.SegmentMemcapDrop)
	fn("tcp.stream_depth_reached", c.StreamDepthReached)
	fn("tcp.reassembly_gap", c.ReassemblyGap)
	fn("tcp.overlap", c.Overlap)
	fn("tcp.overlap_diff_data", c.OverlapDiffData)
	fn("tcp.insert_data_normal_fail", c.InsertDataNormalFail)
	fn("tcp.insert_data_overlap_fail", c.InsertDataOverlapFail)
	fn("tcp.urgent_oob_data", c.UrgentOOB)
	fn("tcp.syn", c.Syn)
	fn("tcp.synack", c.SynAck)
	fn("tcp.rst", c.Rst)
}

// EachEvent calls fn with the count of every stream event under its name
// (stream.<event>, Suricata's counters with stats.stream-events).
func (c *Counters) EachEvent(fn func(name string, v uint64)) {
	for i, v := range c.Events {
		fn((decode.EventStream3WHSAckInWrongDir + decode.Event(i)).String(), v)
	}
}

// Tracker is one worker's stream engine: its sessions (by flow slot), its segment pool and
// counters. Not safe for concurrent use.
type Tracker struct {
	Counters Counters

	cfg      Config
	pool     *Pool
	sessions sessionTable
	ssnMem   uint64

	res PacketResult   // its result
	cur *decode.Packet // the packet last given to Packet (events found by AppData)
	// last is the latest packet's payload placement, for inline raw inspection.
	last struct {
		slot    *Stream
		added   bool
		offset  uint64
		payload []byte
	}
	appScratch []byte
	rawScratch []byte
}

// NewTracker makes a worker's stream engine.
func NewTracker(cfg Config) *Tracker {
	return &Tracker{cfg: cfg, pool: NewPool(cfg.ReassemblyMemcap, cfg.SegmentPrealloc)}
}

// Pool returns the tracker's segment pool (for its accounting).
func (t *Tracker) Pool() *Pool { return t.pool }

// SessionMemuse returns the bytes the live sessions are charged against stream.memcap.
func (t *Tracker) SessionMemuse() uint64 { return t.ssnMem }

// PacketResult is what the stream engine decided for one packet.
type PacketResult struct {
	// Dir is the packet's direction after the stream engine: a SYN/ACK pickup reverses the
	// flow, and the packet with it.
	Dir flow.Direction
	// Established is FLOW_PKT_ESTABLISHED: the session was established before this packet
	// (or the 3WHS-completing ACK carries data). The flow's PacketEstablished is set to it.
	Established bool
	// StreamEst is PKT_STREAM_EST: the session is established after this packet and the stream
	// engine handled it without error (StreamTcpPacket: not on a bad checksum, a stream error or
	// an urgent-data drop).
	StreamEst bool
	// Added is PKT_STREAM_ADD: the packet's payload entered the stream.
	Added bool
	// Invalid says the stream engine rejected the packet as a stream error (inline with
	// drop-invalid drops it).
	Invalid bool
	// Modified is PKT_STREAM_MODIFIED (inline): overlapping payload bytes were overwritten
	// with the stream's accepted ones, so the checksum is to be recomputed.
	Modified bool
	// Exception is the exception policy applied to the packet, ExceptionIgnore for none, and
	// ExceptionCause why (midstream-policy on a packet without a session, memcap-policy
	// without room for a session, reassembly memcap-policy without room for a segment): the
	// caller drops or passes the packet or its flow as it says.
	Exception      ExceptionPolicy
	ExceptionCause ExceptionCause
	// Drop says the stream engine drops the packet whatever drop-invalid says: URG with the
	// drop policy (inline), or past the OOB limit with its drop policy.
	Drop bool
	// Offset is the stream offset of the packet's first payload byte in its direction's
	// stream (valid when Added): the packet's bytes are [Offset, Offset+len(payload)).
	Offset uint64
	// AppUpdate says, per direction of data (index flow.ToServer: the client's stream),
	// whether Suricata updates the app layer with that stream on this packet
	// (StreamTcpReassembleHandleSegment: IDS the opposing stream, the packet's own one
	// inline, on RST, FIN past TIME_WAIT, CLOSED, async and depth).
	AppUpdate [2]bool
}

// Packet runs one TCP packet of flow f (dir: its direction as the flow table found it)
// through the stream engine: it sets the flow's packet-established flag, advances the session
// state machine (updating f.TCP), stores the payload, and adds stream events to p.Events.
// Packets with a bad checksum (when validated) are not tracked.
func (t *Tracker) Packet(f *flow.Flow, p *decode.Packet, dir flow.Direction) PacketResult {
	return *t.Track(f, p, dir)
}

// Track is Packet returning its result in place (valid until the next call on the Tracker):
// the worker's per-packet call, which so reads the fields it needs rather than a copy (copying
// the result just written, field by field, stalls store-to-load forwarding).
func (t *Tracker) Track(f *flow.Flow, p *decode.Packet, dir flow.Direction) *PacketResult {
	res := &t.res
	if !p.IsTCP() {
		*res = PacketResult{Dir: dir}
		return res
	}
	t.packet(f, p, dir)
	// The stand-in for the app layer runs only where raw inspection keeps the stream (without
	// it, and without an app layer, sessions are not reassembled: newSession).
	drain := !t.cfg.AppLayer && t.cfg.Raw
	if !drain && !t.cfg.Inline {
		return res
	}
	s := t.session(f) // once for both steps below
	if s != nil && drain {
		for d, up := range res.AppUpdate {
			if up {
				t.drainApp(f, s, flow.Direction(d), false)
			}
		}
	}
	if t.cfg.Inline { // the placement the inline raw window needs (raw.go)
		t.last.slot, t.last.added, t.last.payload = nil, res.Added, p.Payload
		if s != nil {
			t.last.slot = s.streamOf(res.Dir)
			t.last.offset = res.Offset
		}
	}
	return res
}

// RawBuffer receives the raw stream data a packet inspects: one chunk per contiguous block
// (a gap splits the data). Chunks are valid until the next call on the Tracker.
type RawBuffer struct {
	Chunks [][]byte
	// Offsets are the stream offsets of the chunks' first bytes.
	Offsets []uint64
	// FromPacket is set (inline) when the chunk is the packet's own payload, which was not
	// wholly in the stream.
	FromPacket bool
	// End is the raw progress this inspection reaches (Suricata's progress_out: past the
	// data handed out, except that after a gap it is the start of the data past the gap,
	// which is then seen again next time); RawConsumed takes it.
	End uint64
}

// Raw fills buf with the raw stream data the packet of flow f in direction dir inspects
// (Suricata's StreamReassembleRaw: IDS chunk/trigger rules, inline window), and reports
// whether the packet has stream data to inspect (StreamReassembleRawHasDataReady, the
// packet's PKT_DETECT_HAS_STREAMDATA): in IDS mode that can be so with no chunk, when the
// limit says "inspect now" but nothing new is ACKed; RawConsumed must still follow
// detection then. pseudo is set for flow-end pseudo packets (all remaining data).
// Call it after Packet for the same packet (inline mode uses that packet's placement).
func (t *Tracker) Raw(f *flow.Flow, dir flow.Direction, pseudo bool, buf *RawBuffer) bool {
	buf.Chunks, buf.Offsets, buf.FromPacket, buf.End = buf.Chunks[:0], buf.Offsets[:0], false, 0
	s := t.session(f)
	if s == nil {
		return false
	}
	return t.raw(s, dir, pseudo, false, buf)
}

// RawFlush is Raw for a rule that needs the data before the app progress (rules with
// http.request_body or file.data: Suricata's SIG_FLAG_FLUSH): with a pending app-layer
// trigger the data starts min-inspect-depth bytes before the app progress. Its End is not
// the raw progress: only Raw's End (the prefilter's) goes to RawConsumed.
func (t *Tracker) RawFlush(f *flow.Flow, dir flow.Direction, pseudo bool, buf *RawBuffer) bool {
	buf.Chunks, buf.Offsets, buf.FromPacket, buf.End = buf.Chunks[:0], buf.Offsets[:0], false, 0
	s := t.session(f)
	if s == nil {
		return false
	}
	return t.raw(s, dir, pseudo, true, buf)
}

// PseudoPacket counts a flow-end pseudo packet (tcp.pseudo); call it once for each pseudo
// packet the pipeline makes for f.
func (t *Tracker) PseudoPacket(f *flow.Flow, dir flow.Direction) {
	t.Counters.PseudoPackets++
	if s := t.session(f); s != nil && !t.cfg.AppLayer {
		t.drainApp(f, s, dir, true) // the app layer's flush at flow end (STREAM_EOF)
	}
}

// RawConsumed moves the raw progress of f's direction dir to end (after detection inspected
// the data Raw handed out). Call it only for a packet Raw returned true for (Suricata's
// PKT_DETECT_HAS_STREAMDATA). end 0 means no rule consumed stream data: the progress then
// jumps to the app progress (or last_ack without an app layer), as Suricata's
// StreamReassembleRawUpdateProgress does.
func (t *Tracker) RawConsumed(f *flow.Flow, dir flow.Direction, end uint64) {
	if s := t.session(f); s != nil {
		t.rawConsumed(s, s.streamOf(dir), end)
	}
}

// Side is a TCP endpoint for stream_size.
type Side uint8

// Sides.
const (
	Client Side = iota
	Server
)

// StreamSize returns next_seq - ISN of side (stream_size), and false without a session.
func (t *Tracker) StreamSize(f *flow.Flow, side Side) (uint32, bool) {
	s := t.session(f)
	if s == nil {
		return 0, false
	}
	st := &s.client
	if side == Server {
		st = &s.server
	}
	return uint32(st.nextSeq - st.isn), true
}

// StreamSizes is StreamSize for both sides from one session lookup: the client's and the
// server's next_seq - ISN, and false without a session.
func (t *Tracker) StreamSizes(f *flow.Flow) (client, server uint32, ok bool) {
	s := t.session(f)
	if s == nil {
		return 0, 0, false
	}
	return uint32(s.client.nextSeq - s.client.isn), uint32(s.server.nextSeq - s.server.isn), true
}

// NeedsFlush reports, for a flow that ends, which directions still have data (or state) to
// inspect through flow-end pseudo packets (FlowNeedsReassembly): [to_server, to_client].
// The app layer's own reasons (unfinished transactions, frames) are the caller's to add.
func (t *Tracker) NeedsFlush(f *flow.Flow) [2]bool {
	s := t.session(f)
	if s == nil {
		return [2]bool{}
	}
	if s.state >= flow.TCPEstablished && s.state != flow.TCPClosed {
		return [2]bool{true, true}
	}
	return [2]bool{t.needsReassembly(s, &s.client), t.needsReassembly(s, &s.server)}
}

// needsReassembly is StreamNeedsReassembly.
func (t *Tracker) needsReassembly(s *Session, st *Stream) bool {
	if st.flags&stDisableRaw == 0 && st.dataEnd > st.rawProg {
		return true
	}
	if s.flags&ssnAppDisabled == 0 && st.ra.Contiguous(st.appProg) > st.appProg {
		return true
	}
	return false
}

// Prune releases the storage of f's direction dir that the app layer and raw inspection
// are done with, and stops reassembly of a direction past its depth (Suricata's
// StreamTcpPruneSession, run after detection of each packet for its direction). Packet also
// prunes both directions before it handles a packet.
func (t *Tracker) Prune(f *flow.Flow, dir flow.Direction) {
	if s := t.session(f); s != nil {
		t.prune(s, s.streamOf(dir))
	}
}

// Inspected is what follows a packet's detection, from one session lookup: RawConsumed(f,
// dir, end) when consumed (the packet had stream data to inspect), then Prune(f, dir).
func (t *Tracker) Inspected(f *flow.Flow, dir flow.Direction, consumed bool, end uint64) {
	s := t.session(f)
	if s == nil {
		return
	}
	st := s.streamOf(dir)
	if consumed {
		t.rawConsumed(s, st, end)
	}
	t.prune(s, st)
}

// Release frees f's session and its segments (at flow end, after the pseudo packets). Every
// flow with a session must be released before its slot is reused.
func (t *Tracker) Release(f *flow.Flow) {
	if s := t.sessions.Peek(f); s != nil {
		t.release(s)
		t.sessions.Drop(f)
	}
}

// AppData returns the in-order data of f's direction dir that the app layer has not
// consumed yet and may read now (IDS: ACKed data; inline: all), a gap of that many missing
// bytes before it (0: none), and whether the direction is closed (no more data will come).
// The slice is valid until the next call on the Tracker. A gap raises
// stream.reassembly_seq_gap on the packet last given to Packet.
func (t *Tracker) AppData(f *flow.Flow, dir flow.Direction) (data []byte, gap uint64, eof bool) {
	s := t.session(f)
	if s == nil {
		return nil, 0, false
	}
	return t.appData(f, s, dir, false)
}

// AppDataFlush is AppData for a flow-end pseudo packet: unACKed data too (unless the
// session closed normally), eof set.
func (t *Tracker) AppDataFlush(f *flow.Flow, dir flow.Direction) (data []byte, gap uint64, eof bool) {
	s := t.session(f)
	if s == nil {
		return nil, 0, true
	}
	return t.appData(f, s, dir, true)
}

// ConsumeApp marks n bytes of AppData (after the gap) as consumed by the app layer.
func (t *Tracker) ConsumeApp(f *flow.Flow, dir flow.Direction, n int) {
	if s := t.session(f); s != nil {
		t.consumeApp(s, s.streamOf(dir), n)
	}
}

// TriggerRaw asks for raw inspection of f's direction dir on the next packet (Suricata's
// app-layer trigger).
func (t *Tracker) TriggerRaw(f *flow.Flow, dir flow.Direction) {
	if s := t.session(f); s != nil {
		s.streamOf(dir).flags |= stTriggerRaw
	}
}

// SetMinInspectDepth keeps depth bytes before the app progress for raw inspection
// (StreamTcpReassemblySetMinInspectDepth).
func (t *Tracker) SetMinInspectDepth(f *flow.Flow, dir flow.Direction, depth uint64) {
	if s := t.session(f); s != nil {
		s.streamOf(dir).minInspectDepth = depth
	}
}

// SetDepth changes the session's reassembly depth (app-layer stream-depth at protocol
// detection, TcpSessionSetReassemblyDepth).
func (t *Tracker) SetDepth(f *flow.Flow, depth uint64) {
	if s := t.session(f); s != nil {
		s.depth = depth
		s.client.ra.SetDepth(depth)
		s.server.ra.SetDepth(depth)
	}
}

// DisableApp turns the app-layer reassembly of f's session off (StreamTcpDisableAppLayer):
// storage is then kept only for raw inspection.
func (t *Tracker) DisableApp(f *flow.Flow) {
	if s := t.session(f); s != nil {
		s.flags |= ssnAppDisabled
	}
}

// DisableRaw stops raw reassembly of f's direction dir for new data
// (StreamTcpSetDisableRawReassemblyFlag).
func (t *Tracker) DisableRaw(f *flow.Flow, dir flow.Direction) {
	if s := t.session(f); s != nil {
		s.streamOf(dir).flags |= stNewRawDisabled
	}
}

// DepthReached reports whether f's direction dir reached the reassembly depth.
func (t *Tracker) DepthReached(f *flow.Flow, dir flow.Direction) bool {
	s := t.session(f)
	return s != nil && s.streamOf(dir).flags&stDepthReached != 0
}

// State returns the session state (flow.TCPNone without a session).
func (t *Tracker) State(f *flow.Flow) flow.TCPSessionState {
	if s := t.session(f); s != nil {
		return s.state
	}
	return flow.TCPNone
}

// SessionReuse reports whether packet p of flow f (dir: its direction as the flow table
// found it) starts a new session on the tuple, so that the flow table ends f (reason
// tcp_reuse) and makes a new flow for p (TcpSessionPacketSsnReuse): a SYN, or with
// midstream or async-oneside a SYN/ACK, on a flow whose session is at LAST_ACK or later,
// NONE, or missing, or a SYN after TFO data was ignored; never a SYN repeating the ISN.
func (t *Tracker) SessionReuse(f *flow.Flow, p *decode.Packet, dir flow.Direction) bool {
	fl := p.TCPFlags
	if fl&(thRST|thFIN) != 0 {
		return false
	}
	syn := fl&(thSYN|thACK) == thSYN
	synack := fl&(thSYN|thACK) == thSYN|thACK && (t.cfg.Midstream || t.cfg.AsyncOneside)
	if !syn && !synack {
		return false
	}
	s := t.session(f)
	seq := Seq(p.TCPSeq)
	switch {
	case s == nil:
		// a SYN/ACK from the server on a flow without a session is no reuse
		return !(synack && dir == flow.ToClient)
	case syn && dir == flow.ToServer && s.flags&ssnTFODataIgnored != 0:
		return true
	case syn && dir == flow.ToServer && s.client.isn == seq:
		return false
	case synack && dir == flow.ToClient && s.server.isn == seq:
		return false
	}
	return s.state >= flow.TCPLastAck || s.state == flow.TCPNone
}

// NextSeq returns the next_seq of dir's sending side (to_server: the client's), the
// sequence number Suricata's flow-end pseudo packet of that direction carries
// (src/flow-timeout.c: FlowPseudoPacketSetup); 0 without a session.
func (t *Tracker) NextSeq(f *flow.Flow, dir flow.Direction) uint32 {
	s := t.session(f)
	if s == nil {
		return 0
	}
	return uint32(s.streamOf(dir).nextSeq)
}

// StopRaw sets DISABLE_RAW on f's direction dir at once: detection found no rule that
// inspects the raw stream in the direction's first rule group (Suricata's
// DetectRunPostGetFirstRuleGroup). Without an app layer the direction is then no longer
// reassembled.
func (t *Tracker) StopRaw(f *flow.Flow, dir flow.Direction) {
	if s := t.session(f); s != nil {
		s.streamOf(dir).flags |= stDisableRaw
	}
}

// Midstream reports whether f's session was picked up midstream, and whether that pickup
// was on a SYN/ACK (the app layer's protocol detection treats the two differently:
// TCPProtoDetect's reversal and its "to_server detection failed" give-up).
func (t *Tracker) Midstream(f *flow.Flow) (midstream, synAck bool) {
	if s := t.session(f); s != nil {
		return s.flags&ssnMidstream != 0, s.flags&ssnMidstreamSynAck != 0
	}
	return false, false
}

// Swap exchanges the client and server streams of f's session, after the app layer's
// protocol detection reversed the flow (TcpStreamFlowSwap): the caller reverses the flow.
func (t *Tracker) Swap(f *flow.Flow) {
	if s := t.session(f); s != nil {
		s.client, s.server = s.server, s.client
	}
}
