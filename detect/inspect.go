package detect

import (
	"math/bits"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/detect/payload"
	"github.com/meerkat-ids/meerkat/detect/threshold"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/candidates"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
)

// ThreadCtx is one worker's detection scratch: Hyperscan scratch and match buffer, the
// candidate set, the alert queue and the payload state. It is reused for every packet.
type ThreadCtx struct {
	e       *Engine
	scanner *hs.Scanner
	hits    []uint32
	cands   *candidates.Set
	Queue   *alert.Queue
	pst     *payload.State
	in      match.Input
	// flows is the worker's per-flow detection state and fs the current packet's flow's
	// (nil without a flow); begin sets fs and in for each packet.
	flows *FlowStates
	fs    *flowState
	// chunks is the raw stream data the packet inspects (SetStream); streamMatched records
	// that the rule just evaluated matched on it (its alert gets alert.FlagStreamMatch).
	chunks        [][]byte
	streamMatched bool
	// frames are the app-layer frames the packet inspects (SetFrames); frameSel, when not
	// -1, is the one frame a rule with one frame buffer is evaluated on.
	frames   []FrameView
	frameSel int
	bbuf     []uint64 // broad-rule index result
	hbuf     []uint64 // header witness index result
	// Verdict is the packet's action in firewall mode (p->action and its drop reason); the
	// hooks and the main inspection of one packet add to it, StartPacket clears it.
	Verdict alert.PacketVerdict
	fw      fwThread
	tx      txThread
	tagged  []tagMatch // matches of rules with tags, this packet
	// Tagged says that the packet just inspected is tagged (the tag keyword): EVE logs it as
	// a packet record when tagged-packets is on.
	Tagged bool
	// Counters
	// Collected counts the packets whose candidates were collected, Candidates their
	// candidates and CandidatesMax the most one packet had: what a rule set costs per packet.
	Collected, Candidates uint64
	CandidatesMax         uint64
	MPMScans              uint64
	MPMErrors             uint64 // scans Hyperscan failed; all rules of the group were candidates instead
}

// NewThreadCtx makes a worker's context; hosts is the shared xbits/hostbits table (may be nil).
func (e *Engine) NewThreadCtx(hosts *match.HostTable) (*ThreadCtx, error) {
	tc := &ThreadCtx{e: e, frameSel: -1, cands: candidates.New(len(e.rules)), Queue: alert.New(e.cfg.PacketAlertMax),
		pst: payload.NewState(), flows: &FlowStates{}}
	tc.fw.init(tc.Queue.Max())
	tc.tagged = make([]tagMatch, 0, 16)
	tc.in.Hosts = hosts
	if e.pf.broad != nil {
		tc.bbuf = make([]uint64, e.pf.broad.ScratchWords())
	}
	if e.pf.hdr != nil {
		tc.hbuf = make([]uint64, e.pf.hdr.Words())
	}
	most := 1
	for _, db := range e.pf.sgh.dbs {
		most = max(most, db.MaxMatches())
	}
	if len(e.pf.sgh.dbs) > 0 {
		s, err := hs.NewScanner(e.pf.sgh.dbs...)
		if err != nil {
			return nil, err
		}
		tc.scanner = s
		tc.hits = make([]uint32, most)
	}
	if err := tc.initTx(); err != nil {
		return nil, err
	}
	return tc, nil
}

// PCRELimits returns how many backtracking pcre evaluations this worker cut short: stopped
// by the per-evaluation time bound, or refused because the packet's budget was spent. Either
// counts as "no match", as Suricata treats a pcre that hits its match limit.
func (tc *ThreadCtx) PCRELimits() (timeouts, budgetRefused uint64) {
	return tc.pst.PCRETimeouts, tc.pst.PCREBudgetHits
}

// Close releases the Hyperscan scratch.
func (tc *ThreadCtx) Close() {
	if tc.scanner != nil {
		tc.scanner.Close()
	}
}

// begin sets up the per-packet context of one detection run (Inspect, RunHook): the packet,
// its flow and direction for the keyword matchers, and the flow's detection state. Every walk
// of the run reads them from tc.
func (tc *ThreadCtx) begin(e *Engine, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	tc.in.P, tc.in.F, tc.in.Dir = p, f, dir
	tc.fs = tc.flows.at(f, e)
}

