// Package alert holds the per-packet alert queue: the ordered, bounded list of rule matches that
// a packet logs, together with the verdict those matches produce.
//
// Suricata appends every match of a packet to a growing array in match order, sorts it at the end
// of detection (qsort in PacketAlertFinalizeProcessQueue), then walks it in order applying
// thresholds, actions and pass, and copies at most packet-alert-max entries to the packet
// (reference/suricata-semantics.md §3.3). A Queue produces the same result without the sort:
// detection finds matches mostly in internal-id (iid) order, so an entry is appended when it sorts
// after the last one and inserted by binary search in a small fixed array otherwise. Only the
// packet-alert-max best entries are kept; what the walk would have done with the others (the
// overflow count, the drop and reject verdicts, the flow action) is kept in a few counters and
// running minimums, so nothing is lost and nothing grows.
//
// # Pass
//
// What a matching pass rule does in Suricata 8.0.6 (§2.5, PacketAlertFinalizeProcessQueue): the
// sorted matches are walked in order; when a pass match is reached and still fits under
// packet-alert-max, it is stored after the counted alerts without being counted (a pass rule has
// no alert bit) and the walk stops. Every match that sorts after it (higher iid: lower priority)
// is then dropped silently: not logged, not counted as overflow or suppressed, its drop or reject
// not applied, its thresholds not evaluated. With the default action-order (pass, drop, reject,
// alert) pass rules have the lowest iids, so a matching pass silences every other alert and drop
// of the packet. Matches before it keep their effect: a drop placed before pass by action-order
// still drops, and then the pass's own action is not applied (skip_action_set: once the packet is
// dropped, pass and accept no longer apply). If the pass applies to the flow (FlagApplyToFlow:
// :flow scope, or auto scope on IP-only, PD-only, app-layer or stateful matches, §2.4) the flow
// gets FLOW_ACTION_PASS unless a drop or pass was set on it first, and later packets of the flow
// skip detection; this package reports it as FlowVerdict() == FlowPass, the flow package owns the
// flag. A pass that is suppressed or thresholded does not stop the walk (its action still applies
// unless SuppressedNoAction), and a pass that finds packet-alert-max alerts already logged is
// counted as overflow and stops nothing. Rules after a pass are still evaluated by detection
// (their flowbits are set); only their alerts and actions go. Suricata's main branch counts the
// pass entry as an alert; 8.0 does not, and neither does Queue.Len.
//
// The semantics are those of Suricata 8.0 in IDS/IPS mode (the non-firewall walk of §3.3); the
// firewall tables' own walk (accept, skip rules, firewall_discarded) belongs to the firewall
// package. Entries carry their firewall table so that the order is right in both modes.
package alert

import "math"

// Action is a rule's action flags, with the bit values of Suricata's action-globals.h (the same
// values as rules.Action.Flags).
type Action uint8

// Action flags.
const (
	ActionAlert      Action = 0x01
	ActionDrop       Action = 0x02
	ActionReject     Action = 0x04
	ActionRejectDst  Action = 0x08
	ActionRejectBoth Action = 0x10
	ActionPass       Action = 0x20
	ActionConfig     Action = 0x40
	ActionAccept     Action = 0x80
)

// verdictBits are the actions a match applies to the packet (PacketDrop's drop and reject bits).
const verdictBits = ActionDrop | ActionReject | ActionRejectDst | ActionRejectBoth

// Flags are a match's flags, with the bit values of Suricata's PACKET_ALERT_FLAG_* (decode.h).
type Flags uint8

// Entry flags.
const (
	// FlagApplyToFlow: the match's drop or pass applies to the flow (explicit :flow scope, or auto
	// scope for IP-only, PD-only and app-layer rules, or a stateful match: §2.4). The caller sets
	// it, as FlowApplySignatureActions does.
	FlagApplyToFlow Flags = 0x01
	// FlagStateMatch: the match used stored app-layer state.
	FlagStateMatch Flags = 0x02
	// FlagStreamMatch: the match was on reassembled stream data.
	FlagStreamMatch Flags = 0x04
	// FlagTx: the match belongs to a transaction that is logged with it.
	FlagTx Flags = 0x08
	// FlagRateFiltered: rate_filter changed the action (drop reason rules_threshold).
	FlagRateFiltered Flags = 0x10
	// FlagFrame: the match was on an app-layer frame.
	FlagFrame Flags = 0x20
	// FlagTxGuessed: the transaction was guessed for a packet or stream match.
	FlagTxGuessed Flags = 0x40
	// FlagApplyToPacket: the action applies to the packet only.
	FlagApplyToPacket Flags = 0x80
)

