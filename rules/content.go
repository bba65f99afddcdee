package rules

import (
	"strconv"
	"strings"
)

// Content is a content match with its modifiers.
type Content struct {
	// Pattern is the byte pattern (hex and escapes decoded; not lower-cased by nocase).
	Pattern []byte
	// Negated is set for content:!"...".
	Negated bool
	// Nocase and Rawbytes are the nocase and rawbytes modifiers.
	Nocase   bool
	Rawbytes bool
	// Offset, Depth, Distance and Within are the position modifiers as written.
	Offset, Depth, Distance, Within Limit
	// StartsWith and EndsWith are the startswith and endswith modifiers (endswith is also set
	// by "isdataat:!1,relative" right after the content, as in Suricata).
	StartsWith bool
	EndsWith   bool
	// FastPattern is set by fast_pattern; FastPatternOnly by fast_pattern:only;
	// FastPatternChop by fast_pattern:offset,length with ChopOffset and ChopLength.
	FastPattern     bool
	FastPatternOnly bool
	FastPatternChop bool
	ChopOffset      uint16
	ChopLength      uint16
	// Replace is the replace keyword's bytes, nil when absent.
	Replace []byte
}

// Limit is the value of a position modifier: a number, or the name of a byte_extract /
// byte_math variable.
type Limit struct {
	// Set is true when the modifier was given.
	Set bool
	// Value is the number (0 when Var is set).
	Value int32
	// Var is the variable name, "" for a number.
	Var string
}

// String returns the modifier's value as written in a rule.
func (l Limit) String() string {
	if l.Var != "" {
		return l.Var
	}
	return strconv.Itoa(int(l.Value))
}

// Relative reports whether the content is relative to the previous match (distance or within).
func (c *Content) Relative() bool { return c.Distance.Set || c.Within.Set }

// contentMaxValue is Suricata's DETECT_CONTENT_VALUE_MAX for distance and within.
const contentMaxValue = 1024 * 1024

// ParseContentString decodes the text of a content argument (without its quotes): bytes
// between '|' are hex pairs (spaces and commas ignored), outside them a backslash escapes only
// ';', '"', '\' and ':'.
func ParseContentString(s string) ([]byte, error) { return parseContentBytes("content", s) }

func parseContentBytes(kw, s string) ([]byte, error) {
	if s == "" {
		return nil, errf("empty %s", kw)
	}
	out := make([]byte, 0, len(s))
	bin, escape, converted := false, false, false
	var hex [2]byte
	binpos := 0
	pipes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '|':
			pipes++
			if bin {
				if binpos > 0 {
					return nil, errf("odd number of hex digits in \"%s\"", s)
				}
				bin = false
			} else {
				bin = true
			}
		case !escape && c == '\\':
			escape = true
		case bin:
			switch {
			case isHexDigit(c):
				hex[binpos] = c
				binpos++
				if binpos == 2 {
					v, _ := strconv.ParseUint(string(hex[:]), 16, 8)
					out = append(out, byte(v))
					binpos = 0
					converted = true
				}
			case c == ' ' || c == ',':
			default:
				return nil, errf("invalid hex code '%c' in \"%s\"", c, s)
			}
		case escape:
			if c != ':' && c != ';' && c != '\\' && c != '"' {
				return nil, errf("invalid escape '\\%c' in \"%s\" (only \\; \\\" \\\\ \\: are allowed)", c, s)
			}
			out = append(out, c)
			escape = false
			converted = true
		case c == '"':
			return nil, errf("unescaped double quote in \"%s\"", s)
		default:
			out = append(out, c)
		}
	}
	if pipes%2 != 0 {
		return nil, errf("odd number of '|' in \"%s\"", s)
	}
	if !converted {
		// Suricata keeps the text as it is when nothing was decoded.
		return []byte(s), nil
	}
	if len(out) == 0 {
		return nil, errf("empty %s", kw)
	}
	return out, nil
}

// formatContentBytes prints bytes as a content argument (without quotes): printable ASCII
// as is, except '"', ';', '\' and '|', everything else as hex.
func formatContentBytes(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	inHex := false
	const digits = "0123456789ABCDEF"
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != ';' && c != '\\' && c != '|' {
			if inHex {
				sb.WriteByte('|')
				inHex = false
			}
			sb.WriteByte(c)
			continue
		}
		if inHex {
			sb.WriteByte(' ')
		} else {
			sb.WriteByte('|')
			inHex = true
		}
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	if inHex {
		sb.WriteByte('|')
	}
	return sb.String()
}

