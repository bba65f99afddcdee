package output

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer/dns"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// wire helpers for DNS test messages.
func dnsHdr(id, flags, qd, an, ns, ar uint16) []byte {
	var b []byte
	for _, v := range []uint16{id, flags, qd, an, ns, ar} {
		b = binary.BigEndian.AppendUint16(b, v)
	}
	return b
}

func dnsName(n string) []byte {
	var b []byte
	for _, l := range strings.Split(n, ".") {
		b = append(append(b, byte(len(l))), l...)
	}
	return append(b, 0)
}

func dnsRR(owner []byte, t uint16, ttl uint32, rdata []byte) []byte {
	b := append([]byte{}, owner...)
	b = binary.BigEndian.AppendUint16(b, t)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = binary.BigEndian.AppendUint32(b, ttl)
	b = binary.BigEndian.AppendUint16(b, uint16(len(rdata)))
	return append(b, rdata...)
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

var qname = []byte{0xc0, 12} // pointer to the first question's name

// dnsTxs parses a request (two questions, the second's name not valid UTF-8) and a rich
// response, and returns their txs.
func dnsTxs(t *testing.T) (*dns.Tx, *dns.Tx) {
	t.Helper()
	req := cat(dnsHdr(0x1a2b, 0x0140, 2, 0, 0, 0), dnsName("www.example.com"), []byte{0, 1, 0, 1},
		[]byte{4, 'b', 0xe9, 't', 'a', 0}, []byte{0, 28, 0, 1})
	soa := cat(dnsName("ns1.example.com"), dnsName("hostmaster.example.com"), []byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5})
	resp := cat(dnsHdr(0x1a2b, 0x8183, 1, 7, 1, 2), dnsName("www.example.com"), []byte{0, 1, 0, 1},
		dnsRR(qname, dns.TypeCNAME, 300, dnsName("edge.example.net")),
		dnsRR(qname, dns.TypeA, 60, []byte{93, 184, 216, 34}),
		dnsRR(qname, dns.TypeAAAA, 60, []byte{0x2a, 0x00, 0x14, 0x50, 0x40, 0x07, 0x08, 0x10, 0, 0, 0, 0, 0, 0, 0x20, 0x04}),
		dnsRR(qname, dns.TypeTXT, 10, []byte{5, 'h', 'e', 'l', 'l', 'o', 3, 'a', '"', 'b'}),
		dnsRR(qname, dns.TypeSSHFP, 10, []byte{1, 2, 0xde, 0xad, 0xbe, 0xef}),
		dnsRR(qname, dns.TypeSRV, 10, cat([]byte{0, 1, 0, 2, 0x13, 0xc4}, dnsName("sip.example.com"))),
		dnsRR(qname, dns.TypeA, 60, []byte{1, 2, 3}), // an A of another length: ""
		dnsRR(dnsName("example.com"), dns.TypeSOA, 3600, soa),
		dnsRR([]byte{0}, dns.TypeOPT, 0, nil), // no options: left out
		dnsRR([]byte{0}, dns.TypeOPT, 0, []byte{0, 10, 0, 2, 0xca, 0xfe}))
	s := dns.NewState(false)
	s.Parse(flow.ToServer, req, 0)
	s.Parse(flow.ToClient, resp, 0)
	if s.TxCount() != 2 {
		t.Fatalf("%d txs", s.TxCount())
	}
	return s.Tx(0), s.Tx(1)
}

