// Package detect compiles parsed rules into an immutable Engine and inspects packets with it,
// without sorting anything per packet: every rule gets a dense internal id (iid) in Suricata's
// order (action order, flowbits/flowint writers before readers, priority, sid), Hyperscan marks
// the rules whose fast pattern occurs in the payload, rules without a fast pattern are added
// from precomputed per-protocol lists, and the candidate set yields them in iid order. Each
// candidate is evaluated in full; matches go to the ordered alert queue.
//
// This first engine inspects the packet payload (pkt_data; rules meant for the reassembled
// stream inspect each packet's payload until reassembly lands) and the packet, flow and state
// keywords of packages detect/payload and detect/match. Rules that need anything else
// (app-layer buffers and protocols, thresholds, transforms) fail to load with "... is not
// supported yet", so nothing is ever loaded half-evaluated.
package detect

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/detect/payload"
	"github.com/meerkat-ids/meerkat/detect/threshold"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/broad"
	"github.com/meerkat-ids/meerkat/rules"
)

// Config tunes the engine.
type Config struct {
	// ActionOrder is action-order (default pass, drop, reject, alert).
	ActionOrder []string
	// PacketAlertMax is packet-alert-max (default 15).
	PacketAlertMax int
	// MPMCacheDir enables the Hyperscan database cache (detect.sgh-mpm-caching-path); "" off.
	MPMCacheDir string
	// Classifications give classtype default priorities, which order the rules.
	Classifications map[string]config.Classification
	// IPS is inline mode (drop and reject rules act on packets).
	IPS bool
	// Firewall is firewall mode: rules loaded from firewall rule files (rules.Rule.Firewall)
	// are evaluated first, per table, in file order, and a packet no rule accepts gets the
	// default policies. Firewall implies IPS.
	Firewall bool
	// Policies are the firewall's default policies (nil: Suricata's defaults).
	Policies *firewall.Policies
	// Grouping configures the signature groups (detect.profile, grouping, sgh-mpm-context).
	Grouping Grouping
	// NoBroadIndex keeps rules without a fast pattern in per-protocol lists checked one by one
	// (for comparisons); by default they go through the broad-rule index.
	NoBroadIndex bool
	// Thresholds are the threshold.config entries; ThresholdMaxEntries bounds the tracking
	// tables (0: the package default) when State is nil.
	Thresholds          []rules.ThresholdEntry
	ThresholdMaxEntries int
	// State is the mutable state to continue from, normally the State of the engine this one
	// replaces; nil starts afresh.
	State *State
}

// Rule is one compiled rule. The fields a candidate walk reads (flags, header, programs) come
// first, in three cache lines; the rest (the parsed rule, the alert record) follows.
type Rule struct {
	IID uint32
	// Action is the rule's action flags (alert.Action bits).
	Action alert.Action
	// NoAlert rules act but log nothing.
	NoAlert bool
	// ipOnly rules are evaluated on the first packet of each flow direction only (and on every
	// packet without a flow), as Suricata's IP-only engine does.
	ipOnly bool
	// fw marks a firewall rule, table its table and scope its action scope; flowStart rules
	// (hook flow_start) only see the first packet of each flow direction.
	fw        bool
	table     firewall.Table
	scope     rules.Scope
	flowStart bool
	// fwStatic: a packet:filter rule whose match depends only on the packet header (no
	// keyword, payload, hook or rate), so its result is fixed for a flow direction.
	fwStatic bool
	// synNoToClient: a SYN-only rule without a direction, written for specific destination
	// ports, which Suricata leaves out of the to-client rule groups (RulesGroupByPorts): it is
	// never evaluated on a to-client packet.
	synNoToClient bool
	// needPayload and needNoPayload are Suricata's SIG_MASK_REQUIRE_PAYLOAD and
	// SIG_MASK_REQUIRE_NO_PAYLOAD: a packet-payload keyword, or a dsize that excludes 0, needs
	// a packet with payload; dsize:0 needs one without.
	needPayload, needNoPayload bool
	anyProto                   bool
	ipv4Only                   bool
	ipv6Only                   bool
	portProto                  bool // the protocol has ports (tcp, udp, sctp)
	hasMPM                     bool
	// toFlow is set when the rule's drop or pass applies to the whole flow (§2.4: explicit
	// :flow scope, or auto scope for IP-only, like-IP-only, PD-only and app-layer types; stream
	// and packet types act on the packet, since this engine's matches are never stateful yet).
	toFlow   bool
	src, dst *rules.Address
	// srcAll and dstAll: the address field holds every IPv4 and IPv6 address ("any"), so
	// headerMatch need not search it.
	srcAll, dstAll bool
	// src4 and dst4 are the fields' IPv4 ranges as numbers: headerMatch searches them for an
	// IPv4 packet (a netip.Addr comparison costs more).
	src4, dst4 v4Ranges
	sp, dp     *rules.Port
	match      *match.Matcher
	post       *match.Post
	payload    *payload.Program // pkt_data; nil when the rule has no payload keywords
	// ipProtos is the set of IP protocols the rule applies to (unless anyProto), a bit each.
	ipProtos [4]uint64
	// Src is the parsed rule.
	Src *rules.Rule
	// tags are the rule's tag keywords.
	tags []tagSpec
	// severity is the rule's priority (its priority keyword, else its classtype's), which
	// orders the rules.
	severity int
	// logID numbers the rule for the outputs, which look its record up by it: the iid, or
	// for a firewall policy's synthetic rule Engine.Len() plus its table.
	logID uint32
	// event is the first decoder event the rule's decode-event keywords require
	// (decode.EventNone without one): a rule without a fast pattern is a candidate only for
	// packets that carry it (Suricata's signature mask skips it for packets without events;
	// the index narrows it to the event it needs).
	event decode.Event
	// deOnly marks a decoder-event-only rule (Suricata's SIG_TYPE_DEONLY): the only rules,
	// with IP-only ones, evaluated on packets of protocol 0 that carry decoder events, also
	// without an IP layer (Suricata's decoder_event_sgh).
	deOnly bool
}

