package txtest_test

import (
	"testing"

	"github.com/meerkat-ids/meerkat/alert"
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
