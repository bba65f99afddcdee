//go:build race

package pcre

// raceOn: the race detector changes allocation counts.
const raceOn = true