// LogID is the number the outputs know the rule by: its iid, or for a firewall policy's
// synthetic rule (PolicyRules) Len() plus its table. Outputs build each rule's record part
// once at start-up and look it up by this number.
func (r *Rule) LogID() uint32 { return r.logID }

// Firewall reports the rule's firewall hook and policy as EVE writes them ("packet:filter",
// "drop:flow,alert"); ok is false for a threat-detection rule.
func (r *Rule) Firewall() (hook, policy string, ok bool) {
	if !r.fw {
		return "", "", false
	}
	return r.table.String(), firewall.Policy{Action: r.Action, Scope: r.scope}.String(), true
}

// headerOrder orders the broad-rule index: firewall rules first, in iid order (a flow
// direction's cached candidates keep them at the front, broadCache.nFW), then the other
// rules by their header fields as written (source, destination, protocols, ports, IP
// version), which clusters them.
func headerOrder(a, b *Rule) int {
	if a.fw || b.fw {
		return cmp.Or(boolOrder(a.fw, b.fw), cmp.Compare(a.IID, b.IID))
	}
	return cmp.Or(strings.Compare(a.src.Text, b.src.Text), strings.Compare(a.dst.Text, b.dst.Text),
		boolOrder(a.anyProto, b.anyProto), slices.Compare(a.ipProtos[:], b.ipProtos[:]),
		strings.Compare(a.sp.Text, b.sp.Text), strings.Compare(a.dp.Text, b.dp.Text),
		boolOrder(a.ipv4Only, b.ipv4Only), boolOrder(a.ipv6Only, b.ipv6Only))
}

// boolOrder orders true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// sameSides reports whether a `<>` rule's two sides are the same addresses and ports:
// Suricata then treats it as unidirectional (SigHasSameSourceAndDestination), so it is not
// doubled and alerts once.
func sameSides(h *rules.Header) bool {
	if !h.SrcPort.Any || !h.DstPort.Any {
		if !slices.Equal(h.SrcPort.Ranges, h.DstPort.Ranges) {
			return false
		}
	}
	if !h.Src.Any || !h.Dst.Any {
		if !slices.Equal(h.Src.V4, h.Dst.V4) || !slices.Equal(h.Src.V6, h.Dst.V6) {
			return false
		}
	}
	return true
}

// eventIndexed reports whether the rule is a candidate through the decoder-event index rather
// than the broad-rule index: a threat-detection rule without a fast pattern that requires a
// decoder event.
func (r *Rule) eventIndexed() bool { return !r.hasMPM && !r.fw && r.event != decode.EventNone }

