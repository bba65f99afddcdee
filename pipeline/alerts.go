package pipeline

import (
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/output"
)

// ruleAlerts holds the rule-derived part of every alert record, by detect.Rule.LogID: built
// once from the engine's rules at start-up, so detection hands out matches only and the
// outputs never format a rule per packet.
type ruleAlerts []output.Alert

func newRuleAlerts(e *detect.Engine, cfg output.RuleAlertConfig) ruleAlerts {
	if e == nil {
		return nil
	}
	policies := e.PolicyRules()
	out := make(ruleAlerts, e.Len()+len(policies))
	for _, r := range e.Rules() {
		var fw output.RuleFirewall
		if hook, policy, ok := r.Firewall(); ok {
			fw = output.RuleFirewall{Hook: hook, Policy: policy}
		}
		out[r.LogID()] = output.RuleAlert(r.Src, r.Action, fw, &cfg)
	}
	for _, r := range policies {
		if r == nil {
			continue
		}
		hook, policy, _ := r.Firewall()
		sid, msg := r.PolicyAlert()
		out[r.LogID()] = output.PolicyAlert(firewall.PolicyGID, sid, firewall.PolicyRev,
			msg, r.Action, output.RuleFirewall{Hook: hook, Policy: policy})
	}
	return out
}

// of returns the record part of rule r.
func (a ruleAlerts) of(r *detect.Rule) *output.Alert { return &a[r.LogID()] }
