package match

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

var t0 = time.Date(2024, 4, 1, 12, 0, 0, 0, time.UTC)

func parse(t testing.TB, opts string) *rules.Rule {
	t.Helper()
	r, err := rules.Parse("alert ip any any -> any any (" + opts + " sid:1;)")
	if err != nil {
		t.Fatalf("parse %q: %v", opts, err)
	}
	return r
}

func compile(t testing.TB, opts string, names *Names) *Matcher {
	t.Helper()
	m, err := Compile(parse(t, opts), names)
	if err != nil {
		t.Fatalf("compile %q: %v", opts, err)
	}
	return m
}

func tcp(flags uint8) *decode.Packet {
	return &decode.Packet{
		Timestamp: t0, IPVersion: 4, TTL: 64,
		SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"),
		IPProto: decode.ProtoTCP, HasL4: true, SrcPort: 1234, DstPort: 80, TCPFlags: flags,
	}
}

func udp() *decode.Packet {
	p := tcp(0)
	p.IPProto = decode.ProtoUDP
	return p
}

func icmp(typ, code uint8) *decode.Packet {
	p := tcp(0)
	p.IPProto = decode.ProtoICMP
	p.ICMPType, p.ICMPCode = typ, code
	return p
}

// noL4 is an IPv4 packet whose transport header was not decoded (a non-first fragment).
func noL4(proto uint8) *decode.Packet {
	p := tcp(0)
	p.IPProto = proto
	p.HasL4 = false
	p.IsFragment = true
	p.FragOffset = 1480
	return p
}

type tc struct {
	opts string
	p    *decode.Packet
	want bool
}

func runCases(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		m := compile(t, c.opts, NewNames())
		if got := m.Match(&Input{P: c.p}); got != c.want {
			t.Errorf("%s: got %v, want %v", c.opts, got, c.want)
		}
	}
}

func TestFlags(t *testing.T) {
	const (
		F = decode.TCPFlagFIN
		S = decode.TCPFlagSYN
		R = decode.TCPFlagRST
		P = decode.TCPFlagPSH
		A = decode.TCPFlagACK
		U = decode.TCPFlagURG
		E = decode.TCPFlagECE
		C = decode.TCPFlagCWR
	)
	runCases(t, []tc{
		{"flags:S;", tcp(S), true},
		{"flags:S;", tcp(S | A), false},
		{"flags:SA;", tcp(S | A), true},
		{"flags:AS;", tcp(S | A), true},
		{"flags:+S;", tcp(S | A), true},
		{"flags:S+;", tcp(S | A), true},
		{"flags:+SF;", tcp(S | A), false},
		{"flags:*SF;", tcp(S | A), true},
		{"flags:*FR;", tcp(S | A), false},
		{"flags:!S;", tcp(A), true},
		{"flags:!S;", tcp(S | A), false},
		{"flags:!SF;", tcp(S), true}, // not all listed set
		{"flags:!SF;", tcp(S | F), false},
		{"flags:0;", tcp(0), true},
		{"flags:0;", tcp(A), false},
		{"flags:!0;", tcp(A), true},
		{"flags:+0;", tcp(A), false},
		{"flags:S,12;", tcp(S | C | E), true},
		{"flags:S,CE;", tcp(S | C | E), true},
		{"flags:S,CE;", tcp(S | E), true},
		{"flags:S;", tcp(S | E), false},
		{"flags:SE;", tcp(S | E), true},
		{"flags:S2;", tcp(S | E), true},
		{"flags:S1;", tcp(S | C), true},
		{"flags:SC;", tcp(S | C), true},
		{"flags:FSRPAUCE;", tcp(F | S | R | P | A | U | C | E), true},
		{"flags:S,U;", tcp(S | U), true},
		{"flags:PA,U;", tcp(P | A | U), true},
		{"flags:PA;", tcp(P | A | U), false},
		{"tcp.flags:S;", tcp(S), true},
		{"flags:S;", udp(), false},
		{"flags:0;", noL4(decode.ProtoTCP), false},
	})
}

