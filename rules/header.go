package rules

import (
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// Header is the rule header: actions, protocol, addresses, ports and direction.
type Header struct {
	// Actions holds the rule's actions: one for threat-detection rules, one or more for
	// firewall rules (the first is the primary action).
	Actions []Action
	// Scope is the action scope shared by all actions (ScopeAuto when none was given).
	Scope Scope
	// Protocol is the protocol field.
	Protocol Protocol
	// Src and Dst are the address fields; SrcPort and DstPort the port fields.
	Src     *Address
	SrcPort *Port
	Dst     *Address
	DstPort *Port
	// Direction is "->", "<>" or "=>".
	Direction Direction
}

// Action is a rule action.
type Action uint8

// Rule actions.
const (
	ActionAlert Action = iota + 1
	ActionPass
	ActionDrop
	ActionReject
	ActionRejectSrc
	ActionRejectDst
	ActionRejectBoth
	ActionConfig
	ActionAccept
)

var actionNames = [...]string{
	ActionAlert: "alert", ActionPass: "pass", ActionDrop: "drop", ActionReject: "reject",
	ActionRejectSrc: "rejectsrc", ActionRejectDst: "rejectdst", ActionRejectBoth: "rejectboth",
	ActionConfig: "config", ActionAccept: "accept",
}

// String returns the action keyword.
func (a Action) String() string {
	if int(a) < len(actionNames) && actionNames[a] != "" {
		return actionNames[a]
	}
	return "unknown"
}

// Action flag bits, as Suricata's action-globals.h.
const (
	FlagAlert      uint8 = 0x01
	FlagDrop       uint8 = 0x02
	FlagReject     uint8 = 0x04
	FlagRejectDst  uint8 = 0x08
	FlagRejectBoth uint8 = 0x10
	FlagPass       uint8 = 0x20
	FlagConfig     uint8 = 0x40
	FlagAccept     uint8 = 0x80
)

// Flags returns Suricata's action flags for a threat-detection rule with this action
// (drop = drop|alert, reject = reject|drop|alert, ...).
func (a Action) Flags() uint8 {
	switch a {
	case ActionAlert:
		return FlagAlert
	case ActionPass:
		return FlagPass
	case ActionDrop:
		return FlagDrop | FlagAlert
	case ActionReject, ActionRejectSrc:
		return FlagReject | FlagDrop | FlagAlert
	case ActionRejectDst:
		return FlagRejectDst | FlagDrop | FlagAlert
	case ActionRejectBoth:
		return FlagRejectBoth | FlagDrop | FlagAlert
	case ActionConfig:
		return FlagConfig
	case ActionAccept:
		return FlagAccept
	}
	return 0
}

// Scope is an action scope.
type Scope uint8

// Action scopes (Suricata's enum ActionScope).
const (
	ScopeAuto Scope = iota
	ScopePacket
	ScopeFlow
	ScopeHook
	ScopeTx
)

// String returns the scope word ("" for ScopeAuto).
func (s Scope) String() string {
	switch s {
	case ScopePacket:
		return "packet"
	case ScopeFlow:
		return "flow"
	case ScopeHook:
		return "hook"
	case ScopeTx:
		return "tx"
	}
	return ""
}

// Direction is the header direction.
type Direction string

// Header directions.
const (
	DirForward       Direction = "->"
	DirBoth          Direction = "<>"
	DirTransactional Direction = "=>"
)

// Action returns the primary action.
func (h *Header) Action() Action {
	if len(h.Actions) == 0 {
		return 0
	}
	return h.Actions[0]
}

// ActionFlags returns the combined Suricata action flags of the rule. In firewall rules drop
// and reject do not imply alert.
func (h *Header) ActionFlags(firewall bool) uint8 {
	var f uint8
	for _, a := range h.Actions {
		af := a.Flags()
		if firewall && af&FlagDrop != 0 {
			af &^= FlagAlert
		}
		f |= af
	}
	return f
}

// parseActions parses the action field.
func parseActions(text string, firewall bool) ([]Action, Scope, error) {
	if !firewall {
		a, sc, err := parseOneAction(text, 0, false, ScopeAuto)
		if err != nil {
			return nil, 0, err
		}
		return []Action{a}, sc, nil
	}
	var out []Action
	scope := ScopeAuto
	i := 0
	for _, part := range strings.Split(text, ",") {
		if part == "" { // strtok skips empty tokens
			continue
		}
		a, sc, err := parseOneAction(part, i, true, scope)
		if err != nil {
			return nil, 0, err
		}
		scope = sc
		out = append(out, a)
		i++
	}
	if len(out) == 0 {
		return nil, 0, kwErrf("action", "invalid action \"%s\"", text)
	}
	return out, scope, nil
}

func parseOneAction(text string, idx int, firewall bool, scope Scope) (Action, Scope, error) {
	name, sc, hasScope := strings.Cut(text, ":")
	if hasScope {
		// strtok: consecutive separators collapse, an empty scope means no scope.
		sc = strings.TrimLeft(sc, ":")
		if k := strings.IndexByte(sc, ':'); k >= 0 {
			sc = sc[:k]
		}
		if name == "" {
			name, sc = sc, ""
		}
	}
	var a Action
	for i, n := range actionNames {
		if n != "" && strings.EqualFold(n, name) {
			a = Action(i)
		}
	}
	if a == 0 {
		return 0, 0, kwErrf("action", "an invalid action \"%s\" was given", name)
	}
	flags := a.Flags()
	if firewall {
		if flags&FlagDrop != 0 {
			flags &^= FlagAlert
		}
		primary := flags&(FlagAccept|FlagDrop|FlagReject|FlagRejectDst|FlagRejectBoth|FlagConfig) != 0
		if idx == 0 && !primary {
			return 0, 0, kwErrf("action", "only accept, config, drop and reject actions allowed as primary action firewall rules")
		}
		if idx > 0 && primary {
			return 0, 0, kwErrf("action", "accept, config, drop and reject actions not allowed as secondary action firewall rules")
		}
	}
	if sc != "" {
		var s Scope
		switch {
		case flags&(FlagDrop|FlagPass) != 0:
			switch sc {
			case "packet":
				s = ScopePacket
			case "flow":
				s = ScopeFlow
			default:
				return 0, 0, kwErrf("action", "invalid action scope '%s' in action '%s': only 'packet' and 'flow' allowed", sc, text)
			}
		case flags&FlagAccept != 0:
			switch sc {
			case "packet":
				s = ScopePacket
			case "hook":
				s = ScopeHook
			case "tx":
				s = ScopeTx
			case "flow":
				s = ScopeFlow
			default:
				return 0, 0, kwErrf("action", "invalid action scope '%s' in action '%s': only 'packet', 'flow', 'tx' and 'hook' allowed", sc, text)
			}
		case flags&FlagConfig != 0:
			if sc != "packet" {
				return 0, 0, kwErrf("action", "invalid action scope '%s' in action '%s': only 'packet' allowed", sc, text)
			}
			s = ScopePacket
		default:
			return 0, 0, kwErrf("action", "invalid action scope '%s' in action '%s': scope only supported for actions 'drop', 'pass' and 'reject'", sc, text)
		}
		if scope != ScopeAuto && scope != s {
			return 0, 0, kwErrf("action", "multi-action rules cannot use different action scopes")
		}
		scope = s
	}
	if firewall && scope == ScopeAuto {
		return 0, 0, kwErrf("action", "firewall rules require setting an explicit action scope")
	}
	if !firewall && a == ActionAccept {
		return 0, 0, kwErrf("action", "'accept' action only supported for firewall rules")
	}
	return a, scope, nil
}

// headerOptions is what header parsing needs from the loader.
type headerOptions struct {
	vars     *config.Vars
	disabled map[string]bool
	firewall bool
	cache    *parseCache
}

func (ho headerOptions) address(text string) (*Address, error) {
	if ho.cache != nil {
		if a, ok := ho.cache.addrs[text]; ok {
			return a, nil
		}
	}
	a, err := ParseAddress(text, ho.vars)
	if err == nil && ho.cache != nil {
		ho.cache.addrs[text] = a
	}
	return a, err
}

func (ho headerOptions) port(text string) (*Port, error) {
	if ho.cache != nil {
		if p, ok := ho.cache.ports[text]; ok {
			return p, nil
		}
	}
	p, err := ParsePort(text, ho.vars)
	if err == nil && ho.cache != nil {
		ho.cache.ports[text] = p
	}
	return p, err
}

// parseHeader parses the header fields into h.
func parseHeader(r *Rule, f headerFields, ho headerOptions) error {
	h := &r.Header
	var err error
	if h.Actions, h.Scope, err = parseActions(f.action, ho.firewall); err != nil {
		return err
	}
	if h.Protocol, err = parseProtocol(f.proto, ho.disabled); err != nil {
		return err
	}
	switch f.dir {
	case "->":
		h.Direction = DirForward
	case "<>":
		h.Direction = DirBoth
	case "=>":
		if ho.firewall {
			return kwErrf("direction", "transactional bidirectional rules not supported for firewall rules")
		}
		h.Direction = DirTransactional
	default:
		return kwErrf("direction", "\"%s\" is not a valid direction modifier, \"->\" and \"<>\" are supported", f.dir)
	}
	if h.Src, err = ho.address(f.src); err != nil {
		return err
	}
	if h.Dst, err = ho.address(f.dst); err != nil {
		return err
	}
	if h.SrcPort, err = ho.port(f.sp); err != nil {
		return err
	}
	if h.DstPort, err = ho.port(f.dp); err != nil {
		return err
	}
	return nil
}

// ParseFirewallAction parses one entry of a firewall action list, as Suricata parses each
// action of a rule header or of a firewall policy (SigParseActionDo): idx is its position
// (0 is the primary action) and scope the scope the earlier entries gave (ScopeAuto for none).
// It returns the action and the list's scope so far.
func ParseFirewallAction(text string, idx int, scope Scope) (Action, Scope, error) {
	return parseOneAction(text, idx, true, scope)
}
