package rules

import (
	"strings"
)

// PCRE is a pcre match.
type PCRE struct {
	// Pattern is the regular expression between the slashes, as written.
	Pattern string
	// Flags are the modifiers after the closing slash, as written.
	Flags string
	// Negated is set for pcre:!"...".
	Negated bool
	// Relative is the R flag: match relative to the previous match.
	Relative bool
	// Caseless, Multiline, DotAll, Extended, Anchored, DollarEndOnly, Ungreedy and
	// MatchLimit are the i, m, s, x, A, E, G and O flags.
	Caseless, Multiline, DotAll, Extended, Anchored, DollarEndOnly, Ungreedy, MatchLimit bool
	// Rawbytes is the B flag (no-op).
	Rawbytes bool
	// Buffer is the buffer selected by a legacy buffer flag (U, H, P ...), "" when none.
	Buffer string
	// Captures are the variable captures after the regex ("flow:name", "pkt:name",
	// "alert:name"), in order.
	Captures []string
}

// pcreBufferFlags maps the legacy pcre buffer flags to their buffers.
var pcreBufferFlags = map[byte]string{
	'U': "http.uri", 'I': "http.uri.raw", 'P': "http.request_body", 'Q': "file.data",
	'H': "http.header", 'D': "http.header.raw", 'M': "http.method", 'C': "http.cookie",
	'S': "http.stat_code", 'Y': "http.stat_msg", 'V': "http.user_agent", 'W': "http.host",
	'Z': "http.host.raw",
}

// parsePCREBody splits "/regex/flags" the way Suricata's pcre keyword does: the regex runs
// from the first '/' not escaped by a backslash to the last '/' not escaped, the flags are
// what follows (up to a double quote).
func parsePCREBody(s string) (*PCRE, error) {
	start := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && (i == 0 || s[i-1] != '\\') {
			start = i
			break
		}
	}
	end := -1
	for i := len(s) - 1; i > start; i-- {
		if s[i] != '/' {
			continue
		}
		// not preceded by a backslash that is itself not escaped
		if i >= 1 && s[i-1] == '\\' && !(i >= 2 && s[i-2] == '\\') {
			continue
		}
		end = i
		break
	}
	if start < 0 || end <= start {
		return nil, errf("pcre parse error: %s", s)
	}
	pc := &PCRE{Pattern: s[start+1 : end], Flags: s[end+1:]}
	if k := strings.IndexByte(pc.Flags, '"'); k >= 0 {
		pc.Flags = pc.Flags[:k]
	}
	if err := checkRegexSyntax(pc.Pattern); err != nil {
		return nil, err
	}
	return pc, nil
}

// checkRegexSyntax catches regexes PCRE2 would refuse to compile, without claiming to be a
// full PCRE parser: unbalanced parentheses and brackets, a trailing backslash, a quantifier
// with nothing to repeat.
func checkRegexSyntax(re string) error {
	depth := 0
	inClass := false
	lastAtom := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		if c == '\\' {
			if i+1 >= len(re) {
				return errf("pcre2 compile of \"%s\" failed: \\ at end of pattern", re)
			}
			if !inClass && (re[i+1] == 'Q') {
				// \Q...\E literal
				j := strings.Index(re[i+2:], "\\E")
				if j < 0 {
					return nil
				}
				i += j + 3
				lastAtom = true
				continue
			}
			i++
			lastAtom = true
			continue
		}
		if inClass {
			if c == ']' {
				inClass = false
				lastAtom = true
			}
			continue
		}
		switch c {
		case '[':
			inClass = true
			if i+1 < len(re) && re[i+1] == '^' {
				i++
			}
			if i+1 < len(re) && re[i+1] == ']' {
				i++ // a leading ']' is literal
			}
		case '(':
			depth++
			lastAtom = false
			if i+1 < len(re) && re[i+1] == '?' {
				i++
				// (?#comment)
				if i+1 < len(re) && re[i+1] == '#' {
					j := strings.IndexByte(re[i:], ')')
					if j < 0 {
						return errf("pcre2 compile of \"%s\" failed: missing ) after (?# comment", re)
					}
					i += j
					depth--
				}
			}
			continue
		case ')':
			depth--
			if depth < 0 {
				return errf("pcre2 compile of \"%s\" failed: unmatched closing parenthesis", re)
			}
			lastAtom = true
			continue
		case '*', '+', '?':
			if !lastAtom && !(i > 0 && (re[i-1] == '*' || re[i-1] == '+' || re[i-1] == '?' || re[i-1] == '}')) {
				return errf("pcre2 compile of \"%s\" failed: quantifier does not follow a repeatable item", re)
			}
			continue
		case '|':
			lastAtom = false
			continue
		}
		lastAtom = true
	}
	if inClass {
		return errf("pcre2 compile of \"%s\" failed: missing terminating ] for character class", re)
	}
	if depth > 0 {
		return errf("pcre2 compile of \"%s\" failed: missing closing parenthesis", re)
	}
	return nil
}

