package firewall

import (
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/rules"
)

func TestParsePolicy(t *testing.T) {
	cases := []struct {
		in     []string
		action alert.Action
		scope  rules.Scope
		str    string
		err    string
	}{
		{[]string{"drop:packet"}, alert.ActionDrop, rules.ScopePacket, "drop:packet", ""},
		{[]string{"drop:packet", "alert"}, alert.ActionDrop | alert.ActionAlert, rules.ScopePacket, "drop:packet,alert", ""},
		{[]string{"drop:flow"}, alert.ActionDrop, rules.ScopeFlow, "drop:flow", ""},
		{[]string{"reject:packet"}, alert.ActionReject | alert.ActionDrop, rules.ScopePacket, "rejectsrc:packet", ""},
		{[]string{"rejectboth:packet"}, alert.ActionRejectBoth | alert.ActionDrop, rules.ScopePacket, "rejectboth:packet", ""},
		{[]string{"accept:hook"}, alert.ActionAccept, rules.ScopeHook, "accept:hook", ""},
		{[]string{"accept:hook", "alert"}, alert.ActionAccept | alert.ActionAlert, rules.ScopeHook, "accept:hook,alert", ""},
		{[]string{"accept:flow", "pass:flow"}, alert.ActionAccept | alert.ActionPass, rules.ScopeFlow, "accept:flow,pass:flow", ""},
		{[]string{"accept:tx"}, alert.ActionAccept, rules.ScopeTx, "accept:tx", ""},
		{nil, 0, 0, "", "empty policy"},
		{[]string{"alert"}, 0, 0, "", "primary action"},
		{[]string{"drop"}, 0, 0, "", "explicit action scope"},
		{[]string{"accept:hook", "pass:flow"}, 0, 0, "", "different action scopes"},
		{[]string{"accept:hook", "drop:packet"}, 0, 0, "", "secondary action"},
		{[]string{"accept:sometimes"}, 0, 0, "", "invalid action scope"},
		{[]string{"allow:packet"}, 0, 0, "", "invalid action"},
	}
	for _, c := range cases {
		p, err := ParsePolicy(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if p.Action != c.action || p.Scope != c.scope || p.String() != c.str {
			t.Errorf("%q: %02x %v %q, want %02x %v %q", c.in, p.Action, p.Scope, p.String(), c.action, c.scope, c.str)
		}
	}
}

func TestLoadPoliciesBothLayouts(t *testing.T) {
	cases := []struct {
		name, yaml string
		filter     string
		preFlow    string
		app        string // proto/state=policy of one app entry, "" for none
		err        string
	}{
		{"defaults", "firewall:\n  enabled: yes\n", "drop:packet", "accept:hook", "", ""},
		{"8.0 flat keys", "firewall:\n  policies:\n    packet-filter: [\"drop:packet\", \"alert\"]\n    packet-pre-flow: [\"accept:hook\"]\n    http:\n      request-line: [\"drop:flow\", \"alert\"]\n",
			"drop:packet,alert", "accept:hook", "http/request-line=drop:flow,alert", ""},
		{"grouped keys", "firewall:\n  policies:\n    packet:\n      filter: [\"accept:packet\"]\n      pre-flow: [\"accept:hook\"]\n    app:\n      tls:\n        client-in-progress: [\"accept:flow\"]\n",
			"accept:packet", "accept:hook", "tls/client-in-progress=accept:flow", ""},
		{"bad packet policy", "firewall:\n  policies:\n    packet-filter: [\"alert\"]\n", "", "", "", "packet-filter"},
		{"accept:tx is no packet policy", "firewall:\n  policies:\n    packet:\n      filter: [\"accept:tx\"]\n", "", "", "", "accept:tx is not a packet policy"},
		{"bad app policy", "firewall:\n  policies:\n    dns:\n      request-started: [\"drop\"]\n", "", "", "", "dns.request-started"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := config.Parse("test.yaml", []byte("%YAML 1.1\n---\n"+c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			st, err := cfg.Settings()
			if err != nil {
				t.Fatal(err)
			}
			ps, err := LoadPolicies(&st.Firewall)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ps.PacketFilter.String() != c.filter || ps.PreFlow.String() != c.preFlow || ps.PreStream.String() != "accept:hook" {
				t.Errorf("packet policies %s %s %s", ps.PacketFilter, ps.PreFlow, ps.PreStream)
			}
			if ps.DefaultApp.String() != "drop:flow" {
				t.Errorf("default app policy %s", ps.DefaultApp)
			}
			if c.app != "" {
				proto, rest, _ := strings.Cut(c.app, "/")
				state, want, _ := strings.Cut(rest, "=")
				if got := ps.App[proto][state].String(); got != want {
					t.Errorf("app policy %s.%s = %q, want %q", proto, state, got, want)
				}
			}
		})
	}
}

func TestRuleTable(t *testing.T) {
	cases := []struct {
		rule     string
		firewall bool
		want     Table
	}{
		{`accept:hook tcp:all any any -> any any (sid:1;)`, true, TablePacketFilter},
		{`accept:hook tcp:flow_start any any -> any any (sid:1;)`, true, TablePacketFilter},
		{`drop:packet ip:pre_flow any any -> any any (sid:1;)`, true, TablePreFlow},
		{`drop:packet tcp:pre_stream any any -> any any (sid:1;)`, true, TablePreStream},
		{`accept:hook http1:request_line any any -> any any (sid:1;)`, true, TableAppFilter},
		{`alert tcp any any -> any any (sid:1;)`, false, TablePacketTD},
		{`alert http any any -> any any (http.uri; content:"x"; sid:1;)`, false, TableAppTD},
	}
	for _, c := range cases {
		r, err := rules.ParseWith(c.rule, &rules.ParseOptions{Firewall: c.firewall})
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		if got := RuleTable(r); got != c.want {
			t.Errorf("%s: %s, want %s", c.rule, got, c.want)
		}
	}
}
