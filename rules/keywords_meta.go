package rules

import (
	"strconv"
	"strings"
)

// msgUnescape removes the backslash of every escaped character, as Suricata does for msg.
func msgUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	escape := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !escape && c == '\\' {
			escape = true
			continue
		}
		escape = false
		b.WriteByte(c)
	}
	return b.String()
}

// quoteText quotes a text argument, escaping '\', '"' and ';'.
func quoteText(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' || c == '"' || c == ';' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}

func setupMsg(p *ruleParser, o *Option, arg string) error {
	if p.msgSeen {
		return errf("duplicated 'msg' keyword detected")
	}
	p.msgSeen = true
	p.r.Msg = msgUnescape(arg)
	if plainText(arg) {
		o.Value = p.raw
	} else {
		o.Value = quoteText(p.r.Msg)
	}
	return nil
}

func setupSID(p *ruleParser, o *Option, arg string) error {
	v, err := parseUintLoose(arg, 0xffffffff)
	if err != nil {
		return errf("invalid input as arg to sid keyword")
	}
	if v == 0 {
		return errf("sid value 0 is invalid")
	}
	if p.r.SID > 0 {
		return errf("duplicated 'sid' keyword detected")
	}
	p.r.SID = uint32(v)
	o.Value = strconv.FormatUint(v, 10)
	return nil
}

func setupRev(p *ruleParser, o *Option, arg string) error {
	v, err := parseUintLoose(arg, 0xffffffff)
	if err != nil {
		return errf("invalid input as arg to rev keyword")
	}
	if v == 0 {
		return errf("rev value 0 is invalid")
	}
	if p.r.Rev > 0 {
		return errf("duplicated 'rev' keyword detected")
	}
	p.r.Rev = uint32(v)
	o.Value = strconv.FormatUint(v, 10)
	return nil
}

func setupGID(p *ruleParser, o *Option, arg string) error {
	v, err := parseUintLoose(arg, 0xffffffff)
	if err != nil {
		return errf("invalid input as arg to gid keyword")
	}
	p.r.GID = uint32(v)
	o.Value = strconv.FormatUint(v, 10)
	return nil
}

func setupClasstype(p *ruleParser, o *Option, arg string) error {
	name := strings.TrimSpace(arg)
	ok := name != "" && isAlpha(name[0])
	for i := 1; ok && i < len(name); i++ {
		c := name[i]
		ok = isAlpha(c) || c >= '0' && c <= '9' || c == '-' || c == '_'
	}
	if !ok {
		return errf("invalid value for classtype keyword: \"%s\"", arg)
	}
	if p.r.Classtype == "" {
		p.r.Classtype = strings.ToLower(name)
	}
	o.Value = name
	return nil
}

func setupPriority(p *ruleParser, o *Option, arg string) error {
	t := strings.TrimSpace(arg)
	if t == "" || strings.Trim(t, "0123456789") != "" {
		if strings.HasPrefix(t, `"`) {
			return errf("Saw an invalid character as arg to priority keyword")
		}
		return errf("Invalid Priority in Signature - %s", arg)
	}
	v, err := strconv.ParseInt(t, 10, 32)
	if err != nil {
		return errf("Invalid Priority in Signature - %s", arg)
	}
	if p.r.Priority == 0 || int(v) < p.r.Priority {
		p.r.Priority = int(v)
	}
	o.Value = strconv.FormatInt(v, 10)
	return nil
}

func setupReference(p *ruleParser, o *Option, arg string) error {
	bad := func() error {
		return errf("Unable to parse \"reference\" keyword argument - \"%s\".   Invalid argument.", arg)
	}
	s := strings.TrimLeft(arg, " \t\n\r\v\f")
	i := 0
	for i < len(s) && (isAlpha(s[i]) || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	key := s[:i]
	s = strings.TrimLeft(s[i:], " \t\n\r\v\f")
	if key == "" || !strings.HasPrefix(s, ",") {
		return bad()
	}
	s = s[1:]
	s = strings.TrimPrefix(s, `"`)
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	s = strings.TrimPrefix(s, `"`)
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	// optional scheme "xxx://"
	j := 0
	for j < len(s) && isAlpha(s[j]) {
		j++
	}
	scheme := false
	if j > 0 && strings.HasPrefix(s[j:], "://") {
		key = s[:j]
		s = s[j+3:]
		scheme = true
	}
	k := 0
	for k < len(s) {
		c := s[k]
		if isAlpha(c) || c >= '0' && c <= '9' || strings.IndexByte("-_./?=", c) >= 0 {
			k++
			continue
		}
		break
	}
	id := s[:k]
	if id == "" || len(key) >= 64 || len(id) >= 1024 {
		return bad()
	}
	p.r.References = append(p.r.References, Reference{System: key, ID: id, Scheme: scheme})
	o.Value = strings.TrimSpace(arg)
	return nil
}

func setupMetadata(p *ruleParser, o *Option, arg string) error {
	if p.r.Metadata == nil {
		p.r.Metadata = make([]Metadata, 0, strings.Count(arg, ",")+1)
	}
	rest := arg
	for rest != "" {
		part := rest
		if i := strings.IndexByte(rest, ','); i >= 0 {
			part, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		part = strings.TrimLeft(part, " \t")
		key, val, ok := strings.Cut(part, " ")
		if !ok {
			continue
		}
		val = strings.TrimLeft(val, " \t")
		if key == "" || val == "" {
			continue
		}
		p.r.Metadata = append(p.r.Metadata, Metadata{Key: key, Value: val})
	}
	o.Value = arg
	return nil
}

func setupTarget(p *ruleParser, o *Option, arg string) error {
	t := strings.TrimSpace(arg)
	if t != "src_ip" && t != "dest_ip" {
		return errf("invalid target \"%s\": expected src_ip or dest_ip", arg)
	}
	p.r.Target = t
	o.Value = t
	return nil
}

func setupNoAlert(p *ruleParser, o *Option, arg string) error {
	p.r.NoAlert = true
	return nil
}

func setupAlert(p *ruleParser, o *Option, arg string) error {
	p.r.Alert = true
	return nil
}

func setupTag(p *ruleParser, o *Option, arg string) error {
	bad := &kwError{msg: "invalid tag \"" + arg + "\": expected session|host[,count,packets|bytes|seconds[,src|dst]]"}
	parts := strings.Split(arg, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	t := &Tag{Type: parts[0]}
	if t.Type != "session" && t.Type != "host" {
		return bad
	}
	switch len(parts) {
	case 1:
	case 3, 4:
		n, err := parseUintStrict(parts[1], 0xffffffff)
		if err != nil {
			return bad
		}
		t.Count = uint32(n)
		switch parts[2] {
		case "packets", "bytes", "seconds":
			t.Metric = parts[2]
		default:
			return bad
		}
		if len(parts) == 4 {
			if parts[3] != "src" && parts[3] != "dst" {
				return bad
			}
			t.Direction = parts[3]
		}
	default:
		return bad
	}
	if t.Type == "session" && t.Direction != "" {
		return errf("tag direction (src/dst) only applies to host tags")
	}
	p.r.Tags = append(p.r.Tags, t)
	o.Arg = t
	o.Value = strings.Join(parts, ",")
	return nil
}

func init() {
	register(
		&Keyword{Name: "msg", Kind: KindMeta, Flags: KwQuotesMandatory | KwFirewall, Desc: "alert message", setup: setupMsg},
		&Keyword{Name: "sid", Kind: KindMeta, Flags: KwFirewall, Desc: "signature id", setup: setupSID},
		&Keyword{Name: "rev", Kind: KindMeta, Flags: KwFirewall, Desc: "signature revision", setup: setupRev},
		&Keyword{Name: "gid", Kind: KindMeta, Flags: KwFirewall, Desc: "generator id", setup: setupGID},
		&Keyword{Name: "classtype", Kind: KindMeta, Flags: KwFirewall, Desc: "classification of the rule", setup: setupClasstype},
		&Keyword{Name: "priority", Kind: KindMeta, Flags: KwFirewall, Desc: "rule priority (lower is more important)", setup: setupPriority},
		&Keyword{Name: "reference", Kind: KindMeta, Flags: KwFirewall, Desc: "reference to external information", setup: setupReference},
		&Keyword{Name: "metadata", Kind: KindMeta, Flags: KwFirewall, Desc: "free-form key value metadata", setup: setupMetadata},
		&Keyword{Name: "target", Kind: KindMeta, Flags: KwFirewall, Desc: "the side of the alert that is the target", setup: setupTarget},
		&Keyword{Name: "requires", Kind: KindMeta, Flags: KwFirewall, Desc: "require a Suricata version, features or keywords", setup: setupRequires},
		&Keyword{Name: "noalert", Kind: KindMeta, Flags: KwNoOpt | KwFirewall, Desc: "do not generate an alert", setup: setupNoAlert},
		&Keyword{Name: "alert", Kind: KindMeta, Flags: KwNoOpt | KwFirewall, Desc: "generate an alert (firewall rules)", setup: setupAlert},
		&Keyword{Name: "tag", Kind: KindPostMatch, Flags: KwIPOnlyCompat, Desc: "tag the following packets of the session or host", setup: setupTag},
	)
}
