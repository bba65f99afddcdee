package match

import "github.com/meerkat-ids/meerkat/flow"

// flowVars returns the variables (flowbits, flowints) of f, which the flow table clears when
// the flow ends.
func flowVars(f *flow.Flow) *flow.Vars { return &f.Vars }
