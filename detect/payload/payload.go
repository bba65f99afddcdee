// Package payload evaluates the payload keywords of one inspection buffer of a rule (content
// and its modifiers, isdataat, byte_test, byte_jump, byte_extract, byte_math, pcre, bsize,
// urilen) with Suricata's semantics (detect-engine-content-inspection.c), including the
// backtracking of relative chains and the inspection recursion limit.
package payload

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/meerkat-ids/meerkat/detect/dataset"
	"github.com/meerkat-ids/meerkat/detect/pcre"
	"github.com/meerkat-ids/meerkat/rules"
)

// RecursionLimit is detect.inspection-recursion-limit: the number of keyword evaluations one
// Inspect may make before it gives up (no match). Set it before compiling/inspecting.
var RecursionLimit = 3000

// supported keywords (canonical names).
var supported = map[string]bool{
	"content": true, "isdataat": true, "byte_test": true, "byte_jump": true,
	"byte_extract": true, "byte_math": true, "pcre": true, "bsize": true, "urilen": true,
	"base64_decode": true, "base64_data": true, "dataset": true, "datarep": true,
}

// Supports reports whether the engine can evaluate keyword (canonical name) inside a buffer.
func Supports(keyword string) bool { return supported[keyword] }

// UnsupportedError is the error of a keyword (or keyword option) Compile cannot evaluate.
// Its text is exactly "keyword <name> is not supported yet"; Detail says why.
type UnsupportedError struct {
	Keyword string
	Detail  string
}

func (e *UnsupportedError) Error() string {
	return "keyword " + e.Keyword + " is not supported yet"
}

func unsupported(kw, detail string) error { return &UnsupportedError{Keyword: kw, Detail: detail} }

// Reason returns the detail of an UnsupportedError (or the error text).
func Reason(err error) string {
	var ue *UnsupportedError
	if errors.As(err, &ue) {
		if ue.Detail != "" {
			return ue.Keyword + ": " + ue.Detail
		}
		return ue.Keyword
	}
	return err.Error()
}

type kind uint8

const (
	kContent kind = iota + 1
	kIsDataAt
	kByteTest
	kByteJump
	kByteExtract
	kByteMath
	kPCRE
	kBsize
	kUrilen
	kBase64Decode
	kDataset // dataset and datarep (dataset.go)
)

// noVar marks a numeric (not variable) operand.
const noVar = -1

// op is one compiled keyword.
type op struct {
	kind kind
	last bool // last keyword of the buffer

	// content
	pat        []byte
	lower      []byte // lower-cased pattern for nocase
	skip       *[256]int
	nocase     bool
	negated    bool
	relative   bool // distance or within
	hasDist    bool
	hasWithin  bool
	endsWith   bool
	withinNext bool // DETECT_CONTENT_WITHIN_NEXT: a later keyword depends on this match
	single     bool // DETECT_CONTENT_IS_SINGLE
	distance   int32
	within     int32
	depth      uint32 // absolute end (offset+depth) for constants, 0 when none
	offset     uint32
	distVar    int
	withinVar  int
	depthVar   int
	offsetVar  int
	depthRaw   uint32 // depth as written (for var combinations)
	absSet     bool   // depth, offset or startswith given (DETECT_CONTENT_DEPTH/OFFSET flags)

	// isdataat
	dataat  uint32
	dataVar int

	// byte keywords
	nbytes    int
	nbytesVar int
	off       int64
	offVar    int
	value     uint64
	valueVar  int
	btOp      byte // '<' '>' '=' 'l' (<=) 'g' (>=) '&' '^'
	little    bool
	str       bool
	base      int
	mask      uint64
	hasMask   bool
	shift     uint
	mult      uint64
	align     uint64
	postOff   int64
	fromBegin bool
	fromEnd   bool
	resultVar int
	oper      byte // + - * / < (<<) > (>>)

	// pcre
	re      *pcre.Regexp
	relNext bool // DETECT_PCRE_RELATIVE_NEXT

	// bsize / urilen
	im rules.IntMatch

	// base64_decode (base64.go): at most b64Bytes input bytes from b64Offset (relative: from
	// the inspection offset); b64 is the rule's base64_data list, nil when it has none.
	b64Bytes  uint32
	b64Offset uint32
	b64       *Program

	// dataset/datarep (dataset.go): the set, the command and datarep's operand.
	set   *dataset.Set
	dsCmd byte
	rep   uint16
}

