package detect

import (
	"sort"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/transform"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/candidates"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
)

// txThread is one worker's scratch for transaction inspection: the flow's app layer for the
// packet (SetApp), the tx candidate set, the per-packet buffer cache and the stored-state
// merge buffers. Nothing in it allocates once it has grown to the rule set's needs.
type txThread struct {
	app *applayer.FlowApp
	ctx applayer.GetCtx
	// cands are one transaction's candidate rules.
	cands *candidates.Set
	hits  []uint32
	// cache holds, per inspection list and direction, the buffer instances fetched for the
	// transaction being inspected (valid while gen matches).
	cache []txCache
	gen   uint32
	// xs holds the transformed buffers of one packet.
	xs *transform.Scratch
	// newItems are the states a transaction's walk adds; merged into its store after it.
	// mirror are those of transactional rules, stored in the other direction too.
	newItems, merged, mirror []txItem
	// pkt are the tx rules the packet walk found through the packet's fast patterns (their
	// fast pattern is payload content), in iid order.
	pkt []uint32
	// Counters: TxInspected counts the transactions inspected, TxStateFull the states that
	// were not stored because the worker's pool was full.
	TxInspected, TxStateFull uint64
}

// keep adds rule r's (iid) new state fl to the transaction's walk (DetectRunStoreStateTx):
// a transactional rule's also to the other direction's state.
func (tt *txThread) keep(r *Rule, iid int, dir flow.Direction, fl uint32) {
	tt.newItems = append(tt.newItems, txItem{iid: uint32(iid), flags: fl})
	if r.tx.bothDir && dir == flow.ToServer {
		tt.mirror = append(tt.mirror, txItem{iid: uint32(iid), flags: fl})
	}
}

// txCache is one list's fetched buffer instances for one transaction.
type txCache struct {
	gen  uint32
	done bool // the getter reported no further instance
	data [][]byte
}

// initTx sets up the transaction scratch of a new ThreadCtx: the candidate set, the buffer
// cache, and the Hyperscan scratch grown for the tx databases.
func (tc *ThreadCtx) initTx() error {
	tp := &tc.e.tx
	tc.tx.cands = candidates.New(len(tc.e.rules))
	tc.tx.cache = make([]txCache, 2*len(tp.lists))
	tc.tx.pkt = make([]uint32, 0, tp.streamMPM)
	tc.tx.xs = transform.NewScratch()
	if len(tp.dbs) == 0 {
		return nil
	}
	tc.tx.hits = make([]uint32, max(tp.maxHits, 1))
	if tc.scanner == nil {
		s, err := hs.NewScanner(tp.dbs...)
		if err != nil {
			return err
		}
		tc.scanner = s
		return nil
	}
	for _, db := range tp.dbs {
		if err := tc.scanner.Grow(db); err != nil {
			return err
		}
	}
	return nil
}

// SetApp hands detection the app layer of the next packet's flow: fa as the framework
// updated it for this packet (nil for a flow without app layer, or a packet without a
// flow) and ctx what the buffer getters need to know of the packet. The pipeline calls it
// before every Inspect; Inspect forgets it when it returns. fa must stay valid, and its
// State unchanged, until Inspect returns. Detection updates fa.InspectID and the
// transactions' TxData.Detect and GuessLogged.
func (tc *ThreadCtx) SetApp(fa *applayer.FlowApp, ctx applayer.GetCtx) {
	tc.tx.app, tc.tx.ctx = fa, ctx
	tc.in.App = fa
}

// endApp forgets the packet's app layer.
func (tc *ThreadCtx) endApp() {
	tc.tx.app, tc.in.App, tc.tx.pkt = nil, nil, tc.tx.pkt[:0]
	tc.frames = nil
}

// noteTxCandidate records a tx rule the packet's prefilter made a candidate (walkTD).
func (tc *ThreadCtx) noteTxCandidate(iid uint32) { tc.tx.pkt = append(tc.tx.pkt, iid) }

