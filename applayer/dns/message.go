// Package dns is the DNS parser over UDP and TCP (rust/src/dns/dns.rs, parser.rs): one
// transaction per message and direction, the inspection buffers and integer keywords of the
// dns.* rule keywords (rust/src/dns/detect.rs), and the probing parsers of both transports.
//
// The message parser is hand-written and allocation-free once warm: a transaction keeps its
// names and rdata in one byte arena, its records in slices that are reused with the tx.
package dns

import (
	"bytes"
	"encoding/binary"
)

// The header flag bits (dns_parse_header's flags word).
const (
	FlagQR = 0x8000
	FlagAA = 0x0400
	FlagTC = 0x0200
	FlagRD = 0x0100
	FlagRA = 0x0080
	FlagZ  = 0x0040
)

// The record types the parser decodes (DNSRecordType).
const (
	TypeA     = 1
	TypeNS    = 2
	TypeCNAME = 5
	TypeSOA   = 6
	TypeNULL  = 10
	TypePTR   = 12
	TypeMX    = 15
	TypeTXT   = 16
	TypeAAAA  = 28
	TypeSRV   = 33
	TypeOPT   = 41
	TypeSSHFP = 44
)

// headerLen is DNS_HEADER_SIZE.
const headerLen = 12

// The limits of dns_parse_name: an assembled name is cut to maxNameLen bytes, and more than
// maxLabelSteps labels and pointers end it.
const (
	maxNameLen    = 1025
	maxLabelSteps = 255
)

// maxArena bounds the bytes one message's names and rdata may take (pointers let a 64 KiB
// message name far more): a message that needs more is malformed. Suricata has no such
// limit; no real message comes near it.
const maxArena = 1 << 20

// Name flags (DNSNameFlags), accumulated over a message.
const (
	nameTruncated = 1 << iota
	nameInfiniteLoop
	nameLabelLimit
)

// Header is the 12-byte message header.
type Header struct {
	ID, Flags                          uint16
	QDCount, ANCount, NSCount, ARCount uint16
}

// Opcode is the header's opcode field.
func (h *Header) Opcode() uint8 { return uint8(h.Flags >> 11 & 0xf) }

// Rcode is the header's 4-bit rcode.
func (h *Header) Rcode() uint8 { return uint8(h.Flags & 0xf) }

// Span is a run of bytes in a message's arena (Message.Bytes): a name, a string or raw
// rdata. Truncated marks a name cut by the parser's limits (DNSNameFlags::TRUNCATED).
type Span struct {
	Off, Len  uint32
	Truncated bool
}

// Query is one question.
type Query struct {
	Name        Span
	Type, Class uint16
}

// Opt is one option of an OPT record.
type Opt struct {
	Code uint16
	Data Span
}

// RR is one resource record with its decoded rdata (DNSAnswerEntry, DNSRData): Target is
// the name of CNAME, PTR, NS, MX (after the preference), SRV and the mname of SOA; RName the
// SOA rname; Nums the SOA serial, refresh, retry, expire, minimum, the SRV priority, weight,
// port, or the SSHFP algorithm and type; Data the raw bytes of A, AAAA, NULL, other types and
// the SSHFP fingerprint; Sub the range of Message.Strings (TXT) or Message.Opts (OPT).
type RR struct {
	Name        Span
	Type, Class uint16
	TTL         uint32
	Data        Span
	Target      Span
	RName       Span
	Nums        [5]uint32
	Sub         [2]uint32
}

// Message is one parsed DNS message (DNSMessage).
type Message struct {
	Header                                 Header
	Queries                                []Query
	Answers, Authorities, Additionals      []RR
	InvalidAuthorities, InvalidAdditionals bool
	// Strings are the TXT strings, Opts the OPT options of all records.
	Strings []Span
	Opts    []Opt
	arena   []byte
	flags   uint8
	// dry validates without keeping anything (the probers): no names, strings or records.
	dry bool
}

// Bytes returns the bytes of s.
func (m *Message) Bytes(s Span) []byte { return m.arena[s.Off : s.Off+s.Len] }

// TXT returns the TXT strings of rr.
func (m *Message) TXT(rr *RR) []Span { return m.Strings[rr.Sub[0]:rr.Sub[1]] }

// OptsOf returns the options of the OPT record rr.
func (m *Message) OptsOf(rr *RR) []Opt { return m.Opts[rr.Sub[0]:rr.Sub[1]] }

func (m *Message) reset() {
	m.Header = Header{}
	m.Queries, m.Answers, m.Authorities, m.Additionals = m.Queries[:0], m.Answers[:0], m.Authorities[:0], m.Additionals[:0]
	m.InvalidAuthorities, m.InvalidAdditionals = false, false
	m.Strings, m.Opts = m.Strings[:0], m.Opts[:0]
	m.arena = m.arena[:0]
	m.flags = 0
}

// perr is a parse outcome: nom's Incomplete (more bytes were needed) and Error are told apart,
// for the probing parsers.
type perr uint8

