package config

import (
	"fmt"
	"slices"
	"strings"
)

// maxVarExpansion bounds the length of an expanded variable, so that variables that refer to
// each other several times cannot build an enormous string.
const maxVarExpansion = 1 << 20

// Vars holds the rule variables of vars.address-groups and vars.port-groups, by name without
// '$' (case preserved: "HOME_NET"). Values are kept as written, in rule syntax, and may refer to
// other variables of the same kind. A Vars can also be built by hand (for tests); only the maps
// are needed.
//
// When the configuration has no vars.address-groups (or no vars.port-groups) at all, that
// section takes the groups of Suricata's stock suricata.yaml (DefaultAddressGroups,
// DefaultPortGroups) and AddressDefaulted (PortDefaulted) is set. When the section is present,
// only the groups it lists exist, as in Suricata: a rule using another variable fails.
type Vars struct {
	// AddressGroups maps address variable names to their values.
	AddressGroups map[string]string
	// PortGroups maps port variable names to their values.
	PortGroups map[string]string
	// AddressDefaulted is true when the configuration had no vars.address-groups.
	AddressDefaulted bool
	// PortDefaulted is true when the configuration had no vars.port-groups.
	PortDefaulted bool

	// nodes remembers where each variable was defined ("address/NAME", "port/NAME").
	nodes map[string]*Node
}

// DefaultAddressGroups are the address groups of Suricata's stock suricata.yaml, used when a
// configuration has no vars.address-groups.
var DefaultAddressGroups = map[string]string{
	"HOME_NET":       "[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]",
	"EXTERNAL_NET":   "!$HOME_NET",
	"HTTP_SERVERS":   "$HOME_NET",
	"SMTP_SERVERS":   "$HOME_NET",
	"SQL_SERVERS":    "$HOME_NET",
	"DNS_SERVERS":    "$HOME_NET",
	"TELNET_SERVERS": "$HOME_NET",
	"AIM_SERVERS":    "$EXTERNAL_NET",
	"DC_SERVERS":     "$HOME_NET",
	"DNP3_SERVER":    "$HOME_NET",
	"DNP3_CLIENT":    "$HOME_NET",
	"MODBUS_CLIENT":  "$HOME_NET",
	"MODBUS_SERVER":  "$HOME_NET",
	"ENIP_CLIENT":    "$HOME_NET",
	"ENIP_SERVER":    "$HOME_NET",
}

// DefaultPortGroups are the port groups of Suricata's stock suricata.yaml, used when a
// configuration has no vars.port-groups.
var DefaultPortGroups = map[string]string{
	"HTTP_PORTS":      "80",
	"SHELLCODE_PORTS": "!80",
	"ORACLE_PORTS":    "1521",
	"SSH_PORTS":       "22",
	"DNP3_PORTS":      "20000",
	"MODBUS_PORTS":    "502",
	"FILE_DATA_PORTS": "[$HTTP_PORTS,110,143]",
	"FTP_PORTS":       "21",
	"GENEVE_PORTS":    "6081",
	"VXLAN_PORTS":     "4789",
	"TEREDO_PORTS":    "3544",
	"SIP_PORTS":       "[5060, 5061]",
}

// Address returns the raw value of the address group name ('$' optional).
func (v *Vars) Address(name string) (string, bool) {
	val, ok := v.AddressGroups[strings.TrimPrefix(name, "$")]
	return val, ok
}

// Port returns the raw value of the port group name ('$' optional).
func (v *Vars) Port(name string) (string, bool) {
	val, ok := v.PortGroups[strings.TrimPrefix(name, "$")]
	return val, ok
}

// ResolveAddress returns the address group name ('$' optional) with every $VAR inside it
// replaced, recursively, by its own value: with the default groups, EXTERNAL_NET ("!$HOME_NET")
// resolves to "![192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]". A value holding a top-level list
// without brackets is bracketed when it replaces a reference, so that "!$X" negates all of it.
// An undefined variable, an empty value or a cycle is an error naming the variable.
func (v *Vars) ResolveAddress(name string) (string, error) {
	return v.resolver("address").resolve(strings.TrimPrefix(name, "$"), nil)
}

// ResolvePort is ResolveAddress for port groups: HTTP_PORTS, FILE_DATA_PORTS
// ("[$HTTP_PORTS,110,143]" -> "[80,110,143]").
func (v *Vars) ResolvePort(name string) (string, error) {
	return v.resolver("port").resolve(strings.TrimPrefix(name, "$"), nil)
}