// Program is the compiled payload keywords of one buffer of one rule.
type Program struct {
	ops   []op
	nvars int
	// HasPCRE is set when the program holds a pcre (which may allocate when it matches).
	HasPCRE bool
}

// State is per-worker scratch reused for every evaluation (no allocation per packet):
// byte_extract/byte_math variables, the recursion counter, match positions.
type State struct {
	vars      []uint64
	bo        uint32 // det_ctx->buffer_offset
	pcreStart uint32 // det_ctx->pcre_match_start_offset
	count     int
	limit     int
	// Recursions is the recursion counter of the last Inspect (for tests and stats).
	Recursions int
	// rx is the pcre scratch; its Spent is the time regexp2 evaluations took on this packet
	// (PCREPacketBudget). PCREBudgetHits counts the evaluations refused because it was spent,
	// PCRETimeouts the evaluations stopped by PCREMatchTimeout (neither is ever reset).
	rx             pcre.Scratch
	PCREBudgetHits uint64
	PCRETimeouts   uint64
	// b64 is det_ctx->base64_decoded (allocated on first use, then reused), b64Len
	// det_ctx->base64_decoded_len: what the last base64_decode of this packet decoded.
	b64    []byte
	b64Len int
}

// StartPacket begins a packet: the regexp2 time budget starts again, and the base64_decode
// buffer is emptied (DetectRunSetup resets base64_decoded_len per packet).
func (st *State) StartPacket() { st.rx.Spent, st.b64Len = 0, 0 }

// NewState returns a State.
func NewState() *State { return &State{vars: make([]uint64, 16)} }

// Compile builds a Program from a buffer's matches. A keyword it cannot evaluate gives an
// error whose text is exactly: keyword <name> is not supported yet
//
// A base64_decode in b behaves as in a rule without a base64_data list (it never matches);
// CompileRule gives it the rule's list.
func Compile(b *rules.Buffer) (*Program, error) { return CompileRule(nil, b) }

// CompileRule is Compile for buffer b of rule r: a base64_decode in b inspects r's
// base64_data list (r may be nil: no list). The list shares b's byte_extract/byte_math
// variables, as Suricata's signature-wide variable slots do.
func CompileRule(r *rules.Rule, b *rules.Buffer) (*Program, error) {
	c := &compiler{vars: map[string]int{}, rule: r}
	if r != nil {
		if l := r.Buffer("base64_data"); l != nil && len(l.Matches) > 0 {
			c.b64List = l
		}
	}
	p := &Program{}
	if err := c.list(b, p); err != nil {
		return nil, err
	}
	if c.b64 != nil {
		c.b64.nvars = len(c.vars)
		p.HasPCRE = p.HasPCRE || c.b64.HasPCRE
	}
	p.nvars = len(c.vars)
	return p, nil
}

// compiler is the state of one CompileRule: the variables (numbered across the buffer and
// its base64_data list) and the base64_data list, compiled once when a base64_decode needs it.
type compiler struct {
	vars    map[string]int
	b64List *rules.Buffer
	b64     *Program
	rule    *rules.Rule // nil from Compile
}

// base64Data returns the compiled base64_data list, nil when the rule has none.
func (c *compiler) base64Data() (*Program, error) {
	if c.b64 != nil || c.b64List == nil {
		return c.b64, nil
	}
	c.b64 = &Program{} // a base64_decode inside the list refers to the list itself
	if err := c.list(c.b64List, c.b64); err != nil {
		return nil, err
	}
	return c.b64, nil
}

