package dns

import (
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// The inspection buffers and integer keywords of DNS (rust/src/dns/detect.rs:
// SCDetectDNSRegister, src/detect-dns-name.c, src/detect-dns-response.c; getters
// SCDnsTxGetQueryName and the like). Every buffer is a multi-buffer of names; an empty (root)
// name ends the iteration, as the getters return nothing for it.

var (
	dirTS   = [2]bool{flow.ToServer: true}
	dirTC   = [2]bool{flow.ToClient: true}
	dirBoth = [2]bool{true, true}
)

func asTx(x applayer.Tx) *Tx { t, _ := x.(*Tx); return t }

// msgOf returns the tx's message when it travelled in direction dir.
func msgOf(x applayer.Tx, dir applayer.Dir) *Message {
	t := asTx(x)
	if t == nil || t.Dir() != dir {
		return nil
	}
	return &t.Msg
}

func nameAt(m *Message, s Span) ([]byte, bool) {
	if s.Len == 0 {
		return nil, false
	}
	return m.Bytes(s), true
}

func queryName(x applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
	m := msgOf(x, dir)
	if m == nil || i >= len(m.Queries) {
		return nil, false
	}
	return nameAt(m, m.Queries[i].Name)
}

func section(sel func(m *Message) []RR, responseOnly bool) func(applayer.Tx, applayer.Dir, int, *applayer.GetCtx) ([]byte, bool) {
	return func(x applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
		if responseOnly {
			dir = flow.ToClient
		}
		m := msgOf(x, dir)
		if m == nil {
			return nil, false
		}
		rrs := sel(m)
		if i >= len(rrs) {
			return nil, false
		}
		return nameAt(m, rrs[i].Name)
	}
}

func answers(m *Message) []RR     { return m.Answers }
func authorities(m *Message) []RR { return m.Authorities }
func additionals(m *Message) []RR { return m.Additionals }

// ResponseNames returns the names dns.response.rrname inspects, in order
// (DetectEngineInspectCb's CheckSectionRecords): the question names, then per answer,
// authority and additional record its owner name and, for CNAME, PTR, MX, NS and SOA (mname),
// its rdata name; an empty owner name ends its section, an empty rdata name is skipped, an
// empty question name ends the questions. The list is built once per tx.
func (t *Tx) ResponseNames() []Span {
	if t.respBuilt {
		return t.respNames
	}
	t.respBuilt = true
	m := &t.Msg
	out := t.respNames[:0]
	for _, q := range m.Queries {
		if q.Name.Len == 0 {
			break
		}
		out = append(out, q.Name)
	}
	for _, rrs := range [3][]RR{m.Answers, m.Authorities, m.Additionals} {
		for k := range rrs {
			rr := &rrs[k]
			if rr.Name.Len == 0 {
				break
			}
			out = append(out, rr.Name)
			switch rr.Type {
			case TypeCNAME, TypePTR, TypeMX, TypeNS, TypeSOA:
				if rr.Target.Len > 0 {
					out = append(out, rr.Target)
				}
			}
		}
	}
	t.respNames = out
	return out
}

func responseName(x applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
	t := asTx(x)
	if t == nil || t.Request || dir != flow.ToClient {
		return nil, false
	}
	names := t.ResponseNames()
	if i >= len(names) {
		return nil, false
	}
	return t.Msg.Bytes(names[i]), true
}

// RcodeNames are dns.rcode's symbolic values (DNSRcode).
var RcodeNames = map[string]uint64{
	"NOERROR": 0, "FORMERR": 1, "SERVFAIL": 2, "NXDOMAIN": 3, "NOTIMP": 4, "REFUSED": 5,
	"YXDOMAIN": 6, "YXRRSET": 7, "NXRRSET": 8, "NOTAUTH": 9, "NOTZONE": 10, "BADVERS": 16,
	"BADKEY": 17, "BADTIME": 18, "BADMODE": 19, "BADNAME": 20, "BADALG": 21, "BADTRUNC": 22,
}

// rrtypes are the record type names of DNSRecordType by value.
var rrtypes = map[uint16]string{
	1: "A", 2: "NS", 3: "MD", 4: "MF", 5: "CNAME", 6: "SOA", 7: "MB", 8: "MG", 9: "MR",
	10: "NULL", 11: "WKS", 12: "PTR", 13: "HINFO", 14: "MINFO", 15: "MX", 16: "TXT", 17: "RP",
	18: "AFSDB", 19: "X25", 20: "ISDN", 21: "RT", 22: "NSAP", 23: "NSAPPTR", 24: "SIG",
	25: "KEY", 26: "PX", 27: "GPOS", 28: "AAAA", 29: "LOC", 30: "NXT", 33: "SRV", 34: "ATMA",
	35: "NAPTR", 36: "KX", 37: "CERT", 38: "A6", 39: "DNAME", 41: "OPT", 42: "APL", 43: "DS",
	44: "SSHFP", 45: "IPSECKEY", 46: "RRSIG", 47: "NSEC", 48: "DNSKEY", 49: "DHCID",
	50: "NSEC3", 51: "NSEC3PARAM", 52: "TLSA", 55: "HIP", 59: "CDS", 60: "CDNSKEY",
	65: "HTTPS", 99: "SPF", 249: "TKEY", 250: "TSIG", 254: "MAILA", 255: "ANY", 256: "URI",
}

// RRTypeNames are dns.rrtype's symbolic values.
var RRTypeNames = func() map[string]uint64 {
	out := make(map[string]uint64, len(rrtypes))
	for v, n := range rrtypes {
		out[n] = uint64(v)
	}
	return out
}()

// RRTypeName is the record type's name (dns_rrtype_string: the upper-case DNSRecordType name),
// "" for a type without one.
func RRTypeName(t uint16) string { return rrtypes[t] }

// RRTypeByName returns the type a name gives (case-insensitive).
func RRTypeByName(name string) (uint16, bool) {
	v, ok := RRTypeNames[strings.ToUpper(name)]
	return uint16(v), ok
}

// RcodeName is dns_rcode_string's name of a 4-bit rcode, "" for 11-15.
func RcodeName(rc uint8) string {
	switch rc {
	case 0:
		return "NOERROR"
	case 1:
		return "FORMERR"
	case 2:
		return "SERVFAIL"
	case 3:
		return "NXDOMAIN"
	case 4:
		return "NOTIMP"
	case 5:
		return "REFUSED"
	case 6:
		return "YXDOMAIN"
	case 7:
		return "YXRRSET"
	case 8:
		return "NXRRSET"
	case 9:
		return "NOTAUTH"
	case 10:
		return "NOTZONE"
	}
	return ""
}

func registerBuffers() {
	reg := func(name string, dirs [2]bool, get func(applayer.Tx, applayer.Dir, int, *applayer.GetCtx) ([]byte, bool)) {
		applayer.RegisterBuffer(applayer.Buffer{Name: name, Proto: applayer.ProtoDNS, Dirs: dirs,
			Progress: [2]uint8{1, 1}, Multi: true, Get: get})
	}
	reg("dns.query", dirTS, queryName)
	reg("dns.queries.rrname", dirBoth, queryName)
	reg("dns.query.name", dirBoth, queryName)
	reg("dns.answers.rrname", dirBoth, section(answers, false))
	reg("dns.answer.name", dirBoth, section(answers, false))
	reg("dns.authorities.rrname", dirBoth, section(authorities, true))
	reg("dns.additionals.rrname", dirBoth, section(additionals, true))
	reg("dns.response.rrname", dirTC, responseName)

	applayer.RegisterValue(applayer.Value{Name: "dns.opcode", Proto: applayer.ProtoDNS, Dirs: dirBoth,
		Progress: [2]uint8{1, 1}, Max: 255,
		Get: func(x applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) (uint64, bool) {
			m := msgOf(x, dir)
			if m == nil || i != 0 {
				return 0, false
			}
			return uint64(m.Header.Opcode()), true
		}})
	applayer.RegisterValue(applayer.Value{Name: "dns.rcode", Proto: applayer.ProtoDNS, Dirs: dirBoth,
		Progress: [2]uint8{1, 1}, Max: 65535, Names: RcodeNames,
		Get: func(x applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) (uint64, bool) {
			m := msgOf(x, dir)
			if m == nil || i != 0 {
				return 0, false
			}
			return uint64(m.Header.Rcode()), true
		}})
	applayer.RegisterValue(applayer.Value{Name: "dns.rrtype", Proto: applayer.ProtoDNS, Dirs: dirBoth,
		Progress: [2]uint8{1, 1}, Multi: true, Max: 65535, Names: RRTypeNames,
		Get: func(x applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) (uint64, bool) {
			m := msgOf(x, dir)
			if m == nil {
				return 0, false
			}
			if dir == flow.ToServer {
				if i < len(m.Queries) {
					return uint64(m.Queries[i].Type), true
				}
				return 0, false
			}
			if i < len(m.Answers) {
				return uint64(m.Answers[i].Type), true
			}
			return 0, false
		}})
}
