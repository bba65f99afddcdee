package match

import (
	"net/netip"
	"sync"
	"time"
)

// DefaultHostEntries is the HostTable size NewHostTable uses for a maxEntries <= 0.
const DefaultHostEntries = 1 << 16

// HostTable stores hostbits/xbits (by ip_src, ip_dst, ip_pair) with expiry, bounded in size
// (memcap-like limit; when full, new entries are refused and counted). Hosts (tracked by
// ip_src / ip_dst) and ip pairs (unordered) are separate entries. Times are packet times.
// It is safe for concurrent use.
type HostTable struct {
	mu        sync.Mutex
	max       int
	m         map[hostKey]*hostEntry
	refused   uint64
	lastPrune int64
}

// hostKey is a host (pair false, b invalid) or an unordered ip pair (a <= b).
type hostKey struct {
	pair bool
	a, b netip.Addr
}

func pairKey(x, y netip.Addr) hostKey {
	if y.Less(x) {
		x, y = y, x
	}
	return hostKey{pair: true, a: x, b: y}
}

type hostBit struct {
	id     uint32
	expire int64 // Unix nanoseconds; the bit is set while expire >= packet time
}

type hostEntry struct {
	bits []hostBit
}

func (e *hostEntry) find(id uint32) int {
	for i := range e.bits {
		if e.bits[i].id == id {
			return i
		}
	}
	return -1
}

func (e *hostEntry) remove(i int) {
	e.bits[i] = e.bits[len(e.bits)-1]
	e.bits = e.bits[:len(e.bits)-1]
}

// NewHostTable returns a table holding at most maxEntries hosts and ip pairs
// (DefaultHostEntries when maxEntries <= 0).
func NewHostTable(maxEntries int) *HostTable {
	if maxEntries <= 0 {
		maxEntries = DefaultHostEntries
	}
	return &HostTable{max: maxEntries, m: make(map[hostKey]*hostEntry)}
}

// Len returns the number of hosts and ip pairs held.
func (h *HostTable) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.m)
}

// Refused returns how many new entries were refused because the table was full.
func (h *HostTable) Refused() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused
}

// Expire drops the bits expired at now and the entries left without bits.
func (h *HostTable) Expire(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prune(now.UnixNano())
}

func (h *HostTable) prune(now int64) {
	h.lastPrune = now
	for k, e := range h.m {
		for i := 0; i < len(e.bits); {
			if e.bits[i].expire < now {
				e.remove(i)
				continue
			}
			i++
		}
		if len(e.bits) == 0 {
			delete(h.m, k)
		}
	}
}

// isset reports whether bit id is set and unexpired on k; an expired bit is removed.
func (h *HostTable) isset(k hostKey, id uint32, now int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.m[k]
	if e == nil {
		return false
	}
	i := e.find(id)
	if i < 0 {
		return false
	}
	if e.bits[i].expire < now {
		e.remove(i)
		if len(e.bits) == 0 {
			delete(h.m, k)
		}
		return false
	}
	return true
}

// entry returns k's entry, creating it when there is room; nil when the table is full.
func (h *HostTable) entry(k hostKey, now int64) *hostEntry {
	if e := h.m[k]; e != nil {
		return e
	}
	if len(h.m) >= h.max {
		// Make room from expired entries, at most once a second of packet time.
		if now-h.lastPrune >= int64(time.Second) || now < h.lastPrune {
			h.prune(now)
		}
		if len(h.m) >= h.max {
			h.refused++
			return nil
		}
	}
	e := &hostEntry{}
	h.m[k] = e
	return e
}

// set sets bit id on k until expire (now is the packet time); false when refused.
func (h *HostTable) set(k hostKey, id uint32, now, expire int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.entry(k, now)
	if e == nil {
		return false
	}
	if i := e.find(id); i >= 0 {
		e.bits[i].expire = expire
	} else {
		e.bits = append(e.bits, hostBit{id: id, expire: expire})
	}
	return true
}

// unset clears bit id on k.
func (h *HostTable) unset(k hostKey, id uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.m[k]
	if e == nil {
		return
	}
	if i := e.find(id); i >= 0 {
		e.remove(i)
		if len(e.bits) == 0 {
			delete(h.m, k)
		}
	}
}

// toggle removes bit id from k when present (even expired), sets it until expire otherwise.
func (h *HostTable) toggle(k hostKey, id uint32, now, expire int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.m[k]; e != nil {
		if i := e.find(id); i >= 0 {
			e.remove(i)
			if len(e.bits) == 0 {
				delete(h.m, k)
			}
			return true
		}
	}
	e := h.entry(k, now)
	if e == nil {
		return false
	}
	e.bits = append(e.bits, hostBit{id: id, expire: expire})
	return true
}
