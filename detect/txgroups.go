package detect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
)

// txGroups are the signature groups of the tx rules with a fast pattern in a transaction
// buffer, as Suricata builds one prefilter engine per buffer in each rule group
// (PrefilterGenericMpmRegister per SGH): per direction, TCP and UDP server ports map to the
// set of those rules their port fields accept, and each list has a database per group, so a
// transaction is scanned only for the patterns of rules whose header can accept the flow.
// Group 0 holds no rule; every other IP protocol uses the group of all the direction's rules.
type txGroups struct {
	ports [2][2]*[65536]uint16 // [tcp, udp][dir]
	other [2]uint16
	// members are per direction and group the iids of the group's rules, sorted.
	members [2][][]uint32
}

// groupOf returns the tx group of packet p in direction dir.
func (g *txGroups) groupOf(p *decode.Packet, dir flow.Direction) int {
	port := p.DstPort
	if dir == flow.ToClient {
		port = p.SrcPort
	}
	switch p.IPProto {
	case decode.ProtoTCP:
		if t := g.ports[0][dir]; t != nil {
			return int(t[port])
		}
		return 0
	case decode.ProtoUDP:
		if t := g.ports[1][dir]; t != nil {
			return int(t[port])
		}
		return 0
	}
	return int(g.other[dir])
}

// buildTxGroups computes the groups of the rules in mpm (per direction, the tx rules with a
// fast pattern in a transaction buffer, in iid order).
func (e *Engine) buildTxGroups(mpm [2][]uint32) txGroups {
	var g txGroups
	for d := range 2 {
		dir := flow.Direction(d)
		g.members[d] = [][]uint32{nil}
		index := map[string]uint16{"": 0}
		intern := func(set []uint32) uint16 {
			var b strings.Builder
			for _, iid := range set {
				b.WriteString(strconv.FormatUint(uint64(iid), 36))
				b.WriteByte(',')
			}
			k := b.String()
			if id, ok := index[k]; ok {
				return id
			}
			id := uint16(len(g.members[d]))
			index[k] = id
			g.members[d] = append(g.members[d], slices.Clone(set))
			return id
		}
		if len(mpm[d]) == 0 {
			continue
		}
		g.other[d] = intern(mpm[d])
		for c, proto := range [2]uint8{decode.ProtoTCP, decode.ProtoUDP} {
			type event struct {
				port  int
				iid   uint32
				start bool
			}
			var evs []event
			for _, iid := range mpm[d] {
				r := e.rules[iid]
				if !r.anyProto && !r.hasProto(proto) {
					continue
				}
				for _, pr := range r.groupPorts(dir) {
					evs = append(evs, event{int(pr.First), iid, true}, event{int(pr.Last) + 1, iid, false})
				}
			}
			if len(evs) == 0 {
				continue
			}
			slices.SortFunc(evs, func(a, b event) int { return a.port - b.port })
			table := new([65536]uint16)
			g.ports[c][d] = table
			active := map[uint32]int{}
			var set []uint32
			for i := 0; i < len(evs); {
				port := evs[i].port
				for ; i < len(evs) && evs[i].port == port; i++ {
					if evs[i].start {
						active[evs[i].iid]++
					} else if active[evs[i].iid]--; active[evs[i].iid] == 0 {
						delete(active, evs[i].iid)
					}
				}
				if port > 65535 {
					break
				}
				last := 65535
				if i < len(evs) {
					last = evs[i].port - 1
				}
				set = set[:0]
				for iid := range active {
					set = append(set, iid)
				}
				slices.Sort(set)
				id := intern(set)
				for p := port; p <= last; p++ {
					table[p] = id
				}
			}
		}
	}
	return g
}

// txMPM is one list's database in one group and direction, with per pattern id the iids of
// the rules using the pattern.
type txMPM struct {
	db           *hs.Database
	patternRules [][]uint32
}

// compileTxGroups compiles, per list, direction and group, the database of the fast
// patterns of the group's rules that sit in the list; lists and groups with the same
// patterns share a database (hs.CompileSets).
func (e *Engine) compileTxGroups(tp *txProgram) error {
	type slot struct{ li, d, g int }
	var slots []slot
	var sets [][]hs.Pattern
	var rulesOf [][][]uint32
	for li := range tp.lists {
		l := &tp.lists[li]
		for d := range 2 {
			if len(l.pats[d]) == 0 {
				continue
			}
			l.grp[d] = make([]txMPM, len(tp.groups.members[d]))
			for gi, members := range tp.groups.members[d] {
				type key struct {
					pat    string
					nocase bool
				}
				ids := map[key]uint32{}
				var pats []hs.Pattern
				var prs [][]uint32
				for k, pt := range l.pats[d] {
					iid := l.patRule[d][k]
					if _, in := slices.BinarySearch(members, iid); !in {
						continue
					}
					kk := key{string(pt.Bytes), pt.Nocase}
					id, ok := ids[kk]
					if !ok {
						id = uint32(len(pats))
						ids[kk] = id
						pats = append(pats, hs.Pattern{ID: id, Bytes: pt.Bytes, Nocase: pt.Nocase})
						prs = append(prs, nil)
					}
					prs[id] = append(prs[id], iid)
				}
				if len(pats) == 0 {
					continue
				}
				slots = append(slots, slot{li, d, gi})
				sets = append(sets, pats)
				rulesOf = append(rulesOf, prs)
				tp.maxHits = max(tp.maxHits, len(pats))
			}
			l.pats[d], l.patRule[d] = nil, nil
		}
	}
	dbs, distinct, err := hs.CompileSets(sets, hs.Options{CacheDir: e.cfg.MPMCacheDir})
	if err != nil {
		return fmt.Errorf("detect: tx fast patterns: %w", err)
	}
	for k, s := range slots {
		tp.lists[s.li].grp[s.d][s.g] = txMPM{db: dbs[k], patternRules: rulesOf[k]}
	}
	tp.dbs = distinct
	return nil
}
