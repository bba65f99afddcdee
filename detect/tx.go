package detect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/detect/payload"
	"github.com/meerkat-ids/meerkat/detect/transform"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
	"github.com/meerkat-ids/meerkat/rules"
)

// txProgram is the engine's part for app-layer transactions (Suricata's DetectRunTx and the
// inspect engines of src/detect-engine.c): for every rule that inspects app-layer buffers,
// its inspect engines per protocol, and per protocol and direction the rules that are
// candidates for every transaction (no fast pattern in a transaction buffer) and the
// per-buffer Hyperscan databases of the others' fast patterns. The Engine composes it; it is
// immutable once built.
type txProgram struct {
	// protos holds the per-protocol tables, nil for a protocol no tx rule applies to.
	protos [applayer.ProtoHTTP]*txProto
	// lists are the inspection lists: one per (buffer, transform chain) the rules use, so
	// a transaction's buffer is fetched (and transformed) once per packet whatever the number
	// of rules that read it.
	lists []txList
	// dbs are the databases to close and to size the scratch for.
	dbs []*hs.Database
	// maxHits is the most pattern ids of one database.
	maxHits int
	// groups are the tx rules' signature groups (per-group databases).
	groups txGroups
	// n counts the tx rules, streamMPM those the packet prefilter finds.
	n, streamMPM int
}

// txProto is one protocol's tables.
type txProto struct {
	// always lists per direction, in iid order, the rules without a fast pattern in a
	// transaction buffer: candidates for every transaction of the protocol.
	always [2][]uint32
	// mpm lists per direction the inspection lists with a database, by progress
	// (DetectRunPrefilterTx walks the tx engines by progress).
	mpm [2][]int32
	// inspected are per direction the protocol's buffers that rules inspect and that have an
	// Inspected callback, which detection calls once a packet is done with a transaction.
	inspected [2][]*applayer.Buffer
	// fw are per direction the firewall app rules' candidate lists by progress (Suricata's
	// non-prefilter tx engines, SetupNonPrefilter): a list is added while the tx is at its
	// progress, and once more when the tx first passes it.
	fw [2][]fwEngine
	// nonPF are per direction the progress values (a bit each) that have a non-prefilter
	// engine: a tx passing one moves its detect progress on (DetectRunPrefilterTx).
	nonPF [2]uint64
}

// fwEngine is one non-prefilter candidate list of firewall app rules.
type fwEngine struct {
	progress uint8
	iids     []uint32
}

// txList is one inspection list: a registered buffer with a transform chain, and per
// direction the database of the fast patterns that sit in it.
type txList struct {
	id  applayer.BufferID
	buf *applayer.Buffer
	// chain is the list's transform chain (nil without transforms), key its key.
	chain *transform.Chain
	key   string
	// grp are per direction and tx group the list's databases (txGroups); pats and patRule
	// collect the fast patterns and their rules while building.
	grp     [2][]txMPM
	pats    [2][]hs.Pattern
	patRule [2][]uint32
}

// txRule is the transaction part of one compiled rule.
type txRule struct {
	// alproto is the rule's protocol (ProtoUnknown for a rule that names none).
	alproto applayer.Proto
	// bothDir marks a transactional (=>) rule (SIG_FLAG_TXBOTHDIR): a to-server packet runs
	// its request engines and stores their result for both directions, a to-client packet
	// runs whatever is left and completes it.
	bothDir bool
	// dirs are the directions in which the rule is inspected.
	dirs [2]bool
	// hasMPM says the rule becomes a candidate through a list's database, streamMPM through
	// the packet's (its fast pattern is payload content: the packet walk hands it over).
	hasMPM, streamMPM bool
	// protos are the engines per protocol the rule applies to.
	protos []txRuleProto
	// hook is the rule's app-layer hook (proto:state in the header), hook.ok false for none.
	hook appHook
}

