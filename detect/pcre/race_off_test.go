//go:build !race

package pcre

const raceOn = false
