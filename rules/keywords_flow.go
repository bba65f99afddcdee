package rules

import (
	"slices"
	"strconv"
	"strings"
)

// Flow is a flow keyword.
type Flow struct {
	ToServer, ToClient          bool
	Established, NotEstablished bool
	Stateless                   bool
	OnlyStream, NoStream        bool
	OnlyFrag, NoFrag            bool
}

// Flowbit is one flowbits command.
type Flowbit struct {
	// Cmd is set, unset, toggle, isset, isnotset or noalert.
	Cmd string
	// Names are the bit names ("a|b" gives two, an OR for isset/isnotset).
	Names []string
}

// IsCheck reports whether the command is a check (isset/isnotset), evaluated with the rule.
func (f *Flowbit) IsCheck() bool { return f.Cmd == "isset" || f.Cmd == "isnotset" }

// Flowint is a flowint keyword.
type Flowint struct {
	Name string
	// Op is one of + - = == != < <= > >= isset notset isnotset.
	Op string
	// Value is the number operand, or ValueVar another flowint.
	Value    uint32
	ValueVar string
}

// IsModifier reports whether the flowint command modifies the variable (+, -, =).
func (f *Flowint) IsModifier() bool { return f.Op == "+" || f.Op == "-" || f.Op == "=" }

// Xbit is an xbits (or hostbits) command.
type Xbit struct {
	// Cmd is set, unset, toggle, isset or isnotset.
	Cmd  string
	Name string
	// Track is ip_src, ip_dst, ip_pair or tx.
	Track string
	// Expire is the expiry in seconds, 0 when not given.
	Expire uint32
	// Hostbits is set when the keyword was hostbits.
	Hostbits bool
}

// IsCheck reports whether the command is a check.
func (x *Xbit) IsCheck() bool { return x.Cmd == "isset" || x.Cmd == "isnotset" }

// Threshold is a threshold or detection_filter keyword.
type Threshold struct {
	// Type is threshold, limit, both or backoff ("" for detection_filter).
	Type string
	// Track is by_src, by_dst, by_rule, by_both or by_flow.
	Track string
	// Count and Seconds (or Multiplier for backoff) are the limits.
	Count      uint32
	Seconds    uint32
	Multiplier uint32
}

