package txtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// fwVerdict is one packet's firewall outcome.
type fwVerdict struct {
	dropped, accepted bool
	reason            alert.DropReason
}

// fwStep sends data and expects a verdict and the firewall alerts' sids.
type fwStep struct {
	dir    uint8
	data   string
	want   fwVerdict
	alerts []uint32
}

func buildFW(t *testing.T, pol *firewall.Policies, texts ...string) *detect.Engine {
	t.Helper()
	var rs []*rules.Rule
	for _, s := range texts {
		r, err := rules.ParseWith(s, &rules.ParseOptions{Firewall: true})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		rs = append(rs, r)
	}
	e, errs, err := detect.Build(rs, detect.Config{Firewall: true, Policies: pol})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	t.Cleanup(e.Close)
	return e
}

// TestFirewallAppHooks: the app:filter table per tx and hook (reference
// suricata-dns-tls-applayer.md §4.3). Expected verdicts follow suricata-verify's
// ruletype-firewall-19-http-per-hook (a hook without an accepting rule gets drop:flow,
// reason default_app_policy), -21-http-accept-tx (accept:tx accepts the rest of the tx in
// both directions), -27-http-drop-rule (a drop rule drops at once, reason rules) and
// -91-lt-ua (<hook accepts the earlier states while they last).
func TestFirewallAppHooks(t *testing.T) {
	pkt := `accept:hook tcp:all any any -> any any (sid:100;)`
	accept := fwVerdict{accepted: true}
	policyDrop := fwVerdict{dropped: true, reason: alert.ReasonFWDefaultAppPolicy}
	cases := []struct {
		name  string
		rules []string
		steps []fwStep
	}{
		{"missing hook drops the flow", []string{pkt,
			`accept:hook http1:request_started any any -> any any (alert; sid:101;)`,
			`accept:hook http1:request_line any any -> any any (http.method; content:"POST"; alert; sid:102;)`},
			[]fwStep{{0, "GET /a\n", policyDrop, []uint32{101}}}},
		{"every request hook accepted", []string{pkt,
			`accept:hook http1:request_started any any -> any any (sid:101;)`,
			`accept:hook http1:request_line any any -> any any (http.method; content:"GET"; alert; sid:102;)`,
			`accept:hook http1:request_headers any any -> any any (alert; sid:103;)`},
			[]fwStep{{0, "GET /a\n", accept, []uint32{102}}, {0, "Host: x\n", accept, []uint32{103}},
				// request_body has no rule: drop:flow; 103 matches once more as the tx passes
				// its hook (§4.3, ruletype-firewall-15-state-keyword).
				{0, "\n", policyDrop, []uint32{103}}}},
		{"accept:tx covers the response", []string{pkt,
			`accept:hook http1:request_started any any -> any any (sid:101;)`,
			`accept:tx http1:request_line any any -> any any (http.method; content:"GET"; alert; sid:102;)`},
			[]fwStep{{0, "GET /a\n\n.\n", accept, []uint32{102}}, {1, "HTTP/1.1 200 OK\n\n.\n", accept, nil}}},
		{"drop rule", []string{pkt,
			`accept:hook http1:request_started any any -> any any (sid:101;)`,
			`drop:flow http1:request_line any any -> any any (alert; sid:999;)`,
			`accept:hook http1:request_line any any -> any any (sid:102;)`},
			[]fwStep{{0, "GET /a\n", fwVerdict{dropped: true, reason: alert.ReasonFWRules}, []uint32{999}}}},
		{"<hook accepts earlier states", []string{pkt,
			`accept:tx http1:<request_headers any any -> any any (http.header; content:"curl"; alert; sid:9999;)`},
			[]fwStep{{0, "GET /a\n", accept, nil}, {0, "User-Agent: curl\n\n", accept, []uint32{9999}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := buildFW(t, nil, c.rules...)
			cn := newConn(t, e)
			for i, s := range c.steps {
				cn.tc.StartPacket()
				cn.send(uint8dir(s.dir), s.data)
				v := cn.tc.Verdict
				got := fwVerdict{dropped: v.Dropped(), accepted: v.Accepted() && !v.Dropped(), reason: v.Reason}
				if got != s.want {
					t.Errorf("step %d: verdict %+v, want %+v", i, got, s.want)
				}
				var sids []uint32
				for _, r := range cn.tc.FirewallAlerts() {
					sids = append(sids, r.Src.SID)
				}
				if len(sids) != len(s.alerts) || len(sids) > 0 && sids[0] != s.alerts[0] {
					t.Errorf("step %d: firewall alerts %v, want %v", i, sids, s.alerts)
				}
			}
		})
	}
}

func uint8dir(d uint8) flow.Direction {
	if d == 0 {
		return ts
	}
	return tc
}

// fwSID names a firewall alert's rule: its sid, or the policy rule's.
func fwSID(r *detect.Rule) uint32 {
	if r.Src == nil {
		sid, _ := r.PolicyAlert()
		return sid
	}
	return r.Src.SID
}

// TestFirewallAppPolicies: the default app policies (reference §4.4, DoParseAppPolicy):
// keyed by the state name with dashes under "http" (8.0) or "http1" (grouped layout), the
// generic request-started/... names for the first and the completion state, and an alert
// action gives sid 2201001 with hook "http:<state>". Expectations follow suricata-verify's
// ruletype-firewall-70-config-default-policy-http (request-line accept:hook lets the flow
// through with rules for the other states) and -104-default-app-policy-missed-rule-alert.
func TestFirewallAppPolicies(t *testing.T) {
	pkt := `accept:hook tcp:all any any -> any any (sid:100;)`
	load := func(app map[string]map[string][]string) *firewall.Policies {
		ps, err := firewall.LoadPolicies(&config.Firewall{PacketFilter: config.DefaultPacketFilterPolicy,
			PacketPreFlow: config.DefaultPreFlowPolicy, PacketPreStream: config.DefaultPreStreamPolicy, App: app})
		if err != nil {
			t.Fatal(err)
		}
		return ps
	}
	cases := []struct {
		name    string
		app     map[string]map[string][]string
		rules   []string
		data    string
		want    fwVerdict
		alerts  []uint32
		polHook string // the first policy rule's hook, "" for none
	}{
		{"flat key accepts request_line", map[string]map[string][]string{"http": {"request-line": {"accept:hook"}}},
			[]string{pkt, `accept:hook http1:request_started any any -> any any (sid:101;)`,
				`accept:hook http1:request_headers any any -> any any (sid:103;)`},
			"GET /a\nHost: x\n", fwVerdict{accepted: true}, nil, ""},
		{"without the policy request_line drops", nil,
			[]string{pkt, `accept:hook http1:request_started any any -> any any (sid:101;)`,
				`accept:hook http1:request_headers any any -> any any (sid:103;)`},
			"GET /a\nHost: x\n", fwVerdict{dropped: true, reason: alert.ReasonFWDefaultAppPolicy}, nil, ""},
		{"grouped generic key with alert", map[string]map[string][]string{"http1": {"request-started": {"accept:hook", "alert"}}},
			[]string{pkt}, "GET /a\n", fwVerdict{dropped: true, reason: alert.ReasonFWDefaultAppPolicy},
			[]uint32{firewall.PolicyAppSID}, "http:request_started"},
		{"drop policy with alert", map[string]map[string][]string{"http": {"request-started": {"drop:flow", "alert"}}},
			[]string{pkt}, "GET /a\n", fwVerdict{dropped: true, reason: alert.ReasonFWDefaultAppPolicy},
			[]uint32{firewall.PolicyAppSID}, "http:request_started"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := buildFW(t, load(c.app), c.rules...)
			var hook string
			for _, r := range e.PolicyRules() {
				if r != nil {
					if sid, _ := r.PolicyAlert(); sid == firewall.PolicyAppSID {
						hook, _, _ = r.Firewall()
						break
					}
				}
			}
			if hook != c.polHook {
				t.Errorf("policy rule hook %q, want %q", hook, c.polHook)
			}
			cn := newConn(t, e)
			cn.tc.StartPacket()
			cn.send(ts, c.data)
			v := cn.tc.Verdict
			got := fwVerdict{dropped: v.Dropped(), accepted: v.Accepted() && !v.Dropped(), reason: v.Reason}
			if got != c.want {
				t.Errorf("verdict %+v, want %+v", got, c.want)
			}
			var sids []uint32
			for _, r := range cn.tc.FirewallAlerts() {
				sids = append(sids, fwSID(r))
			}
			if fmt.Sprint(sids) != fmt.Sprint(c.alerts) {
				t.Errorf("firewall alerts %v, want %v", sids, c.alerts)
			}
		})
	}
}

