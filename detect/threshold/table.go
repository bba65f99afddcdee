package threshold

import (
	"net/netip"
	"sync"
	"time"

	"github.com/meerkat-ids/meerkat/flow"
)

// ruleID identifies a rule in the tracking tables independently of the engine that compiled
// it, so that an engine built on a reload finds the entries of the one before (Suricata keys
// them by sid, gid and rev): half tells apart the two directions of a `<>` rule, which Meerkat
// tracks apart.
type ruleID struct {
	gid, sid, rev uint32
	half          uint32
}

// key identifies one tracking entry: the rule and, by track, the source or destination
// address (a), both addresses lower first (a, b), nothing (by_rule) or the flow (f). It holds
// no per-packet memory, so lookups do not allocate.
type key struct {
	rule ruleID
	a, b netip.Addr
	f    *flow.Flow
}

func (k *key) hash(flowHash uint32) uint32 {
	h := (k.rule.sid*0x9e3779b1 ^ k.rule.gid*0x85ebca6b ^ k.rule.rev*0xc2b2ae35 ^ k.rule.half) ^ flowHash
	if k.a.IsValid() {
		h = mixAddr(h, k.a)
	}
	if k.b.IsValid() {
		h = mixAddr(h, k.b)
	}
	h ^= h >> 16
	h *= 0x7feb352d
	h ^= h >> 15
	return h
}

func mixAddr(h uint32, a netip.Addr) uint32 {
	b := a.As16()
	for i := 0; i < 16; i += 4 {
		h = (h ^ (uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24)) * 0x01000193
	}
	return h
}

// entry is Suricata's ThresholdEntry. Times are Unix microseconds (Suricata's SCTime_t
// resolution).
type entry struct {
	tv1        int64 // start of the current window
	tvTimeout  int64 // when a rate_filter's new action started (valid when timeoutSet)
	last       int64 // last match, for eviction when the table is full
	flowStart  int64 // identity of the flow for by_flow entries
	flowHash   uint32
	count      uint32 // current_count
	next       uint32 // backoff: the count that alerts next
	seconds    uint32
	timeout    uint32
	kind       kind
	timeoutSet bool
}

// expired mirrors ThresholdEntryExpire (now > tv1 + seconds). Backoff entries have no window
// and only leave the table with their flow (ForgetFlow) or when evicted. For by_flow entries,
// which Suricata keeps with the flow rather than in the expiring hash, a rate_filter whose
// new action is still in force is kept as well.
func (e *entry) expired(now int64, isFlow bool) bool {
	if e.kind == kBackoff {
		return false
	}
	if now <= e.tv1+int64(e.seconds)*usecPerSec {
		return false
	}
	if isFlow && e.kind == kRate && e.timeoutSet {
		return floorSec(now)-floorSec(e.tvTimeout) > int64(e.timeout)
	}
	return true
}

type shard struct {
	mu        sync.Mutex
	m         map[key]entry
	nextSweep int64 // earliest packet time (µs) of the next expiry sweep when full
	_         [40]byte
}

// evictSample is how many entries are looked at to pick one to evict.
const evictSample = 16

// makeRoom is called with sh locked when sh is full and a new entry is about to be added. It
// first removes entries whose window has passed (at most once per second of packet time, so a
// table full of live entries does not sweep on every new key); if that frees nothing it
// evicts the least recently used of a sample of entries (Suricata reuses a live entry when the
// memcap is reached, THashGetUsed, and sets memcap_reached).
func (s *Tables) makeRoom(sh *shard, now int64) {
	if now >= sh.nextSweep {
		sh.nextSweep = now + usecPerSec
		n := 0
		for k, e := range sh.m {
			if e.expired(now, k.f != nil) {
				delete(sh.m, k)
				n++
			}
		}
		if n > 0 {
			s.expired.Add(uint64(n))
			s.count.Add(int64(-n))
		}
		if len(sh.m) < s.shardCap {
			return
		}
	}
	var victim key
	found := false
	var oldest int64
	i := 0
	for k, e := range sh.m {
		if !found || e.last < oldest {
			victim, oldest, found = k, e.last, true
		}
		if i++; i >= evictSample {
			break
		}
	}
	if found {
		delete(sh.m, victim)
		s.evicted.Add(1)
		s.count.Add(-1)
	}
}

// Expire removes the entries whose time window has passed at now and returns how many. It is
// Suricata's ThresholdsExpire, which the flow manager runs about once a second of (packet)
// time; calling it is optional, since a full table expires entries by itself. Note that, as in
// Suricata, an address-tracked rate_filter entry expires with its counting window even if
// its new action's timeout is longer.
func (s *Tables) Expire(now time.Time) int {
	t := now.UnixMicro()
	total := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for k, e := range sh.m {
			if e.expired(t, k.f != nil) {
				delete(sh.m, k)
				total++
			}
		}
		sh.mu.Unlock()
	}
	if total > 0 {
		s.expired.Add(uint64(total))
		s.count.Add(int64(-total))
	}
	return total
}

// ForgetFlow drops the by_flow entries of f. Call it when the flow ends, before its slot is
// reused (Suricata frees them with the flow's variables). Entries of a reused flow slot are
// also detected by the flow's start time and hash, so a missed call only delays their removal.
func (s *Set) ForgetFlow(f *flow.Flow) {
	if f == nil || len(s.flowRules) == 0 {
		return
	}
	t := s.tables
	for _, iid := range s.flowRules {
		k := key{rule: s.rules[iid].id, f: f}
		sh := &t.shards[k.hash(f.Hash)&t.mask]
		sh.mu.Lock()
		if _, ok := sh.m[k]; ok {
			delete(sh.m, k)
			t.count.Add(-1)
		}
		sh.mu.Unlock()
	}
}

// Expire removes the entries whose time window has passed at now (Tables.Expire).
func (s *Set) Expire(now time.Time) int { return s.tables.Expire(now) }

// Stats returns the tables' counters.
func (s *Set) Stats() Stats { return s.tables.Stats() }

// Stats returns the tables' counters.
func (s *Tables) Stats() Stats {
	return Stats{Entries: s.count.Load(), Expired: s.expired.Load(), Evicted: s.evicted.Load()}
}
