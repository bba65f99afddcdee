package config

import "path/filepath"

// Default firewall policies (Suricata 8, DetectFirewallInitDefaultPolicies).
var (
	// DefaultPacketFilterPolicy applies to packets no packet:filter rule accepted.
	DefaultPacketFilterPolicy = []string{"drop:packet"}
	// DefaultPreFlowPolicy applies to the packet:pre_flow hook.
	DefaultPreFlowPolicy = []string{"accept:hook"}
	// DefaultPreStreamPolicy applies to the packet:pre_stream hook.
	DefaultPreStreamPolicy = []string{"accept:hook"}
	// DefaultAppPolicy applies to every app-layer protocol state with no policy of its own.
	DefaultAppPolicy = []string{"drop:flow"}
)

// Firewall is the firewall section. The policies are kept as the raw action lists of the
// configuration ("accept:hook", "drop:flow", "alert", ...), with the defaults filled in for the
// packet hooks; parsing the actions is the firewall's job.
//
// Both layouts are read: Suricata 8.0's flat one (policies.packet-filter,
// policies.packet-pre-flow, policies.packet-pre-stream, policies.<proto>.<state>) and the
// grouped one of later versions (policies.packet.{filter,pre-flow,pre-stream},
// policies.app.<proto>.<state>). Protocol names are kept as written: HTTP/1 is "http" in the
// flat layout and "http1" in the grouped one. State names use dashes (request-line); a
// sub-state level is flattened to "state.substate".
type Firewall struct {
	// Enabled is enabled (default false).
	Enabled bool
	// EnabledSet tells whether enabled was present, so that --firewall with "enabled: no" can
	// be refused, as Suricata does.
	EnabledSet bool
	// RulePath is rule-path (empty when not set).
	RulePath string
	// RuleFiles is rule-files; without it no firewall rule file is loaded from the
	// configuration.
	RuleFiles []string
	// PacketFilter, PacketPreFlow and PacketPreStream are the packet hook policies, defaults
	// applied.
	PacketFilter, PacketPreFlow, PacketPreStream []string
	// App holds the configured app-layer policies: protocol -> state -> actions.
	App map[string]map[string][]string
	// Layout is "" (no policies), "flat" (8.0 keys) or "grouped" (packet/app keys).
	Layout string
}

// AppPolicy returns the policy of an app-layer protocol state: the configured one, else
// DefaultAppPolicy.
func (f *Firewall) AppPolicy(proto, state string) []string {
	if p, ok := f.App[proto][state]; ok {
		return p
	}
	return DefaultAppPolicy
}

// RuleFilePaths returns the firewall rule files joined to rule-path when they are relative.
func (f *Firewall) RuleFilePaths() []string {
	out := make([]string, 0, len(f.RuleFiles))
	for _, r := range f.RuleFiles {
		if f.RulePath != "" && !filepath.IsAbs(r) {
			r = filepath.Join(f.RulePath, r)
		}
		out = append(out, r)
	}
	return out
}

func (b *builder) firewall() Firewall {
	f := Firewall{
		PacketFilter:    DefaultPacketFilterPolicy,
		PacketPreFlow:   DefaultPreFlowPolicy,
		PacketPreStream: DefaultPreStreamPolicy,
		App:             map[string]map[string][]string{},
	}
	if s, ok := b.c.String("firewall.enabled"); ok {
		f.EnabledSet = true
		f.Enabled = IsTrue(s)
	}
	f.RulePath = b.str("firewall.rule-path", "")
	f.RuleFiles = b.list("firewall.rule-files")

	const pkey = "firewall.policies"
	pol, ok := b.c.Get(pkey)
	if !ok || pol.IsNull() {
		return f
	}
	if pol.Kind != MappingNode {
		b.fail(nodeError(pol, pkey, "expected a mapping of policies, found a %s", pol.Kind))
		return f
	}
	setLayout := func(n *Node, key, l string) {
		if f.Layout != "" && f.Layout != l {
			b.warn(n, key, "mixes the flat (8.0) and grouped (packet/app) policy layouts")
		}
		f.Layout = l
	}
	for _, c := range pol.Children {
		key := pkey + "." + c.Name
		switch c.Name {
		case "packet-filter", "packet-pre-flow", "packet-pre-stream":
			setLayout(c, key, "flat")
			if a := b.actions(c, key); a != nil {
				switch c.Name {
				case "packet-filter":
					f.PacketFilter = a
				case "packet-pre-flow":
					f.PacketPreFlow = a
				default:
					f.PacketPreStream = a
				}
			}
		case "packet":
			setLayout(c, key, "grouped")
			if c.Kind != MappingNode {
				b.fail(nodeError(c, key, "expected a mapping of packet hooks"))
				continue
			}
			for _, h := range c.Children {
				hkey := key + "." + h.Name
				a := b.actions(h, hkey)
				if a == nil {
					continue
				}
				switch h.Name {
				case "filter":
					f.PacketFilter = a
				case "pre-flow":
					f.PacketPreFlow = a
				case "pre-stream":
					f.PacketPreStream = a
				default:
					b.fail(nodeError(h, hkey, "unknown packet hook %q (filter, pre-flow, pre-stream)", h.Name))
				}
			}
		case "app":
			setLayout(c, key, "grouped")
			if c.Kind != MappingNode {
				b.fail(nodeError(c, key, "expected a mapping of app-layer protocols"))
				continue
			}
			for _, p := range c.Children {
				b.appPolicies(&f, p, key+"."+p.Name)
			}
		default:
			setLayout(c, key, "flat")
			b.appPolicies(&f, c, key)
		}
	}
	return f
}

// appPolicies reads the states of one protocol.
func (b *builder) appPolicies(f *Firewall, p *Node, key string) {
	if p.IsNull() {
		return
	}
	if p.Kind != MappingNode {
		b.fail(nodeError(p, key, "expected a mapping of states to policies"))
		return
	}
	states := f.App[p.Name]
	if states == nil {
		states = map[string][]string{}
		f.App[p.Name] = states
	}
	var walk func(n *Node, prefix, key string)
	walk = func(n *Node, prefix, key string) {
		for _, s := range n.Children {
			name := prefix + s.Name
			skey := key + "." + s.Name
			if s.Kind == MappingNode {
				walk(s, name+".", skey)
				continue
			}
			if a := b.actions(s, skey); a != nil {
				states[name] = a
			}
		}
	}
	walk(p, "", key)
}

// actions reads a policy: a list of action strings (a single string is accepted as a list of
// one). It returns nil for a null value.
func (b *builder) actions(n *Node, key string) []string {
	switch n.Kind {
	case ScalarNode:
		if n.Null {
			return nil
		}
		return []string{n.Value}
	case SequenceNode:
		var out []string
		for _, e := range n.Children {
			v, ok := e.Scalar()
			if !ok {
				b.fail(nodeError(e, key, "a policy must be a list of actions"))
				return nil
			}
			out = append(out, v)
		}
		if len(out) == 0 {
			b.fail(nodeError(n, key, "empty policy"))
			return nil
		}
		return out
	default:
		b.fail(nodeError(n, key, "a policy must be a list of actions, found a %s", n.Kind))
		return nil
	}
}
