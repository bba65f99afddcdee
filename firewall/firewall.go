// Package firewall holds the vocabulary of Suricata 8's firewall mode: the tables rules and
// policies belong to, the default policies and their configuration, and the packet hooks. The
// per-packet walk that combines firewall and threat-detection results lives in package detect,
// which evaluates the rules; this package says what the tables and policies are.
//
// Reference: ../shared/reference/suricata-semantics.md §1. Tables are evaluated in the order
// packet:pre_flow, packet:pre_stream, packet:filter, packet:td, app:filter, app:td; firewall rules
// keep their file order inside a table; a packet that no rule accepts gets the packet:filter
// policy (drop:packet by default), an app-layer state nobody accepts the app policy (drop:flow).
package firewall

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/rules"
)

// Table is a detection table (Suricata's enum DetectTable); its value is the first key of the
// firewall alert order.
type Table uint8

// Tables, in evaluation order.
const (
	TableNone Table = iota
	TablePreFlow
	TablePreStream
	TablePacketFilter
	TablePacketTD
	TableAppFilter
	TableAppTD
)

// String returns the table's name ("packet:filter", ...), as EVE's firewall.hook shows the
// packet tables.
func (t Table) String() string {
	switch t {
	case TablePreFlow:
		return "packet:pre_flow"
	case TablePreStream:
		return "packet:pre_stream"
	case TablePacketFilter:
		return "packet:filter"
	case TablePacketTD:
		return "packet:td"
	case TableAppFilter:
		return "app:filter"
	case TableAppTD:
		return "app:td"
	}
	return "not_set"
}

// RuleTable returns the table a rule belongs to (DetectRuleSetTable): firewall rules by their
// hook (pre_flow, pre_stream, an app-layer state, or packet:filter for all and flow_start),
// threat-detection rules by whether they inspect app-layer transactions.
func RuleTable(r *rules.Rule) Table {
	if r.Firewall {
		switch {
		case r.Header.Protocol.AppHook:
			return TableAppFilter
		case r.Header.Protocol.Hook == "pre_flow":
			return TablePreFlow
		case r.Header.Protocol.Hook == "pre_stream":
			return TablePreStream
		}
		return TablePacketFilter
	}
	if r.Type() == rules.TypeAppTx {
		return TableAppTD
	}
	return TablePacketTD
}

// Policy is a default policy: a primary accept or drop action with its scope, optionally with
// a secondary alert (then a synthetic rule logs the policy's verdicts) and pass:flow.
type Policy struct {
	// Action has Suricata's action bits: accept or drop/reject, plus alert and pass when listed.
	Action alert.Action
	// Scope is the policy's action scope.
	Scope rules.Scope
}

// String writes the policy as Suricata does in EVE's firewall.policy (DetectFirewallPolicyToString):
// "drop:packet", "accept:hook,alert", "accept:flow,pass:flow".
func (p Policy) String() string {
	var b strings.Builder
	switch {
	case p.Action&alert.ActionRejectDst != 0:
		b.WriteString("rejectdst")
	case p.Action&alert.ActionRejectBoth != 0:
		b.WriteString("rejectboth")
	case p.Action&alert.ActionReject != 0:
		b.WriteString("rejectsrc")
	case p.Action&alert.ActionDrop != 0:
		b.WriteString("drop")
	case p.Action&alert.ActionAccept != 0:
		b.WriteString("accept")
	default:
		return ""
	}
	b.WriteByte(':')
	b.WriteString(p.Scope.String())
	if p.Action&alert.ActionPass != 0 && p.Scope == rules.ScopeFlow {
		b.WriteString(",pass:flow")
	}
	if p.Action&alert.ActionAlert != 0 {
		b.WriteString(",alert")
	}
	return b.String()
}

// Alerts reports whether the policy logs its verdicts (an alert secondary action).
func (p Policy) Alerts() bool { return p.Action&alert.ActionAlert != 0 }

