package rules

import (
	"strconv"
	"strings"
)

// ByteTest is a byte_test keyword.
type ByteTest struct {
	// Nbytes is the number of bytes to read (NbytesVar when a variable).
	Nbytes    uint8
	NbytesVar string
	// Op is "<", ">", "=", "<=", ">=", "&" or "^"; Negated inverts it.
	Op      string
	Negated bool
	// Value and Offset are the operands (or variables).
	Value     uint64
	ValueVar  string
	Offset    int32
	OffsetVar string
	// Relative, Little (endianness, big by default), String with Base ("hex", "dec", "oct"),
	// DCE and Bitmask are the options.
	Relative bool
	Little   bool
	String   bool
	Base     string
	DCE      bool
	Bitmask  uint32
	HasMask  bool
}

// ByteJump is a byte_jump keyword.
type ByteJump struct {
	// Nbytes is the number of bytes to read (NbytesVar when a variable).
	Nbytes    uint8
	NbytesVar string
	// Offset is where to read (OffsetVar when a variable).
	Offset    int32
	OffsetVar string
	// Relative, Little, String with Base, Align, FromBeginning, FromEnd and DCE are the
	// options of the same names.
	Relative      bool
	Little        bool
	String        bool
	Base          string
	Align         bool
	FromBeginning bool
	FromEnd       bool
	DCE           bool
	// Multiplier (1 by default) and PostOffset adjust the jump.
	Multiplier uint32
	PostOffset int32
	// Bitmask is applied to the value when HasMask is set.
	Bitmask uint32
	HasMask bool
}

// ByteExtract is a byte_extract keyword.
type ByteExtract struct {
	// Nbytes bytes are read at Offset into the variable Name.
	Nbytes uint8
	Offset int16
	Name   string
	// Relative reads relative to the previous match.
	Relative bool
	// Endian is "big", "little", "dce" or "" (big).
	Endian string
	// String reads the value as text in Base ("hex", "dec", "oct"; decimal by default).
	String bool
	Base   string
	// Align (2 or 4, 0 when not given) and Multiplier (0 when not given) adjust the value.
	Align      uint8
	Multiplier uint16
}

// ByteMath is a byte_math keyword.
type ByteMath struct {
	// Nbytes bytes (NbytesVar when a variable) are read at Offset.
	Nbytes    uint8
	NbytesVar string
	Offset    int32
	// Oper is + - * / << or >>; Rvalue (or RvalueVar) the right operand.
	Oper      string
	Rvalue    uint64
	RvalueVar string
	// Result is the variable that receives the result.
	Result string
	// Relative reads relative to the previous match.
	Relative bool
	// Endian is "big", "little", "dce" or "" (big).
	Endian string
	// String is the base ("hex", "dec", "oct") when the value is read as text.
	String string
	// Bitmask is applied to the value when HasMask is set.
	Bitmask uint32
	HasMask bool
}

// splitArgs splits a comma separated argument list and trims each part.
func splitArgs(s string) []string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// isVarName reports whether s names a byte variable (starts with a letter).
func isVarName(s string) bool { return s != "" && s[0] != '-' && isAlpha(s[0]) }

// validateNbytes applies byte_test/byte_jump's limits.
func validateNbytes(n uint64, str bool, base string, kw string) error {
	if str && n <= 23 || n <= 8 {
		if !str && base != "" {
			return errf("Cannot use a base without \"string\"")
		}
		return nil
	}
	if str {
		return errf("Cannot test more than 23 bytes with \"string\"")
	} else {
		if n > 8 {
			return errf("Cannot test more than 8 bytes without \"string\"")
		}
		if base != "" {
			return errf("Cannot use a base without \"string\"")
		}
	}
	return nil
}

func (p *ruleParser) needVar(kw, name string) error {
	if !p.byteVars[name] {
		return errf("Unknown byte_extract var seen in %s - %s", kw, name)
	}
	return nil
}