// deHeaderAny reports whether the rule's header lets it match a packet without an IP layer
// (deWalk): any protocol and any ports.
func (r *Rule) deHeaderAny() bool {
	return r.anyProto && r.sp.Any && r.dp.Any
}

// hasProto reports whether the rule's protocol set holds IP protocol p.
func (r *Rule) hasProto(p uint8) bool { return r.ipProtos[p>>6]&(1<<(p&63)) != 0 }

// Engine is the compiled rule set. It is immutable once built and shared by all workers.
//
// The fields every packet reads come first, so that they share a few cache lines; the large
// per-protocol tables come last (a packet's walk touches one entry of them at most).
type Engine struct {
	rules []*Rule
	// useBroad is false when Config.NoBroadIndex asked for the per-protocol lists.
	useBroad bool
	// firewall is set in firewall mode; hasTags when a rule uses the tag keyword (packets are
	// then counted against the flow's and the State's host tags).
	firewall bool
	hasTags  bool
	// hasPreFlow and hasPreStream say whether the pre_flow and pre_stream hook tables hold
	// rules (HasHook).
	hasPreFlow, hasPreStream bool
	// nFW is the number of firewall rules: they hold iids 0..nFW-1.
	nFW int
	// firstFWMPM is the lowest iid of a firewall rule with a fast pattern (such a rule is a
	// candidate on some packets only): a deciding rule is cached per flow direction only
	// below it.
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
	// broad indexes the rules without a fast pattern by address, port and protocol (issue #5):
	// one lookup per packet returns the ones whose header can accept it. broadIID maps the
	// index's dense numbering to iids; broadIPOnly marks the IP-only ones by that numbering.
	broad       *broad.Index
	broadIID    []uint32
	broadIPOnly []uint64
	// thresholds decides threshold, detection_filter, suppress and rate_filter outcomes.
	thresholds *threshold.Set
	// Firewall mode: preFlow and preStream (per direction) list the rules of the
	// packet:pre_flow and packet:pre_stream hooks in file order, evaluated one by one in their
	// hooks (like every packet rule, they are candidates of the main walk too, as in Suricata
	// 8.0.6 whose port groups hold them); policies are the default policies (the app-layer
	// ones are read from here).
	preFlow   []uint32
	preStream [2][]uint32
	policies  *firewall.Policies
	// state is the mutable state (threshold tables, host tags): not the engine's own, it
	// passes to the next engine.
	state *State
	// sgh holds the signature groups and their Hyperscan databases of pkt_data fast
	// patterns: by IP protocol, direction and server port, as Suricata groups rules, so a
	// packet is scanned only for the patterns of rules that can apply to it.
	sgh   sigGroups
	cfg   Config
	names *match.Names
	// always[proto] lists, in iid order, the rules without a fast pattern that apply to that IP
	// protocol; they are candidates for every packet of it. alwaysIPOnly holds the IP-only
	// ones, candidates only on the first packet of each flow direction.
	always       [256][]uint32
	alwaysIPOnly [256][]uint32
	// eventRules[ev] lists, in iid order, the rules without a fast pattern that require decoder
	// event ev (Rule.eventIndexed): candidates only for packets carrying it. hasEventRules says
	// whether any exists.
	eventRules    [decode.EventCount][]uint32
	hasEventRules bool
	// deRules lists, in iid order, the decoder-event-only rules that can match a packet
	// without an IP layer that carries decoder events (Suricata's decoder_event_sgh).
	deRules []uint32
}

// Supported reports whether the engine can evaluate a keyword (canonical name or alias). The
// rule loader uses it so a rule with anything else fails with "keyword X is not supported
// yet"; --list-keywords and the README's table of unsupported keywords read it too. Each
// keyword is declared once on the engine's side: meta keywords and content modifiers are
// folded into the parsed rule by package rules (its registry's kinds say which), detect/match
// and detect/payload each have one table of the keywords they compile, and engineKeywords
// lists those the engine handles itself.
func Supported(keyword string) bool {
	k := rules.Lookup(keyword)
	if k == nil {
		return false
	}
	if engineKeywords[k.Name] || k.Kind == rules.KindMeta {
		return true
	}
	if k.Kind == rules.KindModifier {
		// Content modifiers are folded into the content; a legacy modifier that moves the
		// content into an app-layer buffer is refused by that buffer instead.
		return true
	}
	return payload.Supports(k.Name) || match.Supports(k.Name)
}

