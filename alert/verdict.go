package alert

// DropReason is why a packet was dropped (Suricata's enum PacketDropReason): the first reason
// given for a packet is the one it keeps.
type DropReason uint8

// Drop reasons Meerkat raises. The firewall ones (ReasonFW*) are counted under firewall.*
// rather than ips.* and make the firewall, not threat detection, the packet's blocker.
const (
	ReasonNone DropReason = iota
	ReasonRules
	ReasonThreshold
	ReasonFlowDrop
	ReasonStreamError
	ReasonStreamMidstream
	ReasonStreamMemcap
	ReasonStreamReassembly
	ReasonStreamUrgent
	ReasonAppLayerError
	// ReasonEPFlowDrop is PKT_DROP_REASON_EP_FLOW_DROP: a packet of a flow an exception
	// policy dropped (FLOW_AUX_ACTION_BY_EXCEPTION_POLICY).
	ReasonEPFlowDrop
	ReasonFWRules
	ReasonFWDefaultPacketPolicy
	ReasonFWDefaultAppPolicy
	ReasonFWPreStreamHook
	ReasonFWPreFlowHook
	ReasonFWFlowDrop
	numReasons
)

var reasonNames = [numReasons]struct{ text, stat string }{
	ReasonRules:                 {"rules", "ips.drop_reason.rules"},
	ReasonThreshold:             {"threshold detection_filter", "ips.drop_reason.threshold_detection_filter"},
	ReasonFlowDrop:              {"flow drop", "ips.drop_reason.flow_drop"},
	ReasonStreamError:           {"stream error", "ips.drop_reason.stream_error"},
	ReasonStreamMidstream:       {"stream midstream", "ips.drop_reason.stream_midstream"},
	ReasonStreamMemcap:          {"stream memcap", "ips.drop_reason.stream_memcap"},
	ReasonStreamReassembly:      {"stream reassembly", "ips.drop_reason.stream_reassembly"},
	ReasonStreamUrgent:          {"stream urgent", "ips.drop_reason.stream_urgent"},
	ReasonAppLayerError:         {"applayer error", "ips.drop_reason.applayer_error"},
	ReasonFWRules:               {"firewall rules", "firewall.drop_reason.rules"},
	ReasonFWDefaultPacketPolicy: {"firewall default packet policy", "firewall.drop_reason.default_packet_policy"},
	ReasonFWDefaultAppPolicy:    {"firewall default app policy", "firewall.drop_reason.default_app_policy"},
	ReasonFWPreStreamHook:       {"firewall pre stream hook", "firewall.drop_reason.pre_stream_hook"},
	ReasonFWPreFlowHook:         {"firewall pre flow hook", "firewall.drop_reason.pre_flow_hook"},
	ReasonFWFlowDrop:            {"firewall flow drop", "firewall.drop_reason.flow_drop"},
	ReasonEPFlowDrop:            {"exception policy flow drop", "ips.drop_reason.exception_policy_flow_drop"},
}

// String is the reason as EVE drop records write it (PacketDropReasonToString).
func (r DropReason) String() string {
	if r < numReasons {
		return reasonNames[r].text
	}
	return ""
}

// Stat is the reason's stats counter name (ips.drop_reason.* or firewall.drop_reason.*).
func (r DropReason) Stat() string {
	if r < numReasons {
		return reasonNames[r].stat
	}
	return ""
}

// Firewall reports whether the firewall, not threat detection, dropped the packet
// (Suricata's VerdictByFirewall).
func (r DropReason) Firewall() bool { return r >= ReasonFWRules && r < numReasons }

// DropReasons returns every reason in Suricata's order, for registering counters.
func DropReasons() []DropReason {
	out := make([]DropReason, 0, numReasons-1)
	for r := ReasonRules; r < numReasons; r++ {
		out = append(out, r)
	}
	return out
}

// PacketVerdict is a packet's action as Suricata keeps it in p->action and p->drop_reason:
// drop and reject bits, the accept bit of firewall mode, and the first drop reason.
type PacketVerdict struct {
	Action Action
	Reason DropReason
}

// Drop adds drop (and reject) bits with a reason; an earlier reason is kept (PacketDrop).
func (v *PacketVerdict) Drop(a Action, r DropReason) {
	if v.Reason == ReasonNone {
		v.Reason = r
	}
	v.Action |= a
}

// Dropped reports whether the packet is dropped.
func (v *PacketVerdict) Dropped() bool { return v.Action&ActionDrop != 0 }

// Accepted reports whether the packet carries the firewall accept bit.
func (v *PacketVerdict) Accepted() bool { return v.Action&ActionAccept != 0 }

// Rejected reports whether a reject bit is set.
func (v *PacketVerdict) Rejected() bool {
	return v.Action&(ActionReject|ActionRejectDst|ActionRejectBoth) != 0
}
