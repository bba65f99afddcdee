package detect

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"

	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
	"github.com/meerkat-ids/meerkat/rules"
)

// Grouping configures the signature groups (Suricata's rule groups, "SGHs"): rules are
// grouped by IP protocol, direction and, for TCP and UDP, the server port (the destination
// port of to-server packets, the source port of to-client ones), so a packet's fast-pattern
// hits make candidates only of rules whose header could accept it. The groups of one protocol
// class (TCP, UDP, other) and direction share one Hyperscan database of all their pkt_data
// fast patterns, each group with the set of its rules that filters the hits: the databases do
// not multiply with the groups (issue #19), and a rule is still a candidate only in its groups.
type Grouping struct {
	// Profile is detect.profile: low, medium ("" reads as medium), high or custom. It bounds
	// the port groups of each direction as Suricata's does: low 15 to-client / 25 to-server,
	// medium 20/40, high 75/75, custom CustomToClient/CustomToServer (0: no bound).
	Profile                        string
	CustomToClient, CustomToServer int
	// TCPPriorityPorts and UDPPriorityPorts are detect.grouping's priority ports: a group
	// holding a rule written for exactly one of them is kept apart before any other. nil
	// means Suricata's defaults; an empty, non-nil slice means none.
	TCPPriorityPorts, UDPPriorityPorts []uint16
	// SharedMPM is sgh-mpm-context: single: one group per protocol class (TCP, UDP, other)
	// and direction for every port, as Suricata builds it for Hyperscan under "auto" (the
	// whole class's rules are candidates on any port). By default (auto, full) the port
	// groups filter the hits of the class's shared database.
	SharedMPM bool
	// PerGroupMPM is sgh-mpm-context: full: each packet group compiles a database of its own
	// rules' pkt_data patterns, as Suricata's full context does (scans ~1.5x faster than the
	// class's shared database, BenchmarkSharedVsGroupDB; compiles the any-port rules once per
	// group). Transaction lists keep one database each either way.
	PerGroupMPM bool
}

// ParsePriorityPorts parses a detect.grouping priority-port list (a port field, variables
// from vars): only single ports are allowed, as in Suricata's DetectEngineCtxLoadConf.
func ParsePriorityPorts(text string, vars *config.Vars) ([]uint16, error) {
	p, err := rules.ParsePort(text, vars)
	if err != nil {
		return nil, err
	}
	ports := make([]uint16, 0, len(p.Ranges))
	for _, r := range p.Ranges {
		if r.First != r.Last {
			return nil, fmt.Errorf("only single ports allowed")
		}
		ports = append(ports, r.First)
	}
	return ports, nil
}

// defaultPriorityPorts are config's default priority-port lists, parsed.
var defaultPriorityPorts = sync.OnceValues(func() (tcp, udp []uint16) {
	tcp, err1 := ParsePriorityPorts(config.DefaultTCPPriorityPorts, nil)
	udp, err2 := ParsePriorityPorts(config.DefaultUDPPriorityPorts, nil)
	if err1 != nil || err2 != nil {
		panic(fmt.Sprintf("detect: default priority ports: %v %v", err1, err2)) // constants
	}
	return tcp, udp
})

// groupLimits returns the most port groups per direction the profile allows (0: no bound).
func (g *Grouping) groupLimits() (toClient, toServer int) {
	switch g.Profile {
	case "low":
		return 15, 25
	case "high":
		return 75, 75
	case "custom":
		return g.CustomToClient, g.CustomToServer
	}
	return 20, 40
}

// Group scores, Suricata's DETECT_PGSCORE_*: a port group holding a rule that is costly to
// have in a shared group (no usable fast pattern, a negated or 1-byte one, SYN-only) or a
// rule written for a priority port is kept apart first.
const (
	scorePriorityPort = 111
	scoreNoMPM        = 99
	scoreNegatedMPM   = 77
	scoreShortMPM     = 55
	scoreSynOnly      = 33
)

