// Package defrag reassembles IPv4 and IPv6 fragments into whole datagrams, as Suricata's
// defrag module does, with bounded memory.
//
// The pipeline decodes a frame, and when the packet is a fragment (decode.Packet.IsFragment)
// hands it to Reassembler.Add. When the datagram is complete Add returns it as a complete IP
// packet, which the caller decodes again with decode.LinkTypeRaw (marking it
// decode.SourceDefrag and copying the capture fields and VLAN ids from the fragment that
// completed it). A reassembled datagram can itself be a fragment (nested fragment headers);
// it then goes to Add again like any other fragment.
//
// Overlapping fragments are resolved by a policy; the default is Suricata's default, "bsd":
// for every byte covered by several fragments, the fragment with the lowest offset wins, and
// between fragments with the same offset the one that arrived first wins. Any overlap raises
// ipv4.frag_overlap / ipv6.frag_overlap on the fragment that overlapped, as Suricata does.
//
// A Reassembler is meant for one worker: it is not safe for concurrent use.
package defrag

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
)

// Policy says which data wins where fragments overlap (Suricata's defrag policies).
type Policy uint8

// Overlap policies.
const (
	// PolicyBSD: the fragment with the lowest offset wins; at equal offsets, the first to
	// arrive. Suricata's default.
	PolicyBSD Policy = iota
	// PolicyFirst: the fragment that arrived first wins.
	PolicyFirst
	// PolicyLast: the fragment that arrived last wins.
	PolicyLast
)

// Config bounds the reassembler. Zero fields take the values of DefaultConfig.
type Config struct {
	// Memcap bounds the bytes held: fragment data and headers plus a fixed overhead per
	// fragment and per tracker (defrag.memcap, default 32 MiB).
	Memcap uint64
	// Trackers bounds the datagrams being reassembled at once (defrag.trackers, 65535).
	Trackers int
	// MaxFrags bounds the fragments held over all trackers (defrag.max-frags, 65535).
	MaxFrags int
	// Timeout drops a datagram whose last fragment is older than this (defrag.timeout, 60 s).
	Timeout time.Duration
	// Policy resolves overlaps (default PolicyBSD).
	Policy Policy
}

// DefaultConfig returns Suricata's defaults.
func DefaultConfig() Config {
	return Config{
		Memcap:   32 << 20,
		Trackers: 65535,
		MaxFrags: 65535,
		Timeout:  60 * time.Second,
		Policy:   PolicyBSD,
	}
}

// Memory charged per tracker and per fragment on top of the bytes stored.
const (
	trackerOverhead = 256
	fragOverhead    = 48
)

// maxFragsPerTracker bounds one datagram's fragments: a 64 KiB datagram in 8-byte pieces.
// It keeps the per-fragment work (overlap scan, sorted insert) bounded under attack.
const maxFragsPerTracker = 8192

// maxDatagram is the largest IPv4 total length or IPv6 payload length.
const maxDatagram = 65535

// key identifies a datagram: addresses, identification, protocol (IPv4 only: IPv6 fragments
// are identified by addresses and identification alone), IP version and VLAN ids.
type key struct {
	src, dst netip.Addr
	id       uint32
	proto    uint8
	version  uint8
	vlan     [decode.MaxVLANs]uint16
}

// frag is one stored fragment: datagram payload bytes [off, end), data at buf[pos:].
type frag struct {
	off, end int
	pos      int
	seq      int // arrival order within the tracker
}

// tracker holds the fragments of one datagram.
type tracker struct {
	key      key
	frags    []frag // sorted by (off, seq)
	buf      []byte // fragment data, in arrival order
	hdr      []byte // IPv4 header, or IPv6 unfragmentable part, of the offset-0 fragment
	hdrSet   bool
	prevNH   int   // IPv6: offset in hdr of the Next Header byte naming the fragment header
	fragNH   uint8 // IPv6: Next Header of the fragment header
	seenLast bool  // a fragment without More Fragments arrived
	maxEnd   int
	seq      int
	lastSeen time.Time
	mem      uint64
	prev     *tracker // LRU list, oldest first
	next     *tracker
}

