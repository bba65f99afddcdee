package stream

import "fmt"

// ExceptionPolicy is what Suricata's exception policies do with a packet the engine cannot
// handle normally (util-exception-policy.c); the stream engine applies
// stream.midstream-policy to the first packet of a flow without a session that is not a SYN
// (a FIN, a SYN/ACK or an ACK: ExceptionPolicyApply in StreamTcpPacketStateNone). The zero
// value is Suricata's EXCEPTION_POLICY_NOT_SET ("ignore").
type ExceptionPolicy uint8

// Exception policies.
const (
	ExceptionIgnore ExceptionPolicy = iota
	ExceptionPassPacket
	ExceptionPassFlow
	ExceptionBypassFlow
	ExceptionDropPacket
	ExceptionDropFlow
	ExceptionReject
	ExceptionRejectBoth
)

var exceptionNames = [...]string{"ignore", "pass-packet", "pass-flow", "bypass", "drop-packet", "drop-flow", "reject", "reject-both"}

// String returns the policy's configuration name.
func (e ExceptionPolicy) String() string {
	if int(e) < len(exceptionNames) {
		return exceptionNames[e]
	}
	return "ignore"
}

// MidstreamPolicy resolves stream.midstream-policy as Suricata's ExceptionPolicyMidstreamParse
// does: value is the key as written ("" when absent), master the exception-policy key ("" when
// absent), midstream stream.midstream and ips whether the engine runs inline. auto, and an
// absent key, give drop-flow in IPS mode with midstream off and ignore otherwise; with
// midstream on only ignore and pass-flow are valid; drop-flow is invalid in IDS mode, and so
// are pass-packet and drop-packet.
func MidstreamPolicy(value, master string, midstream, ips bool) (ExceptionPolicy, error) {
	auto := func() ExceptionPolicy {
		if !midstream && ips {
			return ExceptionDropFlow
		}
		return ExceptionIgnore
	}
	var p ExceptionPolicy
	switch {
	case value != "":
		var err error
		if p, err = parseException("stream.midstream-policy", value); err != nil {
			return 0, err
		}
		if value == "auto" {
			p = auto()
		} else if midstream && p != ExceptionIgnore && p != ExceptionPassFlow {
			return 0, fmt.Errorf("stream.midstream-policy: %q is not a valid exception policy when midstream is enabled (pass-flow or ignore)", value)
		}
		if !ips && p == ExceptionDropFlow {
			return 0, fmt.Errorf("stream.midstream-policy: %q is not a valid exception policy in IDS mode", value)
		}
	case master != "":
		m, err := parseException("exception-policy", master)
		if err != nil {
			return 0, err
		}
		if master == "auto" {
			p = auto()
		} else if !ips && (m == ExceptionDropPacket || m == ExceptionDropFlow) {
			p = ExceptionIgnore // ExceptionPolicyMasterParse: no drops in IDS mode
		} else {
			p = m
		}
	default:
		p = auto()
	}
	if p == ExceptionPassPacket || p == ExceptionDropPacket {
		return 0, fmt.Errorf("stream.midstream-policy: %q is not valid for this exception policy", p)
	}
	return p, nil
}

// parseException reads an exception policy name (ExceptionPolicyConfigValueParse); "auto"
// reads as ignore here and is resolved by the caller.
func parseException(key, v string) (ExceptionPolicy, error) {
	switch v {
	case "auto", "ignore":
		return ExceptionIgnore, nil
	case "pass-packet":
		return ExceptionPassPacket, nil
	case "pass-flow":
		return ExceptionPassFlow, nil
	case "bypass":
		return ExceptionBypassFlow, nil
	case "drop-packet":
		return ExceptionDropPacket, nil
	case "drop-flow":
		return ExceptionDropFlow, nil
	case "reject":
		return ExceptionReject, nil
	case "rejectboth":
		return ExceptionRejectBoth, nil
	}
	return 0, fmt.Errorf("%s: %q is not an exception policy (auto, ignore, pass-packet, pass-flow, bypass, drop-packet, drop-flow, reject, rejectboth)", key, v)
}

// ExceptionCause says which exception policy a packet met.
type ExceptionCause uint8

// Causes, with Suricata's drop reasons: "stream midstream", "stream memcap", "stream
// reassembly".
const (
	CauseMidstream ExceptionCause = iota
	CauseMemcap
	CauseReassemblyMemcap
	// CauseAppLayerError is app-layer.error-policy after a parser error ("applayer error").
	CauseAppLayerError
)

// setException records the policy a packet met, the first one winning.
func (r *PacketResult) setException(p ExceptionPolicy, cause ExceptionCause) {
	if r.Exception == ExceptionIgnore && p != ExceptionIgnore {
		r.Exception, r.ExceptionCause = p, cause
	}
}

// MemcapPolicy resolves stream.memcap-policy or stream.reassembly.memcap-policy (key) as
// Suricata's ExceptionPolicyParse does for a policy that supports flow actions: value is the
// key as written ("" when absent), master the exception-policy key. auto, and an absent key,
// give drop-flow in IPS mode and ignore in IDS mode; the master switch's drops mean nothing in
// IDS mode.
func MemcapPolicy(key, value, master string, ips bool) (ExceptionPolicy, error) {
	auto := ExceptionIgnore
	if ips {
		auto = ExceptionDropFlow
	}
	switch {
	case value != "":
		p, err := parseException(key, value)
		if err != nil {
			return 0, err
		}
		if value == "auto" {
			p = auto
		}
		return p, nil
	case master != "":
		m, err := parseException("exception-policy", master)
		if err != nil {
			return 0, err
		}
		if master == "auto" {
			return auto, nil
		}
		if !ips && (m == ExceptionDropPacket || m == ExceptionDropFlow) {
			return ExceptionIgnore, nil
		}
		return m, nil
	}
	return auto, nil
}
