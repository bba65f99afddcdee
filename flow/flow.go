// Package flow keeps the flow table: one entry per connection, keyed by the 5-tuple and VLAN
// ids, with direction (to_server is the side that started the flow), packet and byte counters,
// the TCP state needed by `flow:established`, and timeouts as Suricata applies them.
//
// A Table belongs to one worker and is not safe for concurrent use: the pipeline spreads
// packets over workers by a symmetric hash so both directions of a flow meet the same table.
package flow

import (
	"net/netip"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
)

// State is the flow state used for timeouts and the EVE `flow.state` field.
type State uint8

// Flow states.
const (
	StateNew State = iota
	StateEstablished
	StateClosed
)

// String returns the EVE name of the state.
func (s State) String() string {
	switch s {
	case StateEstablished:
		return "established"
	case StateClosed:
		return "closed"
	}
	return "new"
}

// EndReason says why a flow ended, as EVE `flow.reason` names it.
type EndReason uint8

// End reasons.
const (
	EndUnknown EndReason = iota
	EndTimeout
	EndShutdown
	EndForced
	EndTCPReuse
)

// String returns the EVE name of the reason.
func (r EndReason) String() string {
	switch r {
	case EndTimeout:
		return "timeout"
	case EndShutdown:
		return "shutdown"
	case EndForced:
		return "forced"
	case EndTCPReuse:
		return "tcp_reuse"
	}
	return "unknown"
}

// Action is a verdict remembered for the whole flow (EVE `flow.action`).
type Action uint8

// Flow actions.
const (
	ActionNone Action = iota
	ActionPass
	ActionDrop
	ActionAccept
)

// String returns the EVE name of the action ("" for none). Flow records use
// Flow.ActionName, which also knows about a firewall accept.
func (a Action) String() string {
	switch a {
	case ActionPass:
		return "pass"
	case ActionDrop:
		return "drop"
	case ActionAccept:
		return "accept"
	}
	return ""
}

// Direction of a packet relative to its flow.
type Direction uint8

// Directions.
const (
	ToServer Direction = iota
	ToClient
)

// String returns "to_server" or "to_client".
func (d Direction) String() string {
	if d == ToClient {
		return "to_client"
	}
	return "to_server"
}

// Key identifies a flow independently of the packet direction: the lower (address, port) pair
// comes first. Addresses are kept as 16-byte arrays (IPv4 mapped into IPv6, Family telling
// them apart) so the key holds no pointer and hashes as plain memory.
type Key struct {
	LoAddr, HiAddr [16]byte
	LoPort, HiPort uint16
	Proto          uint8
	Family         uint8
	VLAN           [decode.MaxVLANs]uint16
}

// Flow is one tracked connection. Src is the client: the side whose packet created the flow.
type Flow struct {
	Key      Key
	Hash     uint32
	SrcIP    netip.Addr
	DstIP    netip.Addr
	SrcPort  uint16
	DstPort  uint16
	Proto    uint8
	IPv      uint8
	VLAN     [decode.MaxVLANs]uint16
	VLANs    uint8
	ICMPType uint8 // type and code of the first ICMP packet to the server
	ICMPCode uint8
	// RespICMPType and RespICMPCode are those of the first ICMP packet to the client.
	RespICMPType uint8
	RespICMPCode uint8

	Start time.Time
	// LastUnixNano is the time of the latest packet, in Unix nanoseconds (kept as an integer:
	// it is compared on every packet).
	LastUnixNano int64

	PktsToServer, PktsToClient   uint64
	BytesToServer, BytesToClient uint64

	State        State
	SeenToServer bool
	SeenToClient bool
	TCP          TCPState
	EndReason    EndReason
	// Ended is when the flow ended: the moment its timeout passed, or the time of the last
	// packet of the capture at shutdown. Flow records carry it as their timestamp.
	Ended   time.Time
	Alerted bool
	// ParentID is the flow id of the flow that announced this one (an FTP data
	// connection's control flow: Flow.parent_id), 0 for none; EVE records carry it.
	ParentID uint64
	// Action is the drop or pass decided for the whole flow: the first one set wins
	// (Suricata's FLOW_ACTION_DROP / FLOW_ACTION_PASS), except that a threat-detection drop
	// replaces a firewall accept.
	Action Action
	// Accept is a firewall accept:flow (FLOW_ACTION_ACCEPT): later packets skip the firewall
	// rules. It can stand beside a pass (accept:flow,pass:flow).
	Accept bool
	// ByFirewall records that the flow's action was set by a firewall rule or policy, so its
	// later drops count as "firewall flow drop".
	ByFirewall bool
	// ByException records that an exception policy dropped the flow
	// (FLOW_AUX_ACTION_BY_EXCEPTION_POLICY): its later packets are "exception policy flow
	// drop"s.
	ByException bool
	// Vars are the flowbits and flowints rules set on the flow.
	Vars Vars
	// NoPayloadInspect is FLOW_NOPAYLOAD_INSPECTION: the flow's payload is not inspected
	// (its app layer said the data is encrypted); every later packet gets
	// decode.Packet.NoPayloadInspection.
	NoPayloadInspect bool
	// Bypassed is FLOW_STATE_LOCAL_BYPASSED: the flow's later packets are only counted
	// (flow_bypassed.local_pkts/_bytes), not tracked, inspected or logged.
	Bypassed bool

	// slot is the flow's stable index in its table and serial the number of this flow in
	// that slot (Slots).
	slot   uint32
	serial uint64

	pktFlowStart bool // the current packet is the first of its direction

	// timeoutAt caches when the flow expires given its state (Unix nanoseconds); refreshed
	// on every packet.
	timeoutAt int64
	// prev and next link the flow into its timeout class's list; class is that list and
	// queuedDeadline the deadline the flow had when it was put at the list's tail.
	prev, next     *Flow
	class          uint8
	listed         bool
	queuedDeadline int64
	// pktEstablished is FLOW_PKT_ESTABLISHED for the packet last accounted to the flow.
	pktEstablished bool
}

// ID returns Suricata's flow_id: start seconds and microseconds folded with the flow hash,
// reduced to 51 bits so JSON readers keep it exact.
func (f *Flow) ID() uint64 {
	sec := uint64(f.Start.Unix())
	usec := uint64(f.Start.Nanosecond() / 1000)
	id := (sec&0xFFFF)<<48 | (usec&0xFFFF)<<32 | uint64(f.Hash)
	return id & 0x7ffffffffffff
}

// Age is the number of whole seconds between the first and the last packet (EVE flow.age).
func (f *Flow) Age() int64 { return f.Last().Unix() - f.Start.Unix() }

// Last returns the time of the flow's latest packet.
func (f *Flow) Last() time.Time { return time.Unix(0, f.LastUnixNano) }
