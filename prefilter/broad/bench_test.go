package broad

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/rules"
)

const (
	homeNet     = "[10.0.0.0/8,192.168.0.0/16,172.16.0.0/12,2001:db8::/32]"
	externalNet = "!" + homeNet
)

// realisticRules returns n rules shaped like real IP-only / header-only rules:
// 40% /32 blocklists (1-4 addresses) from anywhere to $HOME_NET, 20% $HOME_NET to a /24,
// 15% $HOME_NET-like lists with nested negations to $EXTERNAL_NET, 15% firewall-style
// tcp/udp rules to one server with a port list, 10% IPv6 /48-/64 blocks.
func realisticRules(n int, seed uint64) []Rule {
	r := rand.New(rand.NewPCG(seed, 1))
	must := func(a *rules.Address, err error) *rules.Address {
		if err != nil {
			panic(err)
		}
		return a
	}
	mustP := func(p *rules.Port, err error) *rules.Port {
		if err != nil {
			panic(err)
		}
		return p
	}
	any4 := func() string {
		return netip.AddrFrom4([4]byte{byte(1 + r.IntN(223)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))}).String()
	}
	home, ext := must(rules.ParseAddress(homeNet, nil)), must(rules.ParseAddress(externalNet, nil))
	anyA := must(rules.ParseAddress("any", nil))
	anyP := mustP(rules.ParsePort("any", nil))
	rs := make([]Rule, n)
	for i := range rs {
		ru := Rule{SrcPort: anyP, DstPort: anyP}
		switch k := r.IntN(100); {
		case k < 40:
			s := any4()
			for range r.IntN(4) {
				s += "," + any4()
			}
			ru.Src, ru.Dst = must(rules.ParseAddress("["+s+"]", nil)), home
		case k < 60:
			p, _ := netip.MustParseAddr(any4()).Prefix(24)
			ru.Src, ru.Dst = home, must(rules.ParseAddress(p.String(), nil))
		case k < 75:
			s := fmt.Sprintf("[10.%d.0.0/16,!10.%d.%d.0/24,192.168.%d.0/24,![192.168.%d.%d/30]]",
				r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), 4*r.IntN(64))
			ru.Src, ru.Dst = must(rules.ParseAddress(s, nil)), ext
		case k < 90:
			srv := fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256))
			ru.Src, ru.Dst = home, must(rules.ParseAddress(srv, nil))
			ru.DstPort = mustP(rules.ParsePort([]string{"[22,80,443]", "53", "[1024:,!8080]", "3389"}[r.IntN(4)], nil))
			ru.Protos = []uint8{[]uint8{6, 17}[r.IntN(2)]}
		default:
			p, _ := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb9, byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))}).Prefix(48 + 16*r.IntN(2))
			ru.Src, ru.Dst = must(rules.ParseAddress(p.String(), nil)), anyA
		}
		rs[i] = ru
	}
	return rs
}

type pkt struct {
	src, dst netip.Addr
	proto    uint8
	sp, dp   uint16
	hasPorts bool
}

// packetsFor returns packets of which about half hit an indexed address.
func packetsFor(rs []Rule, n int) []pkt {
	r := rand.New(rand.NewPCG(3, 3))
	pick := func(a *rules.Address) netip.Addr {
		if len(a.V4) > 0 && a.V4[0].First.Is4() {
			return a.V4[r.IntN(len(a.V4))].First
		}
		return a.V6[0].First
	}
	out := make([]pkt, n)
	for i := range out {
		p := pkt{proto: []uint8{6, 17, 1}[r.IntN(3)], sp: uint16(1024 + r.IntN(60000)), dp: []uint16{80, 443, 53, 22, 8080}[r.IntN(5)]}
		p.hasPorts = p.proto != 1
		if r.IntN(2) == 0 {
			ru := &rs[r.IntN(len(rs))]
			p.src = pick(ru.Src)
			p.dst = netip.AddrFrom4([4]byte{10, byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))})
			if !p.src.Is4() {
				p.dst = netip.MustParseAddr("2001:db8::1")
			}
		} else {
			p.src = netip.AddrFrom4([4]byte{10, byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))})
			p.dst = netip.AddrFrom4([4]byte{byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))})
		}
		out[i] = p
	}
	return out
}

var benchSizes = []struct {
	name string
	n    int
}{{"1k", 1000}, {"10k", 10000}, {"50k", 50000}}

// BenchmarkLookup measures one lookup. Sub-benchmarks: the trie, the rule count, the rule
// order (random, or sorted by header as the detection engine numbers them) and the path
// (words: a Words() buffer, every word computed; summary: a ScratchWords() buffer).
func BenchmarkLookup(b *testing.B) {
	for _, sz := range benchSizes {
		random := realisticRules(sz.n, 42)
		sorted := slices.Clone(random)
		slices.SortStableFunc(sorted, func(a, b Rule) int {
			return cmp.Or(strings.Compare(a.Src.Text, b.Src.Text), strings.Compare(a.Dst.Text, b.Dst.Text),
				slices.Compare(a.Protos, b.Protos), strings.Compare(a.SrcPort.Text, b.SrcPort.Text),
				strings.Compare(a.DstPort.Text, b.DstPort.Text))
		})
		ps := packetsFor(random, 4096)
		for _, kind := range tries {
			for _, order := range []struct {
				name string
				rs   []Rule
			}{{"random", random}, {"sorted", sorted}} {
				x, err := Build(order.rs, Options{Trie: kind})
				if err != nil {
					b.Fatal(err)
				}
				for _, path := range []struct {
					name  string
					words int
				}{{"words", x.Words()}, {"summary", x.ScratchWords()}} {
					if kind != TrieBart && (order.name != "random" || path.name != "words") {
						continue
					}
					b.Run(kind+"/"+sz.name+"/"+order.name+"/"+path.name, func(b *testing.B) {
						buf := make([]uint64, path.words)
						hits := 0
						b.ReportAllocs()
						i := 0
						for b.Loop() {
							p := &ps[i&4095]
							i++
							out := x.Lookup(buf, p.src, p.dst, p.proto, p.sp, p.dp, p.hasPorts)
							if out[0]&1 != 0 {
								hits++
							}
						}
						_ = hits
					})
				}
			}
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	for _, sz := range benchSizes {
		rs := realisticRules(sz.n, 42)
		for _, kind := range tries {
			b.Run(kind+"/"+sz.name, func(b *testing.B) {
				var x *Index
				var ms0, ms1 runtime.MemStats
				heap := uint64(0)
				for b.Loop() {
					b.StopTimer()
					x = nil
					runtime.GC()
					runtime.ReadMemStats(&ms0)
					b.StartTimer()
					var err error
					x, err = Build(rs, Options{Trie: kind})
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&ms1)
					heap = ms1.HeapAlloc - ms0.HeapAlloc
					b.StartTimer()
				}
				runtime.KeepAlive(x)
				st := x.Stats()
				b.ReportMetric(float64(heap)/(1<<20), "MB-heap")
				b.ReportMetric(float64(st.Prefixes), "prefixes")
				b.ReportMetric(float64(st.DistinctBitsets), "bitsets")
			})
		}
	}
}