func setupContent(p *ruleParser, o *Option, arg string) error {
	pat, err := parseContentBytes("content", arg)
	if err != nil {
		return err
	}
	c := &Content{Pattern: pat, Negated: o.Negated}
	o.Arg = c
	if plainText(arg) {
		o.Value = p.raw // already canonical: the quoted argument as written
	} else {
		o.Value = `"` + formatContentBytes(pat) + `"`
	}
	b, err := p.appendPayload(o)
	if err != nil {
		return err
	}
	if !c.Negated && p.dynamic(b) {
		if err := checkTransformCompat(b, pat); err != nil {
			return err
		}
	}
	p.lastContent = o
	return nil
}

// checkTransformCompat rejects contents that can never match after the buffer's transforms.
func checkTransformCompat(b *Buffer, pat []byte) error {
	isWS := func(c byte) bool { return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' ' }
	for _, t := range b.Transforms {
		ok := true
		switch t.Name {
		case "to_lowercase":
			for _, c := range pat {
				if c >= 'A' && c <= 'Z' {
					ok = false
				}
			}
		case "to_uppercase":
			for _, c := range pat {
				if c >= 'a' && c <= 'z' {
					ok = false
				}
			}
		case "strip_whitespace":
			for _, c := range pat {
				if isWS(c) {
					ok = false
				}
			}
		case "compress_whitespace":
			for i := 1; i < len(pat); i++ {
				if isWS(pat[i]) && isWS(pat[i-1]) {
					ok = false
				}
			}
		}
		if !ok {
			return errf("content string \"%s\" incompatible with %s transform", formatContentBytes(pat), t.Name)
		}
	}
	return nil
}

// uricontent is content followed by http_uri.
func setupURIContent(p *ruleParser, o *Option, arg string) error {
	if err := setupContent(p, o, arg); err != nil {
		return err
	}
	return p.contentModifier(Lookup("http_uri"))
}

// lastContentFor returns the content a modifier applies to (the most recent content of the
// rule) or an error naming the keyword.
func (p *ruleParser) lastContentFor(kw, need string) (*Content, *Option, error) {
	if p.lastContent == nil {
		return nil, nil, errf("%s needs preceding %s option", kw, need)
	}
	return p.lastContent.Arg.(*Content), p.lastContent, nil
}

// checkAbsolute applies the checks shared by depth, offset and startswith.
func checkAbsolute(c *Content) error {
	if c.Within.Set || c.Distance.Set {
		return errf("can't use a relative keyword like within/distance with a absolute relative keyword like depth/offset for the same content.")
	}
	if c.Negated && c.FastPattern {
		return errf("can't have a relative negated keyword set along with 'fast_pattern'.")
	}
	if c.FastPatternOnly {
		return errf("can't have a relative keyword set along with 'fast_pattern:only;'.")
	}
	return nil
}

// checkRelative applies the checks shared by distance and within.
func checkRelative(c *Content) error {
	if c.Depth.Set || c.Offset.Set {
		return errf("can't use a relative keyword like within/distance with a absolute relative keyword like depth/offset for the same content.")
	}
	if c.Negated && c.FastPattern {
		return errf("can't have a relative negated keyword set along with a fast_pattern")
	}
	if c.FastPatternOnly {
		return errf("can't have a relative keyword set along with a fast_pattern:only;")
	}
	return nil
}

// limitValue parses a position modifier value: a byte variable (starting with a letter) or a
// number parsed by parse.
func (p *ruleParser) limitValue(kw, arg string, parse func(string) (int64, error)) (Limit, error) {
	if arg != "" && arg[0] != '-' && isAlpha(arg[0]) {
		if !p.byteVars[arg] {
			return Limit{}, errf("unknown byte_ keyword var seen in %s - %s", kw, arg)
		}
		return Limit{Set: true, Var: arg}, nil
	}
	v, err := parse(arg)
	if err != nil {
		return Limit{}, errf("invalid value for %s: %s", kw, arg)
	}
	return Limit{Set: true, Value: int32(v)}, nil
}

func parseU16(s string) (int64, error) {
	v, err := parseUintC(s, 65535)
	return int64(v), err
}

func parseRel(s string) (int64, error) { return parseIntC(s, -contentMaxValue, contentMaxValue) }

func setupDepth(p *ruleParser, o *Option, arg string) error {
	c, _, err := p.lastContentFor("depth", "content")
	if err != nil {
		return err
	}
	if c.Depth.Set || c.StartsWith {
		return errf("can't use multiple depths for the same content.")
	}
	if err := checkAbsolute(c); err != nil {
		return err
	}
	l, err := p.limitValue("depth", arg, parseU16)
	if err != nil {
		return err
	}
	if l.Var == "" && int(l.Value) < len(c.Pattern) {
		return errf("depth:%d smaller than content of len %d.", l.Value, len(c.Pattern))
	}
	c.Depth = l
	o.Value = l.String()
	return nil
}