// engineKeywords are the keywords the engine evaluates itself: the packet payload buffer, and
// the tag and rate keywords (rates decided by package threshold).
var engineKeywords = map[string]bool{"pkt_data": true, "tag": true, "threshold": true, "detection_filter": true}

// BuildError is a rule the engine cannot evaluate: it is left out of the engine.
type BuildError struct {
	Rule *rules.Rule
	Err  error
}

func (b *BuildError) Error() string {
	return fmt.Sprintf("%s:%d: sid %d: %v", b.Rule.File, b.Rule.Line, b.Rule.SID, b.Err)
}

func (b *BuildError) Unwrap() error { return b.Err }

// Build compiles rules. A rule the engine cannot evaluate is left out and reported in errs
// (one error per rule, naming file, line and sid); err is set only when the engine as a whole
// cannot be built (Hyperscan failure).
func Build(rs []*rules.Rule, cfg Config) (e *Engine, errs []error, err error) {
	if cfg.PacketAlertMax <= 0 {
		cfg.PacketAlertMax = alert.DefaultMax
	}
	if cfg.Firewall {
		cfg.IPS = true
		if cfg.Policies == nil {
			cfg.Policies = firewall.DefaultPolicies()
		}
	}
	if cfg.State == nil {
		cfg.State = NewState(cfg.ThresholdMaxEntries)
	}
	e = &Engine{cfg: cfg, names: match.NewNames(), firewall: cfg.Firewall, policies: cfg.Policies, state: cfg.State}
	// The first compilation (which finds the rules that cannot be evaluated) runs in gid:sid
	// order whatever the order of rs, so that its cost does not depend on the rule files'
	// order; results and errors are then taken in the order of rs.
	byID := make([]int, len(rs))
	for i := range byID {
		byID[i] = i
	}
	sort.SliceStable(byID, func(a, b int) bool {
		ra, rb := rs[byID[a]], rs[byID[b]]
		if ra.GID != rb.GID {
			return ra.GID < rb.GID
		}
		return ra.SID < rb.SID
	})
	first := make([][]*Rule, len(rs))
	firstErr := make([]error, len(rs))
	for _, i := range byID {
		first[i], firstErr[i] = e.compile(rs[i])
	}
	var compiled []*Rule
	for i, r := range rs {
		if firstErr[i] != nil {
			errs = append(errs, &BuildError{Rule: r, Err: firstErr[i]})
			continue
		}
		compiled = append(compiled, first[i]...)
	}
	// Rate settings Suricata refuses (threshold with detection_filter, bad backoff...) fail the
	// rule; a scratch set checks them before iids are given out.
	check := threshold.NewSet(threshold.Config{MaxEntries: 1}, cfg.Thresholds)
	kept := compiled[:0]
	for i, c := range compiled {
		if terr := check.Add(uint32(i), c.Src); terr != nil {
			errs = append(errs, &BuildError{Rule: c.Src, Err: terr})
			continue
		}
		kept = append(kept, c)
	}
	compiled = kept
	order := actionOrder(cfg.ActionOrder)
	// The sort keys are computed once per rule; the position breaks the last ties (the two
	// halves of a <> rule), so the result is one total order whatever the input order, and
	// sorting costs the same for a shuffled rule file as for a sorted one.
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
	compiled = sorted
	// Compile once more, now in iid order, with fresh variable numbering: what one packet's
	// inspection walks (rules, matchers, programs, address sets) is then laid out in memory in
	// the order it is walked, and nothing depends on the order of the rule files (a shuffled
	// file made inspection 20% slower through scattered memory alone, bench/ordering.sh).
	e.names = match.NewNames()
	again := make(map[*rules.Rule][]*Rule, len(compiled))
	for i, c := range compiled {
		variants, ok := again[c.Src]
		if !ok {
			variants, err = e.compile(c.Src)
			if err != nil {
				return nil, errs, fmt.Errorf("detect: recompiling sid %d: %w", c.Src.SID, err)
			}
		}
		compiled[i], again[c.Src] = variants[0], variants[1:]
	}
	e.rules = compiled
	e.thresholds = threshold.NewSet(threshold.Config{Tables: e.state.thresholds}, cfg.Thresholds)
	for i, r := range compiled {
		r.IID, r.logID = uint32(i), uint32(i)
		if terr := e.thresholds.Add(r.IID, r.Src); terr != nil {
			return nil, errs, fmt.Errorf("detect: thresholds: %w", terr)
		}
		switch {
		case r.fw && r.table == firewall.TablePreFlow:
			e.preFlow = append(e.preFlow, r.IID)
		case r.fw && r.table == firewall.TablePreStream:
			if r.Src.ToServer {
				e.preStream[flow.ToServer] = append(e.preStream[flow.ToServer], r.IID)
			}
			if r.Src.ToClient {
				e.preStream[flow.ToClient] = append(e.preStream[flow.ToClient], r.IID)
			}
		}
	}
	e.hasPreFlow = len(e.preFlow) > 0
	e.hasPreStream = len(e.preStream[0]) > 0 || len(e.preStream[1]) > 0
	if e.firewall {
		e.pktPolicy[firewall.TablePreFlow] = e.policies.PreFlow
		e.pktPolicy[firewall.TablePreStream] = e.policies.PreStream
		e.pktPolicy[firewall.TablePacketFilter] = e.policies.PacketFilter
		e.buildPolicyRules()
		pf := e.pktPolicy[firewall.TablePacketFilter]
		e.quietFilterPolicy = pf.Scope == rules.ScopeHook && pf.Action&alert.ActionAccept != 0 &&
			pf.Action&(alert.ActionAlert|alert.ActionDrop) == 0 && e.policyRules[firewall.TablePacketFilter] == nil
	}
	if err := e.buildPrefilter(); err != nil {
		return nil, errs, err
	}
	e.firstFWMPM = ^uint32(0)
	for _, r := range e.rules {
		r.flowStart = r.flowStart && !r.hasMPM // prefiltered rules see every packet (8.0.6)
		if !r.fw {
			continue
		}
		e.nFW++
		if r.hasMPM && r.IID < e.firstFWMPM {
			e.firstFWMPM = r.IID
		}
		r.fwStatic = r.table == firewall.TablePacketFilter && !r.flowStart && !r.hasMPM && r.payload == nil &&
			!r.needPayload && !r.needNoPayload && r.match.Len() == 0 && r.post.Empty() && !e.thresholds.HasRate(r.IID)
	}
	e.quietNoFW = e.firewall && e.nFW == 0 && e.quietFilterPolicy && !e.hasPreFlow && !e.hasPreStream
	return e, errs, nil
}

