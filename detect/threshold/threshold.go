// Package threshold decides, for a rule that fully matched a packet, whether the match is
// logged, silently kept (actions applied, alert not logged), or dropped altogether, following
// Suricata's rule keywords `threshold` and `detection_filter` and the threshold.config entries
// `threshold`/`event_filter`, `suppress` and `rate_filter`.
//
// The behaviour follows Suricata 8.0 (detect-engine-threshold.c, detect-engine-alert.c
// PacketAlertHandle, util-threshold-config.c); see the doc comments on each function for the
// function it mirrors.
package threshold

import (
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// Config is the detect.thresholds section: hash-size and memcap bound the tracking tables.
type Config struct {
	// MaxEntries bounds the number of tracked (rule, address/flow) entries in all. 0 or less
	// means DefaultMaxEntries.
	MaxEntries int
	// Tables, when set, are the tracking tables to count in: those of the engine before a
	// rebuild, so counting continues across it. MaxEntries is then not used.
	Tables *Tables
}

// DefaultMaxEntries is the table bound used when Config.MaxEntries is not set: roughly what
// Suricata's default 16 MiB thresholds memcap holds.
const DefaultMaxEntries = 100000

// Decision is what the engine does with a full match of a rule on a packet. Its low bits are
// one of NoMatch, Alert or Suppress (see Result); RateFilterModified may be or'ed in.
type Decision uint8

// Decisions. They mirror the return values of Suricata's PacketAlertHandle: 0 (NoMatch),
// 1 (Alert) and 2 (Suppress).
const (
	// NoMatch: the threshold / detection_filter was not reached. Suricata applies no action and
	// does not log the alert, but still counts it in detect.alerts_suppressed (res == 0 in
	// PacketAlertFinalize). Post-match keywords (flowbits ...) have already run in Suricata at
	// that point.
	NoMatch Decision = 0
	// Alert: log the alert and apply the rule's action.
	Alert Decision = 1
	// Suppress: apply the rule's action but do not log the alert (counts as
	// detect.alerts_suppressed).
	Suppress Decision = 2
	// RateFilterModified is or'ed into Alert or Suppress when a rate_filter changed the rule's
	// action; Decide then returns the new action ("alert", "drop", "pass" or "reject"). The
	// alert record carries Suricata's PACKET_ALERT_FLAG_RATE_FILTER_MODIFIED, and a drop caused
	// by it has drop reason "rules_threshold".
	RateFilterModified Decision = 0x80
)

// Result returns NoMatch, Alert or Suppress without the RateFilterModified flag.
func (d Decision) Result() Decision { return d &^ RateFilterModified }

// Modified reports whether a rate_filter changed the action.
func (d Decision) Modified() bool { return d&RateFilterModified != 0 }

// String names the decision.
func (d Decision) String() string {
	var s string
	switch d.Result() {
	case NoMatch:
		s = "no_match"
	case Alert:
		s = "alert"
	case Suppress:
		s = "suppress"
	default:
		s = fmt.Sprintf("decision(%d)", uint8(d.Result()))
	}
	if d.Modified() {
		s += "+rate_filter"
	}
	return s
}

type kind uint8

const (
	kLimit kind = iota
	kThreshold
	kBoth
	kBackoff
	kDetection // detection_filter
	kRate      // rate_filter
)

type track uint8

const (
	trSrc track = iota
	trDst
	trRule
	trBoth
	trFlow
	trEither // suppress only
)

func parseTrack(s string) (track, bool) {
	switch s {
	case "by_src":
		return trSrc, true
	case "by_dst":
		return trDst, true
	case "by_rule":
		return trRule, true
	case "by_both":
		return trBoth, true
	case "by_flow":
		return trFlow, true
	case "by_either":
		return trEither, true
	}
	return 0, false
}

// td is one threshold-list entry (Suricata's DetectThresholdData).
type td struct {
	kind       kind
	track      track
	count      uint32
	seconds    uint32
	multiplier uint32
	timeout    uint32
	newAction  string
}

// suppress is one address suppress entry (TYPE_SUPPRESS with a track).
type suppress struct {
	track track
	addr  *rules.Address
}

// ruleRate is everything that applies to one rule.
type ruleRate struct {
	// id names the rule in the tracking tables.
	id ruleID
	// th is the single threshold-list entry (rule keyword or threshold.config), nil if none.
	// Suricata's precedence rules (SetupThresholdRule) keep at most one per rule.
	th *td
	// sup are the suppress entries with addresses, in file order.
	sup []suppress
	// noAlert is set by a suppress entry without track/ip: Suricata clears ACTION_ALERT from
	// the rule, so every match is "suppressed, actions applied".
	noAlert bool
}

// Stats are the tracking tables' counters.
type Stats struct {
	// Entries is the number of entries tracked now.
	Entries int64
	// Expired counts entries removed because their time window passed.
	Expired uint64
	// Evicted counts live entries dropped because the table was full (Suricata reuses a live
	// entry when the thresholds memcap is reached: THashGetUsed).
	Evicted uint64
}

// Tables are the threshold tracking tables: what thresholds, detection_filters and
// rate_filters have counted so far. They are the mutable state of rate decisions, apart from
// the rule settings of a Set, so that the Set of a rebuilt engine (a rule reload) takes them
// over and counting goes on (Config.Tables). Safe for concurrent use.
type Tables struct {
	shards   []shard
	mask     uint32
	shardCap int

	expired, evicted atomic.Uint64
	count            atomic.Int64
}

// NewTables returns empty tracking tables bounded at maxEntries (0: DefaultMaxEntries).
func NewTables(maxEntries int) *Tables {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	n := 1
	for n < 64 && maxEntries/(n*2) >= 256 {
		n *= 2
	}
	t := &Tables{shards: make([]shard, n), mask: uint32(n - 1), shardCap: (maxEntries + n - 1) / n}
	for i := range t.shards {
		t.shards[i].m = make(map[key]entry)
	}
	return t
}

// Set holds, for one engine, every rule's rate settings: the rule's own threshold /
// detection_filter keywords and the threshold.config entries that apply to it (Suricata's
// precedence: a threshold.config threshold/event_filter replaces the rule's threshold keyword;
// suppress entries add; rate_filter entries add; gen_id 0 sig_id 0 / sig_id 0 entries apply to
// all rules / all rules of a gid). What has been counted lives in its Tables.
//
// Add must be called for every rule before Decide is used; after that Decide, Expire,
// ForgetFlow and Stats are safe for concurrent use.
type Set struct {
	entries []rules.ThresholdEntry
	// byID indexes entries with a sid by (gid, sid); byGID those with sid 0 and gid > 0;
	// global those with gid 0 and sid 0. Values are indexes into entries (file order).
	byID   map[[2]uint32][]int
	byGID  map[uint32][]int
	global []int

	rules     []*ruleRate
	flowRules []uint32 // iids tracking by_flow (for ForgetFlow)
	// halves counts the rules added per parsed rule, to number the halves of a `<>` rule.
	halves map[*rules.Rule]uint32

	tables *Tables
}

// NewSet prepares a Set for the threshold.config entries (in file order), counting in
// cfg.Tables, or in new tables of cfg.MaxEntries when that is nil. Entries Suricata rejects
// when applying them (gen_id 0 with a non-zero sig_id; count 0 on threshold and rate_filter
// lines) are ignored.
func NewSet(cfg Config, entries []rules.ThresholdEntry) *Set {
	s := &Set{
		byID:   map[[2]uint32][]int{},
		byGID:  map[uint32][]int{},
		halves: map[*rules.Rule]uint32{},
		tables: cfg.Tables,
	}
	if s.tables == nil {
		s.tables = NewTables(cfg.MaxEntries)
	}
	for _, e := range entries {
		if e.GID == 0 && e.SID != 0 {
			continue // "Can't use a event config that has sid > 0 and gid == 0"
		}
		if e.Kind != rules.EntrySuppress && e.Count == 0 {
			continue // ParseThresholdRule: "rate filter count should be > 0"
		}
		i := len(s.entries)
		s.entries = append(s.entries, e)
		switch {
		case e.GID == 0:
			s.global = append(s.global, i)
		case e.SID == 0:
			s.byGID[e.GID] = append(s.byGID[e.GID], i)
		default:
			k := [2]uint32{e.GID, e.SID}
			s.byID[k] = append(s.byID[k], i)
		}
	}
	return s
}

// Tables returns the tracking tables the set counts in.
func (s *Set) Tables() *Tables { return s.tables }

// Add registers rule iid (with its parsed rule) and returns an error for combinations Suricata
// refuses. Call for every rule before Decide.
//
// The threshold.config entries are applied to the rule in file order as Suricata's
// SetupThresholdRule / SetupSuppressRule do:
//   - suppress without track/ip: the rule no longer alerts (every match is Suppress);
//   - suppress with track/ip: added to the rule's suppress list;
//   - threshold/event_filter for this gid:sid: replaces the rule's threshold or
//     detection_filter (or an earlier config entry);
//   - rate_filter for this gid:sid, and any threshold/event_filter/rate_filter for gid:0 or
//     0:0: added only if the rule has no threshold/detection_filter yet (the rule keyword, or
//     an earlier config entry, wins).
func (s *Set) Add(iid uint32, r *rules.Rule) error {
	if r == nil {
		return fmt.Errorf("threshold: rule %d is nil", iid)
	}
	if r.Threshold != nil && r.DetectionFilter != nil {
		return fmt.Errorf("\"detection_filter\" and \"threshold\" are not allowed in the same rule")
	}
	rr := &ruleRate{id: ruleID{gid: r.GID, sid: r.SID, rev: r.Rev, half: s.halves[r]}}
	s.halves[r]++
	if t := r.Threshold; t != nil {
		th, err := keywordThreshold(t)
		if err != nil {
			return err
		}
		rr.th = th
	}
	if t := r.DetectionFilter; t != nil {
		tr, ok := parseTrack(t.Track)
		if !ok || tr == trEither {
			return fmt.Errorf("invalid detection_filter track %q", t.Track)
		}
		if t.Count == 0 || t.Seconds == 0 {
			return fmt.Errorf("detection_filter: found an invalid value")
		}
		rr.th = &td{kind: kDetection, track: tr, count: t.Count, seconds: t.Seconds}
	}
	for _, i := range s.applicable(r.GID, r.SID) {
		e := &s.entries[i]
		specific := e.SID != 0
		switch e.Kind {
		case rules.EntrySuppress:
			if e.Track == "" || e.IP == nil {
				rr.noAlert = true
				continue
			}
			tr, ok := parseTrack(e.Track)
			if !ok || (tr != trSrc && tr != trDst && tr != trEither) {
				return fmt.Errorf("%s:%d: suppress: invalid track %q", e.File, e.Line, e.Track)
			}
			rr.sup = append(rr.sup, suppress{track: tr, addr: e.IP})
		case rules.EntryThreshold, rules.EntryRateFilter:
			th, err := entryThreshold(e)
			if err != nil {
				return err
			}
			if specific && e.Kind == rules.EntryThreshold {
				rr.th = th // replace the rule's threshold / detection_filter
			} else if rr.th == nil {
				rr.th = th
			}
		}
	}
	for int(iid) >= len(s.rules) {
		s.rules = append(s.rules, nil)
	}
	if rr.th == nil && len(rr.sup) == 0 && !rr.noAlert {
		s.rules[iid] = nil
		return nil
	}
	s.rules[iid] = rr
	if rr.th != nil && rr.th.track == trFlow {
		s.flowRules = append(s.flowRules, iid)
	}
	return nil
}

// applicable returns the indexes of the entries for gid:sid, in file order.
func (s *Set) applicable(gid, sid uint32) []int {
	a, b, c := s.global, s.byGID[gid], s.byID[[2]uint32{gid, sid}]
	if len(b) == 0 && len(c) == 0 {
		return a
	}
	out := make([]int, 0, len(a)+len(b)+len(c))
	out = append(append(append(out, a...), b...), c...)
	sort.Ints(out)
	return out
}

func keywordThreshold(t *rules.Threshold) (*td, error) {
	th := &td{count: t.Count, seconds: t.Seconds, multiplier: t.Multiplier}
	switch t.Type {
	case "limit":
		th.kind = kLimit
	case "threshold":
		th.kind = kThreshold
	case "both":
		th.kind = kBoth
	case "backoff":
		th.kind = kBackoff
	default:
		return nil, fmt.Errorf("invalid threshold type %q", t.Type)
	}
	tr, ok := parseTrack(t.Track)
	if !ok || tr == trEither {
		return nil, fmt.Errorf("invalid threshold track %q", t.Track)
	}
	th.track = tr
	if th.kind == kBackoff {
		if !(t.Count > 0 && t.Count < 65536) {
			return nil, fmt.Errorf("invalid count value '%d': must be in the range 1-65535", t.Count)
		}
		if !(t.Multiplier > 1 && t.Multiplier < 65536) {
			return nil, fmt.Errorf("invalid multiplier value '%d': must be in the range 2-65535", t.Multiplier)
		}
		if tr != trFlow {
			return nil, fmt.Errorf("invalid track value: type backoff only supported for track by_flow")
		}
	}
	return th, nil
}

func entryThreshold(e *rules.ThresholdEntry) (*td, error) {
	th := &td{count: e.Count, seconds: e.Seconds}
	if e.Kind == rules.EntryRateFilter {
		th.kind = kRate
		th.timeout = e.Timeout
		switch e.NewAction {
		case "alert", "drop", "pass", "reject":
			th.newAction = e.NewAction
		default:
			return nil, fmt.Errorf("%s:%d: rate_filter: unsupported new_action %q", e.File, e.Line, e.NewAction)
		}
	} else {
		switch e.Type {
		case "limit":
			th.kind = kLimit
		case "threshold":
			th.kind = kThreshold
		case "both":
			th.kind = kBoth
		default:
			return nil, fmt.Errorf("%s:%d: threshold: invalid type %q", e.File, e.Line, e.Type)
		}
	}
	tr, ok := parseTrack(e.Track)
	if !ok || tr == trEither {
		return nil, fmt.Errorf("%s:%d: %s: invalid track %q", e.File, e.Line, e.Kind, e.Track)
	}
	th.track = tr
	return th, nil
}

// HasRate reports whether rule iid has anything to decide (so the engine skips the call otherwise).
func (s *Set) HasRate(iid uint32) bool {
	return int(iid) < len(s.rules) && s.rules[iid] != nil
}

// Decide is what the engine does with a full match of rule iid on packet p (f is the packet's
// flow, nil if none). It mirrors PacketAlertHandle: non-IP packets are not thresholded;
// suppress entries are checked first (a match returns Suppress without touching the threshold
// state); then the threshold-list entry (PacketAlertThreshold). The returned action is the
// rate_filter's new action when the decision carries RateFilterModified, "" otherwise.
func (s *Set) Decide(iid uint32, p *decode.Packet, f *flow.Flow) (Decision, string) {
	if int(iid) >= len(s.rules) {
		return Alert, ""
	}
	rr := s.rules[iid]
	if rr == nil {
		return Alert, ""
	}
	base := Alert
	if rr.noAlert {
		base = Suppress
	}
	if !p.SrcIP.IsValid() || !p.DstIP.IsValid() {
		return base, ""
	}
	for i := range rr.sup {
		if rr.sup[i].match(p) {
			return Suppress, ""
		}
	}
	th := rr.th
	if th == nil {
		return base, ""
	}
	res, modified := s.check(iid, th, p, f)
	var d Decision
	switch res {
	case 0:
		return NoMatch, ""
	case 2:
		d = Suppress
	default:
		d = base
	}
	if modified {
		return d | RateFilterModified, th.newAction
	}
	return d, ""
}

// match mirrors ThresholdHandlePacketSuppress.
func (sp *suppress) match(p *decode.Packet) bool {
	switch sp.track {
	case trSrc:
		return sp.addr.Contains(p.SrcIP)
	case trDst:
		return sp.addr.Contains(p.DstIP)
	case trEither:
		return sp.addr.Contains(p.SrcIP) || sp.addr.Contains(p.DstIP)
	}
	return false
}

// Result codes of the threshold state machine (Suricata's 0/1/2).
const (
	resNoMatch = 0
	resAlert   = 1
	resSilent  = 2
)

const usecPerSec = int64(time.Second / time.Microsecond)

// check mirrors PacketAlertThreshold / ThresholdGetFromHash / ThresholdHandlePacketFlow.
func (s *Set) check(iid uint32, th *td, p *decode.Packet, f *flow.Flow) (res int, modified bool) {
	// ThresholdGetFromHash: "fast track for count 1 threshold".
	if th.kind == kThreshold && th.count == 1 {
		return resAlert, false
	}
	k := key{rule: s.rules[iid].id}
	var fStart int64
	var fHash uint32
	switch th.track {
	case trSrc:
		k.a = p.SrcIP
	case trDst:
		k.a = p.DstIP
	case trBoth:
		// lower address first, so both directions share an entry
		if p.SrcIP.Less(p.DstIP) {
			k.a, k.b = p.SrcIP, p.DstIP
		} else {
			k.a, k.b = p.DstIP, p.SrcIP
		}
	case trRule:
	case trFlow:
		if f == nil {
			return resNoMatch, false // PacketAlertThreshold: by_flow without a flow
		}
		k.f = f
		fStart, fHash = f.Start.UnixNano(), f.Hash
	}
	now := p.Timestamp.UnixMicro()
	t := s.tables
	sh := &t.shards[k.hash(fHash)&t.mask]
	sh.mu.Lock()
	e, exists := sh.m[k]
	ok := exists
	if ok && k.f != nil && (e.flowStart != fStart || e.flowHash != fHash) {
		ok = false // the flow slot was reused for another flow: start over
	}
	if !ok {
		if !exists {
			if len(sh.m) >= t.shardCap {
				t.makeRoom(sh, now)
			}
			t.count.Add(1)
		}
		e = entry{flowStart: fStart, flowHash: fHash}
		res = setup(th, &e, now)
	} else {
		res, modified = checkUpdate(th, &e, now, p.Timestamp.Unix())
	}
	e.last = now
	sh.m[k] = e
	sh.mu.Unlock()
	return res, modified
}

// setup mirrors ThresholdSetup: the first match of a new entry.
func setup(th *td, e *entry, now int64) int {
	e.kind = th.kind
	e.seconds = th.seconds
	e.timeout = th.timeout
	e.count = 1
	if th.kind == kBackoff {
		e.next = th.count
	} else {
		e.tv1 = now
		e.timeoutSet = false
	}
	switch th.kind {
	case kLimit, kRate:
		return resAlert
	case kThreshold, kBoth:
		if th.count == 1 {
			return resAlert
		}
		return resNoMatch
	case kBackoff:
		if th.count == 1 {
			e.next = backoffNext(e.next, th.multiplier)
			return resAlert
		}
		return resNoMatch
	}
	return resNoMatch // kDetection
}

// backoffNext mirrors BackoffCalcNextValue: cur*m, saturating at the uint32 maximum.
func backoffNext(cur, m uint32) uint32 {
	if m != 0 && ^uint32(0)/m < cur {
		return ^uint32(0)
	}
	return cur * m
}

// checkUpdate mirrors ThresholdCheckUpdate: a later match of an existing entry. now is the
// packet time in microseconds, nowSec in whole seconds.
func checkUpdate(th *td, e *entry, now, nowSec int64) (res int, modified bool) {
	within := now <= e.tv1+int64(th.seconds)*usecPerSec
	switch th.kind {
	case kLimit:
		if within {
			e.count++
			if e.count <= th.count {
				return resAlert, false
			}
			return resSilent, false
		}
		e.tv1, e.count = now, 1
		return resAlert, false
	case kThreshold:
		if within {
			e.count++
			if e.count >= th.count {
				e.count = 0
				return resAlert, false
			}
			return resNoMatch, false
		}
		e.tv1, e.count = now, 1
		return resNoMatch, false
	case kBoth:
		if within {
			e.count++
			if e.count == th.count {
				return resAlert, false
			} else if e.count > th.count {
				return resSilent, false
			}
			return resNoMatch, false
		}
		e.tv1, e.count = now, 1
		if e.count == th.count {
			return resAlert, false
		}
		return resNoMatch, false
	case kDetection:
		if within {
			e.count++
			if e.count > th.count {
				return resAlert, false
			}
			return resNoMatch, false
		}
		e.tv1, e.count = now, 1
		return resNoMatch, false
	case kRate:
		if e.timeoutSet {
			if nowSec-floorSec(e.tvTimeout) > int64(th.timeout) {
				e.timeoutSet = false // timeout reached: back to the rule's action
				return resAlert, false
			}
			return resAlert, true
		}
		if within {
			e.count++
			if e.count > th.count {
				e.tvTimeout, e.timeoutSet = now, true
				return resAlert, true
			}
			return resAlert, false
		}
		e.tv1, e.count = now, 1
		return resAlert, false
	case kBackoff:
		if e.count < ^uint32(0) {
			e.count++
			if e.next == e.count {
				e.next = backoffNext(e.next, th.multiplier)
				return resAlert, false
			}
		}
		return resSilent, false
	}
	return resNoMatch, false
}

func floorSec(us int64) int64 {
	if us < 0 {
		return -((-us + usecPerSec - 1) / usecPerSec)
	}
	return us / usecPerSec
}