// counted adds the collected candidates to the counters and reports whether there are any.
func (tc *ThreadCtx) counted() bool {
	n := uint64(tc.cands.Len())
	tc.Collected++
	tc.Candidates += n
	tc.CandidatesMax = max(tc.CandidatesMax, n)
	return n > 0
}

// takeIPOnly reports whether the IP-only rules already ran in the packet's flow direction,
// and marks them as run: Suricata evaluates them on the first packet of each direction only.
// Without a flow they run on every packet.
func (tc *ThreadCtx) takeIPOnly() bool {
	fs := tc.fs
	if fs == nil {
		return false
	}
	done := fs.ipOnlyDone[tc.in.Dir]
	fs.ipOnlyDone[tc.in.Dir] = true
	return done
}

// ipOnlyDone reports whether the IP-only rules already ran in the packet's flow direction.
func (tc *ThreadCtx) ipOnlyDone() bool { return tc.fs != nil && tc.fs.ipOnlyDone[tc.in.Dir] }

// broadCache returns the packet's flow direction's broad-rule cache (nil without a flow).
func (tc *ThreadCtx) broadCache() *broadCache {
	if tc.fs == nil {
		return nil
	}
	return &tc.fs.broad[tc.in.Dir]
}

// Inspect runs every rule that may apply to p and leaves the matches in tc.Queue, in iid
// order. f is p's flow (nil when it has none) and dir its direction in it.
//
// In firewall mode it is the main detection run of the packet (after StartPacket and the
// hooks): firewall packet:filter rules, then threat detection, combined into tc.Verdict, with
// the firewall's alerts in FirewallAlerts.
func (e *Engine) Inspect(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	tc.begin(e, p, f, dir)
	defer tc.endApp()
	if e.firewall {
		if e.quietFirewall(tc, p, f, dir) {
			e.inspectFirewallQuiet(tc, p, f, dir)
		} else {
			e.inspectFirewall(tc, p, f, dir)
		}
		if !tc.fw.appRan {
			e.moveInspectIDs(tc, p, f, dir) // the app tables did not run
		}
		return
	}
	e.inspectIPS(tc, p, f, dir)
	if e.hasTags {
		e.finishTags(tc, p, true)
	}
}

// inspectIPS is Inspect outside firewall mode.
func (e *Engine) inspectIPS(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	tc.Queue.Reset()
	if p.IPVersion == 0 || len(e.rules) == 0 {
		if len(e.pf.deRules) > 0 && !p.Events.Empty() {
			e.deWalk(tc, p)
			tc.Queue.Finalize()
		}
		return
	}
	if p.IPProto == 0 && !p.Events.Empty() {
		e.inspectProto0(tc, p, f, dir)
		tc.Queue.Finalize()
		return
	}
	if !e.pf.collect(tc, p, dir) {
		if tc.tx.app != nil {
			tc.pst.StartPacket()
			e.runTx(tc, p, f, dir)
			tc.Queue.Finalize()
		}
		return
	}
	ipOnlyDone := tc.takeIPOnly()
	tc.pst.StartPacket()
	iid, ok := tc.cands.Next(0)
	e.walkTD(tc, p, f, iid, ok, ipOnlyDone)
	// DetectRunTx, after the packet rules (firewall mode has no transaction stage yet).
	e.runTx(tc, p, f, dir)
	tc.Queue.Finalize()
}

// inspectProto0 queues the matches of a packet with an IP layer, protocol 0 (an IPv6 header
// chain that stopped before a transport, IPv4 protocol 0) and decoder events. Suricata
// inspects such a packet with its decoder-event rule group (SigMatchSignaturesGetSgh), so only
// the decoder-event-only rules run, besides the IP-only rules, which its IP-only engine
// matches before any rule group; in a passed flow only the IP-only rules run. No firewall
// rule is in that group (firewall mode then applies the packet policy).
func (e *Engine) inspectProto0(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, dir flow.Direction) {
	if !e.pf.collect(tc, p, dir) {
		return
	}
	ipOnlyDone := tc.takeIPOnly()
	tc.pst.StartPacket()
	iid, ok := tc.cands.Next(0)
	if f != nil && f.Action == flow.ActionPass {
		e.walkIPOnly(tc, p, f, iid, ok, ipOnlyDone)
		return
	}
	for cs := tc.cands; ok; iid, ok = cs.Next(iid + 1) {
		// Firewall rules always have a hook, so they are never decoder-event-only or IP-only.
		if r := e.rules[iid]; (r.deOnly || r.ipOnly && !ipOnlyDone) && r.matches(tc, p) {
			e.addTD(tc, r, p, f)
		}
	}
}