// TestDNSRecordsGolden writes the dns records of the reference's §1.6 (v3, the formats, v2)
// and the alert object (§1.7) into testdata/dns.golden (MEERKAT_UPDATE_GOLDEN=1 rewrites it).
func TestDNSRecordsGolden(t *testing.T) {
	t.Setenv("TZ", "UTC")
	p := samplePacket()
	p.IPProto, p.DstPort = decode.ProtoUDP, 53
	f := sampleFlow(p)
	req, resp := dnsTxs(t)
	var j JSON
	var all []byte
	line := func(rec []byte) { all = append(append(all, rec...), '\n') }
	def := DefaultDNSOptions()
	DNSRecords(&j, p, f, flow.ToServer, req, &def, line)
	DNSRecords(&j, p, f, flow.ToClient, resp, &def, line)
	detailed := DNSOptions{Requests: true, Responses: true, Detailed: true}
	DNSRecords(&j, p, f, flow.ToClient, resp, &detailed, line)
	v2 := DefaultDNSOptions()
	v2.Version2 = true
	DNSRecords(&j, p, f, flow.ToServer, req, &v2, line)
	DNSRecords(&j, p, f, flow.ToClient, resp, &v2, line)
	j.Reset()
	j.Begin()
	DNSObject(&j, resp)
	j.End()
	line(j.B)

	lines := strings.Split(strings.TrimSpace(string(all)), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, l)
		}
	}
	// Values the reference states (§1.6).
	for _, want := range []string{
		`"dns":{"version":3,"type":"request","tx_id":0,"id":6699,"flags":"140","rd":true,"z":true,"opcode":0,"rcode":"NOERROR","queries":[{"rrname":"www.example.com","rrtype":"A"},{"rrname":"b\\xe9ta","rrtype":"AAAA"}]}`,
		`"rdata":"2a00:1450:4007:0810:0000:0000:0000:2004"`,
		`"flags":"8183","qr":true,"rd":true,"ra":true,"opcode":0,"rcode":"NXDOMAIN"`,
		`{"rrname":"www.example.com","rrtype":"TXT","ttl":10,"rdata":"hello"},{"rrname":"www.example.com","rrtype":"TXT","ttl":10,"rdata":"a\"b"}`,
		`"sshfp":{"fingerprint":"de:ad:be:ef","algo":1,"type":2}`,
		`"srv":{"priority":1,"weight":2,"port":5060,"name":"sip.example.com"}`,
		`"rrtype":"A","ttl":60,"rdata":""`,
		`"additionals":[{"rrname":"","rrtype":"OPT","ttl":0,"opt":[{"code":10,"data":"cafe"}]}]`,
		`"grouped":{"CNAME":["edge.example.net"],"A":["93.184.216.34",""],"AAAA":["2a00:1450:4007:0810:0000:0000:0000:2004"],"TXT":["hello","a\"b"],"SSHFP":[{"fingerprint":"de:ad:be:ef","algo":1,"type":2}],"SRV":[`,
	} {
		if !strings.Contains(string(all), want) {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(lines[2], "grouped") || strings.Contains(lines[6], "grouped") {
		t.Error("detailed only / the alert object has grouped")
	}
	// The response record has the server as source (UDP: the packet's direction).
	if !strings.Contains(lines[1], `"src_ip":"192.168.1.10","src_port":49152,"dest_ip":"93.184.216.34"`) {
		t.Errorf("response header: %s", lines[1][:200])
	}
	// v2: one query record per question, and the answer in the flow's direction.
	if !strings.Contains(lines[3], `"type":"query"`) || !strings.Contains(lines[4], `"type":"query"`) ||
		!strings.Contains(lines[5], `"dns":{"version":2,"type":"answer","id":6699,"flags":"8183"`) {
		t.Errorf("v2 lines:\n%s\n%s\n%s", lines[3], lines[4], lines[5])
	}
	golden(t, "dns.golden", all)
}

// TestDNSLogged is the types, requests and responses filters (JsonDnsLogger, SCDnsLogEnabled).
func TestDNSLogged(t *testing.T) {
	req, resp := dnsTxs(t)
	o := DefaultDNSOptions()
	if !DNSLogged(req, &o) || !DNSLogged(resp, &o) {
		t.Fatal("default options log both")
	}
	o.Responses = false
	if DNSLogged(resp, &o) || !DNSLogged(req, &o) {
		t.Error("responses: no")
	}
	o = DefaultDNSOptions()
	o.AddType(dns.TypeMX)
	if DNSLogged(req, &o) {
		t.Error("types: [mx] logs an A/AAAA request")
	}
	o.AddType(dns.TypeAAAA)
	if !DNSLogged(req, &o) || DNSLogged(resp, &o) {
		t.Error("types: [mx, aaaa]")
	}
	// Only the enabled questions are listed.
	var j JSON
	DNSRecords(&j, samplePacket(), nil, flow.ToServer, req, &o, func([]byte) {})
	if strings.Contains(string(j.B), "www.example.com") || !strings.Contains(string(j.B), `"rrtype":"AAAA"`) {
		t.Errorf("filtered queries: %s", j.B)
	}
}