// ReleaseTx frees detection's state of a transaction; the pipeline calls it for every
// transaction it frees (State.FreeTxs) or resets, before its TxData is reused. It may be
// called for a transaction detection never saw.
func (tc *ThreadCtx) ReleaseTx(td *applayer.TxData) {
	for d := range td.Detect {
		tc.flows.tx.release(td.Detect[d])
		td.Detect[d] = 0
	}
}

// TxCounters returns the transactions inspected and the states not stored for want of room.
func (tc *ThreadCtx) TxCounters() (inspected, stateFull uint64) {
	return tc.tx.TxInspected, tc.tx.TxStateFull
}

// appProtoIs reports whether the packet's flow protocol matches a rule's protocol
// (AppProtoEquals; a flow without app layer has none).
func (tc *ThreadCtx) appProtoIs(p applayer.Proto) bool {
	return tc.tx.app != nil && applayer.Equals(p, tc.tx.app.Proto)
}

// packetTx is the transaction a packet rule's alert names (DetectRulePacketRules): for a
// UDP rule with an app protocol the flow's inspect-id tx, with detect.guess-applayer-tx
// (Config.GuessAppLayerTx) that tx when it is the flow's only one in the direction, then as a
// guess; each tx at most stream-tx-log-limit times.
func (tc *ThreadCtx) packetTx(e *Engine, r *Rule) (uint64, alert.Flags) {
	fa := tc.tx.app
	if fa == nil || fa.State == nil {
		return alert.NoTx, 0
	}
	udp := tc.in.P != nil && tc.in.P.IsUDP()
	if !(r.alproto != applayer.ProtoUnknown && udp) && !e.cfg.GuessAppLayerTx {
		return alert.NoTx, 0
	}
	id := fa.InspectID[tc.in.Dir]
	st := fa.State
	n := st.TxCount()
	if n == 0 {
		return alert.NoTx, 0
	}
	if !(r.alproto != applayer.ProtoUnknown && udp) {
		// IsOnlyTxInDirection: the inspect-id tx is the flow's last one, or the one after it
		// is not inspected in this direction (a DNS tx of the other direction).
		if last := st.TxAt(n - 1).TxData(); last.ID != id && !(last.ID == id+1 && last.SkipInspect[tc.in.Dir]) {
			return alert.NoTx, 0
		}
	}
	td := txByID(st, id)
	if td == nil || int(td.GuessLogged) >= e.txLogLimit() {
		return alert.NoTx, 0
	}
	td.GuessLogged++
	if udp {
		return id, alert.FlagTx
	}
	return id, alert.FlagTx | alert.FlagTxGuessed
}

// txLogLimit is detect.stream-tx-log-limit.
func (e *Engine) txLogLimit() int {
	if e.cfg.StreamTxLogLimit > 0 {
		return e.cfg.StreamTxLogLimit
	}
	return defaultStreamTxLogLimit
}

// defaultStreamTxLogLimit is detect.stream-tx-log-limit's default.
const defaultStreamTxLogLimit = 4

// txFrom returns the index of st's first live tx (of n) whose id is id or above, n for none
// (the live txs are in id order).
func txFrom(st applayer.State, n int, id uint64) int {
	return sort.Search(n, func(i int) bool { return st.TxAt(i).TxData().ID >= id })
}

// txByID returns the TxData of the live tx with id, nil for none.
func txByID(st applayer.State, id uint64) *applayer.TxData {
	n := st.TxCount()
	if i := txFrom(st, n, id); i < n {
		if td := st.TxAt(i).TxData(); td.ID == id {
			return td
		}
	}
	return nil
}