func setupFlow(p *ruleParser, o *Option, arg string) error {
	if p.flowSeen {
		return errf("A signature may have only one flow option.")
	}
	parts := splitArgs(arg)
	if len(parts) > 3 {
		return errf("parse error, string %s", arg)
	}
	f := &Flow{}
	var words []string
	for _, w := range parts {
		if w == "" || strings.ContainsAny(w, " \t") {
			return errf("parse error, string %s", arg)
		}
		switch strings.ToLower(w) {
		case "established":
			switch {
			case f.Established:
				return errf("DETECT_FLOW_FLAG_ESTABLISHED flag is already set")
			case f.NotEstablished:
				return errf("cannot set DETECT_FLOW_FLAG_ESTABLISHED, DETECT_FLOW_FLAG_NOT_ESTABLISHED already set")
			case f.Stateless:
				return errf("DETECT_FLOW_FLAG_STATELESS already set")
			}
			f.Established = true
			words = append(words, "established")
		case "not_established":
			switch {
			case f.NotEstablished:
				return errf("DETECT_FLOW_FLAG_NOT_ESTABLISHED flag is already set")
			case f.Established:
				return errf("cannot set DETECT_FLOW_FLAG_NOT_ESTABLISHED, DETECT_FLOW_FLAG_ESTABLISHED already set")
			}
			f.NotEstablished = true
			words = append(words, "not_established")
		case "stateless":
			switch {
			case f.Stateless:
				return errf("DETECT_FLOW_FLAG_STATELESS flag is already set")
			case f.Established:
				return errf("cannot set DETECT_FLOW_FLAG_STATELESS, DETECT_FLOW_FLAG_ESTABLISHED already set")
			}
			f.Stateless = true
			words = append(words, "stateless")
		case "to_client", "from_server":
			switch {
			case f.ToClient:
				return errf("cannot set DETECT_FLOW_FLAG_TOCLIENT flag is already set")
			case f.ToServer:
				return errf("cannot set to_client, DETECT_FLOW_FLAG_TOSERVER already set")
			}
			f.ToClient = true
			words = append(words, "to_client")
		case "to_server", "from_client":
			switch {
			case f.ToServer:
				return errf("cannot set DETECT_FLOW_FLAG_TOSERVER flag is already set")
			case f.ToClient:
				return errf("cannot set to_server, DETECT_FLOW_FLAG_TO_CLIENT flag already set")
			}
			f.ToServer = true
			words = append(words, "to_server")
		case "no_frag":
			switch {
			case f.NoFrag:
				return errf("cannot set no_frag flag is already set")
			case f.OnlyFrag:
				return errf("cannot set no_frag flag, only_frag already set")
			}
			f.NoFrag = true
			words = append(words, "no_frag")
		case "only_frag":
			switch {
			case f.OnlyFrag:
				return errf("cannot set only_frag flag is already set")
			case f.NoFrag:
				return errf("cannot set only_frag flag, no_frag already set")
			}
			f.OnlyFrag = true
			words = append(words, "only_frag")
		case "only_stream":
			switch {
			case f.OnlyStream:
				return errf("cannot set only_stream flag is already set")
			case f.NoStream:
				return errf("cannot set only_stream flag, DETECT_FLOW_FLAG_NOSTREAM already set")
			}
			f.OnlyStream = true
			words = append(words, "only_stream")
		case "no_stream":
			switch {
			case f.NoStream:
				return errf("cannot set no_stream flag is already set")
			case f.OnlyStream:
				return errf("cannot set no_stream flag, DETECT_FLOW_FLAG_ONLYSTREAM already set")
			}
			f.NoStream = true
			words = append(words, "no_stream")
		default:
			return errf("invalid flow option \"%s\"", w)
		}
	}
	switch {
	case f.ToServer:
		if p.txBoth {
			return errf("rule %d means to use both directions, cannot specify a flow direction", p.r.SID)
		}
		if p.toClient && !p.toServer {
			return errf("rule %d has flow to_server but a hook to_client", p.r.SID)
		}
		p.toServer = true
	case f.ToClient:
		if p.txBoth {
			return errf("rule %d means to use both directions, cannot specify a flow direction", p.r.SID)
		}
		if p.toServer && !p.toClient {
			return errf("rule %d has flow to_client but a hook to_server", p.r.SID)
		}
		p.toClient = true
	default:
		if !p.toServer && !p.toClient {
			p.toServer, p.toClient = true, true
		}
	}
	if f.OnlyStream {
		p.r.RequireStream = true
	}
	if f.NoStream {
		p.r.RequirePacket = true
	}
	p.flowSeen = true
	p.r.Flow = f
	o.Arg = f
	o.Value = strings.Join(words, ",")
	if f.Established || f.NotEstablished || f.Stateless || f.OnlyFrag || f.NoFrag {
		p.addMatch(o)
	}
	return nil
}