// placeByteOption finishes a byte_* keyword: it stores the parsed argument and its canonical
// text on o, makes a dce-endian keyword outside a sticky buffer set the rule's app-layer
// protocol to dcerpc (as Suricata does), and appends o, relative or not.
func (p *ruleParser) placeByteOption(o *Option, arg any, value string, dce, relative bool) error {
	o.Arg = arg
	o.Value = value
	if dce && p.list == "" {
		if err := p.setAppProto("dcerpc"); err != nil {
			return err
		}
	}
	return p.appendRelative(o, relative)
}

// defineByteVar records name as a byte variable later keywords of the rule may use.
func (p *ruleParser) defineByteVar(name string) {
	if p.byteVars == nil {
		p.byteVars = map[string]bool{}
	}
	p.byteVars[name] = true
}

// appendRelative places a payload keyword that may be relative.
func (p *ruleParser) appendRelative(o *Option, relative bool) error {
	list, name, err := p.relativeTarget(relative)
	if err != nil {
		return err
	}
	p.appendTo(list, name, o)
	return nil
}

func setupByteTest(p *ruleParser, o *Option, arg string) error {
	a := splitArgs(arg)
	if len(a) < 4 || len(a) > 10 {
		return errf("parse error, string %s", arg)
	}
	bt := &ByteTest{}
	var n uint64
	if isVarName(a[0]) {
		bt.NbytesVar = a[0]
	} else {
		v, err := parseUintStrict(a[0], 0xffffffff)
		if err != nil {
			return errf("Malformed number of bytes: %s", a[0])
		}
		n = v
	}
	op := a[1]
	if strings.HasPrefix(op, "!") {
		bt.Negated = true
		op = strings.TrimLeft(op[1:], " \t")
	}
	switch op {
	case "=", "<", ">", "&", "^", ">=", "<=":
		bt.Op = op
	case "":
		if !bt.Negated {
			return errf("Invalid operator")
		}
		bt.Op = "="
	default:
		return errf("Invalid operator")
	}
	if isVarName(a[2]) {
		bt.ValueVar = a[2]
	} else {
		v, err := parseUintLooseBase0(a[2])
		if err != nil {
			return errf("Malformed value: %s", a[2])
		}
		bt.Value = v
	}
	if isVarName(a[3]) {
		bt.OffsetVar = a[3]
	} else {
		v, err := parseIntC(a[3], -2147483648, 2147483647)
		if err != nil {
			return errf("Malformed offset: %s", a[3])
		}
		bt.Offset = int32(v)
	}
	for _, opt := range a[4:] {
		switch {
		case opt == "relative":
			bt.Relative = true
		case strings.EqualFold(opt, "string"):
			bt.String = true
		case strings.EqualFold(opt, "dec"), strings.EqualFold(opt, "hex"), strings.EqualFold(opt, "oct"):
			bt.Base = strings.ToLower(opt)
		case strings.EqualFold(opt, "big"):
			bt.Little = false
		case strings.EqualFold(opt, "little"):
			bt.Little = true
		case strings.EqualFold(opt, "dce"):
			bt.DCE = true
		case len(opt) >= 7 && strings.EqualFold(opt[:7], "bitmask"):
			v, err := parseUintLooseBase0(strings.TrimSpace(opt[7:]))
			if err != nil || v > 0xffffffff {
				return errf("Malformed bitmask value: %s", opt[7:])
			}
			bt.Bitmask, bt.HasMask = uint32(v), true
		default:
			return errf("Unknown value: \"%s\"", opt)
		}
	}
	if bt.NbytesVar == "" {
		if err := validateNbytes(n, bt.String, bt.Base, "byte_test"); err != nil {
			return err
		}
		bt.Nbytes = uint8(n)
	}
	for _, v := range []string{bt.NbytesVar, bt.ValueVar, bt.OffsetVar} {
		if v != "" {
			if err := p.needVar("byte_test", v); err != nil {
				return err
			}
		}
	}
	return p.placeByteOption(o, bt, strings.Join(a, ","), bt.DCE, bt.Relative)
}

