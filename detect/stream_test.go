package detect

import (
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// Which rules a flow-end pseudo packet evaluates. src/detect.c: DetectRulePacketRules skips
// s->type == SIG_TYPE_PKT when PKT_PSEUDO_STREAM_END is set (the type from
// src/detect-engine-build.c: SignatureSetType); DetectRunInspectIPOnly runs the IP-only
// engine only on a packet with FLOW_PKT_TOSERVER_FIRST/TOCLIENT_FIRST, which
// src/flow-timeout.c: FlowPseudoPacketSetup never sets. Every other type is evaluated: a
// stream rule on the raw stream, a like-IP-only rule (negated address) on the header.
func TestPseudoPacketRuleTypes(t *testing.T) {
	for _, tc := range []struct {
		rule  string
		typ   rules.RuleType
		alert bool // on a pseudo packet with raw stream data "abc"
	}{
		{`alert tcp any any -> any any (content:"abc"; sid:1;)`, rules.TypeStream, true},
		{`alert tcp any any -> any any (content:"abc"; depth:3; sid:2;)`, rules.TypePktStream, true},
		{`alert tcp-pkt any any -> any any (content:"abc"; sid:3;)`, rules.TypePkt, false},
		{`alert tcp any any -> any any (flow:established; sid:4;)`, rules.TypePkt, false},
		{`alert tcp !192.168.0.0/16 any -> any any (msg:"like ip-only"; sid:5;)`, rules.TypeLikeIPOnly, true},
		{`alert tcp 10.0.0.0/8 any -> any any (msg:"ip-only"; sid:6;)`, rules.TypeIPOnly, false},
		// Negated content: it matches the stream without "xyz"; with "abc" in the stream the
		// packet payload fallback gets a NULL buffer, which nothing matches
		// (src/detect-engine-content-inspection.c: DetectEngineContentInspectionInternal).
		{`alert tcp any any -> any any (content:!"xyz"; sid:8;)`, rules.TypeStream, true},
		{`alert tcp any any -> any any (content:!"abc"; sid:9;)`, rules.TypeStream, false},
		// flags sets SIG_FLAG_REQUIRE_PACKET (src/detect-tcp-flags.c), so SigConsolidateTcpBuffer
		// adds no REQUIRE_STREAM: a packet rule.
		{`alert tcp any any -> any any (flags:A; content:"abc"; sid:7;)`, rules.TypePkt, false},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			rs := mustRules(t, tc.rule)
			if got := rs[0].Type(); got != tc.typ {
				t.Fatalf("type %v, want %v", got, tc.typ)
			}
			e, errs, err := Build(rs, Config{})
			if err != nil || len(errs) > 0 {
				t.Fatalf("build: %v %v", err, errs)
			}
			defer e.Close()
			tc2, err := e.NewThreadCtx(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tc2.Close()
			f := flow.NewDetached()
			f.SetPacketEstablished(true)
			p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 80, "")
			p.Source, p.TCPFlags, p.StreamData = decode.SourceStreamFlowTimeout, 0, true
			tc2.SetStream([][]byte{[]byte("abc")}, true, 4, 1)
			e.Inspect(tc2, p, f, flow.ToServer)
			if got := tc2.Queue.Len() == 1; got != tc.alert {
				t.Errorf("alerts %s, want alert %v", fmt.Sprint(tc2.Queue.Entries()), tc.alert)
			}
		})
	}
}

// Which TCP data makes a rule with a pkt_data fast pattern a candidate. Suricata keeps two
// pattern stores per group (src/detect-engine-mpm.c: SignatureHasPacketContent holds
// REQUIRE_PACKET rules, SignatureHasStreamContent REQUIRE_STREAM ones); PrefilterPktPayload
// scans the packet payload with the first, PrefilterPktStream scans the raw stream with the
// second when the packet has stream data to inspect, else the packet payload when the packet
// was not added to the stream (src/detect-engine-payload.c). A candidate then falls back
// from the stream to the payload (DetectEngineInspectRulePayloadMatches), so a stream-only
// rule matches a packet that was not added only if its fast pattern was in the stream.
func TestPrefilterStreamAndPacketStores(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rule       string
		chunks     []string // raw stream data (nil: none)
		added      bool     // PKT_STREAM_ADD
		payload    string
		wantAlert  bool
		wantStream bool // matched on the stream (alert.FlagStreamMatch)
	}{
		{"stream rule, no stream data, lone packet", `alert tcp any any -> any any (content:"abc"; sid:1;)`, nil, false, "abc", true, false},
		{"stream rule, no stream data, added packet", `alert tcp any any -> any any (content:"abc"; sid:1;)`, nil, true, "abc", false, false},
		{"stream rule, stream data, pattern only in payload", `alert tcp any any -> any any (content:"abc"; sid:1;)`, []string{"zzzz"}, false, "abc", false, false},
		{"stream rule, fast pattern in stream, match in payload", `alert tcp any any -> any any (content:"abc"; fast_pattern; content:"xy"; distance:0; sid:1;)`, []string{"abc-"}, false, "abcxy", true, false},
		{"stream rule, match in stream", `alert tcp any any -> any any (content:"abc"; sid:1;)`, []string{"-abc-"}, false, "", true, true},
		{"packet and stream rule, pattern only in payload", `alert tcp any any -> any any (content:"abc"; depth:3; sid:1;)`, []string{"zzzz"}, true, "abc", true, false},
		{"packet rule, stream data", `alert tcp-pkt any any -> any any (content:"abc"; sid:1;)`, []string{"zzzz"}, true, "abc", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, errs, err := Build(mustRules(t, tc.rule), Config{})
			if err != nil || len(errs) > 0 {
				t.Fatalf("build: %v %v", err, errs)
			}
			defer e.Close()
			tctx, err := e.NewThreadCtx(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tctx.Close()
			f := flow.NewDetached()
			f.SetPacketEstablished(true)
			p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 80, tc.payload)
			var chunks [][]byte
			for _, c := range tc.chunks {
				chunks = append(chunks, []byte(c))
			}
			p.StreamData, p.StreamAdded = chunks != nil, tc.added
			tctx.SetStream(chunks, true, 100, 1)
			e.Inspect(tctx, p, f, flow.ToServer)
			ents := tctx.Queue.Entries()
			if got := len(ents) == 1; got != tc.wantAlert {
				t.Fatalf("alerts %v, want alert %v", ents, tc.wantAlert)
			}
			if tc.wantAlert && (ents[0].Flags&alert.FlagStreamMatch != 0) != tc.wantStream {
				t.Errorf("stream match flag %v, want %v", ents[0].Flags&alert.FlagStreamMatch != 0, tc.wantStream)
			}
		})
	}
}
