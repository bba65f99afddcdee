package detect

import (
	"sort"

	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/rules"
)

// actionOrder maps action flags to their rank in action-order.
func actionOrder(names []string) map[string]int {
	if len(names) == 0 {
		names = []string{"pass", "drop", "reject", "alert"}
	}
	m := map[string]int{}
	for i, n := range names {
		m[n] = i
	}
	return m
}

func actionRank(r *Rule, order map[string]int) int {
	switch a := r.Src.Header.Actions[0]; {
	case a == rules.ActionPass:
		return order["pass"]
	case a == rules.ActionDrop:
		return order["drop"]
	case a == rules.ActionReject || a == rules.ActionRejectSrc || a == rules.ActionRejectDst || a == rules.ActionRejectBoth:
		return order["reject"]
	}
	return order["alert"]
}

// varClass ranks a rule's use of a variable kind as Suricata's sort does: set 4 > set+read 3 >
// read 2 > none 1.
func varClass(set, read bool) int {
	switch {
	case set && read:
		return 3
	case set:
		return 4
	case read:
		return 2
	}
	return 1
}

func flowbitsClass(r *rules.Rule) int {
	var set, read bool
	for _, fb := range r.Flowbits {
		switch fb.Cmd {
		case "set", "unset", "toggle":
			set = true
		case "isset", "isnotset":
			read = true
		}
	}
	return varClass(set, read)
}

func flowintClass(r *rules.Rule) int {
	var set, read bool
	for _, fi := range r.Flowints {
		if fi.IsModifier() {
			set = true
		} else {
			read = true
		}
	}
	return varClass(set, read)
}

func xbitsClass(r *rules.Rule, pair bool) int {
	var set, read bool
	for _, xb := range r.Xbits {
		if xb.Track == "tx" || (xb.Track == "ip_pair") != pair {
			continue // tx bits are neither (SCSigGetXbitsType counts host and ippair bits)
		}
		switch xb.Cmd {
		case "set", "unset", "toggle":
			set = true
		case "isset", "isnotset":
			read = true
		}
	}
	return varClass(set, read)
}

func priority(r *Rule) int { return r.severity }

// sortKey is a rule's place in Suricata 8's threat-detection order (reference §5.2): action
// order, then writers of flowbits, flowints, hostbits and ippair bits before readers before
// non-users, then priority, then sid; pos (the compile position) only separates the two halves
// of a <> rule, which agree on everything else.
type sortKey struct {
	table firewall.Table // firewall rules first, by table
	// fwApp puts the app:filter rules after the packet firewall rules and before threat
	// detection (SCSigOrderSignatures); fwDir, fwProto and fwHook order them
	// (SCSigOrderByAppFirewall): direction, protocol, hook progress, then file order.
	fwApp, fwDir, fwProto, fwHook           int
	action                                  int
	flowbits, flowint, hostbits, ippairbits int
	priority                                int
	sid                                     uint32
	pos                                     int
}

func makeSortKey(r *Rule, order map[string]int) sortKey {
	if r.fw && r.table == firewall.TableAppFilter && r.tx != nil {
		h := r.tx.hook
		return sortKey{table: firewall.TablePacketFilter, fwApp: 1, fwDir: int(h.dir), fwProto: int(h.proto), fwHook: int(h.progress)}
	}
	if r.fw {
		// Firewall packet rules keep their file order, whatever their hook (pos decides).
		return sortKey{table: firewall.TablePacketFilter}
	}
	return sortKey{table: firewall.TablePacketTD, action: actionRank(r, order), flowbits: flowbitsClass(r.Src), flowint: flowintClass(r.Src),
		hostbits: xbitsClass(r.Src, false), ippairbits: xbitsClass(r.Src, true), priority: priority(r), sid: r.Src.SID}
}

func (a *sortKey) less(b *sortKey) bool {
	switch {
	case a.table != b.table:
		return a.table < b.table
	case a.fwApp != b.fwApp:
		return a.fwApp < b.fwApp
	case a.fwDir != b.fwDir:
		return a.fwDir < b.fwDir
	case a.fwProto != b.fwProto:
		return a.fwProto < b.fwProto
	case a.fwHook != b.fwHook:
		return a.fwHook < b.fwHook
	case a.action != b.action:
		return a.action < b.action
	case a.flowbits != b.flowbits:
		return a.flowbits > b.flowbits
	case a.flowint != b.flowint:
		return a.flowint > b.flowint
	case a.hostbits != b.hostbits:
		return a.hostbits > b.hostbits
	case a.ippairbits != b.ippairbits:
		return a.ippairbits > b.ippairbits
	case a.priority != b.priority:
		return a.priority < b.priority
	case a.sid != b.sid:
		return a.sid < b.sid
	}
	return a.pos < b.pos
}

// orderRules sorts the rules into Suricata's order (sortKey). The sort keys are computed once
// per rule; the position breaks the last ties (the two halves of a <> rule), so the result is
// one total order whatever the input order, and sorting costs the same for a shuffled rule
// file as for a sorted one.
func orderRules(compiled []*Rule, order map[string]int) []*Rule {
	keys := make([]sortKey, len(compiled))
	for i, c := range compiled {
		keys[i] = makeSortKey(c, order)
		keys[i].pos = i
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(&keys[j]) })
	sorted := make([]*Rule, len(compiled))
	for i := range keys {
		sorted[i] = compiled[keys[i].pos]
	}
	return sorted
}
