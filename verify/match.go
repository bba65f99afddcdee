package verify

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Resolve walks a decoded JSON value along the path. It returns the value
// and whether it was found; a JSON null is found with value nil.
//
// A segment name looks up an object key; [N] indexes a list. As an extension
// a purely numeric segment (a.0.c) indexes a list when the value at that
// point is a list. __len yields the length of the value at that point:
// characters of a string, items of a list, keys of an object, and -1 for
// anything else (numbers, booleans, null), as upstream does.
func (p Path) Resolve(v any) (any, bool) {
	cur := v
	for _, seg := range p {
		if seg.Len {
			return lengthOf(cur), true
		}
		if seg.Name != "" || len(seg.Index) == 0 {
			switch x := cur.(type) {
			case map[string]any:
				next, ok := x[seg.Name]
				if !ok {
					return nil, false
				}
				cur = next
			case []any:
				i, err := strconv.Atoi(seg.Name)
				if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != seg.Name {
					return nil, false
				}
				cur = x[i]
			default:
				return nil, false
			}
		}
		for _, i := range seg.Index {
			l, ok := cur.([]any)
			if !ok || i >= len(l) {
				return nil, false
			}
			cur = l[i]
		}
	}
	return cur, true
}

// lengthOf is the value of a __len segment.
func lengthOf(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(utf8.RuneCountInString(x))
	case []any:
		return int64(len(x))
	case map[string]any:
		return int64(len(x))
	}
	return -1
}

// Match reports whether the condition holds for one event.
func (c *Cond) Match(event any) bool {
	switch c.Op {
	case OpHasKey:
		for _, p := range c.Paths {
			if v, ok := p.Resolve(event); !ok || v == nil {
				return false
			}
		}
		return true
	case OpNotHasKey:
		for _, p := range c.Paths {
			if v, ok := p.Resolve(event); ok && v != nil {
				return false
			}
		}
		return true
	}
	if len(c.Paths) != 1 {
		return false
	}
	v, found := c.Paths[0].Resolve(event)
	return applyOp(c.Op, v, found, c.Want)
}

// applyOp compares an observed value with the expected one.
func applyOp(op Op, v any, found bool, want any) bool {
	switch op {
	case OpEq:
		if !found {
			// Upstream compares a missing value as None, so only an
			// explicit null expectation matches a missing key.
			return want == nil
		}
		return ValuesEqual(v, want)
	case OpFind:
		s, ok1 := v.(string)
		w, ok2 := want.(string)
		return found && ok1 && ok2 && strings.Contains(s, w)
	case OpStartsWith:
		s, ok1 := v.(string)
		w, ok2 := want.(string)
		return found && ok1 && ok2 && strings.HasPrefix(s, w)
	case OpEndsWith:
		s, ok1 := v.(string)
		w, ok2 := want.(string)
		return found && ok1 && ok2 && strings.HasSuffix(s, w)
	case OpContains:
		if !found {
			return false
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if ValuesEqual(e, want) {
					return true
				}
			}
		case string:
			w, ok := want.(string)
			return ok && strings.Contains(x, w)
		case map[string]any:
			w, ok := want.(string)
			if ok {
				_, has := x[w]
				return has
			}
		}
		return false
	case OpGt, OpGte, OpLt, OpLte:
		if !found {
			return false
		}
		a, ok1 := toNumber(v)
		b, ok2 := toNumber(want)
		if !ok1 || !ok2 {
			return false
		}
		c := a.cmp(b)
		switch op {
		case OpGt:
			return c > 0
		case OpGte:
			return c >= 0
		case OpLt:
			return c < 0
		default:
			return c <= 0
		}
	}
	return false
}

// number is an integer or a float taken from JSON or YAML.
type number struct {
	isInt bool
	i     int64
	u     uint64 // for integers above MaxInt64 (then big is true)
	big   bool
	f     float64
}

