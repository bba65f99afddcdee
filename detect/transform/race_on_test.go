//go:build race

package transform

// raceOn: the race detector makes sync.Pool drop items, so pools allocate.
const raceOn = true
