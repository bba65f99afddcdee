// Package detect compiles parsed rules into an immutable Engine and inspects packets with it,
// without sorting anything per packet: every rule gets a dense internal id (iid) in Suricata's
// order (action order, flowbits/flowint writers before readers, priority, sid), Hyperscan marks
// the rules whose fast pattern occurs in the payload, rules without a fast pattern are added
// from precomputed per-protocol lists, and the candidate set yields them in iid order. Each
// candidate is evaluated in full; matches go to the ordered alert queue.
//
// The engine inspects the packet payload (pkt_data), the raw stream data the stream engine
// hands over with a TCP packet (stream.go: stream rules first, then the packet, as Suricata
// does), the tcp.hdr buffer, and the packet, flow and state keywords of packages
// detect/payload and detect/match. After the packet rules, the transaction stage (txProgram,
// tx*.go) inspects the app-layer transactions of the packet's flow with the rules that use
// app-layer buffers, through the buffers the protocols register in package applayer. Rules
// that need anything else (a protocol without a parser, a buffer no protocol registered,
// payload content together with app-layer buffers) fail to load with "... is not supported
// yet", so nothing is ever loaded half-evaluated.
package detect

import (
	"fmt"
	"sort"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/detect/payload"
	"github.com/meerkat-ids/meerkat/detect/threshold"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/header"
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
	// NoHeaderIndex turns the header witness index off (for comparisons): rules without a fast
	// pattern are then candidates for every packet their address and port fields accept. By
	// default each has a witness, a header keyword of its own (flags, dsize, ttl ...) that
	// package prefilter/header indexes, and is a candidate only when the witness holds too.
	NoHeaderIndex bool
	// PrefilterDefault is detect.prefilter.default (mpm or auto). Suricata gives prefilter
	// engines to header keywords only under auto or with the prefilter keyword; the witness
	// index covers every rule it can either way, since the alerts are the same.
	PrefilterDefault string
	// Thresholds are the threshold.config entries; ThresholdMaxEntries bounds the tracking
	// tables (0: the package default) when State is nil.
	Thresholds          []rules.ThresholdEntry
	ThresholdMaxEntries int
	// State is the mutable state to continue from, normally the State of the engine this one
	// replaces; nil starts afresh.
	State *State
	// GuessAppLayerTx is detect.guess-applayer-tx (default off): a packet rule's alert on a
	// flow whose direction has exactly one live transaction names it (tx_id, tx_guessed).
	GuessAppLayerTx bool
	// StreamTxLogLimit is detect.stream-tx-log-limit: how many packet alerts may name one
	// transaction that way (0: the default 4).
	StreamTxLogLimit int
	// NoTxPrefilter makes every tx rule a candidate for every transaction of its protocol
	// (for comparisons); by default a rule with a fast pattern in a transaction buffer is a
	// candidate only when that buffer's database finds it.
	NoTxPrefilter bool
}