// Reassembler reassembles the fragments of one worker.
type Reassembler struct {
	// Counters is updated by Add and Expire.
	Counters Counters

	cfg      Config
	trackers map[key]*tracker
	oldest   *tracker // LRU head
	newest   *tracker // LRU tail
	free     []*tracker
	frags    int    // fragments held
	mem      uint64 // bytes charged
	out      []byte // the last datagram returned
	order    []int  // scratch: fragment indexes in arrival order
}

// New returns a Reassembler bounded by cfg.
func New(cfg Config) *Reassembler {
	def := DefaultConfig()
	if cfg.Memcap == 0 {
		cfg.Memcap = def.Memcap
	}
	if cfg.Trackers <= 0 {
		cfg.Trackers = def.Trackers
	}
	if cfg.MaxFrags <= 0 {
		cfg.MaxFrags = def.MaxFrags
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = def.Timeout
	}
	return &Reassembler{cfg: cfg, trackers: make(map[key]*tracker)}
}

// Trackers returns the number of datagrams being reassembled.
func (r *Reassembler) Trackers() int { return len(r.trackers) }

// MemUse returns the bytes charged against the memcap.
func (r *Reassembler) MemUse() uint64 { return r.mem }

// Add takes a decoded fragment (p.IsFragment) and returns the datagram when p completes it:
// a whole IP packet whose IPv4 header has the fragment fields cleared and the total length
// and checksum fixed, or whose IPv6 header chain no longer has the fragment header and whose
// payload length is fixed. The returned slice is owned by the Reassembler and valid until the
// next call to Add. Packets that are not fragments are ignored.
//
// Events raised on p: ipv4/ipv6.frag_overlap when p overlaps data already held, and
// ipv4/ipv6.frag_pkt_too_large when p would make the datagram larger than 65535 bytes (the
// datagram is then dropped). A fragment that does not fit the limits (trackers, fragments,
// memcap) is not kept and is counted.
func (r *Reassembler) Add(p *decode.Packet) (datagram []byte, done bool) {
	if !p.IsFragment || (p.IPVersion != 4 && p.IPVersion != 6) || len(p.IPHeader) == 0 {
		return nil, false
	}
	v6 := p.IPVersion == 6
	k := key{src: p.SrcIP, dst: p.DstIP, id: p.IPID, version: p.IPVersion, vlan: p.VLAN}
	var unfrag int // header bytes the rebuilt datagram will carry
	if v6 {
		r.Counters.IPv6Fragments++
		unfrag = int(p.IPv6FragHdrOff)
		if unfrag < 40 || unfrag > len(p.IPHeader) || int(p.IPv6FragPrevNH) >= unfrag {
			return nil, false
		}
	} else {
		r.Counters.IPv4Fragments++
		k.proto = p.IPProto
		unfrag = len(p.IPHeader)
	}
	now := p.Timestamp

	t := r.trackers[k]
	if t != nil && now.Sub(t.lastSeen) > r.cfg.Timeout {
		r.Counters.Timeouts++
		r.release(t)
		t = nil
	}

	off := int(p.FragOffset)
	data := p.IPPayload
	end := off + len(data)
	payloadLimit := maxDatagram - unfrag
	if v6 {
		payloadLimit = maxDatagram - (unfrag - 40)
	}
	if end > payloadLimit {
		r.tooLarge(p, v6, t)
		return nil, false
	}

	if t == nil {
		if len(r.trackers) >= r.cfg.Trackers && !r.evictExpired(now) {
			r.Counters.MaxTrackersReached++
			return nil, false
		}
		t = r.newTracker(k)
	}
	t.lastSeen = now
	r.touch(t)
	if r.frags >= r.cfg.MaxFrags || len(t.frags) >= maxFragsPerTracker {
		r.Counters.MaxFragsReached++
		r.releaseIfEmpty(t)
		return nil, false
	}
	cost := uint64(len(data)) + fragOverhead
	storeHdr := off == 0 && !t.hdrSet
	if storeHdr {
		cost += uint64(unfrag)
	}
	if r.mem+cost > r.cfg.Memcap {
		r.Expire(now)
		if r.trackers[k] != t || r.mem+cost > r.cfg.Memcap {
			r.Counters.MemcapExceeded++
			if r.trackers[k] == t {
				r.releaseIfEmpty(t)
			}
			return nil, false
		}
	}

	// Overlap with what is held.
	for i := range t.frags {
		if f := &t.frags[i]; off < f.end && f.off < end {
			if v6 {
				p.Events.Add(decode.EventIPv6FragOverlap)
				r.Counters.IPv6Overlap++
			} else {
				p.Events.Add(decode.EventIPv4FragOverlap)
				r.Counters.IPv4Overlap++
			}
			break
		}
	}

	// Store.
	if storeHdr {
		t.hdr = append(t.hdr[:0], p.IPHeader[:unfrag]...)
		t.hdrSet = true
		if v6 {
			t.prevNH = int(p.IPv6FragPrevNH)
			t.fragNH = p.IPv6FragNH
		}
	}
	f := frag{off: off, end: end, pos: len(t.buf), seq: t.seq}
	t.seq++
	t.buf = append(t.buf, data...)
	i, _ := slices.BinarySearchFunc(t.frags, f, func(a, b frag) int {
		if a.off != b.off {
			return a.off - b.off
		}
		return a.seq - b.seq
	})
	t.frags = slices.Insert(t.frags, i, f)
	if !p.MoreFragments {
		t.seenLast = true
	}
	t.maxEnd = max(t.maxEnd, end)
	t.mem += cost
	r.mem += cost
	r.frags++
	r.Counters.MemUse = r.mem

	if !t.seenLast || !t.hdrSet || !t.complete() {
		return nil, false
	}
	out, ok := r.build(t, v6)
	if !ok {
		r.tooLarge(p, v6, t)
		return nil, false
	}
	if v6 {
		r.Counters.IPv6Reassembled++
	} else {
		r.Counters.IPv4Reassembled++
	}
	r.release(t)
	return out, true
}

