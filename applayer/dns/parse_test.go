package dns

import (
	"bytes"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestName is dns_parse_name's behaviour (rust/src/dns/parser.rs tests test_dns_parse_name,
// test_dns_parse_name_with_pointer; reference §1.1.5 for loops, limits and truncation).
func TestName(t *testing.T) {
	long := strings.Repeat("a", 63)
	many := func(n int) []byte { // n one-byte labels
		var b []byte
		for range n {
			b = append(b, 1, 'x')
		}
		return append(b, 0)
	}
	cases := []struct {
		name  string
		msg   []byte // the whole message; the name starts at at
		at    int
		want  string
		next  int
		flags uint8
		err   perr
	}{
		{name: "labels", msg: labels("client-cf.dropbox.com"), want: "client-cf.dropbox.com", next: 23},
		{name: "root", msg: []byte{0}, want: "", next: 1},
		// A name that runs to the end of the input without a root byte ends there.
		{name: "unterminated", msg: []byte{3, 'c', 'o', 'm'}, want: "com", next: 4},
		{name: "pointer", msg: append(append(labels("example.com"), 3, 'w', 'w', 'w'), ptr(0)...), at: 13, want: "www.example.com", next: 19},
		// Forward pointers are followed (test dns-forward-pointer).
		{name: "forward pointer", msg: append(ptr(2), labels("fwd.org")...), want: "fwd.org", next: 2},
		{name: "truncated label", msg: []byte{5, 'a', 'b'}, err: errIncomplete},
		{name: "truncated pointer", msg: []byte{0xc0}, err: errIncomplete},
		{name: "label type 01", msg: []byte{0x40, 0}, err: errBad},
		{name: "label type 10", msg: []byte{0x80, 0}, err: errBad},
		{name: "pointer past the end", msg: []byte{0xc0, 0x09}, err: errBad},
		{name: "pointer to itself first", msg: ptr(0), err: errBad},
		// After a pointer, a self reference ends the name (infinite loop flag).
		{name: "loop after pointer", msg: append(ptr(2), append([]byte{1, 'a'}, ptr(4)...)...), want: "a", next: 2, flags: nameInfiniteLoop},
		{name: "256 labels", msg: many(256), err: errBad},
		{name: "255 labels", msg: many(255), want: strings.TrimSuffix(strings.Repeat("x.", 255), "."), next: 511},
		// With a pointer the label limit truncates (steps: the pointer and 255 labels).
		{name: "label limit after pointer", msg: append(ptr(2), many(300)...), want: strings.TrimSuffix(strings.Repeat("x.", 255), "."), next: 2, flags: nameLabelLimit | nameTruncated},
		// 17 labels of 63 = 1087 bytes: cut to 1025, the rest still read to the end.
		{name: "too long", msg: labels(strings.TrimSuffix(strings.Repeat(long+".", 17), ".")), want: strings.Repeat(long+".", 17)[:1025], next: 17*64 + 1, flags: nameTruncated},
	}
	for _, c := range cases {
		var m Message
		next, s, err := m.name(c.msg, c.at, len(c.msg))
		if err != c.err {
			t.Errorf("%s: err %d, want %d", c.name, err, c.err)
			continue
		}
		if err != pOK {
			continue
		}
		if got := string(m.Bytes(s)); got != c.want || next != c.next || m.flags != c.flags || s.Truncated != (c.flags&nameTruncated != 0) {
			t.Errorf("%s: %q next %d flags %b, want %q next %d flags %b", c.name, got, next, m.flags, c.want, c.next, c.flags)
		}
	}
}

// TestHeaderValid is probe_header_validity (reference §1.1.2).
func TestHeaderValid(t *testing.T) {
	cases := []struct {
		h        Header
		rlen     int
		ok, isRq bool
	}{
		{Header{QDCount: 1}, 30, true, true},
		{Header{Flags: FlagQR, QDCount: 1, ANCount: 1}, 40, true, false},
		{Header{Flags: FlagQR}, 12, true, false},             // a response may have no records
		{Header{Flags: FlagQR}, 13, false, false},            // ... but then nothing else
		{Header{}, 12, false, false},                         // a request needs a question
		{Header{ANCount: 1}, 40, false, false},               // (QR clear, no question)
		{Header{QDCount: 10, ANCount: 10}, 39, false, false}, // 2*20 > 39
		{Header{QDCount: 10, ANCount: 10}, 40, true, true},
	}
	for i, c := range cases {
		ok, rq := headerValid(&c.h, c.rlen)
		if ok != c.ok || ok && rq != c.isRq {
			t.Errorf("%d: %v %v, want %v %v", i, ok, rq, c.ok, c.isRq)
		}
	}
}

func parseOne(t *testing.T, msg []byte) *Message {
	t.Helper()
	h, ok := parseHeader(msg)
	if !ok {
		t.Fatal("short header")
	}
	var m Message
	if e := m.parse(msg, h); e != pOK {
		t.Fatalf("parse: %d", e)
	}
	return &m
}

// TestRdata is dns_parse_rdata (reference §1.1.4): every decoded type.
func TestRdata(t *testing.T) {
	soa := append(append(labels("ns1.example.com"), labels("admin.example.com")...), 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5)
	msg := newMsg(1, 0x8180, 1, 9, 0, 1).question("example.com", TypeA).
		rr(ptr(12), TypeA, 1, []byte{1, 2, 3, 4}).
		rr(ptr(12), TypeAAAA, 2, bytes.Repeat([]byte{0xab}, 16)).
		rr(ptr(12), TypeMX, 3, append([]byte{0, 10}, labels("mx.example.com")...)).
		rr(ptr(12), TypeSOA, 4, soa).
		rr(ptr(12), TypeSRV, 5, append([]byte{0, 1, 0, 2, 0x13, 0xc4}, labels("sip.example.com")...)).
		rr(ptr(12), TypeTXT, 6, []byte{3, 'o', 'n', 'e', 0, 3, 't', 'w', 'o'}).
		rr(ptr(12), TypeSSHFP, 7, []byte{1, 2, 0xde, 0xad}).
		rr(ptr(12), TypeNULL, 8, []byte("raw")).
		rr(ptr(12), 99, 9, []byte("spf")).
		rr([]byte{0}, TypeOPT, 0, []byte{0, 10, 0, 2, 0xbe, 0xef}).b
	m := parseOne(t, msg)
	if len(m.Answers) != 9 || len(m.Additionals) != 1 {
		t.Fatalf("%d answers %d additionals", len(m.Answers), len(m.Additionals))
	}
	a := m.Answers
	check := func(what string, got []byte, want string) {
		t.Helper()
		if string(got) != want {
			t.Errorf("%s: %q, want %q", what, got, want)
		}
	}
	check("A", m.Bytes(a[0].Data), "\x01\x02\x03\x04")
	check("MX", m.Bytes(a[2].Target), "mx.example.com")
	check("SOA mname", m.Bytes(a[3].Target), "ns1.example.com")
	check("SOA rname", m.Bytes(a[3].RName), "admin.example.com")
	if a[3].Nums != [5]uint32{1, 2, 3, 4, 5} {
		t.Errorf("SOA numbers %v", a[3].Nums)
	}
	check("SRV", m.Bytes(a[4].Target), "sip.example.com")
	if a[4].Nums[:3][2] != 5060 || a[4].Nums[0] != 1 || a[4].Nums[1] != 2 {
		t.Errorf("SRV %v", a[4].Nums)
	}
	if txt := m.TXT(&a[5]); len(txt) != 3 || string(m.Bytes(txt[0])) != "one" || txt[1].Len != 0 || string(m.Bytes(txt[2])) != "two" {
		t.Errorf("TXT %v", txt)
	}
	check("SSHFP", m.Bytes(a[6].Data), "\xde\xad")
	if a[6].Nums[0] != 1 || a[6].Nums[1] != 2 {
		t.Errorf("SSHFP %v", a[6].Nums)
	}
	check("NULL", m.Bytes(a[7].Data), "raw")
	check("other", m.Bytes(a[8].Data), "spf")
	if o := m.OptsOf(&m.Additionals[0]); len(o) != 1 || o[0].Code != 10 || string(m.Bytes(o[0].Data)) != "\xbe\xef" {
		t.Errorf("OPT %v", o)
	}
}

// TestSections is dns_parse_body's section rule (reference §1.1.3): an error in the questions
// or answers fails the message, in the authorities sets invalid_authorities (no additionals
// parsed), in the additionals invalid_additionals; trailing bytes are ignored.
func TestSections(t *testing.T) {
	bad := []byte{0x40} // label type 01
	cases := []struct {
		name              string
		msg               []byte
		fails             bool
		invAuth, invAdd   bool
		nAuth, nAdd, nAns int
	}{
		{name: "bad question", msg: newMsg(1, 0x8180, 1, 0, 0, 0).raw(bad...).raw(0, 0, 0, 0, 0).b, fails: true},
		{name: "bad answer", msg: newMsg(1, 0x8180, 1, 1, 0, 0).question("a.b", 1).rr(bad, 1, 0, nil).b, fails: true},
		{name: "bad authority", msg: newMsg(1, 0x8180, 1, 1, 1, 1).question("a.b", 1).rr(ptr(12), 1, 0, []byte{1, 1, 1, 1}).
			rr(bad, 1, 0, nil).rr([]byte{0}, TypeOPT, 0, nil).b, invAuth: true, nAns: 1},
		{name: "bad additional", msg: newMsg(1, 0x8180, 1, 0, 1, 1).question("a.b", 1).rr(ptr(12), TypeNS, 0, ptr(12)).
			rr([]byte{0}, TypeTXT, 0, []byte{5, 'x'}).b, invAdd: true, nAuth: 1},
		{name: "empty OPT", msg: newMsg(1, 0x8180, 1, 0, 0, 1).question("a.b", 1).rr([]byte{0}, TypeOPT, 0, nil).b, nAdd: 1},
		{name: "trailing bytes", msg: newMsg(1, 0x0100, 1, 0, 0, 0).question("a.b", 1).raw(1, 2, 3, 4, 5, 6, 7, 8).b},
	}
	for _, c := range cases {
		h, _ := parseHeader(c.msg)
		var m Message
		e := m.parse(c.msg, h)
		if (e != pOK) != c.fails {
			t.Errorf("%s: err %d", c.name, e)
			continue
		}
		if c.fails {
			continue
		}
		if m.InvalidAuthorities != c.invAuth || m.InvalidAdditionals != c.invAdd || len(m.Authorities) != c.nAuth ||
			len(m.Additionals) != c.nAdd || len(m.Answers) != c.nAns {
			t.Errorf("%s: auth %v/%d add %v/%d ans %d", c.name, m.InvalidAuthorities, len(m.Authorities), m.InvalidAdditionals, len(m.Additionals), len(m.Answers))
		}
	}
}

func events(tx *Tx) []string {
	var out []string
	tx.td.Events.Each(func(e uint8) { out = append(out, EventNames[e]) })
	return out
}

// TestEvents is where DNS events are raised (reference §1.1.6; dns_parse_request,
// dns_parse_response, DNSState::set_event).
func TestEvents(t *testing.T) {
	s := NewState(false)
	// A malformed first message: no tx, the event is lost.
	s.Parse(flow.ToServer, newMsg(1, 0x0100, 1, 0, 0, 0).raw(0x40, 0, 0, 0, 0, 0).b, 0)
	if s.TxCount() != 0 {
		t.Fatal("malformed message made a tx")
	}
	// Z flag and opcode 9 on a request.
	s.Parse(flow.ToServer, newMsg(2, 0x4840, 1, 0, 0, 0).question("a.b", 1).b, 0)
	// A response sent to the server: not_request on the last tx, no new tx.
	s.Parse(flow.ToServer, googleResponse(), 0)
	// A request sent to the client: a tx with not_response.
	s.Parse(flow.ToClient, googleQuery(), 0)
	// Header failure on UDP: nothing.
	s.Parse(flow.ToClient, []byte{1, 2, 3}, 0)
	// A malformed response: malformed_data on the last tx.
	s.Parse(flow.ToClient, newMsg(3, 0x8180, 1, 0, 0, 0).raw(9, 'x').b, 0)
	if s.TxCount() != 2 {
		t.Fatalf("%d txs", s.TxCount())
	}
	if got := strings.Join(events(s.Tx(0)), ","); got != "not_request,z_flag_set,invalid_opcode" {
		t.Errorf("tx 0 events %s", got)
	}
	if got := strings.Join(events(s.Tx(1)), ","); got != "malformed_data,not_response" {
		t.Errorf("tx 1 events %s", got)
	}
	t0, t1 := s.Tx(0), s.Tx(1)
	if !t0.Request || t1.Request || t0.td.ID != 0 || t1.td.ID != 1 {
		t.Errorf("tx kinds/ids %v %v %d %d", t0.Request, t1.Request, t0.td.ID, t1.td.ID)
	}
	if t0.td.SkipInspect != [2]bool{false, true} || t1.td.SkipInspect != [2]bool{true, false} ||
		t0.td.Updated != [2]bool{true, false} || t0.td.Progress != [2]uint8{1, 1} {
		t.Errorf("tx data %+v", t0.td)
	}
}

// TestTCP is parse_request_tcp / parse_response_tcp: length framing, zero lengths skipped, a
// partial message waits, a failing message is an error (header validity too on TCP).
func TestTCP(t *testing.T) {
	s := NewState(true)
	in := append([]byte{0, 0}, tcp(googleQuery(), googleQuery())...)
	r := s.Parse(flow.ToServer, in[:len(in)-3], 0)
	if r.Err != nil || r.Consumed != 2+2+len(googleQuery()) || r.Needed != 2+len(googleQuery()) || s.TxCount() != 1 {
		t.Fatalf("partial: %+v, %d txs", r, s.TxCount())
	}
	r = s.Parse(flow.ToServer, in[r.Consumed:], 0)
	if r.Err != nil || r.Consumed != 2+len(googleQuery()) || s.TxCount() != 2 || !r.TriggerRaw[flow.ToServer] {
		t.Fatalf("rest: %+v, %d txs", r, s.TxCount())
	}
	if r := s.Parse(flow.ToServer, []byte{0}, 0); r.Consumed != 0 || r.Needed != 2 {
		t.Errorf("one byte: %+v", r)
	}
	if r := s.Parse(flow.ToServer, tcp(make([]byte, 12)), 0); r.Err == nil {
		t.Error("an invalid header is not an error on TCP")
	}
}

// TestTCPGap is the gap handling of 8.0.6 (reference §1.1.7, test dns-tcp-ts-gap): after a
// gap the to-client side skips data until it probes as DNS; the to-server side parses at once.
func TestTCPGap(t *testing.T) {
	junk := tcp(bytes.Repeat([]byte{0xff}, 20))
	s := NewState(true)
	s.Gap(flow.ToClient, 10)
	if r := s.Parse(flow.ToClient, junk, 0); r.Err != nil || r.Consumed != len(junk) {
		t.Errorf("tc junk after a gap: %+v", r)
	}
	if r := s.Parse(flow.ToClient, tcp(googleResponse()), 0); r.Err != nil || s.TxCount() != 1 {
		t.Errorf("tc response after the gap: %+v %d", r, s.TxCount())
	}
	s = NewState(true)
	s.Gap(flow.ToServer, 10)
	if r := s.Parse(flow.ToServer, junk, 0); r.Err == nil {
		t.Errorf("ts junk after a gap is parsed (and fails): %+v", r)
	}
}

// TestProbe is probe_udp / c_probe_tcp (reference §1.3): the direction follows QR; TCP with
// less than the whole message validates only the header.
func TestProbe(t *testing.T) {
	cases := []struct {
		name string
		got  applayer.ProbeResult
		want applayer.ProbeResult
	}{
		{"udp request ts", ProbeUDP(googleQuery(), flow.ToServer), applayer.ProbeMatch},
		{"udp response ts", ProbeUDP(googleResponse(), flow.ToServer), applayer.ProbeMatchReverse},
		{"udp response tc", ProbeUDP(googleResponse(), flow.ToClient), applayer.ProbeMatch},
		{"udp short", ProbeUDP(googleQuery()[:11], flow.ToServer), applayer.ProbeFail},
		{"udp truncated body", ProbeUDP(googleQuery()[:20], flow.ToServer), applayer.ProbeFail},
		{"udp junk", ProbeUDP(bytes.Repeat([]byte{0xff}, 40), flow.ToServer), applayer.ProbeFail},
		{"tcp request", ProbeTCP(tcp(googleQuery()), flow.ToServer), applayer.ProbeMatch},
		{"tcp partial: header only", ProbeTCP(tcp(googleQuery())[:16], flow.ToServer), applayer.ProbeMatch},
		{"tcp response ts", ProbeTCP(tcp(googleResponse()), flow.ToServer), applayer.ProbeMatchReverse},
		{"tcp short", ProbeTCP(tcp(googleQuery())[:13], flow.ToServer), applayer.ProbeNeedMore},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestBuffers is the getters (reference §1.4): per-direction messages, multi-buffers ending at
// an empty name, dns.response.rrname's order.
func TestBuffers(t *testing.T) {
	s := NewState(false)
	s.Parse(flow.ToServer, newMsg(1, 0x0100, 2, 0, 0, 0).question("a.example", 1).question("b.example", 1).b, 0)
	resp := newMsg(1, 0x8180, 1, 2, 1, 2).question("a.example", 1).
		rr(ptr(12), TypeCNAME, 1, labels("c.example")).
		rr(ptr(12), TypeA, 1, []byte{1, 1, 1, 1}).
		rr(labels("example"), TypeSOA, 1, append(append(labels("ns.example"), labels("h.example")...), make([]byte, 20)...)).
		rr([]byte{0}, TypeOPT, 0, nil).
		rr(labels("x.example"), TypeA, 1, []byte{2, 2, 2, 2}).b
	s.Parse(flow.ToClient, resp, 0)
	req, rsp := s.TxAt(0), s.TxAt(1)
	all := func(get func(applayer.Tx, applayer.Dir, int, *applayer.GetCtx) ([]byte, bool), tx applayer.Tx, dir applayer.Dir) string {
		var out []string
		for i := 0; ; i++ {
			b, ok := get(tx, dir, i, nil)
			if !ok {
				break
			}
			out = append(out, string(b))
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"query ts", all(queryName, req, flow.ToServer), "a.example,b.example"},
		{"query of the request in tc", all(queryName, req, flow.ToClient), ""},
		{"queries tc", all(queryName, rsp, flow.ToClient), "a.example"},
		{"answers tc", all(section(answers, false), rsp, flow.ToClient), "a.example,a.example"},
		{"authorities", all(section(authorities, true), rsp, flow.ToServer), "example"},
		{"authorities of a request", all(section(authorities, true), req, flow.ToServer), ""},
		// The OPT record's root owner name stops the additionals.
		{"additionals", all(section(additionals, true), rsp, flow.ToClient), ""},
		{"response.rrname", all(responseName, rsp, flow.ToClient), "a.example,a.example,c.example,a.example,example,ns.example"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	rr := applayer.ValueFor("dns.rrtype", applayer.ProtoDNS)
	if v, ok := rr.Get(rsp, flow.ToClient, 1, nil); !ok || v != TypeA {
		t.Errorf("rrtype tc[1] %d %v", v, ok)
	}
	rc := applayer.ValueFor("dns.rcode", applayer.ProtoDNS)
	if _, ok := rc.Get(req, flow.ToClient, 0, nil); ok {
		t.Error("rcode of a request tx in tc")
	}
}

// TestFreeTxs checks FreeTxs and the tx bound.
func TestFreeTxs(t *testing.T) {
	s := NewState(false)
	for range maxTxs + 5 {
		s.Parse(flow.ToServer, googleQuery(), 0)
	}
	if s.TxCount() != maxTxs {
		t.Fatalf("%d live txs", s.TxCount())
	}
	s.FreeTxs(10)
	if s.TxCount() != maxTxs-10 || s.Tx(0).td.ID != 10 {
		t.Fatalf("after free: %d, first %d", s.TxCount(), s.Tx(0).td.ID)
	}
	s.Parse(flow.ToServer, googleQuery(), 0)
	if last := s.Tx(s.TxCount() - 1); last.td.ID != maxTxs {
		t.Errorf("next id %d", last.td.ID)
	}
}

// TestAllocs: a warm state parses another message of each direction without allocating
// (dependency-measurements.md §4b).
func TestAllocs(t *testing.T) {
	s := NewState(false)
	q, r := googleQuery(), googleResponse()
	run := func() {
		s.Parse(flow.ToServer, q, 0)
		s.Parse(flow.ToClient, r, 0)
		s.TxAt(1).(*Tx).ResponseNames()
		s.FreeTxs(^uint64(0))
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%.1f allocations per request/response", n)
	}
	probe := func() {
		ProbeUDP(r, flow.ToClient)
		ProbeTCP(tcp(q), flow.ToServer)
	}
	probe()
	if n := testing.AllocsPerRun(100, func() { ProbeUDP(r, flow.ToClient) }); n != 0 {
		t.Errorf("%.1f allocations per UDP probe", n)
	}
	st := NewState(true)
	stream := tcp(q, q)
	runTCP := func() {
		st.Parse(flow.ToServer, stream, 0)
		st.FreeTxs(^uint64(0))
	}
	runTCP()
	if n := testing.AllocsPerRun(100, runTCP); n != 0 {
		t.Errorf("%.1f allocations per TCP segment", n)
	}
}
