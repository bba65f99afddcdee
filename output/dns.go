package output

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/meerkat-ids/meerkat/applayer/dns"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// DNSOptions are eve-log's types dns options (src/output-json-dns.c: JsonDnsLogInitCtxSub).
type DNSOptions struct {
	// Requests and Responses log request and response txs [yes, yes].
	Requests, Responses bool
	// Detailed and Grouped are formats: detailed (the answers array) and grouped (the
	// grouped object) [both].
	Detailed, Grouped bool
	// Version2 writes the deprecated version 2 records.
	Version2 bool
	// Types, when not nil, are the rrtypes logged (types: [...]): a tx is logged when one of
	// its question types is, and only those questions are listed. nil logs every type.
	Types *[1024]uint64
}

// DefaultDNSOptions are the options of a dns type without settings.
func DefaultDNSOptions() DNSOptions {
	return DNSOptions{Requests: true, Responses: true, Detailed: true, Grouped: true}
}

// AddType enables rrtype t in the types filter.
func (o *DNSOptions) AddType(t uint16) {
	if o.Types == nil {
		o.Types = new([1024]uint64)
	}
	o.Types[t/64] |= 1 << (t % 64)
}

func (o *DNSOptions) typeOn(t uint16) bool { return o.Types == nil || o.Types[t/64]&(1<<(t%64)) != 0 }

// DNSLogged reports whether tx is logged under o (JsonDnsLogger's checks and
// SCDnsLogEnabled): its kind is enabled and one of its questions has an enabled type, so a
// message without questions is never logged.
func DNSLogged(tx *dns.Tx, o *DNSOptions) bool {
	if tx.Request && !o.Requests || !tx.Request && !o.Responses {
		return false
	}
	for _, q := range tx.Msg.Queries {
		if o.typeOn(q.Type) {
			return true
		}
	}
	return false
}

// DNSRecords writes the EVE dns records of tx on packet p of direction pktDir, handing each
// to line (JsonDnsLogger). Version 3: one record, on UDP with the packet's own addresses
// (LOG_DIR_PACKET), on TCP a request in the flow's direction and a response reversed.
// Version 2 (deprecated): in the flow's direction, one "query" record per question up to the
// first one whose type is not logged, or one "answer" record for a response.
func DNSRecords(j *JSON, p *decode.Packet, f *flow.Flow, pktDir flow.Direction, tx *dns.Tx, o *DNSOptions, line func([]byte)) {
	if o.Version2 {
		dnsV2(j, p, f, pktDir, tx, o, line)
		return
	}
	j.Reset()
	j.Begin()
	logDir := pktDir
	if p.IPProto == decode.ProtoTCP {
		logDir = tx.Dir()
	}
	flowHeader(j, p, f, pktDir, logDir, "dns", nil, nil)
	dnsObject(j, tx, o)
	j.End()
	line(j.B)
}

// dnsV2 is JsonDnsLoggerToServer / JsonDnsLoggerToClient (v2 records).
func dnsV2(j *JSON, p *decode.Packet, f *flow.Flow, pktDir flow.Direction, tx *dns.Tx, o *DNSOptions, line func([]byte)) {
	m := &tx.Msg
	h := &m.Header
	if tx.Request {
		for _, q := range m.Queries { // dns_log_query, i = 0, 1, ... until one is not logged
			if !o.typeOn(q.Type) {
				return
			}
			j.Reset()
			j.Begin()
			flowHeader(j, p, f, pktDir, flow.ToServer, "dns", nil, nil)
			j.Object("dns")
			j.Uint("version", 2)
			j.String("type", "query")
			j.Uint("id", uint64(h.ID))
			dnsString(j, "rrname", m.Bytes(q.Name))
			if q.Name.Truncated {
				j.Bool("rrname_truncated", true)
			}
			dnsType(j, "rrtype", q.Type)
			j.Uint("tx_id", tx.TxData().ID)
			if h.Flags&dns.FlagZ != 0 {
				j.Bool("z", true)
			}
			j.Uint("opcode", uint64(h.Opcode()))
			j.Close('}')
			j.End()
			line(j.B)
		}
		return
	}
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, pktDir, flow.ToServer, "dns", nil, nil)
	j.Object("dns")
	j.Uint("version", 2)
	j.String("type", "answer") // dns_log_json_answer
	j.Uint("id", uint64(h.ID))
	dnsHeaderFlags(j, h)
	if len(m.Queries) > 0 {
		q := &m.Queries[0]
		dnsString(j, "rrname", m.Bytes(q.Name))
		if q.Name.Truncated {
			j.Bool("rrname_truncated", true)
		}
		dnsType(j, "rrtype", q.Type)
	}
	dnsRcode(j, h)
	dnsSections(j, m, o)
	j.Close('}')
	j.End()
	line(j.B)
}

