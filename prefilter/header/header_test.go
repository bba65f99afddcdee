package header

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/rules"
)

// parseRule parses the options of an ip any/any rule.
func parseRule(t testing.TB, opts string) *rules.Rule {
	t.Helper()
	r, err := rules.Parse("alert ip any any -> any any (" + opts + " sid:1;)")
	if err != nil {
		t.Fatalf("parse %q: %v", opts, err)
	}
	return r
}

func hdrRule(r *rules.Rule) Rule { return FromRule(r) }

// pkt returns an IPv4 TCP packet with ordinary header values, changed by mods.
func pkt(mods ...func(*decode.Packet)) *decode.Packet {
	p := &decode.Packet{
		IPVersion: 4, TTL: 64, SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"),
		IPProto: decode.ProtoTCP, HasL4: true, SrcPort: 1234, DstPort: 80, TCPFlags: 0x10, TCPWindow: 512,
		IPID: 7,
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func icmp(typ, code uint8) func(*decode.Packet) {
	return func(p *decode.Packet) {
		p.IPProto, p.ICMPType, p.ICMPCode, p.TCPFlags = decode.ProtoICMP, typ, code, 0
	}
}

func flags(f uint8) func(*decode.Packet) { return func(p *decode.Packet) { p.TCPFlags = f } }
func payload(n int) func(*decode.Packet) {
	return func(p *decode.Packet) { p.Payload = make([]byte, n) }
}

// hit reports whether the one-rule index built from opts admits p, and the rule's choice.
func hit(t *testing.T, opts string, p *decode.Packet) (bool, Choice) {
	t.Helper()
	x, err := Build([]Rule{hdrRule(parseRule(t, opts))}, Options{MaxAdmit: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := x.Lookup(make([]uint64, x.Words()), p)
	return out[0]&1 != 0, x.Choice(0)
}

// TestKeywordEngines checks each engine against Suricata 8.0.6 semantics (the keyword
// documentation and the Match functions of src/detect-*.c), at boundaries and with
// modifiers, masks and negations.
func TestKeywordEngines(t *testing.T) {
	S, A, F, R, P, U := uint8(0x02), uint8(0x10), uint8(0x01), uint8(0x04), uint8(0x08), uint8(0x20)
	E, C := uint8(0x40), uint8(0x80)
	cases := []struct {
		opts string
		p    *decode.Packet
		want bool
	}{
		// tcp.flags: exact by default; + all of them (others allowed); * any of them; ! not all.
		{"flags:S;", pkt(flags(S)), true},
		{"flags:S;", pkt(flags(S | A)), false},
		{"flags:S;", pkt(flags(S | E)), false},
		{"flags:S,CE;", pkt(flags(S | E | C)), true}, // ignore mask
		{"flags:S,CE;", pkt(flags(S | E | A)), false},
		{"flags:S,12;", pkt(flags(S | C)), true},
		{"flags:+SA;", pkt(flags(S | A | P)), true},
		{"flags:+SA;", pkt(flags(S)), false},
		{"flags:*FR;", pkt(flags(R | A)), true},
		{"flags:*FR;", pkt(flags(S)), false},
		{"flags:!S;", pkt(flags(A)), true},
		{"flags:!S;", pkt(flags(S | A)), false},
		{"flags:!SA;", pkt(flags(S)), true},
		{"flags:SA+;", pkt(flags(S | A | F)), true}, // modifier after the flags
		{"flags:0;", pkt(flags(0)), true},
		{"flags:0;", pkt(flags(A)), false},
		{"flags:!0;", pkt(flags(A)), true}, // flags:0 with a flag-carrying packet: only with !
		{"flags:FSRPAU;", pkt(flags(F | S | R | P | A | U)), true},
		{"flags:S;", pkt(icmp(8, 0)), false}, // not TCP
		{"flags:S;", pkt(flags(S), func(p *decode.Packet) { p.HasL4 = false }), false},
		// dsize: payload length; ranges exclusive; values over 65535 count.
		{"dsize:0;", pkt(), true},
		{"dsize:0;", pkt(payload(1)), false},
		{"dsize:>630;", pkt(payload(631)), true},
		{"dsize:>630;", pkt(payload(630)), false},
		{"dsize:>630;", pkt(payload(70000)), true},
		{"dsize:<10;", pkt(payload(9)), true},
		{"dsize:<10;", pkt(payload(10)), false},
		{"dsize:10<>20;", pkt(payload(10)), false},
		{"dsize:10<>20;", pkt(payload(11)), true},
		{"dsize:10<>20;", pkt(payload(19)), true},
		{"dsize:10<>20;", pkt(payload(20)), false},
		{"dsize:!10-20;", pkt(payload(10)), true},
		{"dsize:!10-20;", pkt(payload(15)), false},
		{"dsize:!10-20;", pkt(payload(20)), true},
		{"dsize:!5;", pkt(payload(5)), false},
		{"dsize:!5;", pkt(payload(6)), true},
		{"dsize:=65535;", pkt(payload(65536)), false},
		{"dsize:>=100;", pkt(payload(100)), true},
		{"dsize:<=100;", pkt(payload(101)), false},
		// ttl: IPv4 TTL or IPv6 hop limit; full integer syntax with masks.
		{"ttl:64;", pkt(), true},
		{"ttl:64;", pkt(func(p *decode.Packet) { p.IPVersion = 6; p.SrcIP, p.DstIP = netip.IPv6Loopback(), netip.IPv6Loopback() }), true},
		{"ttl:<5;", pkt(), false},
		{"ttl:&0x40=0x40;", pkt(), true},
		{"ttl:&0x40=0;", pkt(), false},
		{"ttl:&0x01!=0;", pkt(), false},
		{"ttl:64;", pkt(func(p *decode.Packet) { p.IPVersion = 0 }), false},
		// itype / icode: ICMP and ICMPv6 only.
		{"itype:8;", pkt(icmp(8, 0)), true},
		{"itype:8;", pkt(icmp(0, 0)), false},
		{"itype:>30;", pkt(icmp(31, 0)), true},
		{"itype:8;", pkt(flags(8)), false},
		{"icode:3;", pkt(icmp(3, 3)), true},
		{"icode:3<>5;", pkt(icmp(3, 4)), true},
		{"icode:3<>5;", pkt(icmp(3, 5)), false},
		{"itype:8;", pkt(icmp(8, 0), func(p *decode.Packet) { p.IPProto = decode.ProtoICMPv6 }), true},
		// ip_proto: number or name, with ! < >.
		{"ip_proto:6;", pkt(), true},
		{"ip_proto:tcp;", pkt(), true},
		{"ip_proto:!6;", pkt(), false},
		{"ip_proto:<7;", pkt(), true},
		{"ip_proto:>6;", pkt(), false},
		// tos: IPv4 only, decimal or x-hex, negation.
		{"tos:8;", pkt(func(p *decode.Packet) { p.TOS = 8 }), true},
		{"tos:x10;", pkt(func(p *decode.Packet) { p.TOS = 16 }), true},
		{"tos:!8;", pkt(func(p *decode.Packet) { p.TOS = 8 }), false},
		{"tos:!8;", pkt(), true},
		{"tos:0;", pkt(func(p *decode.Packet) { p.IPVersion = 6 }), false},
		// fragbits: exact, + (all listed and some other), * (any), ! (not all); IPv4 only.
		{"fragbits:M;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagMF }), true},
		{"fragbits:M;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagMF | decode.IPv4FlagDF }), false},
		{"fragbits:+D;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagDF }), false},
		{"fragbits:+D;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagDF | decode.IPv4FlagRF }), true},
		{"fragbits:*MR;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagRF }), true},
		{"fragbits:*MR;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagDF }), false},
		{"fragbits:!D;", pkt(), true},
		{"fragbits:!D;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagDF }), false},
		{"fragbits:M;", pkt(func(p *decode.Packet) { p.IPv4Flags = decode.IPv4FlagMF; p.IPVersion = 6 }), false},
		// fragoffset: IPv4 in 8-byte units, IPv6 the fragment header's offset.
		{"fragoffset:0;", pkt(), true},
		{"fragoffset:>0;", pkt(func(p *decode.Packet) { p.FragOffset = 8 }), true},
		{"fragoffset:>1;", pkt(func(p *decode.Packet) { p.FragOffset = 15 }), false},
		{"fragoffset:<2;", pkt(func(p *decode.Packet) { p.FragOffset = 15 }), true},
		{"fragoffset:!1;", pkt(func(p *decode.Packet) { p.FragOffset = 8 }), false},
		{"fragoffset:8;", pkt(func(p *decode.Packet) { p.IPVersion = 6; p.FragOffset = 8; p.IPv6FragHdr = true }), true},
		{"fragoffset:0;", pkt(func(p *decode.Packet) { p.IPVersion = 6 }), false},
		// tcp.window: exact or negated.
		{"window:512;", pkt(), true},
		{"window:0;", pkt(), false},
		{"window:!0;", pkt(), true},
		{"window:!512;", pkt(), false},
		{"window:512;", pkt(icmp(8, 0)), false},
		// tcp.mss, tcp.wscale: the option must be present; a wscale over 14 reads 0.
		{"tcp.mss:<536;", pkt(func(p *decode.Packet) { p.HasTCPMSS, p.TCPMSS = true, 100 }), true},
		{"tcp.mss:<536;", pkt(), false},
		{"tcp.mss:1000-1500;", pkt(func(p *decode.Packet) { p.HasTCPMSS, p.TCPMSS = true, 1460 }), true},
		{"tcp.wscale:0;", pkt(func(p *decode.Packet) { p.HasWScale, p.TCPWScale = true, 15 }), true},
		{"tcp.wscale:>10;", pkt(func(p *decode.Packet) { p.HasWScale, p.TCPWScale = true, 15 }), false},
		{"tcp.wscale:>10;", pkt(func(p *decode.Packet) { p.HasWScale, p.TCPWScale = true, 14 }), true},
		{"tcp.wscale:7;", pkt(func(p *decode.Packet) { p.TCPWScale = 7 }), false},
		// id (IPv4), icmp_id / icmp_seq (echo-like ICMP), tcp.seq / tcp.ack.
		{"id:7;", pkt(), true},
		{"id:8;", pkt(), false},
		{"id:7;", pkt(func(p *decode.Packet) { p.IPVersion = 6 }), false},
		{"icmp_id:9;", pkt(icmp(8, 0), func(p *decode.Packet) { p.HasICMPID, p.ICMPID = true, 9 }), true},
		{"icmp_id:9;", pkt(icmp(8, 0), func(p *decode.Packet) { p.ICMPID = 9 }), false},
		{"icmp_seq:1;", pkt(icmp(0, 0), func(p *decode.Packet) { p.HasICMPID, p.ICMPSeq = true, 1 }), true},
		{"seq:4000000000;", pkt(func(p *decode.Packet) { p.TCPSeq = 4000000000 }), true},
		{"seq:4000000000;", pkt(func(p *decode.Packet) { p.TCPSeq = 4000000001 }), false},
		{"ack:0;", pkt(), true},
		{"ack:0;", pkt(icmp(8, 0)), false},
		// vlan.id: any layer by default; the array is searched for a given layer or all.
		{"vlan.id:100;", pkt(func(p *decode.Packet) { p.VLANCount, p.VLAN = 2, [3]uint16{200, 100} }), true},
		{"vlan.id:100;", pkt(func(p *decode.Packet) { p.VLANCount, p.VLAN = 1, [3]uint16{200} }), false},
		{"vlan.id:100,0;", pkt(func(p *decode.Packet) { p.VLANCount, p.VLAN = 1, [3]uint16{100} }), true},
		{"vlan.id:>4000,all;", pkt(func(p *decode.Packet) { p.VLANCount, p.VLAN = 1, [3]uint16{4001} }), true},
		{"vlan.id:100;", pkt(), false},
	}
	for _, c := range cases {
		got, ch := hit(t, c.opts, c.p)
		if !ch.Witnessed() {
			t.Errorf("%s: no witness: %s", c.opts, ch.Reason)
			continue
		}
		if got != c.want {
			t.Errorf("%s on %+v: witness %v, want %v", c.opts, c.p, got, c.want)
		}
	}
}

// TestChoice checks that the narrower keyword is chosen, that the prefilter keyword forces
// its keyword, and that rules without a usable witness say why.
func TestChoice(t *testing.T) {
	cases := []struct {
		opts, keyword, reason string
		opt                   Options
		forcePrefilter        bool // the rule has a prefilter keyword
		unforced              bool // ... on a keyword that cannot be the witness
	}{
		{opts: "flags:S; dsize:0;", keyword: "tcp.flags"},
		{opts: "dsize:0; flags:S;", keyword: "tcp.flags"},
		{opts: "dsize:>800; itype:8;", keyword: "itype"},
		{opts: "itype:8; dsize:>1460;", keyword: "dsize"},
		{opts: "window:0; flags:A;", keyword: "tcp.window"},
		{opts: "ttl:<5; fragbits:M;", keyword: "ttl"},
		{opts: "seq:1; flags:S;", keyword: "tcp.seq"},
		{opts: "ack:0; flags:S,12;", keyword: "tcp.flags"}, // every SYN has ack 0
		{opts: "ack:0; window:1024; flags:S,12; dsize:0;", keyword: "tcp.window"},
		{opts: "flags:S; dsize:0; prefilter;", keyword: "dsize", forcePrefilter: true},
		{opts: "flags:S; prefilter; dsize:0;", keyword: "tcp.flags", forcePrefilter: true},
		{opts: "flags:S; prefilter;", keyword: "tcp.flags", opt: Options{PrefilterKeywordOnly: true}, forcePrefilter: true},
		{opts: "flags:S;", opt: Options{PrefilterKeywordOnly: true}, reason: "prefilter default mpm"},
		{opts: "sameip; prefilter; flags:S;", keyword: "tcp.flags", forcePrefilter: true, unforced: true},
		{opts: "flags:*FSRPAUCE; prefilter;", keyword: "tcp.flags", forcePrefilter: true},
		{opts: "sameip;", reason: "sameip: compares two fields"},
		{opts: "flowbits:isset,a;", reason: "flowbits: flow variable"},
		{opts: "flowbits:isnotset,a; ttl:!0;", reason: "ttl: admits about"},
		{opts: "window:!5;", reason: "tcp.window: admits about"},
		{opts: "dsize:&0x5555=0x1;", reason: "dsize: bitmask condition"},
		{opts: "msg:\"x\";", reason: "no header keyword"},
		{opts: "flags:*FSRPAUCE;", reason: "tcp.flags: admits about"},
	}
	for _, c := range cases {
		r := parseRule(t, c.opts)
		hr := FromRule(r)
		if (hr.Prefilter != nil) != c.forcePrefilter {
			t.Fatalf("%s: prefilter target %v", c.opts, hr.Prefilter)
		}
		x, err := Build([]Rule{hr}, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		ch := x.Choice(0)
		if ch.Keyword != c.keyword || !strings.Contains(ch.Reason, c.reason) || (c.reason == "") != ch.Witnessed() {
			t.Errorf("%s: got %+v, want keyword %q reason containing %q", c.opts, ch, c.keyword, c.reason)
		}
		if ch.Forced != (c.forcePrefilter && !c.unforced && c.keyword != "") {
			t.Errorf("%s: forced %v", c.opts, ch.Forced)
		}
		if x.Witnessed(0) != ch.Witnessed() || (x.Always()[0]&1 != 0) == ch.Witnessed() {
			t.Errorf("%s: Witnessed/Always disagree with the choice", c.opts)
		}
	}
}

// TestNegatedExact checks that a negated 32-bit value (which the parser does not produce
// today, but an Option can carry) is refused rather than indexed as equality.
func TestNegatedExact(t *testing.T) {
	for _, o := range []*rules.Option{
		{Name: "tcp.seq", Value: "!5", Arg: uint64(5)},
		{Name: "tcp.ack", Value: "5", Negated: true, Arg: uint64(5)},
	} {
		x, _ := Build([]Rule{{Matches: []*rules.Option{o}}}, Options{})
		if ch := x.Choice(0); ch.Witnessed() || !strings.Contains(ch.Reason, "negated") {
			t.Errorf("%+v: %+v", o, ch)
		}
	}
}

// TestFilter checks Filter against Lookup and Always on a mixed rule set.
func TestFilter(t *testing.T) {
	var rs []Rule
	for _, o := range []string{"flags:S;", "sameip;", "dsize:0;", "itype:8;", "msg:\"x\";"} {
		rs = append(rs, hdrRule(parseRule(t, o)))
	}
	x, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	words := []uint64{0b11011} // rules 0, 1, 3, 4 from another index
	x.Filter(words, make([]uint64, x.Words()), pkt(flags(0x02)), nil)
	if words[0] != 0b11011&^0b01000 { // itype fails on TCP; flags:S holds; 1 and 4 stay
		t.Fatalf("Filter = %05b", words[0])
	}
	st := x.Stats()
	if st.Rules != 5 || st.Witnessed != 3 || st.PerKeyword["tcp.flags"] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestEmptyIndex checks that an index without rules (or without witnesses) answers.
func TestEmptyIndex(t *testing.T) {
	x, err := Build(nil, Options{})
	if err != nil || len(x.Lookup(nil, pkt())) != 0 {
		t.Fatal("empty index")
	}
	x, _ = Build([]Rule{hdrRule(parseRule(t, "sameip;"))}, Options{})
	if out := x.Lookup(make([]uint64, 1), pkt()); out[0] != 0 || x.Always()[0] != 1 {
		t.Fatal("unwitnessed rule")
	}
}