func TestIntegerKeywords(t *testing.T) {
	p := tcp(decode.TCPFlagSYN)
	p.TTL = 64
	p.TCPSeq, p.TCPAck, p.TCPWindow = 1000, 2000, 512
	p.HasTCPMSS, p.TCPMSS = true, 1460
	p.HasWScale, p.TCPWScale = true, 7
	p.IPID = 4321
	p.TOS = 0x10
	p.Payload = make([]byte, 100)
	wsBad := tcp(0)
	wsBad.HasWScale, wsBad.TCPWScale = true, 15
	v6 := tcp(0)
	v6.IPVersion = 6
	v6.SrcIP, v6.DstIP = netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2")
	v6.TTL = 255
	echo := icmp(8, 0)
	echo.HasICMPID, echo.ICMPID, echo.ICMPSeq = true, 77, 3
	unreach := icmp(3, 1)
	runCases(t, []tc{
		{"ttl:64;", p, true},
		{"ttl:63;", p, false},
		{"ttl:<65;", p, true},
		{"ttl:<64;", p, false},
		{"ttl:<=64;", p, true},
		{"ttl:>63;", p, true},
		{"ttl:>=65;", p, false},
		{"ttl:!64;", p, false},
		{"ttl:!=63;", p, true},
		{"ttl:60-70;", p, true},
		{"ttl:64-70;", p, false}, // ranges are exclusive
		{"ttl:60<>64;", p, false},
		{"ttl:60<>65;", p, true},
		{"ttl:!60-70;", p, false},
		{"ttl:!64-70;", p, true},
		{"ttl:255;", v6, true},
		{"ttl:64;", &decode.Packet{}, false},
		{"tcp.seq:1000;", p, true},
		{"seq:1001;", p, false},
		{"ack:2000;", p, true},
		{"tcp.ack:0;", udp(), false},
		{"window:512;", p, true},
		{"window:!512;", p, false},
		{"window:!513;", p, true},
		{"tcp.window:512;", udp(), false},
		{"tcp.mss:1460;", p, true},
		{"tcp.mss:<1000;", p, false},
		{"tcp.mss:>0;", tcp(0), false}, // no MSS option
		{"tcp.wscale:7;", p, true},
		{"tcp.wscale:0;", wsBad, true},
		{"dsize:100;", p, true},
		{"dsize:>99;", p, true},
		{"dsize:<100;", p, false},
		{"dsize:0;", tcp(0), true},
		{"dsize:90<>110;", p, true},
		{"id:4321;", p, true},
		{"id:4320;", p, false},
		{"id:0;", v6, false},
		{"tos:16;", p, true},
		{"tos:x10;", p, true},
		{"tos:!16;", p, false},
		{"tos:!17;", p, true},
		{"tos:0;", v6, false},
		{"itype:8;", echo, true},
		{"itype:>3;", echo, true},
		{"itype:3;", echo, false},
		{"itype:0;", p, false},
		{"icode:1;", unreach, true},
		{"icode:<1;", unreach, false},
		{"icode:0<>2;", unreach, true},
		{"icmp_id:77;", echo, true},
		{"icmp_id:78;", echo, false},
		{"icmp_seq:3;", echo, true},
		{"icmp_id:0;", unreach, false}, // no id field
		{"icmp_seq:0;", p, false},
		{"ip_proto:6;", p, true},
		{"ip_proto:TCP;", p, true},
		{"ip_proto:!6;", p, false},
		{"ip_proto:!17;", p, true},
		{"ip_proto:<7;", p, true},
		{"ip_proto:>6;", p, false},
		{"ip_proto:47;", noL4(47), true},
		{"sameip;", p, false},
	})
	same := tcp(0)
	same.DstIP = same.SrcIP
	runCases(t, []tc{{"sameip;", same, true}, {"sameip;", &decode.Packet{}, false}})
}