// deWalk evaluates the decoder-event-only rules on a packet without an IP layer that carries
// decoder events, as Suricata does with its decoder_event_sgh, and queues their matches. The
// rules kept for it take any protocol and any ports (such a packet has neither); a rule
// limited to an IP version cannot match, and addresses are not checked. The packet has no
// flow.
func (e *Engine) deWalk(tc *ThreadCtx, p *decode.Packet) {
	tc.pst.StartPacket()
	for _, iid := range e.pf.deRules {
		r := e.rules[iid]
		if r.ipv4Only || r.ipv6Only || !r.match.Match(&tc.in) {
			continue
		}
		r.post.Apply(&tc.in)
		e.addTD(tc, r, p, nil)
	}
}

// walkIPOnly is walkTD after a firewall drop, and in a flow passed by threat detection: only
// the IP-only rules still run (on the first packet of a direction), since Suricata's IP-only
// engine works before its rule loop, so they match (and set their flowbits) there.
func (e *Engine) walkIPOnly(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, iid int, ok, ipOnlyDone bool) {
	if ipOnlyDone {
		return
	}
	cs := tc.cands
	for ; ok; iid, ok = cs.Next(iid + 1) {
		if r := e.rules[iid]; r.ipOnly && r.matches(tc, p) {
			e.addTD(tc, r, p, f)
		}
	}
}

// walkTD evaluates the threat-detection candidates from iid on (ok: there is one) in iid
// order and queues their matches: IP-only rules only on the first packet of a flow direction,
// flow_start rules only on the first packet of their direction.
func (e *Engine) walkTD(tc *ThreadCtx, p *decode.Packet, f *flow.Flow, iid int, ok, ipOnlyDone bool) {
	flowStart := f != nil && f.PacketFlowStart()
	cs := tc.cands
	for ; ok; iid, ok = cs.Next(iid + 1) {
		r := e.rules[iid]
		if r.tx != nil {
			tc.noteTxCandidate(r.IID) // a tx rule: inspected by the transaction stage
			continue
		}
		if r.ipOnly && ipOnlyDone || r.flowStart && !flowStart || r.synNoToClient && tc.in.Dir == flow.ToClient {
			continue
		}
		if len(r.frames) == 1 {
			e.frameMatches(tc, r, p, f) // an alert per matching frame (DetectRunFrame)
			continue
		}
		if !r.matches(tc, p) {
			continue
		}
		e.addTD(tc, r, p, f)
	}
}

// matches evaluates rule r in full on p (tc.in must be set up) and, when it matches, runs its
// post-match keywords.
func (r *Rule) matches(tc *ThreadCtx, p *decode.Packet) bool {
	tc.streamMatched = false
	if p.Pseudo() && r.stream.notOnPseudo {
		return false // SIG_TYPE_PKT (and IP-only, tx) rules skip a flow-end pseudo packet
	}
	if r.alproto != applayer.ProtoUnknown && !tc.appProtoIs(r.alproto) {
		return false // the flow's protocol is not (yet) the rule's (DetectRulePacketRules)
	}
	if !r.headerMatch(p) || !r.match.Match(&tc.in) {
		return false
	}
	if r.payload != nil && !r.payloadMatches(tc, p) {
		return false
	}
	if r.frames != nil && !r.framesMatch(tc) {
		return false
	}
	// tcp.hdr: the TCP header with its options, for a packet whose TCP header decoded
	// (detect-tcphdr.c GetData; no buffer otherwise, no match).
	if r.tcpHdr != nil && (!p.IsTCP() || len(p.L4Header) == 0 || !r.tcpHdr.Inspect(p.L4Header, tc.pst)) {
		return false
	}
	r.post.Apply(&tc.in)
	return true
}