// NoTx is the TxID of a match that belongs to no transaction (Suricata's PACKET_ALERT_NOTX).
const NoTx uint64 = math.MaxUint64

// DefaultMax is packet-alert-max when the configuration gives none (PACKET_ALERT_MAX).
const DefaultMax = 15

// MaxLimit is the largest accepted packet-alert-max.
const MaxLimit = 255

// Entry is one rule match. Entries are ordered by (Table, IID, TxID) as Suricata's
// AlertQueueSortHelper(Firewall) orders them: table ascending (0 outside firewall mode), iid
// ascending, then for one rule matching several times: real transactions before NoTx, and real
// transactions by descending TxID. Equal keys keep their arrival order.
type Entry struct {
	// IID is the rule's internal id: lower is processed first.
	IID uint32
	// Table is the firewall table (§1.2 numbering; 0 for plain IDS/IPS).
	Table uint8
	// Action is the rule's action, after rate_filter. A noalert rule has no ActionAlert.
	Action Action
	// Flags are the match's flags.
	Flags Flags
	// TxID is the transaction the match belongs to, or NoTx.
	TxID uint64
	// Rule is the rule's own action when rate_filter changed Action (0: the same as Action).
	// Firewall mode looks at the rule's drop bit (s->action) whatever happened to the match.
	Rule Action
}

// key returns e's sort key as two words compared lexicographically. The second word maps TxID so
// that ascending order puts real transactions first, by descending id, and NoTx last:
// ^tx - 1 wraps NoTx to the largest value.
func (e Entry) key() (uint64, uint64) {
	return uint64(e.Table)<<32 | uint64(e.IID), ^e.TxID - 1
}

// Less reports whether e sorts before o (e is processed first).
func (e Entry) Less(o Entry) bool {
	ah, al := e.key()
	bh, bl := o.key()
	return ah < bh || ah == bh && al < bl
}

// isPass reports whether e is a pass match (Suricata 8.0: pass without alert, or pass with
// alert).
func (e Entry) isPass() bool { return e.Action&ActionPass != 0 }

// Disposition is what suppression and thresholding decided for a match (the result of
// Suricata's PacketAlertHandle).
type Disposition uint8

// Dispositions.
const (
	// Matched: the match alerts (PacketAlertHandle 1).
	Matched Disposition = iota
	// SuppressedKeepAction: no alert, but the rule's action applies (PacketAlertHandle 2).
	SuppressedKeepAction
	// SuppressedNoAction: no alert and no action (PacketAlertHandle 0: threshold not reached).
	SuppressedNoAction
)

// Status says what Add did with an entry.
type Status uint8

// Add results.
const (
	// Added: the entry was appended or inserted.
	Added Status = iota
	// Replaced: the queue was full; the entry was inserted and the last entry was pushed out
	// (counted as overflow).
	Replaced
	// Overflow: the queue was full and the entry sorts after all kept entries; it is counted as
	// overflow and not logged.
	Overflow
	// AfterPass: the entry sorts after a pass match; it is not logged and not counted (§2.5).
	AfterPass
	// Suppressed: the entry does not alert (noalert, config, thresholded or suppressed); it is
	// counted in detect.alerts_suppressed unless it sorts after a pass.
	Suppressed
)

// FlowAction is the action a packet's matches ask to apply to its flow.
type FlowAction uint8

// Flow actions.
const (
	// FlowNone: nothing to apply to the flow.
	FlowNone FlowAction = iota
	// FlowDrop: drop every later packet of the flow (FLOW_ACTION_DROP).
	FlowDrop
	// FlowPass: skip detection for the rest of the flow (FLOW_ACTION_PASS).
	FlowPass
)

// Counters are the alert queue's statistics, named as Suricata's `detect.*` counters.
type Counters struct {
	// Alerts is detect.alert: entries logged (a pass without alert is not counted, §3.3).
	Alerts uint64
	// QueueOverflow is detect.alert_queue_overflow: alerting matches beyond packet-alert-max.
	QueueOverflow uint64
	// Suppressed is detect.alerts_suppressed: matches that did not alert (noalert, thresholds).
	Suppressed uint64
}

