package payload

import (
	"math/bits"

	"github.com/meerkat-ids/meerkat/rules"
)

func baseOf(s string, def int) int {
	switch s {
	case "hex":
		return 16
	case "dec":
		return 10
	case "oct":
		return 8
	}
	return def
}

func compileByteTest(o *op, a *rules.ByteTest, lookup func(string, string) (int, error)) error {
	if a.DCE {
		return unsupported("byte_test", "dce")
	}
	o.kind = kByteTest
	o.nbytes = int(a.Nbytes)
	o.off = int64(a.Offset)
	o.value = a.Value
	o.relative = a.Relative
	o.little = a.Little
	o.str = a.String
	o.base = baseOf(a.Base, 0) // strtoull base 0: automatic
	o.negated = a.Negated
	if a.HasMask {
		o.hasMask, o.mask = true, uint64(a.Bitmask)
		if a.Bitmask != 0 {
			o.shift = uint(bits.TrailingZeros32(a.Bitmask))
		}
	}
	switch a.Op {
	case "<", ">", "=", "&", "^":
		o.btOp = a.Op[0]
	case "<=":
		o.btOp = 'l'
	case ">=":
		o.btOp = 'g'
	default:
		return unsupported("byte_test", "operator "+a.Op)
	}
	var err error
	if o.nbytesVar, err = lookup("byte_test", a.NbytesVar); err != nil {
		return err
	}
	if o.valueVar, err = lookup("byte_test", a.ValueVar); err != nil {
		return err
	}
	if o.offVar, err = lookup("byte_test", a.OffsetVar); err != nil {
		return err
	}
	return nil
}

func compileByteJump(o *op, a *rules.ByteJump, lookup func(string, string) (int, error)) error {
	if a.DCE {
		return unsupported("byte_jump", "dce")
	}
	if a.HasMask {
		return unsupported("byte_jump", "bitmask")
	}
	o.kind = kByteJump
	o.nbytes = int(a.Nbytes)
	o.off = int64(a.Offset)
	o.relative = a.Relative
	o.little = a.Little
	o.str = a.String
	o.base = baseOf(a.Base, 0)
	o.mult = uint64(a.Multiplier)
	if a.Multiplier == 0 {
		o.mult = 1
	}
	if a.Align {
		o.align = 4
	}
	o.postOff = int64(a.PostOffset)
	o.fromBegin = a.FromBeginning
	o.fromEnd = a.FromEnd
	var err error
	if o.nbytesVar, err = lookup("byte_jump", a.NbytesVar); err != nil {
		return err
	}
	if o.offVar, err = lookup("byte_jump", a.OffsetVar); err != nil {
		return err
	}
	return nil
}

func compileByteExtract(o *op, a *rules.ByteExtract) error {
	if a.Endian == "dce" {
		return unsupported("byte_extract", "dce")
	}
	o.kind = kByteExtract
	o.nbytes = int(a.Nbytes)
	o.off = int64(a.Offset)
	o.relative = a.Relative
	o.little = a.Endian == "little"
	o.str = a.String
	o.base = baseOf(a.Base, 10)
	o.mult = uint64(a.Multiplier)
	if o.mult == 0 {
		o.mult = 1
	}
	o.align = uint64(a.Align)
	return nil
}

func compileByteMath(o *op, a *rules.ByteMath, lookup func(string, string) (int, error)) error {
	if a.Endian == "dce" {
		return unsupported("byte_math", "dce")
	}
	o.kind = kByteMath
	o.nbytes = int(a.Nbytes)
	o.off = int64(a.Offset)
	o.relative = a.Relative
	o.little = a.Endian == "little"
	o.str = a.String != ""
	o.base = baseOf(a.String, 10)
	o.value = a.Rvalue
	if a.HasMask {
		o.hasMask, o.mask = true, uint64(a.Bitmask)
		if a.Bitmask != 0 {
			o.shift = uint(bits.TrailingZeros32(a.Bitmask))
		}
	}
	switch a.Oper {
	case "+", "-", "*", "/":
		o.oper = a.Oper[0]
	case "<<":
		o.oper = '<'
	case ">>":
		o.oper = '>'
	default:
		return unsupported("byte_math", "oper "+a.Oper)
	}
	var err error
	if o.nbytesVar, err = lookup("byte_math", a.NbytesVar); err != nil {
		return err
	}
	if o.valueVar, err = lookup("byte_math", a.RvalueVar); err != nil {
		return err
	}
	return nil
}