// ExpandAddress replaces every $VAR in s (an address field of a rule, such as
// "[$HOME_NET,!10.0.0.1]") by its resolved address group.
func (v *Vars) ExpandAddress(s string) (string, error) {
	return v.resolver("address").expand(s, nil)
}

// ExpandPort replaces every $VAR in s (a port field of a rule) by its resolved port group.
func (v *Vars) ExpandPort(s string) (string, error) {
	return v.resolver("port").expand(s, nil)
}

// check resolves every variable, returning the errors in name order.
func (v *Vars) check() []error {
	var errs []error
	for _, kind := range []string{"address", "port"} {
		r := v.resolver(kind)
		for _, name := range sortedKeys(r.vars) {
			if _, err := r.resolve(name, nil); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// resolver expands the variables of one kind, remembering finished results.
type resolver struct {
	vars  map[string]string
	nodes map[string]*Node
	kind  string
	memo  map[string]string
}

func (v *Vars) resolver(kind string) *resolver {
	vars := v.AddressGroups
	if kind == "port" {
		vars = v.PortGroups
	}
	return &resolver{vars: vars, nodes: v.nodes, kind: kind, memo: map[string]string{}}
}

func (r *resolver) section() string {
	if r.kind == "port" {
		return "vars.port-groups"
	}
	return "vars.address-groups"
}

// varError builds an error about the variable name.
func (r *resolver) varError(name, format string, args ...any) error {
	e := &Error{Key: r.section() + "." + name, Msg: fmt.Sprintf(format, args...)}
	if n := r.nodes[r.kind+"/"+name]; n != nil {
		e.File, e.Line = n.File, n.Line
	}
	return e
}

func (r *resolver) resolve(name string, stack []string) (string, error) {
	if s, ok := r.memo[name]; ok {
		return s, nil
	}
	for i, s := range stack {
		if s == name {
			chain := append(append([]string(nil), stack[i:]...), name)
			return "", r.varError(stack[0], "%s variable cycle: $%s", r.kind, strings.Join(chain, " -> $"))
		}
	}
	val, ok := r.vars[name]
	if !ok {
		if len(stack) > 0 {
			from := stack[len(stack)-1]
			return "", r.varError(from, "undefined %s variable $%s", r.kind, name)
		}
		return "", &Error{Msg: fmt.Sprintf("undefined %s variable $%s", r.kind, name)}
	}
	if strings.TrimSpace(val) == "" {
		return "", r.varError(name, "%s variable $%s has no value", r.kind, name)
	}
	out, err := r.expand(val, append(stack, name))
	if err != nil {
		return "", err
	}
	r.memo[name] = out
	return out, nil
}

// isVarNameByte reports whether c can be part of a variable name after '$'. Suricata reads a
// name up to the next ',', ']' or end; Meerkat also stops at spaces, '[' and '!'.
func isVarNameByte(c byte) bool {
	switch c {
	case ',', '[', ']', '!', ' ', '\t', '\r', '\n', '$':
		return false
	}
	return true
}

// expand replaces the $VAR references in s.
func (r *resolver) expand(s string, stack []string) (string, error) {
	if strings.IndexByte(s, '$') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isVarNameByte(s[j]) {
			j++
		}
		name := s[i+1 : j]
		if name == "" {
			if len(stack) > 0 {
				from := stack[len(stack)-1]
				return "", r.varError(from, "'$' without a variable name in %q", s)
			}
			return "", &Error{Msg: fmt.Sprintf("'$' without a variable name in %q", s)}
		}
		val, err := r.resolve(name, stack)
		if err != nil {
			return "", err
		}
		if needsBrackets(val) {
			val = "[" + val + "]"
		}
		b.WriteString(val)
		if b.Len() > maxVarExpansion {
			return "", &Error{Msg: fmt.Sprintf("%s variable $%s expands to more than %d bytes", r.kind, name, maxVarExpansion)}
		}
		i = j
	}
	return b.String(), nil
}

// needsBrackets reports whether v is a list at the top level ("a,b") that is not already one
// bracketed group ("[a,b]").
func needsBrackets(v string) bool {
	v = strings.TrimSpace(v)
	depth := 0
	top := false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				top = true
			}
		}
	}
	return top
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
