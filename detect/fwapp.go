package detect

import (
	"slices"
	"strings"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// Firewall mode, app-layer tables (reference suricata-dns-tls-applayer.md §4, Suricata 8.0.6
// detect.c DetectRun, DetectRunTx and its DetectRunTxFirewall* helpers): after packet:filter
// let a packet go on (accept:hook), every transaction with new data in the packet's direction
// is inspected with its candidates in iid order: the app:filter rules (per direction, protocol,
// hook progress, file order) and then the threat-detection tx rules (app:td). Every hook from
// the tx's detect progress up to its progress needs an accept; a hook without one gets its
// default app policy (drop:flow unless configured). Accepts are provisional (the alert walk
// applies them unless a drop came first); drops apply at once.

// appHook is a rule's app-layer hook resolved against its protocol's parser.
type appHook struct {
	ok       bool
	proto    applayer.Proto
	dir      flow.Direction
	progress uint8
	lte      bool // <hook: the rule accepts the earlier states too (SIG_FLAG_FW_HOOK_LTE)
}

// hookOf resolves r's app hook (SigParseProtoHookApp): the generic request_started,
// response_started, request_complete and response_complete, else a progress name of the
// protocol's parser (to-server names first). ok is false for a rule without an app hook and
// for one whose protocol has no parser or no such state.
func hookOf(r *rules.Rule) (appHook, bool) {
	pr := &r.Header.Protocol
	if !pr.AppHook {
		return appHook{}, false
	}
	p, known := applayer.ProtoByName(pr.AppProto)
	parser := applayer.ParserOf(p)
	if !known || parser == nil {
		return appHook{}, false
	}
	d, progress, ok := stateID(parser, pr.Hook)
	if !ok {
		return appHook{}, false
	}
	return appHook{ok: true, proto: p, lte: pr.HookLTE, dir: d, progress: progress}, true
}

// stateID resolves a state name of parser (the hooks' SigParseProtoHookApp and
// app-layer-state's AppLayerParserGetStateIdByName): the generic request_started,
// response_started, request_complete and response_complete, else a progress name, to-server
// names first.
func stateID(parser *applayer.Parser, name string) (flow.Direction, uint8, bool) {
	switch name {
	case "request_started":
		return flow.ToServer, 0, true
	case "response_started":
		return flow.ToClient, 0, true
	case "request_complete":
		return flow.ToServer, parser.Complete[flow.ToServer], true
	case "response_complete":
		return flow.ToClient, parser.Complete[flow.ToClient], true
	}
	for d := range 2 {
		if i := slices.Index(parser.ProgressNames[d], name); i >= 0 {
			return flow.Direction(d), uint8(i), true
		}
	}
	return 0, 0, false
}

// hookName is the hook as EVE's firewall.hook writes it ("http:request_line"), "" for a state
// the protocol does not name.
func hookName(p applayer.Proto, dir flow.Direction, progress uint8) string {
	parser := applayer.ParserOf(p)
	if parser == nil || int(progress) >= len(parser.ProgressNames[dir]) {
		return ""
	}
	return p.String() + ":" + parser.ProgressNames[dir][progress]
}

// addFWEngines puts a firewall app rule into its protocol's non-prefilter lists
// (SetupNonPrefilter): a <hook rule at every state before its hook, then at its buffers'
// progress, or at the hook for a rule without buffers (unless the <hook lists already hold it).
func addFWEngines(tabs *txProto, r *Rule, engines []txEngine) {
	h := r.tx.hook
	if !h.ok {
		return
	}
	add := func(d flow.Direction, prog uint8) {
		list := tabs.fw[d]
		i, found := slices.BinarySearchFunc(list, prog, func(e fwEngine, p uint8) int { return int(e.progress) - int(p) })
		if !found {
			list = slices.Insert(list, i, fwEngine{progress: prog})
		}
		if !slices.Contains(list[i].iids, r.IID) {
			list[i].iids = append(list[i].iids, r.IID)
		}
		tabs.fw[d] = list
		if prog < 64 {
			tabs.nonPF[d] |= 1 << prog
		}
	}
	any := false
	if h.lte {
		for st := uint8(0); st < h.progress; st++ {
			add(h.dir, st)
			any = true
		}
	}
	for _, en := range engines {
		if en.kind == engBuffer {
			add(en.dir, en.progress)
			any = true
		}
	}
	if !any {
		add(h.dir, h.progress)
	}
}

// fwAppPolicies are the default app policies by protocol, direction and state, and the
// synthetic rules that log the ones with an alert action (AddAppPolicySignature).
type fwAppPolicies struct {
	pol   [applayer.ProtoHTTP][2][]firewall.Policy
	rules [applayer.ProtoHTTP][2][]*Rule
	all   []*Rule
}

// policy returns the default policy of a state; drop:flow beyond what was loaded.
func (ap *fwAppPolicies) policy(p applayer.Proto, d flow.Direction, state uint8) (firewall.Policy, *Rule) {
	if p < applayer.ProtoHTTP && int(state) < len(ap.pol[p][d]) {
		return ap.pol[p][d][state], ap.rules[p][d][state]
	}
	return firewall.Policy{Action: alert.ActionDrop, Scope: rules.ScopeFlow}, nil
}

// loadAppPolicies resolves the app policies of every protocol with a parser
// (DetectFirewallLoadDefaultPolicies, DoParseAppPolicy): the key is the state's name with
// dashes, and for the first and the completion state the generic request-started,
// response-started, request-complete, response-complete; a named state also falls back to its
// name as the parser writes it. The protocol is keyed by its EVE name ("http" for HTTP/1, as
// 8.0 does) or its raw name ("http1", the grouped layout of later versions). firstLog is the
// log id of the first synthetic rule.
func loadAppPolicies(ps *firewall.Policies, firstLog uint32) fwAppPolicies {
	var ap fwAppPolicies
	for p := applayer.ProtoFailed + 1; p < applayer.ProtoHTTP; p++ {
		parser := applayer.ParserOf(p)
		if parser == nil {
			continue
		}
		var confs []map[string]firewall.Policy
		if ps != nil {
			for _, key := range protoPolicyKeys(p) {
				if m := ps.App[key]; m != nil {
					confs = append(confs, m)
				}
			}
		}
		for d := range 2 {
			n := int(parser.Complete[d]) + 1
			ap.pol[p][d] = make([]firewall.Policy, n)
			ap.rules[p][d] = make([]*Rule, n)
			for st := 0; st < n; st++ {
				pol := firewall.Policy{Action: alert.ActionDrop, Scope: rules.ScopeFlow}
				if ps != nil {
					pol = ps.DefaultApp
				}
				for _, key := range statePolicyKeys(parser, flow.Direction(d), uint8(st)) {
					if c, ok := lookupPolicy(confs, key); ok {
						pol = c
						break
					}
				}
				ap.pol[p][d][st] = pol
				if pol.Alerts() {
					r := &Rule{IID: 0, Action: pol.Action, fw: true, table: firewall.TableAppFilter, scope: pol.Scope,
						severity: rules.DefaultSeverity, logID: firstLog + uint32(len(ap.all)), appPolicy: true,
						appHook: appHook{ok: true, proto: p, dir: flow.Direction(d), progress: uint8(st)}}
					ap.rules[p][d][st] = r
					ap.all = append(ap.all, r)
				}
			}
		}
	}
	return ap
}

func lookupPolicy(confs []map[string]firewall.Policy, key string) (firewall.Policy, bool) {
	for _, m := range confs {
		if pol, ok := m[key]; ok {
			return pol, true
		}
	}
	return firewall.Policy{}, false
}

// protoPolicyKeys are the configuration keys of protocol p.
func protoPolicyKeys(p applayer.Proto) []string {
	if p == applayer.ProtoHTTP1 {
		return []string{"http", "http1"}
	}
	return []string{p.String()}
}

// statePolicyKeys are the configuration keys of a state, in the order DoParseAppPolicy tries
// them.
func statePolicyKeys(parser *applayer.Parser, d flow.Direction, st uint8) []string {
	var keys []string
	var generic string
	switch {
	case st == 0 && d == flow.ToServer:
		generic = "request-started"
	case st == 0:
		generic = "response-started"
	case st == parser.Complete[d] && d == flow.ToServer:
		generic = "request-complete"
	case st == parser.Complete[d]:
		generic = "response-complete"
	}
	if int(st) < len(parser.ProgressNames[d]) {
		name := parser.ProgressNames[d][st]
		keys = append(keys, strings.ReplaceAll(name, "_", "-"))
		if generic != "" {
			keys = append(keys, generic)
		} else {
			keys = append(keys, name)
		}
	} else if generic != "" {
		keys = append(keys, generic)
	}
	return keys
}

// The flow control of the per-tx firewall walk (enum DetectTxFirewallFlowControl).
const (
	fcOK = iota
	fcSkip
	fcBreak
)

// fwTxState is the walk's state for one tx (struct DetectFirewallAppTxState) with what it
// knows of the tx.
type fwTxState struct {
	skipAppFilter   bool
	skipHook        bool
	skipBefore      int
	lastForProgress bool
	nextMissing     bool
	lastFWRule      bool

	proto         applayer.Proto
	dir           flow.Direction
	progress, end uint8
	detectOrig    uint8
	isLast        bool
	txID          uint64
	td            *applayer.TxData
	accepted      bool // APP_LAYER_TX_ACCEPT
	p             *decode.Packet
	f             *flow.Flow
	tc            *ThreadCtx
	e             *Engine
}

// hookProgress is a rule's hook progress (Signature::app_progress_hook; 0 for a rule without
// a hook).
func hookProgress(r *Rule) int {
	if r.tx != nil && r.tx.hook.ok {
		return int(r.tx.hook.progress)
	}
	return 0
}

// appendDefaultAccept is DetectRunAppendDefaultAccept: the packet is accepted at the end of
// the alert walk unless something dropped it.
func (st *fwTxState) appendDefaultAccept() { st.tc.fw.appAccept = true }

// setTxAccept marks the tx accepted (APP_LAYER_TX_ACCEPT), in both directions.
func (st *fwTxState) setTxAccept() {
	st.accepted = true
	for d := range 2 {
		if s := st.e.txStore(st.tc, st.td, flow.Direction(d)); s != nil {
			s.fwAccept = true
		}
	}
}

// queue records a firewall app match for the alert walk.
func (st *fwTxState) queue(r *Rule, action alert.Action, scope rules.Scope, apply, policy bool) {
	st.tc.fw.addMatch(fwMatch{r: r, action: action, scope: scope, table: firewall.TableAppFilter, policy: policy,
		txID: st.txID, applyPkt: apply}, action&(alert.ActionAccept|alert.ActionDrop) != 0)
	if action&alert.ActionDrop != 0 && st.tc.fw.appDrop == nil {
		st.tc.fw.appDrop = r
	}
}

// applyPolicy applies the default policy of one hook (DetectFirewallApplyDefaultAppPolicy).
func (st *fwTxState) applyPolicy(hook int) firewall.Policy {
	pol, pr := st.e.fw.app.policy(st.proto, st.dir, uint8(hook))
	v := &st.tc.Verdict
	switch {
	case pol.Action&alert.ActionDrop != 0:
		v.Drop(pol.Action&(alert.ActionDrop|alert.ActionReject|alert.ActionRejectDst|alert.ActionRejectBoth), alert.ReasonFWDefaultAppPolicy)
		if pol.Scope == rules.ScopeFlow && st.f != nil {
			st.f.Action, st.f.ByFirewall = flow.ActionDrop, true
		}
		if pr != nil {
			st.queue(pr, pol.Action, pol.Scope, true, true)
		}
	case pol.Action&alert.ActionAccept != 0:
		apply := false
		switch pol.Scope {
		case rules.ScopeFlow:
			if st.f != nil {
				st.f.Accept = true
			}
			apply = true
		case rules.ScopeTx:
			st.setTxAccept()
			apply = st.isLast
		case rules.ScopeHook:
			apply = st.isLast && hook == int(st.progress)
		}
		if pr != nil {
			st.queue(pr, pol.Action, pol.Scope, apply, true)
		} else if apply {
			st.appendDefaultAccept()
		}
	}
	return pol
}

// applyPolicies applies the default policies of the hooks from..to
// (DetectFirewallApplyDefaultPolicies).
func (st *fwTxState) applyPolicies(from, to int) int {
	needVerdict := st.isLast && (to == int(st.end) || to == int(st.progress))
	for hook := from; hook <= to; hook++ {
		apply := st.isLast && (hook == int(st.end) || hook == int(st.progress))
		pol := st.applyPolicy(hook)
		switch {
		case pol.Action&alert.ActionDrop != 0:
			return fcBreak
		case pol.Action&alert.ActionAccept != 0:
			if pol.Scope == rules.ScopeFlow || pol.Scope == rules.ScopeTx || pol.Scope == rules.ScopeHook && apply {
				return fcSkip
			}
		}
	}
	if needVerdict {
		st.appendDefaultAccept()
		return fcBreak
	}
	return fcOK
}

// preCheck runs before a candidate (DetectRunTxPreCheckFirewallPolicy); first says it is the
// tx's first candidate.
func (st *fwTxState) preCheck(r *Rule, first bool) int {
	if st.skipAppFilter {
		if r.fw {
			return fcSkip
		}
		return fcOK
	}
	if st.f != nil && st.f.Accept {
		st.skipAppFilter = true
		st.appendDefaultAccept()
		if r.fw {
			return fcSkip
		}
	}
	if st.accepted {
		st.skipAppFilter = true
		if st.isLast {
			st.appendDefaultAccept()
		}
		if r.fw {
			return fcSkip
		}
		return fcOK
	}
	if r.tx != nil && r.tx.hook.lte {
		return fcOK
	}
	if h := hookProgress(r); h > int(st.detectOrig) && first {
		// The first rule is past the state the tx was at: the hooks between have no rule.
		res := st.applyPolicies(int(st.detectOrig), h-1)
		if res != fcOK {
			st.skipAppFilter = true
		}
		return res
	}
	return fcOK
}

// checkRuleState looks at the next candidate to know whether r is the last rule of its hook
// (DetectRunTxCheckRuleState).
func (st *fwTxState) checkRuleState(r, next *Rule) int {
	if !r.fw {
		if st.f != nil && st.f.Action == flow.ActionPass {
			return fcBreak
		}
		return fcOK
	}
	h := hookProgress(r)
	switch {
	case next != nil && next.fw:
		if nh := hookProgress(next); nh != h {
			st.lastForProgress = true
			if nh-h > 1 {
				st.nextMissing = true
			}
		}
	case next != nil:
		st.lastForProgress, st.lastFWRule = true, true
	default:
		if h < int(st.progress) {
			st.nextMissing = true
		}
		st.lastForProgress, st.lastFWRule = true, true
	}
	if st.skipHook {
		if h <= st.skipBefore {
			return fcSkip
		}
		st.skipHook = false
	}
	return fcOK
}

// acceptToPacket reports whether a matching accept rule accepts the packet
// (ApplyAcceptToPacket).
func (st *fwTxState) acceptToPacket(r *Rule) bool {
	if !r.fw || r.Action&alert.ActionAccept == 0 {
		return false
	}
	switch r.scope {
	case rules.ScopeTx:
		return st.isLast
	case rules.ScopeHook:
		return st.isLast && hookProgress(r) == int(st.progress)
	}
	return false
}

// applyAccept applies a matching accept rule to the walk (DetectRunTxFirewallApplyAccept).
func (st *fwTxState) applyAccept(r *Rule) {
	switch r.scope {
	case rules.ScopeHook:
		h := hookProgress(r)
		st.skipHook, st.skipBefore = true, h
		if st.nextMissing {
			last := int(st.end)
			if !st.lastFWRule {
				last = min(int(st.end), h+1)
			}
			if h+1 <= last && st.applyPolicies(h+1, last) == fcBreak {
				st.skipAppFilter = true
			}
		}
	case rules.ScopeTx:
		st.setTxAccept()
		st.skipHook, st.skipBefore = true, int(st.end)+1
	case rules.ScopePacket, rules.ScopeFlow:
		st.skipAppFilter = true
	}
}

// fullMatch handles a firewall rule's full match (DetectRunTxFirewallRuleFullMatch).
func (st *fwTxState) fullMatch(r *Rule) {
	switch {
	case r.Action&alert.ActionAccept != 0:
		st.queue(r, r.Action, r.scope, st.acceptToPacket(r), false)
		st.applyAccept(r)
	case r.Action&alert.ActionDrop != 0:
		st.tc.Verdict.Drop(r.Action&(alert.ActionDrop|alert.ActionReject|alert.ActionRejectDst|alert.ActionRejectBoth), alert.ReasonFWRules)
		if r.scope == rules.ScopeFlow && st.f != nil {
			st.f.Action, st.f.ByFirewall = flow.ActionDrop, true
		}
		st.queue(r, r.Action, r.scope, false, false)
	default:
		st.queue(r, r.Action, r.scope, false, false)
	}
}

// reapply re-applies an accept rule's earlier full match while the tx stays at its hook
// (DetectRunTxFirewallRuleStatefulReApplyMatch).
func (st *fwTxState) reapply(r *Rule) {
	if r.fw && r.Action&alert.ActionAccept != 0 && hookProgress(r) == int(st.progress) {
		apply := st.acceptToPacket(r)
		st.applyAccept(r)
		if apply {
			st.appendDefaultAccept()
		}
	}
}

// runAppFilter is the app-layer part of a firewall-mode packet that packet:filter let go on
// (DetectRun after DetectRulePacketRules): the transactions of the flow are inspected with the
// firewall app rules and the threat-detection tx rules. Without app-layer state, before the
// TCP session is established and for a packet without app-layer update in its direction, the
// packet gets the default accept (DetectRunAppendDefaultAccept). It reports whether the
// packet is default-accepted (the accept waits for the alert walk).
func (e *Engine) runAppFilter(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) bool {
	fa := tc.tx.app
	tc.fw.appRan = true
	if fa == nil || f == nil || fa.State == nil || fa.Parser == nil || f.Proto != p.IPProto || fa.Disabled && !p.Pseudo() {
		return true
	}
	if p.IsTCP() && !p.Pseudo() && (!f.PacketEstablished() || !fa.Updated[dir]) {
		return true
	}
	tp := &e.tx
	tc.tx.xs.Reset()
	tabs := &noTxRules
	if fa.Proto < applayer.Proto(len(tp.protos)) && tp.protos[fa.Proto] != nil {
		tabs = tp.protos[fa.Proto]
	}
	st := fa.State
	end := fa.Parser.Complete[dir]
	n := st.TxCount()
	from := txFrom(st, n, fa.InspectID[dir])
	inspected, lastSkipped := 0, false
	for i := from; i < n; i++ {
		tx := st.TxAt(i)
		td := tx.TxData()
		prog := td.Progress[dir]
		store := tc.flows.tx.at(td.Detect[dir], e)
		// GetDetectTx: a tx the parser did not touch is skipped unless it is complete (or the
		// stream ended); one fully inspected in this direction too.
		if !td.Updated[dir] && prog < end && !tc.tx.ctx.EOF || store != nil && store.inspected || td.SkipInspect[dir] {
			lastSkipped = i == n-1
			continue
		}
		inspected++
		if e.inspectTxFW(tc, p, f, dir, tabs, tx, td, store, i == n-1, end) {
			setInspectID(fa, dir, end)
			return false
		}
	}
	setInspectID(fa, dir, end)
	if inspected == 0 || lastSkipped {
		return true
	}
	return false
}

// appTDMax bounds the app:td matches one packet holds back for the alert walk.
const appTDMax = 1 << 12

// noTxRules stands for a protocol no rule inspects: its txs still need their default
// policies. It is never written.
var noTxRules txProto

// SkipFlow stands in for Inspect on a packet of a flow that is both accepted and passed
// (accept:flow,pass:flow in firewall mode): nothing is inspected, but the inspect ids move on
// past complete txs, so the app layer can free them (DetectFlow's pass path). Call SetApp
// first, as for Inspect.
func (e *Engine) SkipFlow(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	e.moveInspectIDs(tc, p, f, dir)
	tc.endApp()
}

// moveInspectIDs moves the inspect ids on for a packet whose app tables did not run.
func (e *Engine) moveInspectIDs(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	fa := tc.tx.app
	if fa == nil || f == nil || fa.State == nil || fa.Parser == nil || f.Proto != p.IPProto {
		return
	}
	setInspectID(fa, dir, fa.Parser.Complete[dir])
}

// inspectTxFW inspects one transaction in firewall mode (DetectRunTx's loop body with the
// firewall flow control). It reports whether the packet's tx inspection ends here (a drop).
func (e *Engine) inspectTxFW(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction, tabs *txProto,
	tx applayer.Tx, td *applayer.TxData, store *txStore, isLast bool, end uint8) bool {
	tt := &tc.tx
	dp, newDP := e.collectTx(tc, p, dir, tabs, tx, td, store)
	prog := td.Progress[dir]
	// The firewall lists, as non-prefilter engines gated by progress.
	for k := range tabs.fw[dir] {
		en := &tabs.fw[dir][k]
		if en.progress > prog {
			break
		}
		if prog > en.progress && dp > en.progress {
			continue
		}
		for _, iid := range en.iids {
			tt.cands.Add(int(iid))
		}
	}
	for m := tabs.nonPF[dir]; m != 0; m &= m - 1 {
		if pr := uint8(bits0(m)); pr < prog {
			newDP = max(newDP, pr+1)
		}
	}
	st := fwTxState{proto: tc.tx.app.Proto, dir: dir, progress: prog, end: end, detectOrig: dp, isLast: isLast,
		txID: td.ID, td: td, accepted: store != nil && store.fwAccept, p: p, f: f, tc: tc, e: e}
	cs := tt.cands
	first, has := cs.Next(0)
	// DetectTxFirewallNoRulesApplyPolicies.
	if !has || !e.rules[first].fw {
		if !has {
			if f.Accept {
				st.appendDefaultAccept()
				return true
			}
			if st.accepted {
				if isLast {
					st.appendDefaultAccept()
					return true
				}
				return false
			}
		}
		if !f.Accept && !st.accepted {
			switch st.applyPolicies(int(dp), int(prog)) {
			case fcBreak:
				return true
			case fcSkip:
				return false
			}
		}
	}
	tt.newItems, tt.mirror = tt.newItems[:0], tt.mirror[:0]
	j := 0
	idx := 0
	for iid, ok := first, has; ok; idx++ {
		next, hasNext := cs.Next(iid + 1)
		r := e.rules[iid]
		cur := iid
		iid, ok = next, hasNext
		switch st.preCheck(r, idx == 0) {
		case fcSkip:
			continue
		case fcBreak:
			goto done
		}
		st.lastForProgress, st.nextMissing = false, false
		var flags *uint32
		if store != nil {
			for j < len(store.items) && store.items[j].iid < uint32(cur) {
				j++
			}
			if j < len(store.items) && store.items[j].iid == uint32(cur) {
				flags = &store.items[j].flags
				if *flags&stFull != 0 {
					st.reapply(r)
					continue
				}
				if *flags&stCant != 0 {
					continue
				}
			}
		}
		var nextRule *Rule
		if hasNext {
			nextRule = e.rules[next]
		}
		switch st.checkRuleState(r, nextRule) {
		case fcSkip:
			continue
		case fcBreak:
			goto done
		}
		engines := r.tx.engines(tc.tx.app.Proto)
		if engines == nil {
			if st.nomatch(r) {
				return true
			}
			continue
		}
		res, fl, keep := e.inspectTxRule(tc, p, f, dir, r, engines, tx, td, flags)
		if flags != nil {
			*flags = fl
		} else if keep {
			tt.keep(r, cur, dir, fl)
		}
		partial := !res && (keep || flags != nil) && fl&stCant == 0 && prog < end
		switch {
		case res:
			tc.in.Tx = td // xbits track tx set: the matched transaction (det_ctx->tx_id)
			r.post.Apply(&tc.in)
			tc.in.Tx = nil
			if !r.fw {
				// app:td: queued for the alert walk after the app:filter matches (past the
				// bound, straight into the queue, ahead of them).
				if len(tc.fw.appTD) < appTDMax {
					tc.fw.appTD = append(tc.fw.appTD, appTDMatch{r: r, txID: td.ID})
				} else {
					e.addMatch(tc, r, p, f, td.ID, alert.FlagStateMatch|alert.FlagTx)
				}
			} else {
				st.fullMatch(r)
			}
		case partial:
			// DetectRunTxFirewallRulePartialMatch: a partial match of an accept rule acts as
			// accept:hook for the current state and ends the tx's walk.
			if r.fw && r.Action&alert.ActionAccept != 0 {
				if isLast {
					st.appendDefaultAccept()
				}
				goto done
			}
		default:
			if st.nomatch(r) {
				e.storeTx(tc, td, dir, store, dp, dp) // DetectRunTx returns: no progress stored
				return true
			}
		}
	}
done:
	e.storeTx(tc, td, dir, store, dp, newDP)
	if prog >= end {
		if s := e.txStore(tc, td, dir); s != nil {
			s.inspected = true
		}
	}
	for _, b := range tabs.inspected[dir] {
		b.Inspected(tx, dir, &tc.tx.ctx)
	}
	return false
}

// nomatch handles a firewall rule that did not match (DetectRunTxFirewallRuleNoMatch): when
// it was the last rule of its hook, the hook's default policy applies. It reports a drop.
func (st *fwTxState) nomatch(r *Rule) bool {
	if st.lastForProgress && r.fw {
		pol := st.applyPolicy(hookProgress(r))
		return pol.Action&alert.ActionDrop != 0
	}
	return false
}
