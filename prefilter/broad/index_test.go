package broad

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/rules"
)

var tries = []string{TrieBart, TrieCidranger}

// randV4 returns an IPv4 address biased towards a few overlapping areas.
func randV4(r *rand.Rand) netip.Addr {
	switch r.IntN(4) {
	case 0:
		return netip.AddrFrom4([4]byte{10, byte(r.IntN(4)), byte(r.IntN(256)), byte(r.IntN(256))})
	case 1:
		return netip.AddrFrom4([4]byte{192, 168, byte(r.IntN(3)), byte(r.IntN(256))})
	case 2:
		return netip.AddrFrom4([4]byte{byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))})
	}
	return netip.AddrFrom4([4]byte{172, 16 + byte(r.IntN(2)), byte(r.IntN(4)), byte(r.IntN(256))})
}

func randV6(r *rand.Rand) netip.Addr {
	var b [16]byte
	b[0], b[1], b[2], b[3] = 0x20, 0x01, 0x0d, 0xb8
	b[4] = byte(r.IntN(3))
	for i := 5; i < 16; i++ {
		b[i] = byte(r.IntN(256))
	}
	if r.IntN(4) == 0 {
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
	}
	return netip.AddrFrom16(b)
}

func randAddrElem(r *rand.Rand, depth int) string {
	neg := ""
	if r.IntN(4) == 0 {
		neg = "!"
	}
	switch k := r.IntN(10); {
	case k == 0 && depth < 3:
		n := 1 + r.IntN(4)
		var es []string
		for range n {
			es = append(es, randAddrElem(r, depth+1))
		}
		return neg + "[" + strings.Join(es, ",") + "]"
	case k == 1:
		a := randV4(r)
		b := a
		for range r.IntN(3000) {
			b = b.Next()
			if !b.IsValid() {
				b = a
				break
			}
		}
		return neg + a.String() + "-" + b.String()
	case k == 2:
		return neg + randV6(r).String()
	case k == 3:
		p, _ := randV6(r).Prefix(16 + r.IntN(113))
		return neg + p.String()
	case k == 4:
		return neg + randV4(r).String()
	case k == 5 && depth > 0 && r.IntN(4) == 0:
		return "any"
	default:
		p, _ := randV4(r).Prefix(8 + r.IntN(25))
		return neg + p.String()
	}
}

func randAddr(r *rand.Rand) *rules.Address {
	for {
		var s string
		switch r.IntN(8) {
		case 0:
			s = "any"
		case 1:
			s = randAddrElem(r, 3)
		default:
			n := 1 + r.IntN(5)
			var es []string
			for range n {
				es = append(es, randAddrElem(r, 1))
			}
			s = "[" + strings.Join(es, ",") + "]"
			if r.IntN(6) == 0 {
				s = "!" + s
			}
		}
		a, err := rules.ParseAddress(s, nil)
		if err == nil {
			return a
		}
	}
}

func randPortElem(r *rand.Rand, depth int) string {
	neg := ""
	if r.IntN(4) == 0 {
		neg = "!"
	}
	p := func() int {
		if r.IntN(2) == 0 {
			return []int{22, 53, 80, 443, 1024, 8080, 0, 65535}[r.IntN(8)]
		}
		return r.IntN(65536)
	}
	switch r.IntN(6) {
	case 0:
		a, b := p(), p()
		if a > b {
			a, b = b, a
		}
		return fmt.Sprintf("%s%d:%d", neg, a, b)
	case 1:
		return fmt.Sprintf("%s%d:", neg, p())
	case 2:
		return fmt.Sprintf("%s:%d", neg, p())
	case 3:
		if depth < 2 {
			return neg + "[" + randPortElem(r, depth+1) + "," + randPortElem(r, depth+1) + "]"
		}
	}
	return fmt.Sprintf("%s%d", neg, p())
}

func randPort(r *rand.Rand) *rules.Port {
	for {
		s := "any"
		if r.IntN(2) == 0 {
			s = randPortElem(r, 0)
			if r.IntN(2) == 0 {
				s = "[" + s + "," + randPortElem(r, 0) + "]"
			}
		}
		p, err := rules.ParsePort(s, nil)
		if err == nil {
			return p
		}
	}
}

var protoChoices = []uint8{1, 6, 17, 47, 58, 132}