// Add merges o into c.
func (c *Counters) Add(o *Counters) {
	c.Alerts += o.Alerts
	c.QueueOverflow += o.QueueOverflow
	c.Suppressed += o.Suppressed
}

// Each yields the counters with Suricata's stats names.
func (c *Counters) Each(fn func(name string, v uint64)) {
	fn("detect.alert", c.Alerts)
	fn("detect.alert_queue_overflow", c.QueueOverflow)
	fn("detect.alerts_suppressed", c.Suppressed)
}

// ord is a position in the total order of a packet's matches: the entry key plus the arrival
// sequence number as the last tie-break.
type ord struct {
	hi, lo uint64
	seq    uint32
}

// inf sorts after every real match (a table byte shifted by 32 never fills the high word).
var inf = ord{hi: math.MaxUint64, lo: math.MaxUint64, seq: math.MaxUint32}

func (a ord) less(b ord) bool {
	if a.hi != b.hi {
		return a.hi < b.hi
	}
	if a.lo != b.lo {
		return a.lo < b.lo
	}
	return a.seq < b.seq
}

func (a ord) valid() bool { return a.hi != math.MaxUint64 }

// suppressedTracked is how many non-alerting matches per packet a Queue remembers so that a pass
// that arrives later can take back their suppressed count (see SuppressedCount).
const suppressedTracked = 256

// verdict minimum slots: the first match (in processing order) with each verdict bit.
const (
	minDrop = iota
	minReject
	minRejectDst
	minRejectBoth
	minFlowDrop
	minFlowPass
	minRuleDrop // any match of a rule whose own action drops, applied or not (firewall mode)
	nMins
)

// Queue is one worker's alert queue. It is not safe for concurrent use and does not allocate
// after New.
type Queue struct {
	max int
	// limit is this packet's bound: max less the slots Reserve gave to firewall alerts.
	limit int
	buf   []Entry // kept entries in order; cap max
	pass  bool    // buf ends with a pass that ends processing (§2.5)
	// passSeq is the arrival number of that pass.
	passSeq uint32

	seq      uint32 // matches added this packet
	loggable int    // alerting matches added (Matched with alert or pass)
	quiet    int    // non-alerting matches added

	supp      []ord // non-alerting matches remembered (up to suppressedTracked)
	suppExtra int   // non-alerting matches beyond supp that sorted before the pass at arrival

	mins     [nMins]ord // first match (lowest ord) per verdict bit / flow action
	firstDrp Entry      // the entry at mins[minDrop]

	drop        Entry // first drop match in arrival order (p->alerts.drop)
	hasDrop     bool
	preDropped  bool
	preAccepted bool

	// folded are the per-packet counts already added to Counters.
	folded Counters

	// Counters accumulates the statistics of all finalized packets.
	Counters Counters
}

// New returns a Queue that keeps at most max entries per packet (packet-alert-max). A max outside
// 1..MaxLimit gives DefaultMax, as Suricata keeps the default after warning about a bad value
// (§3.3).
func New(max int) *Queue {
	if max < 1 || max > MaxLimit {
		max = DefaultMax
	}
	q := &Queue{
		max:  max,
		buf:  make([]Entry, 0, max),
		supp: make([]ord, 0, suppressedTracked),
	}
	q.clear()
	return q
}

// Max returns the queue's bound (packet-alert-max).
func (q *Queue) Max() int { return q.max }

// Reset prepares the queue for the next packet. It first folds the finished packet into
// Counters (Finalize), so counts are never lost.
func (q *Queue) Reset() {
	if q.seq == 0 && q.limit == q.max && !q.preDropped && !q.preAccepted {
		return // nothing happened since the last reset
	}
	q.Finalize()
	q.clear()
}

func (q *Queue) clear() {
	q.Discard()
	q.limit = q.max
	q.preDropped = false
	q.preAccepted = false
	q.folded = Counters{}
}

// SetDropped records that the packet was dropped before detection (stream or exception policy,
// a firewall drop). Suricata then no longer applies pass actions (skip_action_set, §2.5), so a
// pass neither undoes the drop nor marks the flow; a pass still ends alert processing.
func (q *Queue) SetDropped() { q.preDropped = true }

