package detect

import (
	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/threshold"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// Firewall mode, packet tables (reference §1.5, Suricata 8.0.6 detect.c DetectRun,
// DetectRulePacketRules, DetectRunPostRules and detect-engine-alert.c
// PacketAlertFinalizeProcessQueue). A packet goes through:
//
//   - the packet:pre_flow hook (before the flow table) and, for TCP, the packet:pre_stream
//     hook: each evaluates its table's rules in file order and closes with its policy;
//   - the main run: packet:filter rules (file order, lowest iids) and the threat-detection
//     rules share one candidate walk. A matching accept:hook skips the remaining firewall
//     rules; accept:packet and accept:flow also accept the packet at once (accept:flow marks
//     the flow, whose later packets skip the firewall rules); a drop stops the walk. With no
//     firewall verdict the packet:filter policy applies (drop:packet by default).
//   - the alert walk in table order: firewall matches (a drop ends everything, a pass skips
//     threat detection), then threat detection as in IPS mode except that drops no longer
//     apply to a packet the firewall already accepted, then, when the packet went on past
//     packet:filter, the app-layer tables. Meerkat has no app-layer state yet, so it does what
//     Suricata does for a flow without one: a default accept (§1.5 step 4).
//   - fail closed: a packet with neither accept nor drop gets the policy as final.
//
// The order of the rules is the engine's iid order, so nothing is sorted per packet.

// fwMatch is a firewall rule (or policy) match waiting for the alert walk.
type fwMatch struct {
	r      *Rule
	action alert.Action
	scope  rules.Scope
	table  firewall.Table
	policy bool // a policy's synthetic rule: its action applies to the packet even for :hook
	none   bool // thresholds said no action (PacketAlertHandle 0)
	// txID is the transaction of an app:filter match (alert.NoTx for the packet tables);
	// applyPkt is PACKET_ALERT_FLAG_APPLY_ACTION_TO_PACKET: an app:filter accept:hook or
	// accept:tx that accepts the packet.
	txID     uint64
	applyPkt bool
}

// fwThread is a worker's firewall state for the current packet.
type fwThread struct {
	matches []fwMatch // this run's firewall matches, policy first
	logged  []*Rule   // firewall alerts of the packet in order (hooks, packet:filter, app:filter)
	// loggedTx are the logged alerts' transactions (alert.NoTx for the packet tables).
	loggedTx []uint64
	// dropRule and policyDrop are the first firewall rule and the policy rule with a drop
	// action that matched this packet (for p->alerts.drop).
	dropRule, policyDrop *Rule
	// appDrop is the first app:filter rule (or app policy rule) with a drop action queued.
	appDrop *Rule
	// appTD are the tx stage's threat-detection matches, queued after the app:filter ones
	// in the alert walk (AlertQueueSortHelperFirewall: app:filter before app:td).
	appTD []appTDMatch
	// appAccept is the app tables' default accept (DetectRunAppendDefaultAccept), appRan
	// says the app tables ran for the packet.
	appAccept, appRan bool
	// Discarded is firewall.discarded_alerts: firewall alerts beyond packet-alert-max.
	Discarded uint64
	// Alerts is the firewall's share of detect.alert: like Suricata, every detection run
	// (hooks and main) adds the packet's alerts so far, so a hook's alert counts once per run.
	Alerts uint64
}

// addMatch keeps the run's firewall matches in the alert walk's order, (table, iid), by
// insertion (a hook rule can match in the main walk after a packet:filter config rule). When
// the bounded list is full, a deciding match replaces the last entry: it must not be lost.
func (t *fwThread) addMatch(m fwMatch, deciding bool) {
	n := len(t.matches)
	if n == cap(t.matches) {
		if !deciding {
			return
		}
		n--
		t.matches = t.matches[:n]
	}
	i := n
	for i > 0 && (t.matches[i-1].table > m.table || t.matches[i-1].table == m.table && (t.matches[i-1].r.IID > m.r.IID ||
		// AlertQueueSortHelperFirewall: one rule's matches on several txs, the latest first.
		t.matches[i-1].r.IID == m.r.IID && t.matches[i-1].txID != alert.NoTx && t.matches[i-1].txID < m.txID)) {
		i--
	}
	t.matches = append(t.matches, fwMatch{})
	copy(t.matches[i+1:], t.matches[i:n])
	t.matches[i] = m
}

// startRun clears what one detection run (a hook or the main run) keeps: its matches, and
// p->alerts.drop, which Suricata resets at the start of every run.
func (t *fwThread) startRun() {
	t.matches = t.matches[:0]
	t.dropRule, t.policyDrop, t.appDrop = nil, nil, nil
	t.appAccept, t.appRan = false, false
	t.appTD = t.appTD[:0]
}

// appTDMatch is a threat-detection tx rule's match waiting for the alert walk.
type appTDMatch struct {
	r    *Rule
	txID uint64
}

func (t *fwThread) init(max int) {
	t.matches = make([]fwMatch, 0, 64)
	t.logged = make([]*Rule, 0, max)
	t.loggedTx = make([]uint64, 0, max)
}

// StartPacket clears the per-packet state before a packet's hooks and main run in firewall
// mode: the verdict, the firewall alerts and the alert queue.
func (tc *ThreadCtx) StartPacket() {
	tc.Verdict = alert.PacketVerdict{}
	tc.fw.logged, tc.fw.loggedTx = tc.fw.logged[:0], tc.fw.loggedTx[:0]
	tc.fw.startRun()
	tc.Queue.Reset()
	tc.pst.StartPacket()
}

// FirstDropRule returns the first rule with a drop action that matched the packet, whether or
// not its drop applied (Suricata's p->alerts.drop, set when a match is queued): firewall rules
// come before threat detection, the packet policy's rule after it. Nil when there is none.
func (tc *ThreadCtx) FirstDropRule() *Rule {
	if tc.fw.dropRule != nil {
		return tc.fw.dropRule
	}
	if en, ok := tc.Queue.DropEntry(); ok {
		return tc.e.rules[en.IID]
	}
	if tc.fw.policyDrop != nil {
		return tc.fw.policyDrop
	}
	return tc.fw.appDrop
}

// FirewallAlerts returns the firewall alerts of the current packet in the order they are
// logged, before the threat-detection entries of Queue.
func (tc *ThreadCtx) FirewallAlerts() []*Rule { return tc.fw.logged }

// FirewallAlertTx returns the transaction of the i-th firewall alert (FirewallAlerts):
// alert.NoTx for a packet table's alert, the tx id of an app:filter one.
func (tc *ThreadCtx) FirewallAlertTx(i int) uint64 { return tc.fw.loggedTx[i] }

// FirewallAlertCount returns the firewall's share of detect.alert.
func (tc *ThreadCtx) FirewallAlertCount() uint64 { return tc.fw.Alerts }

// FirewallDiscarded returns firewall.discarded_alerts.
func (tc *ThreadCtx) FirewallDiscarded() uint64 { return tc.fw.Discarded }

// HasHook reports whether there are rules in a hook table (TablePreFlow, TablePreStream):
// Suricata runs a hook only then.
func (e *Engine) HasHook(t firewall.Table) bool {
	switch t {
	case firewall.TablePreFlow:
		return e.fw.hasPreFlow
	case firewall.TablePreStream:
		return e.fw.hasPreStream
	}
	return false
}

// policyRules makes the synthetic rules that log a packet policy with an alert action
// (AddPktPolicySignature); nRules is the engine's rule count, after which their log ids come.
func policyRules(fw *fwProgram, nRules uint32) [firewall.TablePacketFilter + 1]*Rule {
	var out [firewall.TablePacketFilter + 1]*Rule
	for _, t := range []firewall.Table{firewall.TablePreFlow, firewall.TablePreStream, firewall.TablePacketFilter} {
		pol := fw.policy(t)
		if !pol.Alerts() {
			continue
		}
		// iid 0: Suricata's policy signature is zeroed memory, so it sorts first in its table.
		out[t] = &Rule{IID: 0, Action: pol.Action, fw: true, table: t, scope: pol.Scope, severity: rules.DefaultSeverity,
			logID: nRules + uint32(t)}
	}
	return out
}

// policy returns the default policy of a packet table.
func (fw *fwProgram) policy(t firewall.Table) firewall.Policy {
	if t == firewall.TablePreFlow || t == firewall.TablePreStream {
		return fw.pktPolicy[t]
	}
	return fw.pktPolicy[firewall.TablePacketFilter]
}

// RunHook evaluates the rules of a packet hook table (TablePreFlow before the flow table, with
// f nil; TablePreStream for TCP packets with a flow) and closes the hook with its policy, as
// DetectRunPacketHook does. It reports whether the packet is dropped; the caller then sets the
// hook's drop reason (tc.Verdict keeps an earlier one).
func (e *Engine) RunHook(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction, t firewall.Table) bool {
	tc.begin(e, p, f, dir)
	tc.fw.startRun()
	list := e.fw.preFlow
	if t == firewall.TablePreStream {
		list = e.fw.preStream[dir]
	}
	if len(list) == 0 {
		// No rule group for this direction: Suricata only closes the hook with its policy as
		// final (whose alert comes too late to be logged).
		e.fw.failClosed(tc, p, f, t)
		return tc.Verdict.Dropped()
	}
	skipFW := f != nil && f.Accept
	var action alert.Action
	verdict := false
	if !skipFW && p.IPVersion != 0 {
		flowStart := f != nil && f.PacketFlowStart()
		for _, iid := range list {
			r := e.rules[iid]
			if r.flowStart && !flowStart || !r.matches(tc, p) {
				continue
			}
			stop, done := e.fwRuleMatched(tc, r, p, f, &action)
			verdict = verdict || done
			if stop {
				break
			}
		}
	}
	if skipFW || verdict {
		tc.Verdict.Action |= action
	} else {
		e.fw.applyPacketPolicy(tc, t, f, false)
	}
	e.firewallFinalize(tc, p, f, false, false)
	e.fw.failClosed(tc, p, f, t)
	tc.fw.Alerts += uint64(len(tc.fw.logged))
	return tc.Verdict.Dropped()
}

// fwRuleMatched handles a matching firewall rule during a candidate walk (the firewall part of
// DetectRulePacketRules): it records the match for the alert walk, and for an accept or drop
// adds the packet action to *action. It reports whether the walk stops (a drop) and whether the
// rule gave a verdict (accept or drop); after a verdict no other firewall rule is evaluated.
func (e *Engine) fwRuleMatched(tc *ThreadCtx, r *Rule, p *decode.Packet, f *flow.Flow, action *alert.Action) (stop, verdict bool) {
	m := fwMatch{r: r, action: r.Action, scope: r.scope, table: r.table, txID: alert.NoTx}
	if !r.fwStatic && e.thresholds.HasRate(r.IID) {
		d, _ := e.thresholds.Decide(r.IID, p, f)
		m.none = d.Result() == threshold.NoMatch
	}
	// The alert walk has nothing to do for an accept:hook rule without alert (the candidate
	// walk already skipped the table's other rules); every other match goes to it.
	if r.scope != rules.ScopeHook || r.Action&alert.ActionAlert != 0 {
		tc.fw.addMatch(m, r.Action&(alert.ActionAccept|alert.ActionDrop) != 0)
	}
	if r.Action&alert.ActionDrop != 0 && tc.fw.dropRule == nil {
		tc.fw.dropRule = r
	}
	switch {
	case r.Action&alert.ActionAccept != 0:
		switch r.scope {
		case rules.ScopePacket:
			*action |= r.Action
		case rules.ScopeFlow:
			*action |= r.Action
			if f != nil {
				f.Accept = true // set at once: the packet:filter hook is being evaluated
			}
		}
		return false, true
	case r.Action&alert.ActionDrop != 0:
		*action |= r.Action
		return true, true
	}
	return false, false
}

// applyPacketPolicy applies a packet table's policy (DetectRunApplyPacketPolicy): a drop drops
// the packet (reason: default packet policy), accept:packet and accept:flow accept it,
// accept:hook only when final. A policy with alert queues its synthetic rule. It returns the
// packet's action.
func (fw *fwProgram) applyPacketPolicy(tc *ThreadCtx, t firewall.Table, f *flow.Flow, final bool) alert.Action {
	pol := fw.policy(t)
	v := &tc.Verdict
	switch {
	case pol.Action&alert.ActionDrop != 0:
		v.Drop(pol.Action, alert.ReasonFWDefaultPacketPolicy)
	case pol.Action&alert.ActionAccept != 0:
		switch pol.Scope {
		case rules.ScopePacket:
			v.Action |= pol.Action
		case rules.ScopeHook:
			if final {
				v.Action |= pol.Action
			}
		case rules.ScopeFlow:
			v.Action |= pol.Action
			if f != nil {
				f.Accept = true
			}
		}
	}
	if pr := fw.policyRules[t]; pr != nil && !final {
		// Queued before the alert walk, and first in its table (its iid is 0 in Suricata).
		// The final call comes after the walk: Suricata queues that alert too late to log it.
		tc.fw.addMatch(fwMatch{r: pr, action: pol.Action, scope: pol.Scope, table: t, policy: true, txID: alert.NoTx}, true)
		if pol.Action&alert.ActionDrop != 0 && tc.fw.policyDrop == nil {
			tc.fw.policyDrop = pr
		}
	}
	return v.Action
}

// failClosed gives a captured packet with neither accept nor drop the table's policy as final
// (DetectRunPostRules): accept:hook then accepts the packet.
func (fw *fwProgram) failClosed(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, t firewall.Table) {
	if tc.Verdict.Action&(alert.ActionAccept|alert.ActionDrop) == 0 && p.Source == decode.SourceWire {
		fw.applyPacketPolicy(tc, t, f, true)
	}
}

// logFW logs a firewall alert if packet-alert-max leaves room (else firewall.discarded_alerts)
// and keeps the threat-detection queue's bound below what is left.
func (tc *ThreadCtx) logFW(r *Rule, txID uint64) {
	if len(tc.fw.logged) < cap(tc.fw.logged) {
		tc.fw.logged = append(tc.fw.logged, r)
		tc.fw.loggedTx = append(tc.fw.loggedTx, txID)
		tc.Queue.Reserve(1)
		return
	}
	tc.fw.Discarded++
}

// quietFirewall reports whether inspectFirewallQuiet inspects p: its flow direction has its
// firewall result cached as a quiet accept:hook rule, or the engine has no firewall rule and a
// quiet packet:filter policy (quietNoFW).
func (e *Engine) quietFirewall(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) bool {
	if f == nil || f.Accept || p.IPVersion == 0 || p.IPProto == 0 || len(e.rules) == 0 {
		return false
	}
	if e.fw.quietNoFW {
		return true
	}
	if !e.pf.useBroad {
		return false
	}
	bc := &tc.fs.broad[dir]
	return bc.fwQuiet && bc.fwFirst != 0 && bc.valid && !bc.overflow
}

// inspectFirewall is Inspect in firewall mode: the main detection run (DetectRun).
func (e *Engine) inspectFirewall(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	tc.fw.startRun()
	skipFW := f != nil && f.Accept
	var action alert.Action
	verdict := false
	if p.IPVersion == 0 || p.IPProto == 0 && !p.Events.Empty() {
		// Suricata inspects these packets with its decoder-event rule group: no firewall rule
		// decides (the packet policy does), the decoder-event-only rules run, and on a packet
		// with an IP layer the IP-only rules too (its IP-only engine runs before the groups).
		if !p.Events.Empty() && len(e.rules) > 0 {
			if p.IPVersion == 0 {
				e.deWalk(tc, p)
			} else {
				e.inspectProto0(tc, p, f, dir)
			}
		}
	} else if len(e.rules) > 0 {
		have := e.pf.collect(tc, p, dir)
		var bc *broadCache
		if e.pf.useBroad {
			bc = tc.broadCache()
		}
		stop := false
		if bc != nil && bc.fwFirst != 0 && !skipFW {
			// This flow direction's firewall result is known: the same header-only rule
			// decides (collect left the firewall candidates out). A quiet accept:hook rule's
			// packets take inspectFirewallQuiet instead.
			var done bool
			stop, done = e.fwRuleMatched(tc, e.rules[bc.fwFirst-1], p, f, &action)
			verdict, skipFW = done, done
		}
		// With no candidate at all (and the firewall decided, or no firewall rule in reach),
		// nothing can match: only the policy and the alert walk remain.
		if have {
			ipOnlyDone := tc.takeIPOnly()
			flowStart := f != nil && f.PacketFlowStart()
			passed := f != nil && f.Action == flow.ActionPass
			// static: every firewall candidate so far depends only on the header and none matched
			// (a config rule that matches acts on every packet: nothing may be cached behind it).
			static := true
			// After a firewall drop, and in a flow passed by threat detection, the walk goes on for
			// the IP-only rules alone: Suricata's IP-only engine runs before its rule loop, so they
			// still match (and set their flowbits) there.
			cs := tc.cands
			iid, ok := cs.Next(0)
			// Firewall rules have the lowest iids: walk them first, until one decides.
			if !skipFW && !stop {
				for ; ok && iid < e.fw.nFW; iid, ok = cs.Next(iid + 1) {
					r := e.rules[iid]
					if r.flowStart && !flowStart || r.synNoToClient && dir == flow.ToClient {
						continue
					}
					static = static && r.fwStatic
					if !r.matches(tc, p) {
						continue
					}
					var done bool
					stop, done = e.fwRuleMatched(tc, r, p, f, &action)
					if done {
						verdict, skipFW = true, true
						if static && bc != nil && bc.valid && !bc.overflow && r.IID < e.fw.firstFWMPM {
							bc.fwFirst = r.IID + 1
							bc.fwQuiet = r.scope == rules.ScopeHook && r.Action&alert.ActionAccept != 0 &&
								r.Action&(alert.ActionAlert|alert.ActionDrop) == 0
						}
						break
					}
					static = false
				}
			}
			if ok && iid < e.fw.nFW {
				iid, ok = cs.Next(e.fw.nFW)
			}
			if stop || passed {
				e.walkIPOnly(tc, p, f, iid, ok, ipOnlyDone)
			} else {
				e.walkTD(tc, p, f, iid, ok, ipOnlyDone)
			}
		}
	}
	var pktPolicy alert.Action
	if skipFW || verdict {
		tc.Verdict.Action |= action
		pktPolicy = action
	} else if e.fw.quietFilterPolicy {
		// What applyPacketPolicy does, before the end, for an accept:hook policy without alert.
		pktPolicy = action | tc.Verdict.Action
	} else {
		pktPolicy = action | e.fw.applyPacketPolicy(tc, firewall.TablePacketFilter, f, false)
	}
	// A packet the packet tables neither dropped nor accepted goes on to the app-layer tables
	// (without app-layer state that is a default accept).
	defaultAccept := false
	if pktPolicy&(alert.ActionDrop|alert.ActionAccept) == 0 {
		defaultAccept = e.runAppFilter(tc, p, f, dir) || tc.fw.appAccept
	}
	e.firewallFinalize(tc, p, f, true, defaultAccept)
	e.fw.failClosed(tc, p, f, firewall.TablePacketFilter)
	tc.fw.Alerts += uint64(len(tc.fw.logged))
}

// inspectFirewallQuiet is inspectFirewall for the most common packet: its flow direction's
// firewall result is a quiet accept:hook rule (broadCache.fwQuiet), which accepts the
// packet:filter hook without an alert, or there are no firewall rules and the packet:filter
// policy is such an accept:hook (quietNoFW), so only threat detection is left (quietFirewall
// says which packets). It does what inspectFirewall does on that path, in a smaller function
// (the general one's frame and locals cost 20 ns a packet, perf on BenchmarkFirewallVsIPS),
// and Inspect calls it directly, so that the general function's frame is not set up either.
func (e *Engine) inspectFirewallQuiet(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	tc.fw.startRun()
	if e.pf.collect(tc, p, dir) {
		ipOnlyDone := tc.takeIPOnly()
		cs := tc.cands
		iid, ok := cs.Next(0)
		if ok && iid < e.fw.nFW {
			iid, ok = cs.Next(e.fw.nFW) // the firewall rules are decided
		}
		if f.Action == flow.ActionPass {
			e.walkIPOnly(tc, p, f, iid, ok, ipOnlyDone)
		} else {
			e.walkTD(tc, p, f, iid, ok, ipOnlyDone)
		}
	}
	defaultAccept := e.runAppFilter(tc, p, f, dir) || tc.fw.appAccept
	e.firewallFinalize(tc, p, f, true, defaultAccept)
	e.fw.failClosed(tc, p, f, firewall.TablePacketFilter)
	tc.fw.Alerts += uint64(len(tc.fw.logged))
}

// firewallFinalize is the alert walk of firewall mode (PacketAlertFinalizeProcessQueue with
// AlertQueueSortHelperFirewall), table by table: the firewall matches of the packet tables,
// then (td) the threat-detection queue (packet:td), the app:filter matches, the tx stage's
// threat-detection matches (app:td), then the default accept of the app-layer tables
// (defaultAccept).
func (e *Engine) firewallFinalize(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, td, defaultAccept bool) {
	v := &tc.Verdict
	q := tc.Queue
	if len(tc.fw.matches) == 0 && q.Matches() == 0 && len(tc.fw.appTD) == 0 {
		// Nothing matched that acts in the walk: only the app tables' default accept.
		if defaultAccept && !v.Dropped() {
			v.Action |= alert.ActionAccept
		}
		if td && e.hasTags {
			e.finishTags(tc, p, false)
		}
		return
	}
	dropped, skipFW, skipTD := false, false, false
	acceptPacket, acceptFlow := false, false
	var skipTable firewall.Table
	appAt := len(tc.fw.matches)
	for i := range tc.fw.matches {
		m := &tc.fw.matches[i]
		if m.table >= firewall.TableAppFilter {
			appAt = i // after threat detection's packet matches
			break
		}
		if skipFW || dropped {
			break
		}
		if skipTable != firewall.TableNone {
			if m.table <= skipTable {
				continue
			}
			skipTable = firewall.TableNone
		}
		if m.none {
			continue
		}
		if m.r.Action&alert.ActionAlert != 0 {
			tc.logFW(m.r, alert.NoTx)
		}
		if m.r.tags != nil {
			e.installTags(m.r, p, tc.fs)
		}
		if m.scope == rules.ScopeHook && !m.policy {
			continue // accept:hook: the walk already skipped the table's other rules
		}
		if m.action&alert.ActionDrop != 0 {
			reason := alert.ReasonFWRules
			switch m.table {
			case firewall.TablePreStream:
				reason = alert.ReasonFWPreStreamHook
			case firewall.TablePreFlow:
				reason = alert.ReasonFWPreFlowHook
			}
			v.Drop(m.action&(alert.ActionDrop|alert.ActionReject|alert.ActionRejectDst|alert.ActionRejectBoth), reason)
			if f != nil && m.scope == rules.ScopeFlow {
				f.Action, f.ByFirewall = flow.ActionDrop, true
			}
			dropped = true
		}
		if m.action&alert.ActionPass != 0 {
			if f != nil && m.scope == rules.ScopeFlow && f.Action == flow.ActionNone {
				f.Action = flow.ActionPass
			}
			skipTD = true
		}
		if m.action&alert.ActionAccept != 0 {
			if m.scope == rules.ScopeHook {
				skipTable = m.table
			} else {
				skipFW = true
			}
			acceptPacket = true
			acceptFlow = acceptFlow || m.scope == rules.ScopeFlow
		}
	}
	if td && dropped {
		q.Discard() // a firewall drop ends the walk: threat detection's matches are not logged
	}
	tdProcessed := td && !dropped && !skipTD
	if td && !dropped && q.Matches() > 0 {
		if skipTD {
			q.Discard()
		} else {
			e.applyTD(tc, f)
			dropped = q.RuleDropSeen()
		}
	}
	// The app:filter matches (HandleFirewallRule): accepts and drops that act on the packet
	// (any but accept:hook, or one that accepts the packet), after threat detection.
	fwAppDropped := false
	for i := appAt; i < len(tc.fw.matches) && !skipFW && !dropped; i++ {
		m := &tc.fw.matches[i]
		if skipTable != firewall.TableNone {
			if m.table <= skipTable {
				continue
			}
			skipTable = firewall.TableNone
		}
		if m.none {
			continue
		}
		if m.r.Action&alert.ActionAlert != 0 {
			tc.logFW(m.r, m.txID)
		}
		if m.r.tags != nil {
			e.installTags(m.r, p, tc.fs)
		}
		if m.scope == rules.ScopeHook && !m.applyPkt {
			continue
		}
		if m.action&alert.ActionDrop != 0 {
			v.Drop(m.action&(alert.ActionDrop|alert.ActionReject|alert.ActionRejectDst|alert.ActionRejectBoth), alert.ReasonFWRules)
			if f != nil && m.scope == rules.ScopeFlow {
				f.Action, f.ByFirewall = flow.ActionDrop, true
			}
			dropped, fwAppDropped = true, true
		}
		if m.action&alert.ActionPass != 0 {
			if f != nil && m.scope == rules.ScopeFlow && f.Action == flow.ActionNone {
				f.Action = flow.ActionPass
			}
			skipTD = true
		}
		if m.action&alert.ActionAccept != 0 {
			if m.scope == rules.ScopeHook {
				skipTable = m.table
			} else {
				skipFW = true
			}
			acceptPacket = true
			acceptFlow = acceptFlow || m.scope == rules.ScopeFlow
		}
	}
	// Then app:td (the tx stage's threat-detection matches): not after a firewall drop (the
	// walk ended) or a firewall pass; a packet:td drop does not stop them.
	if len(tc.fw.appTD) > 0 {
		if td && !fwAppDropped && !skipTD {
			for _, m := range tc.fw.appTD {
				e.addMatch(tc, m.r, p, f, m.txID, alert.FlagStateMatch|alert.FlagTx)
			}
			e.applyTD(tc, f)
			dropped = dropped || q.RuleDropSeen()
			tdProcessed = true
		}
		tc.fw.appTD = tc.fw.appTD[:0]
	}
	if td && e.hasTags {
		e.finishTags(tc, p, tdProcessed)
	}
	if defaultAccept && !skipFW && !dropped {
		acceptPacket = true
	}
	if !v.Dropped() && acceptPacket {
		v.Action |= alert.ActionAccept
		if f != nil && acceptFlow {
			f.Accept = true
		}
	}
	if q.Matches() > 0 {
		q.Finalize()
	}
}

// applyTD applies the threat-detection matches of the queue to the verdict and the flow, as
// the IPS walk does, with Suricata's rule that a packet already accepted by the firewall is
// not dropped by them (skip_action_set) and one already dropped is not passed.
func (e *Engine) applyTD(tc *ThreadCtx, f *flow.Flow) {
	v := &tc.Verdict
	q := tc.Queue
	switch {
	case v.Dropped():
		q.SetDropped()
	case v.Accepted():
		q.SetAccepted()
	}
	if act := q.Verdict(); act&alert.ActionDrop != 0 {
		reason := alert.ReasonRules
		if en, ok := q.FirstDrop(); ok && en.Flags&alert.FlagRateFiltered != 0 {
			reason = alert.ReasonThreshold
		}
		v.Drop(act&(alert.ActionDrop|alert.ActionReject|alert.ActionRejectDst|alert.ActionRejectBoth), reason)
	}
	if f == nil {
		return
	}
	switch q.FlowVerdict() {
	case alert.FlowDrop:
		// RuleActionToFlow: a threat-detection drop replaces a firewall accept:flow; otherwise
		// the first drop or pass set on the flow wins.
		if f.Accept {
			f.Accept, f.ByFirewall, f.Action = false, false, flow.ActionDrop
		} else if f.Action == flow.ActionNone {
			f.Action = flow.ActionDrop
		}
	case alert.FlowPass:
		if f.Action == flow.ActionNone {
			f.Action = flow.ActionPass
		}
	}
}

// fwProgram is the firewall side of the engine (reference §1.5): the hook tables and default
// policies, and what the firewall walk knows in advance about its rules. Firewall rules hold
// iids 0..nFW-1, in file order.
type fwProgram struct {
	// hasPreFlow and hasPreStream say whether the pre_flow and pre_stream hook tables hold
	// rules (HasHook).
	hasPreFlow, hasPreStream bool
	// nFW is the number of firewall rules.
	nFW int
	// firstFWMPM is the lowest iid of a firewall rule with a fast pattern or a header
	// witness (such a rule is a candidate on some packets only): a deciding rule is cached
	// per flow direction only below it.
	firstFWMPM uint32
	// pktPolicy holds the default policies of the packet tables (by table), copied from
	// policies; policyRules the synthetic rules that log a policy with an alert action.
	pktPolicy   [firewall.TablePacketFilter + 1]firewall.Policy
	policyRules [firewall.TablePacketFilter + 1]*Rule
	// quietFilterPolicy: the packet:filter policy is accept:hook without alert, which
	// changes nothing until the end of the packet (Suricata's default hook policy).
	quietFilterPolicy bool
	// quietNoFW: firewall mode with no firewall rule, no pre_flow or pre_stream hook and a
	// quiet packet:filter policy: the firewall decides nothing a packet's inspection must wait
	// for, so every packet with a flow takes inspectFirewallQuiet.
	quietNoFW bool
	// preFlow and preStream (per direction) list the rules of the packet:pre_flow and
	// packet:pre_stream hooks in file order, evaluated one by one in their hooks (like every
	// packet rule, they are candidates of the main walk too, as in Suricata 8.0.6 whose port
	// groups hold them); policies are the default policies (the app-layer ones are read from
	// here).
	preFlow   []uint32
	preStream [2][]uint32
	policies  *firewall.Policies
	// app are the default app policies; allPolicies the synthetic policy rules (PolicyRules).
	app         fwAppPolicies
	allPolicies []*Rule
}

// buildFirewall builds the firewall program from the numbered rules: the hook tables, the
// packet tables' policies and their synthetic alert rules.
func (e *Engine) buildFirewall() fwProgram {
	var fw fwProgram
	for _, r := range e.rules {
		if !r.fw || r.table == firewall.TableAppFilter {
			continue // the packet walk's firewall rules only (app:filter ones come after them)
		}
		fw.nFW++
		switch r.table {
		case firewall.TablePreFlow:
			fw.preFlow = append(fw.preFlow, r.IID)
		case firewall.TablePreStream:
			if r.Src.ToServer {
				fw.preStream[flow.ToServer] = append(fw.preStream[flow.ToServer], r.IID)
			}
			if r.Src.ToClient {
				fw.preStream[flow.ToClient] = append(fw.preStream[flow.ToClient], r.IID)
			}
		}
	}
	fw.hasPreFlow = len(fw.preFlow) > 0
	fw.hasPreStream = len(fw.preStream[0]) > 0 || len(fw.preStream[1]) > 0
	if !e.firewall {
		return fw
	}
	fw.policies = e.cfg.Policies
	fw.pktPolicy[firewall.TablePreFlow] = fw.policies.PreFlow
	fw.pktPolicy[firewall.TablePreStream] = fw.policies.PreStream
	fw.pktPolicy[firewall.TablePacketFilter] = fw.policies.PacketFilter
	fw.policyRules = policyRules(&fw, uint32(len(e.rules)))
	fw.app = loadAppPolicies(fw.policies, uint32(len(e.rules))+uint32(len(fw.policyRules)))
	fw.allPolicies = append(append([]*Rule(nil), fw.policyRules[:]...), fw.app.all...)
	pf := fw.pktPolicy[firewall.TablePacketFilter]
	fw.quietFilterPolicy = pf.Scope == rules.ScopeHook && pf.Action&alert.ActionAccept != 0 &&
		pf.Action&(alert.ActionAlert|alert.ActionDrop) == 0 && fw.policyRules[firewall.TablePacketFilter] == nil
	return fw
}

// finishFirewall settles what the firewall walk needs once the prefilter knows which rules
// have a fast pattern: flow_start applies to rules without one only, the lowest firewall rule
// with one, which firewall rules depend on the header alone, and whether the firewall can
// decide anything at all (quietNoFW).
func (e *Engine) finishFirewall() {
	fw := &e.fw
	fw.firstFWMPM = ^uint32(0)
	for _, r := range e.rules {
		r.flowStart = r.flowStart && !r.hasMPM // prefiltered rules see every packet (8.0.6)
		if !r.fw {
			continue
		}
		// A rule with a fast pattern or a header witness is a candidate on some packets only:
		// no deciding rule after it may be cached for a flow direction.
		if (r.hasMPM || r.witness.Witnessed()) && r.IID < fw.firstFWMPM {
			fw.firstFWMPM = r.IID
		}
		r.fwStatic = r.table == firewall.TablePacketFilter && !r.flowStart && !r.hasMPM && r.payload == nil && r.tcpHdr == nil &&
			!r.needPayload && !r.needNoPayload && r.match.Len() == 0 && r.post.Empty() && !e.thresholds.HasRate(r.IID)
	}
	fw.quietNoFW = e.firewall && fw.nFW == 0 && fw.quietFilterPolicy && !fw.hasPreFlow && !fw.hasPreStream
}