func randRule(r *rand.Rand) Rule {
	ru := Rule{Src: randAddr(r), Dst: randAddr(r), SrcPort: randPort(r), DstPort: randPort(r)}
	if r.IntN(2) == 0 {
		for _, p := range protoChoices {
			if r.IntN(3) == 0 {
				ru.Protos = append(ru.Protos, p)
			}
		}
	}
	switch r.IntN(10) {
	case 0:
		ru.IPv4Only = true
	case 1:
		ru.IPv6Only = true
	}
	return ru
}

// accepts is the brute-force reference.
func accepts(ru *Rule, src, dst netip.Addr, proto uint8, sp, dp uint16, hasPorts bool) bool {
	src, dst = src.Unmap(), dst.Unmap()
	if src.Is4() != dst.Is4() {
		return false
	}
	if (ru.IPv4Only && !src.Is4()) || (ru.IPv6Only && src.Is4()) {
		return false
	}
	if len(ru.Protos) > 0 && !slices.Contains(ru.Protos, proto) {
		return false
	}
	if ru.Src != nil && !ru.Src.Contains(src) || ru.Dst != nil && !ru.Dst.Contains(dst) {
		return false
	}
	if !hasPorts {
		return portAny(ru.SrcPort) && portAny(ru.DstPort)
	}
	return (ru.SrcPort == nil || ru.SrcPort.Contains(sp)) && (ru.DstPort == nil || ru.DstPort.Contains(dp))
}

// interesting returns addresses at and around the range boundaries of rs, plus random ones.
func interestingAddrs(r *rand.Rand, rs []Rule, n int) []netip.Addr {
	var out []netip.Addr
	for len(out) < n {
		ru := &rs[r.IntN(len(rs))]
		a := ru.Src
		if r.IntN(2) == 0 {
			a = ru.Dst
		}
		rgs := a.V4
		if r.IntN(3) == 0 {
			rgs = a.V6
		}
		if len(rgs) == 0 || r.IntN(5) == 0 {
			if r.IntN(2) == 0 {
				out = append(out, randV4(r))
			} else {
				out = append(out, randV6(r))
			}
			continue
		}
		g := rgs[r.IntN(len(rgs))]
		var x netip.Addr
		switch r.IntN(5) {
		case 0:
			x = g.First
		case 1:
			x = g.Last
		case 2:
			x = g.First.Prev()
		case 3:
			x = g.Last.Next()
		default:
			x = g.First
			for range r.IntN(50) {
				if y := x.Next(); y.IsValid() && y.Compare(g.Last) <= 0 {
					x = y
				}
			}
		}
		if x.IsValid() {
			out = append(out, x)
		}
	}
	return out
}

func interestingPort(r *rand.Rand, rs []Rule) uint16 {
	ru := &rs[r.IntN(len(rs))]
	p := ru.SrcPort
	if r.IntN(2) == 0 {
		p = ru.DstPort
	}
	if p.Any || r.IntN(4) == 0 {
		return uint16(r.IntN(65536))
	}
	g := p.Ranges[r.IntN(len(p.Ranges))]
	switch r.IntN(4) {
	case 0:
		return g.First
	case 1:
		return g.Last
	case 2:
		return g.First - 1
	}
	return g.Last + 1
}

func TestPropertyAgainstBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		n := []int{1, 70, 2000, 5000}[seed-1]
		random := make([]Rule, n)
		for i := range random {
			random[i] = randRule(r)
		}
		addrs := interestingAddrs(r, random, 4000)
		// Random order, and sorted by header as the detection engine numbers rules: only the
		// latter leaves few enough words for the summary path to compute them.
		for _, rs := range [][]Rule{random, sortedByHeader(random)} {
			for _, kind := range tries {
				x, err := Build(rs, Options{Trie: kind})
				if err != nil {
					t.Fatal(err)
				}
				if x.Len() != n || x.Words() != (n+63)/64 {
					t.Fatalf("Len/Words %d/%d", x.Len(), x.Words())
				}
				pr := rand.New(rand.NewPCG(seed, 7))
				buf := make([]uint64, x.Words())           // word-by-word path
				sbuf := make([]uint64, x.ScratchWords()+3) // summary path
				packets, hits := 3000, 0
				if kind == TrieCidranger {
					packets = 1000
				}
				for range packets {
					src, dst := addrs[pr.IntN(len(addrs))], addrs[pr.IntN(len(addrs))]
					if src.Is4() != dst.Is4() && pr.IntN(8) != 0 {
						// keep mostly same-family pairs
						for dst.Is4() != src.Is4() {
							dst = addrs[pr.IntN(len(addrs))]
						}
					}
					if src.Is4() && pr.IntN(10) == 0 {
						src = netip.AddrFrom16(src.As16()) // v4-mapped
					}
					proto := protoChoices[pr.IntN(len(protoChoices))]
					sp, dp := interestingPort(pr, rs), interestingPort(pr, rs)
					hasPorts := pr.IntN(4) != 0
					got := x.Lookup(buf, src, dst, proto, sp, dp, hasPorts)
					if len(got) != x.Words() {
						t.Fatalf("result has %d words, want %d", len(got), x.Words())
					}
					sgot := x.Lookup(sbuf, src, dst, proto, sp, dp, hasPorts)
					if len(sgot) != x.Words() || !slices.Equal(got, sgot) {
						t.Fatalf("%s seed %d: the summary path gives %x, the word path %x", kind, seed, sgot, got)
					}
					for _, v := range sbuf[x.Words() : 2*x.Words()] {
						if v != 0 {
							t.Fatalf("%s seed %d: the summary path left its accumulator dirty", kind, seed)
						}
					}
					for i := range rs {
						want := accepts(&rs[i], src, dst, proto, sp, dp, hasPorts)
						if g := got[i/64]>>(i%64)&1 == 1; g != want {
							t.Fatalf("%s seed %d rule %d (src %q dst %q sp %q dp %q protos %v v4only %v v6only %v) packet %v->%v proto %d %d->%d hasPorts %v: got %v want %v",
								kind, seed, i, rs[i].Src.Text, rs[i].Dst.Text, rs[i].SrcPort.Text, rs[i].DstPort.Text, rs[i].Protos,
								rs[i].IPv4Only, rs[i].IPv6Only, src, dst, proto, sp, dp, hasPorts, g, want)
						}
						if want {
							hits++
						}
					}
				}
				t.Logf("%s: %d rules, %d packets, %d rule hits, stats %+v", kind, n, packets, hits, x.Stats())
				if n > 100 && hits == 0 {
					t.Fatalf("no hits: test does not exercise matches")
				}
			}
		}
	}
}

// sortedByHeader returns rs ordered by header fields, as the detection engine numbers them.
func sortedByHeader(rs []Rule) []Rule {
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b Rule) int {
		return cmp.Or(strings.Compare(a.Src.Text, b.Src.Text), strings.Compare(a.Dst.Text, b.Dst.Text),
			slices.Compare(a.Protos, b.Protos), strings.Compare(a.SrcPort.Text, b.SrcPort.Text),
			strings.Compare(a.DstPort.Text, b.DstPort.Text))
	})
	return out
}

func TestEmptyAndErrors(t *testing.T) {
	x, err := Build(nil, Options{})
	if err != nil || x.Words() != 0 || x.Len() != 0 {
		t.Fatal(x, err)
	}
	if got := x.Lookup(nil, netip.MustParseAddr("1.2.3.4"), netip.MustParseAddr("5.6.7.8"), 6, 1, 2, true); len(got) != 0 {
		t.Fatal(got)
	}
	if _, err := Build(nil, Options{Trie: "nope"}); err == nil {
		t.Fatal("unknown trie accepted")
	}
	// nil fields mean any; invalid and mixed-family packets match nothing.
	x, _ = Build([]Rule{{}}, Options{})
	buf := make([]uint64, 1)
	if x.Lookup(buf, netip.MustParseAddr("1.2.3.4"), netip.MustParseAddr("::1"), 6, 1, 2, true)[0] != 0 ||
		x.Lookup(buf, netip.Addr{}, netip.MustParseAddr("1.2.3.4"), 6, 1, 2, true)[0] != 0 ||
		x.Lookup(buf, netip.MustParseAddr("::2"), netip.MustParseAddr("::1"), 1, 0, 0, false)[0] != 1 {
		t.Fatal("nil-field rule")
	}
}