func TestIPOptsFragbitsFragoffset(t *testing.T) {
	opts := tcp(0)
	opts.IPv4Options = decode.IPv4OptRR | decode.IPv4OptNOP | decode.IPv4OptAny
	df := tcp(0)
	df.IPv4Flags = decode.IPv4FlagDF
	mfdf := tcp(0)
	mfdf.IPv4Flags = decode.IPv4FlagDF | decode.IPv4FlagMF
	rb := tcp(0)
	rb.IPv4Flags = decode.IPv4FlagRF
	frag := noL4(decode.ProtoUDP) // offset 1480 bytes = 185 units
	v6 := noL4(decode.ProtoUDP)
	v6.IPVersion = 6
	v6.IPv6FragHdr = true
	v6nf := tcp(0)
	v6nf.IPVersion = 6
	runCases(t, []tc{
		{"ipopts:rr;", opts, true},
		{"ipopts:nop;", opts, true},
		{"ipopts:ts;", opts, false},
		{"ipopts:any;", opts, false}, // Suricata 8.0.6: 0xffff never matches
		{"ipopts:rr;", v6nf, false},

		{"fragbits:D;", df, true},
		{"fragbits:M;", df, false},
		{"fragbits:DM;", mfdf, true},
		{"fragbits:D;", mfdf, false},
		{"fragbits:+D;", mfdf, true},
		{"fragbits:+D;", df, false}, // + needs another bit set too
		{"fragbits:*MR;", df, false},
		{"fragbits:*MD;", df, true},
		{"fragbits:!D;", df, false},
		{"fragbits:!M;", df, true},
		{"fragbits:!MD;", df, true},
		{"fragbits:R;", rb, true},
		{"fragbits:D;", v6nf, false},

		{"fragoffset:185;", frag, true},
		{"fragoffset:1480;", frag, false},
		{"fragoffset:>0;", frag, true},
		{"fragoffset:<185;", frag, false},
		{"fragoffset:!185;", frag, false},
		{"fragoffset:!0;", frag, true},
		{"fragoffset:0;", tcp(0), true},
		{"fragoffset:1480;", v6, true}, // IPv6: bytes
		{"fragoffset:0;", v6nf, false}, // no fragment header
	})
}

// flowPair returns a flow table fed with a packet and returns flow and direction.
func newTable() *flow.Table {
	d := flow.Timeouts{New: 30 * time.Second, Established: 300 * time.Second}
	return flow.NewTable(flow.Config{MaxFlows: 100, TCP: d, UDP: d, ICMP: d, Default: d}, 64, 4)
}

func TestFlow(t *testing.T) {
	tb := newTable()
	q := udp()
	f, dir := tb.Packet(q) // to_server, not established
	if dir != flow.ToServer {
		t.Fatal("first packet not to_server")
	}
	cases := []struct {
		opts string
		want bool
	}{
		{"flow:to_server;", true},
		{"flow:from_client;", true},
		{"flow:to_client;", false},
		{"flow:from_server;", false},
		{"flow:established;", false},
		{"flow:not_established;", true},
		{"flow:stateless;", true},
		{"flow:to_server,not_established;", true},
		{"flow:to_server,established;", false},
		{"flow:no_frag;", true},
		{"flow:only_frag;", false},
		{"flow:to_server,no_stream;", true},
		{"flow:only_stream;", true},
		{"flow:not_established,stateless;", false}, // Suricata counts at most one state
	}
	for _, c := range cases {
		m := compile(t, c.opts, NewNames())
		if got := m.Match(&Input{P: q, F: f, Dir: dir}); got != c.want {
			t.Errorf("first packet %s: got %v want %v", c.opts, got, c.want)
		}
	}
	r := udp()
	r.SrcIP, r.DstIP = q.DstIP, q.SrcIP
	r.SrcPort, r.DstPort = q.DstPort, q.SrcPort
	r.Timestamp = t0.Add(time.Millisecond)
	f2, dir := tb.Packet(r)
	if f2 != f || dir != flow.ToClient || !f.PacketEstablished() {
		t.Fatalf("reply: same %v dir %v est %v", f2 == f, dir, f.PacketEstablished())
	}
	cases = []struct {
		opts string
		want bool
	}{
		{"flow:to_server;", false},
		{"flow:to_client;", true},
		{"flow:established;", true},
		{"flow:established,to_client;", true},
		{"flow:established,to_server;", false},
		{"flow:not_established;", false},
		{"flow:stateless;", true},
	}
	for _, c := range cases {
		m := compile(t, c.opts, NewNames())
		if got := m.Match(&Input{P: r, F: f, Dir: dir}); got != c.want {
			t.Errorf("reply %s: got %v want %v", c.opts, got, c.want)
		}
	}
	// Rebuilt fragments.
	d := udp()
	d.Source = decode.SourceDefrag
	runFlow := func(opts string, p *decode.Packet, f *flow.Flow, want bool) {
		t.Helper()
		if got := compile(t, opts, NewNames()).Match(&Input{P: p, F: f, Dir: flow.ToServer}); got != want {
			t.Errorf("%s: got %v want %v", opts, got, want)
		}
	}
	runFlow("flow:only_frag;", d, f, true)
	runFlow("flow:no_frag;", d, f, false)
	// Without a flow: state keywords never match; direction only counts as to_server.
	runFlow("flow:stateless;", udp(), nil, false)
	runFlow("flow:not_established;", udp(), nil, false)
	runFlow("flow:to_server;", udp(), nil, true)
	runFlow("flow:to_client;", udp(), nil, false)
}