// cutCaptures splits the capture list ("..., flow:name, pkt:name") off a pcre argument as
// Suricata does: at the first "flow:", "pkt:" or "alert:", with the separating commas and
// spaces before it.
func cutCaptures(s string) (string, []string) {
	cut := -1
	for _, k := range []string{"flow:", "pkt:", "alert:"} {
		if i := strings.Index(s, k); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut <= 1 {
		return s, nil
	}
	off := cut - 1
	for off > 0 && (s[off] == ',' || s[off] == ' ') {
		off--
	}
	if off+1 == cut {
		return s, nil
	}
	var caps []string
	for _, c := range strings.Split(s[cut:], ",") {
		if c = strings.TrimSpace(c); c != "" {
			caps = append(caps, c)
		}
	}
	return s[:off+1], caps
}

func setupPCRE(p *ruleParser, o *Option, arg string) error {
	body, caps := cutCaptures(arg)
	pc, err := parsePCREBody(body)
	if err != nil {
		return err
	}
	pc.Negated = o.Negated
	pc.Captures = caps
	for _, c := range caps {
		kind, name, ok := strings.Cut(c, ":")
		if !ok || (kind != "flow" && kind != "pkt" && kind != "alert") || name == "" {
			return errf("invalid pcre capture \"%s\"", c)
		}
	}
	if len(caps) > 8 {
		return errf("rule can have maximally 8 pkt/flow/alert captures")
	}
	buffer := ""
	alp := ""
	for i := 0; i < len(pc.Flags); i++ {
		f := pc.Flags[i]
		switch f {
		case 'A':
			pc.Anchored = true
		case 'E':
			pc.DollarEndOnly = true
		case 'G':
			pc.Ungreedy = true
		case 'i':
			pc.Caseless = true
		case 'm':
			pc.Multiline = true
		case 's':
			pc.DotAll = true
		case 'x':
			pc.Extended = true
		case 'O':
			pc.MatchLimit = true
		case 'R':
			pc.Relative = true
		case 'B':
			if buffer != "" {
				return errf("regex modifier 'B' inconsistent with chosen buffer")
			}
			pc.Rawbytes = true
		default:
			buf, ok := pcreBufferFlags[f]
			if !ok {
				return errf("unknown regex modifier '%c'", f)
			}
			if pc.Rawbytes && f != 'D' && f != 'P' && f != 'Q' && f != 'Y' && f != 'S' {
				return errf("regex modifier '%c' inconsistent with 'B'", f)
			}
			if buffer != "" {
				return errf("only one pcre option to specify a buffer type is allowed")
			}
			buffer = buf
			alp = "http1"
		}
	}
	pc.Buffer = buffer
	if buffer == "http.host" && !pc.Caseless && pcreHasUpper(pc.Pattern) {
		return errf("pcre host(\"W\") specified has an uppercase char.  Since the hostname buffer we match against is actually lowercase, please specify an all lowercase based pcre.")
	}
	o.Arg = pc
	var b *Buffer
	if p.list != "" {
		if buffer != "" && buffer != p.listName {
			return errf("Expression seen with a sticky buffer still set; either (1) reset sticky buffer with pkt_data or (2) use a sticky buffer providing \"%s\".", buffer)
		}
		if b, err = p.appendPayload(o); err != nil {
			return err
		}
	} else if buffer != "" {
		if p.r.AppProto != "" && !appProtoEquals(p.r.AppProto, alp) {
			return errf("rule contains conflicting alprotos set")
		}
		if err := p.setAppProto(alp); err != nil {
			return err
		}
		b = p.appendTo(buffer, buffer, o)
		if buffer == "file.data" {
			p.inspectsFiles = true
		}
	} else {
		b = p.appendTo(listPayload, "", o)
	}
	for _, c := range caps {
		if strings.HasPrefix(c, "flow:") {
			p.r.flowvarCapture = true
		}
	}
	if pc.Relative {
		prev := lastInList(b, o, "content", "pcre")
		if p.list == "" && prev == nil {
			return errf("pcre with /R (relative) needs preceding match in the same buffer")
		}
	}
	return nil
}

// pcreHasUpper reports whether a regex holds an upper-case letter outside escapes.
func pcreHasUpper(re string) bool {
	meta, metaHex, hexCnt := false, false, 0
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case metaHex:
			hexCnt++
			if hexCnt == 2 {
				metaHex, hexCnt = false, 0
			}
		case meta:
			if c == 'x' {
				metaHex = true
			} else {
				meta = false
			}
		case c == '\\':
			meta = true
		case c >= 'A' && c <= 'Z':
			return true
		}
	}
	return false
}

func init() {
	register(&Keyword{Name: "pcre", Kind: KindPayload, Flags: KwQuotesOptional | KwNegation | KwFirewall,
		Desc: "match a Perl-compatible regular expression", setup: setupPCRE})
}