// list compiles the matches of b into p.
func (c *compiler) list(b *rules.Buffer, p *Program) error {
	vars := c.vars
	lookup := func(kw, name string) (int, error) {
		if name == "" {
			return noVar, nil
		}
		i, ok := vars[name]
		if !ok {
			return 0, unsupported(kw, "variable "+name+" defined outside the buffer")
		}
		return i, nil
	}
	define := func(name string) int {
		if i, ok := vars[name]; ok {
			return i
		}
		vars[name] = len(vars)
		return len(vars) - 1
	}
	// lastPM is the index of the last content/pcre op, for the *_NEXT flags.
	lastPM := -1
	for _, m := range b.Matches {
		if !supported[m.Name] {
			return unsupported(m.Name, "")
		}
		if m.Name == "base64_decode" {
			// DetectBase64DecodeSetup sets no *_NEXT flag on the previous content or pcre.
			o, err := c.base64Decode(m)
			if err != nil {
				return err
			}
			p.ops = append(p.ops, o)
			continue
		}
		o := op{distVar: noVar, withinVar: noVar, depthVar: noVar, offsetVar: noVar, dataVar: noVar,
			nbytesVar: noVar, offVar: noVar, valueVar: noVar, resultVar: noVar}
		relNextOnPrev := false // this keyword sets RELATIVE_NEXT on the previous content/pcre
		withinOnPrev := false  // sets only WITHIN_NEXT-relevant flag (content with distance only does not)
		var err error
		switch a := m.Arg.(type) {
		case *rules.Content:
			err = compileContent(&o, a, lookup)
			if a.Relative() {
				relNextOnPrev = true
				// A positive content with distance only sets DISTANCE_NEXT on the previous
				// content, which does not make it re-search.
				withinOnPrev = a.Within.Set || a.Negated
			}
		case *rules.IsDataAt:
			o.kind = kIsDataAt
			o.negated = a.Negated
			o.relative = a.Relative
			o.dataat = uint32(a.Offset)
			o.dataVar, err = lookup(m.Name, a.Var)
			relNextOnPrev, withinOnPrev = a.Relative, a.Relative
		case *rules.ByteTest:
			err = compileByteTest(&o, a, lookup)
			relNextOnPrev, withinOnPrev = a.Relative, a.Relative
		case *rules.ByteJump:
			err = compileByteJump(&o, a, lookup)
			relNextOnPrev, withinOnPrev = a.Relative, a.Relative
		case *rules.ByteExtract:
			err = compileByteExtract(&o, a)
			if err == nil {
				o.resultVar = define(a.Name)
			}
			relNextOnPrev, withinOnPrev = a.Relative, a.Relative
		case *rules.ByteMath:
			err = compileByteMath(&o, a, lookup)
			if err == nil {
				o.resultVar = define(a.Result)
			}
			relNextOnPrev, withinOnPrev = a.Relative, a.Relative
		case *rules.PCRE:
			err = compilePCREOp(&o, a, b.Name)
			relNextOnPrev, withinOnPrev = a.Relative, a.Relative
			p.HasPCRE = true
		case *rules.Dataset:
			err = compileDataset(&o, c.rule, a)
		case rules.IntMatch:
			o.im = a
			if m.Name == "bsize" {
				o.kind = kBsize
			} else {
				o.kind = kUrilen
			}
		default:
			return unsupported(m.Name, fmt.Sprintf("argument %T", m.Arg))
		}
		if err != nil {
			return err
		}
		if relNextOnPrev && lastPM >= 0 {
			prev := &p.ops[lastPM]
			if prev.kind == kPCRE {
				prev.relNext = true
			} else if withinOnPrev {
				prev.withinNext = true
			}
			if prev.kind == kContent {
				prev.relNext = true
			}
		}
		if o.kind == kContent || o.kind == kPCRE {
			lastPM = len(p.ops)
		}
		p.ops = append(p.ops, o)
	}
	for i := range p.ops {
		o := &p.ops[i]
		if o.kind == kContent {
			// DETECT_CONTENT_IS_SINGLE: no distance, within, relative next, depth, offset.
			o.single = !o.relative && !o.relNext && !o.absSet
		}
	}
	if len(p.ops) > 0 {
		p.ops[len(p.ops)-1].last = true
	}
	return nil
}

