package detect

// txStore is detection's state of one transaction in one direction (Suricata's
// DetectEngineStateDirection plus the tx's detect_progress and its "inspected" flag): the
// rules with stored inspection flags, in iid order. A TxData's Detect[dir] holds its index
// in the worker's txPool.
type txStore struct {
	// engine is the engine whose iids items hold: after a rule reload the state starts
	// afresh.
	engine *Engine
	items  []txItem
	// detectProgress is the tx's progress the prefilter has run past, plus one (0: none),
	// as Suricata's detect_progress_ts/tc: a buffer's database is not scanned again once the
	// tx went past its progress and the scan ran.
	detectProgress uint8
	// inspected: the tx is complete in this direction and was inspected
	// (APP_LAYER_TX_INSPECTED_TS/TC): later packets skip it.
	inspected bool
	// fwAccept: a firewall accept:tx (or an accept:tx policy) accepted the tx
	// (APP_LAYER_TX_ACCEPT); it is set in both directions.
	fwAccept bool
	// nextFree links the free stores.
	nextFree uint32
	live     bool
}

// txItem is one rule's stored flags for a transaction direction: a bit per inspect engine
// that matched, and stFull / stCant.
type txItem struct {
	iid, flags uint32
}

// The stored-state flags beyond the engine bits (DE_STATE_FLAG_FULL_INSPECT,
// DE_STATE_FLAG_SIG_CANT_MATCH).
const (
	stFull uint32 = 1 << 31
	stCant uint32 = 1 << 30
)

// txStateMax bounds a worker's live transaction stores: past it a transaction's state is not
// kept (its rules are inspected again on the next packet, and counted in TxStateFull).
const txStateMax = 1 << 20

// txPool is one worker's transaction stores, reused: a store released by ReleaseTx keeps its
// items' memory for the next transaction, so the steady state allocates nothing.
type txPool struct {
	stores []txStore // [0] is never used: Detect 0 means "no state"
	free   uint32
	live   int
}

// at returns the store with index idx for engine e, nil for none (0, out of range, released).
// A store of an earlier engine is emptied first.
func (p *txPool) at(idx uint32, e *Engine) *txStore {
	if idx == 0 || int(idx) >= len(p.stores) {
		return nil
	}
	s := &p.stores[idx]
	if !s.live {
		return nil
	}
	if s.engine != e {
		s.engine, s.items, s.detectProgress, s.inspected, s.fwAccept = e, s.items[:0], 0, false, false
	}
	return s
}

// alloc returns a fresh store and its index; 0 and nil when the pool is full.
func (p *txPool) alloc(e *Engine) (uint32, *txStore) {
	if p.live >= txStateMax {
		return 0, nil
	}
	if len(p.stores) == 0 {
		p.stores = make([]txStore, 1, 64)
	}
	idx := p.free
	if idx != 0 {
		p.free = p.stores[idx].nextFree
	} else {
		p.stores = append(p.stores, txStore{})
		idx = uint32(len(p.stores) - 1)
	}
	s := &p.stores[idx]
	*s = txStore{engine: e, items: s.items[:0], live: true}
	p.live++
	return idx, s
}

// release hands store idx back.
func (p *txPool) release(idx uint32) {
	if idx == 0 || int(idx) >= len(p.stores) || !p.stores[idx].live {
		return
	}
	s := &p.stores[idx]
	s.live, s.engine, s.items, s.nextFree = false, nil, s.items[:0], p.free
	p.free = idx
	p.live--
}