// GroupStats describes the signature groups of one protocol and direction.
type GroupStats struct {
	// Proto is "tcp", "udp" or "other" (every other IP protocol); ToServer the direction.
	Proto    string
	ToServer bool
	// PortGroups are the port ranges with a distinct rule set before the profile's bound
	// (TCP and UDP); Groups the groups after it; Databases the distinct Hyperscan databases
	// they use (at most one: the groups of a class share it).
	PortGroups, Groups, Databases int
	// PerPacket counts the rules of the protocol and direction that are candidates on every
	// packet their header accepts: no fast pattern and no header witness (IP-only rules,
	// evaluated once per flow direction, and decoder-event rules are not counted).
	PerPacket int
}

// sigGroups is the engine's group lookup: per direction, a group index for every TCP and UDP
// port and every other IP protocol, into mpm.
type sigGroups struct {
	tcp, udp [2]*[65536]uint32
	other    [2][256]uint32
	// mpm[0] is the empty group (no database); dbs are the distinct databases.
	mpm   []mpmGroup
	dbs   []*hs.Database
	stats []GroupStats
}

// mpmGroup is one signature group's prefilter: its protocol class's database and, per pattern
// id, the rules using that pattern (shared by the class's groups), and the group's rules by
// their fast-pattern numbering (mpmRef.bit) that filter the hits, nil when the group holds
// every rule of the database.
type mpmGroup struct {
	db           *hs.Database
	patternRules [][]mpmRef
	members      ruleSet
}

// mpmRef is a rule behind a pattern id: its iid, and its bit in the groups' member sets.
type mpmRef struct{ iid, bit uint32 }

// groupFor returns the signature group of packet p going in direction dir (flowless packets
// go to server, as in Suricata).
func (pf *prefilterIndex) groupFor(p *decode.Packet, dir flow.Direction) *mpmGroup {
	return &pf.sgh.mpm[pf.groupIndex(p, dir)]
}

// groupIndex is groupFor's index into sgh.mpm.
func (pf *prefilterIndex) groupIndex(p *decode.Packet, dir flow.Direction) uint32 {
	g := &pf.sgh
	port := p.DstPort // the server's port
	if dir == flow.ToClient {
		port = p.SrcPort
	}
	switch p.IPProto {
	case decode.ProtoTCP:
		return g.tcp[dir][port]
	case decode.ProtoUDP:
		return g.udp[dir][port]
	}
	return g.other[dir][p.IPProto]
}

// GroupStats returns the signature groups' shape, per protocol and direction.
func (e *Engine) GroupStats() []GroupStats { return e.pf.sgh.stats }

// ruleSet is a set of rules with a fast pattern, as a bitset over their dense numbering
// (groupBuilder.mpmIIDs): the databases hold only those rules, the others go through the
// broad-rule index, so only they need to be told apart.
type ruleSet []uint64

func (s ruleSet) add(iid uint32)      { s[iid>>6] |= 1 << (iid & 63) }
func (s ruleSet) remove(iid uint32)   { s[iid>>6] &^= 1 << (iid & 63) }
func (s ruleSet) has(iid uint32) bool { return s[iid>>6]&(1<<(iid&63)) != 0 }
func (s ruleSet) union(o ruleSet) {
	for i := range s {
		s[i] |= o[i]
	}
}
func (s ruleSet) equal(o ruleSet) bool { return slices.Equal(s, o) }
func (s ruleSet) clone() ruleSet       { return slices.Clone(s) }
func (s ruleSet) empty() bool          { return !slices.ContainsFunc(s, func(w uint64) bool { return w != 0 }) }
func (s ruleSet) hash(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [8]byte
	for _, w := range s {
		binary.LittleEndian.PutUint64(b[:], w)
		h.Write(b[:])
	}
	return h.Sum64()
}

