package rules

import (
	"testing"

	"github.com/meerkat-ids/meerkat/config"
)

// TestSeverity: Suricata's rule priority: the priority keyword wins, then the classtype's
// default priority (looked up by lower-case name), then 3.
func TestSeverity(t *testing.T) {
	cls := map[string]config.Classification{"trojan-activity": {Name: "trojan-activity", Priority: 1}}
	tests := []struct {
		text string
		want int
	}{
		{`alert tcp any any -> any any (sid:1;)`, 3},
		{`alert tcp any any -> any any (classtype:trojan-activity; sid:1;)`, 1},
		{`alert tcp any any -> any any (classtype:Trojan-Activity; sid:1;)`, 1},
		{`alert tcp any any -> any any (classtype:trojan-activity; priority:4; sid:1;)`, 4},
		{`alert tcp any any -> any any (classtype:unknown-class; sid:1;)`, 3},
		{`alert tcp any any -> any any (priority:2; sid:1;)`, 2},
	}
	for _, tt := range tests {
		r, err := Parse(tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.text, err)
		}
		if got := r.Severity(cls); got != tt.want {
			t.Errorf("%s: severity %d, want %d", tt.text, got, tt.want)
		}
	}
}
