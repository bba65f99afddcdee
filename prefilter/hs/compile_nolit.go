//go:build !hyperscan_v52 && !hyperscan_v54

package hs

import "github.com/flier/gohs/hyperscan"

// literalAPIAvailable: without the hyperscan_v52/hyperscan_v54 build tag gohs does not expose
// Hyperscan's pure literal API.
const literalAPIAvailable = false

func compileLiteral(ps []Pattern) (hyperscan.Database, error) { return compileRegex(ps) }
