package detect

import (
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/rules"
)

// The tag keyword (Suricata's detect-tag.c and detect-engine-tag.c): a rule that alerts
// installs a tag on its flow (session) or on a host, and the packets that follow, up to a
// number of packets, bytes or seconds, are "tagged": EVE logs them as `packet` records when the
// alert type's tagged-packets option is on. The packet that installed a tag counts but is not
// tagged itself.

// Tag limits, as Suricata's.
const (
	tagMaxPackets   = 256 // default count, and the most a packets tag may count
	tagMaxPerOwner  = 50  // tags per flow or host (DETECT_TAG_MAX_TAGS)
	tagMatchLimit   = 10  // re-matches of one rule that still restart its tag
	tagHostIdleSecs = 600 // a host's tags expire when not seen for this long
	tagMaxHosts     = 65536
)

// tagSpec is a compiled tag keyword.
type tagSpec struct {
	session bool
	metric  uint8
	count   uint32
	dirSrc  bool
}

// tagEntry is one tag a rule installed (Suricata's DetectTagDataEntry): the packets, bytes or
// seconds it lasts, and what it has counted so far.
type tagEntry struct {
	sid, gid uint32
	metric   uint8 // tagPackets, tagBytes or tagSeconds
	flags    uint8 // tagSkippedFirst, tagDirSrc, tagDirDst
	matches  uint16
	count    uint32
	packets  uint64
	bytes    uint64
	first    int64 // Unix seconds
	last     int64
}

// Tag metrics.
const (
	tagPackets uint8 = iota
	tagBytes
	tagSeconds
)

// Tag flags.
const (
	tagSkippedFirst uint8 = 1 << iota // the packet that installed the tag has been counted
	tagDirSrc                         // a host tag on the source address
	tagDirDst                         // a host tag on the destination address
)

func compileTags(ts []*rules.Tag) []tagSpec {
	var out []tagSpec
	for _, t := range ts {
		s := tagSpec{session: strings.EqualFold(t.Type, "session"), metric: tagPackets, count: tagMaxPackets}
		if t.Metric != "" {
			s.count = t.Count
			switch strings.ToLower(t.Metric) {
			case "bytes":
				s.metric = tagBytes
			case "seconds":
				s.metric = tagSeconds
			default:
				s.count = min(s.count, tagMaxPackets)
			}
		}
		s.dirSrc = strings.EqualFold(t.Direction, "src")
		out = append(out, s)
	}
	return out
}

// TagHosts holds host tags, shared by all workers; it is bounded (new hosts are refused when
// full) and safe for concurrent use.
type TagHosts struct {
	mu    sync.Mutex
	hosts map[netip.Addr][]tagEntry
	n     atomic.Int64 // tags held, so packets skip the lookups while there are none
}

// NewTagHosts returns an empty host tag table.
func NewTagHosts() *TagHosts { return &TagHosts{hosts: map[netip.Addr][]tagEntry{}} }

// addTag installs or restarts tag t in list (TagFlowAdd / TagHashAddTag) and returns the list.
func addTag(list []tagEntry, t tagEntry) ([]tagEntry, bool) {
	for i := range list {
		if list[i].sid == t.sid && list[i].gid == t.gid {
			list[i].matches++
			if list[i].matches < tagMatchLimit {
				list[i].first, list[i].last = t.first, t.first
				list[i].packets, list[i].bytes = 0, 0
			}
			return list, false
		}
	}
	if len(list) >= tagMaxPerOwner {
		return list, false
	}
	return append([]tagEntry{t}, list...), true
}

// countTags updates the tags of one owner for packet p (TagHandlePacketFlow/Host): counters
// grow, expired tags go, and the result says whether p is tagged. It returns the list and how
// many tags it removed.
func countTags(list []tagEntry, p *decode.Packet) ([]tagEntry, bool, int) {
	now := p.Timestamp.Unix()
	tagged := false
	kept := list[:0]
	removed := 0
	for _, t := range list {
		t.last = now
		switch t.metric {
		case tagPackets:
			t.packets++
		case tagBytes:
			t.bytes += uint64(len(p.Data))
		}
		if t.flags&tagSkippedFirst == 0 {
			t.flags |= tagSkippedFirst
			kept = append(kept, t)
			continue
		}
		var expired bool
		switch t.metric {
		case tagPackets:
			expired = t.packets > uint64(t.count)
		case tagBytes:
			expired = t.bytes > uint64(t.count)
		default:
			expired = t.last-t.first > int64(t.count)
		}
		if expired {
			removed++
			continue
		}
		tagged = true
		kept = append(kept, t)
	}
	return kept, tagged, removed
}