// alertDNSOptions are AlertJsonDns's: detailed answers, every type.
var alertDNSOptions = DNSOptions{Requests: true, Responses: true, Detailed: true}

// DNSObject writes the dns object of an alert (AlertJsonDns): the v3 object with detailed
// answers only, whatever the dns logger's options.
func DNSObject(j *JSON, tx *dns.Tx) { dnsObject(j, tx, &alertDNSOptions) }

// dnsObject is log_json (rust/src/dns/log.rs).
func dnsObject(j *JSON, tx *dns.Tx, o *DNSOptions) {
	m := &tx.Msg
	h := &m.Header
	j.Object("dns")
	j.Uint("version", 3)
	if tx.Request {
		j.String("type", "request")
	} else {
		j.String("type", "response")
	}
	j.Uint("tx_id", tx.TxData().ID)
	j.Uint("id", uint64(h.ID))
	dnsHeaderFlags(j, h)
	dnsRcode(j, h)
	if len(m.Queries) > 0 {
		j.Array("queries")
		for _, q := range m.Queries {
			if !o.typeOn(q.Type) {
				continue
			}
			j.ElemObject()
			dnsString(j, "rrname", m.Bytes(q.Name))
			dnsType(j, "rrtype", q.Type)
			if q.Name.Truncated {
				j.Bool("rrname_truncated", true)
			}
			j.Close('}')
		}
		j.Close(']')
	}
	dnsSections(j, m, o)
	j.Close('}')
}

// dnsHeaderFlags writes flags (lowercase hex), the set flag booleans and the opcode.
func dnsHeaderFlags(j *JSON, h *dns.Header) {
	j.key("flags")
	j.B = append(j.B, '"')
	j.B = strconv.AppendUint(j.B, uint64(h.Flags), 16)
	j.B = append(j.B, '"')
	for _, b := range [...]struct {
		bit uint16
		k   string
	}{{dns.FlagQR, "qr"}, {dns.FlagAA, "aa"}, {dns.FlagTC, "tc"}, {dns.FlagRD, "rd"}, {dns.FlagRA, "ra"}, {dns.FlagZ, "z"}} {
		if h.Flags&b.bit != 0 {
			j.Bool(b.k, true)
		}
	}
	j.Uint("opcode", uint64(h.Opcode()))
}

// dnsRcode writes rcode (dns_rcode_string: the name, else the number).
func dnsRcode(j *JSON, h *dns.Header) {
	if n := dns.RcodeName(h.Rcode()); n != "" {
		j.String("rcode", n)
		return
	}
	j.key("rcode")
	j.B = append(j.B, '"')
	j.B = strconv.AppendUint(j.B, uint64(h.Rcode()), 10)
	j.B = append(j.B, '"')
}

// dnsSections writes the answers (detailed and/or grouped), authorities and additionals.
func dnsSections(j *JSON, m *dns.Message, o *DNSOptions) {
	if len(m.Answers) > 0 {
		if o.Detailed {
			j.Array("answers")
			for k := range m.Answers {
				dnsDetails(j, m, &m.Answers[k])
			}
			j.Close(']')
		}
		if o.Grouped {
			dnsGrouped(j, m)
		}
	}
	if len(m.Authorities) > 0 {
		j.Array("authorities")
		for k := range m.Authorities {
			dnsDetails(j, m, &m.Authorities[k])
		}
		j.Close(']')
	}
	open := false
	for k := range m.Additionals {
		rr := &m.Additionals[k]
		if rr.Type == dns.TypeOPT && rr.Sub[0] == rr.Sub[1] {
			continue // an OPT record without options is left out
		}
		if !open {
			j.Array("additionals")
			open = true
		}
		dnsDetails(j, m, rr)
	}
	if open {
		j.Close(']')
	}
}