func setupOffset(p *ruleParser, o *Option, arg string) error {
	c, _, err := p.lastContentFor("offset", "content")
	if err != nil {
		return err
	}
	if c.StartsWith {
		return errf("can't use offset with startswith.")
	}
	if c.Offset.Set {
		return errf("can't use multiple offsets for the same content.")
	}
	if err := checkAbsolute(c); err != nil {
		return err
	}
	l, err := p.limitValue("offset", arg, parseU16)
	if err != nil {
		return err
	}
	c.Offset = l
	o.Value = l.String()
	return nil
}

func setupDistance(p *ruleParser, o *Option, arg string) error {
	c, co, err := p.lastContentFor("distance", "content")
	if err != nil {
		return err
	}
	if c.Distance.Set {
		return errf("can't use multiple distances for the same content.")
	}
	if err := checkRelative(c); err != nil {
		return err
	}
	l, err := p.limitValue("distance", arg, parseRel)
	if err != nil {
		return err
	}
	c.Distance = l
	o.Value = l.String()
	return p.checkPrevFastPatternOnly(co)
}

func setupWithin(p *ruleParser, o *Option, arg string) error {
	c, co, err := p.lastContentFor("within", "content")
	if err != nil {
		return err
	}
	if c.Within.Set {
		return errf("can't use multiple withins for the same content.")
	}
	if err := checkRelative(c); err != nil {
		return err
	}
	l, err := p.limitValue("within", arg, parseRel)
	if err != nil {
		return err
	}
	if l.Var == "" && int(l.Value) < len(c.Pattern) {
		return errf("within argument \"%d\" is less than the content length \"%d\" which is invalid, since this will never match.  Invalidating signature", l.Value, len(c.Pattern))
	}
	c.Within = l
	o.Value = l.String()
	return p.checkPrevFastPatternOnly(co)
}

// checkPrevFastPatternOnly rejects a relative content after a fast_pattern:only content.
func (p *ruleParser) checkPrevFastPatternOnly(co *Option) error {
	prev := lastInList(p.bufferOf(co), co, "content", "pcre")
	if prev != nil {
		if pc, ok := prev.Arg.(*Content); ok && pc.FastPatternOnly {
			return errf("previous keyword has a fast_pattern:only; set. Can't have relative keywords around a fast_pattern only content")
		}
	}
	return nil
}

func setupStartsWith(p *ruleParser, o *Option, arg string) error {
	c, _, err := p.lastContentFor("startswith", "content")
	if err != nil {
		return err
	}
	if c.Depth.Set || c.StartsWith {
		return errf("can't use multiple depth/startswith settings for the same content.")
	}
	if err := checkAbsolute(c); err != nil {
		return err
	}
	if c.Offset.Set {
		return errf("can't mix offset with startswith.")
	}
	c.StartsWith = true
	return nil
}

func setupEndsWith(p *ruleParser, o *Option, arg string) error {
	c, _, err := p.lastContentFor("endswith", "content")
	if err != nil {
		return err
	}
	c.EndsWith = true
	return nil
}

func setupNocase(p *ruleParser, o *Option, arg string) error {
	c, _, err := p.lastContentFor("nocase", "content")
	if err != nil {
		return err
	}
	if c.Nocase {
		return errf("can't use multiple nocase modifiers with the same content")
	}
	c.Nocase = true
	return nil
}

func setupRawbytes(p *ruleParser, o *Option, arg string) error {
	if p.list != "" {
		return errf("\"rawbytes\" cannot be combined with the \"%s\" sticky buffer", p.listName)
	}
	sm := lastInList(p.payload, nil, "content")
	if sm == nil {
		return errf("\"rawbytes\" needs a preceding content option")
	}
	c := sm.Arg.(*Content)
	if c.Rawbytes {
		return errf("can't use multiple rawbytes modifiers for the same content. ")
	}
	c.Rawbytes = true
	return nil
}