func TestTCPEstablished(t *testing.T) {
	tb := newTable()
	m := compile(t, "flow:established,to_server;", NewNames())
	cli, srv := "10.0.0.1", "10.0.0.2"
	mk := func(src string, flags uint8, ms int) *decode.Packet {
		p := tcp(flags)
		p.SrcIP = netip.MustParseAddr(src)
		if src == srv {
			p.DstIP = netip.MustParseAddr(cli)
			p.SrcPort, p.DstPort = 80, 1234
		}
		p.Timestamp = t0.Add(time.Duration(ms) * time.Millisecond)
		return p
	}
	steps := []struct {
		p    *decode.Packet
		want bool
	}{
		{mk(cli, decode.TCPFlagSYN, 0), false},
		{mk(srv, decode.TCPFlagSYN|decode.TCPFlagACK, 1), false},
		{mk(cli, decode.TCPFlagACK, 2), false},
		{mk(cli, decode.TCPFlagACK|decode.TCPFlagPSH, 3), true},
	}
	for i, s := range steps {
		f, dir := tb.Packet(s.p)
		got := m.Match(&Input{P: s.p, F: f, Dir: dir})
		if got != s.want {
			t.Errorf("step %d: got %v want %v (established %v)", i, got, s.want, f.PacketEstablished())
		}
	}
}

func TestFlowbits(t *testing.T) {
	names := NewNames()
	f := &flow.Flow{}
	in := &Input{P: tcp(0), F: f}
	set := func(opts string) {
		t.Helper()
		p, err := CompilePost(parse(t, opts), names)
		if err != nil {
			t.Fatal(err)
		}
		p.Apply(in)
	}
	check := func(opts string, want bool) {
		t.Helper()
		if got := compile(t, opts, names).Match(in); got != want {
			t.Errorf("%s: got %v want %v", opts, got, want)
		}
	}
	check("flowbits:isset,a;", false)
	check("flowbits:isnotset,a;", true)
	set("flowbits:set,a;")
	check("flowbits:isset,a;", true)
	check("flowbits:isnotset,a;", false)
	check("flowbits:isset,b|a;", true)
	check("flowbits:isset,b|c;", false)
	check("flowbits:isnotset,a|b;", true) // one of them is not set
	check("flowbits:isset,a; flowbits:isset,b;", false)
	set("flowbits:set,b;")
	check("flowbits:isset,a; flowbits:isset,b;", true)
	check("flowbits:isnotset,a|b;", false)
	set("flowbits:unset,a;")
	check("flowbits:isset,a;", false)
	set("flowbits:toggle,a;")
	check("flowbits:isset,a;", true)
	set("flowbits:toggle,a;")
	check("flowbits:isset,a;", false)
	// set on an OR list touches no named bit.
	set("flowbits:set,a|c;")
	check("flowbits:isset,a|c;", false)
	// '&' is part of the name in Suricata 8.
	set("flowbits:set,x&y;")
	check("flowbits:isset,x&y;", true)
	check("flowbits:isset,x;", false)
	// No flow: checks never match, actions do nothing.
	noflow := &Input{P: tcp(0)}
	if compile(t, "flowbits:isnotset,zz;", names).Match(noflow) {
		t.Error("isnotset matched without a flow")
	}
	p, _ := CompilePost(parse(t, "flowbits:set,zz;"), names)
	p.Apply(noflow)
	// Many names beyond the inline bits.
	for i := 0; i < 600; i++ {
		names.Flowbit("n" + strings.Repeat("x", i))
	}
	set("flowbits:set,nxxxxxxxxxx" + strings.Repeat("x", 590) + ";")
	check("flowbits:isset,nxxxxxxxxxx"+strings.Repeat("x", 590)+";", true)
	check("flowbits:isset,nxxxxxxxxxx"+strings.Repeat("x", 589)+";", false)
}