// dnsDetails writes a record's detail objects (dns_log_json_answer_detail): one per TXT
// string, one for any other record.
func dnsDetails(j *JSON, m *dns.Message, rr *dns.RR) {
	if rr.Type == dns.TypeTXT {
		for _, s := range m.TXT(rr) {
			dnsDetailHead(j, m, rr)
			dnsString(j, "rdata", m.Bytes(s))
			j.Close('}')
		}
		return
	}
	dnsDetailHead(j, m, rr)
	switch rr.Type {
	case dns.TypeA, dns.TypeAAAA:
		j.key("rdata")
		j.B = append(j.B, '"')
		j.B = appendDNSAddr(j.B, m.Bytes(rr.Data))
		j.B = append(j.B, '"')
	case dns.TypeCNAME, dns.TypeMX, dns.TypeNS, dns.TypePTR:
		dnsString(j, "rdata", m.Bytes(rr.Target))
		if rr.Target.Truncated {
			j.Bool("rdata_truncated", true)
		}
	case dns.TypeNULL:
		dnsString(j, "rdata", m.Bytes(rr.Data))
	case dns.TypeSOA:
		j.key("soa")
		dnsSOA(j, m, rr)
	case dns.TypeSSHFP:
		j.key("sshfp")
		dnsSSHFP(j, m, rr)
	case dns.TypeSRV:
		j.key("srv")
		dnsSRV(j, m, rr)
	case dns.TypeOPT:
		j.Array("opt")
		for _, op := range m.OptsOf(rr) {
			j.ElemObject()
			j.Uint("code", uint64(op.Code))
			j.key("data")
			j.B = append(j.B, '"')
			for _, c := range m.Bytes(op.Data) {
				j.B = append(j.B, hexDigits[c>>4], hexDigits[c&15])
			}
			j.B = append(j.B, '"')
			j.Close('}')
		}
		j.Close(']')
	}
	j.Close('}')
}

func dnsDetailHead(j *JSON, m *dns.Message, rr *dns.RR) {
	j.ElemObject()
	dnsString(j, "rrname", m.Bytes(rr.Name))
	if rr.Name.Truncated {
		j.Bool("rrname_truncated", true)
	}
	dnsType(j, "rrtype", rr.Type)
	j.Uint("ttl", uint64(rr.TTL))
}

// The SOA, SSHFP and SRV objects open right after their key (j.key written by the caller).
func dnsSOA(j *JSON, m *dns.Message, rr *dns.RR) {
	j.push('{')
	dnsString(j, "mname", m.Bytes(rr.Target))
	if rr.Target.Truncated {
		j.Bool("mname_truncated", true)
	}
	dnsString(j, "rname", m.Bytes(rr.RName))
	if rr.RName.Truncated {
		j.Bool("rname_truncated", true)
	}
	j.Uint("serial", uint64(rr.Nums[0]))
	j.Uint("refresh", uint64(rr.Nums[1]))
	j.Uint("retry", uint64(rr.Nums[2]))
	j.Uint("expire", uint64(rr.Nums[3]))
	j.Uint("minimum", uint64(rr.Nums[4]))
	j.Close('}')
}

func dnsSSHFP(j *JSON, m *dns.Message, rr *dns.RR) {
	j.push('{')
	j.key("fingerprint")
	j.B = append(j.B, '"')
	for i, c := range m.Bytes(rr.Data) {
		if i > 0 {
			j.B = append(j.B, ':')
		}
		j.B = append(j.B, hexDigits[c>>4], hexDigits[c&15])
	}
	j.B = append(j.B, '"')
	j.Uint("algo", uint64(rr.Nums[0]))
	j.Uint("type", uint64(rr.Nums[1]))
	j.Close('}')
}

func dnsSRV(j *JSON, m *dns.Message, rr *dns.RR) {
	j.push('{')
	j.Uint("priority", uint64(rr.Nums[0]))
	j.Uint("weight", uint64(rr.Nums[1]))
	j.Uint("port", uint64(rr.Nums[2]))
	dnsString(j, "name", m.Bytes(rr.Target))
	j.Close('}')
}