// Rules returns the compiled rules in iid order.
func (e *Engine) Rules() []*Rule { return e.rules }

// Rule returns the rule with internal id iid.
func (e *Engine) Rule(iid uint32) *Rule { return e.rules[iid] }

// Len is the number of compiled rules.
func (e *Engine) Len() int { return len(e.rules) }

// PolicyRules returns the synthetic rules of the firewall's packet policies that alert
// (Suricata's AddPktPolicySignature), by table; nil where a policy does not alert.
func (e *Engine) PolicyRules() []*Rule { return e.policyRules[:] }

// IsFirewall reports whether the engine runs in firewall mode.
func (e *Engine) IsFirewall() bool { return e.firewall }

// compile turns one parsed rule into one compiled rule, or two for a `<>` rule (Suricata
// duplicates those with source and destination swapped).
func (e *Engine) compile(r *rules.Rule) ([]*Rule, error) {
	h := &r.Header
	// Without TCP reassembly yet, rules meant for the stream inspect each packet's payload
	// (the scope issue #4 sets; the stream comes with the app-layer issue).
	if gaps := missing(r, true); len(gaps) > 0 {
		return nil, gaps[0]
	}
	if r.Firewall && !e.firewall {
		return nil, fmt.Errorf("firewall rule outside firewall mode")
	}
	if !r.Firewall && len(h.Actions) != 1 {
		return nil, fmt.Errorf("action lists are only valid in firewall rules")
	}
	c := &Rule{Src: r, Action: alert.Action(h.Actions[0].Flags()), NoAlert: r.NoAlert}
	if r.Alert && c.Action&alert.ActionPass != 0 {
		c.Action |= alert.ActionAlert // pass rule with the alert keyword: its match is logged
	}
	if r.Firewall {
		// Firewall rules: every action of the list; drop does not imply alert, the alert
		// keyword or a secondary alert action asks for one.
		c.fw, c.scope, c.table = true, h.Scope, firewall.RuleTable(r)
		c.Action = alert.Action(h.ActionFlags(true))
		if r.Alert {
			c.Action |= alert.ActionAlert
		}
	}
	if len(h.Protocol.IPProtos) == 0 {
		c.anyProto = true
	}
	for _, p := range h.Protocol.IPProtos {
		c.ipProtos[p>>6] |= 1 << (p & 63)
		if p == decode.ProtoTCP || p == decode.ProtoUDP || p == decode.ProtoSCTP {
			c.portProto = true
		}
	}
	c.ipv4Only, c.ipv6Only = h.Protocol.IPv4Only, h.Protocol.IPv6Only
	c.src, c.dst, c.sp, c.dp = cloneAddress(h.Src), cloneAddress(h.Dst), clonePort(h.SrcPort), clonePort(h.DstPort)
	var err error
	if c.match, err = match.Compile(r, e.names); err != nil {
		return nil, err
	}
	if c.post, err = match.CompilePost(r, e.names); err != nil {
		return nil, err
	}
	if b := r.Buffer("pkt_data"); b != nil && len(b.Matches) > 0 {
		if c.payload, err = payload.Compile(b); err != nil {
			return nil, err
		}
		c.needPayload = true
	}
	for _, o := range r.Matches {
		if o.Name != "dsize" {
			continue
		}
		if m, ok := o.Arg.(rules.IntMatch); ok {
			switch {
			case m.Op == "=" && m.A == 0:
				c.needNoPayload = true
			case m.Op == "=", m.Op == ">", m.Op == ">=", m.Op == "!=", m.Op == "<>":
				c.needPayload = true
			}
		}
	}
	c.tags = compileTags(r.Tags)
	if len(c.tags) > 0 {
		e.hasTags = true
	}
	// The flow_start hook limits a rule without a fast pattern to the first packet of each
	// flow direction (Suricata checks it in the non-prefilter engine only), firewall or not.
	c.flowStart = h.Protocol.Hook == "flow_start"
	c.ipOnly = r.Type() == rules.TypeIPOnly
	c.deOnly = r.Type() == rules.TypeDEOnly
	for _, o := range r.Matches {
		if ev, ok := match.DecodeEvent(o); ok {
			c.event = ev
			break
		}
	}
	switch h.Scope {
	case rules.ScopeFlow:
		c.toFlow = true
	case rules.ScopeAuto:
		switch r.Type() {
		case rules.TypeIPOnly, rules.TypeLikeIPOnly, rules.TypePDOnly, rules.TypeAppLayer, rules.TypeAppTx:
			c.toFlow = true
		}
	}
	c.severity = 3
	if cl, ok := e.cfg.Classifications[strings.ToLower(r.Classtype)]; ok {
		c.severity = cl.Priority
	}
	if r.Priority > 0 {
		c.severity = r.Priority
	}
	out := []*Rule{c}
	if h.Direction == rules.DirBoth && !sameSides(h) {
		rev := *c
		rev.src, rev.dst, rev.sp, rev.dp = c.dst, c.src, c.dp, c.sp
		out = append(out, &rev)
	}
	for _, o := range out {
		o.srcAll, o.dstAll = o.src != nil && o.src.HoldsAll(), o.dst != nil && o.dst.HoldsAll()
		o.src4, o.dst4 = makeV4Ranges(o.src), makeV4Ranges(o.dst)
		o.synNoToClient = r.ToServer && r.ToClient && synOnly(r) && len(o.dp.Ranges) > 0 &&
			o.dp.Ranges[0] != (rules.PortRange{First: 0, Last: 65535})
	}
	return out, nil
}