// runTx is the transaction stage of a packet's inspection (DetectRun's tx part, after the
// packet rules): for a TCP packet only when the packet is stream-established (the flow's
// established flag for the packet) and the app layer was updated in the packet's direction,
// or for a flow-end pseudo packet; then DetectRunTx over the transactions from the
// direction's inspect id, and AppLayerParserSetTransactionInspectId.
func (e *Engine) runTx(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	fa := tc.tx.app
	if fa == nil || f == nil || fa.State == nil || fa.Parser == nil || fa.Disabled && !p.Pseudo() {
		return
	}
	if f.Proto != p.IPProto {
		return // an ICMP error about the flow (DetectRun: pflow->proto == p->proto)
	}
	if p.IsTCP() && !p.Pseudo() && (!f.PacketEstablished() || !fa.Updated[dir]) {
		return
	}
	tp := &e.tx
	tc.tx.xs.Reset() // the last packet's transformed buffers are no longer read
	var tabs *txProto
	if fa.Proto < applayer.Proto(len(tp.protos)) {
		tabs = tp.protos[fa.Proto]
	}
	st := fa.State
	end := fa.Parser.Complete[dir]
	if tabs != nil {
		n := st.TxCount()
		for i := txFrom(st, n, fa.InspectID[dir]); i < n; i++ {
			tx := st.TxAt(i)
			td := tx.TxData()
			prog := td.Progress[dir]
			// GetDetectTx: a tx the parser did not touch is skipped unless it is complete
			// (or the stream ended).
			if !td.Updated[dir] && prog < end && !tc.tx.ctx.EOF || td.SkipInspect[dir] {
				continue // GetDetectTx: also a tx not inspected in this direction (SKIP_INSPECT)
			}
			store := tc.flows.tx.at(td.Detect[dir], e)
			if store != nil && store.inspected {
				continue
			}
			e.inspectTx(tc, p, f, dir, tabs, tx, td, store)
			if prog >= end {
				if s := e.txStore(tc, td, dir); s != nil {
					s.inspected = true
				}
			}
			for _, b := range tabs.inspected[dir] {
				b.Inspected(tx, dir, &tc.tx.ctx)
			}
		}
	}
	setInspectID(fa, dir, end)
}

// setInspectID moves the direction's inspect id past the transactions complete in it
// (AppLayerParserSetTransactionInspectId), stopping at the first incomplete one.
func setInspectID(fa *applayer.FlowApp, dir flow.Direction, end uint8) {
	st := fa.State
	n := st.TxCount()
	idx := fa.InspectID[dir]
	for i := txFrom(st, n, idx); i < n; i++ {
		td := st.TxAt(i).TxData()
		if td.Progress[dir] < end {
			if td.ID > idx {
				idx = td.ID
			}
			break
		}
		idx = td.ID + 1
	}
	fa.InspectID[dir] = idx
}

// txStore returns the tx's store in dir, making one when it has none (nil when the pool is
// full).
func (e *Engine) txStore(tc *ThreadCtx, td *applayer.TxData, dir flow.Direction) *txStore {
	if s := tc.flows.tx.at(td.Detect[dir], e); s != nil {
		return s
	}
	tc.flows.tx.release(td.Detect[dir])
	idx, s := tc.flows.tx.alloc(e)
	if s == nil {
		tc.tx.TxStateFull++
	}
	td.Detect[dir] = idx
	return s
}

// inspectTx inspects one transaction in the packet's direction (DetectRunTx's loop body):
// its candidates are the rules whose fast pattern a buffer's database found, the protocol's
// rules without one, and the rules with stored state; each is inspected in iid order.
func (e *Engine) inspectTx(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction, tabs *txProto, tx applayer.Tx, td *applayer.TxData, store *txStore) {
	tt := &tc.tx
	dp, newDP := e.collectTx(tc, p, dir, tabs, tx, td, store)
	for m := tabs.nonPF[dir]; m != 0; m &= m - 1 {
		if pr := uint8(bits0(m)); pr < td.Progress[dir] {
			newDP = max(newDP, pr+1)
		}
	}
	cs := tt.cands
	tt.newItems, tt.mirror = tt.newItems[:0], tt.mirror[:0]
	j := 0
	for iid, ok := cs.Next(0); ok; iid, ok = cs.Next(iid + 1) {
		var flags *uint32
		if store != nil {
			for j < len(store.items) && store.items[j].iid < uint32(iid) {
				j++
			}
			if j < len(store.items) && store.items[j].iid == uint32(iid) {
				flags = &store.items[j].flags
				if *flags&(stFull|stCant) != 0 {
					continue
				}
			}
		}
		r := e.rules[iid]
		engines := r.tx.engines(tc.tx.app.Proto)
		if engines == nil {
			continue
		}
		res, fl, keep := e.inspectTxRule(tc, p, f, dir, r, engines, tx, td, flags)
		if flags != nil {
			*flags = fl
		} else if keep {
			tt.keep(r, iid, dir, fl)
		}
		if res {
			tc.in.Tx = td // xbits track tx set: the matched transaction (det_ctx->tx_id)
			r.post.Apply(&tc.in)
			tc.in.Tx = nil
			e.addMatch(tc, r, p, f, td.ID, alert.FlagStateMatch|alert.FlagTx)
		}
	}
	e.storeTx(tc, td, dir, store, dp, newDP)
}