func TestFlowint(t *testing.T) {
	names := NewNames()
	f := &flow.Flow{}
	in := &Input{P: tcp(0), F: f}
	do := func(opts string) {
		t.Helper()
		p, err := CompilePost(parse(t, opts), names)
		if err != nil {
			t.Fatal(err)
		}
		p.Apply(in)
	}
	check := func(opts string, want bool) {
		t.Helper()
		if got := compile(t, opts, names).Match(in); got != want {
			t.Errorf("%s: got %v want %v", opts, got, want)
		}
	}
	check("flowint:cnt,isset;", false)
	check("flowint:cnt,notset;", true)
	check("flowint:cnt,isnotset;", true)
	check("flowint:cnt,==,0;", false) // comparisons need the variable
	check("flowint:cnt,!=,0;", false)
	do("flowint:cnt,-,1;") // no effect on an unset variable
	check("flowint:cnt,isset;", false)
	do("flowint:cnt,+,1;") // add on unset initialises
	check("flowint:cnt,==,1;", true)
	do("flowint:cnt,+,4;")
	check("flowint:cnt,==,5;", true)
	check("flowint:cnt,!=,5;", false)
	check("flowint:cnt,>,4;", true)
	check("flowint:cnt,>=,5;", true)
	check("flowint:cnt,<,5;", false)
	check("flowint:cnt,<=,5;", true)
	do("flowint:cnt,-,2;")
	check("flowint:cnt,==,3;", true)
	do("flowint:cnt,=,10;")
	check("flowint:cnt,==,10;", true)
	check("flowint:cnt,isset;", true)
	// Against another flowint: unset reads 0.
	check("flowint:cnt,>,other;", true)
	do("flowint:other,=,10;")
	check("flowint:cnt,==,other;", true)
	do("flowint:cnt,+,other;")
	check("flowint:cnt,==,20;", true)
	do("flowint:third,=,other;")
	check("flowint:third,==,10;", true)
	// uint32 wraparound like Suricata.
	do("flowint:ww,=,0;")
	do("flowint:ww,-,1;")
	check("flowint:ww,==,4294967295;", true)
	// Without a flow.
	if compile(t, "flowint:cnt,notset;", names).Match(&Input{P: tcp(0)}) {
		t.Error("flowint check matched without a flow")
	}
}

