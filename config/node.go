package config

import (
	"strconv"
	"strings"
)

// Kind says what a Node holds.
type Kind uint8

// Node kinds.
const (
	// ScalarNode holds one value (possibly null, see Node.Null).
	ScalarNode Kind = iota
	// MappingNode holds named children, in file order.
	MappingNode
	// SequenceNode holds children named "0", "1", ... in list order.
	SequenceNode
)

// String returns "scalar", "mapping" or "sequence".
func (k Kind) String() string {
	switch k {
	case MappingNode:
		return "mapping"
	case SequenceNode:
		return "sequence"
	default:
		return "scalar"
	}
}

// Node is one node of the configuration tree. The tree mirrors Suricata's ConfNode tree: a
// mapping's children carry their key as Name (case preserved), a sequence's children are named
// by their decimal index, and a scalar carries its text exactly as written (YAML 1.1 words such
// as yes/no/on/off are kept as strings and interpreted by the typed accessors).
type Node struct {
	// Kind is scalar, mapping or sequence.
	Kind Kind
	// Name is the key of this node in its parent mapping, or its index in its parent sequence.
	// The root node has an empty name.
	Name string
	// Value is the text of a scalar node; empty for containers and null scalars.
	Value string
	// Null is true for a scalar written as nothing, ~ or null (unquoted), which Suricata treats
	// as "no value": typed accessors return their default for it.
	Null bool
	// Children are the entries of a mapping or sequence, in order.
	Children []*Node
	// File is the file the node was defined in ("" for nodes created by Set).
	File string
	// Line is the 1-based line of the definition, 0 when unknown.
	Line int

	// index finds the children of a large mapping by name. It is kept up to date by the
	// loader and Set (the only writers), so that lookups never write and loading a mapping
	// with many keys stays linear.
	index map[string]*Node
}

// indexThreshold is the number of mapping children from which lookups use an index.
const indexThreshold = 16

// Child returns the direct child called name: a key of a mapping, or a decimal index of a
// sequence. It returns nil when there is none.
func (n *Node) Child(name string) *Node {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case MappingNode:
		if n.index != nil {
			return n.index[name]
		}
		for _, c := range n.Children {
			if c.Name == name {
				return c
			}
		}
	case SequenceNode:
		if i, ok := seqIndex(name); ok && i < len(n.Children) {
			return n.Children[i]
		}
	}
	return nil
}

// Lookup returns the node at the dotted path key below n ("eve-log.types.0"); an empty key
// returns n itself.
func (n *Node) Lookup(key string) (*Node, bool) {
	if n == nil {
		return nil, false
	}
	if key == "" {
		return n, true
	}
	cur := n
	for seg := range strings.SplitSeq(key, ".") {
		cur = cur.Child(seg)
		if cur == nil {
			return nil, false
		}
	}
	return cur, true
}

// IsNull reports whether n is missing or is a null scalar.
func (n *Node) IsNull() bool { return n == nil || (n.Kind == ScalarNode && n.Null) }

// Scalar returns the value of a non-null scalar node.
func (n *Node) Scalar() (string, bool) {
	if n == nil || n.Kind != ScalarNode || n.Null {
		return "", false
	}
	return n.Value, true
}

// Pos returns "file:line" for messages, or "" when the position is unknown.
func (n *Node) Pos() string {
	if n == nil || n.File == "" {
		return ""
	}
	if n.Line <= 0 {
		return n.File
	}
	return n.File + ":" + strconv.Itoa(n.Line)
}

// Clone returns a deep copy of n.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.index = nil
	if n.Children != nil {
		c.Children = make([]*Node, len(n.Children))
		for i, ch := range n.Children {
			c.Children[i] = ch.Clone()
		}
		c.buildIndex()
	}
	return &c
}

// SeqName returns the name Suricata gives a list entry: for a mapping entry such as
// "- eve-log: {...}" it is the first key ("eve-log"); for a scalar entry such as "- alert" it is
// the value. It returns "" for other entries.
func (n *Node) SeqName() string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case MappingNode:
		if len(n.Children) > 0 {
			return n.Children[0].Name
		}
	case ScalarNode:
		return n.Value
	}
	return ""
}

// reset empties n, keeping its name and place in the parent: this is what happens to a key that
// is defined again (Suricata's ConfNodePrune).
func (n *Node) reset(kind Kind, file string, line int) {
	n.Kind = kind
	n.Value = ""
	n.Null = false
	n.Children = nil
	n.index = nil
	n.File = file
	n.Line = line
}

// addChild appends a new child called name to the mapping or sequence n.
func (n *Node) addChild(name string, file string, line int) *Node {
	c := &Node{Name: name, File: file, Line: line, Null: true}
	n.Children = append(n.Children, c)
	if n.index != nil {
		if _, dup := n.index[name]; !dup {
			n.index[name] = c
		}
	} else if n.Kind == MappingNode && len(n.Children) > indexThreshold {
		n.buildIndex()
	}
	return c
}

// buildIndex indexes the children of a large mapping (the first child of a name wins, as in a
// linear lookup).
func (n *Node) buildIndex() {
	if n.Kind != MappingNode || len(n.Children) <= indexThreshold {
		return
	}
	n.index = make(map[string]*Node, len(n.Children))
	for _, c := range n.Children {
		if _, dup := n.index[c.Name]; !dup {
			n.index[c.Name] = c
		}
	}
}

// seqIndex parses a canonical non-negative decimal list index ("0", "12"; not "01" or "+1").
func seqIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}