// groupBuilder builds the signature groups of rules (in iid order) into sgh.
type groupBuilder struct {
	rules []*Rule
	cfg   *Config
	sgh   *sigGroups
	// mpmOf numbers the rules with a fast pattern densely (-1 for the others); mpmIIDs maps
	// the numbers back to iids. words is the size of a ruleSet.
	mpmOf   []int32
	mpmIIDs []uint32
	words   int
	seed    maphash.Seed
	// sets interns group rule sets per protocol class (class): a set's index in setList, by
	// hash; setClass is each set's class (classOf).
	sets     map[uint64][]int
	setList  []ruleSet
	setClass []int
	class    int
	// groupOf maps each interned set to its group index in sgh.mpm.
	groupOf []uint32
}

// portEntry is a port range with the rules of one direction written for it: the set of those
// with a fast pattern, the count of them all.
type portEntry struct {
	first, last uint16
	rules       ruleSet
	score       int
	count       int
}

// newGroupBuilder numbers the rules with a fast pattern.
func newGroupBuilder(rs []*Rule, cfg *Config, sgh *sigGroups) *groupBuilder {
	b := &groupBuilder{rules: rs, cfg: cfg, sgh: sgh, mpmOf: make([]int32, len(rs)), seed: maphash.MakeSeed(), sets: map[uint64][]int{}}
	for iid, r := range rs {
		b.mpmOf[iid] = -1
		if r.hasMPM {
			b.mpmOf[iid] = int32(len(b.mpmIIDs))
			b.mpmIIDs = append(b.mpmIIDs, uint32(iid))
		}
	}
	b.words = (len(b.mpmIIDs) + 63) / 64
	return b
}

// buildGroups computes the signature groups and compiles their databases: per direction, the
// TCP and UDP port groups (Suricata's RulesGroupByPorts), then the groups of every other IP
// protocol (RulesGroupByIPProto).
func buildGroups(rs []*Rule, cfg *Config) (sigGroups, error) {
	var sgh sigGroups
	b := newGroupBuilder(rs, cfg, &sgh)
	sgh.mpm = []mpmGroup{{}}
	toClient, toServer := cfg.Grouping.groupLimits()
	tcpPrio, udpPrio := cfg.Grouping.TCPPriorityPorts, cfg.Grouping.UDPPriorityPorts
	defTCP, defUDP := defaultPriorityPorts()
	if tcpPrio == nil {
		tcpPrio = defTCP
	}
	if udpPrio == nil {
		udpPrio = defUDP
	}
	scores := make([]int, len(rs))
	for i, r := range rs {
		scores[i] = r.groupScore()
	}
	for _, dir := range []flow.Direction{flow.ToServer, flow.ToClient} {
		limit := toServer
		if dir == flow.ToClient {
			limit = toClient
		}
		sgh.tcp[dir] = new([65536]uint32)
		b.class = classOf(decode.ProtoTCP, dir)
		sgh.stats = append(sgh.stats, b.portGroups(decode.ProtoTCP, dir, sgh.tcp[dir], limit, scores, tcpPrio))
		sgh.udp[dir] = new([65536]uint32)
		b.class = classOf(decode.ProtoUDP, dir)
		sgh.stats = append(sgh.stats, b.portGroups(decode.ProtoUDP, dir, sgh.udp[dir], limit, scores, udpPrio))
		b.class = classOf(0, dir)
		sgh.stats = append(sgh.stats, b.protoGroups(dir))
	}
	if err := b.compile(); err != nil {
		return sigGroups{}, err
	}
	return sgh, nil
}