// Rule is one compiled rule. The fields a candidate walk reads (flags, header, programs) come
// first, in three cache lines; the rest (the parsed rule, tags, ordering and log data) follows.
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
	hasMPM        bool
	// alproto is the rule's app-layer protocol (ProtoUnknown for none): a packet rule with
	// one is skipped while the flow's protocol does not equal it (DetectRulePacketRules).
	alproto applayer.Proto
	// toFlow is set when the rule's drop or pass applies to the whole flow (§2.4: explicit
	// :flow scope, or auto scope for IP-only, like-IP-only, PD-only and app-layer types; stream
	// and packet types act on the packet, since this engine's matches are never stateful yet).
	toFlow bool
	// stream is how the rule's payload content meets TCP data (streamMode).
	stream streamMode
	// ruleHeader is what the rule's header requires of a packet (headerMatch).
	ruleHeader
	match   *match.Matcher
	post    *match.Post
	payload *payload.Program // pkt_data; nil when the rule has no payload keywords
	// frames are the rule's frame buffers (frame keyword); nil without one.
	frames []frameProg
	// tcpHdr is the rule's tcp.hdr buffer (the TCP header with its options); nil without one.
	tcpHdr *payload.Program
	// tx is the rule's transaction part (inspect engines of app-layer buffers); nil for a
	// packet rule. A tx rule is inspected only by the transaction stage (txProgram).
	tx *txRule
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
	// witness is the rule's header witness (prefilter/header.Choice), or why it has none; a
	// rule without a fast pattern and without a witness is a candidate on every packet its
	// header accepts.
	witness header.Choice
	// appPolicy marks the synthetic rule of an app-layer default policy with an alert action
	// (AddAppPolicySignature); appHook is its state.
	appPolicy bool
	appHook   appHook
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
	policy = firewall.Policy{Action: r.Action, Scope: r.scope}.String()
	if r.table == firewall.TableAppFilter {
		// AlertJsonAddFirewall: the protocol and the state's name, none for an unnamed state.
		h := r.appHook
		if r.tx != nil {
			h = r.tx.hook
		}
		return hookName(h.proto, h.dir, h.progress), policy, true
	}
	return r.table.String(), policy, true
}

// PolicyAlert returns the signature id and message of a firewall policy's synthetic rule
// (PolicyRules): the packet policies' "SURICATA FW default packet policy" (sid 2201000) or
// the app policies' "SURICATA FW default app policy" (sid 2201001).
func (r *Rule) PolicyAlert() (sid uint32, msg string) {
	if r.appPolicy {
		return firewall.PolicyAppSID, firewall.PolicyAppMsg
	}
	return firewall.PolicySID, firewall.PolicyMsg
}

// ruleHeader is what a rule's header (and its payload-size requirements) asks of a packet:
// IP version, protocols, ports and addresses. headerMatch checks it.
type ruleHeader struct {
	// needPayload and needNoPayload are Suricata's SIG_MASK_REQUIRE_PAYLOAD and
	// SIG_MASK_REQUIRE_NO_PAYLOAD: a packet-payload keyword, or a dsize that excludes 0, needs
	// a packet with payload; dsize:0 needs one without.
	needPayload, needNoPayload bool
	anyProto                   bool
	ipv4Only                   bool
	ipv6Only                   bool
	portProto                  bool // the protocol has ports (tcp, udp, sctp)
	// srcAll and dstAll: the address field holds every IPv4 and IPv6 address ("any"), so
	// headerMatch need not search it.
	srcAll, dstAll bool
	src, dst       *rules.Address
	// src4 and dst4 are the fields' IPv4 ranges as numbers: headerMatch searches them for an
	// IPv4 packet (a netip.Addr comparison costs more).
	src4, dst4 v4Ranges
	sp, dp     *rules.Port
	// ipProtos is the set of IP protocols the rule applies to (unless anyProto), a bit each.
	ipProtos [4]uint64
}

// perPacket reports whether the rule is a candidate on every packet its header accepts: a
// rule without a fast pattern, without a header witness, and neither IP-only (evaluated once
// per flow direction) nor indexed by a decoder event.
func (r *Rule) perPacket() bool {
	return r.tx == nil && !r.hasMPM && !r.ipOnly && !r.eventIndexed() && !r.witness.Witnessed()
}