// tooLarge records the frag_pkt_too_large event and drops the datagram.
func (r *Reassembler) tooLarge(p *decode.Packet, v6 bool, t *tracker) {
	if v6 {
		p.Events.Add(decode.EventIPv6FragPktTooLarge)
		r.Counters.IPv6TooLarge++
	} else {
		p.Events.Add(decode.EventIPv4FragPktTooLarge)
		r.Counters.IPv4TooLarge++
	}
	if t != nil {
		r.release(t)
	}
}

// complete reports whether the fragments cover [0, maxEnd) without a hole.
func (t *tracker) complete() bool {
	cover := 0
	for i := range t.frags {
		f := &t.frags[i]
		if f.off > cover {
			return false
		}
		cover = max(cover, f.end)
	}
	return cover >= t.maxEnd
}

// build writes the datagram into r.out. It fails when the header of the first fragment and
// the data do not fit the IP length field.
func (r *Reassembler) build(t *tracker, v6 bool) ([]byte, bool) {
	hl := len(t.hdr)
	size := hl + t.maxEnd
	if v6 && size-40 > maxDatagram || !v6 && size > maxDatagram {
		return nil, false
	}
	if cap(r.out) < size {
		r.out = make([]byte, size, max(size, 2048))
	}
	out := r.out[:size]
	copy(out, t.hdr)
	payload := out[hl:]

	switch r.cfg.Policy {
	case PolicyFirst, PolicyLast:
		// Paint in arrival order (last wins) or reverse arrival order (first wins).
		r.order = r.order[:0]
		for i := range t.frags {
			r.order = append(r.order, i)
		}
		slices.SortFunc(r.order, func(a, b int) int { return t.frags[a].seq - t.frags[b].seq })
		if r.cfg.Policy == PolicyFirst {
			slices.Reverse(r.order)
		}
		for _, i := range r.order {
			f := &t.frags[i]
			copy(payload[f.off:f.end], t.buf[f.pos:f.pos+f.end-f.off])
		}
	default:
		// BSD: fragments sorted by (offset, arrival); every byte goes to the first fragment
		// in that order that covers it, i.e. each fragment fills what lies past the
		// furthest end so far.
		hw := 0
		for i := range t.frags {
			f := &t.frags[i]
			if f.end <= hw {
				continue
			}
			start := max(f.off, hw)
			copy(payload[start:f.end], t.buf[f.pos+start-f.off:f.pos+f.end-f.off])
			hw = f.end
		}
	}

	if v6 {
		binary.BigEndian.PutUint16(out[4:6], uint16(size-40))
		out[t.prevNH] = t.fragNH
	} else {
		binary.BigEndian.PutUint16(out[2:4], uint16(size))
		fo := binary.BigEndian.Uint16(out[6:8])
		binary.BigEndian.PutUint16(out[6:8], fo&0xc000) // keep RF and DF, clear MF and offset
		out[10], out[11] = 0, 0
		binary.BigEndian.PutUint16(out[10:12], decode.Checksum(out[:hl]))
	}
	return out, true
}