// toNumber converts JSON and YAML numbers; booleans and strings are not
// numbers.
func toNumber(v any) (number, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return number{isInt: true, i: i}, true
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return number{isInt: true, u: u, big: true}, true
		}
		f, err := x.Float64()
		if err != nil {
			return number{}, false
		}
		return number{f: f}, true
	case int64:
		return number{isInt: true, i: x}, true
	case int:
		return number{isInt: true, i: int64(x)}, true
	case uint64:
		if x > math.MaxInt64 {
			return number{isInt: true, u: x, big: true}, true
		}
		return number{isInt: true, i: int64(x)}, true
	case float64:
		return number{f: x}, true
	}
	return number{}, false
}

func (n number) float() float64 {
	switch {
	case n.isInt && n.big:
		return float64(n.u)
	case n.isInt:
		return float64(n.i)
	}
	return n.f
}

// cmp compares two numbers; NaN compares unequal to everything (returns 2).
func (n number) cmp(o number) int {
	if n.isInt && o.isInt {
		switch {
		case n.big && o.big:
			return cmpOrdered(n.u, o.u)
		case n.big:
			return 1
		case o.big:
			return -1
		}
		return cmpOrdered(n.i, o.i)
	}
	a, b := n.float(), o.float()
	if math.IsNaN(a) || math.IsNaN(b) {
		return 2
	}
	return cmpOrdered(a, b)
}

func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ValuesEqual compares an observed JSON value with an expected YAML value,
// strictly by type: numbers equal numbers of the same value (1 == 1.0),
// strings equal strings, booleans equal booleans, null equals null; lists
// and objects compare element by element.
func ValuesEqual(obs, want any) bool {
	switch w := want.(type) {
	case nil:
		return obs == nil
	case bool:
		o, ok := obs.(bool)
		return ok && o == w
	case string:
		o, ok := obs.(string)
		return ok && o == w
	case int64, uint64, float64, int, json.Number:
		a, ok1 := toNumber(obs)
		b, _ := toNumber(w)
		return ok1 && a.cmp(b) == 0
	case []any:
		o, ok := obs.([]any)
		if !ok || len(o) != len(w) {
			return false
		}
		for i := range w {
			if !ValuesEqual(o[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		o, ok := obs.(map[string]any)
		if !ok || len(o) != len(w) {
			return false
		}
		for k, wv := range w {
			ov, ok := o[k]
			if !ok || !ValuesEqual(ov, wv) {
				return false
			}
		}
		return true
	}
	return false
}

// Render formats a value as compact JSON for messages ("1" and 1 differ).
func Render(v any) string {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return pyFloat(x)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Describe renders the condition as written, e.g. `alert.signature_id: 1`.
func (c *Cond) Describe() string {
	switch c.Op {
	case OpHasKey, OpNotHasKey:
		names := make([]string, len(c.Paths))
		for i, p := range c.Paths {
			names[i] = p.String()
		}
		return string(c.Op) + ": " + strings.Join(names, ", ")
	}
	return c.Key + ": " + Render(c.Want)
}

// ObservedIn describes what the event holds at the condition's path(s).
func (c *Cond) ObservedIn(event any) string {
	var parts []string
	for _, p := range c.Paths {
		v, ok := p.Resolve(event)
		if !ok {
			parts = append(parts, p.String()+" missing")
			continue
		}
		parts = append(parts, p.String()+"="+Render(v))
	}
	return strings.Join(parts, ", ")
}

// String formats a path back to dotted form.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		if s.Len {
			b.WriteString("__len")
			continue
		}
		b.WriteString(s.Name)
		for _, ix := range s.Index {
			fmt.Fprintf(&b, "[%d]", ix)
		}
	}
	return b.String()
}

// missingIn reports whether the condition fails because a key is absent
// (rather than present with another value).
func (c *Cond) missingIn(event any) bool {
	if c.Op == OpNotHasKey {
		return false
	}
	for _, p := range c.Paths {
		if _, ok := p.Resolve(event); !ok {
			return true
		}
	}
	return false
}