// Candidacy says how the rule becomes a candidate for a packet (--engine-analysis): "mpm" (its
// fast pattern), "tx-mpm" (a transaction whose buffer holds its fast pattern), "tx" (every
// transaction of its protocol), "ip-only" (once per flow direction), "decode-event" (packets
// with its event), "witness" (its header keyword witness holds; witness names the keyword) or
// "every packet" (its header accepts the packet; reason says why it has no witness).
func (r *Rule) Candidacy() (kind, witness, reason string) {
	switch {
	case r.tx != nil && (r.tx.hasMPM || r.hasMPM): // a tx buffer's database, or the packet's
		return "tx-mpm", "", ""
	case r.tx != nil:
		return "tx", "", ""
	case r.hasMPM:
		return "mpm", "", ""
	case r.ipOnly:
		return "ip-only", "", ""
	case r.eventIndexed():
		return "decode-event", "", ""
	case r.witness.Witnessed():
		return "witness", r.witness.Keyword, ""
	}
	reason = r.witness.Reason
	if reason == "" {
		reason = "the header witness index is off"
	}
	return "every packet", "", reason
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
func (r *ruleHeader) hasProto(p uint8) bool { return r.ipProtos[p>>6]&(1<<(p&63)) != 0 }

// Engine is the compiled rule set. It is immutable once built and shared by all workers; the
// mutable detection state lives in its State, which passes to the engine built after it.
//
// It is composed of parts, each built by one stage of Build: the compiled rules in iid order,
// the prefilter index that picks a packet's candidates (prefilterIndex), the firewall program
// (fwProgram, firewall mode only) and the rate settings (thresholds). The fields every packet
// reads come first, so that they share a few cache lines; the prefilter's large per-protocol
// tables come last (a packet's walk touches one entry of them at most).
type Engine struct {
	rules []*Rule
	// firewall is set in firewall mode; hasTags when a rule uses the tag keyword (packets are
	// then counted against the flow's and the State's host tags).
	firewall bool
	hasTags  bool
	// rawPorts holds, per direction, the server ports whose rule group has a rule that
	// inspects the raw stream (RawStream); nil when no such rule goes that way.
	rawPorts [2]*[1024]uint64
	// fw is the firewall program: hook tables, policies, and what the walk may skip.
	fw fwProgram
	// thresholds decides threshold, detection_filter, suppress and rate_filter outcomes.
	thresholds *threshold.Set
	// state is the mutable state (threshold tables, host tags): not the engine's own, it
	// passes to the next engine.
	state *State
	cfg   Config
	names *match.Names
	// pf is the prefilter index: a packet's candidate rules.
	pf prefilterIndex
	// tx is the transaction program: the tx rules' engines and per-buffer databases.
	tx txProgram
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
	if (k.Kind == rules.KindStickyBuffer || k.Kind == rules.KindPayload) && k.Buffer != "" &&
		len(applayer.BuffersNamed(k.Buffer)) > 0 {
		return true // an app-layer buffer some protocol registered (or uricontent, into one)
	}
	if k.Kind == rules.KindMatch && (applayer.HasKeyword(k.Name) || k.Name == appStateList) {
		return true // a protocol's match keyword (txkeyword.go), or app-layer-state
	}
	if k.Kind == rules.KindTransform && k.Name != "luaxform" {
		return true // package transform compiles every transform but luaxform (no Lua)
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
var engineKeywords = map[string]bool{"pkt_data": true, "tcp.hdr": true, "tag": true, "threshold": true, "detection_filter": true, "frame": true}

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
//
// It runs in stages, each returning what the next takes (as Suricata's SigPrepareStage1..4):
// compile every rule (the rules it cannot evaluate fail here), check rate settings, order
// the rules, compile them again in iid order, give out iids with the rate settings, then
// build the firewall program and the prefilter index.
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
	e = &Engine{cfg: cfg, names: match.NewNames(), firewall: cfg.Firewall, state: cfg.State}
	compiled, errs := e.compileAll(rs)
	compiled, errs = checkRates(compiled, cfg.Thresholds, errs)
	compiled = orderRules(compiled, actionOrder(cfg.ActionOrder))
	if e.rules, err = e.recompile(compiled); err != nil {
		return nil, errs, err
	}
	if e.thresholds, err = e.numberRules(); err != nil {
		return nil, errs, err
	}
	e.fw = e.buildFirewall()
	e.noteRawStream()
	if e.pf, err = e.buildPrefilter(); err != nil {
		return nil, errs, err
	}
	e.finishFirewall()
	if e.tx, err = e.buildTx(); err != nil {
		return nil, errs, err
	}
	return e, errs, nil
}

// compileAll compiles every rule once; the rules that fail are reported in errs. It compiles
// in gid:sid order whatever the order of rs, so that its cost does not depend on the rule
// files' order; results and errors are taken in the order of rs.
func (e *Engine) compileAll(rs []*rules.Rule) (compiled []*Rule, errs []error) {
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
	for i, r := range rs {
		if firstErr[i] != nil {
			errs = append(errs, &BuildError{Rule: r, Err: firstErr[i]})
			continue
		}
		compiled = append(compiled, first[i]...)
	}
	return compiled, errs
}

// checkRates fails the rules whose rate settings Suricata refuses (threshold with
// detection_filter, bad backoff...), with a scratch set, before iids are given out.
func checkRates(compiled []*Rule, entries []rules.ThresholdEntry, errs []error) ([]*Rule, []error) {
	check := threshold.NewSet(threshold.Config{MaxEntries: 1}, entries)
	kept := compiled[:0]
	for i, c := range compiled {
		if terr := check.Add(uint32(i), c.Src); terr != nil {
			errs = append(errs, &BuildError{Rule: c.Src, Err: terr})
			continue
		}
		kept = append(kept, c)
	}
	return kept, errs
}

// recompile compiles the ordered rules once more, in iid order, with fresh variable
// numbering: what one packet's inspection walks (rules, matchers, programs, address sets) is
// then laid out in memory in the order it is walked, and nothing depends on the order of the
// rule files (a shuffled file made inspection 20% slower through scattered memory alone,
// bench/ordering.sh).
func (e *Engine) recompile(ordered []*Rule) ([]*Rule, error) {
	e.names = match.NewNames()
	again := make(map[*rules.Rule][]*Rule, len(ordered))
	out := make([]*Rule, len(ordered))
	for i, c := range ordered {
		variants, ok := again[c.Src]
		if !ok {
			var err error
			variants, err = e.compile(c.Src)
			if err != nil {
				return nil, fmt.Errorf("detect: recompiling sid %d: %w", c.Src.SID, err)
			}
		}
		out[i], again[c.Src] = variants[0], variants[1:]
	}
	return out, nil
}

// numberRules gives the rules their iids (and log ids) in order and registers their rate
// settings, counted in the State's tables.
func (e *Engine) numberRules() (*threshold.Set, error) {
	ts := threshold.NewSet(threshold.Config{Tables: e.state.thresholds}, e.cfg.Thresholds)
	for i, r := range e.rules {
		r.IID, r.logID = uint32(i), uint32(i)
		if err := ts.Add(r.IID, r.Src); err != nil {
			return nil, fmt.Errorf("detect: thresholds: %w", err)
		}
	}
	return ts, nil
}

// Rules returns the compiled rules in iid order.
func (e *Engine) Rules() []*Rule { return e.rules }

// Rule returns the rule with internal id iid.
func (e *Engine) Rule(iid uint32) *Rule { return e.rules[iid] }

// Len is the number of compiled rules.
func (e *Engine) Len() int { return len(e.rules) }

// PolicyRules returns the synthetic rules of the firewall's packet policies that alert
// (Suricata's AddPktPolicySignature), by table; nil where a policy does not alert.
//
// After them come the app policies' rules (one per protocol, direction and state whose
// policy alerts); a rule's place in the slice is its LogID minus Len().
func (e *Engine) PolicyRules() []*Rule { return e.fw.allPolicies }

// IsFirewall reports whether the engine runs in firewall mode.
func (e *Engine) IsFirewall() bool { return e.firewall }

// ForgetFlow drops the per-flow threshold state of a flow that ended (call it before the flow's
// memory is reused).
func (e *Engine) ForgetFlow(f *flow.Flow) {
	if e.thresholds != nil {
		e.thresholds.ForgetFlow(f)
	}
}

// Close releases the Hyperscan database.
func (e *Engine) Close() {
	for _, db := range e.pf.sgh.dbs {
		db.Close()
	}
	e.tx.close()
}