// Expire drops the datagrams whose last fragment arrived more than Timeout before now (use
// packet time). It is cheap when nothing expires: one comparison.
func (r *Reassembler) Expire(now time.Time) {
	for t := r.oldest; t != nil && now.Sub(t.lastSeen) > r.cfg.Timeout; t = r.oldest {
		r.Counters.Timeouts++
		r.release(t)
	}
}

// evictExpired frees the oldest tracker if it has timed out.
func (r *Reassembler) evictExpired(now time.Time) bool {
	if t := r.oldest; t != nil && now.Sub(t.lastSeen) > r.cfg.Timeout {
		r.Counters.Timeouts++
		r.release(t)
		return true
	}
	return false
}

func (r *Reassembler) newTracker(k key) *tracker {
	var t *tracker
	if n := len(r.free); n > 0 {
		t = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		t = &tracker{}
	}
	t.key = k
	t.mem = trackerOverhead
	r.mem += trackerOverhead
	r.Counters.MemUse = r.mem
	r.trackers[k] = t
	r.pushNewest(t)
	return t
}

// releaseIfEmpty frees a tracker that was created for a fragment that was not kept.
func (r *Reassembler) releaseIfEmpty(t *tracker) {
	if len(t.frags) == 0 {
		r.release(t)
	}
}

// release forgets a tracker and keeps its buffers for reuse.
func (r *Reassembler) release(t *tracker) {
	delete(r.trackers, t.key)
	r.unlink(t)
	r.mem -= t.mem
	r.frags -= len(t.frags)
	r.Counters.MemUse = r.mem
	buf, frags, hdr := t.buf[:0], t.frags[:0], t.hdr[:0]
	if cap(buf) > 128<<10 {
		buf = nil // do not keep the buffers of pathological datagrams
	}
	if cap(frags) > 1024 {
		frags = nil
	}
	*t = tracker{buf: buf, frags: frags, hdr: hdr}
	if len(r.free) < 1024 {
		r.free = append(r.free, t)
	}
}

// touch moves t to the newest end of the LRU list.
func (r *Reassembler) touch(t *tracker) {
	if r.newest == t {
		return
	}
	r.unlink(t)
	r.pushNewest(t)
}

func (r *Reassembler) pushNewest(t *tracker) {
	t.prev = r.newest
	t.next = nil
	if r.newest != nil {
		r.newest.next = t
	} else {
		r.oldest = t
	}
	r.newest = t
}

func (r *Reassembler) unlink(t *tracker) {
	if t.prev != nil {
		t.prev.next = t.next
	} else if r.oldest == t {
		r.oldest = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	} else if r.newest == t {
		r.newest = t.prev
	}
	t.prev, t.next = nil, nil
}
