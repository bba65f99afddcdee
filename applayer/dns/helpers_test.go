package dns

import (
	"encoding/binary"
	"strings"
)

// msgBuilder builds DNS messages for tests: a header, then raw appended bytes.
type msgBuilder struct{ b []byte }

func newMsg(id, flags, qd, an, ns, ar uint16) *msgBuilder {
	m := &msgBuilder{}
	for _, v := range []uint16{id, flags, qd, an, ns, ar} {
		m.b = binary.BigEndian.AppendUint16(m.b, v)
	}
	return m
}

// name appends a dotted name as labels and the root byte.
func (m *msgBuilder) name(n string) *msgBuilder {
	if n != "" {
		for _, l := range strings.Split(n, ".") {
			m.b = append(m.b, byte(len(l)))
			m.b = append(m.b, l...)
		}
	}
	m.b = append(m.b, 0)
	return m
}

func (m *msgBuilder) raw(b ...byte) *msgBuilder { m.b = append(m.b, b...); return m }

func (m *msgBuilder) u16(v ...uint16) *msgBuilder {
	for _, x := range v {
		m.b = binary.BigEndian.AppendUint16(m.b, x)
	}
	return m
}

func (m *msgBuilder) u32(v uint32) *msgBuilder { m.b = binary.BigEndian.AppendUint32(m.b, v); return m }

// question appends a question for name, type t, class IN.
func (m *msgBuilder) question(n string, t uint16) *msgBuilder { return m.name(n).u16(t, 1) }

// rr appends a record: owner given as raw name bytes, type, class IN, ttl, rdata.
func (m *msgBuilder) rr(owner []byte, t uint16, ttl uint32, rdata []byte) *msgBuilder {
	m.b = append(m.b, owner...)
	m.u16(t, 1).u32(ttl).u16(uint16(len(rdata)))
	m.b = append(m.b, rdata...)
	return m
}

// labels is a dotted name in wire form.
func labels(n string) []byte { return (&msgBuilder{}).name(n).b }

// ptr is a compression pointer to off.
func ptr(off int) []byte { return []byte{0xc0 | byte(off>>8), byte(off)} }

// tcp frames messages with their 2-byte lengths.
func tcp(msgs ...[]byte) []byte {
	var out []byte
	for _, m := range msgs {
		out = binary.BigEndian.AppendUint16(out, uint16(len(m)))
		out = append(out, m...)
	}
	return out
}

// googleQuery is a request for google.com A (id 0x1234, RD).
func googleQuery() []byte { return newMsg(0x1234, 0x0100, 1, 0, 0, 0).question("google.com", TypeA).b }

// googleResponse answers it: a CNAME to www.google.com (pointer into the question) and an A.
func googleResponse() []byte {
	m := newMsg(0x1234, 0x8180, 1, 2, 0, 0).question("google.com", TypeA)
	m.rr(ptr(12), TypeCNAME, 300, append(labels("www"), ptr(12)...))
	m.rr(ptr(12), TypeA, 60, []byte{142, 250, 1, 2})
	return m.b
}