// SetAccepted records that the firewall accepted the packet before threat detection's matches
// are processed (accept:packet or accept:flow in packet:filter, or an accepting hook). Suricata
// then no longer applies drop actions (skip_action_set, §3.3): drops and rejects do not reach
// Verdict, FirstDrop or FlowVerdict, while passes still apply. Their alerts are still logged.
func (q *Queue) SetAccepted() { q.preAccepted = true }

// Reserve takes n of this packet's packet-alert-max slots for alerts logged before the queue's
// entries (firewall alerts, whose tables sort first). Entries beyond the new bound are dropped
// and count as overflow, as if they had arrived with the bound in place.
func (q *Queue) Reserve(n int) {
	if n <= 0 {
		return
	}
	q.limit = max(q.limit-n, 0)
	if len(q.buf) > q.limit {
		q.buf = q.buf[:q.limit]
		q.pass = false // a pass is always the last entry: it was cut off
	}
}

// Discard forgets this packet's matches: none is logged, counted or applied (a firewall
// pass:flow skips threat detection's matches entirely). The bound and the pre-set verdict stay.
func (q *Queue) Discard() {
	q.buf = q.buf[:0]
	q.pass = false
	q.seq = 0
	q.loggable = 0
	q.quiet = 0
	q.supp = q.supp[:0]
	q.suppExtra = 0
	for i := range q.mins {
		q.mins[i] = inf
	}
	q.hasDrop = false
}

// Matches returns how many matches were added this packet (0: there is nothing to finalize).
func (q *Queue) Matches() int { return int(q.seq) }

// Limit returns this packet's bound: packet-alert-max less the reserved slots.
func (q *Queue) Limit() int { return q.limit }

// RuleDropSeen reports whether a match of a rule whose own action drops sorts before the pass
// that ends processing (if any), whatever its disposition and whether or not its drop applied.
// Suricata's firewall-mode walk then skips the later firewall entries (its `dropped` flag).
func (q *Queue) RuleDropSeen() bool { return q.mins[minRuleDrop].less(q.cut()) }

// cut returns the position of the pass that ends processing, or inf.
func (q *Queue) cut() ord {
	if !q.pass {
		return inf
	}
	h, l := q.buf[len(q.buf)-1].key()
	return ord{h, l, q.passSeq}
}

// Reached reports whether Suricata's walk over the packet's sorted matches reaches e: always,
// unless a pass ends processing and e sorts after it (the pass itself is reached).
func (q *Queue) Reached(e Entry) bool {
	if !q.pass {
		return true
	}
	h, l := e.key()
	ph, pl := q.buf[len(q.buf)-1].key()
	return h < ph || h == ph && l <= pl
}

// AfterPass reports whether e would sort after the pass that currently ends this packet's alert
// processing. Detection may skip thresholding such a match: Suricata never reaches it (§2.5).
func (q *Queue) AfterPass(e Entry) bool {
	if !q.pass {
		return false
	}
	h, l := e.key()
	lh, ll := q.buf[len(q.buf)-1].key()
	return h > lh || h == lh && l >= ll
}