func setupFastPattern(p *ruleParser, o *Option, arg string) error {
	c, co, err := p.lastContentFor("fast_pattern", "content based keyword")
	if err != nil {
		return errf("fast_pattern found inside the rule, without a content context. Please use a content based keyword before using fast_pattern")
	}
	if c.Negated && (c.Distance.Set || c.Within.Set || c.Offset.Set || c.Depth.Set) {
		return errf("fast_pattern; cannot be used with negated content, along with relative modifiers")
	}
	if arg == "" {
		if c.FastPattern {
			return errf("can't use multiple fast_pattern options for the same content")
		}
		for _, b := range []*Buffer{p.payload, p.base64} {
			if b == nil {
				continue
			}
			for _, m := range b.Matches {
				if mc, ok := m.Arg.(*Content); ok && mc.FastPattern {
					return errf("fast_pattern can be used on only one content in a rule")
				}
			}
		}
		if p.bufferOf(co) == p.base64 && p.base64 != nil {
			return errf("fast_pattern cannot be used with base64_data")
		}
		c.FastPattern = true
		return nil
	}
	t := strings.TrimLeft(arg, " \t\n\r\v\f")
	if strings.HasPrefix(t, "only") {
		if c.Negated || c.Distance.Set || c.Within.Set || c.Offset.Set || c.Depth.Set {
			return errf("fast_pattern: only; cannot be used with negated content or with any of the relative modifiers like distance, within, offset, depth")
		}
		c.FastPatternOnly = true
		c.FastPattern = true
		o.Value = "only"
		return nil
	}
	a, b, ok := strings.Cut(arg, ",")
	off, err1 := parseUintStrict(strings.TrimSpace(a), 65535)
	n, err2 := parseUintStrict(strings.TrimSpace(b), 65535)
	if !ok || err1 != nil || err2 != nil {
		return errf("parse error, string %s", arg)
	}
	if int(off)+int(n) > len(c.Pattern) {
		return errf("Fast pattern (length + offset (%d)) exceeds pattern length (%d)", off+n, len(c.Pattern))
	}
	c.FastPatternChop = true
	c.ChopOffset, c.ChopLength = uint16(off), uint16(n)
	c.FastPattern = true
	o.Value = strconv.Itoa(int(off)) + "," + strconv.Itoa(int(n))
	return nil
}

func setupReplace(p *ruleParser, o *Option, arg string) error {
	if o.Negated {
		return errf("Can't negate replacement string: %s", arg)
	}
	rep, err := parseContentBytes("replace", arg)
	if err != nil {
		return err
	}
	sm := lastInList(p.payload, nil, "content")
	if sm == nil {
		return errf("replace needs preceding content option for raw sig")
	}
	c := sm.Arg.(*Content)
	if c.Negated {
		return errf("can't have a relative negated keyword set along with a replacement")
	}
	if len(c.Pattern) != len(rep) {
		return errf("can't have a content length different from replace length")
	}
	c.Replace = rep
	p.r.RequirePacket = true
	o.Value = `"` + formatContentBytes(rep) + `"`
	p.addPostMatch(o)
	return nil
}

func init() {
	register(
		&Keyword{Name: "content", Kind: KindPayload, Flags: KwQuotesMandatory | KwNegation | KwFirewall,
			Desc: "match on payload content", setup: setupContent},
		&Keyword{Name: "uricontent", Kind: KindPayload, Flags: KwQuotesMandatory | KwNegation | KwDeprecated,
			AppProtos: []string{"http"}, Buffer: "http.uri", Desc: "content in the HTTP URI (legacy)", setup: setupURIContent},
		&Keyword{Name: "nocase", Kind: KindModifier, Flags: KwNoOpt | KwFirewall, Desc: "case-insensitive content", setup: setupNocase},
		&Keyword{Name: "depth", Kind: KindModifier, Flags: KwFirewall, Desc: "content must be within N bytes from offset", setup: setupDepth},
		&Keyword{Name: "offset", Kind: KindModifier, Flags: KwFirewall, Desc: "content search starts at byte N", setup: setupOffset},
		&Keyword{Name: "distance", Kind: KindModifier, Flags: KwFirewall, Desc: "content starts N bytes after the previous match", setup: setupDistance},
		&Keyword{Name: "within", Kind: KindModifier, Flags: KwFirewall, Desc: "content ends within N bytes of the previous match", setup: setupWithin},
		&Keyword{Name: "startswith", Kind: KindModifier, Flags: KwNoOpt | KwFirewall, Desc: "content at the start of the buffer", setup: setupStartsWith},
		&Keyword{Name: "endswith", Kind: KindModifier, Flags: KwNoOpt | KwFirewall, Desc: "content at the end of the buffer", setup: setupEndsWith},
		&Keyword{Name: "rawbytes", Kind: KindModifier, Flags: KwNoOpt, Desc: "no-op (Snort compatibility)", setup: setupRawbytes},
		&Keyword{Name: "fast_pattern", Kind: KindModifier, Flags: KwOptionalOpt | KwFirewall, Desc: "use the content as the prefilter pattern", setup: setupFastPattern},
		&Keyword{Name: "replace", Kind: KindModifier, Flags: KwQuotesMandatory | KwNegation, Desc: "replace the content in the packet (IPS)", setup: setupReplace},
	)
}

// plainText reports whether a quoted argument is printed as is in canonical form: printable
// ASCII without '"', ';', '\' and '|'.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == ';' || c == '\\' || c == '|' {
			return false
		}
	}
	return true
}