// parseUintLooseBase0 is ByteExtractStringUint64 with base 0 (non strict).
func parseUintLooseBase0(s string) (uint64, error) {
	t := strings.TrimLeft(s, " \t")
	if t == "" {
		return 0, errf("invalid number \"%s\"", s)
	}
	base := 10
	digits := "0123456789"
	switch {
	case len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X"):
		base, digits, t = 16, "0123456789abcdefABCDEF", t[2:]
	case len(t) > 1 && t[0] == '0':
		base, digits, t = 8, "01234567", t[1:]
	}
	i := 0
	for i < len(t) && strings.IndexByte(digits, t[i]) >= 0 {
		i++
	}
	if i == 0 {
		if base == 8 {
			return 0, nil
		}
		return 0, errf("invalid number \"%s\"", s)
	}
	v, err := strconv.ParseUint(t[:i], base, 64)
	if err != nil {
		return 0, errf("invalid number \"%s\"", s)
	}
	return v, nil
}

func setupByteJump(p *ruleParser, o *Option, arg string) error {
	a := splitArgs(arg)
	if len(a) < 2 || len(a) > 11 {
		return errf("parse error, string \"%s\"", arg)
	}
	bj := &ByteJump{Multiplier: 1}
	var n uint64
	if isVarName(a[0]) {
		bj.NbytesVar = a[0]
	} else {
		v, err := parseUintStrict(a[0], 0xffffffff)
		if err != nil {
			return errf("Malformed number of bytes: %s", a[0])
		}
		n = v
	}
	if isVarName(a[1]) {
		bj.OffsetVar = a[1]
	} else {
		v, err := parseIntC(a[1], -2147483648, 2147483647)
		if err != nil {
			return errf("Malformed offset: %s", a[1])
		}
		bj.Offset = int32(v)
	}
	for _, opt := range a[2:] {
		name, val, _ := strings.Cut(opt, " ")
		val = strings.TrimSpace(val)
		switch {
		case opt == "relative":
			bj.Relative = true
		case strings.EqualFold(opt, "string"):
			bj.String = true
		case strings.EqualFold(opt, "dec"), strings.EqualFold(opt, "hex"), strings.EqualFold(opt, "oct"):
			bj.Base = strings.ToLower(opt)
		case strings.EqualFold(opt, "big"):
			bj.Little = false
		case strings.EqualFold(opt, "little"):
			bj.Little = true
		case strings.EqualFold(opt, "align"):
			bj.Align = true
		case strings.EqualFold(opt, "from_beginning"):
			bj.FromBeginning = true
		case strings.EqualFold(opt, "from_end"):
			bj.FromEnd = true
		case strings.EqualFold(opt, "dce"):
			bj.DCE = true
		case strings.EqualFold(name, "multiplier"):
			v, err := parseUintC(val, 0xffffffff)
			if err != nil {
				return errf("Malformed multiplier: %s", opt)
			}
			bj.Multiplier = uint32(v)
		case strings.EqualFold(name, "post_offset"):
			v, err := parseIntC(val, -2147483648, 2147483647)
			if err != nil {
				return errf("Malformed post_offset: %s", opt)
			}
			bj.PostOffset = int32(v)
		case len(opt) >= 7 && strings.EqualFold(opt[:7], "bitmask"):
			v, err := parseUintLooseBase0(strings.TrimSpace(opt[7:]))
			if err != nil || v > 0xffffffff {
				return errf("Malformed bitmask value: %s", opt[7:])
			}
			bj.Bitmask, bj.HasMask = uint32(v), true
		default:
			return errf("Unknown option: \"%s\"", opt)
		}
	}
	if bj.FromEnd && bj.FromBeginning {
		return errf("'from_end' and 'from_beginning' cannot be mixed in the same byte_jump option.")
	}
	if bj.NbytesVar == "" {
		if err := validateNbytes(n, bj.String, bj.Base, "byte_jump"); err != nil {
			return err
		}
		bj.Nbytes = uint8(n)
	}
	for _, v := range []string{bj.NbytesVar, bj.OffsetVar} {
		if v != "" {
			if err := p.needVar("byte_jump", v); err != nil {
				return err
			}
		}
	}
	return p.placeByteOption(o, bj, strings.Join(a, ","), bj.DCE, bj.Relative)
}