const (
	pOK perr = iota
	errIncomplete
	errBad
)

// parseHeader is dns_parse_header.
func parseHeader(b []byte) (Header, bool) {
	if len(b) < headerLen {
		return Header{}, false
	}
	be := binary.BigEndian
	return Header{be.Uint16(b), be.Uint16(b[2:]), be.Uint16(b[4:]), be.Uint16(b[6:]), be.Uint16(b[8:]), be.Uint16(b[10:])}, true
}

// headerValid is probe_header_validity for a message of rlen bytes: the records must fit at
// two bytes each, a message without records is just a header, and a request has a question.
// request reports QR clear.
func headerValid(h *Header, rlen int) (valid, request bool) {
	n := int(h.QDCount) + int(h.ANCount) + int(h.NSCount) + int(h.ARCount)
	if 2*n > rlen || n == 0 && rlen > headerLen {
		return false, false
	}
	request = h.Flags&FlagQR == 0
	if request && h.QDCount == 0 {
		return false, false
	}
	return true, request
}

// parse parses msg (header already valid) into m: dns_parse_body. Failure in the questions
// or answers fails the message; in the authorities it sets InvalidAuthorities (authorities
// and additionals left empty), in the additionals InvalidAdditionals.
func (m *Message) parse(msg []byte, h Header) perr {
	m.reset()
	m.Header = h
	pos := headerLen
	for range h.QDCount {
		next, name, e := m.name(msg, pos, len(msg))
		if e != pOK {
			return e
		}
		if next+4 > len(msg) {
			return errIncomplete
		}
		if !m.dry {
			m.Queries = append(m.Queries, Query{Name: name, Type: binary.BigEndian.Uint16(msg[next:]), Class: binary.BigEndian.Uint16(msg[next+2:])})
		}
		pos = next + 4
	}
	var e perr
	if m.Answers, pos, e = m.section(msg, pos, int(h.ANCount), m.Answers); e != pOK {
		return e
	}
	auth, next, e := m.section(msg, pos, int(h.NSCount), m.Authorities)
	if e != pOK {
		m.Authorities = auth[:0]
		m.InvalidAuthorities = true
		return pOK
	}
	m.Authorities = auth
	add, _, e := m.section(msg, next, int(h.ARCount), m.Additionals)
	if e != pOK {
		m.Additionals = add[:0]
		m.InvalidAdditionals = true
		return pOK
	}
	m.Additionals = add
	return pOK
}

// section is dns_parse_answer: count records from pos, appended to out.
func (m *Message) section(msg []byte, pos, count int, out []RR) ([]RR, int, perr) {
	for range count {
		rr, next, e := m.record(msg, pos)
		if e != pOK {
			return out, pos, e
		}
		if !m.dry {
			out = append(out, rr)
		}
		pos = next
	}
	return out, pos, pOK
}

// record parses one resource record and its rdata (dns_parse_answer's subparser and
// dns_parse_rdata).
func (m *Message) record(msg []byte, pos int) (RR, int, perr) {
	var rr RR
	next, name, e := m.name(msg, pos, len(msg))
	if e != pOK {
		return rr, pos, e
	}
	if next+10 > len(msg) {
		return rr, pos, errIncomplete
	}
	be := binary.BigEndian
	rr.Name = name
	rr.Type, rr.Class, rr.TTL = be.Uint16(msg[next:]), be.Uint16(msg[next+2:]), be.Uint32(msg[next+4:])
	rdlen := int(be.Uint16(msg[next+8:]))
	start := next + 10
	end := start + rdlen
	if end > len(msg) {
		return rr, pos, errIncomplete
	}
	n := uint32(len(m.Strings))
	o := uint32(len(m.Opts))
	rr.Sub = [2]uint32{n, n}
	switch rr.Type {
	case TypeCNAME, TypePTR, TypeNS:
		_, rr.Target, e = m.name(msg, start, end)
	case TypeMX:
		if start+2 > end {
			return rr, pos, errIncomplete
		}
		_, rr.Target, e = m.name(msg, start+2, end)
	case TypeSOA:
		var p int
		if p, rr.Target, e = m.name(msg, start, end); e != pOK {
			break
		}
		if p, rr.RName, e = m.name(msg, p, end); e != pOK {
			break
		}
		if p+20 > end {
			return rr, pos, errIncomplete
		}
		for i := range 5 {
			rr.Nums[i] = be.Uint32(msg[p+4*i:])
		}
	case TypeSRV:
		if start+6 > end {
			return rr, pos, errIncomplete
		}
		rr.Nums[0], rr.Nums[1], rr.Nums[2] = uint32(be.Uint16(msg[start:])), uint32(be.Uint16(msg[start+2:])), uint32(be.Uint16(msg[start+4:]))
		_, rr.Target, e = m.name(msg, start+6, end)
	case TypeTXT:
		for p := start; p < end; {
			l := int(msg[p])
			if p+1+l > end {
				m.Strings = m.Strings[:n]
				return rr, pos, errIncomplete
			}
			s, ok2 := m.store(msg[p+1 : p+1+l])
			if !ok2 {
				return rr, pos, errBad
			}
			if !m.dry {
				m.Strings = append(m.Strings, s)
			}
			p += 1 + l
		}
		rr.Sub[1] = uint32(len(m.Strings))
	case TypeSSHFP:
		if start+2 > end {
			return rr, pos, errIncomplete
		}
		rr.Nums[0], rr.Nums[1] = uint32(msg[start]), uint32(msg[start+1])
		var ok2 bool
		if rr.Data, ok2 = m.store(msg[start+2 : end]); !ok2 {
			return rr, pos, errBad
		}
	case TypeOPT:
		rr.Sub = [2]uint32{o, o}
		for p := start; p < end; {
			if p+4 > end {
				m.Opts = m.Opts[:o]
				return rr, pos, errIncomplete
			}
			code, l := be.Uint16(msg[p:]), int(be.Uint16(msg[p+2:]))
			if p+4+l > end {
				m.Opts = m.Opts[:o]
				return rr, pos, errIncomplete
			}
			s, ok2 := m.store(msg[p+4 : p+4+l])
			if !ok2 {
				return rr, pos, errBad
			}
			if !m.dry {
				m.Opts = append(m.Opts, Opt{Code: code, Data: s})
			}
			p += 4 + l
		}
		rr.Sub[1] = uint32(len(m.Opts))
	default: // A, AAAA, NULL and every other type: the raw rdata
		var ok2 bool
		if rr.Data, ok2 = m.store(msg[start:end]); !ok2 {
			return rr, pos, errBad
		}
	}
	if e != pOK {
		return rr, pos, e
	}
	return rr, end, pOK
}