// extractBin reads n (<= 8) bytes as an unsigned integer.
func extractBin(b []byte, little bool) uint64 {
	var v uint64
	if little {
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// strtoull mimics ByteExtractString(base, len, str, non-strict): C strtoull over the first n
// bytes (stopping at a NUL). It returns the value and the number of bytes consumed; ok is
// false when there is no number or it overflows.
func strtoull(b []byte, base int) (uint64, int, bool) {
	if len(b) == 0 || len(b) > 23 {
		return 0, 0, false
	}
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if (base == 0 || base == 16) && i+1 < len(b) && b[i] == '0' && (b[i+1] == 'x' || b[i+1] == 'X') &&
		i+2 < len(b) && digitVal(b[i+2]) < 16 {
		i += 2
		base = 16
	} else if base == 0 {
		if i < len(b) && b[i] == '0' {
			base = 8
		} else {
			base = 10
		}
	}
	start := i
	var v uint64
	overflow := false
	for i < len(b) {
		d := digitVal(b[i])
		if d >= base {
			break
		}
		hi, lo := bits.Mul64(v, uint64(base))
		if hi != 0 {
			overflow = true
		}
		lo2, carry := bits.Add64(lo, uint64(d), 0)
		if carry != 0 {
			overflow = true
		}
		v = lo2
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if overflow {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// readValue extracts nbytes at ptr (already validated to lie in buf).
func (o *op) readValue(b []byte, base int) (uint64, int, bool) {
	if o.str {
		return strtoull(b, base)
	}
	return extractBin(b, o.little), len(b), true
}

func (o *op) byteTest(buf []byte, st *State) bool {
	blen := int64(len(buf))
	if blen == 0 {
		return false
	}
	off := o.off
	if o.offVar != noVar {
		off = int64(int32(st.vars[o.offVar]))
	}
	value := o.value
	if o.valueVar != noVar {
		value = st.vars[o.valueVar]
	}
	nbytes := int64(o.nbytes)
	if o.nbytesVar != noVar {
		nbytes = int64(int32(st.vars[o.nbytesVar]))
		if !((o.str && nbytes <= 23) || nbytes <= 8) {
			return false
		}
	}
	var ptr, l int64
	if o.relative {
		ptr = int64(st.bo) + off
		l = blen - ptr
		if l <= 0 {
			return false
		}
	} else {
		ptr = off
		l = blen - off
	}
	if ptr < 0 || nbytes > l || nbytes < 0 {
		return false
	}
	val, n, ok := o.readValue(buf[ptr:ptr+nbytes], o.base)
	if !ok || n <= 0 && o.str {
		return false
	}
	if o.hasMask {
		val &= o.mask
		if val != 0 && o.shift != 0 {
			val >>= o.shift
		}
	}
	var m bool
	switch o.btOp {
	case '=':
		m = val == value
	case '<':
		m = val < value
	case '>':
		m = val > value
	case '&':
		m = val&value != 0
	case '^':
		m = val^value != 0
	case 'g':
		m = val >= value
	case 'l':
		m = val <= value
	}
	return m != o.negated
}

func (o *op) byteJump(buf []byte, st *State) bool {
	blen := int64(len(buf))
	if blen == 0 {
		return false
	}
	off := o.off
	if o.offVar != noVar {
		off = int64(int32(st.vars[o.offVar]))
	}
	nbytes := int64(o.nbytes)
	if o.nbytesVar != noVar {
		nbytes = int64(int32(st.vars[o.nbytesVar]))
		if !((o.str && nbytes <= 23) || nbytes <= 8) {
			return false
		}
	}
	ptr := off
	l := blen - off
	if o.relative {
		ptr += int64(st.bo)
		l -= int64(st.bo)
		if nbytes != 0 && l <= 0 {
			return false
		}
	}
	if ptr < 0 || nbytes > l || nbytes < 0 {
		return false
	}
	var val uint64
	var ext int
	if o.str {
		var ok bool
		val, ext, ok = strtoull(buf[ptr:ptr+nbytes], o.base)
		if !ok {
			return false
		}
	} else {
		val, ext = extractBin(buf[ptr:ptr+nbytes], o.little), int(nbytes)
	}
	val *= o.mult
	if o.align != 0 && val%4 != 0 {
		val += 4 - val%4
	}
	val += uint64(o.postOff)
	var jump int64
	switch {
	case o.fromBegin:
		jump = int64(val)
	case o.fromEnd:
		jump = blen + int64(val)
	default:
		jump = ptr + int64(val) + int64(ext)
	}
	if jump < 0 {
		jump = 0
	} else if jump > blen {
		return false
	}
	st.bo = uint32(jump)
	return true
}

func (o *op) byteExtract(buf []byte, st *State) bool {
	blen := int64(len(buf))
	if blen == 0 {
		return false
	}
	var ptr, l int64
	if o.relative {
		ptr = int64(st.bo) + o.off
		l = blen - ptr
		if l <= 0 {
			return false
		}
	} else {
		ptr = o.off
		l = blen - o.off
	}
	nbytes := int64(o.nbytes)
	if ptr < 0 || nbytes > l {
		return false
	}
	val, ext, ok := o.readValue(buf[ptr:ptr+nbytes], o.base)
	if !ok {
		return false
	}
	val *= o.mult
	if o.align != 0 && val%o.align != 0 {
		val += o.align - val%o.align
	}
	st.bo = uint32(ptr + int64(ext))
	st.vars[o.resultVar] = val
	return true
}

func (o *op) byteMath(buf []byte, st *State) bool {
	blen := int64(len(buf))
	if blen == 0 {
		return false
	}
	nbytes := int64(o.nbytes)
	if o.nbytesVar != noVar {
		nbytes = int64(uint8(st.vars[o.nbytesVar]))
	}
	if !(nbytes >= 1 && ((o.str && nbytes <= 10) || nbytes <= 4)) {
		return false
	}
	rvalue := o.value
	if o.valueVar != noVar {
		rvalue = st.vars[o.valueVar]
	}
	var ptr, l int64
	if o.relative {
		ptr = int64(st.bo) + o.off
		l = blen - ptr
		if l <= 0 {
			return false
		}
	} else {
		ptr = o.off
		l = blen - o.off
	}
	if ptr < 0 || nbytes > l {
		return false
	}
	val, ext, ok := o.readValue(buf[ptr:ptr+nbytes], o.base)
	if !ok {
		return false
	}
	switch o.oper {
	case '+':
		val += rvalue
	case '-':
		val -= rvalue
	case '/':
		if rvalue == 0 {
			return false
		}
		val /= rvalue
	case '*':
		val *= rvalue
	case '<':
		if rvalue < 64 {
			val <<= rvalue
		} else {
			val = 0
		}
	case '>':
		val >>= rvalue
	}
	st.bo = uint32(ptr + int64(ext))
	if o.hasMask {
		val &= o.mask
		if val != 0 && o.shift != 0 {
			val >>= o.shift
		}
	}
	st.vars[o.resultVar] = val
	return true
}