// portGroups fills table, the group index of every server port of protocol proto (TCP or
// UDP) in direction dir: the port ranges with distinct rules, at most limit groups of them
// kept apart (limitGroups) and the rest joined in one; with a shared MPM
// (sgh-mpm-context: single) one group for every port.
func (b *groupBuilder) portGroups(proto uint8, dir flow.Direction, table *[65536]uint32, limit int, scores []int, prio []uint16) GroupStats {
	name := "tcp"
	if proto == decode.ProtoUDP {
		name = "udp"
	}
	entries := b.portEntries(proto, dir, scores, prio)
	st := GroupStats{Proto: name, ToServer: dir == flow.ToServer, PortGroups: len(entries), PerPacket: b.perPacket(proto, dir)}
	if b.cfg.Grouping.SharedMPM {
		all := make(ruleSet, b.words)
		for _, en := range entries {
			all.union(en.rules)
		}
		gi := b.intern(all)
		for port := range table {
			table[port] = gi
		}
		st.Groups = 1
		return st
	}
	used := map[uint32]bool{}
	own, join := limitGroups(entries, limit)
	if join != nil {
		gi := b.intern(join.rules)
		used[gi] = true
		for _, en := range entries {
			for port := int(en.first); port <= int(en.last); port++ {
				table[port] = gi
			}
		}
	}
	for _, en := range own {
		gi := b.intern(en.rules)
		used[gi] = true
		for port := int(en.first); port <= int(en.last); port++ {
			table[port] = gi
		}
	}
	st.Groups = len(used)
	return st
}

// protoGroups assigns the groups of every IP protocol but TCP and UDP in direction dir: one per
// distinct rule set, where the rules of every protocol ("ip") belong to each protocol's set
// and the others only to their protocols'; with a shared MPM one group for them all.
func (b *groupBuilder) protoGroups(dir flow.Direction) GroupStats {
	// One pass over the rules, not one per protocol.
	var sets [256]ruleSet
	anyProto := make(ruleSet, b.words)
	var specific [256][]uint32
	for _, r := range b.rules {
		if b.mpmOf[r.IID] < 0 {
			continue
		}
		if r.anyProto {
			if r.groupMember(0, dir) {
				anyProto.add(uint32(b.mpmOf[r.IID]))
			}
			continue
		}
		for proto := range 256 {
			if r.hasProto(uint8(proto)) && r.groupMember(uint8(proto), dir) {
				specific[proto] = append(specific[proto], r.IID)
			}
		}
	}
	shared := make(ruleSet, b.words)
	for proto := 0; proto < 256; proto++ {
		if uint8(proto) == decode.ProtoTCP || uint8(proto) == decode.ProtoUDP {
			continue
		}
		sets[proto] = anyProto
		if len(specific[proto]) > 0 {
			sets[proto] = anyProto.clone()
			for _, iid := range specific[proto] {
				sets[proto].add(uint32(b.mpmOf[iid]))
			}
		}
		shared.union(sets[proto])
	}
	used := map[uint32]bool{}
	for proto, set := range sets {
		if set == nil || set.empty() {
			continue
		}
		if b.cfg.Grouping.SharedMPM {
			set = shared
		}
		gi := b.intern(set)
		b.sgh.other[dir][proto] = gi
		used[gi] = true
	}
	return GroupStats{Proto: "other", ToServer: dir == flow.ToServer, Groups: len(used), PerPacket: b.perPacket(0, dir)}
}

// perPacket counts the rules that are candidates on every packet of IP protocol proto (0:
// every protocol but TCP and UDP) in direction dir that their header accepts (GroupStats).
func (b *groupBuilder) perPacket(proto uint8, dir flow.Direction) int {
	n := 0
	for _, r := range b.rules {
		if !r.perPacket() {
			continue
		}
		if proto == 0 {
			if !r.anyProto && (r.ipProtos[0]|r.ipProtos[1]|r.ipProtos[2]|r.ipProtos[3])&^(1<<decode.ProtoTCP|1<<decode.ProtoUDP) == 0 {
				continue // TCP or UDP only
			}
		} else if !r.anyProto && !r.hasProto(proto) {
			continue
		}
		if dir == flow.ToServer && r.Src.ToServer || dir == flow.ToClient && r.Src.ToClient {
			n++
		}
	}
	return n
}

