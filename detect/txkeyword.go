package detect

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// The app-layer match keywords that are not sticky buffers: a protocol's applayer.Keyword
// (its own argument grammar) and applayer.Value (an integer expression), and the generic
// app-layer-state. The rules package puts each in a list of its own name (addAppMatch);
// every option of it becomes one inspect engine (DetectAppLayerInspectEngineRegister of the
// keyword's list), which matches or, once the direction is complete, can't match
// (DetectEngineInspectGenericList).

// appStateList is app-layer-state's list.
const appStateList = "app-layer-state"

// isKeywordList reports whether rule list name is a match keyword's of protocol p.
func isKeywordList(name string, p applayer.Proto) bool {
	if name == appStateList {
		return true
	}
	return applayer.KeywordFor(name, p) != nil || applayer.ValueFor(name, p) != nil
}

// keywordEngines compiles list b's options for protocol p into engines in the directions
// dirs allows (the rule's, or both for a transactional rule).
func keywordEngines(b *rules.Buffer, p applayer.Proto, dirs [2]bool) ([]txEngine, error) {
	parser := applayer.ParserOf(p)
	var out []txEngine
	for _, o := range b.Matches {
		var kwDirs [2]bool
		var prog [2]uint8
		var m applayer.TxMatch
		switch {
		case b.Name == appStateList:
			d, progress, mode, err := appStateArg(o.Value, parser)
			if err != nil {
				return nil, err
			}
			if mode == 0 {
				continue // the rule's hook (appStateHook)
			}
			kwDirs[d] = true
			m = func(tx applayer.Tx, dir applayer.Dir, _ *applayer.GetCtx) bool {
				v := tx.TxData().Progress[dir]
				return mode < 0 && v < progress || mode > 0 && v > progress
			}
		case applayer.KeywordFor(b.Name, p) != nil:
			k := applayer.KeywordFor(b.Name, p)
			var err error
			if m, err = k.Compile(o.Value, o.Negated); err != nil {
				return nil, err
			}
			kwDirs, prog = k.Dirs, k.Progress
		default:
			v := applayer.ValueFor(b.Name, p)
			im, err := valueArg(o, v)
			if err != nil {
				return nil, err
			}
			kwDirs, prog = v.Dirs, v.Progress
			m = valueMatch(v, im)
		}
		added := false
		for d := range 2 {
			if !kwDirs[d] || !dirs[d] {
				continue
			}
			out = append(out, txEngine{kind: engKeyword, list: -1, dir: flow.Direction(d), progress: prog[d],
				kw: m, complete: parser.Complete[d]})
			added = true
		}
		if !added && b.Name != appStateList {
			return nil, fmt.Errorf("%s has no engine in the rule's direction", b.Name)
		}
	}
	return out, nil
}

// valueArg is the integer expression of integer keyword v: the rule parser's (keywords
// declared with a maximum), else o's value, which may be one of v's names or its negation
// (detect_parse_uint_enum).
func valueArg(o *rules.Option, v *applayer.Value) (rules.IntMatch, error) {
	if im, ok := o.Arg.(rules.IntMatch); ok {
		return im, nil
	}
	s := strings.TrimSpace(o.Value)
	neg := o.Negated
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		neg, s = true, strings.TrimSpace(rest)
	}
	for name, n := range v.Names {
		if strings.EqualFold(name, s) {
			if neg {
				return rules.IntMatch{Op: "!=", A: n}, nil
			}
			return rules.IntMatch{Op: "=", A: n}, nil
		}
	}
	max := v.Max
	if max == 0 {
		max = 1<<64 - 1
	}
	expr := strings.TrimSpace(o.Value)
	if o.Negated {
		expr = "!" + expr
	}
	im, err := rules.ParseIntMatch(expr, max)
	if err != nil {
		return im, fmt.Errorf("%s: %w", v.Name, err)
	}
	return im, nil
}

// valueMatch is the matcher of integer keyword v with expression im: any value of a
// multi-valued keyword may match.
func valueMatch(v *applayer.Value, im rules.IntMatch) applayer.TxMatch {
	get := v.Get
	if !v.Multi {
		return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
			n, ok := get(tx, dir, 0, ctx)
			return ok && im.Match(n)
		}
	}
	return func(tx applayer.Tx, dir applayer.Dir, ctx *applayer.GetCtx) bool {
		for i := 0; i < txMaxInstances; i++ {
			n, ok := get(tx, dir, i, ctx)
			if !ok {
				return false
			}
			if im.Match(n) {
				return true
			}
		}
		return false
	}
}

// appStateArg parses app-layer-state's "[<|>]name" (DetectAppLayerStateSetup): the state
// is looked up among the to-server names first; mode is -1 for '<', 1 for '>', 0 for a
// plain name (the rule's hook).
func appStateArg(arg string, parser *applayer.Parser) (dir flow.Direction, progress uint8, mode int, err error) {
	s := strings.TrimSpace(arg)
	switch {
	case strings.HasPrefix(s, "<"):
		mode, s = -1, s[1:]
	case strings.HasPrefix(s, ">"):
		mode, s = 1, s[1:]
	}
	if parser == nil {
		return 0, 0, 0, fmt.Errorf("app-layer-state needs a protocol with a parser")
	}
	d, v, ok := stateID(parser, s)
	if !ok {
		return 0, 0, 0, fmt.Errorf("app-layer-state: %s has no state %q", parser.Proto, s)
	}
	return d, v, mode, nil
}

// appStateHook returns the hook a plain app-layer-state:name sets (SetAppHook), ok false
// when r has none.
func appStateHook(r *rules.Rule, p applayer.Proto) (appHook, bool) {
	for _, b := range r.Buffers {
		if b.Name != appStateList {
			continue
		}
		for _, o := range b.Matches {
			d, progress, mode, err := appStateArg(o.Value, applayer.ParserOf(p))
			if err == nil && mode == 0 {
				return appHook{ok: true, proto: p, dir: d, progress: progress}, true
			}
		}
	}
	return appHook{}, false
}