func setupByteExtract(p *ruleParser, o *Option, arg string) error {
	raw := strings.Split(arg, ",")
	for i := range raw {
		raw[i] = strings.TrimLeft(raw[i], " \t\r\n")
	}
	if len(raw) < 3 || len(raw) > 10 {
		return errf("invalid byte_extract values: incorrect argument string; 3 to 10 values expected")
	}
	be := &ByteExtract{}
	n, err := strconv.ParseUint(raw[0], 10, 8)
	if err != nil {
		return errf("invalid byte_extract values: invalid nbytes value: %s", raw[0])
	}
	be.Nbytes = uint8(n)
	off, err := strconv.ParseInt(raw[1], 10, 16)
	if err != nil {
		return errf("invalid byte_extract values: invalid offset value: %s", raw[1])
	}
	be.Offset = int16(off)
	be.Name = strings.TrimSpace(raw[2])
	if be.Name == "" || strings.ContainsAny(be.Name, " \t") {
		return errf("invalid byte_extract values: invalid name: %s", raw[2])
	}
	seen := map[string]bool{}
	for _, v := range raw[3:] {
		name, val, _ := strings.Cut(strings.TrimSpace(v), " ")
		val = strings.TrimSpace(val)
		group := name
		switch name {
		case "dce", "big", "little":
			group = "endian"
		case "oct", "dec", "hex":
			group = "base"
		}
		if seen[group] {
			return errf("invalid byte_extract values: %s already set", group)
		}
		seen[group] = true
		switch name {
		case "align":
			a, err := strconv.ParseUint(val, 10, 8)
			if err != nil || (a != 2 && a != 4) {
				return errf("invalid byte_extract values: invalid align value: must be 2 or 4: %s", val)
			}
			be.Align = uint8(a)
		case "slice":
			return errf("byte_extract slice not yet supported; see issue #6831")
		case "dce", "big", "little":
			be.Endian = name
		case "string":
			if seen["base"] {
				return errf("invalid byte_extract values: base specified before string; use \"string, base\"")
			}
			be.String = true
		case "oct", "dec", "hex":
			if !be.String {
				return errf("invalid byte_extract values: string must be set first")
			}
			be.Base = name
		case "relative":
			be.Relative = true
		case "multiplier":
			m, err := strconv.ParseUint(val, 10, 32)
			if err != nil || m == 0 || m > 65535 {
				return errf("invalid byte_extract values: invalid multiplier value: %s", val)
			}
			be.Multiplier = uint16(m)
		default:
			return errf("invalid byte_extract values: unknown byte_extract option: %s", name)
		}
	}
	if be.String && be.Endian != "" {
		return errf("invalid byte_extract values: can't specify string and an endian value")
	}
	if be.String {
		max := uint8(20)
		switch be.Base {
		case "oct":
			max = 23
		case "hex":
			max = 14
		}
		if be.Nbytes > max {
			return errf("byte_extract can't process more than %d bytes in \"string\" extraction", max)
		}
	} else if be.Nbytes > 8 {
		return errf("byte_extract can't process more than 8 bytes in \"non-string\" extraction")
	}
	if err := p.placeByteOption(o, be, strings.Join(splitArgs(arg), ","), be.Endian == "dce", be.Relative); err != nil {
		return err
	}
	p.defineByteVar(be.Name)
	return nil
}

