package stream

import "testing"

// TestMidstreamPolicy follows ExceptionPolicyMidstreamParse, ExceptionPolicyGetDefault and
// ExceptionPolicyPickAuto (src/util-exception-policy.c): auto or nothing gives drop-flow in
// IPS mode without midstream, ignore otherwise; with midstream only ignore and pass-flow are
// valid; drop-flow is refused in IDS mode; the master exception-policy's drops mean nothing in
// IDS mode; packet-only actions are refused.
func TestMidstreamPolicy(t *testing.T) {
	for _, tc := range []struct {
		value, master  string
		midstream, ips bool
		want           ExceptionPolicy
		err            bool
	}{
		{"", "auto", false, true, ExceptionDropFlow, false},
		{"", "auto", false, false, ExceptionIgnore, false},
		{"", "auto", true, true, ExceptionIgnore, false},
		{"", "", false, true, ExceptionDropFlow, false},
		{"auto", "", false, true, ExceptionDropFlow, false},
		{"auto", "", true, true, ExceptionIgnore, false},
		{"pass-flow", "", true, true, ExceptionPassFlow, false},
		{"ignore", "", true, false, ExceptionIgnore, false},
		{"drop-flow", "", true, true, 0, true},   // midstream on: pass-flow or ignore only
		{"drop-flow", "", false, false, 0, true}, // not in IDS mode
		{"drop-flow", "", false, true, ExceptionDropFlow, false},
		{"reject", "", false, true, ExceptionReject, false},
		{"drop-packet", "", false, true, 0, true},
		{"pass-packet", "", false, false, 0, true},
		{"bogus", "", false, false, 0, true},
		{"", "drop-flow", false, false, ExceptionIgnore, false}, // master drops are ignored in IDS
		{"", "drop-flow", true, true, ExceptionDropFlow, false},
		{"", "pass-flow", false, true, ExceptionPassFlow, false},
		{"", "bogus", false, true, 0, true},
	} {
		got, err := MidstreamPolicy(tc.value, tc.master, tc.midstream, tc.ips)
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("value %q master %q midstream %v ips %v: %v, %v; want %v (error %v)",
				tc.value, tc.master, tc.midstream, tc.ips, got, err, tc.want, tc.err)
		}
	}
}

// TestMidstreamPolicyApplied: the policy is applied to the first packet of a flow without a
// session that is a FIN, a SYN/ACK or an ACK, not to a SYN; a policy other than ignore and
// pass-flow keeps midstream pickup from happening (StreamTcpPacketStateNone).
func TestMidstreamPolicyApplied(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  ExceptionPolicy
		flags   uint8
		applied bool
		pickup  bool
	}{
		{"ack drop-flow", ExceptionDropFlow, fACK, true, false},
		{"synack drop-flow", ExceptionDropFlow, fSYN | fACK, true, false},
		{"fin drop-flow", ExceptionDropFlow, fFIN | fACK, true, false},
		{"syn drop-flow", ExceptionDropFlow, fSYN, false, true},
		{"ack pass-flow", ExceptionPassFlow, fACK, true, true},
		{"ack ignore", ExceptionIgnore, fACK, false, true},
	} {
		cfg := defaultConfig()
		cfg.Midstream = true
		cfg.MidstreamPolicy = tc.policy
		c := newConv(t, cfg)
		res := c.send(pkt{flags: tc.flags, seq: cISN, ack: sISN + 1, data: "data"})
		if applied := res.Exception != ExceptionIgnore; applied != tc.applied || applied && res.Exception != tc.policy {
			t.Errorf("%s: exception %v, want applied %v", tc.name, res.Exception, tc.applied)
		}
		if pickup := c.tr.session(c.f) != nil; pickup != tc.pickup {
			t.Errorf("%s: session %v, want %v", tc.name, pickup, tc.pickup)
		}
	}
}

// TestMemcapPolicy follows ExceptionPolicyParse for a policy with flow actions: auto and an
// absent key give drop-flow in IPS mode and ignore in IDS mode (ExceptionPolicyPickAuto,
// ExceptionPolicyGetDefault), a value is taken as written, the master switch's drops are
// ignored in IDS mode, an unknown value is refused.
func TestMemcapPolicy(t *testing.T) {
	for _, tc := range []struct {
		value, master string
		ips           bool
		want          ExceptionPolicy
		err           bool
	}{
		{"", "auto", true, ExceptionDropFlow, false},
		{"", "auto", false, ExceptionIgnore, false},
		{"", "", true, ExceptionDropFlow, false},
		{"auto", "", false, ExceptionIgnore, false},
		{"drop-packet", "", true, ExceptionDropPacket, false},
		{"pass-flow", "auto", true, ExceptionPassFlow, false},
		{"", "drop-flow", false, ExceptionIgnore, false},
		{"", "reject", true, ExceptionReject, false},
		{"sometimes", "", true, 0, true},
	} {
		got, err := MemcapPolicy("stream.memcap-policy", tc.value, tc.master, tc.ips)
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("value %q master %q ips %v: %v, %v; want %v (error %v)", tc.value, tc.master, tc.ips, got, err, tc.want, tc.err)
		}
	}
}

// TestMemcapPolicyApplied: a SYN that finds no room under stream.memcap gets memcap-policy
// (cause memcap); a segment that finds no room under the reassembly memcap gets the reassembly
// memcap-policy (StreamTcpNewSession, StreamTcpReassembleHandleSegment).
func TestMemcapPolicyApplied(t *testing.T) {
	cfg := defaultConfig()
	cfg.Memcap = 1 // no session fits
	cfg.MemcapPolicy = ExceptionDropFlow
	c := newConv(t, cfg)
	res := c.send(pkt{flags: fSYN, seq: cISN})
	if res.Exception != ExceptionDropFlow || res.ExceptionCause != CauseMemcap {
		t.Errorf("session memcap: %v cause %v, want drop-flow, memcap", res.Exception, res.ExceptionCause)
	}

	cfg = defaultConfig()
	cfg.ReassemblyMemcap = 1 // no segment fits
	cfg.SegmentPrealloc = 0
	cfg.ReassemblyMemcapPolicy = ExceptionDropPacket
	c = established(t, cfg)
	res = c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"})
	if res.Exception != ExceptionDropPacket || res.ExceptionCause != CauseReassemblyMemcap {
		t.Errorf("reassembly memcap: %v cause %v, want drop-packet, reassembly", res.Exception, res.ExceptionCause)
	}
}
