package firewall

import (
	"strings"
	"testing"
)

// FuzzParsePolicy feeds policy action lists (comma separated) to ParsePolicy: it must never
// panic, and a policy it accepts must print as a list that parses back to the same policy.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{"drop:packet", "drop:packet,alert", "accept:hook", "accept:flow,pass:flow",
		"reject:packet", "rejectboth:flow,alert", "accept:tx", "alert", "drop", "accept:hook,pass:flow",
		"ACCEPT:hook", "accept::hook", ":packet", "accept:hook,alert,alert", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var actions []string
		if s != "" {
			actions = strings.Split(s, ",")
		}
		p, err := ParsePolicy(actions)
		if err != nil {
			return
		}
		text := p.String()
		if text == "" {
			return // config or pass-only lists print nothing, as in Suricata
		}
		back, err := ParsePolicy(strings.Split(text, ","))
		if err != nil {
			t.Fatalf("%q parsed to %q, which does not parse: %v", s, text, err)
		}
		if back.String() != text {
			t.Fatalf("%q -> %q -> %q", s, text, back.String())
		}
	})
}