// TestFirewallAppHookLoad: a hook rule's buffers must sit at its hook
// (SigValidateCheckBuffers: "engine progress value ... doesn't match hook"); a hook the
// protocol's parser does not name is refused as not supported.
func TestFirewallAppHookLoad(t *testing.T) {
	cases := []struct{ rule, err string }{
		{`accept:hook http1:request_line any any -> any any (http.method; content:"GET"; sid:1;)`, ""},
		{`accept:hook http1:request_started any any -> any any (http.method; content:"GET"; sid:1;)`, "doesn't match hook"},
		{`accept:hook tls:client_hello_done any any -> any any (sid:1;)`, "app-layer hook tls:client_hello_done is not supported yet"},
		{`alert http1:request_headers any any -> any any (sid:1;)`, ""},
	}
	for _, c := range cases {
		r, err := rules.ParseWith(c.rule, &rules.ParseOptions{Firewall: strings.HasPrefix(c.rule, "accept")})
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		e, errs, err := detect.Build([]*rules.Rule{r}, detect.Config{Firewall: true})
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		switch {
		case c.err == "" && len(errs) > 0:
			t.Errorf("%s: %v", c.rule, errs)
		case c.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.err)):
			t.Errorf("%s: errors %v, want %q", c.rule, errs, c.err)
		}
	}
}

