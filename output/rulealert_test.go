package output

import (
	"testing"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/rules"
)

func mustRule(t *testing.T, text string) *rules.Rule {
	t.Helper()
	r, err := rules.Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return r
}

// TestRuleAlertReferences: references as Suricata prints them (AlertJsonReference): a scheme in
// the value is kept, a known system gets reference.config's prefix, an unknown one "undefined".
func TestRuleAlertReferences(t *testing.T) {
	r := mustRule(t, `alert tcp any any -> any any (content:"x"; reference:cve,2020-1234; reference:url,https://example.org/a; reference:nosuch,abc; reference:url,www.example.com/b; sid:1;)`)
	cfg := RuleAlertConfig{References: map[string]string{"cve": "http://cve.mitre.org/cgi-bin/cvename.cgi?name=", "url": "http://"}}
	a := RuleAlert(r, alert.ActionAlert, RuleFirewall{}, &cfg)
	want := `["http://cve.mitre.org/cgi-bin/cvename.cgi?name=2020-1234","https://example.org/a","undefinedabc","http://www.example.com/b"]`
	if got := string(a.References); got != want {
		t.Errorf("references %s\nwant %s", got, want)
	}
}

// TestRuleAlertFields: classification, priority, metadata order, blocked by mode, and the
// firewall fields.
func TestRuleAlertFields(t *testing.T) {
	r := mustRule(t, `drop tcp any any -> any any (msg:"m"; classtype:trojan; metadata:b 1, a 2, b 3; sid:7; rev:2;)`)
	cls := map[string]config.Classification{"trojan": {Name: "trojan", Description: "A Trojan", Priority: 1}}
	tests := []struct {
		name    string
		cfg     RuleAlertConfig
		fw      RuleFirewall
		blocked bool
		engine  string
	}{
		{"ids", RuleAlertConfig{Classifications: cls}, RuleFirewall{}, false, ""},
		{"ips", RuleAlertConfig{Classifications: cls, IPS: true}, RuleFirewall{}, true, ""},
		{"firewall td", RuleAlertConfig{Classifications: cls, IPS: true, Firewall: true}, RuleFirewall{}, true, "td"},
		{"firewall fw", RuleAlertConfig{Classifications: cls, IPS: true, Firewall: true}, RuleFirewall{Hook: "packet:filter", Policy: "drop:flow"}, true, "fw"},
	}
	for _, tt := range tests {
		a := RuleAlert(r, alert.ActionDrop|alert.ActionAlert, tt.fw, &tt.cfg)
		if a.GID != 1 || a.SID != 7 || a.Rev != 2 || a.Msg != "m" || a.Category != "A Trojan" || a.Severity != 1 || !a.Drop {
			t.Errorf("%s: %+v", tt.name, a)
		}
		if a.Blocked != tt.blocked || a.Engine != tt.engine || a.FirewallHook != tt.fw.Hook || a.FirewallPolicy != tt.fw.Policy {
			t.Errorf("%s: blocked %v engine %q hook %q policy %q", tt.name, a.Blocked, a.Engine, a.FirewallHook, a.FirewallPolicy)
		}
		if got := string(a.Metadata); got != `{"b":["1","3"],"a":["2"]}` {
			t.Errorf("%s: metadata %s", tt.name, got)
		}
	}
}