// installTags runs the tag keywords of a rule that alerted on p (fs is p's flow state, nil
// without a flow).
func (e *Engine) installTags(r *Rule, p *decode.Packet, fs *flowState) {
	now := p.Timestamp.Unix()
	for _, s := range r.tags {
		gid := r.Src.GID
		if gid == 0 {
			gid = 1
		}
		t := tagEntry{sid: r.Src.SID, gid: gid, metric: s.metric, count: s.count, first: now, last: now}
		if s.session {
			if fs != nil {
				fs.tags, _ = addTag(fs.tags, t)
			}
			continue
		}
		addr := p.DstIP
		t.flags = tagDirDst
		if s.dirSrc {
			addr, t.flags = p.SrcIP, tagDirSrc
		}
		if !addr.IsValid() {
			continue
		}
		h := e.state.tagHosts
		h.mu.Lock()
		list, ok := h.hosts[addr]
		if ok || len(h.hosts) < tagMaxHosts {
			var added bool
			h.hosts[addr], added = addTag(list, t)
			if added {
				h.n.Add(1)
			}
		}
		h.mu.Unlock()
	}
}

// handleTags counts packet p against the tags of its flow and of its hosts (TagHandlePacket)
// and reports whether it is tagged.
func (e *Engine) handleTags(p *decode.Packet, fs *flowState) bool {
	tagged := false
	if fs != nil && len(fs.tags) > 0 {
		fs.tags, tagged, _ = countTags(fs.tags, p)
	}
	h := e.state.tagHosts
	if h.n.Load() == 0 || p.IPVersion == 0 {
		return tagged
	}
	now := p.Timestamp.Unix()
	h.mu.Lock()
	for _, addr := range [2]netip.Addr{p.SrcIP, p.DstIP} {
		list, ok := h.hosts[addr]
		if !ok {
			continue
		}
		if n := len(list); n > 0 && now-list[0].last > tagHostIdleSecs {
			// TagTimeoutCheck: a host not seen for long loses its tags.
			delete(h.hosts, addr)
			h.n.Add(-int64(n))
			continue
		}
		var t bool
		var removed int
		list, t, removed = countTags(list, p)
		tagged = tagged || t
		h.n.Add(-int64(removed))
		if len(list) == 0 {
			delete(h.hosts, addr)
		} else {
			h.hosts[addr] = list
		}
	}
	h.mu.Unlock()
	return tagged
}

// tagMatch is a match of a rule with tag keywords, waiting for the end of the packet's alert
// processing to know whether Suricata would have reached it.
type tagMatch struct {
	r    *Rule
	en   alert.Entry
	disp alert.Disposition
}

// noteTagged remembers a threat-detection match of a rule with tags.
func (tc *ThreadCtx) noteTagged(r *Rule, en alert.Entry, d alert.Disposition) {
	if len(tc.tagged) < cap(tc.tagged) {
		tc.tagged = append(tc.tagged, tagMatch{r: r, en: en, disp: d})
	}
}

// finishTags installs the tags of the matches that alert processing reaches with an action
// (thresholds passed or suppressed with action, not cut off by a pass), then counts the packet
// against the tags in place (TagHandlePacket); tc.Tagged says whether it is tagged.
func (e *Engine) finishTags(tc *ThreadCtx, p *decode.Packet, tdProcessed bool) {
	if tdProcessed {
		for _, m := range tc.tagged {
			if m.disp != alert.SuppressedNoAction && tc.Queue.Reached(m.en) {
				e.installTags(m.r, p, tc.fs)
			}
		}
	}
	tc.tagged = tc.tagged[:0]
	tc.Tagged = e.handleTags(p, tc.fs)
}