func TestHostbitsXbits(t *testing.T) {
	names := NewNames()
	hosts := NewHostTable(100)
	a, b, c := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")
	pkt := func(src, dst netip.Addr, sec int) *Input {
		p := tcp(0)
		p.SrcIP, p.DstIP = src, dst
		p.Timestamp = t0.Add(time.Duration(sec) * time.Second)
		return &Input{P: p, Hosts: hosts}
	}
	do := func(opts string, in *Input) {
		t.Helper()
		p, err := CompilePost(parse(t, opts), names)
		if err != nil {
			t.Fatal(err)
		}
		p.Apply(in)
	}
	check := func(opts string, in *Input, want bool) {
		t.Helper()
		if got := compile(t, opts, names).Match(in); got != want {
			t.Errorf("%s at %v: got %v want %v", opts, in.P.Timestamp.Sub(t0), got, want)
		}
	}
	// hostbits by src (default) and dst.
	do("hostbits:set,bad;", pkt(a, b, 0))
	check("hostbits:isset,bad;", pkt(a, c, 1), true)        // a is src
	check("hostbits:isset,bad;", pkt(b, a, 1), false)       // b never set
	check("hostbits:isset,bad,dst;", pkt(b, a, 1), true)    // a is dst
	check("hostbits:isnotset,bad,dst;", pkt(a, b, 1), true) // b is dst
	check("xbits:isset,bad,track ip_src;", pkt(a, b, 1), true)
	check("hostbits:isset,bad;", pkt(a, b, 300), true)  // default expiry 300 s
	check("hostbits:isset,bad;", pkt(a, b, 301), false) // expired
	do("hostbits:set,x,dst;", pkt(a, b, 0))
	check("hostbits:isset,x;", pkt(b, c, 1), true)
	do("hostbits:unset,x;", pkt(b, c, 2))
	check("hostbits:isset,x;", pkt(b, c, 3), false)
	do("hostbits:toggle,y;", pkt(c, a, 0))
	check("hostbits:isset,y;", pkt(c, a, 1), true)
	do("hostbits:toggle,y;", pkt(c, a, 2))
	check("hostbits:isset,y;", pkt(c, a, 3), false)

	// xbits with expiry and pairs.
	do("xbits:set,p,track ip_pair,expire 10;", pkt(a, b, 0))
	check("xbits:isset,p,track ip_pair;", pkt(b, a, 10), true) // unordered pair, expire >= now
	check("xbits:isset,p,track ip_pair;", pkt(a, c, 5), false)
	check("xbits:isset,p,track ip_pair;", pkt(a, b, 11), false)
	check("xbits:isnotset,p,track ip_pair;", pkt(a, b, 12), true)
	do("xbits:set,q,track ip_dst;", pkt(a, b, 0)) // default 30 s
	check("xbits:isset,q,track ip_src;", pkt(b, a, 30), true)
	check("xbits:isset,q,track ip_src;", pkt(b, a, 31), false)
	// Pair bits and host bits are separate namespaces.
	do("xbits:set,shared,track ip_pair;", pkt(a, b, 0))
	check("xbits:isset,shared,track ip_src;", pkt(a, b, 1), false)

	// Without a host table nothing matches and nothing is stored.
	nohosts := pkt(a, b, 0)
	nohosts.Hosts = nil
	check("hostbits:isnotset,bad;", nohosts, false)
	do("hostbits:set,bad;", nohosts)

	// xbits track tx set is a post-match on the matched tx (TestTxXbitCompile).
	if post, err := CompilePost(parse(t, "xbits:set,t,track tx;"), names); err != nil || post.Len() != 1 {
		t.Errorf("tx xbits: %v", err)
	}
}

func TestHostTableLimit(t *testing.T) {
	names := NewNames()
	h := NewHostTable(2)
	set, err := CompilePost(parse(t, "xbits:set,a,track ip_src,expire 5;"), names)
	if err != nil {
		t.Fatal(err)
	}
	isset := compile(t, "xbits:isset,a,track ip_src;", names)
	in := func(ip string, sec int) *Input {
		p := tcp(0)
		p.SrcIP = netip.MustParseAddr(ip)
		p.Timestamp = t0.Add(time.Duration(sec) * time.Second)
		return &Input{P: p, Hosts: h}
	}
	set.Apply(in("1.1.1.1", 0))
	set.Apply(in("1.1.1.2", 0))
	set.Apply(in("1.1.1.3", 0)) // full: refused
	if h.Len() != 2 || h.Refused() != 1 {
		t.Fatalf("len %d refused %d", h.Len(), h.Refused())
	}
	if isset.Match(in("1.1.1.3", 1)) {
		t.Error("refused host has the bit")
	}
	set.Apply(in("1.1.1.3", 10)) // the others expired: room is made
	if !isset.Match(in("1.1.1.3", 11)) || h.Refused() != 1 {
		t.Errorf("after expiry: len %d refused %d", h.Len(), h.Refused())
	}
	h.Expire(t0.Add(time.Hour))
	if h.Len() != 0 {
		t.Errorf("Expire left %d entries", h.Len())
	}
}

