package hs

import "sync/atomic"

// cacheHits counts databases read back from the on-disk cache.
var cacheHits atomic.Int64

// Progress returns how many databases the process has compiled with Hyperscan and how many it
// read back from the sgh-mpm-caching cache so far. It is safe to call from another goroutine
// while an engine builds: a start-up progress display reads it.
func Progress() (compiled, cached int64) { return compiles.Load(), cacheHits.Load() }

// Version returns the Hyperscan library's version string (hs_version).
func Version() string { return cVersion() }