// fuzzFWRules are firewall app rules of every kind (hook-only, buffers, <hook, accept:tx,
// drop) with threat-detection tx rules after them.
var fuzzFWRules = []string{
	`accept:hook tcp:all any any -> any any (sid:100;)`,
	`accept:hook http1:request_started any any -> any any (alert; sid:101;)`,
	`accept:hook http1:request_line any any -> any any (http.method; content:"GET"; alert; sid:102;)`,
	`drop:flow http1:request_line any any -> any any (http.method; content:"P"; alert; sid:103;)`,
	`accept:tx http1:<request_headers any any -> any any (http.header; content:"A"; sid:104;)`,
	`accept:hook http1:request_headers any any -> any any (sid:105;)`,
	`accept:hook http1:response_started any any -> any any (sid:201;)`,
	`accept:flow http1:response_line any any -> any any (http.stat_code; content:"2"; alert; sid:202;)`,
}

// FuzzFirewallApp feeds hostile traffic (the FuzzTxInspect input format) to firewall mode's
// app tables. Detection must not panic, a packet from the wire must end accepted or dropped
// (fail closed, DetectRunPostRules), and a flow the firewall dropped stays dropped.
func FuzzFirewallApp(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	var rs []*rules.Rule
	for _, s := range fuzzFWRules {
		r, err := rules.ParseWith(s, &rules.ParseOptions{Firewall: true})
		if err != nil {
			f.Fatal(err)
		}
		rs = append(rs, r)
	}
	for _, s := range fuzzRules {
		r, err := rules.Parse(s)
		if err != nil {
			f.Fatal(err)
		}
		rs = append(rs, r)
	}
	e, errs, err := detect.Build(rs, detect.Config{Firewall: true})
	if err != nil || len(errs) > 0 {
		f.Fatal(err, errs)
	}
	f.Cleanup(e.Close)
	f.Fuzz(func(t *testing.T, in []byte) {
		c := newConn(t, e)
		for len(in) >= 2 {
			op, n := in[0], int(in[1])
			in = in[2:]
			n = min(n, len(in))
			data := in[:n]
			in = in[n:]
			dir := flow.Direction(op & 1)
			c.free = op&8 != 0
			c.st.Parse(dir, data, 0)
			c.fa.Updated[dir] = len(data) > 0 || op&2 != 0
			p := packet(dir, string(data))
			dropped := c.f.Action == flow.ActionDrop
			c.tc.StartPacket()
			c.inspect(p, dir, applayer.GetCtx{EOF: op&4 != 0})
			v := c.tc.Verdict
			if !v.Accepted() && !v.Dropped() {
				t.Fatalf("packet neither accepted nor dropped: %+v", v)
			}
			if dropped && c.f.Action != flow.ActionDrop {
				t.Fatalf("a dropped flow was undropped")
			}
		}
	})
}