func TestNotSupported(t *testing.T) {
	for _, c := range []struct{ opts, kw string }{
		{"geoip:src,US;", "geoip"},
	} {
		_, err := Compile(parse(t, c.opts), NewNames())
		if err == nil || err.Error() != "keyword "+c.kw+" is not supported yet" {
			t.Errorf("%s: %v", c.opts, err)
		}
	}
	// An event of a layer Meerkat does not decode is refused by name.
	if _, err := Compile(parse(t, "decode-event:gre.pkt_too_small;"), NewNames()); err == nil ||
		err.Error() != "decode-event gre.pkt_too_small is not supported yet" {
		t.Errorf("decode-event gre: %v", err)
	}
	_, err := CompilePost(parse(t, `content:"a"; replace:"b";`), NewNames())
	if err == nil || err.Error() != "keyword replace is not supported yet" {
		t.Errorf("replace: %v", err)
	}
	for _, kw := range []string{"flow", "tcp.flags", "dsize", "flowbits", "xbits", "hostbits", "flowint"} {
		if !Supports(kw) {
			t.Errorf("Supports(%s) false", kw)
		}
	}
	if Supports("geoip") || Supports("flags") {
		t.Error("Supports too wide")
	}
}

// TestNoPanic runs every keyword on degenerate packets.
func TestNoPanic(t *testing.T) {
	opts := []string{
		"flow:established,to_server;", "flow:to_client;", "flags:S;", "ttl:1;", "itype:1;", "icode:1;",
		"icmp_id:1;", "icmp_seq:1;", "ip_proto:6;", "ipopts:rr;", "fragbits:M;", "fragoffset:0;",
		"id:1;", "tos:1;", "sameip;", "seq:1;", "ack:1;", "window:1;", "tcp.mss:1;", "tcp.wscale:1;",
		"dsize:1;", "flowbits:isset,a;", "flowint:aa,==,1;", "xbits:isset,a,track ip_pair;",
		"hostbits:isnotset,a;",
	}
	pkts := []*decode.Packet{{}, {IPVersion: 4}, {IPVersion: 6, IPProto: 6}, {IPVersion: 4, IPProto: 1, HasL4: true}}
	names := NewNames()
	hosts := NewHostTable(4)
	for _, o := range opts {
		m := compile(t, o, names)
		for _, p := range pkts {
			m.Match(&Input{P: p})
			m.Match(&Input{P: p, F: &flow.Flow{}, Hosts: hosts})
		}
		m.Match(&Input{})
		m.Match(nil)
	}
	for _, o := range []string{"flowbits:set,a;", "flowint:aa,+,1;", "xbits:set,a,track ip_pair;", "hostbits:toggle,a;"} {
		p, err := CompilePost(parse(t, o), names)
		if err != nil {
			t.Fatal(err)
		}
		for _, pk := range pkts {
			p.Apply(&Input{P: pk})
			p.Apply(&Input{P: pk, F: &flow.Flow{}, Hosts: hosts})
		}
		p.Apply(nil)
	}
}

func TestZeroAllocs(t *testing.T) {
	p := tcp(decode.TCPFlagSYN | decode.TCPFlagACK)
	p.Payload = make([]byte, 10)
	f := &flow.Flow{}
	names := NewNames()
	ms := []*Matcher{
		compile(t, "flow:to_server,stateless; flags:SA,12; ttl:<100; dsize:10; window:!1; ip_proto:6; tos:0; id:0; fragbits:!M; fragoffset:0; ipopts:rr; sameip; seq:0; ack:0; tcp.mss:>1; itype:1;", names),
		compile(t, "flowbits:isset,a|b; flowint:cc,isnotset;", names),
	}
	in := &Input{P: p, F: f, Dir: flow.ToServer}
	for _, m := range ms {
		if n := testing.AllocsPerRun(1000, func() { m.Match(in) }); n != 0 {
			t.Errorf("%v: %.1f allocs per Match", m.Keywords(), n)
		}
	}
	post, _ := CompilePost(parse(t, "flowbits:set,a; flowbits:unset,a;"), names)
	if n := testing.AllocsPerRun(1000, func() { post.Apply(in) }); n != 0 {
		t.Errorf("flowbits set/unset: %.1f allocs", n)
	}
}

