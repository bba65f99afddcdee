package detect

import "github.com/meerkat-ids/meerkat/flow"

// flowState is what detection keeps per flow, in the worker's FlowStates (flow.Slots indexed by
// the flow's slot), so that package flow holds no detection state: per direction, whether the
// IP-only rules ran and the cached broad-rule candidates, and the session tags.
type flowState struct {
	// engine is the engine whose iids the broad caches hold: an engine built on a reload
	// numbers its rules anew, so its packets look the candidates up again.
	engine *Engine
	// ipOnlyDone records, per direction, that the IP-only rules were evaluated: Suricata
	// evaluates them on the first packet of each direction only.
	ipOnlyDone [2]bool
	// broad caches, per direction, the broad rules whose header accepts the flow's tuple, so
	// only a direction's first packet looks them up.
	broad [2]broadCache
	// tags are the session tags rules installed on the flow (the tag keyword).
	tags []tagEntry
}

// broadCacheSize is how many broad-rule candidates a flow direction caches inline.
const broadCacheSize = 16

// broadCache is one flow direction's cached broad-rule candidates, the rules whose address,
// port and protocol fields accept its tuple, by their broad-index numbers. A direction with
// more candidates than fit sets overflow, and its packets look the rules up each time.
type broadCache struct {
	valid    bool
	overflow bool
	// witnessed says that a cached rule has a header witness, which each packet's header
	// values decide.
	witnessed bool
	n         uint8
	// nFW counts the firewall rules at the start of keys (the broad index numbers them first).
	nFW  uint8
	keys [broadCacheSize]uint32
	// fwFirst is the firewall rule (iid+1; 0 when unknown) that decides this direction's
	// packets when its match and every firewall candidate before it depend only on the
	// header: later packets apply it without evaluating the firewall rules again.
	fwFirst uint32
	// fwQuiet says that the fwFirst rule is an accept:hook rule without alert: applying it
	// only ends the firewall walk, so the rule itself need not be read again.
	fwQuiet bool
}

// FlowStates is one worker's per-flow detection state. A worker keeps it across engines: a
// ThreadCtx for a new engine takes it over (ThreadCtx.ContinueFrom), so IP-only progress and
// session tags survive a rule reload.
type FlowStates struct {
	slots flow.Slots[flowState]
	// tx is the worker's transaction state stores (TxData.Detect indexes them).
	tx txPool
}

// at returns f's detection state for engine e (nil without a flow).
func (s *FlowStates) at(f *flow.Flow, e *Engine) *flowState {
	if f == nil {
		return nil
	}
	st := s.slots.At(f)
	if st.engine != e {
		st.engine = e
		st.broad = [2]broadCache{}
	}
	return st
}

// ContinueFrom makes tc keep its per-flow state in old's, so a worker that swaps engines
// carries its flows' detection state over. Call it before tc inspects any packet.
func (tc *ThreadCtx) ContinueFrom(old *ThreadCtx) { tc.flows = old.flows }