func compileContent(o *op, c *rules.Content, lookup func(string, string) (int, error)) error {
	o.kind = kContent
	o.pat = c.Pattern
	o.negated = c.Negated
	o.nocase = c.Nocase
	o.endsWith = c.EndsWith
	o.relative = c.Relative()
	o.hasDist = c.Distance.Set
	o.hasWithin = c.Within.Set
	var err error
	if o.distVar, err = lookup("content", c.Distance.Var); err != nil {
		return err
	}
	if o.withinVar, err = lookup("content", c.Within.Var); err != nil {
		return err
	}
	if o.depthVar, err = lookup("content", c.Depth.Var); err != nil {
		return err
	}
	if o.offsetVar, err = lookup("content", c.Offset.Var); err != nil {
		return err
	}
	o.distance = c.Distance.Value
	o.within = c.Within.Value
	o.absSet = c.Offset.Set || c.Depth.Set || c.StartsWith
	if c.Offset.Set && c.Offset.Var == "" {
		o.offset = uint32(c.Offset.Value)
	}
	if c.StartsWith {
		o.depthRaw = uint32(len(c.Pattern))
		o.depth = o.depthRaw
	}
	if c.Depth.Set && c.Depth.Var == "" {
		o.depthRaw = uint32(c.Depth.Value)
		o.depth = o.depthRaw
		if o.offsetVar == noVar {
			o.depth += o.offset // Suricata stores depth as offset+depth
		}
	}
	if o.nocase {
		o.lower = make([]byte, len(c.Pattern))
		hasAlpha := false
		for i, ch := range c.Pattern {
			o.lower[i] = lowerASCII(ch)
			if lowerASCII(ch) != upperASCII(ch) {
				hasAlpha = true
			}
		}
		if !hasAlpha {
			o.nocase = false
		} else {
			o.skip = new([256]int)
			n := len(o.lower)
			for i := range o.skip {
				o.skip[i] = n
			}
			for i := 0; i < n-1; i++ {
				ch := o.lower[i]
				o.skip[ch] = n - 1 - i
				o.skip[upperASCII(ch)] = n - 1 - i
			}
		}
	}
	return nil
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

// search returns the index of the content in s, or -1.
func (o *op) search(s []byte) int {
	if !o.nocase {
		return bytes.Index(s, o.pat)
	}
	// Horspool, ASCII case-insensitive.
	n := len(o.lower)
	last := n - 1
	for i := 0; i+n <= len(s); {
		j := last
		for j >= 0 && lowerASCII(s[i+j]) == o.lower[j] {
			j--
		}
		if j < 0 {
			return i
		}
		i += o.skip[s[i+last]]
	}
	return -1
}

// Inspect runs the program over buf (the buffer's bytes for this packet). Returns true when
// every keyword matched, with Suricata's semantics.
func (p *Program) Inspect(buf []byte, st *State) bool {
	if len(p.ops) == 0 {
		return true
	}
	if len(st.vars) < p.nvars {
		st.vars = make([]uint64, p.nvars)
	}
	st.bo = 0
	st.pcreStart = 0
	st.count = 0
	st.limit = RecursionLimit
	r := p.inspect(0, buf, st)
	st.Recursions = st.count
	return r == 1
}

// inspect evaluates ops[i:] and returns 1 (match), 0 (no match) or -1 (no match, give up).
func (p *Program) inspect(i int, buf []byte, st *State) int {
	st.count++
	if st.count == st.limit {
		return -1
	}
	o := &p.ops[i]
	blen := uint32(len(buf))
	switch o.kind {
	case kContent:
		return p.content(i, o, buf, st)
	case kIsDataAt:
		dataat := o.dataat
		if o.dataVar != noVar {
			v := st.vars[o.dataVar]
			if v >= 100000000 {
				if !o.negated {
					return 0
				}
				return p.next(i, buf, st)
			}
			dataat = uint32(v)
		}
		if o.relative {
			if uint64(st.bo)+uint64(dataat) > uint64(blen) {
				if o.negated {
					return p.next(i, buf, st)
				}
				if o.dataVar == noVar {
					return -1
				}
				return 0
			}
			if o.negated {
				return 0
			}
			return p.next(i, buf, st)
		}
		if dataat < blen {
			if o.negated {
				if o.dataVar == noVar {
					return -1
				}
				return 0
			}
			return p.next(i, buf, st)
		}
		if o.negated {
			return p.next(i, buf, st)
		}
		if o.dataVar == noVar {
			return -1
		}
		return 0
	case kByteTest:
		if !o.byteTest(buf, st) {
			return 0
		}
		return p.next(i, buf, st)
	case kByteJump:
		if !o.byteJump(buf, st) {
			return 0
		}
		return p.next(i, buf, st)
	case kByteExtract:
		if !o.byteExtract(buf, st) {
			return 0
		}
		return p.next(i, buf, st)
	case kByteMath:
		if !o.byteMath(buf, st) {
			return 0
		}
		return p.next(i, buf, st)
	case kPCRE:
		return p.pcre(i, o, buf, st)
	case kBase64Decode:
		return o.base64Decode(buf, st)
	case kDataset:
		// DETECT_DATASET/DETECT_DATAREP: no match discontinues the inspection.
		if !o.datasetMatch(buf) {
			return -1
		}
		return p.next(i, buf, st)
	case kBsize:
		if !o.im.Match(uint64(blen)) {
			return -1
		}
		return p.next(i, buf, st)
	case kUrilen:
		l := uint64(blen)
		if l > 65535 {
			l = 65535
		}
		if !o.im.Match(l) {
			return -1
		}
		return p.next(i, buf, st)
	}
	return 0
}

// next is Suricata's "match" label: inspect the next keyword or report the match.
func (p *Program) next(i int, buf []byte, st *State) int {
	if p.ops[i].last {
		return 1
	}
	return p.inspect(i+1, buf, st)
}

func (p *Program) content(i int, o *op, buf []byte, st *State) int {
	blen := uint32(len(buf))
	var prevOffset uint32
	prevBO := st.bo
	for {
		depth := blen
		var offset uint32
		if o.relative {
			offset = prevBO
			distance := int32(0)
			if o.hasDist {
				distance = o.distance
				if o.distVar != noVar {
					distance = int32(uint32(st.vars[o.distVar]))
				}
				if distance < 0 && uint32(-int64(distance)) > offset {
					offset = 0
				} else {
					offset += uint32(distance)
				}
			}
			if o.hasWithin {
				if o.withinVar != noVar {
					end := uint64(prevBO) + st.vars[o.withinVar] + uint64(int64(distance))
					if int32(depth) > int32(uint32(end)) {
						depth = uint32(end)
					}
				} else {
					end := prevBO + uint32(o.within) + uint32(distance)
					if int32(depth) > int32(end) {
						depth = end
					}
				}
			}
		} else {
			if o.depthVar != noVar {
				depth = uint32(st.vars[o.depthVar])
			} else if o.depth != 0 {
				depth = o.depth
			}
			if o.offsetVar != noVar {
				offset = uint32(st.vars[o.offsetVar])
				if o.depthVar == noVar && o.depthRaw != 0 {
					depth = o.depthRaw
				}
			} else {
				offset = o.offset
			}
			if o.offsetVar != noVar || o.depthVar != noVar {
				if o.depthVar == noVar && o.depthRaw == 0 {
					depth = blen
				}
				depth += offset
			}
		}
		if prevOffset != 0 {
			offset = prevOffset
		}
		if depth > blen {
			depth = blen
		}
		if offset > depth || depth == 0 {
			if o.negated {
				return p.next(i, buf, st)
			}
			return 0
		}
		sbuf := buf[offset:depth]
		found := -1
		if o.endsWith && depth < blen {
			found = -1
		} else if len(o.pat) <= len(sbuf) {
			found = o.search(sbuf)
		}
		if found < 0 {
			if !o.negated {
				if !o.relative {
					return -1
				}
				return 0
			}
			return p.next(i, buf, st)
		}
		matchOffset := offset + uint32(found) + uint32(len(o.pat))
		if o.negated {
			if o.endsWith && uint32(len(sbuf)) != matchOffset {
				return p.next(i, buf, st)
			}
			if o.single {
				return -1
			}
			return 0
		}
		st.bo = matchOffset
		if !o.endsWith || matchOffset == blen {
			if o.last {
				return 1
			}
			r := p.inspect(i+1, buf, st)
			if r == 1 {
				return 1
			} else if r == -1 {
				return -1
			}
			if !o.withinNext {
				return -1
			}
		}
		prevOffset = matchOffset - (uint32(len(o.pat)) - 1)
	}
}

func (p *Program) pcre(i int, o *op, buf []byte, st *State) int {
	prevBO := st.bo
	st.pcreStart = 0
	for {
		if !o.pcreMatch(buf, st) {
			return 0
		}
		if !o.relNext {
			return p.next(i, buf, st)
		}
		prevOffset := st.pcreStart
		r := p.inspect(i+1, buf, st)
		if r == 1 {
			return 1
		} else if r == -1 {
			return -1
		}
		if prevOffset == 0 {
			return 0
		}
		st.bo = prevBO
		st.pcreStart = prevOffset
	}
}

// pcreMatch is DetectPcrePayloadMatch.
func (o *op) pcreMatch(buf []byte, st *State) bool {
	base := uint32(0)
	if o.relative {
		base = st.bo
	}
	if base > uint32(len(buf)) {
		return o.negated
	}
	subj := buf[base:]
	start := 0
	if st.pcreStart != 0 {
		start = int(st.pcreStart - base)
	}
	if start > len(subj) {
		// PCRE2_ERROR_BADOFFSET: a matching error is no match, negated or not.
		return false
	}
	needPos := o.relNext
	s, e, res := o.findPCRE(subj, start, needPos, st)
	if res < 0 {
		return false // matching error (timeout): no match, negated or not
	}
	if res == 0 {
		return o.negated
	}
	if o.negated {
		return false
	}
	if needPos {
		st.bo = base + uint32(e)
		st.pcreStart = base + uint32(s) + 1
	}
	return true
}
