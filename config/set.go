package config

import (
	"fmt"
	"strings"
)

// Set applies one command-line override "key=value" (Suricata's --set). The key is a dotted
// path, with list entries addressed by index; the argument is split at the first '=', spaces
// around the key and before the value are dropped (as Suricata does) and the value is stored
// as a scalar string.
//
// Missing mapping keys along the path are created (a null value on the way becomes a mapping),
// so "--set app-layer.protocols.foo.enabled=no" works on any configuration. An index changes
// only that list entry: "outputs.1.eve-log.enabled=no" leaves the other outputs and the other
// keys of the eve-log entry as they are. An index past the end of a list is an error, as in
// Suricata (a list entry cannot be added). A list entry that is a mapping ("- alert: {...}")
// has, for Suricata, its first key as its value (see Dump): setting it replaces that name, so
// "outputs.1.eve-log.types.0=flow" turns the entry into "flow" and the options written under
// the old name no longer apply to it. Replacing any other mapping, or a list, with a value is
// an error, as is descending into a value.
//
// Set is meant to run after Load and Include, so that command-line values win.
func (c *Config) Set(kv string) error {
	eq := strings.IndexByte(kv, '=')
	if eq < 0 {
		return &Error{Msg: fmt.Sprintf("--set %q: expected key=value", kv)}
	}
	key := strings.TrimSpace(kv[:eq])
	val := strings.TrimLeft(kv[eq+1:], " \t\r\n\v\f")
	if key == "" {
		return &Error{Msg: fmt.Sprintf("--set %q: empty key", kv)}
	}
	segs := strings.Split(key, ".")
	for _, s := range segs {
		if s == "" {
			return &Error{Key: key, Msg: "--set: the key has an empty part"}
		}
	}
	cur := c.root
	listEntry := false // cur is an entry of a list
	for i, seg := range segs {
		listEntry = cur.Kind == SequenceNode
		path := strings.Join(segs[:i], ".")
		switch {
		case cur.Kind == SequenceNode:
			idx, ok := seqIndex(seg)
			if !ok {
				return &Error{Key: key, Msg: fmt.Sprintf("--set: %s is a list; %q is not an index", path, seg)}
			}
			if idx >= len(cur.Children) {
				return &Error{Key: key, Msg: fmt.Sprintf(
					"--set: %s has %d entries; cannot add list entries (index %d)", path, len(cur.Children), idx)}
			}
			cur = cur.Children[idx]
		case cur.Kind == MappingNode || cur.Null:
			if cur.Kind != MappingNode {
				cur.reset(MappingNode, cur.File, cur.Line)
			}
			next := cur.Child(seg)
			if next == nil {
				next = cur.addChild(seg, "", 0)
			}
			cur = next
		default:
			return &Error{Key: key, Msg: fmt.Sprintf("--set: %s is a value (%q), not a mapping", path, cur.Value)}
		}
	}
	if cur.Kind != ScalarNode && !(listEntry && cur.Kind == MappingNode) {
		return &Error{Key: key, Msg: fmt.Sprintf("--set: cannot replace a %s with a value", cur.Kind)}
	}
	cur.reset(ScalarNode, "", 0)
	cur.Value = val
	return nil
}

// Dump returns the configuration flattened into "key = value" lines, in file order, as
// Suricata's --dump-config prints it: every node has a line, a mapping or list has the value
// "(null)", except a mapping that is a list entry, whose value is its first key
// ("outputs.0 = fast"); a null value prints as "(null)".
func (c *Config) Dump() []string {
	var out []string
	var walk func(n *Node, prefix string, inSeq bool)
	walk = func(n *Node, prefix string, inSeq bool) {
		for _, ch := range n.Children {
			name := ch.Name
			if prefix != "" {
				name = prefix + "." + ch.Name
			}
			val := "(null)"
			switch {
			case ch.Kind == ScalarNode && !ch.Null:
				val = ch.Value
			case ch.Kind == MappingNode && inSeq && len(ch.Children) > 0:
				val = ch.Children[0].Name
			}
			out = append(out, name+" = "+val)
			if ch.Kind != ScalarNode {
				walk(ch, name, ch.Kind == SequenceNode)
			}
		}
	}
	walk(c.root, "", false)
	return out
}