// collectTx fills the tx candidate set for one transaction (DetectRunPrefilterTx and the
// candidate merges of DetectRunTx): the rules whose fast pattern a buffer's database found,
// the protocol's rules without one, the tx rules the packet's prefilter found and the rules
// with stored state. It returns the tx's detect progress before and after the scans.
func (e *Engine) collectTx(tc *ThreadCtx, p *decode.Packet, dir flow.Direction, tabs *txProto, tx applayer.Tx, td *applayer.TxData, store *txStore) (dp, newDP uint8) {
	tt := &tc.tx
	tp := &e.tx
	tt.TxInspected++
	tt.gen++
	if tt.gen == 0 { // wrapped: old entries could read as fresh
		for i := range tt.cache {
			tt.cache[i].gen = 0
		}
		tt.gen = 1
	}
	cs := tt.cands
	cs.Reset()
	prog := td.Progress[dir]
	if store != nil {
		dp = store.detectProgress
	}
	newDP = dp
	g := tp.groups.groupOf(p, dir)
	// DetectRunPrefilterTx: the databases of the buffers whose progress the tx reached, but
	// not again once the tx went past a buffer's progress after its scan.
	for _, li := range tabs.mpm[dir] {
		l := &tp.lists[li]
		lp := l.buf.Progress[dir]
		if lp > prog {
			break
		}
		if prog > lp && dp > lp {
			continue
		}
		m := &l.grp[dir][g]
		if m.db == nil {
			continue // no rule of the packet's group has its fast pattern here
		}
		for i := 0; ; i++ {
			data, ok := tt.buffer(l, int(li), tx, dir, i)
			if !ok {
				break
			}
			e.scanTx(tc, m, data)
			if !l.buf.Multi {
				break
			}
		}
		if prog > lp {
			newDP = max(newDP, lp+1)
		}
	}
	for _, iid := range tabs.always[dir] {
		cs.Add(int(iid))
	}
	// RuleMatchCandidateMergeStateRules: the tx rules the packet's own prefilter found.
	for _, iid := range tt.pkt {
		cs.Add(int(iid))
	}
	if store != nil {
		for _, it := range store.items {
			cs.Add(int(it.iid))
		}
	}
	return dp, newDP
}

// storeTx keeps what one packet's walk learned of a transaction: its new detect progress and
// the new stored states (merged into its store), and a transactional rule's states in the
// other direction too.
func (e *Engine) storeTx(tc *ThreadCtx, td *applayer.TxData, dir flow.Direction, store *txStore, dp, newDP uint8) {
	tt := &tc.tx
	if len(tt.newItems) > 0 || newDP != dp {
		s := store
		if s == nil {
			s = e.txStore(tc, td, dir)
		}
		if s != nil {
			s.detectProgress = newDP
			if len(tt.newItems) > 0 {
				tt.merged = mergeItems(tt.merged[:0], s.items, tt.newItems)
				s.items, tt.merged = tt.merged, s.items
			}
		}
	}
	if len(tt.mirror) > 0 {
		if s := e.txStore(tc, td, flow.ToClient); s != nil {
			tt.merged = mergeItems(tt.merged[:0], s.items, tt.mirror)
			s.items, tt.merged = tt.merged, s.items
		}
	}
}

