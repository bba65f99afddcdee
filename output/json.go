// Package output writes Meerkat's logs the way Suricata writes them: EVE JSON records (alert,
// drop, flow, stats) with Suricata's field names, key order and timestamp format, and fast.log
// lines. Records are built by appending to reusable byte buffers, so logging allocates nothing
// once the buffers have grown.
package output

import (
	"encoding/base64"
	"net/netip"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// JSON appends one JSON document to a byte buffer, keeping keys in the order they are added.
// The zero value is ready; Reset starts a new document over a buffer.
type JSON struct {
	B     []byte
	depth int
	// nonEmpty has bit d set when the container at depth d already holds a member.
	nonEmpty uint64
	clock    timeCache
}

// timeCache remembers the formatted date, time and zone of a few recent seconds (direct
// mapped by the second), so most timestamps only format their microseconds. A flow record
// carries three timestamps of different seconds, hence more than one slot.
type timeCache struct {
	slots [8]timeSlot
}

type timeSlot struct {
	sec    int64
	prefix [24]byte // "2006-01-02T15:04:05"
	zone   [8]byte  // "+0000"
	valid  bool
}

// fill formats t's local date, time and zone offset into the slot by hand (time.AppendFormat
// cost 300 ns a record where records are seconds apart, as policy drops are). It reports false
// for a local year outside 0-9999, which the fixed-width prefix cannot hold.
func (s *timeSlot) fill(t time.Time) bool {
	lt := t.Local()
	y, mo, d := lt.Date()
	hh, mm, ss := lt.Clock()
	_, off := lt.Zone()
	if y < 0 || y > 9999 {
		return false
	}
	two := func(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
	p := append(s.prefix[:0], byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	p = append(two(p, int(mo)), '-')
	p = append(two(p, d), 'T')
	p = append(two(p, hh), ':')
	p = append(two(p, mm), ':')
	two(p, ss)
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	z := append(s.zone[:0], sign)
	two(two(z, off/3600), off/60%60)
	return true
}

func (c *timeCache) appendTime(b []byte, t time.Time) []byte {
	sec := t.Unix()
	if sec < 0 || sec > 253402300799 { // outside years 1970-9999: no fixed-width prefix
		return AppendTime(b, t)
	}
	s := &c.slots[uint64(sec)&7]
	if !s.valid || sec != s.sec {
		if !s.fill(t) {
			return AppendTime(b, t)
		}
		s.sec, s.valid = sec, true
	}
	b = append(b, s.prefix[:19]...)
	us := t.Nanosecond() / 1000
	b = append(b, '.', byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
		byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10))
	return append(b, s.zone[:5]...)
}

// Reset starts a new document, reusing the buffer's memory.
func (j *JSON) Reset() {
	j.B = j.B[:0]
	j.depth = 0
	j.nonEmpty = 0
}

func (j *JSON) sep() {
	bit := uint64(1) << uint(j.depth&63)
	if j.nonEmpty&bit != 0 {
		j.B = append(j.B, ',')
	}
	j.nonEmpty |= bit
}

func (j *JSON) key(k string) {
	j.sep()
	j.B = append(j.B, '"')
	j.B = append(j.B, k...)
	j.B = append(j.B, '"', ':')
}

func (j *JSON) push(c byte) {
	j.B = append(j.B, c)
	j.depth++
	j.nonEmpty &^= uint64(1) << uint(j.depth&63)
}

// Begin opens the top-level object.
func (j *JSON) Begin() { j.push('{') }

// End closes the top-level object.
func (j *JSON) End() { j.Close('}') }

// Object opens a member object named k.
func (j *JSON) Object(k string) {
	j.key(k)
	j.push('{')
}

// Array opens a member array named k.
func (j *JSON) Array(k string) {
	j.key(k)
	j.push('[')
}

// ElemObject opens an object as the next element of the current array.
func (j *JSON) ElemObject() {
	j.sep()
	j.push('{')
}

// Close closes the innermost object ('}') or array (']').
func (j *JSON) Close(c byte) {
	j.B = append(j.B, c)
	j.depth--
}

// String adds a string member.
func (j *JSON) String(k, v string) {
	j.key(k)
	j.B = AppendJSONString(j.B, v)
}

// Bytes adds a string member from bytes (escaped as Suricata escapes them).
func (j *JSON) Bytes(k string, v []byte) {
	j.key(k)
	j.B = appendJSONBytes(j.B, v)
}

// Uint adds an unsigned number member.
func (j *JSON) Uint(k string, v uint64) {
	j.key(k)
	j.B = strconv.AppendUint(j.B, v, 10)
}

// Int adds a signed number member.
func (j *JSON) Int(k string, v int64) {
	j.key(k)
	j.B = strconv.AppendInt(j.B, v, 10)
}

// Bool adds a boolean member.
func (j *JSON) Bool(k string, v bool) {
	j.key(k)
	j.B = strconv.AppendBool(j.B, v)
}

// Time adds a timestamp member in Suricata's format.
func (j *JSON) Time(k string, t time.Time) {
	j.key(k)
	j.B = append(j.B, '"')
	j.B = j.clock.appendTime(j.B, t)
	j.B = append(j.B, '"')
}

// IP adds an address member in Suricata's notation.
func (j *JSON) IP(k string, a netip.Addr) {
	j.key(k)
	j.B = append(j.B, '"')
	j.B = AppendIP(j.B, a)
	j.B = append(j.B, '"')
}

// ElemUint adds a number as the next element of the current array.
func (j *JSON) ElemUint(v uint64) {
	j.sep()
	j.B = strconv.AppendUint(j.B, v, 10)
}

// ElemString adds a string as the next element of the current array.
func (j *JSON) ElemString(v string) {
	j.sep()
	j.B = AppendJSONString(j.B, v)
}

// Base64 adds a string member holding v in standard base64.
func (j *JSON) Base64(k string, v []byte) {
	j.key(k)
	j.B = append(j.B, '"')
	j.B = base64.StdEncoding.AppendEncode(j.B, v)
	j.B = append(j.B, '"')
}

// PrintableASCII adds a string member holding v with only printable ASCII kept, as
// Suricata's set_print_ascii: CR and LF are escaped, every other control or non-ASCII byte
// becomes '.'.
func (j *JSON) PrintableASCII(k string, v []byte) {
	j.key(k)
	j.B = append(j.B, '"')
	for _, c := range v {
		switch {
		case c == '\r':
			j.B = append(j.B, '\\', 'r')
		case c == '\n':
			j.B = append(j.B, '\\', 'n')
		case c == '"' || c == '\\':
			j.B = append(j.B, '\\', c)
		case c < 0x20 || c >= 0x7f:
			j.B = append(j.B, '.')
		default:
			j.B = append(j.B, c)
		}
	}
	j.B = append(j.B, '"')
}

// Raw adds a member whose value is already encoded JSON.
func (j *JSON) Raw(k string, v []byte) {
	j.key(k)
	j.B = append(j.B, v...)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string. Control characters are escaped; invalid UTF-8
// bytes are written as \u00XX so the line stays valid JSON.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		// The run of bytes that need no escape goes in with one append.
		j := i
		for j < len(s) && jsonPlain[s[j]] {
			j++
		}
		b = append(b, s[i:j]...)
		if i = j; i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		b = appendEscape(b, c)
		i++
	}
	return append(b, '"')
}

// jsonPlain marks the bytes a JSON string holds as they are: printable ASCII except '"' and
// '\\'.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONBytes is AppendJSONString for a byte slice. It reads the bytes in place through
// an unsafe string view, which does not outlive the call.
func appendJSONBytes(b []byte, s []byte) []byte {
	return AppendJSONString(b, unsafe.String(unsafe.SliceData(s), len(s)))
}

func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"':
		return append(b, '\\', '"')
	case '\\':
		return append(b, '\\', '\\')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
}

// AppendTime appends t in Suricata's EVE format, local time zone:
// 2023-09-18T06:13:41.532140+0000.
func AppendTime(b []byte, t time.Time) []byte {
	return t.Local().AppendFormat(b, "2006-01-02T15:04:05.000000-0700")
}

// AppendFastTime appends t in fast.log's format: 09/18/2023-06:13:41.532140.
func AppendFastTime(b []byte, t time.Time) []byte {
	return t.Local().AppendFormat(b, "01/02/2006-15:04:05.000000")
}

// AppendIP appends a in Suricata's notation: dotted quad for IPv4, and for IPv6 all eight
// groups with four hex digits each (Suricata does not compress zeros).
func AppendIP(b []byte, a netip.Addr) []byte {
	if a.Is4() {
		return a.AppendTo(b)
	}
	if !a.IsValid() {
		return b
	}
	v := a.As16()
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hexDigits[v[i]>>4], hexDigits[v[i]&15], hexDigits[v[i+1]>>4], hexDigits[v[i+1]&15])
	}
	return b
}