func setupByteMath(p *ruleParser, o *Option, arg string) error {
	raw := strings.Split(arg, ",")
	if len(raw) < 5 || len(raw) > 9 {
		return errf("invalid bytemath values: incorrect argument string; 5 to 9 values expected")
	}
	bm := &ByteMath{}
	seen := map[string]bool{}
	for _, v := range raw {
		v = strings.TrimSpace(v)
		name, val, _ := strings.Cut(v, " ")
		val = strings.TrimSpace(val)
		key := name
		if name == "dce" {
			key = "endian"
		}
		if seen[key] {
			return errf("invalid bytemath values: %s already set", key)
		}
		seen[key] = true
		switch name {
		case "oper":
			switch val {
			case "+", "-", "*", "/", "<<", ">>":
				bm.Oper = val
			default:
				return errf("invalid bytemath values: unknown oper value %s", val)
			}
		case "result":
			if !isVarName(val) || strings.ContainsAny(val, " \t") {
				return errf("invalid bytemath values: invalid result: %s", val)
			}
			bm.Result = val
		case "rvalue":
			if isVarName(val) {
				bm.RvalueVar = val
			} else {
				r, err := strconv.ParseUint(val, 10, 32)
				if err != nil {
					return errf("invalid bytemath values: invalid rvalue value: %s", val)
				}
				bm.Rvalue = r
			}
		case "endian":
			if val != "big" && val != "little" && val != "dce" {
				return errf("invalid bytemath values: invalid endian value: %s", val)
			}
			bm.Endian = val
		case "dce":
			bm.Endian = "dce"
		case "string":
			if val != "hex" && val != "dec" && val != "oct" {
				return errf("invalid bytemath values: invalid string value: %s", val)
			}
			bm.String = val
		case "relative":
			bm.Relative = true
		case "bitmask":
			m, err := parseUintLooseBase0(val)
			if err != nil || m > 0xffffffff {
				return errf("invalid bytemath values: invalid bitmask value: %s", val)
			}
			bm.Bitmask, bm.HasMask = uint32(m), true
		case "offset":
			off, err := strconv.ParseInt(val, 10, 32)
			if err != nil || off < -65535 || off > 65535 {
				return errf("invalid bytemath values: invalid offset value: must be between -65535 and 65535: %s", val)
			}
			bm.Offset = int32(off)
		case "bytes":
			if isVarName(val) {
				bm.NbytesVar = val
			} else {
				n, err := strconv.ParseUint(val, 10, 8)
				if err != nil || n < 1 || n > 10 {
					return errf("invalid bytemath values: invalid nbytes value: must be between 1 and 10: %s", val)
				}
				bm.Nbytes = uint8(n)
			}
		default:
			return errf("invalid bytemath values: unknown byte_math keyword: %s", name)
		}
	}
	for _, k := range []string{"oper", "result", "rvalue", "offset", "bytes"} {
		if !seen[k] {
			return errf("invalid bytemath values: required byte_math parameters missing: \"%s\"", arg)
		}
	}
	if (bm.Oper == "<<" || bm.Oper == ">>") && bm.Nbytes > 4 {
		return errf("invalid bytemath values: nbytes must be 1 through 4 (inclusive) when used with \"<<\" or \">>\"; %d is not valid", bm.Nbytes)
	}
	if bm.String != "" && bm.Endian != "" {
		return errf("byte_math: string and endian are mutually exclusive")
	}
	for _, v := range []string{bm.NbytesVar, bm.RvalueVar} {
		if v != "" && !p.byteVars[v] {
			return errf("unknown byte_ keyword var seen in byte_math - %s", v)
		}
	}
	if bm.Relative && p.list != "" && p.lastMatch("content", "pcre") == nil {
		return errf("relative specified without previous pattern match")
	}
	if err := p.placeByteOption(o, bm, strings.Join(splitArgs(arg), ","), bm.Endian == "dce", bm.Relative); err != nil {
		return err
	}
	p.defineByteVar(bm.Result)
	return nil
}

func init() {
	register(
		&Keyword{Name: "byte_test", Kind: KindPayload, Desc: "extract bytes and compare them", setup: setupByteTest},
		&Keyword{Name: "byte_jump", Kind: KindPayload, Desc: "extract bytes and move the cursor", setup: setupByteJump},
		&Keyword{Name: "byte_extract", Kind: KindPayload, Desc: "extract bytes into a variable", setup: setupByteExtract},
		&Keyword{Name: "byte_math", Kind: KindPayload, Desc: "extract bytes, compute, store in a variable", setup: setupByteMath},
	)
}
