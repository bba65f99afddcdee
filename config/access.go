package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Get returns the node at the dotted key. Keys are case-sensitive and list entries are
// addressed by index: "outputs.1.eve-log.enabled", "vars.address-groups.HOME_NET".
func (c *Config) Get(key string) (*Node, bool) { return c.root.Lookup(key) }

// String returns the value at key when it is a non-null scalar.
func (c *Config) String(key string) (string, bool) { return c.root.String(key) }

// Bool returns the boolean at key; see Node.Bool.
func (c *Config) Bool(key string, def bool) bool { return c.root.Bool(key, def) }

// Int returns the integer at key; see Node.Int.
func (c *Config) Int(key string, def int64) (int64, error) { return c.root.Int(key, def) }

// Size returns the byte size at key; see Node.Size.
func (c *Config) Size(key string, def uint64) (uint64, error) { return c.root.Size(key, def) }

// Seconds returns the duration at key, written as whole seconds; see Node.Seconds.
func (c *Config) Seconds(key string, def time.Duration) (time.Duration, error) {
	return c.root.Seconds(key, def)
}

// List returns the values of the list at key; see Node.List.
func (c *Config) List(key string) []string { return c.root.List(key) }

// Children returns the entries of the mapping or list at key, or nil.
func (c *Config) Children(key string) []*Node { return c.root.ChildrenOf(key) }

// String returns the value at the dotted key below n when it is a non-null scalar.
func (n *Node) String(key string) (string, bool) {
	v, ok := n.Lookup(key)
	if !ok {
		return "", false
	}
	return v.Scalar()
}

// Bool returns the boolean at the dotted key below n, with Suricata's reading (ConfGetBool):
// yes/true/on/1 (any case) are true and every other value is false. A missing key, a null value
// or a mapping/list returns def.
func (n *Node) Bool(key string, def bool) bool {
	s, ok := n.String(key)
	if !ok {
		return def
	}
	return IsTrue(s)
}

// Int returns the base-10 integer at the dotted key below n, or def when the key is missing or
// null. Anything else than an integer is an error naming the key.
func (n *Node) Int(key string, def int64) (int64, error) {
	v, ok := n.Lookup(key)
	if !ok || v.IsNull() {
		return def, nil
	}
	s, ok := v.Scalar()
	if !ok {
		return def, nodeError(v, key, "expected an integer, found a %s", v.Kind)
	}
	i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return def, nodeError(v, key, "invalid integer %q", s)
	}
	return i, nil
}

// Size returns the byte size at the dotted key below n (see ParseSize), or def when the key is
// missing or null.
func (n *Node) Size(key string, def uint64) (uint64, error) {
	v, ok := n.Lookup(key)
	if !ok || v.IsNull() {
		return def, nil
	}
	s, ok := v.Scalar()
	if !ok {
		return def, nodeError(v, key, "expected a size, found a %s", v.Kind)
	}
	sz, err := ParseSize(s)
	if err != nil {
		return def, nodeError(v, key, "%v", err)
	}
	return sz, nil
}

// Seconds returns the duration at the dotted key below n, written as a whole number of seconds
// as in Suricata's timeouts and intervals, or def when the key is missing or null.
func (n *Node) Seconds(key string, def time.Duration) (time.Duration, error) {
	v, ok := n.Lookup(key)
	if !ok || v.IsNull() {
		return def, nil
	}
	s, ok := v.Scalar()
	if !ok {
		return def, nodeError(v, key, "expected a number of seconds, found a %s", v.Kind)
	}
	secs, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	if err != nil {
		return def, nodeError(v, key, "invalid number of seconds %q", s)
	}
	return time.Duration(secs) * time.Second, nil
}

// List returns the entries of the list at the dotted key below n as strings: a scalar entry
// gives its value, a mapping entry its first key (Suricata's name for it, e.g. "eve-log"); null
// entries are skipped. A non-null scalar at key gives a one-entry list. Anything else gives nil.
func (n *Node) List(key string) []string {
	v, ok := n.Lookup(key)
	if !ok {
		return nil
	}
	switch v.Kind {
	case SequenceNode:
		out := make([]string, 0, len(v.Children))
		for _, c := range v.Children {
			if c.IsNull() {
				continue
			}
			out = append(out, c.SeqName())
		}
		return out
	case ScalarNode:
		if !v.Null {
			return []string{v.Value}
		}
	}
	return nil
}

// ChildrenOf returns the entries of the mapping or list at the dotted key below n, or nil.
func (n *Node) ChildrenOf(key string) []*Node {
	v, ok := n.Lookup(key)
	if !ok || v.Kind == ScalarNode {
		return nil
	}
	return v.Children
}

// IsTrue reports whether s is a YAML 1.1 true word as Suricata reads it (ConfValIsTrue): 1,
// yes, true or on, in any case.
func IsTrue(s string) bool {
	switch strings.ToLower(s) {
	case "1", "yes", "true", "on":
		return true
	}
	return false
}

// IsFalse reports whether s is a YAML 1.1 false word as Suricata reads it (ConfValIsFalse): 0,
// no, false or off, in any case.
func IsFalse(s string) bool {
	switch strings.ToLower(s) {
	case "0", "no", "false", "off":
		return true
	}
	return false
}

// ParseBool reads s as a boolean; ok is false when s is neither a true nor a false word.
func ParseBool(s string) (v, ok bool) {
	if IsTrue(s) {
		return true, true
	}
	if IsFalse(s) {
		return false, true
	}
	return false, false
}

// ParseSize reads a Suricata size: a number (decimals allowed) optionally followed, with or
// without spaces, by a unit kb, kib, mb, mib, gb or gib in any case. All units are powers of
// 1024, as in Suricata's ParseSizeString ("1kb" = "1 KiB" = 1024, "1.5 MiB" = 1572864). A
// fractional result is truncated.
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("invalid size %q (expected a number with an optional unit kb, mb, gb, KiB, MiB or GiB)", s)
	}
	if i < len(t) && t[i] == '.' {
		j := i + 1
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0, fmt.Errorf("invalid size %q", s)
		}
		i = j
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	var mult uint64
	switch strings.ToLower(unit) {
	case "":
		mult = 1
	case "kb", "kib":
		mult = 1 << 10
	case "mb", "mib":
		mult = 1 << 20
	case "gb", "gib":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (use kb, mb, gb, KiB, MiB or GiB)", s, unit)
	}
	if !strings.Contains(num, ".") {
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil || v > math.MaxUint64/mult {
			return 0, fmt.Errorf("invalid size %q: out of range", s)
		}
		return v * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	f *= float64(mult)
	if f >= math.MaxUint64 {
		return 0, fmt.Errorf("invalid size %q: out of range", s)
	}
	return uint64(f), nil
}