// mergeItems merges two iid-ordered item lists into dst; an iid in both keeps a's flags
// with b's engine bits added.
func mergeItems(dst, a, b []txItem) []txItem {
	i, k := 0, 0
	for i < len(a) && k < len(b) {
		if a[i].iid == b[k].iid {
			dst = append(dst, txItem{iid: a[i].iid, flags: a[i].flags | b[k].flags&^(stFull|stCant)})
			i++
			k++
			continue
		}
		if a[i].iid < b[k].iid {
			dst = append(dst, a[i])
			i++
		} else {
			dst = append(dst, b[k])
			k++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[k:]...)
}

// scanTx runs a list's database over one buffer instance and adds the rules of the
// patterns found.
func (e *Engine) scanTx(tc *ThreadCtx, m *txMPM, data []byte) {
	tc.MPMScans++
	n, err := tc.scanner.Scan(m.db, data, tc.tx.hits)
	if err != nil {
		// A failed scan must not read as "no pattern": every rule of the database is a
		// candidate and its engines decide.
		tc.MPMErrors++
		for _, refs := range m.patternRules {
			for _, ref := range refs {
				if m.members == nil || m.members.has(ref.bit) {
					tc.tx.cands.Add(int(ref.iid))
				}
			}
		}
		return
	}
	// The list's database is shared by the groups: only the hits of the packet's group's
	// rules are candidates (members nil: the group holds them all).
	if m.members == nil {
		for _, id := range tc.tx.hits[:n] {
			for _, ref := range m.patternRules[id] {
				tc.tx.cands.Add(int(ref.iid))
			}
		}
		return
	}
	for _, id := range tc.tx.hits[:n] {
		for _, ref := range m.patternRules[id] {
			if m.members.has(ref.bit) {
				tc.tx.cands.Add(int(ref.iid))
			}
		}
	}
}

// buffer returns instance i of list l's buffer for tx in direction dir, fetched (and
// transformed by the list's chain) once per transaction and packet.
func (tt *txThread) buffer(l *txList, li int, tx applayer.Tx, dir flow.Direction, i int) ([]byte, bool) {
	c := &tt.cache[2*li+int(dir)]
	if c.gen != tt.gen {
		c.gen, c.done, c.data = tt.gen, false, c.data[:0]
	}
	for len(c.data) <= i && !c.done {
		if len(c.data) >= txMaxInstances {
			c.done = true // a getter that never ends must not hold detection
			break
		}
		data, ok := l.buf.Get(tx, dir, len(c.data), &tt.ctx)
		if !ok {
			c.done = true
			break
		}
		c.data = append(c.data, l.chain.Apply(data, tt.xs))
		if !l.buf.Multi {
			c.done = true
		}
	}
	if i < len(c.data) {
		return c.data[i], true
	}
	return nil, false
}

// txMaxInstances bounds the instances of a multi-buffer detection reads for one tx.
const txMaxInstances = 1 << 16

// The results of one inspect engine (DETECT_ENGINE_INSPECT_SIG_*).
const (
	engNoMatch = iota
	engMatch
	engCantMatch
)

// inspectTxRule runs rule r's engines on tx (DetectRunTxInspectRule): on a first inspection
// the rule's header, packet keywords and protocol are checked first; engines already matched
// are skipped; an engine whose progress the tx has not reached stops the walk until later;
// a mismatch at the engine's progress is retried later, past it the rule can't match. It
// returns whether the rule matched in full, its new flags and whether a first inspection's
// flags are to be stored.
func (e *Engine) inspectTxRule(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction, r *Rule,
	engines []txEngine, tx applayer.Tx, td *applayer.TxData, stored *uint32) (match bool, flags uint32, keep bool) {
	t := r.tx
	if !t.dirs[dir] {
		return false, 0, false
	}
	if stored == nil {
		tc.streamMatched = false
		if !r.headerMatch(p) || !r.match.Match(&tc.in) {
			return false, 0, false
		}
		if t.alproto != applayer.ProtoUnknown && !applayer.Equals(t.alproto, tc.tx.app.Proto) {
			return false, 0, false
		}
	} else {
		flags = *stored
	}
	total := 0
	mpmBefore, mpmIn := false, false
	reachedEnd := true
	for k := range engines {
		en := &engines[k]
		bit := uint32(1) << k
		if flags&bit != 0 {
			continue
		}
		if en.dir != dir {
			if !t.bothDir {
				continue
			}
			// A transactional rule's response engines wait for a to-client packet; the
			// request engines run on either side (DetectRunTxInspectRule).
			if dir == flow.ToServer {
				if k == len(engines)-1 {
					reachedEnd = false
					break
				}
				continue
			}
		}
		prog := td.Progress[en.dir]
		if prog < en.progress {
			reachedEnd = false
			break
		}
		if en.mpm {
			if prog > en.progress {
				mpmBefore = true
			} else {
				mpmIn = true
			}
		}
		var res int
		if en.kind == engHook {
			// A hook's stub engine (no callback): a straight match, with no state kept while
			// the tx is at the hook, unless the rule is a <hook one (DetectRunTxInspectRule).
			if prog > en.progress {
				mpmBefore = true
			}
			if !t.hook.lte && prog <= en.progress {
				if stored != nil {
					return true, *stored, true
				}
				return true, 0, false
			}
			res = engMatch
		} else {
			res = e.runEngine(tc, r, p, en, tx, td, prog)
		}
		if res == engMatch {
			flags |= bit
			total++
			continue
		}
		if res == engCantMatch || en.mpm && mpmBefore {
			flags |= stCant | bit
		}
		reachedEnd = false
		break
	}
	full := reachedEnd && total > 0
	if full {
		flags |= stFull
	}
	if stored != nil {
		return full, flags, true
	}
	switch {
	case !full && flags&stCant == 0 && mpmIn:
		return false, flags, false // the database will find it again
	case flags != 0:
		return full, flags, true
	}
	return false, flags, false
}

// runEngine runs one inspect engine on tx: a buffer engine
// (DetectEngineInspectBufferGeneric, or its multi-buffer form, where every instance is
// inspected separately and a miss is retried later), or an app-layer-event engine
// (DetectEngineAptEventInspect).
func (e *Engine) runEngine(tc *ThreadCtx, r *Rule, p *decode.Packet, en *txEngine, tx applayer.Tx, td *applayer.TxData, prog uint8) int {
	switch en.kind {
	case engStream:
		// DetectEngineInspectStream: the raw stream data the packet inspects, or its
		// payload, as a packet rule's content (payloadMatches); no data yet is "retry".
		if r.payloadMatches(tc, p) {
			return engMatch
		}
		return engNoMatch
	case engKeyword:
		// DetectEngineInspectGenericList: no match is final once the direction is complete.
		if en.kw(tx, en.dir, &tc.tx.ctx) {
			return engMatch
		}
		if prog >= en.complete {
			return engCantMatch
		}
		return engNoMatch
	case engEvent:
		for _, ev := range en.events {
			if !td.Events.Has(ev) {
				if prog >= en.complete {
					return engCantMatch
				}
				return engNoMatch
			}
		}
		return engMatch
	}
	l := &e.tx.lists[en.list]
	eof := prog > en.progress
	for i := 0; ; i++ {
		data, ok := tc.tx.buffer(l, int(en.list), tx, en.dir, i)
		if !ok {
			if en.multi || !eof {
				return engNoMatch
			}
			return engCantMatch
		}
		if en.prog.Inspect(data, tc.pst) {
			return engMatch
		}
		if !en.multi {
			break
		}
	}
	if eof && !en.multi {
		return engCantMatch
	}
	return engNoMatch
}
