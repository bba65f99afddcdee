package header

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/rules"
)

// scanRules returns n header-only rules shaped like scan-detection sets: flags, dsize, window,
// itype/icode, fragbits and ttl conditions, alone or two together.
func scanRules(tb testing.TB, n int) []Rule {
	r := rand.New(rand.NewPCG(5, 5))
	kw := func() string {
		switch r.IntN(9) {
		case 0:
			return []string{"flags:S", "flags:SF", "flags:F", "flags:0", "flags:FPU", "flags:S,CE", "flags:+SA", "flags:A"}[r.IntN(8)]
		case 1:
			return fmt.Sprintf("dsize:%d", r.IntN(100))
		case 2:
			return fmt.Sprintf("dsize:>%d", 200+r.IntN(1300))
		case 3:
			return fmt.Sprintf("window:%d", []int{0, 1024, 2048, 3072, 4096, 65535, 512}[r.IntN(7)])
		case 4:
			return fmt.Sprintf("itype:%d; icode:%d", r.IntN(20), r.IntN(4))
		case 5:
			return fmt.Sprintf("itype:%d", r.IntN(45))
		case 6:
			return []string{"fragbits:M", "fragbits:R", "fragbits:+D", "fragbits:*MR"}[r.IntN(4)]
		case 7:
			return fmt.Sprintf("ttl:<%d", 2+r.IntN(10))
		}
		return fmt.Sprintf("tcp.mss:<%d", 100+r.IntN(400))
	}
	rs := make([]Rule, 0, n)
	for i := range n {
		opts := kw() + ";"
		if r.IntN(3) == 0 {
			opts += " " + kw() + ";"
		}
		ru, err := rules.Parse(fmt.Sprintf("alert ip any any -> any any (%s sid:%d;)", opts, i+1))
		if err != nil {
			continue // two dsizes
		}
		rs = append(rs, Rule{Matches: ru.Matches})
	}
	return rs
}

// benchPackets returns ordinary traffic: mostly TCP ACK / PSH|ACK with or without payload,
// some SYN, UDP and ICMP.
func benchPackets(n int) []*decode.Packet {
	r := rand.New(rand.NewPCG(9, 9))
	ps := make([]*decode.Packet, n)
	for i := range ps {
		p := pkt()
		switch k := r.IntN(20); {
		case k < 10:
			p.TCPFlags, p.Payload = 0x18, make([]byte, 100+r.IntN(1360))
		case k < 16:
			p.TCPFlags = 0x10
		case k == 16:
			p.TCPFlags, p.HasTCPMSS, p.TCPMSS = 0x02, true, 1460
		case k == 17:
			p.IPProto, p.TCPFlags, p.Payload = decode.ProtoUDP, 0, make([]byte, 60)
		default:
			p.IPProto, p.TCPFlags, p.ICMPType, p.Payload = decode.ProtoICMP, 0, 8, make([]byte, 56)
		}
		p.IPv4Flags = decode.IPv4FlagDF
		p.TCPWindow = uint16(r.IntN(65536))
		ps[i] = p
	}
	return ps
}

func BenchmarkLookup2500(b *testing.B) {
	x, err := Build(scanRules(b, 2500), Options{})
	if err != nil {
		b.Fatal(err)
	}
	ps := benchPackets(1024)
	dst := make([]uint64, x.Words())
	hits := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		out := x.Lookup(dst, ps[i&1023])
		hits += int(out[0] & 1)
	}
	_ = hits
}

// BenchmarkMatchAll2500 is what the index replaces: detect/match evaluating every one of the
// 2,500 header-only rules on each packet.
func BenchmarkMatchAll2500(b *testing.B) {
	rs := scanRules(b, 2500)
	ms := make([]*match.Matcher, len(rs))
	for i, r := range rs {
		m, err := match.Compile(&rules.Rule{Matches: r.Matches}, nil)
		if err != nil {
			b.Fatal(err)
		}
		ms[i] = m
	}
	ps := benchPackets(1024)
	hits := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		in := match.Input{P: ps[i&1023]}
		for _, m := range ms {
			if m.Match(&in) {
				hits++
			}
		}
	}
	_ = hits
}

func BenchmarkFilter2500(b *testing.B) {
	x, err := Build(scanRules(b, 2500), Options{})
	if err != nil {
		b.Fatal(err)
	}
	ps := benchPackets(1024)
	words := make([]uint64, x.Words())
	scratch := make([]uint64, x.Words())
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		for j := range words {
			words[j] = ^uint64(0)
		}
		x.Filter(words, scratch, ps[i&1023], nil)
	}
}

func BenchmarkBuild2500(b *testing.B) {
	rs := scanRules(b, 2500)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(rs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNoAllocs checks that Lookup and Filter allocate nothing, for every engine.
func TestNoAllocs(t *testing.T) {
	rs := scanRules(t, 2500)
	for _, o := range []string{"vlan.id:5;", "vlan.id:5,1;", "seq:5;", "ack:7;", "id:7;", "icmp_id:1;",
		"icmp_seq:2;", "fragoffset:>0;", "tos:8;", "ip_proto:17;", "tcp.wscale:>3;", "icode:1;"} {
		rs = append(rs, hdrRule(parseRule(t, o)))
	}
	x, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := x.Stats(); len(st.PerKeyword) < 17 {
		t.Fatalf("only %d engines: %v", len(st.PerKeyword), st.PerKeyword)
	}
	ps := benchPackets(64)
	ps = append(ps, pkt(func(p *decode.Packet) { p.VLANCount, p.TCPSeq = 2, 5 }))
	dst := make([]uint64, x.Words())
	scratch := make([]uint64, x.Words())
	n := 0
	if a := testing.AllocsPerRun(200, func() {
		x.Lookup(dst, ps[n%len(ps)])
		x.Filter(dst, scratch, ps[n%len(ps)], nil)
		n++
	}); a != 0 {
		t.Fatalf("%v allocations per lookup", a)
	}
}

// TestSpread checks that on ordinary traffic the scan-shaped rules mostly stay out of the
// candidates: the point of the index.
func TestSpread(t *testing.T) {
	rs := scanRules(t, 2500)
	x, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := x.Stats()
	if st.Witnessed != len(rs) {
		t.Fatalf("%d of %d rules witnessed", st.Witnessed, len(rs))
	}
	dst := make([]uint64, x.Words())
	total := 0
	ps := benchPackets(1000)
	for _, p := range ps {
		for _, w := range x.Lookup(dst, p) {
			total += popcount(w)
		}
	}
	if mean := float64(total) / float64(len(ps)); mean > 0.2*float64(len(rs)) {
		t.Fatalf("mean %.0f candidates of %d rules per packet", mean, len(rs))
	} else {
		t.Logf("mean %.1f candidates of %d rules per packet; %+v", mean, len(rs), st)
	}
}

func popcount(w uint64) int {
	n := 0
	for ; w != 0; w &= w - 1 {
		n++
	}
	return n
}