func TestExampleRules(t *testing.T) {
	mk := func(src, sp, dst, dp string, protos ...uint8) Rule {
		a, err := rules.ParseAddress(src, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := rules.ParseAddress(dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := rules.ParsePort(sp, nil)
		q, _ := rules.ParsePort(dp, nil)
		return Rule{Src: a, Dst: b, SrcPort: p, DstPort: q, Protos: protos}
	}
	rs := []Rule{
		mk("[10.0.0.0/8,!10.1.0.0/16]", "any", "![10.0.0.0/8,192.168.0.0/16]", "any"), // 0
		mk("10.1.2.3", "any", "any", "any"),                                           // 1
		mk("any", "any", "any", "[80,443]", 6),                                        // 2
		mk("any", "any", "8.8.8.8", "53", 17),                                         // 3
	}
	x, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]uint64, x.Words())
	check := func(src, dst string, proto uint8, sp, dp uint16, hp bool, want uint64) {
		t.Helper()
		got := x.Lookup(buf, netip.MustParseAddr(src), netip.MustParseAddr(dst), proto, sp, dp, hp)[0]
		if got != want {
			t.Errorf("%s->%s proto %d %d->%d hp %v: got %b want %b", src, dst, proto, sp, dp, hp, got, want)
		}
	}
	check("10.2.0.1", "8.8.8.8", 17, 1000, 53, true, 0b1001)
	check("10.1.2.3", "8.8.8.8", 17, 1000, 53, true, 0b1010)
	check("10.1.2.3", "8.8.8.8", 17, 1000, 53, false, 0b0010) // fragment: port rules fail
	check("10.2.0.1", "192.168.1.1", 6, 1000, 443, true, 0b0100)
	check("10.2.0.1", "1.1.1.1", 1, 0, 0, false, 0b0001) // icmp: only any/any rules
}

func TestLookupZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	rs := make([]Rule, 3000)
	for i := range rs {
		rs[i] = randRule(r)
	}
	x, err := Build(rs, Options{Trie: TrieBart})
	if err != nil {
		t.Fatal(err)
	}
	addrs := interestingAddrs(r, rs, 512)
	for _, n := range []int{x.Words(), x.ScratchWords()} {
		buf := make([]uint64, n)
		i := 0
		allocs := testing.AllocsPerRun(2000, func() {
			i++
			x.Lookup(buf, addrs[i%len(addrs)], addrs[(i*7)%len(addrs)], 6, uint16(i), 80, i%3 != 0)
		})
		if allocs != 0 {
			t.Fatalf("Lookup with a %d-word buffer allocates %v times per call", n, allocs)
		}
	}
}

func TestRangePrefixesMatchesRules(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for range 20000 {
		a := randAddr(r)
		for _, g := range append(append([]rules.IPRange(nil), a.V4...), a.V6...) {
			want := g.Prefixes()
			got := rangePrefixes(nil, g)
			if !slices.Equal(got, want) {
				t.Fatalf("%v: got %v want %v", g, got, want)
			}
		}
	}
}

// TestSummaryPathOnClusteredRules runs header-sorted realistic rule sets, where the summaries
// leave few words, through both paths: the results must be equal, and the summary path must
// really have computed most lookups (the scratch buffer keeps the summary it used).
func TestSummaryPathOnClusteredRules(t *testing.T) {
	for _, n := range []int{3000, 20000} {
		rs := sortedByHeader(realisticRules(n, 11))
		x, err := Build(rs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		words := make([]uint64, x.Words())
		scratch := make([]uint64, x.ScratchWords())
		computed := 0
		ps := packetsFor(rs, 3000)
		for _, p := range ps {
			want := slices.Clone(x.Lookup(words, p.src, p.dst, p.proto, p.sp, p.dp, p.hasPorts))
			got := x.Lookup(scratch, p.src, p.dst, p.proto, p.sp, p.dp, p.hasPorts)
			if !slices.Equal(got, want) {
				t.Fatalf("%d rules, packet %+v: summary path %x, word path %x", n, p, got, want)
			}
			left := 0
			for _, v := range scratch[2*x.Words() : 2*x.Words()+x.sw] {
				left += bits.OnesCount64(v)
			}
			if 4*left <= x.Words() {
				computed++
			}
		}
		t.Logf("%d rules (%d words): the summary path computed %d of %d lookups", n, x.Words(), computed, len(ps))
		if computed < len(ps)/2 {
			t.Errorf("%d rules: the summary path computed only %d of %d lookups", n, computed, len(ps))
		}
	}
}
