//go:build hyperscan_v52 || hyperscan_v54

package hs

import "github.com/flier/gohs/hyperscan"

// literalAPIAvailable: gohs was built with Hyperscan's pure literal API (hs_compile_lit_multi).
const literalAPIAvailable = true

// compileLiteral compiles ps with hs_compile_lit_multi: the bytes are passed as they are, with
// their length, so NUL and every other byte value is literal.
func compileLiteral(ps []Pattern) (hyperscan.Database, error) {
	lits := make(hyperscan.Literals, len(ps))
	for i, p := range ps {
		lits[i] = &hyperscan.Literal{Expression: string(p.Bytes), Flags: flags(p), Id: int(p.ID)}
	}
	return lits.Build(hyperscan.BlockMode)
}
