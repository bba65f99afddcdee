package rules

import (
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// DefaultSeverity is the priority of a rule with neither a priority keyword nor a known
// classtype, as Suricata gives it.
const DefaultSeverity = 3

// Severity is the rule's priority as Suricata gives it (EVE alert.severity, and a key of the
// rule order): its priority keyword, else its classtype's default priority in cls
// (classification.config by lower-case name), else DefaultSeverity.
func (r *Rule) Severity(cls map[string]config.Classification) int {
	if r.Priority > 0 {
		return r.Priority
	}
	if cl, ok := cls[strings.ToLower(r.Classtype)]; ok {
		return cl.Priority
	}
	return DefaultSeverity
}