// ParsePolicy parses a policy's action list the way Suricata parses a firewall rule's actions
// (first primary accept/drop/reject, then secondary alert or pass, one scope for all). In
// firewall policies, as in firewall rules, drop and reject do not imply alert.
func ParsePolicy(actions []string) (Policy, error) {
	var p Policy
	if len(actions) == 0 {
		return p, fmt.Errorf("empty policy")
	}
	scope := rules.ScopeAuto
	for i, text := range actions {
		a, sc, err := rules.ParseFirewallAction(text, i, scope)
		if err != nil {
			return p, err
		}
		scope = sc
		f := a.Flags()
		if f&rules.FlagDrop != 0 {
			f &^= rules.FlagAlert
		}
		p.Action |= alert.Action(f)
	}
	p.Scope = scope
	return p, nil
}

// Policies are the firewall's default policies.
type Policies struct {
	// PacketFilter applies to a packet no packet:filter rule accepted or dropped; PreFlow and
	// PreStream close the pre_flow and pre_stream hooks.
	PacketFilter, PreFlow, PreStream Policy
	// App holds the configured app-layer state policies: protocol -> state (with dashes, as in
	// the configuration) -> policy. A state with no entry gets DefaultApp.
	App map[string]map[string]Policy
	// DefaultApp is drop:flow.
	DefaultApp Policy
}

// Packet policies that Suricata accepts in its configuration but cannot apply (accept:tx
// has no meaning for a packet hook) are refused.
func checkPacketPolicy(key string, p Policy) error {
	if p.Action&alert.ActionAccept != 0 && p.Scope == rules.ScopeTx {
		return fmt.Errorf("firewall.policies %s: accept:tx is not a packet policy (use accept:packet, accept:flow or accept:hook)", key)
	}
	return nil
}

// LoadPolicies turns the configuration's firewall policies (both the 8.0 flat keys and the
// grouped keys; package config reads either) into Policies. A policy that does not parse stops
// start-up with an error naming its key.
func LoadPolicies(c *config.Firewall) (*Policies, error) {
	ps := &Policies{App: map[string]map[string]Policy{},
		DefaultApp: Policy{Action: alert.ActionDrop, Scope: rules.ScopeFlow}}
	for _, pk := range []struct {
		key     string
		actions []string
		dst     *Policy
	}{
		{"packet-filter", c.PacketFilter, &ps.PacketFilter},
		{"packet-pre-flow", c.PacketPreFlow, &ps.PreFlow},
		{"packet-pre-stream", c.PacketPreStream, &ps.PreStream},
	} {
		p, err := ParsePolicy(pk.actions)
		if err != nil {
			return nil, fmt.Errorf("firewall.policies %s %v: %w", pk.key, pk.actions, err)
		}
		if err := checkPacketPolicy(pk.key, p); err != nil {
			return nil, err
		}
		*pk.dst = p
	}
	for proto, states := range c.App {
		m := map[string]Policy{}
		for state, actions := range states {
			p, err := ParsePolicy(actions)
			if err != nil {
				return nil, fmt.Errorf("firewall.policies %s.%s %v: %w", proto, state, actions, err)
			}
			m[state] = p
		}
		ps.App[proto] = m
	}
	return ps, nil
}

// DefaultPolicies returns Suricata's defaults: packet:filter drop:packet, the pre_flow and
// pre_stream hooks accept:hook, every app-layer state drop:flow.
func DefaultPolicies() *Policies {
	ps, err := LoadPolicies(&config.Firewall{PacketFilter: config.DefaultPacketFilterPolicy,
		PacketPreFlow: config.DefaultPreFlowPolicy, PacketPreStream: config.DefaultPreStreamPolicy})
	if err != nil {
		panic(err) // the defaults are constants
	}
	return ps
}

// PolicySID, PolicyAppSID, PolicyGID and PolicyRev identify the synthetic rules whose alerts
// report a policy with an alert action ("SURICATA FW default packet policy" and "... app
// policy").
const (
	PolicySID    = 2201000
	PolicyAppSID = 2201001
	PolicyGID    = 1
	PolicyRev    = 1
)

// PolicyMsg and PolicyAppMsg are the synthetic rules' messages.
const (
	PolicyMsg    = "SURICATA FW default packet policy"
	PolicyAppMsg = "SURICATA FW default app policy"
)