// txRuleProto is a rule's inspect engines for one protocol: the fast-pattern engine first,
// then by progress (DetectEngineAppInspectionEngine order).
type txRuleProto struct {
	proto   applayer.Proto
	engines []txEngine
}

// maxTxEngines bounds a rule's engines: each has a bit in the stored state's flags.
const maxTxEngines = 30

// The kinds of inspect engine.
const (
	engBuffer  uint8 = iota // a buffer's payload program
	engEvent                // app-layer-event
	engStream               // the rule's payload content on the packet's stream data (§2.5)
	engHook                 // an app-layer hook's pass-through engine (no callback: a straight match)
	engKeyword              // a match keyword's engine (applayer.Keyword, applayer.Value, app-layer-state)
)

// txEngine is one inspect engine: a buffer engine running a payload program on its list's
// buffer, an app-layer-event engine, or the stream engine of a rule that also has payload
// content (AppendStreamInspectEngine).
type txEngine struct {
	kind     uint8
	list     int32
	dir      flow.Direction
	progress uint8
	multi    bool
	mpm      bool
	prog     *payload.Program
	// chain is the buffer's transform chain (nil for none); buildTx folds it into the list.
	chain *transform.Chain
	// events are the app-layer-event engine's event ids (all must be set); complete is the
	// direction's completion progress (can't match once reached).
	events   []uint8
	complete uint8
	// kw is a keyword engine's compiled match.
	kw applayer.TxMatch
}

// eventBuffer is the list app-layer-event's protocol form lives in (rules.addAppMatch).
const eventBuffer = "app-layer-event"

// isTxBuffer reports whether a rule buffer is an app-layer one (not the packet payload,
// tcp.hdr or the base64_data list, which the buffer holding the base64_decode inspects).
func isTxBuffer(name string) bool {
	return name != "pkt_data" && name != "tcp.hdr" && name != "base64_data" && !isFrameBuffer(name)
}

// txRuleProtos returns the protocols with a registered parser a rule with app protocol
// alproto (ProtoUnknown: none named) may apply to.
func txRuleProtos(alproto applayer.Proto) []applayer.Proto {
	var out []applayer.Proto
	for p := applayer.ProtoFailed + 1; p < applayer.ProtoHTTP; p++ {
		if applayer.ParserOf(p) == nil {
			continue
		}
		if alproto == applayer.ProtoUnknown || applayer.Equals(alproto, p) {
			out = append(out, p)
		}
	}
	return out
}

// ruleAppProto resolves rules.Rule.AppProto; ok is false for a protocol Suricata does not
// know.
func ruleAppProto(r *rules.Rule) (applayer.Proto, bool) {
	if r.AppProto == "" {
		return applayer.ProtoUnknown, true
	}
	p, ok := applayer.ProtoByName(r.AppProto)
	return p, ok && p != applayer.ProtoUnknown
}

// txBufferKnown reports whether the engine can inspect rule buffer b of r: an
// app-layer-event list whose events the protocol has, or a buffer registered for a protocol
// the rule can apply to.
func txBufferKnown(r *rules.Rule, b *rules.Buffer) bool {
	alp, ok := ruleAppProto(r)
	if !ok {
		return false
	}
	for _, p := range txRuleProtos(alp) {
		if b.Name == eventBuffer {
			if _, err := txEvents(b, p); err == nil {
				return true
			}
			continue
		}
		if bufferFor(b.Name, p) != nil || isKeywordList(b.Name, p) {
			return true
		}
	}
	return false
}

// bufferFor returns the registered buffer name of protocol p, nil for none.
func bufferFor(name string, p applayer.Proto) *applayer.Buffer {
	for _, id := range applayer.BuffersNamed(name) {
		if b := applayer.BufferOf(id); b.Proto == p {
			return b
		}
	}
	return nil
}

