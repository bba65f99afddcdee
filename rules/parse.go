package rules

import (
	"slices"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// SuricataVersion is the Suricata version Meerkat's rule language follows; requires keywords
// are checked against it.
const SuricataVersion = "8.0.6"

// DefaultFeatures are the features a requires keyword may ask for that Meerkat provides.
var DefaultFeatures = map[string]bool{"ja3": true, "ja4": true}

// ParseOptions configure rule parsing. The zero value parses threat-detection rules with
// Suricata's stock variables and app-layer protocol set.
type ParseOptions struct {
	// Vars holds the address and port variables; nil means Suricata's stock groups.
	Vars *config.Vars
	// DisabledAppProtos are app-layer protocols whose detection is disabled (rules naming
	// them fail); nil means DefaultDisabledAppProtos.
	DisabledAppProtos map[string]bool
	// Firewall parses the rules as firewall rules (accept actions, mandatory scopes and hooks).
	Firewall bool
	// Version is the version requires keywords are checked against; "" means
	// SuricataVersion.
	Version string
	// Features are the features requires keywords may ask for; nil means DefaultFeatures.
	Features map[string]bool

	cache *parseCache // set by a Loader: parsed header fields are shared between rules
}

// parseCache remembers parsed address and port fields, as Suricata's address and port maps
// do. The values are shared by the rules that use the same text and must not be modified.
type parseCache struct {
	addrs map[string]*Address
	ports map[string]*Port
}

var defaultVars = &config.Vars{AddressGroups: config.DefaultAddressGroups, PortGroups: config.DefaultPortGroups}

func (o *ParseOptions) vars() *config.Vars {
	if o == nil || o.Vars == nil {
		return defaultVars
	}
	return o.Vars
}

func (o *ParseOptions) disabled() map[string]bool {
	if o == nil || o.DisabledAppProtos == nil {
		return DefaultDisabledAppProtos
	}
	return o.DisabledAppProtos
}

// Parse parses one rule with default options. Errors are *Error values.
func Parse(text string) (*Rule, error) { return ParseWith(text, nil) }

// ParseWith parses one rule. Errors are *Error values (Kind KindSkipped when a requires
// keyword is not met). It never panics.
func ParseWith(text string, opts *ParseOptions) (r *Rule, err error) {
	if opts == nil {
		opts = &ParseOptions{}
	}
	r = &Rule{Raw: text, GID: 1, Firewall: opts.Firewall}
	defer func() {
		if err != nil {
			r = nil
		}
	}()
	wrap := func(e error) error {
		out := &Error{SID: r.SID, GID: r.GID, Msg: e.Error()}
		if ke, ok := e.(*kwError); ok {
			out.Keyword, out.Msg, out.Kind = ke.keyword, ke.msg, ke.kind
		}
		return out
	}
	if len(text) >= MaxRuleSize {
		return nil, wrap(errf("rule is longer than %d bytes", MaxRuleSize-1))
	}
	if e := checkRuleText(text); e != nil {
		return nil, wrap(e)
	}
	fields, e := splitHeader(text)
	if e != nil {
		return nil, wrap(e)
	}
	raws, e := splitOptions(fields.opts)
	if e != nil {
		return nil, wrap(e)
	}
	p := &ruleParser{r: r, opts: opts, slab: make([]Option, len(raws))}
	p.matchSeq = make([]*Option, 0, len(raws))
	r.Options = make([]*Option, 0, len(raws))

	// First pass: requires and sid only, as Suricata: an unmet requires skips the rule
	// whatever else it holds.
	pre := make([]*Option, len(raws))
	for i, ro := range raws {
		name := strings.ToLower(ro.name)
		if name != "requires" && name != "sid" {
			continue
		}
		o, e := p.option(ro)
		if e != nil {
			return nil, wrap(e)
		}
		pre[i] = o
	}
	if r.SID == 0 {
		return nil, wrap(errf("Signature missing required value \"sid\""))
	}

	// Second pass: the header, then every other option.
	if e := parseHeader(r, fields, headerOptions{vars: opts.vars(), disabled: opts.disabled(), firewall: opts.Firewall, cache: opts.cache}); e != nil {
		return nil, wrap(e)
	}
	p.start()
	for i, ro := range raws {
		if pre[i] != nil {
			r.Options = append(r.Options, pre[i])
			continue
		}
		o, e := p.option(ro)
		if e != nil {
			return nil, wrap(e)
		}
		r.Options = append(r.Options, o)
	}
	if e := p.finish(); e != nil {
		return nil, wrap(e)
	}
	r.typ = r.computeType()
	return r, nil
}

// placement records the buffer a payload match was put in.
type placement struct {
	o *Option
	b *Buffer
}

// ruleParser holds the state of one rule's option parsing, mirroring Suricata's
// SignatureInitData.
type ruleParser struct {
	r    *Rule
	opts *ParseOptions

	list     string // active sticky list id ("" when none)
	listName string // its buffer name
	listSet  bool   // set by a sticky buffer keyword and not yet consumed by transforms
	curbuf   *Buffer
	payload  *Buffer
	base64   *Buffer
	pending  []*Option   // transforms waiting for the next match
	placed   []placement // which buffer each payload match is in
	matchSeq []*Option   // payload matches in order of creation
	lastSM   *Option     // the last match added to any list (Suricata's DetectGetLastSM)

	slab        []Option // the rule's options, allocated at once
	lastContent *Option
	byteVars    map[string]bool
	alprotos    []string // several possible app protocols, not yet narrowed to one

	// current option
	raw      string // argument after negation, quotes kept
	quoted   bool
	forceDir string // "to_server"/"to_client" prefix of a SUPPORT_DIR keyword

	toServer, toClient bool // the rule's direction flags (SIG_FLAG_TOSERVER/TOCLIENT)
	txBoth             bool
	flowSeen           bool
	msgSeen            bool
	fastPatternSeen    bool
	onlyStream         bool
	noStream           bool
	inspectsFiles      bool
	needsFilename      bool
}

// start initializes the state from the header.
func (p *ruleParser) start() {
	r := p.r
	h := &r.Header
	if h.Protocol.AppProto != "" {
		r.AppProto = h.Protocol.AppProto
		r.appLayerFlag = true
	}
	if h.Protocol.HookToServer {
		p.toServer = true
	}
	if h.Protocol.HookToClient {
		p.toClient = true
	}
	if h.Direction == DirTransactional {
		p.txBoth = true
	}
	r.RequirePacket = h.Protocol.OnlyPacket
	r.RequireStream = h.Protocol.OnlyStream
}

// option parses one option: keyword lookup, argument checks, quotes and negation, then the
// keyword's own parser.
func (p *ruleParser) option(ro rawOption) (*Option, error) {
	kw := Lookup(ro.name)
	if kw == nil {
		return nil, kwErrf(ro.name, "unknown rule keyword '%s'", ro.name)
	}
	var o *Option
	if len(p.slab) > 0 {
		o = &p.slab[0]
		p.slab = p.slab[1:]
		o.Name = kw.Name
	} else {
		o = &Option{Name: kw.Name}
	}
	val := ro.value
	if kw.Flags&(KwNoOpt|KwOptionalOpt) == 0 && val == "" {
		return nil, kwErrf(kw.Name, "invalid formatting or malformed option to %s keyword: '%s'", ro.name, ro.name)
	}
	if kw.Flags&KwNoOpt != 0 && val != "" {
		return nil, kwErrf(kw.Name, "unexpected option to %s keyword: '%s'", ro.name, val)
	}
	p.raw, p.quoted, p.forceDir = "", false, ""
	arg := ""
	if val != "" {
		ptr := strings.TrimLeft(val, " \t")
		if ptr == "" {
			return nil, kwErrf(kw.Name, "invalid formatting or malformed option to %s keyword: '%s'", ro.name, val)
		}
		if kw.Flags&KwNegation != 0 && ptr[0] == '!' {
			o.Negated = true
			ptr = strings.TrimLeft(ptr[1:], " \t")
			if ptr == "" {
				return nil, kwErrf(kw.Name, "invalid formatting or malformed option to %s keyword: '%s'", ro.name, val)
			}
		}
		p.raw = ptr
		if kw.Flags&KwQuotesMandatory != 0 && ptr[0] != '"' {
			return nil, kwErrf(kw.Name, "invalid formatting to %s keyword: value must be double quoted '%s'", ro.name, val)
		}
		if kw.Flags&(KwQuotesOptional|KwQuotesMandatory) != 0 && ptr[0] == '"' {
			if ptr[len(ptr)-1] != '"' {
				return nil, kwErrf(kw.Name, "bad option value formatting (possible missing semicolon) for keyword %s: '%s'", ro.name, val)
			}
			if len(ptr) > 1 {
				ptr = ptr[1 : len(ptr)-1]
			}
			if ptr == "" {
				return nil, kwErrf(kw.Name, "bad input for keyword %s: '%s'", ro.name, val)
			}
			p.quoted = true
		} else if ptr[0] == '"' {
			return nil, kwErrf(kw.Name, "quotes on %s keyword that doesn't support them: '%s'", ro.name, val)
		}
		if kw.Flags&KwSupportDir != 0 {
			var err error
			if ptr, err = p.setupDirection(ptr, kw.Flags&KwOptionalOpt != 0); err != nil {
				return nil, kwErrf(kw.Name, "%s", err.Error())
			}
		}
		arg = ptr
	}
	if err := kw.setup(p, o, arg); err != nil {
		if ke, ok := err.(*kwError); ok {
			if ke.keyword == "" {
				ke.keyword = kw.Name
			}
			return nil, ke
		}
		return nil, kwErrf(kw.Name, "%s", err.Error())
	}
	if o.Value == "" && arg != "" {
		o.Value = p.raw
	}
	p.forceDir = ""
	return o, nil
}

// setupDirection handles the to_server/to_client prefix of SUPPORT_DIR keywords
// (DetectSetupDirection).
func (p *ruleParser) setupDirection(s string, onlyDir bool) (string, error) {
	for _, d := range []string{"to_client", "to_server"} {
		if !strings.HasPrefix(s, d) {
			continue
		}
		rest := strings.TrimLeft(s[len(d):], " \t")
		if rest != "" {
			if onlyDir {
				return "", errf("unknown option: only accepts to_server or to_client")
			}
			if rest[0] != ',' {
				return s, nil // a longer word: not a direction
			}
			rest = strings.TrimLeft(rest[1:], " \t")
		}
		p.forceDir = d
		if !p.txBoth {
			if d == "to_client" {
				if p.toServer && !p.toClient {
					return "", errf("contradictory directions")
				}
				p.toClient = true
			} else {
				if p.toClient && !p.toServer {
					return "", errf("contradictory directions")
				}
				p.toServer = true
			}
		}
		return rest, nil
	}
	if onlyDir {
		return "", errf("unknown option: only accepts to_server or to_client")
	}
	return s, nil
}

// setAppProto binds the rule to an app-layer protocol (SCDetectSignatureSetAppProto).
func (p *ruleParser) setAppProto(alp string) error {
	if len(p.alprotos) > 0 {
		if !slices.Contains(p.alprotos, alp) {
			return errf("rule can't be bound to %s: keywords restrict it to %s", alp, strings.Join(p.alprotos, ", "))
		}
		p.alprotos = nil
	}
	if cur := p.r.AppProto; cur != "" {
		c := appProtoCommon(cur, alp)
		if c == "" {
			return errf("can't set rule app proto to %s: already set to %s", alp, cur)
		}
		alp = c
	}
	if _, ok := lookupAppProto(alp, p.opts.disabled()); !ok {
		return errf("disabled alproto %s, rule can never match", alp)
	}
	p.r.AppProto = alp
	p.r.appLayerFlag = true
	return nil
}

// setMultiAppProto restricts the rule to one of several app-layer protocols
// (DetectSignatureSetMultiAppProto).
func (p *ruleParser) setMultiAppProto(alps []string) error {
	if len(alps) == 1 {
		return p.setAppProto(alps[0])
	}
	if cur := p.r.AppProto; cur != "" {
		if slices.Contains(alps, cur) {
			return nil
		}
		return errf("can't set rule app proto to one of %s: already set to %s", strings.Join(alps, ", "), cur)
	}
	if len(p.alprotos) > 0 {
		var keep []string
		for _, a := range p.alprotos {
			if slices.Contains(alps, a) {
				keep = append(keep, a)
			}
		}
		switch len(keep) {
		case 0:
			return errf("keywords require conflicting app-layer protocols")
		case 1:
			p.alprotos = nil
			return p.setAppProto(keep[0])
		}
		p.alprotos = keep
		return nil
	}
	p.alprotos = slices.Clone(alps)
	return nil
}

// finish validates the rule once every option is parsed (SigValidateConsolidate and what
// SigInitHelper does around it).
func (p *ruleParser) finish() error {
	r := p.r
	if p.curbuf != nil && len(p.curbuf.Matches) == 0 {
		return kwErrf(p.curbuf.Name, "rule %d setup buffer %s but didn't add matches to it", r.SID, p.curbuf.Name)
	}
	if len(p.pending) > 0 {
		return kwErrf(p.pending[0].Name, "transform %s is not followed by any match", p.pending[0].Name)
	}
	if p.opts.Firewall {
		if r.Header.Protocol.Hook == "" {
			return errf("rule %d is loaded as a firewall rule, but does not specify an explicit hook", r.SID)
		}
		if r.Header.Protocol.AppHook && r.Header.Scope == ScopePacket &&
			!slices.Contains(r.Header.Protocol.IPProtos, protoUDP) && r.Header.ActionFlags(true)&(FlagAccept|FlagDrop) != 0 {
			return errf("rule %d uses action scope \"packet\" for an non-UDP app hook", r.SID)
		}
		if r.Header.Protocol.HookLTE && !(r.Header.Action() == ActionAccept &&
			(r.Header.Scope == ScopeFlow || r.Header.Scope == ScopeTx || r.Header.Scope == ScopeHook)) {
			return errf("rule %d: auto-accept notation (<hook) can only be used with accept:flow, accept:tx and accept:hook", r.SID)
		}
	}
	if r.RequirePacket && r.RequireStream {
		return errf("can't mix packet keywords with tcp-stream or flow:only_stream.  Invalidating signature.")
	}
	// Buffers: each must have matches; packet keywords can't be mixed with app-layer buffers;
	// directions must agree.
	tsExcl, tcExcl, amb := 0, 0, 0
	for _, b := range r.Buffers {
		if !p.dynamic(b) {
			continue
		}
		if len(b.Matches) == 0 {
			return kwErrf(b.Name, "no matches in sticky buffer %s", b.Name)
		}
		info := bufferInfo(b.Name)
		if r.RequirePacket && !info.packet {
			return errf("Signature combines packet specific matches (like dsize, flags, ttl) with stream / state matching by matching on app layer proto (like using http_* keywords).")
		}
		dir := info.dir(r.AppProto)
		switch {
		case b.onlyTS:
			if dir&dirToServer != 0 {
				tsExcl++
			}
		case b.onlyTC:
			if dir&dirToClient != 0 {
				tcExcl++
			}
		case dir == dirToServer:
			tsExcl++
		case dir == dirToClient:
			tcExcl++
		case dir == dirBoth:
			amb++
		}
	}
	if err := p.validateBufferContents(); err != nil {
		return err
	}
	if err := p.checkBsize(); err != nil {
		return err
	}
	if err := p.checkDsize(); err != nil {
		return err
	}
	switch {
	case p.txBoth:
		if tsExcl == 0 || tcExcl == 0 {
			return errf("rule %d should use both directions, but does not", r.SID)
		}
		if amb > 0 {
			return errf("rule %d means to use both directions, cannot have keywords ambiguous about directions", r.SID)
		}
	case tsExcl > 0 && tcExcl > 0:
		return errf("rule %d mixes keywords with conflicting directions, a transactional rule with => should be used", r.SID)
	case tsExcl > 0:
		if p.toClient && !p.toServer {
			return errf("rule %d mixes keywords with conflicting directions", r.SID)
		}
		p.toServer, p.toClient = true, false
	case tcExcl > 0:
		if p.toServer && !p.toClient {
			return errf("rule %d mixes keywords with conflicting directions", r.SID)
		}
		p.toServer, p.toClient = false, true
	}
	// TCP rules with payload matches inspect the stream, and packets too when a content
	// uses depth/offset or stream_size is used (SigConsolidateTcpBuffer).
	if p.payload != nil && len(p.payload.Matches) > 0 && !r.RequirePacket && !r.RequireStream &&
		(r.Header.Protocol.IPProtos == nil || slices.Contains(r.Header.Protocol.IPProtos, protoTCP)) {
		r.RequireStream = true
		for _, m := range p.payload.Matches {
			if c, ok := m.Arg.(*Content); ok && (c.Depth.Set || c.Offset.Set) {
				r.RequirePacket = true
				break
			}
		}
		for _, m := range r.Matches {
			if m.Name == "stream_size" {
				r.RequirePacket = true
			}
		}
	}
	if err := p.checkFiles(); err != nil {
		return err
	}
	if !p.toServer && !p.toClient {
		p.toServer, p.toClient = true, true
	}
	r.ToServer, r.ToClient = p.toServer, p.toClient
	kept := r.Buffers[:0]
	for _, b := range r.Buffers {
		b.id, b.multi, b.smInit = "", false, false
		b.onlyTS, b.onlyTC = false, false
		if len(b.Matches) > 0 || len(b.Transforms) > 0 {
			kept = append(kept, b)
		}
	}
	r.Buffers = kept
	return nil
}

// checkFiles validates file keywords against the rule's protocol (SigValidateFileHandling).
func (p *ruleParser) checkFiles() error {
	r := p.r
	if !p.inspectsFiles || r.AppProto == "" {
		return nil
	}
	if !fileProtos[r.AppProto] {
		return errf("protocol %s doesn't support file matching", r.AppProto)
	}
	if r.AppProto == "http2" && p.needsFilename {
		return errf("protocol HTTP2 doesn't support file name matching")
	}
	return nil
}

// fileProtos are the app-layer protocols with file tracking.
var fileProtos = map[string]bool{"http": true, "http1": true, "http2": true, "smtp": true, "ftp-data": true, "smb": true, "nfs": true}
