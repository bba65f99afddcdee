package detect

import "github.com/meerkat-ids/meerkat/detect/threshold"

// State is the mutable detection state shared by all workers that outlives one Engine: what
// thresholds, detection_filters and rate_filters have counted, and the host tags. An Engine
// is immutable once built; a rebuilt engine (a rule reload) is given its predecessor's State
// (Config.State), so counting and tagging go on across the swap, as tailscale's filter hands
// its connection state to the next filter.
type State struct {
	thresholds *threshold.Tables
	tagHosts   *TagHosts
}

// NewState returns empty detection state; thresholdMaxEntries bounds the threshold tracking
// tables (0: the package default).
func NewState(thresholdMaxEntries int) *State {
	return &State{thresholds: threshold.NewTables(thresholdMaxEntries), tagHosts: NewTagHosts()}
}

// State returns the engine's mutable state, to hand to the engine built after it.
func (e *Engine) State() *State { return e.state }