// txEvents resolves an app-layer-event list's events for protocol p.
func txEvents(b *rules.Buffer, p applayer.Proto) ([]uint8, error) {
	var out []uint8
	for _, o := range b.Matches {
		proto, name, ok := strings.Cut(o.Value, ".")
		if !ok {
			return nil, fmt.Errorf("app-layer-event %s has no protocol", o.Value)
		}
		ep, known := applayer.ProtoByName(proto)
		if !known || !applayer.Equals(ep, p) {
			return nil, fmt.Errorf("app-layer-event %s is not for %s", o.Value, p)
		}
		id, found := applayer.EventByName(p, name)
		if !found {
			return nil, fmt.Errorf("app-layer-event %s: %s has no such event", o.Value, p)
		}
		out = append(out, id)
	}
	return out, nil
}

// compileTx builds the transaction part of rule r, nil for a rule without app-layer
// buffers. A buffer no protocol of the rule has is an error (missing refuses those first).
func compileTx(r *rules.Rule, names *match.Names) (*txRule, error) {
	var bufs []*rules.Buffer
	for _, b := range r.Buffers {
		if isTxBuffer(b.Name) && len(b.Matches) > 0 {
			bufs = append(bufs, b)
		}
	}
	hook, isHook := hookOf(r)
	if r.Header.Protocol.AppHook && !isHook {
		return nil, Missing{"app-layer hook", r.Header.Protocol.String()}
	}
	if len(bufs) == 0 && !isHook {
		return nil, nil
	}
	alp, ok := ruleAppProto(r)
	if !ok {
		return nil, Missing{"app-layer protocol", r.AppProto}
	}
	// keywordList says a list holds match keywords (no payload program).
	keywordList := func(name string) bool {
		for _, p := range txRuleProtos(alp) {
			if isKeywordList(name, p) {
				return true
			}
		}
		return name == appStateList
	}
	t := &txRule{alproto: alp, bothDir: r.Header.Direction == rules.DirTransactional, hook: hook}
	progs := make([]*payload.Program, len(bufs))
	chains := make([]*transform.Chain, len(bufs))
	for i, b := range bufs {
		if b.Name == eventBuffer || keywordList(b.Name) {
			continue
		}
		if len(b.Transforms) > 0 {
			c, err := transform.Compile(b.Transforms)
			if err != nil {
				return nil, err
			}
			chains[i] = c
		}
		prog, err := payload.CompileRule(r, legacyContent(b))
		if err != nil {
			return nil, err
		}
		progs[i] = prog
	}
	fp, hasFP := r.FastPattern()
	var fpBuf *rules.Buffer
	var pkt *rules.Buffer // payload content: a stream engine
	for _, b := range r.Buffers {
		if b.Name == "pkt_data" && len(b.Matches) > 0 {
			pkt = b
		}
	}
	// Firewall rules are candidates through their hook's engines (SetupNonPrefilter), and
	// <hook rules never have a prefilter (SigSetupPrefilter).
	if hasFP && !fp.Content.Negated && len(fp.Pattern()) > 0 && !t.bothDir && !r.Firewall && !hook.lte {
		t.streamMPM = fp.Buffer == "pkt_data"
		for _, b := range bufs {
			for _, m := range b.Matches {
				if m.Arg == fp.Content {
					fpBuf = b
				}
			}
		}
	}
	ruleDirs := [2]bool{r.ToServer, r.ToClient}
	var firstErr error
	headerHook, hasHeaderHook := hook, isHook
	for _, p := range txRuleProtos(alp) {
		hook, isHook := headerHook, hasHeaderHook
		if !isHook {
			// app-layer-state:name sets the rule's hook (DetectAppLayerStateSetup).
			hook, isHook = appStateHook(r, p)
		}
		if isHook && p != hook.proto {
			continue // hook rules are exact about their protocol (AppendAppInspectEngine)
		}
		var engines []txEngine
		ok := true
		matchEngines := 0 // buffer and keyword engines (a hook rule without any gets a stub)
		if isHook && hook.lte {
			// DetectEngineAppInspectionEngine2Signature: a pass-through engine per state
			// before the hook.
			for st := uint8(0); st < hook.progress; st++ {
				engines = append(engines, txEngine{kind: engHook, list: -1, dir: hook.dir, progress: st})
			}
		}
		for i, b := range bufs {
			if b.Name == eventBuffer {
				evs, err := txEvents(b, p)
				if err != nil {
					firstErr, ok = cmpErr(firstErr, err), false
					break
				}
				parser := applayer.ParserOf(p)
				// DetectAppLayerEventSetup: an engine in both directions at progress 0,
				// following the rule's direction.
				for d := range 2 {
					if ruleDirs[d] {
						engines = append(engines, txEngine{kind: engEvent, list: -1, dir: flow.Direction(d), events: evs, complete: parser.Complete[d]})
					}
				}
				continue
			}
			if isKeywordList(b.Name, p) {
				dirs := ruleDirs
				if t.bothDir {
					dirs = [2]bool{true, true}
				}
				kes, err := keywordEngines(b, p, dirs)
				if err != nil {
					firstErr, ok = cmpErr(firstErr, err), false
					break
				}
				engines = append(engines, kes...)
				matchEngines += len(kes)
				continue
			}
			ab := bufferFor(b.Name, p)
			if ab == nil {
				firstErr, ok = cmpErr(firstErr, Missing{"keyword", b.Name}), false
				break
			}
			if ab.Use != nil {
				if err := ab.Use(); err != nil {
					return nil, err
				}
			}
			// SigConsolidateDirection: a buffer of both directions follows the rule's
			// direction; a transactional rule's buffers are each of one direction.
			added := false
			for d := range 2 {
				if !ab.Dirs[d] || !t.bothDir && !ruleDirs[d] {
					continue
				}
				engines = append(engines, txEngine{list: -2 - int32(i), dir: flow.Direction(d),
					progress: ab.Progress[d], multi: ab.Multi, prog: progs[i], chain: chains[i], mpm: b == fpBuf})
				added = true
				matchEngines++
			}
			if !added {
				firstErr, ok = cmpErr(firstErr, fmt.Errorf("buffer %s has no engine in the rule's direction", b.Name)), false
				break
			}
			if isHook && ab.Dirs[hook.dir] && ab.Progress[hook.dir] != hook.progress {
				// SigValidateCheckBuffers: a hook rule's buffers must be inspected at the hook.
				return nil, fmt.Errorf("engine progress value %d doesn't match hook %d", ab.Progress[hook.dir], hook.progress)
			}
		}
		if ok && isHook {
			kes, err := txXbitEngines(r, hook, p, names)
			if err != nil {
				return nil, err
			}
			engines = append(engines, kes...)
			matchEngines += len(kes)
		}
		if ok && isHook && matchEngines == 0 {
			// A hook without buffers gets a stub engine at the hook (a straight match).
			engines = append(engines, txEngine{kind: engHook, list: -1, dir: hook.dir, progress: hook.progress})
		}
		if !ok {
			continue
		}
		if pkt != nil {
			// AppendStreamInspectEngine: progress 0, the rule's directions; the fast-pattern
			// engine when the fast pattern is payload content.
			for d := range 2 {
				if ruleDirs[d] {
					engines = append(engines, txEngine{kind: engStream, list: -1, dir: flow.Direction(d), mpm: t.streamMPM})
				}
			}
		}
		if len(engines) > maxTxEngines {
			return nil, fmt.Errorf("rule has %d app-layer inspect engines, more than %d", len(engines), maxTxEngines)
		}
		// The fast-pattern engine first, then by progress; a transactional rule's request
		// engines before its response engines.
		slices.SortStableFunc(engines, func(a, b txEngine) int {
			if t.bothDir && a.dir != b.dir {
				return int(a.dir) - int(b.dir)
			}
			if a.mpm != b.mpm {
				if a.mpm {
					return -1
				}
				return 1
			}
			return int(a.progress) - int(b.progress)
		})
		t.protos = append(t.protos, txRuleProto{proto: p, engines: engines})
		for _, en := range engines {
			t.dirs[en.dir] = true
		}
	}
	if len(t.protos) == 0 {
		if firstErr == nil {
			firstErr = Missing{"app-layer protocol", r.AppProto}
		}
		return nil, firstErr
	}
	t.hasMPM = fpBuf != nil
	return t, nil
}