func setupFlowbits(p *ruleParser, o *Option, arg string) error {
	i := 0
	for i < len(arg) && arg[i] >= 'a' && arg[i] <= 'z' {
		i++
	}
	cmd := arg[:i]
	if cmd == "" {
		return errf("\"%s\" is not a valid setting for flowbits.", arg)
	}
	name := ""
	if strings.HasPrefix(arg[i:], ",") {
		name = strings.TrimRight(strings.TrimLeft(arg[i+1:], " \t\n\r\v\f"), " \t")
	}
	if !strings.Contains(name, "|") && strings.ContainsAny(name, " \t") {
		return errf("spaces not allowed in flowbit names")
	}
	fb := &Flowbit{Cmd: cmd}
	switch cmd {
	case "noalert":
		if name != "" {
			return errf("flowbits:noalert takes no name")
		}
		p.r.NoAlert = true
		o.Value = "noalert"
		p.r.Flowbits = append(p.r.Flowbits, fb)
		o.Arg = fb
		return nil
	case "isset", "isnotset", "set", "unset", "toggle":
	default:
		return errf("ERROR: flowbits action \"%s\" is not supported.", cmd)
	}
	if name == "" {
		return errf("flowbits:%s needs a name", cmd)
	}
	if strings.Contains(name, "|") {
		for _, n := range strings.Split(name, "|") {
			n = strings.TrimSpace(n)
			if n == "" || strings.ContainsAny(n, " \t") {
				return errf("invalid flowbit name \"%s\" in \"%s\"", n, name)
			}
			fb.Names = append(fb.Names, n)
		}
	} else {
		fb.Names = []string{name}
	}
	o.Arg = fb
	o.Value = cmd + "," + strings.Join(fb.Names, "|")
	p.r.Flowbits = append(p.r.Flowbits, fb)
	if fb.IsCheck() {
		p.addMatch(o)
	} else {
		p.addPostMatch(o)
	}
	return nil
}

