package detect

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
)

// txGroups are the signature groups of the tx rules with a fast pattern in a transaction
// buffer, as Suricata builds one prefilter engine per buffer in each rule group
// (PrefilterGenericMpmRegister per SGH): per direction, TCP and UDP server ports map to the
// set of those rules their port fields accept, so a transaction's hits make candidates only
// of rules whose header can accept the flow. Each list has one database per direction,
// shared by the groups, which filter its hits by their member sets: the databases grow with
// the lists, not with lists times groups (issue #19). Group 0 holds no rule; every other IP
// protocol uses the group of all the direction's rules.
type txGroups struct {
	ports [2][2]*[65536]uint16 // [tcp, udp][dir]
	other [2]uint16
	// sets are per direction and group the group's rules, as bits of their position in the
	// direction's tx rules with a fast pattern; bitOf maps an iid to that position (-1: none)
	// while building.
	sets  [2][]ruleSet
	bitOf [2][]int32
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
		words := (len(mpm[d]) + 63) / 64
		g.bitOf[d] = make([]int32, len(e.rules))
		for i := range g.bitOf[d] {
			g.bitOf[d][i] = -1
		}
		for k, iid := range mpm[d] {
			g.bitOf[d][iid] = int32(k)
		}
		g.sets[d] = []ruleSet{make(ruleSet, words)}
		seed := maphash.MakeSeed()
		index := map[uint64][]uint16{}
		// intern returns the group of a set (a new group for a new set; the empty set is
		// group 0). Past 65535 groups the port gets the group of every rule, a superset.
		intern := func(set ruleSet) uint16 {
			if set.empty() {
				return 0
			}
			h := set.hash(seed)
			for _, id := range index[h] {
				if g.sets[d][id].equal(set) {
					return id
				}
			}
			if len(g.sets[d]) > 0xffff {
				return g.other[d]
			}
			id := uint16(len(g.sets[d]))
			index[h] = append(index[h], id)
			g.sets[d] = append(g.sets[d], set.clone())
			return id
		}
		if len(mpm[d]) == 0 {
			continue
		}
		all := make(ruleSet, words)
		for k := range mpm[d] {
			all.add(uint32(k))
		}
		g.other[d] = intern(all)
		for c, proto := range [2]uint8{decode.ProtoTCP, decode.ProtoUDP} {
			type event struct {
				port  int
				bit   uint32
				start bool
			}
			var evs []event
			for k, iid := range mpm[d] {
				r := e.rules[iid]
				if !r.anyProto && !r.hasProto(proto) {
					continue
				}
				for _, pr := range r.groupPorts(dir) {
					evs = append(evs, event{int(pr.First), uint32(k), true}, event{int(pr.Last) + 1, uint32(k), false})
				}
			}
			if len(evs) == 0 {
				continue
			}
			slices.SortFunc(evs, func(a, b event) int { return a.port - b.port })
			table := new([65536]uint16)
			g.ports[c][d] = table
			// A rule's port ranges may overlap as written: count them per rule.
			count := make([]int32, len(mpm[d]))
			active := make(ruleSet, words)
			for i := 0; i < len(evs); {
				port := evs[i].port
				for ; i < len(evs) && evs[i].port == port; i++ {
					ev := evs[i]
					if ev.start {
						if count[ev.bit]++; count[ev.bit] == 1 {
							active.add(ev.bit)
						}
					} else if count[ev.bit]--; count[ev.bit] == 0 {
						active.remove(ev.bit)
					}
				}
				if port > 65535 {
					break
				}
				last := 65535
				if i < len(evs) {
					last = evs[i].port - 1
				}
				id := intern(active)
				for p := port; p <= last; p++ {
					table[p] = id
				}
			}
		}
	}
	return g
}

// txMPM is one list's database in one direction as one group sees it: the list's database and
// per pattern id the rules using the pattern (shared by the groups), and the group's member
// set that filters the hits (nil when the group holds every rule of the database). db is nil
// when no rule of the group has its fast pattern in the list: the buffer is not scanned.
type txMPM struct {
	db           *hs.Database
	patternRules [][]mpmRef
	members      ruleSet
}

// compileTxGroups compiles, per list and direction, one database of the fast patterns of the
// rules that sit in the list (in parallel, hs.CompileSets; lists with the same patterns share
// one) and gives each group its view of it.
func (e *Engine) compileTxGroups(tp *txProgram) error {
	type slot struct{ li, d int }
	var slots []slot
	var sets [][]hs.Pattern
	var rulesOf [][][]mpmRef
	var inList []ruleSet
	bitOf := &tp.groups.bitOf
	for li := range tp.lists {
		l := &tp.lists[li]
		for d := range 2 {
			if len(l.pats[d]) == 0 {
				continue
			}
			type key struct {
				pat    string
				nocase bool
			}
			ids := map[key]uint32{}
			var pats []hs.Pattern
			var prs [][]mpmRef
			rs := make(ruleSet, len(tp.groups.sets[d][0]))
			for k, pt := range l.pats[d] {
				iid := l.patRule[d][k]
				bit := bitOf[d][iid]
				if bit < 0 {
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
				prs[id] = append(prs[id], mpmRef{iid: iid, bit: uint32(bit)})
				rs.add(uint32(bit))
			}
			l.pats[d], l.patRule[d] = nil, nil
			if len(pats) == 0 {
				continue
			}
			slots = append(slots, slot{li, d})
			sets = append(sets, pats)
			rulesOf = append(rulesOf, prs)
			inList = append(inList, rs)
			tp.maxHits = max(tp.maxHits, len(pats))
		}
	}
	dbs, distinct, err := hs.CompileSets(sets, hs.Options{CacheDir: e.cfg.MPMCacheDir})
	if err != nil {
		return fmt.Errorf("detect: tx fast patterns: %w", err)
	}
	for k, s := range slots {
		groups := tp.groups.sets[s.d]
		grp := make([]txMPM, len(groups))
		all := inList[k]
		for gi, members := range groups {
			common, whole := all.overlap(members)
			if !common {
				continue
			}
			grp[gi] = txMPM{db: dbs[k], patternRules: rulesOf[k]}
			if !whole {
				grp[gi].members = members
			}
		}
		tp.lists[s.li].grp[s.d] = grp
	}
	tp.dbs = distinct
	tp.groups.bitOf = [2][]int32{}
	return nil
}

// sets returns the tx groups' member sets of direction dir (group 0 first, empty).
func (tp *txProgram) sets(dir flow.Direction) []ruleSet { return tp.groups.sets[dir] }