// addTD adds a matched threat-detection rule to the alert queue with the disposition its
// thresholds give.
func (e *Engine) addTD(tc *ThreadCtx, r *Rule, p *decode.Packet, f *flow.Flow) {
	txID, flags := tc.packetTx(e, r)
	e.addMatch(tc, r, p, f, txID, flags)
}

// addMatch is addTD for a match that names transaction txID (alert.NoTx for none) with
// flags (alert.FlagTx ...).
func (e *Engine) addMatch(tc *ThreadCtx, r *Rule, p *decode.Packet, f *flow.Flow, txID uint64, flags alert.Flags) {
	en := alert.Entry{IID: r.IID, Action: r.Action, TxID: txID, Flags: flags}
	if r.toFlow {
		en.Flags |= alert.FlagApplyToFlow
	}
	if tc.streamMatched {
		en.Flags |= alert.FlagStreamMatch
		tc.streamMatched = false
	}
	disp := alert.Matched
	if e.thresholds.HasRate(r.IID) {
		// As in Suricata's PacketAlertHandle: post-matches already ran; the rate decides
		// whether the match alerts, acts silently, or does nothing at all.
		d, newAction := e.thresholds.Decide(r.IID, p, f)
		switch d.Result() {
		case threshold.NoMatch:
			disp = alert.SuppressedNoAction
		case threshold.Suppress:
			disp = alert.SuppressedKeepAction
		}
		if d.Modified() {
			en.Action = rateAction(newAction)
			en.Flags |= alert.FlagRateFiltered
			en.Rule = r.Action
		}
	}
	if r.NoAlert && disp == alert.Matched {
		disp = alert.SuppressedKeepAction
	}
	tc.Queue.Add(en, disp)
	if r.tags != nil {
		tc.noteTagged(r, en, disp)
	}
}

func bits0(x uint64) int { return bits.TrailingZeros64(x) }

// rateAction maps a rate_filter's new_action to action flags as Suricata does (reject is
// reject and drop; alert is alert only).
func rateAction(name string) alert.Action {
	switch name {
	case "drop":
		return alert.ActionDrop | alert.ActionAlert
	case "reject":
		return alert.ActionReject | alert.ActionDrop | alert.ActionAlert
	case "pass":
		return alert.ActionPass
	}
	return alert.ActionAlert
}

// headerMatch checks the rule header against the packet as Suricata's DetectRunInspectRuleHeader
// does: IP version, protocol, ports for port protocols (fragments never match port-specific
// rules), then destination and source address against the packet's own addresses.
func (r *ruleHeader) headerMatch(p *decode.Packet) bool {
	if r.ipv4Only && p.IPVersion != 4 || r.ipv6Only && p.IPVersion != 6 {
		return false
	}
	// Suricata's packet mask counts raw stream data to inspect as payload (PacketCreateMask).
	if hasPayload := len(p.Payload) > 0 && !p.NoPayloadInspection || p.StreamData; r.needPayload && !hasPayload || r.needNoPayload && hasPayload {
		return false
	}
	if !r.anyProto && (!r.hasProto(p.IPProto) || !p.HasL4) {
		return false // a protocol rule needs that protocol's header (fragments have none)
	}
	if r.portProto || !r.sp.Any || !r.dp.Any {
		if !p.HasPorts() {
			if !r.sp.Any || !r.dp.Any {
				return false
			}
		} else if !r.sp.Contains(p.SrcPort) || !r.dp.Contains(p.DstPort) {
			return false
		}
	}
	if r.dstAll && r.srcAll {
		return p.IPVersion != 0
	}
	if p.IPVersion == 4 && p.SrcIP.Is4() && p.DstIP.Is4() {
		return (r.dstAll || r.dst4.contains(addr4(p.DstIP))) && (r.srcAll || r.src4.contains(addr4(p.SrcIP)))
	}
	return (r.dstAll && p.IPVersion != 0 || r.dst.Contains(p.DstIP)) &&
		(r.srcAll && p.IPVersion != 0 || r.src.Contains(p.SrcIP))
}
