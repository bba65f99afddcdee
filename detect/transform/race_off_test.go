//go:build !race

package transform

const raceOn = false