// portEntries returns the port ranges of protocol proto and direction dir with a distinct set
// of rules, in port order: ranges are cut wherever a rule's port range starts or ends (so
// neighbours never hold the same rules). Each carries the highest score of its rules' port
// entries.
func (b *groupBuilder) portEntries(proto uint8, dir flow.Direction, scores []int, prio []uint16) []portEntry {
	type event struct {
		port  int // first port of the range, or last+1 for its end
		iid   uint32
		score int
		start bool
	}
	var events []event
	for i, r := range b.rules {
		if !r.groupMember(proto, dir) {
			continue
		}
		for _, pr := range r.groupPorts(dir) {
			s := scores[i]
			if pr.First == pr.Last && slices.Contains(prio, pr.First) {
				s = max(s, scorePriorityPort)
			}
			events = append(events, event{int(pr.First), r.IID, s, true}, event{int(pr.Last) + 1, r.IID, s, false})
		}
	}
	slices.SortFunc(events, func(a, b event) int { return a.port - b.port })
	var entries []portEntry
	active := make(ruleSet, b.words)
	var scoreCount [scorePriorityPort + 1]int
	n := 0
	for i := 0; i < len(events); {
		port := events[i].port
		for ; i < len(events) && events[i].port == port; i++ {
			ev := events[i]
			d := b.mpmOf[ev.iid]
			if ev.start {
				if d >= 0 {
					active.add(uint32(d))
				}
				scoreCount[ev.score]++
				n++
			} else {
				if d >= 0 {
					active.remove(uint32(d))
				}
				scoreCount[ev.score]--
				n--
			}
		}
		if n == 0 || port > 65535 {
			continue
		}
		last := 65535
		if i < len(events) {
			last = events[i].port - 1
		}
		score := 0
		for s := len(scoreCount) - 1; s > 0; s-- {
			if scoreCount[s] > 0 {
				score = s
				break
			}
		}
		// A rule's ranges are disjoint, so n is the number of rules on these ports (all of
		// them count for the ranking, as in Suricata, though only those with a fast pattern
		// are in the set).
		entries = append(entries, portEntry{first: uint16(port), last: uint16(last), rules: active.clone(), score: score, count: n})
	}
	return entries
}

// limitGroups keeps the limit best entries (highest score, then most rules, then lowest port:
// Suricata's CreateGroupedPortList order) as groups of their own and joins the rules of the
// rest into one group (nil when none is left over). A limit of 0 keeps every entry.
func limitGroups(entries []portEntry, limit int) (own []portEntry, join *portEntry) {
	order := slices.Clone(entries)
	slices.SortStableFunc(order, func(a, b portEntry) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return b.count - a.count
	})
	if limit == 0 || len(order) <= limit {
		return order, nil
	}
	join = &portEntry{rules: order[limit].rules.clone()}
	for _, en := range order[limit+1:] {
		join.rules.union(en.rules)
	}
	return order[:limit], join
}

// classOf numbers the protocol classes that share a database: TCP, UDP and every other IP
// protocol (proto 0 here), per direction.
func classOf(proto uint8, dir flow.Direction) int {
	c := 2
	switch proto {
	case decode.ProtoTCP:
		c = 0
	case decode.ProtoUDP:
		c = 1
	}
	return 3*int(dir) + c
}

// patternKey is a fast pattern: its bytes and case.
type patternKey struct {
	pat    string
	nocase bool
}

// numClasses is the number of classOf values.
const numClasses = 6

// intern returns the group index of a rule set in the current class, adding a group for a new
// one; an empty set is group 0.
func (b *groupBuilder) intern(set ruleSet) uint32 {
	if set.empty() {
		return 0
	}
	h := set.hash(b.seed) ^ uint64(b.class)
	for _, k := range b.sets[h] {
		if b.setClass[k] == b.class && b.setList[k].equal(set) {
			return b.groupOf[k]
		}
	}
	b.sets[h] = append(b.sets[h], len(b.setList))
	b.setList = append(b.setList, set)
	b.setClass = append(b.setClass, b.class)
	gi := uint32(len(b.sgh.mpm))
	b.groupOf = append(b.groupOf, gi)
	b.sgh.mpm = append(b.sgh.mpm, mpmGroup{})
	return gi
}