func isFlowintName(s string, minLen int, extra string) bool {
	if len(s) < minLen || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isAlpha(c) || c >= '0' && c <= '9' || c == '_' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

func setupFlowint(p *ruleParser, o *Option, arg string) error {
	bad := &kwError{msg: "\"" + arg + "\" is not a valid setting for flowint"}
	parts := splitArgs(arg)
	if len(parts) < 2 || len(parts) > 3 {
		return bad
	}
	fi := &Flowint{Name: parts[0], Op: parts[1]}
	if !isFlowintName(fi.Name, 2, "./") {
		return bad
	}
	switch fi.Op {
	case "+", "-", "=", "==", "!=", "<", "<=", ">", ">=":
		if len(parts) != 3 || parts[2] == "" {
			return errf("flowint: operator %s needs a value", fi.Op)
		}
	case "isset", "notset", "isnotset":
		if len(parts) == 3 && parts[2] != "" {
			return bad
		}
	default:
		return bad
	}
	if len(parts) == 3 && parts[2] != "" {
		v := parts[2]
		if isAlpha(v[0]) {
			if !isFlowintName(v, 2, "") {
				return bad
			}
			fi.ValueVar = v
		} else {
			n, err := parseUintStrict(v, 0xffffffff)
			if err != nil || len(v) > 10 {
				return bad
			}
			fi.Value = uint32(n)
		}
	}
	o.Arg = fi
	o.Value = strings.Join(parts, ",")
	p.r.Flowints = append(p.r.Flowints, fi)
	if fi.IsModifier() {
		p.addPostMatch(o)
	} else {
		p.addMatch(o)
	}
	return nil
}

func setupXbits(p *ruleParser, o *Option, arg string) error {
	x := &Xbit{}
	var order []string
	cmdSet, nameSet, trackSet, expireSet := false, false, false, false
	for _, tok := range strings.Split(arg, ",") {
		tok = strings.TrimLeft(tok, " \t")
		key, val, hasVal := strings.Cut(tok, " ")
		val = strings.TrimLeft(val, " \t")
		if key == "" {
			continue
		}
		switch {
		case key == "noalert" && !cmdSet:
			if hasVal && val != "" || strings.Count(arg, ",") > 0 {
				return errf("invalid xbits noalert")
			}
			p.r.NoAlert = true
			o.Value = "noalert"
			return nil
		case !cmdSet:
			if val != "" {
				return errf("invalid xbits command \"%s\"", tok)
			}
			switch key {
			case "set", "isset", "unset", "isnotset", "toggle":
			default:
				return errf("Invalid xbits cmd: %s", key)
			}
			x.Cmd, cmdSet = key, true
			order = append(order, key)
		case !nameSet:
			if val != "" {
				return errf("invalid xbits name \"%s\"", tok)
			}
			x.Name, nameSet = key, true
			order = append(order, key)
		case !trackSet || !expireSet:
			if !hasVal {
				return errf("invalid xbits option \"%s\"", tok)
			}
			switch key {
			case "track":
				if trackSet {
					return errf("xbits track set twice")
				}
				switch val {
				case "ip_src", "ip_dst", "ip_pair", "tx":
				default:
					return errf("Invalid xbits tracker: %s", val)
				}
				x.Track, trackSet = val, true
				order = append(order, "track "+val)
			case "expire":
				if expireSet {
					return errf("xbits expire set twice")
				}
				n, err := parseUintStrict(val, 0xffffffff)
				if err != nil || n == 0 {
					return errf("Invalid expire value: %s", val)
				}
				x.Expire, expireSet = uint32(n), true
				order = append(order, "expire "+val)
			}
		default:
			return errf("Invalid xbits keyword: %s", key)
		}
	}
	if !cmdSet || !nameSet || !trackSet {
		return errf("xbits needs a command, a name and a track")
	}
	if x.Track == "tx" && x.Cmd != "isset" && x.Cmd != "set" {
		return errf("tx xbits only support set and isset")
	}
	if x.Track == "tx" && x.Cmd == "isset" && !p.r.Header.Protocol.AppHook {
		// DetectXbitSetup: the check goes on the hook's list.
		return errf("tx xbits require an explicit rule hook")
	}
	o.Arg = x
	o.Value = strings.Join(order, ",")
	p.r.Xbits = append(p.r.Xbits, x)
	if x.IsCheck() {
		p.addMatch(o)
	} else {
		p.addPostMatch(o)
	}
	return nil
}

func setupHostbits(p *ruleParser, o *Option, arg string) error {
	parts := splitArgs(arg)
	cmd := parts[0]
	i := 0
	for i < len(cmd) && cmd[i] >= 'a' && cmd[i] <= 'z' {
		i++
	}
	if i == 0 || i != len(cmd) {
		return errf("\"%s\" is not a valid setting for hostbits.", arg)
	}
	x := &Xbit{Cmd: cmd, Hostbits: true, Track: "ip_src"}
	dir := ""
	if len(parts) > 1 {
		x.Name = parts[1]
	}
	if len(parts) > 2 {
		dir = parts[2]
		switch dir {
		case "src":
			x.Track = "ip_src"
		case "dst":
			x.Track = "ip_dst"
		case "both":
			return errf("'both' not implemented")
		default:
			return errf("invalid hostbits direction \"%s\"", dir)
		}
	}
	switch cmd {
	case "noalert":
		if x.Name != "" {
			return errf("hostbits:noalert takes no name")
		}
		p.r.NoAlert = true
		o.Value = "noalert"
		return nil
	case "isset", "isnotset", "set", "unset", "toggle":
	default:
		return errf("ERROR: hostbits action \"%s\" is not supported.", cmd)
	}
	if x.Name == "" || strings.ContainsAny(x.Name, " \t") {
		return errf("hostbits:%s needs a name", cmd)
	}
	o.Arg = x
	o.Value = strings.Join(parts, ",")
	p.r.Xbits = append(p.r.Xbits, x)
	if x.IsCheck() {
		p.addMatch(o)
	} else {
		p.addPostMatch(o)
	}
	return nil
}

// parseThresholdPairs parses "name value, name value, ..." with exactly n pairs.
func parseThresholdPairs(arg string, n int, names, values map[string]bool) ([][2]string, bool) {
	var out [][2]string
	for _, part := range strings.Split(arg, ",") {
		f := strings.Fields(part)
		if len(f) != 2 || !names[f[0]] {
			return nil, false
		}
		v := f[1]
		if !values[v] && strings.Trim(v, "0123456789") != "" {
			return nil, false
		}
		out = append(out, [2]string{f[0], v})
	}
	return out, len(out) == n
}

func setupThreshold(p *ruleParser, o *Option, arg string) error {
	if p.r.Threshold != nil || p.r.DetectionFilter != nil {
		if p.r.DetectionFilter != nil {
			return errf("\"detection_filter\" and \"threshold\" are not allowed in the same rule")
		}
		return errf("multiple \"threshold\" options are not allowed in the same rule")
	}
	pairs, ok := parseThresholdPairs(arg, 4,
		map[string]bool{"track": true, "type": true, "count": true, "seconds": true, "multiplier": true},
		map[string]bool{"limit": true, "both": true, "threshold": true, "backoff": true, "by_dst": true, "by_src": true, "by_both": true, "by_rule": true, "by_flow": true})
	if !ok {
		return errf("pcre_exec parse error, string %s", arg)
	}
	cnt := map[string]int{}
	t := &Threshold{}
	for _, kv := range pairs {
		cnt[kv[0]]++
		switch kv[0] {
		case "type":
			switch kv[1] {
			case "limit", "both", "threshold", "backoff":
				t.Type = kv[1]
			default:
				return errf("invalid threshold type \"%s\"", kv[1])
			}
		case "track":
			if !strings.HasPrefix(kv[1], "by_") {
				return errf("invalid threshold track \"%s\"", kv[1])
			}
			t.Track = kv[1]
		case "count":
			v, err := parseUintStrict(kv[1], 0xffffffff)
			if err != nil {
				return errf("invalid count value '%s'", kv[1])
			}
			t.Count = uint32(v)
		case "seconds":
			v, err := parseUintStrict(kv[1], 0xffffffff)
			if err != nil {
				return errf("invalid seconds value '%s'", kv[1])
			}
			t.Seconds = uint32(v)
		case "multiplier":
			v, err := parseUintStrict(kv[1], 0xffffffff)
			if err != nil {
				return errf("invalid multiplier value '%s'", kv[1])
			}
			t.Multiplier = uint32(v)
		}
	}
	if cnt["count"] != 1 || cnt["track"] != 1 || cnt["type"] != 1 || cnt["seconds"]+cnt["multiplier"] != 1 {
		return errf("\"threshold\" needs exactly one type, track, count and seconds (or multiplier for backoff): %s", arg)
	}
	if t.Type == "backoff" {
		if cnt["multiplier"] != 1 {
			return errf("type backoff needs a multiplier")
		}
		if !(t.Count > 0 && t.Count < 65536) {
			return errf("invalid count value '%d': must be in the range 1-65535", t.Count)
		}
		if !(t.Multiplier > 0 && t.Multiplier < 65536) {
			return errf("invalid multiplier value '%d': must be in the range 1-65535", t.Multiplier)
		}
		if t.Track != "by_flow" {
			return errf("invalid track value: type backoff only supported for track by_flow")
		}
	} else if cnt["seconds"] != 1 {
		return errf("type %s needs seconds", t.Type)
	}
	p.r.Threshold = t
	o.Arg = t
	var parts []string
	for _, kv := range pairs {
		parts = append(parts, kv[0]+" "+kv[1])
	}
	o.Value = strings.Join(parts, ", ")
	return nil
}

func setupDetectionFilter(p *ruleParser, o *Option, arg string) error {
	if p.r.Threshold != nil {
		return errf("\"detection_filter\" and \"threshold\" are not allowed in the same rule")
	}
	if p.r.DetectionFilter != nil {
		return errf("At most one \"detection_filter\" is allowed per rule")
	}
	pairs, ok := parseThresholdPairs(arg, 3,
		map[string]bool{"track": true, "count": true, "seconds": true},
		map[string]bool{"by_src": true, "by_dst": true, "by_flow": true})
	if !ok {
		return errf("parse error, string %s", arg)
	}
	cnt := map[string]int{}
	t := &Threshold{}
	for _, kv := range pairs {
		cnt[kv[0]]++
		switch kv[0] {
		case "track":
			if !strings.HasPrefix(kv[1], "by_") {
				return errf("invalid detection_filter track \"%s\"", kv[1])
			}
			t.Track = kv[1]
		case "count":
			v, err := parseUintStrict(kv[1], 0xffffffff)
			if err != nil || v == 0 {
				return errf("invalid count value '%s'", kv[1])
			}
			t.Count = uint32(v)
		case "seconds":
			v, err := parseUintStrict(kv[1], 0xffffffff)
			if err != nil || v == 0 {
				return errf("invalid seconds value '%s'", kv[1])
			}
			t.Seconds = uint32(v)
		}
	}
	if cnt["track"] != 1 || cnt["count"] != 1 || cnt["seconds"] != 1 {
		return errf("\"detection_filter\" needs exactly one track, count and seconds: %s", arg)
	}
	p.r.DetectionFilter = t
	o.Arg = t
	var parts []string
	for _, kv := range pairs {
		parts = append(parts, kv[0]+" "+kv[1])
	}
	o.Value = strings.Join(parts, ", ")
	return nil
}

func setupStreamSize(p *ruleParser, o *Option, arg string) error {
	parts := splitArgs(arg)
	if len(parts) != 3 {
		return errf("invalid stream_size \"%s\": expected <server|client|both|either>,<modifier>,<value>", arg)
	}
	switch parts[0] {
	case "server", "client", "both", "either":
	default:
		return errf("invalid stream_size direction \"%s\"", parts[0])
	}
	switch parts[1] {
	case ">", "<", "=", "!=", ">=", "<=":
	default:
		return errf("invalid stream_size modifier \"%s\"", parts[1])
	}
	if _, err := parseUintStrict(parts[2], 0xffffffff); err != nil {
		return errf("invalid stream_size value \"%s\"", parts[2])
	}
	o.Value = strings.Join(parts, ",")
	p.addMatch(o)
	return nil
}

// appProtoModes are the modes app-layer-protocol takes after its comma
// (DetectAppLayerProtocolParse); "" is the default, direction.
var appProtoModes = map[string]bool{"final": true, "original": true, "either": true,
	"to_server": true, "to_client": true, "direction": true}

// splitAppProtoArg splits "name[,mode]" at the first comma; the mode is "direction" when
// absent.
func splitAppProtoArg(v string) (name, mode string) {
	name, mode, ok := strings.Cut(v, ",")
	if !ok {
		mode = "direction"
	}
	return name, mode
}

// setupAppLayerProtocol is DetectAppLayerProtocolSetup: "[!]name[,mode]". The name is a
// protocol, "failed" or "unknown" (which cannot be negated); the mode is compared exactly.
// A rule whose protocol is already set (by its header or a buffer) cannot use it, and two
// app-layer-protocol options of the same mode conflict unless both are negated and differ
// (HasConflicts).
func setupAppLayerProtocol(p *ruleParser, o *Option, arg string) error {
	v := strings.TrimSpace(arg)
	name, mode := splitAppProtoArg(v)
	switch name {
	case "failed":
	case "unknown":
		if o.Negated {
			return errf("app-layer-protocol keyword can't use negation with protocol 'unknown'")
		}
	default:
		if _, ok := lookupAppProto(name, p.opts.disabled()); !ok {
			return errf("app-layer-protocol keyword supplied with unknown protocol \"%s\"", name)
		}
	}
	if !appProtoModes[mode] {
		return errf("app-layer-protocol keyword supplied with unknown mode \"%s\"", mode)
	}
	if p.r.AppProto != "" {
		return errf("Either we already have the rule match on an app layer protocol set through other keywords that match on this protocol, or have already seen a non-negated app-layer-protocol.")
	}
	for _, m := range p.r.Matches {
		if m.Name != "app-layer-protocol" {
			continue
		}
		tn, tm := splitAppProtoArg(m.Value)
		if tm == mode && (m.Negated != o.Negated || !o.Negated || tn == name) {
			return errf("can't mix positive app-layer-protocol match with negated match or match for 'failed'.")
		}
	}
	o.Value = v
	p.r.hasAppProtoKW = true
	p.addMatch(o)
	return nil
}

// setupEvent handles decode-event, stream-event, engine-event and app-layer-event.
func setupEvent(p *ruleParser, o *Option, arg string) error {
	name := strings.TrimSpace(arg)
	if name == "" || strings.ContainsAny(name, " \t,") {
		return errf("invalid event name \"%s\"", arg)
	}
	o.Value = name
	switch o.Name {
	case "decode-event", "engine-event", "stream-event":
		full := name
		switch o.Name {
		case "decode-event":
			full = "decoder." + name
		case "stream-event":
			switch name {
			case "est_synack_resend_with_different_ack":
				name = "est_synack_resend_with_diff_ack"
			case "3whs_synack_resend_with_different_ack":
				name = "3whs_synack_resend_with_diff_ack"
			}
			full = "stream." + name
		}
		if !knownDecodeEvents[strings.ToLower(full)] {
			return errf("unknown event name \"%s\"", name)
		}
		if o.Name == "decode-event" {
			p.r.hasDecodeEvent = true
		}
		p.addMatch(o)
	case "app-layer-event":
		proto, _, ok := strings.Cut(name, ".")
		if !ok {
			if !appLayerPacketEvents[strings.ToLower(name)] {
				return errf("app-layer-event keyword supplied with packet based event - \"%s\" that isn't supported yet.", name)
			}
			p.addMatch(o)
			return nil
		}
		if len(name) > 50 {
			return errf("app-layer-event keyword is too long or malformed")
		}
		if proto == "file" {
			if !appLayerEvents["file"][strings.ToLower(name[len(proto)+1:])] {
				return &kwError{msg: "app-layer-event keyword's protocol \"file\" doesn't have event \"" + name[len(proto)+1:] + "\" registered", kind: KindDropped}
			}
			p.addAppMatch(o)
			p.r.appLayerFlag = true
			return nil
		}
		alp, ok := lookupAppProto(proto, p.opts.disabled())
		if !ok {
			return errf("app-layer-event keyword supplied with unknown protocol \"%s\"", proto)
		}
		if alp == "http" {
			alp = "http1"
		}
		switch strings.ToLower(name) {
		case "tls.certificate_missing_element", "tls.certificate_unknown_element", "tls.certificate_invalid_string":
			return &kwError{msg: "app-layer-event keyword no longer supports event \"" + name + "\"", kind: KindDropped}
		}
		if evs, known := appLayerEvents[alp]; known && !evs[strings.ToLower(name[len(proto)+1:])] {
			return &kwError{msg: "app-layer-event keyword's protocol \"" + proto + "\" doesn't have event \"" + name[len(proto)+1:] + "\" registered", kind: KindDropped}
		}
		ips := p.r.Header.Protocol.IPProtos
		if ips != nil && !slices.Contains(ips, protoTCP) && !slices.Contains(ips, protoUDP) {
			return errf("protocol %s is disabled", proto)
		}
		if err := p.setAppProto(alp); err != nil {
			return err
		}
		p.addAppMatch(o)
	}
	return nil
}

// appLayerPacketEvents are the app-layer events that are not bound to a protocol.
var appLayerPacketEvents = map[string]bool{
	"applayer_mismatch_protocol_both_directions":  true,
	"applayer_wrong_direction_first_data":         true,
	"applayer_detect_protocol_only_one_direction": true,
	"applayer_proto_detection_skipped":            true,
	"applayer_no_tls_after_starttls":              true,
	"applayer_unexpected_protocol":                true,
}

func setupFlowvar(p *ruleParser, o *Option, arg string) error {
	name, val, ok := strings.Cut(arg, ",")
	name = strings.TrimSpace(name)
	val = strings.TrimSpace(val)
	if !ok || name == "" || val == "" {
		return errf("\"%s\" is not a valid setting for %s", arg, o.Name)
	}
	if strings.HasPrefix(val, `"`) {
		if len(val) < 2 || !strings.HasSuffix(val, `"`) {
			return errf("\"%s\" is not a valid setting for %s", arg, o.Name)
		}
		if _, err := parseContentBytes(o.Name, val[1:len(val)-1]); err != nil {
			return err
		}
	}
	if o.Name == "flowvar" {
		p.r.flowvarCapture = true
	}
	p.addMatch(o)
	return nil
}

func setupIPRep(p *ruleParser, o *Option, arg string) error {
	parts := splitArgs(arg)
	if len(parts) != 4 {
		return errf("invalid iprep \"%s\": expected <side>,<category>,<operator>,<value>", arg)
	}
	switch parts[0] {
	case "any", "src", "dst", "both":
	default:
		return errf("invalid iprep side \"%s\"", parts[0])
	}
	switch parts[2] {
	case "<", ">", "=", "<=", ">=":
	default:
		return errf("invalid iprep operator \"%s\"", parts[2])
	}
	v, err := parseUintStrict(parts[3], 255)
	if err != nil || v > 127 {
		return errf("invalid iprep value \"%s\"", parts[3])
	}
	o.Value = strings.Join(parts, ",")
	p.addMatch(o)
	return nil
}

func init() {
	register(
		&Keyword{Name: "flow", Kind: KindMatch, Flags: KwFirewall, Desc: "flow direction and state", setup: setupFlow},
		&Keyword{Name: "flowbits", Kind: KindMatch, Flags: KwIPOnlyCompat | KwFirewall, Desc: "set and check flow bits", setup: setupFlowbits},
		&Keyword{Name: "flowint", Kind: KindMatch, Desc: "flow integer variables", setup: setupFlowint},
		&Keyword{Name: "xbits", Kind: KindMatch, Flags: KwIPOnlyCompat | KwFirewall, Desc: "host/ip pair/tx bits", setup: setupXbits},
		&Keyword{Name: "hostbits", Kind: KindMatch, Flags: KwIPOnlyCompat, Desc: "host bits", setup: setupHostbits},
		&Keyword{Name: "threshold", Kind: KindPostMatch, Flags: KwIPOnlyCompat, Desc: "alert thresholding", setup: setupThreshold},
		&Keyword{Name: "detection_filter", Kind: KindPostMatch, Flags: KwIPOnlyCompat, Desc: "alert after N matches", setup: setupDetectionFilter},
		&Keyword{Name: "stream_size", Kind: KindMatch, Desc: "TCP stream size", setup: setupStreamSize},
		&Keyword{Name: "app-layer-protocol", Kind: KindMatch, Flags: KwNegation | KwQuotesOptional | KwFirewall, Desc: "detected app-layer protocol", setup: setupAppLayerProtocol},
		&Keyword{Name: "decode-event", Kind: KindMatch, Flags: KwDEOnlyCompat, Desc: "decoder event", setup: setupEvent},
		&Keyword{Name: "stream-event", Kind: KindMatch, Desc: "stream engine event", setup: setupEvent},
		&Keyword{Name: "engine-event", Kind: KindMatch, Desc: "engine event", setup: setupEvent},
		&Keyword{Name: "app-layer-event", Kind: KindMatch, Desc: "app-layer parser event", setup: setupEvent},
		&Keyword{Name: "flowvar", Kind: KindMatch, Desc: "match a flow variable", setup: setupFlowvar},
		&Keyword{Name: "pktvar", Kind: KindMatch, Desc: "match a packet variable", setup: setupFlowvar},
		&Keyword{Name: "iprep", Kind: KindMatch, Flags: KwIPOnlyCompat | KwFirewall, Desc: "IP reputation", setup: setupIPRep},
	)
	_ = strconv.Itoa
}
