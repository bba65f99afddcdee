package output

import (
	"strings"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/rules"
)

// RuleAlertConfig is what the rule-derived part of alert records depends on besides the rule:
// classification.config, reference.config and the run mode.
type RuleAlertConfig struct {
	// Classifications give classtype descriptions and default priorities (by lower-case name).
	Classifications map[string]config.Classification
	// References are reference.config's URL prefixes by (lower-case) system name.
	References map[string]string
	// IPS makes drop rules "blocked" in alert records.
	IPS bool
	// Firewall is firewall mode: records carry the engine ("fw" or "td").
	Firewall bool
}

// RuleFirewall says how a rule takes part in firewall mode: Hook is its table ("packet:filter")
// and Policy its action and scope ("drop:flow,alert"), both empty for a threat-detection rule.
type RuleFirewall struct {
	Hook, Policy string
}

// RuleAlert prepares, once per rule at start-up, the part of an EVE alert record that comes
// from the rule: ids, message, classification, severity, the blocked and drop marks its
// action gives, metadata and references, and the firewall fields. act is the rule's action as
// the detection engine compiled it.
func RuleAlert(r *rules.Rule, act alert.Action, fw RuleFirewall, cfg *RuleAlertConfig) Alert {
	a := Alert{GID: r.GID, SID: r.SID, Rev: r.Rev, Msg: r.Msg, Severity: r.Severity(cfg.Classifications), TxID: -1,
		Drop: act&alert.ActionDrop != 0, Target: r.Target}
	if r.GID == 0 {
		a.GID = 1
	}
	if cl, ok := cfg.Classifications[strings.ToLower(r.Classtype)]; ok {
		a.Category = cl.Description
	}
	a.Blocked = act&(alert.ActionReject|alert.ActionRejectDst|alert.ActionRejectBoth) != 0 ||
		act&alert.ActionDrop != 0 && cfg.IPS
	if len(r.References) > 0 {
		var j JSON
		j.B = append(j.B, '[')
		for i, ref := range r.References {
			if i > 0 {
				j.B = append(j.B, ',')
			}
			j.B = AppendJSONString(j.B, referenceText(ref, cfg.References))
		}
		j.B = append(j.B, ']')
		a.References = j.B
	}
	if len(r.Metadata) > 0 {
		a.Metadata = ruleMetadata(r.Metadata)
	}
	if cfg.Firewall {
		a.Engine = "td"
		if fw.Hook != "" {
			a.Engine, a.FirewallHook, a.FirewallPolicy = "fw", fw.Hook, fw.Policy
		}
	}
	return a
}

// PolicyAlert is the alert record part of a firewall default policy that alerts (Suricata's
// synthetic policy signature, AddPktPolicySignature): gid:sid:rev as firewall.Policy* name
// them, the policy's hook and action.
func PolicyAlert(gid, sid, rev uint32, msg string, act alert.Action, fw RuleFirewall) Alert {
	return Alert{GID: gid, SID: sid, Rev: rev, Msg: msg, Severity: rules.DefaultSeverity, TxID: -1,
		Drop:    act&alert.ActionDrop != 0,
		Blocked: act&(alert.ActionDrop|alert.ActionReject|alert.ActionRejectDst|alert.ActionRejectBoth) != 0,
		Engine:  "fw", FirewallHook: fw.Hook, FirewallPolicy: fw.Policy}
}

// ruleMetadata encodes a rule's metadata as Suricata writes it: keys in first-seen order, each
// with the array of its values.
func ruleMetadata(md []rules.Metadata) []byte {
	m := map[string][]string{}
	var keys []string
	for _, kv := range md {
		if _, ok := m[kv.Key]; !ok {
			keys = append(keys, kv.Key)
		}
		m[kv.Key] = append(m[kv.Key], kv.Value)
	}
	var j JSON
	j.Begin()
	for _, k := range keys {
		j.Array(k)
		for _, v := range m[k] {
			j.ElemString(v)
		}
		j.Close(']')
	}
	j.End()
	return append([]byte(nil), j.B...)
}

// referenceText is how Suricata prints a reference (DetectReferenceParse, AlertJsonReference):
// a scheme written in the value ("url,https://x") is kept; otherwise reference.config's URL
// prefix for the system goes in front, "undefined" for a system it does not know.
func referenceText(ref rules.Reference, prefixes map[string]string) string {
	id := ref.ID
	if ref.Scheme {
		return ref.System + "://" + id
	}
	prefix, ok := prefixes[strings.ToLower(ref.System)]
	if !ok {
		prefix = "undefined"
	}
	return prefix + id
}
