package verify

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// KV is one key/value pair of a YAML mapping, kept in document order.
type KV struct {
	// Key is the key's text.
	Key string
	// Value is the converted value (see nodeValue).
	Value any
	node  *yaml.Node
}

// YAML 1.1 plain-scalar resolution, as PyYAML (used by the upstream runner)
// does it. go.yaml.in/yaml/v3 resolves with YAML 1.2 rules, so plain scalars
// are resolved here instead.
var (
	yaml11Bool = map[string]bool{
		"yes": true, "Yes": true, "YES": true, "true": true, "True": true, "TRUE": true, "on": true, "On": true, "ON": true,
		"no": false, "No": false, "NO": false, "false": false, "False": false, "FALSE": false, "off": false, "Off": false, "OFF": false,
	}
	yaml11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yaml11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// parseYAML decodes a YAML document into its root node (the content of the
// document node). An empty document yields nil.
func parseYAML(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	if doc.Kind == yaml.DocumentNode {
		return doc.Content[0], nil
	}
	return &doc, nil
}

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// nodeValue converts a node into plain Go values: nil, bool, int64, uint64,
// float64, string, []any and map[string]any, using YAML 1.1 resolution for
// plain scalars.
func nodeValue(n *yaml.Node) any {
	n = deref(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return nodeValue(n.Content[0])
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, nodeValue(c))
		}
		return out
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for _, kv := range mappingPairs(n) {
			out[kv.Key] = kv.Value
		}
		return out
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil
}

// mappingPairs returns the pairs of a mapping node in document order. Keys
// are converted to their string form (a YAML 1.1 key such as 1 becomes "1").
func mappingPairs(n *yaml.Node) []KV {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]KV, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		key := ""
		if k != nil {
			key = k.Value
		}
		out = append(out, KV{Key: key, Value: nodeValue(n.Content[i+1]), node: deref(n.Content[i+1])})
	}
	return out
}

// scalarValue resolves one scalar node.
func scalarValue(n *yaml.Node) any {
	v := n.Value
	quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.ShortTag() {
		case "!!str":
			return v
		case "!!int":
			if i, ok := parseYAML11Int(v); ok {
				return i
			}
			return v
		case "!!float":
			if f, ok := parseYAML11Float(v); ok {
				return f
			}
			return v
		case "!!bool":
			if b, ok := yaml11Bool[v]; ok {
				return b
			}
			return v
		case "!!null":
			return nil
		}
	}
	if quoted {
		return v
	}
	switch v {
	case "", "~", "null", "Null", "NULL":
		return nil
	}
	if b, ok := yaml11Bool[v]; ok {
		return b
	}
	if yaml11Int.MatchString(v) {
		if i, ok := parseYAML11Int(v); ok {
			return i
		}
	}
	if yaml11Float.MatchString(v) {
		if f, ok := parseYAML11Float(v); ok {
			return f
		}
	}
	return v
}

// parseYAML11Int parses a YAML 1.1 integer. It returns int64 where the value
// fits and uint64 for larger positive values.
func parseYAML11Int(s string) (any, bool) {
	s = strings.ReplaceAll(s, "_", "")
	neg := false
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		neg = s[0] == '-'
		s = s[1:]
	}
	var u uint64
	var err error
	switch {
	case strings.Contains(s, ":"):
		for _, part := range strings.Split(s, ":") {
			d, e := strconv.ParseUint(part, 10, 64)
			if e != nil {
				return nil, false
			}
			u = u*60 + d
		}
	case strings.HasPrefix(s, "0b"):
		u, err = strconv.ParseUint(s[2:], 2, 64)
	case strings.HasPrefix(s, "0x"):
		u, err = strconv.ParseUint(s[2:], 16, 64)
	case len(s) > 1 && s[0] == '0':
		u, err = strconv.ParseUint(s[1:], 8, 64)
	default:
		u, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return nil, false
	}
	if neg {
		if u > 1<<63 {
			return nil, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return u, true
	}
	return int64(u), true
}

// parseYAML11Float parses a YAML 1.1 float.
func parseYAML11Float(s string) (float64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+")) {
	case ".inf":
		return math.Inf(1), true
	case "-.inf":
		return math.Inf(-1), true
	case ".nan":
		return math.NaN(), true
	}
	if strings.Contains(s, ":") {
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimLeft(s, "+-")
		parts := strings.Split(s, ":")
		var f float64
		for _, p := range parts {
			d, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return 0, false
			}
			f = f*60 + d
		}
		if neg {
			f = -f
		}
		return f, true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// scalarText returns the literal text of a scalar node, or "" for other kinds.
// Version strings are taken literally so that 7.10 stays "7.10".
func scalarText(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// stringList accepts a scalar or a sequence of scalars and returns their
// literal texts.
func stringList(n *yaml.Node) []string {
	n = deref(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if isNullScalar(n) {
			return nil
		}
		return []string{n.Value}
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if t := scalarText(c); t != "" {
				out = append(out, t)
			}
		}
		return out
	}
	return nil
}

// isNullScalar reports whether a node is a YAML null.
func isNullScalar(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && scalarValue(n) == nil)
}

// pyStr renders a value the way Python's str() does, which is how upstream
// compares a shell check's `expect` with the command's output.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return pyFloat(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// pyFloat formats a float like Python's repr.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e16 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.Contains(s, "e") {
		// Python writes 1e+20 and 1e-05.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		if len(digits) < 2 {
			digits = fmt.Sprintf("%02s", digits)
		}
		return mant + "e" + string(sign) + digits
	}
	return s
}