// txXbitEngines are the engines of r's xbits isset checks with track tx: DetectXbitSetup
// appends each to the list of the rule's hook, so it is inspected at the hook's progress in
// the hook's direction, matching while the transaction has the bit (DetectXbitTxMatch,
// TxBitIsset).
func txXbitEngines(r *rules.Rule, hook appHook, p applayer.Proto, names *match.Names) ([]txEngine, error) {
	var out []txEngine
	for _, o := range r.Matches {
		if !match.IsTxXbit(o) {
			continue
		}
		id, err := names.TxbitID(o.Arg.(*rules.Xbit).Name)
		if err != nil {
			return nil, err
		}
		var complete uint8
		if parser := applayer.ParserOf(p); parser != nil {
			complete = parser.Complete[hook.dir]
		}
		out = append(out, txEngine{kind: engKeyword, list: -1, dir: hook.dir, progress: hook.progress, complete: complete,
			kw: func(tx applayer.Tx, _ applayer.Dir, _ *applayer.GetCtx) bool { return tx.TxData().Bits.Has(id) }})
	}
	return out, nil
}

// legacyContent returns b with its uricontent options as the contents they are
// (`uricontent:"x"` is `content:"x"; http_uri;`, §5.9), a copy only when it has any.
func legacyContent(b *rules.Buffer) *rules.Buffer {
	if !slices.ContainsFunc(b.Matches, func(o *rules.Option) bool { return o.Name == "uricontent" }) {
		return b
	}
	c := *b
	c.Matches = make([]*rules.Option, len(b.Matches))
	for i, o := range b.Matches {
		if o.Name == "uricontent" {
			oc := *o
			oc.Name = "content"
			o = &oc
		}
		c.Matches[i] = o
	}
	return &c
}