// groupedType says whether answers of type t have a grouped representation.
func groupedType(t uint16) bool {
	switch t {
	case dns.TypeA, dns.TypeAAAA, dns.TypeCNAME, dns.TypeMX, dns.TypeNS, dns.TypePTR,
		dns.TypeTXT, dns.TypeNULL, dns.TypeSOA, dns.TypeSSHFP, dns.TypeSRV:
		return true
	}
	return false
}

// dnsGrouped writes the grouped object: per rrtype (in order of first appearance; Suricata's
// hash map order is not stable) the answers' values.
func dnsGrouped(j *JSON, m *dns.Message) {
	j.Object("grouped")
	for k := range m.Answers {
		t := m.Answers[k].Type
		if !groupedType(t) {
			continue
		}
		seen := false
		for i := range k {
			if m.Answers[i].Type == t {
				seen = true
				break
			}
		}
		if seen {
			continue
		}
		j.key(typeKey(t))
		j.push('[')
		for i := k; i < len(m.Answers); i++ {
			rr := &m.Answers[i]
			if rr.Type != t {
				continue
			}
			switch t {
			case dns.TypeA, dns.TypeAAAA:
				j.sep()
				j.B = append(j.B, '"')
				j.B = appendDNSAddr(j.B, m.Bytes(rr.Data))
				j.B = append(j.B, '"')
			case dns.TypeCNAME, dns.TypeMX, dns.TypeNS, dns.TypePTR:
				j.sep()
				j.B = appendStringFromBytes(j.B, m.Bytes(rr.Target))
			case dns.TypeTXT:
				for _, s := range m.TXT(rr) {
					j.sep()
					j.B = appendStringFromBytes(j.B, m.Bytes(s))
				}
			case dns.TypeNULL:
				j.sep()
				j.B = appendStringFromBytes(j.B, m.Bytes(rr.Data))
			case dns.TypeSOA:
				j.sep()
				dnsSOA(j, m, rr)
			case dns.TypeSSHFP:
				j.sep()
				dnsSSHFP(j, m, rr)
			case dns.TypeSRV:
				j.sep()
				dnsSRV(j, m, rr)
			}
		}
		j.Close(']')
	}
	j.Close('}')
}

func typeKey(t uint16) string {
	if n := dns.RRTypeName(t); n != "" {
		return n
	}
	return strconv.Itoa(int(t))
}

// dnsType writes an rrtype (dns_rrtype_string: the type's name, else its number).
func dnsType(j *JSON, k string, t uint16) {
	if n := dns.RRTypeName(t); n != "" {
		j.String(k, n)
		return
	}
	j.key(k)
	j.B = append(j.B, '"')
	j.B = strconv.AppendUint(j.B, uint64(t), 10)
	j.B = append(j.B, '"')
}

// appendDNSAddr is dns_print_addr: a dotted quad, eight groups of four hex digits, or
// nothing for another length.
func appendDNSAddr(b, a []byte) []byte {
	switch len(a) {
	case 4:
		for i, c := range a {
			if i > 0 {
				b = append(b, '.')
			}
			b = strconv.AppendUint(b, uint64(c), 10)
		}
	case 16:
		for i, c := range a {
			if i > 0 && i%2 == 0 {
				b = append(b, ':')
			}
			b = append(b, hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return b
}

// dnsString writes a member from bytes as set_string_from_bytes does.
func dnsString(j *JSON, k string, v []byte) {
	j.key(k)
	j.B = appendStringFromBytes(j.B, v)
}

// appendStringFromBytes is try_string_from_bytes (SCJbSetStringFromBytes) then the JSON
// string: valid UTF-8 as it is, else
// every byte from 0x80 up as the text \xNN (written \\xNN in JSON).
func appendStringFromBytes(b, v []byte) []byte {
	if utf8.Valid(v) {
		return appendJSONBytes(b, v)
	}
	b = append(b, '"')
	for _, c := range v {
		switch {
		case c >= 0x80:
			b = append(b, '\\', '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		case jsonPlain[c]:
			b = append(b, c)
		default:
			b = appendEscape(b, c)
		}
	}
	return append(b, '"')
}

// ParseDNSType returns the rrtype a types entry names (case-insensitive).
func ParseDNSType(name string) (uint16, bool) {
	return dns.RRTypeByName(strings.TrimSpace(name))
}