// cloneAddress and clonePort copy a header field into fresh memory, so a rule's fields sit next
// to its compiled form rather than wherever the parser put them.
// v4Ranges is an address field's IPv4 ranges as numbers, sorted and disjoint.
type v4Ranges []struct{ first, last uint32 }

func makeV4Ranges(a *rules.Address) v4Ranges {
	if a == nil || len(a.V4) == 0 {
		return nil
	}
	out := make(v4Ranges, len(a.V4))
	for i, r := range a.V4 {
		out[i].first, out[i].last = addr4(r.First), addr4(r.Last)
	}
	return out
}

// contains reports whether ip is in one of the ranges (a binary search for the first range
// whose end is not below ip).
func (rs v4Ranges) contains(ip uint32) bool {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].last < ip {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(rs) && rs[lo].first <= ip
}

// addr4 is an IPv4 address as a number; a must be an IPv4 address.
func addr4(a netip.Addr) uint32 {
	b := a.As4()
	return binary.BigEndian.Uint32(b[:])
}

func cloneAddress(a *rules.Address) *rules.Address {
	if a == nil {
		return nil
	}
	c := *a
	c.V4 = append([]rules.IPRange(nil), a.V4...)
	c.V6 = append([]rules.IPRange(nil), a.V6...)
	return &c
}