// Add records a match with the disposition suppression and thresholding gave it, and reports what
// happened to it. Matches may arrive in any order; arrivals in order are appended in O(1).
//
// What Suricata 8.0 does with the packet's sorted matches (§3.3, §2.5), and how Add gets the same
// result:
//   - The first match whose action has drop, in arrival order, is kept apart as the drop record,
//     whatever happens to its alert (AlertQueueAppend sets p->alerts.drop before appending).
//   - Every match that is not SuppressedNoAction applies its action, unless it sorts after a pass:
//     drop and reject bits go to the packet (Verdict), flow-scoped drop or pass to the flow
//     (FlowVerdict, first one wins), a pass is not applied once the packet is dropped.
//   - A match that does not alert (SuppressedKeepAction, SuppressedNoAction, or an action with
//     neither alert nor pass: noalert, config) is not logged and counts as suppressed.
//   - An alerting match is logged while fewer than max are logged, else counted as overflow. Add
//     keeps the max lowest entries: when full, an entry that sorts before the last one replaces
//     it, one that sorts after is discarded; either way one match overflows.
//   - A logged pass ends processing: matches that sort after it are not logged, not counted and
//     their actions are not applied. Suricata 8.0 stores the pass itself without counting it, so
//     Entries excludes it (see PassEntry); a pass that does not fit (max reached) ends nothing.
func (q *Queue) Add(e Entry, d Disposition) Status {
	q.seq++
	h, l := e.key()
	o := ord{h, l, q.seq}
	if !q.hasDrop && e.Action&ActionDrop != 0 {
		q.drop = e
		q.hasDrop = true
	}
	ra := e.Rule
	if ra == 0 {
		ra = e.Action
	}
	if ra&ActionDrop != 0 && o.less(q.mins[minRuleDrop]) {
		q.mins[minRuleDrop] = o
	}
	if d != SuppressedNoAction {
		// Later arrivals have larger seq, so a strict key comparison decides the minimum.
		if e.Action&ActionDrop != 0 {
			if o.less(q.mins[minDrop]) {
				q.mins[minDrop] = o
				q.firstDrp = e
			}
			if e.Action&ActionReject != 0 && o.less(q.mins[minReject]) {
				q.mins[minReject] = o
			}
			if e.Action&ActionRejectDst != 0 && o.less(q.mins[minRejectDst]) {
				q.mins[minRejectDst] = o
			}
			if e.Action&ActionRejectBoth != 0 && o.less(q.mins[minRejectBoth]) {
				q.mins[minRejectBoth] = o
			}
			if e.Flags&FlagApplyToFlow != 0 && o.less(q.mins[minFlowDrop]) {
				q.mins[minFlowDrop] = o
			}
		} else if e.Action&ActionPass != 0 && e.Flags&FlagApplyToFlow != 0 && o.less(q.mins[minFlowPass]) {
			q.mins[minFlowPass] = o
		}
	}
	if d != Matched || e.Action&(ActionAlert|ActionPass) == 0 {
		q.quiet++
		if len(q.supp) < cap(q.supp) {
			q.supp = append(q.supp, o)
		} else if o.less(q.cut()) {
			q.suppExtra++
		}
		return Suppressed
	}
	q.loggable++
	n := len(q.buf)
	if q.limit == 0 {
		return Overflow
	}
	if n == 0 {
		q.buf = append(q.buf, e)
		q.setPass(&e, 0)
		return Added
	}
	lh, ll := q.buf[n-1].key()
	if h > lh || h == lh && l >= ll { // sorts after the last entry: the common case
		if q.pass {
			return AfterPass
		}
		if n == q.limit {
			return Overflow
		}
		q.buf = append(q.buf, e)
		q.setPass(&e, n)
		return Added
	}
	st := Added
	if n == q.limit { // push out the last (lowest priority) entry; if it was the pass, no cut
		n--
		q.buf = q.buf[:n]
		q.pass = false
		st = Replaced
	}
	// First position whose key is greater than e's: e goes after equal keys (arrival order).
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		mh, ml := q.buf[m].key()
		if mh > h || mh == h && ml > l {
			hi = m
		} else {
			lo = m + 1
		}
	}
	q.buf = q.buf[:n+1]
	copy(q.buf[lo+1:], q.buf[lo:n])
	q.buf[lo] = e
	q.setPass(&e, lo)
	return st
}

// setPass makes the entry just placed at i the end of processing if it is a pass: everything
// after it is dropped (it sorts before any earlier pass, which therefore goes too).
func (q *Queue) setPass(e *Entry, i int) {
	if !e.isPass() {
		return
	}
	q.buf = q.buf[:i+1]
	q.pass = true
	q.passSeq = q.seq
}

// Len returns the number of logged entries.
func (q *Queue) Len() int {
	n := len(q.buf)
	if q.pass && q.buf[n-1].Action&ActionAlert == 0 {
		n--
	}
	return n
}

// At returns the i-th logged entry in processing order.
func (q *Queue) At(i int) Entry { return q.buf[:q.Len()][i] }

// Entries returns the logged entries in processing order. The slice is the queue's own storage:
// valid until the next Add or Reset, not to be modified.
func (q *Queue) Entries() []Entry { return q.buf[:q.Len():q.Len()] }

// Passed reports whether a pass match ended this packet's alert processing (§2.5).
func (q *Queue) Passed() bool { return q.pass }

// PassEntry returns the pass match that ended processing, if any. Suricata 8.0 stores it after
// the counted alerts (p->alerts.alerts[cnt]); a pass rule with alert is also in Entries.
func (q *Queue) PassEntry() (Entry, bool) {
	if !q.pass {
		return Entry{}, false
	}
	return q.buf[len(q.buf)-1], true
}

