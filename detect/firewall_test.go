package detect

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// fwHarness runs packets through a firewall-mode engine the way the pipeline's worker does:
// pre_flow hook, flow table, pre_stream hook, then the main run unless the flow is dropped or
// accepted and passed.
type fwHarness struct {
	t     *testing.T
	e     *Engine
	tc    *ThreadCtx
	flows *flow.Table
	// general sends every packet through inspectFirewall, never inspectFirewallQuiet: the
	// reference the quiet path must agree with.
	general bool
}

func newFWHarness(t *testing.T, fwRules, tdRules []string, policy []string) *fwHarness {
	t.Helper()
	return newFWHarnessWith(t, fwRules, tdRules, policy, Config{})
}

// newFWHarnessWith is newFWHarness with engine settings (Firewall and Policies are set).
func newFWHarnessWith(t *testing.T, fwRules, tdRules []string, policy []string, cfg Config) *fwHarness {
	t.Helper()
	var rs []*rules.Rule
	for _, s := range fwRules {
		r, err := rules.ParseWith(s, &rules.ParseOptions{Firewall: true})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		rs = append(rs, r)
	}
	rs = append(rs, mustRules(t, tdRules...)...)
	fc := config.Firewall{PacketFilter: config.DefaultPacketFilterPolicy, PacketPreFlow: config.DefaultPreFlowPolicy,
		PacketPreStream: config.DefaultPreStreamPolicy}
	if policy != nil {
		fc.PacketFilter = policy
	}
	pol, err := firewall.LoadPolicies(&fc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Firewall, cfg.Policies = true, pol
	e, errs, err := Build(rs, cfg)
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	t.Cleanup(e.Close)
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	to := flow.Timeouts{New: time.Minute, Established: time.Minute, Closed: time.Minute}
	return &fwHarness{t: t, e: e, tc: tc, flows: flow.NewTable(flow.Config{TCP: to, UDP: to, ICMP: to, Default: to}, 1024, 0)}
}

// fwResult is what one packet came to.
type fwResult struct {
	verdict string // "accept", "drop" or "none"
	reason  string
	fw, td  []uint32 // logged alerts by sid
}

func (h *fwHarness) packet(p *decode.Packet) (fwResult, *flow.Flow) {
	e, tc := h.e, h.tc
	tc.StartPacket()
	v := &tc.Verdict
	var f *flow.Flow
	dir := flow.ToServer
	if e.HasHook(firewall.TablePreFlow) && e.RunHook(tc, p, nil, dir, firewall.TablePreFlow) {
		v.Drop(alert.ActionDrop, alert.ReasonFWPreFlowHook)
	} else {
		f, dir = h.flows.Packet(p)
		if f != nil && f.Action == flow.ActionDrop {
			r := alert.ReasonFlowDrop
			if f.ByFirewall {
				r = alert.ReasonFWFlowDrop
			}
			v.Drop(alert.ActionDrop, r)
		}
		if f != nil && p.IsTCP() && e.HasHook(firewall.TablePreStream) && e.RunHook(tc, p, f, dir, firewall.TablePreStream) {
			v.Drop(alert.ActionDrop, alert.ReasonFWPreStreamHook)
		}
		switch {
		case f != nil && f.Action == flow.ActionDrop:
		case f != nil && f.Action == flow.ActionPass && f.Accept:
			v.Action |= alert.ActionAccept
		case h.general:
			tc.begin(e, p, f, dir)
			e.inspectFirewall(tc, p, f, dir)
		default:
			e.Inspect(tc, p, f, dir)
		}
	}
	res := fwResult{verdict: "none", reason: v.Reason.String()}
	switch {
	case v.Rejected():
		res.verdict = "reject"
	case v.Dropped():
		res.verdict = "drop"
	case v.Accepted():
		res.verdict = "accept"
	}
	for _, r := range tc.FirewallAlerts() {
		sid := uint32(firewall.PolicySID) // a policy's synthetic rule has no parsed rule
		if r.Src != nil {
			sid = r.Src.SID
		}
		res.fw = append(res.fw, sid)
	}
	for _, en := range tc.Queue.Entries() {
		res.td = append(res.td, e.Rule(en.IID).Src.SID)
	}
	return res, f
}

func udpPacket(src, dst string, sp, dp uint16) *decode.Packet {
	return &decode.Packet{Data: make([]byte, 60), Timestamp: time.Unix(1700000000, 0), IPVersion: 4,
		SrcIP: netip.MustParseAddr(src), DstIP: netip.MustParseAddr(dst), IPProto: decode.ProtoUDP, HasL4: true,
		SrcPort: sp, DstPort: dp, Payload: []byte("payload"), TTL: 64}
}

func TestFirewallVerdicts(t *testing.T) {
	out := func() *decode.Packet { return udpPacket("10.0.0.1", "192.0.2.1", 5000, 53) }
	back := func() *decode.Packet { return udpPacket("192.0.2.1", "10.0.0.1", 53, 5000) }
	tdAlert := `alert udp any any -> any any (msg:"td"; sid:100;)`
	tdDrop := `drop udp any any -> any any (msg:"td drop"; sid:101;)`
	type step struct {
		p    func() *decode.Packet
		want string // verdict/reason/fw sids/td sids
	}
	cases := []struct {
		name   string
		fw, td []string
		policy []string
		steps  []step
		flow   string // the flow record's action at the end
	}{
		{"no firewall rules: default drop:packet, threat detection still logs", nil, []string{tdAlert}, nil,
			[]step{{out, "drop/firewall default packet policy/[]/[100]"}}, ""},
		{"accept:hook then default accept; a td drop drops", []string{`accept:hook udp:all any any -> any any (sid:1;)`}, []string{tdDrop}, nil,
			[]step{{out, "drop/rules/[]/[101]"}}, "drop"}, // an IP-only drop applies to the flow
		{"accept:hook with alert", []string{`accept:hook udp:all any any -> any any (alert; sid:1;)`}, []string{tdAlert}, nil,
			[]step{{out, "accept//[1]/[100]"}}, ""},
		{"accept:packet blocks a later td drop (8.0.6 skip_action_set)", []string{`accept:packet udp:all any any -> any any (sid:1;)`}, []string{tdDrop}, nil,
			[]step{{out, "accept//[]/[101]"}}, ""},
		{"accept:flow: later packets skip the firewall rules", []string{`accept:flow udp:all any any -> any 53 (alert; sid:1;)`}, []string{tdAlert}, nil,
			[]step{{out, "accept//[1]/[100]"}, {back, "accept//[]/[100]"}}, "accept"},
		{"drop:packet,alert ends evaluation", []string{`drop:packet,alert udp:all any any -> any any (sid:2;)`}, []string{tdAlert}, nil,
			[]step{{out, "drop/firewall rules/[2]/[]"}, {back, "drop/firewall rules/[2]/[]"}}, ""},
		{"drop:flow: later packets are firewall flow drops", []string{`drop:flow udp:all any any -> any any (sid:3;)`}, []string{tdAlert}, nil,
			[]step{{out, "drop/firewall rules/[]/[]"}, {back, "drop/firewall flow drop/[]/[]"}}, "drop"},
		{"accept:flow,pass:flow skips threat detection", []string{`accept:flow,pass:flow udp:all any any -> any any (sid:4;)`}, []string{tdAlert}, nil,
			[]step{{out, "accept//[]/[]"}, {back, "accept//[]/[]"}}, "accept"},
		{"rules in file order: the first match decides", []string{
			`accept:hook udp:all any any -> any any (alert; sid:20;)`,
			`drop:packet,alert udp:all any any -> any any (sid:10;)`}, nil, nil,
			[]step{{out, "accept//[20]/[]"}}, ""},
		{"policy drop:packet,alert logs sid 2201000 and skips threat detection", nil, []string{tdAlert}, []string{"drop:packet", "alert"},
			[]step{{out, "drop/firewall default packet policy/[2201000]/[]"}}, ""},
		{"policy accept:packet", nil, []string{tdAlert}, []string{"accept:packet"},
			[]step{{out, "accept//[]/[100]"}}, ""},
		{"policy accept:flow marks the flow", nil, nil, []string{"accept:flow"},
			[]step{{out, "accept//[]/[]"}, {back, "accept//[]/[]"}}, "accept"},
		{"flow_start only sees the first packet of each direction", []string{`accept:hook udp:flow_start any any -> any any (sid:5;)`}, nil, nil,
			[]step{{out, "accept//[]/[]"}, {out, "drop/firewall default packet policy/[]/[]"}, {back, "accept//[]/[]"}}, ""},
		{"td pass:flow passes threat detection, not the firewall", []string{`accept:hook udp:all any any -> any any (sid:1;)`},
			[]string{`pass udp any any -> any any (sid:200;)`, tdDrop}, nil,
			[]step{{out, "accept//[]/[]"}, {back, "accept//[]/[]"}}, "pass"},
		{"td drop:flow replaces nothing set by accept:hook", []string{`accept:hook udp:all any any -> any any (sid:1;)`},
			[]string{`drop:flow udp any any -> any any (sid:300;)`}, nil,
			[]step{{out, "drop/rules/[]/[300]"}, {back, "drop/flow drop/[]/[]"}}, "drop"},
		{"reject:packet", []string{`reject:packet udp:all any any -> any any (sid:8;)`}, []string{tdAlert}, nil,
			[]step{{out, "reject/firewall rules/[]/[]"}}, ""},
		{"rejectboth:flow,alert", []string{`rejectboth:flow,alert udp:all any any -> any any (sid:8;)`}, nil, nil,
			[]step{{out, "reject/firewall rules/[8]/[]"}, {back, "drop/firewall flow drop/[]/[]"}}, "drop"},
		{"policy accept:hook: the app tables' default accept", nil, []string{tdAlert}, []string{"accept:hook"},
			[]step{{out, "accept//[]/[100]"}}, ""},
		{"policy accept:hook,alert logs and accepts", nil, nil, []string{"accept:hook", "alert"},
			[]step{{out, "accept//[2201000]/[]"}}, ""},
		{"policy reject:packet", nil, nil, []string{"reject:packet"},
			[]step{{out, "reject/firewall default packet policy/[]/[]"}}, ""},
		{"pre_flow drop", []string{`drop:packet udp:pre_flow any any -> any 53 (alert; sid:6;)`}, []string{tdAlert}, nil,
			[]step{{out, "drop/firewall pre flow hook/[6]/[]"}}, "-"}, // no flow: dropped before the flow table
		{"pre_flow accept:hook by default accepts the packet before the main run (8.0.6)", []string{
			`drop:packet udp:pre_flow any any -> any 9999 (sid:7;)`, `accept:hook udp:all any any -> any any (sid:1;)`}, []string{tdDrop}, nil,
			[]step{{out, "accept//[]/[101]"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newFWHarness(t, c.fw, c.td, c.policy)
			var f *flow.Flow
			for i, s := range c.steps {
				var res fwResult
				res, f = h.packet(s.p())
				got := fmt.Sprintf("%s/%s/%v/%v", res.verdict, res.reason, res.fw, res.td)
				if got != s.want {
					t.Errorf("packet %d: %s, want %s", i+1, got, s.want)
				}
			}
			if c.flow == "-" {
				if f != nil {
					t.Error("a packet dropped in pre_flow got a flow")
				}
				return
			}
			if f == nil {
				t.Fatal("no flow")
			}
			if got := f.ActionName(); got != c.flow {
				t.Errorf("flow action %q, want %q", got, c.flow)
			}
		})
	}
}

// TestFirewallHeaderOnlyCache: a flow direction decided by a header-only rule keeps that
// rule without evaluating the firewall candidates again, but only when every firewall
// candidate before it depends on the header alone.
func TestFirewallHeaderOnlyCache(t *testing.T) {
	small := func() *decode.Packet { return udpPacket("10.0.0.1", "192.0.2.1", 5000, 53) }
	big := func() *decode.Packet {
		p := udpPacket("10.0.0.1", "192.0.2.1", 5000, 53)
		p.Payload = make([]byte, 200)
		return p
	}
	h := newFWHarness(t, []string{
		`accept:hook udp:all any any -> any 53 (dsize:>100; alert; sid:1;)`,
		`drop:packet,alert udp:all any any -> any any (sid:2;)`,
	}, nil, nil)
	for i, c := range []struct {
		p    func() *decode.Packet
		want string
	}{{small, "drop/firewall rules/[2]/[]"}, {small, "drop/firewall rules/[2]/[]"}, {big, "accept//[1]/[]"}, {small, "drop/firewall rules/[2]/[]"}} {
		res, f := h.packet(c.p())
		if got := fmt.Sprintf("%s/%s/%v/%v", res.verdict, res.reason, res.fw, res.td); got != c.want {
			t.Errorf("packet %d: %s, want %s", i+1, got, c.want)
		}
		if h.tc.flows.at(f, h.e).broad[flow.ToServer].fwFirst != 0 {
			t.Errorf("packet %d: cached a rule behind a dsize rule", i+1)
		}
	}
	h = newFWHarness(t, []string{
		`accept:hook udp:all any any -> any 53 (alert; sid:1;)`,
		`drop:packet,alert udp:all any any -> any any (sid:2;)`,
	}, []string{`alert udp any any -> any any (dsize:>0; sid:100;)`}, nil)
	for i := range 4 {
		res, f := h.packet(small())
		if got := fmt.Sprintf("%s/%s/%v/%v", res.verdict, res.reason, res.fw, res.td); got != "accept//[1]/[100]" {
			t.Errorf("packet %d: %s", i+1, got)
		}
		if c := h.tc.flows.at(f, h.e).broad[flow.ToServer].fwFirst; c == 0 || h.e.Rule(c-1).Src.SID != 1 {
			t.Errorf("packet %d: cached %d, want sid 1's iid", i+1, c)
		}
	}
}

func TestFirewallPreStream(t *testing.T) {
	h := newFWHarness(t, []string{
		`drop:packet tcp:pre_stream any any -> any 23 (alert; sid:1;)`,
		`accept:hook tcp:all any any -> any any (sid:2;)`,
	}, []string{`drop tcp any any -> any any (content:"x"; sid:100;)`}, nil)
	// pre_stream drops telnet before the main run. In 8.0.6 the hook's rules also sit in the
	// main rule groups, so the main run meets sid 1 again: it drops (and alerts) once more and
	// ends the walk before threat detection. Other TCP packets get the hook's accept:hook policy
	// as final, which accepts them before threat detection, so the td drop rule alerts without
	// dropping.
	res, _ := h.packet(tcpPacket("10.0.0.1", "192.0.2.1", 4000, 23, "x"))
	if got := fmt.Sprintf("%s/%s/%v/%v", res.verdict, res.reason, res.fw, res.td); got != "drop/firewall pre stream hook/[1 1]/[]" {
		t.Errorf("telnet: %s", got)
	}
	res, _ = h.packet(tcpPacket("10.0.0.1", "192.0.2.1", 4000, 80, "x"))
	if got := fmt.Sprintf("%s/%s/%v/%v", res.verdict, res.reason, res.fw, res.td); got != "accept//[]/[100]" {
		t.Errorf("web: %s", got)
	}
}

func TestFirewallAlertRecordFields(t *testing.T) {
	h := newFWHarness(t, []string{`drop:flow,alert udp:all any any -> any 53 (msg:"dns"; sid:9;)`}, []string{`alert udp any any -> any 1 (sid:100;)`}, nil)
	r := h.e.Rules()[0]
	if hook, policy, ok := r.Firewall(); !ok || hook != "packet:filter" || policy != "drop:flow,alert" || r.Action&alert.ActionDrop == 0 {
		t.Errorf("fw rule: %q %q %v action %v", hook, policy, ok, r.Action)
	}
	if _, _, ok := h.e.Rules()[1].Firewall(); ok {
		t.Errorf("td rule reports a firewall hook")
	}
}

func TestFirewallRuleOrderIsFileOrder(t *testing.T) {
	h := newFWHarness(t, []string{
		`accept:hook udp:all any any -> any any (priority:4; sid:30;)`,
		`drop:packet tcp:all any any -> any 23 (priority:1; sid:10;)`,
		`accept:packet udp:pre_flow any any -> any any (sid:40;)`,
		`accept:hook icmp:all any any -> any any (sid:20;)`,
	}, []string{`pass udp any any -> any any (sid:1;)`, `alert udp any any -> any any (sid:2;)`}, nil)
	var sids []string
	for _, r := range h.e.Rules() {
		sids = append(sids, fmt.Sprint(r.Src.SID))
	}
	// Firewall packet rules in file order whatever their hook (the alert walk orders matches
	// by table), then threat detection.
	if got := strings.Join(sids, " "); got != "30 10 40 20 1 2" {
		t.Errorf("order %s", got)
	}
}

func TestFirewallAppHookRefused(t *testing.T) {
	// SNMP has no parser yet (HTTP/1 has one: detect/txtest tests its hooks).
	r, err := rules.ParseWith(`accept:hook snmp:request_complete any any -> any any (sid:1;)`, &rules.ParseOptions{Firewall: true})
	if err != nil {
		t.Fatal(err)
	}
	_, errs, err := Build([]*rules.Rule{r}, Config{Firewall: true})
	if err != nil || len(errs) != 1 || !strings.Contains(errs[0].Error(), "app-layer hook snmp:request_complete is not supported yet") {
		t.Fatalf("errs %v err %v", errs, err)
	}
}

func TestFirewallNoAllocs(t *testing.T) {
	h := newFWHarness(t, []string{`accept:hook udp:all any any -> any 53 (sid:1;)`, `drop:packet udp:all any any -> any 9 (sid:2;)`},
		[]string{`alert udp any any -> any any (content:"zzz"; sid:100;)`}, nil)
	p := udpPacket("10.0.0.1", "192.0.2.1", 5000, 53)
	h.packet(p)
	if n := testing.AllocsPerRun(200, func() { h.packet(p) }); n != 0 {
		t.Errorf("%.1f allocations per accepted packet without alert", n)
	}
}

// TestFirewallReviewCases pins cases found in review against Suricata 8.0.6's code.
func TestFirewallReviewCases(t *testing.T) {
	dns := func() *decode.Packet { return udpPacket("10.0.0.1", "192.0.2.1", 5000, 53) }
	t.Run("a matching config rule is not cached away", func(t *testing.T) {
		h := newFWHarness(t, []string{
			`config:packet,pass:packet udp:all any any -> any any (sid:1;)`,
			`accept:hook udp:all any any -> any 53 (sid:2;)`,
		}, []string{`drop udp any any -> any any (content:"payload"; sid:100;)`}, nil)
		for i := range 3 {
			res, _ := h.packet(dns())
			// pass:packet skips threat detection on every packet.
			if got := fmt.Sprintf("%s/%v", res.verdict, res.td); got != "accept/[]" {
				t.Errorf("packet %d: %s", i+1, got)
			}
		}
	})
	t.Run("IP-only rules still run in a passed flow", func(t *testing.T) {
		h := newFWHarness(t, []string{`accept:hook tcp:all any any <> any any (sid:1;)`},
			[]string{`pass:flow tcp any any -> any 80 (flags:S; sid:10;)`, `alert ip any any -> any any (sid:20;)`}, nil)
		syn := tcpPacket("10.0.0.1", "192.0.2.1", 4000, 80, "")
		syn.TCPFlags = decode.TCPFlagSYN
		synack := tcpPacket("192.0.2.1", "10.0.0.1", 80, 4000, "")
		synack.TCPFlags = decode.TCPFlagSYN | decode.TCPFlagACK
		h.packet(syn)
		if res, _ := h.packet(synack); fmt.Sprint(res.td) != "[20]" {
			t.Errorf("syn/ack: td alerts %v, want [20]", res.td)
		}
	})
	t.Run("flow_start does not limit a rule with a fast pattern", func(t *testing.T) {
		h := newFWHarness(t, []string{
			`drop:packet,alert tcp:flow_start any any -> any any (content:"evil"; sid:1;)`,
			`accept:hook tcp:all any any <> any any (sid:2;)`,
		}, nil, nil)
		h.packet(tcpPacket("10.0.0.1", "192.0.2.1", 4000, 80, "hello"))
		res, _ := h.packet(tcpPacket("10.0.0.1", "192.0.2.1", 4000, 80, "evil"))
		if got := fmt.Sprintf("%s/%v", res.verdict, res.fw); got != "drop/[1]" {
			t.Errorf("second packet: %s, want drop/[1]", got)
		}
	})
}

// TestFirewallQuietPathMatchesGeneral: packets that take inspectFirewallQuiet (a direction
// decided by a quiet accept:hook rule, or no firewall rules under a quiet accept:hook policy)
// come to the same verdicts, alerts and flow actions as through inspectFirewall.
func TestFirewallQuietPathMatchesGeneral(t *testing.T) {
	pkt := func(src, dst string, sp, dp uint16, payload string) func() *decode.Packet {
		return func() *decode.Packet {
			p := udpPacket(src, dst, sp, dp)
			p.Payload = []byte(payload)
			return p
		}
	}
	out := pkt("10.0.0.1", "192.0.2.1", 5000, 53, "hello")
	back := pkt("192.0.2.1", "10.0.0.1", 53, 5000, "hello")
	dropMe := pkt("10.0.0.1", "192.0.2.1", 5000, 53, "drop-me")
	passMe := pkt("192.0.2.1", "10.0.0.1", 53, 5000, "pass-me")
	other := pkt("10.0.0.2", "192.0.2.9", 6000, 9999, "x")
	// A flow passed by an IP-only pass rule: threat detection is skipped for the rest of it.
	passedOut := pkt("10.0.0.1", "192.0.2.5", 5000, 53, "hello")
	passedBack := pkt("192.0.2.5", "10.0.0.1", 53, 5000, "hello")
	td := []string{
		`alert udp any any -> any any (msg:"td"; content:"hello"; sid:100;)`,
		`drop udp any any -> any 53 (content:"drop-me"; sid:101;)`,
		`pass udp any 53 -> any any (content:"pass-me"; sid:102;)`,
		`alert ip 10.0.0.1 any -> any any (msg:"ip-only"; sid:103;)`,
		`drop udp any any -> any 9999 (msg:"flow drop"; sid:104;)`,
		`pass ip any any -> 192.0.2.5 any (msg:"pass the flow"; sid:105;)`,
	}
	sequences := [][]func() *decode.Packet{
		{out, back, out, back, out},
		{out, back, dropMe, out, back},
		{out, passMe, out, back, out},
		{other, other, out, other},
		{passedOut, passedBack, passedOut, passedBack},
	}
	configs := []struct {
		name   string
		fw     []string
		policy []string
	}{
		{"no firewall rules, accept:hook policy", nil, []string{"accept:hook"}},
		{"quiet accept:hook rule", []string{`accept:hook udp:all any any -> any any (sid:1;)`}, nil},
		{"quiet accept:hook after a flow_start rule", []string{
			`accept:hook udp:flow_start any any -> any 53 (sid:2;)`, `accept:hook ip:all any any -> any any (sid:1;)`}, nil},
		{"accept:hook with alert (not quiet)", []string{`accept:hook udp:all any any -> any any (alert; sid:1;)`}, nil},
	}
	for _, c := range configs {
		for i, seq := range sequences {
			quick := newFWHarness(t, c.fw, td, c.policy)
			ref := newFWHarness(t, c.fw, td, c.policy)
			ref.general = true
			for k, p := range seq {
				got, gf := quick.packet(p())
				want, wf := ref.packet(p())
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s, sequence %d, packet %d: %+v, through inspectFirewall %+v", c.name, i, k+1, got, want)
				}
				if (gf == nil) != (wf == nil) || gf != nil && gf.ActionName() != wf.ActionName() {
					t.Errorf("%s, sequence %d, packet %d: flow actions differ", c.name, i, k+1)
				}
			}
		}
	}
	// The quiet path is taken: without it the test above compares a path with itself.
	h := newFWHarness(t, nil, td, []string{"accept:hook"})
	if !h.e.fw.quietNoFW {
		t.Error("no firewall rules under accept:hook: quietNoFW not set")
	}
	h = newFWHarness(t, []string{`accept:hook udp:all any any -> any any (sid:1;)`}, td, nil)
	h.packet(out())
	pk := out()
	f, dir := h.flows.Packet(pk)
	h.tc.begin(h.e, pk, f, dir)
	if !h.e.quietFirewall(h.tc, pk, f, dir) {
		t.Error("a direction decided by a quiet accept:hook rule does not take the quiet path")
	}
}

// TestFirewallWitnessesMatchNoIndex: firewall policies made of header-only rules (flags,
// dsize, ttl ...) give the same verdicts, reasons and alerts with the header witness index as
// without it, over flows whose packets change the witnesses' values (a SYN, then data), so a
// firewall direction's cached deciding rule never hides a witnessed rule before it.
func TestFirewallWitnessesMatchNoIndex(t *testing.T) {
	fw := []string{
		`drop:packet tcp:all any any -> any 23 (flags:S; msg:"telnet syn"; alert; sid:1;)`,
		`accept:hook tcp:all any any -> any 22 (flags:S; sid:2;)`,
		`drop:packet tcp:all any any -> any any (dsize:>1000; alert; sid:3;)`,
		`accept:hook tcp:all any any -> any any (ttl:<10; alert; sid:4;)`,
		`accept:hook tcp:all any any -> any [22,23,80] (sid:5;)`,
		`accept:hook udp:all any any -> any 53 (dsize:<512; sid:6;)`,
		`accept:hook icmp:all any any -> any any (itype:8; sid:7;)`,
	}
	td := []string{`alert tcp any any -> any any (flags:S; msg:"syn"; sid:100;)`, `alert udp any any -> any 53 (dsize:>100; sid:101;)`}
	tcp := func(dp uint16, flags uint8, ttl uint8, n int) func() *decode.Packet {
		return func() *decode.Packet {
			p := tcpPacket("10.0.0.1", "192.0.2.1", 4000, dp, strings.Repeat("x", n))
			p.TCPFlags, p.TTL = flags, ttl
			return p
		}
	}
	udp := func(n int) func() *decode.Packet {
		return func() *decode.Packet {
			p := udpPacket("10.0.0.1", "192.0.2.1", 5000, 53)
			p.Payload = make([]byte, n)
			return p
		}
	}
	ack, syn := decode.TCPFlagACK, decode.TCPFlagSYN
	sequences := [][]func() *decode.Packet{
		{tcp(80, ack, 64, 10), tcp(80, syn, 64, 0), tcp(80, ack, 5, 10), tcp(80, ack, 64, 2000), tcp(80, ack, 64, 1)},
		{tcp(22, syn, 64, 0), tcp(22, ack, 64, 10), tcp(22, ack, 64, 10), tcp(22, syn, 64, 0)},
		{tcp(23, ack, 64, 5), tcp(23, syn, 64, 0), tcp(23, ack, 64, 5)},
		{tcp(9999, ack, 64, 5), tcp(9999, ack, 5, 5), tcp(9999, syn, 64, 0)},
		{udp(10), udp(600), udp(200), udp(10)},
	}
	for i, seq := range sequences {
		with := newFWHarnessWith(t, fw, td, nil, Config{})
		without := newFWHarnessWith(t, fw, td, nil, Config{NoHeaderIndex: true})
		for k, p := range seq {
			got, _ := with.packet(p())
			want, _ := without.packet(p())
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("sequence %d, packet %d: %+v with witnesses, %+v without", i, k+1, got, want)
			}
		}
	}
}