func clonePort(p *rules.Port) *rules.Port {
	if p == nil {
		return nil
	}
	c := *p
	c.Ranges = append([]rules.PortRange(nil), p.Ranges...)
	return &c
}

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
		if (xb.Track == "ip_pair") != pair {
			continue
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
	table                                   firewall.Table // firewall rules first, by table
	action                                  int
	flowbits, flowint, hostbits, ippairbits int
	priority                                int
	sid                                     uint32
	pos                                     int
}

func makeSortKey(r *Rule, order map[string]int) sortKey {
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

// buildPrefilter sorts the rules into the prefilter: those with a pkt_data fast pattern into the
// signature groups' Hyperscan databases, the others into the broad-rule index (or per-protocol
// lists).
func (e *Engine) buildPrefilter() error {
	for _, r := range e.rules {
		fp, ok := r.Src.FastPattern()
		if ok && fp.Buffer == "pkt_data" && !fp.Content.Negated && len(fp.Pattern()) > 0 {
			r.hasMPM = true
			continue
		}
		if r.deOnly && r.deHeaderAny() {
			e.deRules = append(e.deRules, r.IID)
		}
		if r.eventIndexed() {
			e.eventRules[r.event] = append(e.eventRules[r.event], r.IID)
			e.hasEventRules = true
			continue
		}
		for p := 0; p < 256; p++ {
			if r.anyProto || r.hasProto(uint8(p)) {
				if r.ipOnly {
					e.alwaysIPOnly[p] = append(e.alwaysIPOnly[p], r.IID)
				} else {
					e.always[p] = append(e.always[p], r.IID)
				}
			}
		}
	}
	if !e.cfg.NoBroadIndex {
		var brs []broad.Rule
		for p := 0; p < 256; p++ {
			e.always[p], e.alwaysIPOnly[p] = nil, nil
		}
		// The index's bit order is free (broadIID maps it back to iids): rules with the same
		// header fields are put side by side, so that a packet's matches fall in few words
		// and the index's summaries skip the others.
		var broadRules []*Rule
		for _, r := range e.rules {
			if !r.hasMPM && !r.eventIndexed() {
				broadRules = append(broadRules, r)
			}
		}
		sort.SliceStable(broadRules, func(i, j int) bool { return headerOrder(broadRules[i], broadRules[j]) < 0 })
		for _, r := range broadRules {
			br := broad.Rule{Src: r.src, Dst: r.dst, SrcPort: r.sp, DstPort: r.dp,
				IPv4Only: r.ipv4Only, IPv6Only: r.ipv6Only}
			if !r.anyProto {
				for p := 0; p < 256; p++ {
					if r.hasProto(uint8(p)) {
						br.Protos = append(br.Protos, uint8(p))
					}
				}
			}
			brs = append(brs, br)
			e.broadIID = append(e.broadIID, r.IID)
		}
		idx, err := broad.Build(brs, broad.Options{})
		if err != nil {
			return fmt.Errorf("detect: broad-rule index: %w", err)
		}
		e.broad, e.useBroad = idx, true
		e.broadIPOnly = make([]uint64, idx.Words())
		for k, iid := range e.broadIID {
			if e.rules[iid].ipOnly {
				e.broadIPOnly[k>>6] |= 1 << (k & 63)
			}
		}
	}
	return e.buildGroups()
}

// ForgetFlow drops the per-flow threshold state of a flow that ended (call it before the flow's
// memory is reused).
func (e *Engine) ForgetFlow(f *flow.Flow) {
	if e.thresholds != nil {
		e.thresholds.ForgetFlow(f)
	}
}

// Close releases the Hyperscan database.
func (e *Engine) Close() {
	for _, db := range e.sgh.dbs {
		db.Close()
	}
}
