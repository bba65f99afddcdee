package applayer

import "strings"

// FlowApp is a flow's app-layer state as detection and the loggers see it on one packet.
// The framework (Layer) owns and updates it; readers must not keep it past the packet.
type FlowApp struct {
	// Proto is the flow's protocol (alproto): ProtoUnknown while detection runs,
	// ProtoFailed once it gave up.
	Proto Proto
	// ProtoDir is the protocol detected per direction (alproto_ts, alproto_tc).
	ProtoDir [2]Proto
	// ProtoOrig is the protocol before a protocol change (alproto_orig), ProtoUnknown if
	// none; ProtoExpect the protocol a change expected (alproto_expect).
	ProtoOrig, ProtoExpect Proto
	// Parser and State are the flow's parser and its state; State is nil while the
	// protocol is unknown, when it has no parser (detection-only) and once the app layer
	// is disabled for the flow (a parse error, a gap it cannot pass).
	Parser *Parser
	State  State
	// Updated says, per direction of data, that the parser took data of that direction
	// for the current packet (the packet's own direction: by this packet or by an earlier
	// packet of the other direction, PacketAppUpdate2FlowFlags): detection then inspects
	// the transactions in that direction.
	Updated [2]bool
	// InspectID is per direction the id of the first transaction detection has not
	// finished with (AppLayerParserState inspect_id).
	InspectID [2]uint64
	// DetectDone says that protocol detection finished in that direction on this packet
	// (the "detection done" flag protocol-detection-only rules are checked on).
	DetectDone [2]bool
	// Events are the packet-level app-layer events of the current packet (3.11), by
	// PacketEvent.
	Events PacketEvents
	// Disabled says the app layer was disabled for the flow.
	Disabled bool
}

// PacketEvent is a packet-level app-layer event (src/app-layer-events.c).
type PacketEvent uint8

// The packet-level app-layer events, named as app-layer-event:<name> names them.
const (
	EventMismatchProtocolBothDirections PacketEvent = iota
	EventWrongDirectionFirstData
	EventDetectProtocolOnlyOneDirection
	EventProtoDetectionSkipped
	EventNoTLSAfterStartTLS
	EventUnexpectedProtocol
	packetEventMax
)

var packetEventNames = [packetEventMax]string{
	"applayer_mismatch_protocol_both_directions", "applayer_wrong_direction_first_data",
	"applayer_detect_protocol_only_one_direction", "applayer_proto_detection_skipped",
	"applayer_no_tls_after_starttls", "applayer_unexpected_protocol",
}

// String is the event's name.
func (e PacketEvent) String() string {
	if e < packetEventMax {
		return packetEventNames[e]
	}
	return "unknown"
}

// PacketEventByName returns the packet-level event a rule names (case-insensitive).
func PacketEventByName(name string) (PacketEvent, bool) {
	for i, n := range packetEventNames {
		if strings.EqualFold(n, name) {
			return PacketEvent(i), true
		}
	}
	return 0, false
}

// PacketEvents is a set of packet-level events.
type PacketEvents uint8

// Set adds e; Has reports it.
func (s *PacketEvents) Set(e PacketEvent)     { *s |= 1 << e }
func (s PacketEvents) Has(e PacketEvent) bool { return s&(1<<e) != 0 }