func BenchmarkMatch(b *testing.B) {
	p := tcp(decode.TCPFlagSYN | decode.TCPFlagACK)
	m := compile(b, "flow:to_server,stateless; flags:SA,12; ttl:<100; dsize:0; flowbits:isnotset,a;", NewNames())
	in := &Input{P: p, F: &flow.Flow{}, Dir: flow.ToServer}
	b.ReportAllocs()
	for b.Loop() {
		m.Match(in)
	}
}

func TestVlanID(t *testing.T) {
	tests := []struct {
		rule  string
		vlans []uint16
		want  bool
	}{
		{"vlan.id:100", []uint16{100}, true},
		{"vlan.id:100", []uint16{10, 100}, true},
		{"vlan.id:100", nil, false},
		{"vlan.id:100,0", []uint16{10, 100}, false},
		{"vlan.id:100,1", []uint16{10, 100}, true},
		{"vlan.id:100,-1", []uint16{10, 100}, true},
		{"vlan.id:>50,all", []uint16{60, 100}, true},
		{"vlan.id:>50,all", []uint16{60, 10}, false},
		{"vlan.id:!100", []uint16{100}, false},
	}
	for _, tc := range tests {
		r, err := rules.Parse("alert ip any any -> any any (" + tc.rule + "; sid:1;)")
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		m, err := Compile(r, NewNames())
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		p := &decode.Packet{IPVersion: 4}
		for i, v := range tc.vlans {
			p.VLAN[i] = v
		}
		p.VLANCount = uint8(len(tc.vlans))
		if got := m.Match(&Input{P: p}); got != tc.want {
			t.Errorf("%s on %v: %v, want %v", tc.rule, tc.vlans, got, tc.want)
		}
	}
}

// TestCompilersAreRegisteredKeywords: the compiler table is keyed by the canonical names
// package rules registers, so a keyword it lists is one a rule can use.
func TestCompilersAreRegisteredKeywords(t *testing.T) {
	for name := range compilers {
		k := rules.Lookup(name)
		if k == nil || k.Name != name {
			t.Errorf("compiler %q: not a registered keyword's canonical name (%v)", name, k)
		}
	}
}

// TestStreamSize follows Suricata's DetectStreamSizeMatchAux: next_seq - ISN of the sides
// (N data bytes after the SYN read N+1), no session no match.
func TestStreamSize(t *testing.T) {
	p := &decode.Packet{HasL4: true, IPProto: decode.ProtoTCP}
	for _, c := range []struct {
		opts           string
		session        bool
		client, server uint32
		want           bool
	}{
		{"stream_size:server,>,10;", true, 0, 11, true},
		{"stream_size:server,>,10;", true, 100, 10, false},
		{"stream_size:client,=,6;", true, 6, 1, true},
		{"stream_size:client,<=,6;", true, 7, 1, false},
		{"stream_size:both,>,5;", true, 6, 5, false},
		{"stream_size:both,>,5;", true, 6, 6, true},
		{"stream_size:either,>,5;", true, 1, 6, true},
		{"stream_size:either,!=,1;", true, 1, 1, false},
		{"stream_size:either,>=,0;", false, 0, 0, false}, // no session
	} {
		m, err := Compile(parse(t, c.opts), NewNames())
		if err != nil {
			t.Fatalf("%s: %v", c.opts, err)
		}
		in := &Input{P: p, Session: c.session, ClientSize: c.client, ServerSize: c.server}
		if got := m.Match(in); got != c.want {
			t.Errorf("%s client %d server %d session %v: %v, want %v", c.opts, c.client, c.server, c.session, got, c.want)
		}
	}
}