// store copies b into the arena (nothing when dry).
func (m *Message) store(b []byte) (Span, bool) {
	if m.dry {
		return Span{}, true
	}
	if len(m.arena)+len(b) > maxArena {
		return Span{}, false
	}
	off := len(m.arena)
	m.arena = append(m.arena, b...)
	return Span{Off: uint32(off), Len: uint32(len(b))}, true
}

// name is dns_parse_name: the name at pos, whose first segment ends at end (the message's end,
// or the rdata's), assembled into the arena. It returns the position after the name, or after
// the first pointer when one was followed. Forward pointers are allowed; a pointer to itself
// ends the name (infinite loop) once a pointer was followed, else it is an error; more than
// 255 labels and pointers end a name that followed a pointer (truncated) and fail one that
// did not; a name longer than 1025 bytes is cut (truncated), and its end is still looked for
// when no pointer was followed.
func (m *Message) name(msg []byte, pos, end int) (int, Span, perr) {
	start := len(m.arena)
	nlen := 0 // the assembled length (the arena holds the bytes unless dry)
	pivot := -1
	steps := 0
	var fl uint8
	fail := func(e perr) (int, Span, perr) {
		m.arena = m.arena[:start]
		return pos, Span{}, e
	}
	for pos < end {
		l := msg[pos]
		if l == 0 {
			pos++
			break
		}
		switch l & 0xc0 {
		case 0:
			n := int(l)
			if pos+1+n > end {
				return fail(errIncomplete)
			}
			if fl&nameTruncated == 0 {
				if nlen > 0 {
					nlen++
					if !m.dry {
						m.arena = append(m.arena, '.')
					}
				}
				nlen += n
				if !m.dry {
					m.arena = append(m.arena, msg[pos+1:pos+1+n]...)
				}
			}
			pos += 1 + n
		case 0xc0:
			if pos+2 > end {
				return fail(errIncomplete)
			}
			off := int(binary.BigEndian.Uint16(msg[pos:]) & 0x3fff)
			if off > len(msg) {
				return fail(errBad)
			}
			// The Rust parser compares the slices' contents: a pointer whose target reads
			// the same to the end as the pointer's own remaining input loops on itself.
			if len(msg)-off == end-pos && bytes.Equal(msg[off:], msg[pos:end]) {
				fl |= nameInfiniteLoop
				if pivot >= 0 {
					goto done
				}
				return fail(errBad)
			}
			if pivot < 0 {
				pivot = pos + 2
			}
			pos, end = off, len(msg)
		default:
			return fail(errBad)
		}
		steps++
		if steps > maxLabelSteps {
			fl |= nameLabelLimit
			if pivot >= 0 {
				fl |= nameTruncated
				break
			}
			return fail(errBad)
		}
		if nlen > maxNameLen {
			nlen = maxNameLen
			if !m.dry {
				m.arena = m.arena[:start+maxNameLen]
			}
			fl |= nameTruncated
			if pivot >= 0 {
				break
			}
		}
		if len(m.arena) > maxArena {
			return fail(errBad)
		}
	}
done:
	m.flags |= fl
	s := Span{Off: uint32(start), Len: uint32(nlen), Truncated: fl&nameTruncated != 0}
	if m.dry {
		s.Len = 0
	}
	if pivot >= 0 {
		return pivot, s, pOK
	}
	return pos, s, pOK
}
