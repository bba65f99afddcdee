package rules

import (
	"strconv"
	"strings"
)

// IsDataAt is an isdataat keyword.
type IsDataAt struct {
	Negated  bool
	Offset   uint16
	Var      string
	Relative bool
	Rawbytes bool
}

func setupIsDataAt(p *ruleParser, o *Option, arg string) error {
	s := strings.TrimSpace(arg)
	id := &IsDataAt{}
	if strings.HasPrefix(s, "!") {
		id.Negated = true
		s = s[1:]
	}
	parts := splitArgs(s)
	if parts[0] == "" || strings.ContainsAny(parts[0], " \t") || len(parts) > 3 {
		return errf("pcre_exec parse error, string %s", arg)
	}
	for i, q := range parts[1:] {
		switch {
		case q == "relative" && i == 0:
			id.Relative = true
		case q == "rawbytes" && i == 1 && id.Relative:
			id.Rawbytes = true
		default:
			return errf("pcre_exec parse error, string %s", arg)
		}
	}
	if isVarName(parts[0]) {
		if !p.byteVars[parts[0]] {
			return errf("Unknown byte_extract var seen in isdataat - %s", parts[0])
		}
		id.Var = parts[0]
	} else {
		v, err := parseUintStrict(parts[0], 65535)
		if err != nil {
			return errf("isdataat out of range")
		}
		id.Offset = uint16(v)
	}
	o.Arg = id
	o.Value = strings.Join(parts, ",")
	if id.Negated {
		o.Value = "!" + o.Value
	}
	// "isdataat:!1,relative" right after a content is endswith.
	var prev *Option
	if id.Relative {
		if p.list != "" {
			prev = p.lastMatch("content", "pcre")
		} else {
			prev = p.lastMatch("content", "pcre", "byte_test", "byte_jump", "byte_extract", "isdataat", "byte_math")
		}
	}
	if prev != nil && prev.Name == "content" && id.Var == "" && id.Offset == 1 && id.Relative && id.Negated {
		if _, err := p.activeList(); err != nil {
			return err
		}
		prev.Arg.(*Content).EndsWith = true
		return nil
	}
	return p.appendRelative(o, id.Relative)
}

func setupAbsent(p *ruleParser, o *Option, arg string) error {
	if p.list == "" || p.list == listBase64 {
		return errf("no buffer for absent keyword")
	}
	switch strings.TrimSpace(arg) {
	case "", "or_else":
	default:
		return errf("unhandled value for absent keyword: %s", arg)
	}
	if p.curbuf != nil && len(p.curbuf.Matches) > 0 {
		return errf("absent must come first right after buffer")
	}
	o.Value = strings.TrimSpace(arg)
	_, err := p.appendPayload(o)
	return err
}