// DropEntry returns the first match with a drop action in arrival order, whether or not it was
// logged, thresholded or cut by a pass (Suricata's p->alerts.drop, which the drop log uses when no
// logged alert explains a drop).
func (q *Queue) DropEntry() (Entry, bool) { return q.drop, q.hasDrop }

// Verdict returns the packet actions the matches apply: ActionDrop and the reject bits, from the
// matches that sort before the pass (if any) and are not SuppressedNoAction, plus ActionDrop if
// SetDropped was called. Overflow never loses a drop.
func (q *Queue) Verdict() Action {
	var a Action
	if q.preDropped {
		a |= ActionDrop
	}
	if q.preAccepted && !q.preDropped {
		return a
	}
	c := q.cut()
	if q.mins[minDrop].less(c) {
		a |= ActionDrop
	}
	if q.mins[minReject].less(c) {
		a |= ActionReject
	}
	if q.mins[minRejectDst].less(c) {
		a |= ActionRejectDst
	}
	if q.mins[minRejectBoth].less(c) {
		a |= ActionRejectBoth
	}
	return a
}

// FirstDrop returns the match that dropped the packet: the first applied drop in processing
// order. Its FlagRateFiltered tells the drop reason (rules_threshold rather than rules).
func (q *Queue) FirstDrop() (Entry, bool) {
	if q.preAccepted && !q.preDropped {
		return Entry{}, false
	}
	if q.mins[minDrop].less(q.cut()) {
		return q.firstDrp, true
	}
	return Entry{}, false
}

// FlowVerdict returns what the packet's matches ask of the flow: of the flow-scoped drops and
// passes that apply (before the pass that ends processing, the pass itself included; a pass only
// while the packet is not dropped), the first in processing order. The flow package applies it
// with Suricata's rule that the first of drop and pass set on a flow wins (RuleActionToFlow).
func (q *Queue) FlowVerdict() FlowAction {
	c := q.cut()
	fd := q.mins[minFlowDrop]
	fp := q.mins[minFlowPass]
	dropOK := fd.less(c)
	passOK := fp.valid() && !c.less(fp) && !q.preDropped && fp.less(q.mins[minDrop])
	if q.preAccepted && !q.preDropped {
		// Drops are not applied, so a pass is never behind an applied drop.
		dropOK = false
		passOK = fp.valid() && !c.less(fp)
	}
	switch {
	case dropOK && passOK:
		if fd.less(fp) {
			return FlowDrop
		}
		return FlowPass
	case dropOK:
		return FlowDrop
	case passOK:
		return FlowPass
	}
	return FlowNone
}

// OverflowCount returns this packet's detect.alert_queue_overflow: alerting matches that did not
// fit. A pass that ends processing means every alert before it fitted, so it is then 0.
func (q *Queue) OverflowCount() int {
	if q.pass || q.loggable <= q.limit {
		return 0
	}
	return q.loggable - q.limit
}

// SuppressedCount returns this packet's detect.alerts_suppressed: non-alerting matches that sort
// before the pass that ends processing (all of them when there is none). It is exact for up to
// 256 non-alerting matches per packet; beyond that, a match is counted against the pass known
// when it arrived.
func (q *Queue) SuppressedCount() int {
	if !q.pass {
		return q.quiet
	}
	c := q.cut()
	n := q.suppExtra
	for _, o := range q.supp {
		if o.less(c) {
			n++
		}
	}
	return n
}

// Finalize adds the packet's counts (Len, OverflowCount, SuppressedCount) to Counters. It may be
// called more than once per packet (only the change since the last call is added) and Reset
// calls it.
func (q *Queue) Finalize() {
	cur := Counters{
		Alerts:        uint64(q.Len()),
		QueueOverflow: uint64(q.OverflowCount()),
		Suppressed:    uint64(q.SuppressedCount()),
	}
	// Unsigned wrap-around adds a negative change correctly.
	q.Counters.Alerts += cur.Alerts - q.folded.Alerts
	q.Counters.QueueOverflow += cur.QueueOverflow - q.folded.QueueOverflow
	q.Counters.Suppressed += cur.Suppressed - q.folded.Suppressed
	q.folded = cur
}
