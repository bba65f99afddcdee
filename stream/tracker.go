package stream

import (
	"net/netip"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// CONTRACT STUB: the signatures below are the API the pipeline, detect and the app layer
// program against; the session implementation replaces the bodies.

// Config is the stream engine's configuration (suricata.yaml stream.*, host-os-policy).
type Config struct {
	Midstream    bool // stream.midstream
	AsyncOneside bool // stream.async-oneside
	Inline       bool // stream.inline, resolved (auto: IPS mode)
	DropInvalid  bool // stream.drop-invalid (inline only)
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
	// CheckOverlapDiff is stream.reassembly.check-overlap-different-data.
	CheckOverlapDiff bool
	// PolicyFor gives the OS policy of a destination address (host-os-policy); nil: bsd.
	PolicyFor func(dst netip.Addr) Policy
	// MaxSynQueued and MaxSynAckQueued are max-syn-queued and max-synack-queued.
	MaxSynQueued, MaxSynAckQueued int
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
}

// Tracker is one worker's stream engine: its sessions (by flow slot), its segment pool and
// counters. Not safe for concurrent use.
type Tracker struct {
	Counters Counters
}

// NewTracker makes a worker's stream engine.
func NewTracker(cfg Config) *Tracker { return &Tracker{} }

// PacketResult is what the stream engine decided for one packet.
type PacketResult struct {
	// Dir is the packet's direction after the stream engine: a SYN/ACK pickup reverses the
	// flow, and the packet with it.
	Dir flow.Direction
	// Established is FLOW_PKT_ESTABLISHED: the session was established before this packet
	// (or the 3WHS-completing ACK carries data). The flow's PacketEstablished is set to it.
	Established bool
	// StreamEst is PKT_STREAM_EST: the session is established after this packet.
	StreamEst bool
	// Added is PKT_STREAM_ADD: the packet's payload entered the stream.
	Added bool
	// Invalid says the stream engine rejected the packet as a stream error (inline with
	// drop-invalid drops it).
	Invalid bool
}

// Packet runs one TCP packet of flow f (dir: its direction as the flow table found it)
// through the stream engine: it sets the flow's packet-established flag, advances the session
// state machine (updating f.TCP), stores the payload, and adds stream events to p.Events.
// Packets with a bad checksum (when validated) are not tracked.
func (t *Tracker) Packet(f *flow.Flow, p *decode.Packet, dir flow.Direction) PacketResult {
	return PacketResult{Dir: dir}
}

// RawBuffer receives the raw stream data a packet inspects: one chunk per contiguous block
// (a gap splits the data). Chunks are valid until the next call on the Tracker.
type RawBuffer struct {
	Chunks [][]byte
	// End is the stream offset just past the last byte handed out; RawConsumed takes it.
	End uint64
}

// Raw fills buf with the raw stream data the packet of flow f in direction dir inspects
// (Suricata's StreamReassembleRaw: IDS chunk/trigger rules, inline window), and reports
// whether there is any. pseudo is set for flow-end pseudo packets (all remaining data).
func (t *Tracker) Raw(f *flow.Flow, dir flow.Direction, pseudo bool, buf *RawBuffer) bool {
	return false
}

// RawConsumed moves the raw progress of f's direction dir to end (after detection inspected
// the data Raw handed out).
func (t *Tracker) RawConsumed(f *flow.Flow, dir flow.Direction, end uint64) {}

// Side is a TCP endpoint for stream_size.
type Side uint8

// Sides.
const (
	Client Side = iota
	Server
)

// StreamSize returns next_seq - ISN of side (stream_size), and false without a session.
func (t *Tracker) StreamSize(f *flow.Flow, side Side) (uint32, bool) { return 0, false }

// NeedsFlush reports, for a flow that ends, which directions still have data (or state) to
// inspect through flow-end pseudo packets (FlowNeedsReassembly): [to_server, to_client].
func (t *Tracker) NeedsFlush(f *flow.Flow) [2]bool { return [2]bool{} }

// Release frees f's session and its segments (at flow end, after the pseudo packets).
func (t *Tracker) Release(f *flow.Flow) {}

// AppData returns the in-order data of f's direction dir that the app layer has not
// consumed yet and may read now (IDS: ACKed data; inline: all), a gap of that many missing
// bytes before it (0: none), and whether the direction is closed (no more data will come).
// The slice is valid until the next call on the Tracker.
func (t *Tracker) AppData(f *flow.Flow, dir flow.Direction) (data []byte, gap uint64, eof bool) {
	return nil, 0, false
}

// ConsumeApp marks n bytes of AppData (after the gap) as consumed by the app layer.
func (t *Tracker) ConsumeApp(f *flow.Flow, dir flow.Direction, n int) {}

// TriggerRaw asks for raw inspection of f's direction dir on the next packet (Suricata's
// app-layer trigger).
func (t *Tracker) TriggerRaw(f *flow.Flow, dir flow.Direction) {}
