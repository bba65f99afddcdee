package payload

import (
	"github.com/meerkat-ids/meerkat/detect/pcre"
	"github.com/meerkat-ids/meerkat/rules"
)

// PCREMatchTimeout bounds one evaluation of a backtracking (regexp2) expression; a timeout is
// a matching error, which Suricata treats as no match (like exceeding pcre.match-limit): the
// pcre, negated or not, does not match, so neither does the rule on that packet.
var PCREMatchTimeout = pcre.DefaultMatchTimeout

// PCREPacketBudget bounds the time backtracking (regexp2) expressions may take on one packet,
// over every rule (State.StartPacket starts a packet): each evaluation may take at most what
// is left of it (or PCREMatchTimeout, if less), and once it is spent the packet's further
// regexp2 evaluations are matching errors, so a hostile payload cannot hold a worker for
// PCREMatchTimeout times every such rule and retry. Suricata bounds each evaluation by
// pcre.match-limit steps instead, which Go's regexp2 cannot count.
var PCREPacketBudget = pcre.DefaultBudget

// Engine names reported by (*Program).Engines.
const (
	EngineRE2     = pcre.EngineRE2     // Go's linear-time regexp, byte-exact through a latin-1 mapping
	EngineRegexp2 = pcre.EngineRegexp2 // backtracking, for lookaround and backreferences
)

// PCREError is returned for an expression neither engine compiles.
type PCREError = pcre.Error

func compilePCREOp(o *op, a *rules.PCRE, buffer string) error {
	if a.Buffer != "" && a.Buffer != buffer {
		// The parser moves pcre with a buffer flag to that buffer; one still carrying it in
		// another buffer can't be honoured.
		return unsupported("pcre", "buffer flag for "+a.Buffer)
	}
	re, err := pcre.Compile(a.Pattern, pcre.Options{Caseless: a.Caseless, Multiline: a.Multiline,
		DotAll: a.DotAll, Extended: a.Extended, Anchored: a.Anchored, DollarEndOnly: a.DollarEndOnly,
		Ungreedy: a.Ungreedy})
	if err != nil {
		return err
	}
	o.kind = kPCRE
	o.re = re
	o.relative = a.Relative
	o.negated = a.Negated
	return nil
}

// findPCRE runs o's expression on subj from start under the pcre keyword's time bounds,
// counting the evaluations they cut short in st. res is 1 (match at [s,e)), 0 (no match) or
// -1 (a matching error: timeout, budget spent, bad offset).
func (o *op) findPCRE(subj []byte, start int, needPos bool, st *State) (s, e, res int) {
	s, e, r := o.re.Find(subj, start, needPos, pcre.Limits{Match: PCREMatchTimeout, Budget: PCREPacketBudget}, &st.rx)
	switch r {
	case pcre.Match:
		return s, e, 1
	case pcre.NoMatch:
		return 0, 0, 0
	case pcre.Timeout:
		st.PCRETimeouts++
	case pcre.BudgetSpent:
		st.PCREBudgetHits++
	}
	return 0, 0, -1
}

// Engines returns the pcre engine of each pcre of the program, in order.
func (p *Program) Engines() []string {
	var out []string
	for i := range p.ops {
		if p.ops[i].kind == kPCRE {
			out = append(out, p.ops[i].re.Engine())
		}
	}
	return out
}