func setupDsize(p *ruleParser, o *Option, arg string) error {
	for _, m := range p.r.Matches {
		if m.Name == "dsize" {
			return errf("Can't use 2 or more dsizes in the same sig.  Invalidating signature.")
		}
	}
	m, err := ParseIntMatch(arg, 65535)
	if err != nil {
		return err
	}
	o.Arg = m
	o.Value = m.String()
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupBsize(p *ruleParser, o *Option, arg string) error {
	list, err := p.activeList()
	if err != nil {
		return err
	}
	if list == "" {
		return errf("bsize needs a sticky buffer")
	}
	m, err := ParseIntMatch(arg, ^uint64(0))
	if err != nil {
		return err
	}
	o.Arg = m
	o.Value = m.String()
	p.appendTo(list, p.listName, o)
	return nil
}

// requiredContentSize mirrors SigParseRequiredContentSize over a buffer's matches.
func requiredContentSize(ms []*Option, max uint64) (int, int) {
	total, maxOff := 0, 0
	first := true
	for _, m := range ms {
		c, ok := m.Arg.(*Content)
		if !ok {
			continue
		}
		dist := 0
		if c.Distance.Var == "" {
			dist = int(c.Distance.Value)
		}
		if !first {
			if !c.Relative() {
				continue
			}
			if c.Negated {
				within := 0
				if c.Within.Var == "" {
					within = int(c.Within.Value)
				}
				if check := total + dist + within; check > 0 && uint64(check) > max {
					return check, 0
				}
				continue
			}
		}
		total += len(c.Pattern) + dist
		if c.Offset.Var == "" && int(c.Offset.Value) > maxOff {
			maxOff = int(c.Offset.Value)
		}
		first = false
	}
	return total, maxOff
}

// checkBsize rejects buffers whose contents can't fit in their bsize.
func (p *ruleParser) checkBsize() error {
	for _, b := range p.r.Buffers {
		var bs *IntMatch
		for _, m := range b.Matches {
			if m.Name == "bsize" {
				im := m.Arg.(IntMatch)
				bs = &im
				break
			}
		}
		if bs == nil {
			continue
		}
		var max uint64
		switch bs.Op {
		case "<", "=":
			max = bs.A
		case "<>":
			max = bs.B
		default:
			continue
		}
		l, off := requiredContentSize(b.Matches, max)
		if uint64(l) > max || uint64(l+off) > max {
			need := l
			if uint64(l) <= max {
				need += off
			}
			if bs.Op == "<>" {
				return errf("signature can't match as required content length %d exceeds bsize range: %d-%d", need, bs.A, bs.B)
			}
			return errf("signature can't match as required content length %d exceeds bsize value: %d", need, bs.A)
		}
	}
	return nil
}

// checkDsize rejects payload contents that can't fit in the dsize.
func (p *ruleParser) checkDsize() error {
	var ds *IntMatch
	for _, m := range p.r.Matches {
		if m.Name == "dsize" {
			im := m.Arg.(IntMatch)
			ds = &im
		}
	}
	if ds == nil || p.payload == nil {
		return nil
	}
	var max uint64
	switch ds.Op {
	case "<", "=", "!=":
		max = ds.A
	case "<>":
		max = ds.B
	default:
		return nil
	}
	l, off := requiredContentSize(p.payload.Matches, max)
	need := -1
	if uint64(l) > max {
		need = l
	} else if uint64(l+off) > max {
		need = l + off
	}
	if need >= 0 {
		return errf("signature can't match as required content length %d exceeds dsize value %d", need, max)
	}
	return nil
}

func setupURILen(p *ruleParser, o *Option, arg string) error {
	val, mod, hasMod := strings.Cut(arg, ",")
	if hasMod {
		mod = strings.TrimSpace(mod)
		if mod != "raw" && mod != "norm" {
			return errf("invalid urilen modifier \"%s\": expected raw or norm", mod)
		}
	}
	m, err := ParseIntMatch(strings.TrimSpace(val), 65535)
	if err != nil {
		return err
	}
	o.Arg = m
	o.Value = m.String()
	if hasMod {
		o.Value += "," + mod
	}
	if err := p.setAppProto("http"); err != nil {
		return err
	}
	buf := "http.uri"
	if mod == "raw" {
		buf = "http.uri.raw"
	}
	p.appendTo(buf, buf, o)
	return nil
}

func setupEntropy(p *ruleParser, o *Option, arg string) error {
	sawValue := false
	for _, part := range splitArgs(arg) {
		name, val, _ := strings.Cut(part, " ")
		val = strings.TrimSpace(val)
		switch name {
		case "bytes":
			if _, err := parseUintStrict(val, 0xffffffff); err != nil {
				return errf("invalid entropy bytes \"%s\"", val)
			}
		case "offset":
			if _, err := strconv.ParseInt(val, 10, 32); err != nil {
				return errf("invalid entropy offset \"%s\"", val)
			}
		case "value":
			v := strings.TrimLeft(val, "<>=! ")
			if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
				// ranges "a-b" are allowed too
				a, b, ok := strings.Cut(v, "-")
				_, e1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
				_, e2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
				if !ok || e1 != nil || e2 != nil {
					return errf("invalid entropy value \"%s\"", val)
				}
			}
			sawValue = true
		default:
			return errf("invalid entropy option \"%s\"", part)
		}
	}
	if !sawValue {
		return errf("entropy needs a value")
	}
	_, err := p.appendPayload(o)
	return err
}

