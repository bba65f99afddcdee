package rules

import "strings"

// String prints the rule canonically: header fields without white space inside, keywords
// under their canonical names with canonical arguments, "; " between options. Parsing the
// result gives the same rule (the same options, header sets, buffers and matches).
func (r *Rule) String() string {
	var b strings.Builder
	b.Grow(len(r.Raw) + 16)
	h := &r.Header
	for i, a := range h.Actions {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a.String())
		if i == 0 && h.Scope != ScopeAuto {
			b.WriteByte(':')
			b.WriteString(h.Scope.String())
		}
	}
	b.WriteByte(' ')
	b.WriteString(h.Protocol.String())
	b.WriteByte(' ')
	b.WriteString(h.Src.String())
	b.WriteByte(' ')
	b.WriteString(h.SrcPort.String())
	b.WriteByte(' ')
	b.WriteString(string(h.Direction))
	b.WriteByte(' ')
	b.WriteString(h.Dst.String())
	b.WriteByte(' ')
	b.WriteString(h.DstPort.String())
	b.WriteString(" (")
	for i, o := range r.Options {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(o.String())
		b.WriteByte(';')
	}
	b.WriteByte(')')
	return b.String()
}

// String prints the option as "name" or "name:value" ("name:!value" when negated).
func (o *Option) String() string {
	if o.Value == "" && !o.Negated {
		return o.Name
	}
	if o.Negated {
		return o.Name + ":!" + o.Value
	}
	return o.Name + ":" + o.Value
}