// BenchmarkFirewallApp is BenchmarkTxInspect's packet (a request tx at its body, updated on
// every packet) in firewall mode with an HTTP/1 policy of hook rules in front of the same
// kind of threat-detection rules: the cost of the app:filter walk per packet, which must
// allocate nothing.
func BenchmarkFirewallApp(b *testing.B) {
	texts := []string{`accept:hook tcp:all any any -> any any (sid:100;)`,
		`accept:hook http1:request_started any any -> any any (sid:101;)`,
		`accept:hook http1:request_line any any -> any any (http.method; content:"GET"; sid:102;)`,
		`accept:hook http1:request_headers any any -> any any (sid:103;)`,
		`accept:hook http1:request_body any any -> any any (sid:104;)`}
	var rs []*rules.Rule
	for _, s := range texts {
		r, err := rules.ParseWith(s, &rules.ParseOptions{Firewall: true})
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, r)
	}
	for i := 0; i < 200; i++ {
		r, err := rules.Parse(fmt.Sprintf(`alert http any any -> any any (http.uri; content:"/p%d"; sid:%d;)`, i, i+1000))
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, r)
	}
	e, errs, err := detect.Build(rs, detect.Config{Firewall: true})
	if err != nil || len(errs) > 0 {
		b.Fatal(err, errs)
	}
	b.Cleanup(e.Close)
	c := newConn(b, e)
	c.tc.StartPacket()
	c.send(ts, "GET /index\nHost: a\nUser-Agent: b\n\nsome body\n")
	p := packet(ts, "more body")
	b.ReportAllocs()
	for b.Loop() {
		c.st.txs[0].td.Updated[ts] = true
		c.fa.Updated[ts] = true
		c.tc.StartPacket()
		c.inspect(p, ts, applayer.GetCtx{})
		if !c.tc.Verdict.Accepted() {
			b.Fatalf("verdict %+v", c.tc.Verdict)
		}
	}
}

// TestFirewallAppTDOrder: the alert walk takes app:filter before app:td
// (AlertQueueSortHelperFirewall), so an app:filter drop ends the walk before the tx's
// threat-detection match (PacketAlertFinalizeProcessQueue's fw_dropped), while with an
// accept the threat-detection alert is logged (ruletype-firewall-22-http-accept-tx-with-td).
func TestFirewallAppTDOrder(t *testing.T) {
	td := `alert http any any -> any any (http.method; content:"GET"; sid:7;)`
	cases := []struct {
		name     string
		fw       string
		dropped  bool
		fwAlerts []uint32
		tdAlerts []string
	}{
		{"drop", `drop:flow http1:request_line any any -> any any (alert; sid:999;)`, true, []uint32{999}, nil},
		{"accept", `accept:tx http1:request_line any any -> any any (alert; sid:102;)`, false, []uint32{102}, []string{"7/0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rs []*rules.Rule
			for _, s := range []string{`accept:hook tcp:all any any -> any any (sid:100;)`,
				`accept:hook http1:request_started any any -> any any (sid:101;)`, c.fw} {
				r, err := rules.ParseWith(s, &rules.ParseOptions{Firewall: true})
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			r, err := rules.Parse(td)
			if err != nil {
				t.Fatal(err)
			}
			e, errs, err := detect.Build(append(rs, r), detect.Config{Firewall: true})
			if err != nil || len(errs) > 0 {
				t.Fatal(err, errs)
			}
			t.Cleanup(e.Close)
			cn := newConn(t, e)
			cn.tc.StartPacket()
			got := cn.send(ts, "GET /a\n")
			if cn.tc.Verdict.Dropped() != c.dropped {
				t.Errorf("dropped %v, want %v", cn.tc.Verdict.Dropped(), c.dropped)
			}
			var sids []uint32
			for _, r := range cn.tc.FirewallAlerts() {
				sids = append(sids, fwSID(r))
			}
			if fmt.Sprint(sids) != fmt.Sprint(c.fwAlerts) || fmt.Sprint(got) != fmt.Sprint(c.tdAlerts) {
				t.Errorf("alerts fw %v td %v, want %v %v", sids, got, c.fwAlerts, c.tdAlerts)
			}
		})
	}
}

// TestFirewallSkipFlowInspectID: a flow accepted and passed is not inspected, but its
// inspect ids move past complete txs (DetectFlow), so the app layer can free them.
func TestFirewallSkipFlowInspectID(t *testing.T) {
	e := buildFW(t, nil, `accept:flow,pass:flow http1:request_started any any -> any any (sid:1;)`)
	c := newConn(t, e)
	c.f.Action, c.f.Accept = flow.ActionPass, true
	c.st.Parse(ts, []byte("GET /\n\n.\nGET /2\n"), 0)
	c.tc.SetApp(&c.fa, applayer.GetCtx{})
	e.SkipFlow(c.tc, packet(ts, "x"), c.f, ts)
	if c.fa.InspectID[ts] != 1 {
		t.Errorf("inspect id %d, want 1", c.fa.InspectID[ts])
	}
}