// compile builds, per protocol class and direction, one database of the fast patterns of all
// the class's groups' rules (numbered, with the rules using each), compiled by package hs in
// parallel; each group of the class scans it and keeps the hits of its own rules. The number
// and size of the databases so follow the classes, not the groups (Suricata builds a store
// per group, MpmStorePrepareBuffer; one per class is the "single" context with the groups'
// port filtering kept).
func (b *groupBuilder) compile() error {
	type key = patternKey
	// Each rule's fast pattern, chosen once.
	fps := make([]key, len(b.rules))
	for iid, r := range b.rules {
		if r.hasMPM {
			fp, _ := r.Src.FastPattern()
			fps[iid] = key{string(fp.Pattern()), fp.Content.Nocase}
		}
	}
	var unions [numClasses]ruleSet
	for k, set := range b.setList {
		c := b.setClass[k]
		if unions[c] == nil {
			unions[c] = make(ruleSet, b.words)
		}
		unions[c].union(set)
	}
	if b.cfg.Grouping.PerGroupMPM && !b.cfg.Grouping.SharedMPM {
		return b.compilePerGroup(fps)
	}
	sets := make([][]hs.Pattern, numClasses)
	var refs [numClasses][][]mpmRef
	for c, all := range unions {
		ids := map[key]uint32{}
		var pats []hs.Pattern
		for w, word := range all {
			for ; word != 0; word &= word - 1 {
				bit := uint32(w*64 + bits.TrailingZeros64(word))
				iid := b.mpmIIDs[bit]
				pk := fps[iid]
				id, ok := ids[pk]
				if !ok {
					id = uint32(len(pats))
					ids[pk] = id
					pats = append(pats, hs.Pattern{ID: id, Bytes: []byte(pk.pat), Nocase: pk.nocase})
					refs[c] = append(refs[c], nil)
				}
				refs[c][id] = append(refs[c][id], mpmRef{iid: iid, bit: bit})
			}
		}
		sets[c] = pats
	}
	dbs, distinct, err := hs.CompileSets(sets, hs.Options{CacheDir: b.cfg.MPMCacheDir})
	if err != nil {
		return fmt.Errorf("detect: fast patterns: %w", err)
	}
	for k, set := range b.setList {
		c := b.setClass[k]
		g := &b.sgh.mpm[b.groupOf[k]]
		g.db, g.patternRules = dbs[c], refs[c]
		if !set.equal(unions[c]) {
			g.members = set
		}
	}
	b.sgh.dbs = distinct
	b.countDatabases()
	return nil
}

// compilePerGroup is compile for sgh-mpm-context: full: a database per group of its own
// rules' patterns (groups with the same patterns share one).
func (b *groupBuilder) compilePerGroup(fps []patternKey) error {
	sets := make([][]hs.Pattern, len(b.setList))
	refs := make([][][]mpmRef, len(b.setList))
	for k, set := range b.setList {
		ids := map[patternKey]uint32{}
		for w, word := range set {
			for ; word != 0; word &= word - 1 {
				bit := uint32(w*64 + bits.TrailingZeros64(word))
				iid := b.mpmIIDs[bit]
				pk := fps[iid]
				id, ok := ids[pk]
				if !ok {
					id = uint32(len(sets[k]))
					ids[pk] = id
					sets[k] = append(sets[k], hs.Pattern{ID: id, Bytes: []byte(pk.pat), Nocase: pk.nocase})
					refs[k] = append(refs[k], nil)
				}
				refs[k][id] = append(refs[k][id], mpmRef{iid: iid, bit: bit})
			}
		}
	}
	dbs, distinct, err := hs.CompileSets(sets, hs.Options{CacheDir: b.cfg.MPMCacheDir})
	if err != nil {
		return fmt.Errorf("detect: fast patterns: %w", err)
	}
	for k := range b.setList {
		g := &b.sgh.mpm[b.groupOf[k]]
		g.db, g.patternRules = dbs[k], refs[k]
	}
	b.sgh.dbs = distinct
	b.countDatabases()
	return nil
}