func cmpErr(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

// engines returns the rule's engines for flow protocol p, nil when it does not apply.
func (t *txRule) engines(p applayer.Proto) []txEngine {
	for i := range t.protos {
		if t.protos[i].proto == p {
			return t.protos[i].engines
		}
	}
	return nil
}

// buildTx builds the transaction program over the rules in iid order: it gives every buffer
// engine its inspection list, puts the rules with a fast pattern in a transaction buffer into
// that list's database per direction, and the others in the per-protocol lists of rules that
// are candidates for every transaction (Suricata's PrefilterTx per buffer, and the non-MPM
// rules of a rule group).
func (e *Engine) buildTx() (txProgram, error) {
	var tp txProgram
	type listKey struct {
		id  applayer.BufferID
		key string
	}
	listOf := map[listKey]int32{}
	var mpmRules [2][]uint32 // per direction the rules with a tx-buffer fast pattern, iid order
	for _, r := range e.rules {
		t := r.tx
		if t == nil {
			continue
		}
		tp.n++
		if t.streamMPM && !e.cfg.NoTxPrefilter {
			tp.streamMPM++
		}
		bufs := txBuffersOf(r.Src)
		for pi := range t.protos {
			rp := &t.protos[pi]
			tabs := tp.protos[rp.proto]
			if tabs == nil {
				tabs = &txProto{}
				tp.protos[rp.proto] = tabs
			}
			inMPM := [2]bool{}
			for k := range rp.engines {
				en := &rp.engines[k]
				if en.kind == engStream && en.mpm {
					if e.cfg.NoTxPrefilter {
						en.mpm = false
					} else {
						inMPM[en.dir] = true
					}
				}
				if en.kind != engBuffer {
					continue
				}
				ab := bufferFor(bufs[-2-en.list].Name, rp.proto)
				lk := listKey{id: bufferID(ab)}
				if en.chain != nil {
					lk.key = en.chain.Key()
				}
				li, ok := listOf[lk]
				if !ok {
					li = int32(len(tp.lists))
					listOf[lk] = li
					tp.lists = append(tp.lists, txList{id: lk.id, buf: ab, chain: en.chain, key: lk.key})
				}
				en.list = li
				if en.mpm && e.cfg.NoTxPrefilter {
					en.mpm = false
				}
				if en.mpm {
					fp, _ := r.Src.FastPattern()
					l := &tp.lists[li]
					l.pats[en.dir] = append(l.pats[en.dir], hs.Pattern{Bytes: fp.Pattern(), Nocase: fp.Content.Nocase})
					l.patRule[en.dir] = append(l.patRule[en.dir], r.IID)
					// Rules come in iid order: r is in mpmRules only as its last.
					if m := mpmRules[en.dir]; !inMPM[en.dir] && (len(m) == 0 || m[len(m)-1] != r.IID) {
						mpmRules[en.dir] = append(mpmRules[en.dir], r.IID)
					}
					inMPM[en.dir] = true
				}
			}
			if r.fw {
				addFWEngines(tabs, r, rp.engines)
				continue
			}
			for d := range 2 {
				if t.dirs[d] && !inMPM[d] {
					tabs.always[d] = append(tabs.always[d], r.IID)
					for _, en := range rp.engines {
						if en.dir == flow.Direction(d) && (en.kind == engBuffer || en.kind == engHook || en.kind == engKeyword) && en.progress < 64 {
							tabs.nonPF[d] |= 1 << en.progress
						}
					}
				}
			}
		}
	}
	// Per list, direction and signature group one database.
	tp.groups = e.buildTxGroups(mpmRules)
	if err := e.compileTxGroups(&tp); err != nil {
		return txProgram{}, err
	}
	for p, tabs := range tp.protos {
		if tabs == nil {
			continue
		}
		for d := range 2 {
			for li := range tp.lists {
				if l := &tp.lists[li]; l.buf.Proto == applayer.Proto(p) && l.grp[d] != nil {
					tabs.mpm[d] = append(tabs.mpm[d], int32(li))
				}
			}
			slices.SortStableFunc(tabs.mpm[d], func(a, b int32) int {
				return int(tp.lists[a].buf.Progress[d]) - int(tp.lists[b].buf.Progress[d])
			})
		}
		// Buffer.Inspected: the lists' buffers that track what detection has seen.
		for li := range tp.lists {
			l := &tp.lists[li]
			if l.buf.Proto != applayer.Proto(p) || l.buf.Inspected == nil {
				continue
			}
			for d := range 2 {
				if l.buf.Dirs[d] && !slices.Contains(tabs.inspected[d], l.buf) {
					tabs.inspected[d] = append(tabs.inspected[d], l.buf)
				}
			}
		}
	}
	return tp, nil
}

// bufferID returns the id of a registered buffer.
func bufferID(b *applayer.Buffer) applayer.BufferID {
	for _, id := range applayer.BuffersNamed(b.Name) {
		if applayer.BufferOf(id) == b {
			return id
		}
	}
	panic("detect: buffer " + b.Name + " not registered")
}

// txBuffersOf returns the rule's app-layer buffers with matches, in the order compileTx
// numbers them.
func txBuffersOf(r *rules.Rule) []*rules.Buffer {
	var bufs []*rules.Buffer
	for _, b := range r.Buffers {
		if isTxBuffer(b.Name) && len(b.Matches) > 0 {
			bufs = append(bufs, b)
		}
	}
	return bufs
}

// close releases the databases.
func (tp *txProgram) close() {
	for _, db := range tp.dbs {
		db.Close()
	}
}
