package rules

import "sync/atomic"

// parsedRules counts the rule lines every Loader of the process has parsed.
var parsedRules atomic.Int64

// ParsedRules returns how many rule lines the process's Loaders have parsed so far (good or
// bad). It is safe to call from another goroutine while rules load: a start-up progress
// display reads it.
func ParsedRules() int64 { return parsedRules.Load() }