// countDatabases fills GroupStats.Databases.
func (b *groupBuilder) countDatabases() {
	g := b.sgh
	for i := range g.stats {
		st := &g.stats[i]
		dir := flow.ToClient
		if st.ToServer {
			dir = flow.ToServer
		}
		dbs := map[*hs.Database]bool{}
		switch st.Proto {
		case "tcp", "udp":
			t := g.tcp[dir]
			if st.Proto == "udp" {
				t = g.udp[dir]
			}
			for _, gi := range t {
				if db := g.mpm[gi].db; db != nil {
					dbs[db] = true
				}
			}
		default:
			for _, gi := range g.other[dir] {
				if db := g.mpm[gi].db; db != nil {
					dbs[db] = true
				}
			}
		}
		st.Databases = len(dbs)
	}
}

// groupMember reports whether the rule belongs in the groups of IP protocol proto and
// direction dir (RulesGroupByPorts and DetectEngineBuildSgh): its protocol covers proto, its
// direction allows dir, it is not IP-only (the broad index handles those), and it is not a
// SYN-only rule without a direction written for server ports, which Suricata leaves out of
// the to-client groups.
func (r *Rule) groupMember(proto uint8, dir flow.Direction) bool {
	if r.ipOnly || !r.anyProto && !r.hasProto(uint8(proto)) {
		return false
	}
	if dir == flow.ToServer && !r.Src.ToServer || dir == flow.ToClient && !r.Src.ToClient {
		return false
	}
	if dir == flow.ToClient && r.synNoToClient {
		return false
	}
	return true
}

// groupPorts returns the rule's port ranges that group it in direction dir: the destination
// ports to server, the source ports to client.
func (r *Rule) groupPorts(dir flow.Direction) []rules.PortRange {
	p := r.dp
	if dir == flow.ToClient {
		p = r.sp
	}
	if p == nil || len(p.Ranges) == 0 {
		return []rules.PortRange{{First: 0, Last: 65535}}
	}
	return p.Ranges
}

// groupScore is Suricata's RuleSetScore: for a rule written for specific ports (the
// destination ports of a rule that goes to server, else the source ports), how costly it is
// to share a group with it.
func (r *Rule) groupScore() int {
	p := r.dp
	if !r.Src.ToServer {
		p = r.sp
	}
	if p == nil || len(p.Ranges) == 0 || p.Ranges[0] == (rules.PortRange{First: 0, Last: 65535}) {
		return 0
	}
	fp, hasFP := r.Src.FastPattern()
	switch {
	case !hasFP && r.payload != nil:
		return scoreNoMPM
	case hasFP && fp.Content.Negated:
		return scoreNegatedMPM
	case hasFP && fp.Buffer == "pkt_data" && len(fp.Content.Pattern) == 1:
		return scoreShortMPM
	case synOnly(r.Src):
		return scoreSynOnly
	}
	return 0
}

// synOnly is DetectFlagsSignatureNeedsSynOnlyPackets: a flags keyword that asks for SYN alone
// (not negated).
func synOnly(r *rules.Rule) bool {
	for _, o := range r.Matches {
		if f, ok := o.Arg.(*rules.TCPFlags); ok && f.Modifier != "!" && f.Flags == 0x02 {
			return true
		}
	}
	return false
}

// overlap reports whether s and o share a rule, and whether o holds every rule of s.
func (s ruleSet) overlap(o ruleSet) (common, whole bool) {
	whole = true
	for i, w := range s {
		if w&o[i] != 0 {
			common = true
		}
		if w&^o[i] != 0 {
			whole = false
		}
	}
	return common, whole
}