func setupBase64Decode(p *ruleParser, o *Option, arg string) error {
	relative := false
	if strings.TrimSpace(arg) != "" {
		for _, part := range splitArgs(arg) {
			name, val, _ := strings.Cut(part, " ")
			val = strings.TrimSpace(val)
			switch name {
			case "bytes", "offset":
				if _, err := parseUintStrict(val, 0xffffffff); err != nil {
					return errf("invalid base64_decode %s \"%s\"", name, val)
				}
			case "relative":
				relative = true
			default:
				return errf("invalid base64_decode option \"%s\"", part)
			}
		}
	}
	return p.appendRelative(o, relative)
}

func setupASN1(p *ruleParser, o *Option, arg string) error {
	for _, part := range splitArgs(arg) {
		name, val, _ := strings.Cut(part, " ")
		val = strings.TrimSpace(val)
		switch name {
		case "bitstring_overflow", "double_overflow":
			if val != "" {
				return errf("invalid asn1 option \"%s\"", part)
			}
		case "oversize_length", "absolute_offset":
			if _, err := parseUintStrict(val, 0xffffffff); err != nil {
				return errf("invalid asn1 option \"%s\"", part)
			}
		case "relative_offset":
			if _, err := strconv.ParseInt(val, 10, 32); err != nil {
				return errf("invalid asn1 option \"%s\"", part)
			}
		default:
			return errf("invalid asn1 option \"%s\"", part)
		}
	}
	o.Value = strings.Join(splitArgs(arg), ",")
	p.r.RequirePacket = true
	p.appendTo(listPayload, "", o)
	return nil
}

// setupDataset parses dataset (DetectDatasetSetup) and datarep (DetectDatarepSetup) into a
// *Dataset; both need a sticky buffer.
func setupDataset(p *ruleParser, o *Option, arg string) error {
	list, err := p.activeList()
	if err != nil {
		return err
	}
	if list == "" {
		return errf("%s needs a sticky buffer", o.Name)
	}
	var d *Dataset
	if o.Name == "dataset" {
		d, err = parseDataset(arg)
	} else {
		d, err = parseDatarep(arg)
	}
	if err != nil {
		return err
	}
	o.Arg = d
	p.appendTo(list, p.listName, o)
	return nil
}

func init() {
	register(
		&Keyword{Name: "isdataat", Kind: KindPayload, Desc: "check that data is present at an offset", setup: setupIsDataAt},
		&Keyword{Name: "absent", Kind: KindPayload, Flags: KwOptionalOpt, Desc: "the buffer is absent", setup: setupAbsent},
		&Keyword{Name: "dsize", Kind: KindMatch, Flags: KwFirewall | KwRequirePacket, Desc: "packet payload size", setup: setupDsize},
		&Keyword{Name: "bsize", Kind: KindPayload, Flags: KwFirewall, Desc: "length of the current buffer", setup: setupBsize},
		&Keyword{Name: "urilen", Kind: KindPayload, Flags: KwFirewall, AppProtos: []string{"http"}, Desc: "length of the HTTP URI", setup: setupURILen},
		&Keyword{Name: "entropy", Kind: KindPayload, Desc: "Shannon entropy of the buffer", setup: setupEntropy},
		&Keyword{Name: "base64_decode", Kind: KindPayload, Flags: KwOptionalOpt, Desc: "decode base64 data", setup: setupBase64Decode},
		&Keyword{Name: "asn1", Kind: KindPayload, Desc: "ASN.1 decoding checks", setup: setupASN1},
		&Keyword{Name: "dataset", Kind: KindPayload, Desc: "match the buffer against a dataset", setup: setupDataset},
		&Keyword{Name: "datarep", Kind: KindPayload, Desc: "match the buffer's reputation in a dataset", setup: setupDataset},
	)
}
