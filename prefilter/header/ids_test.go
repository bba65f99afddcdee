package header

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

func TestIDIndex(t *testing.T) {
	// Rule 0 needs 3, rule 1 needs 3 or 70, rule 2 nothing, rule 65 needs 70.
	ids := make([][]uint32, 70)
	ids[0], ids[1], ids[65] = []uint32{3}, []uint32{70, 3, 3}, []uint32{70}
	x := BuildIDs(len(ids), ids)
	if x.Words() != 2 {
		t.Fatalf("words %d", x.Words())
	}
	if got := x.Rules(3); !slices.Equal(got, []uint32{0, 1}) {
		t.Fatalf("Rules(3) = %v", got)
	}
	if got := x.Rules(70); !slices.Equal(got, []uint32{1, 65}) {
		t.Fatalf("Rules(70) = %v", got)
	}
	if len(x.Rules(4)) != 0 || x.Rules(1000) != nil {
		t.Fatal("rules for an unused id")
	}
	dst := make([]uint64, 2)
	x.Add(dst, 70)
	x.Add(dst, 1000)
	if dst[0] != 0b10 || dst[1] != 0b10 {
		t.Fatalf("Add(70) = %b %b", dst[0], dst[1])
	}
	clear(dst)
	x.AddSet(dst, []uint64{1 << 3, 0})
	if dst[0] != 0b11 || dst[1] != 0 {
		t.Fatalf("AddSet({3}) = %b %b", dst[0], dst[1])
	}
	set := []uint64{1 << 3, 1 << 6}
	if a := testing.AllocsPerRun(100, func() { x.AddSet(dst, set); x.Add(dst, 3) }); a != 0 {
		t.Fatalf("%v allocations", a)
	}
}

// TestFlowbitWitness checks the choice of flowbits:isset as a per-flow witness and Filter's
// use of the caller's flow result.
func TestFlowbitWitness(t *testing.T) {
	var rs []Rule
	for _, o := range []string{"flowbits:isset,a|b; flow:established;", "flowbits:isset,a; flags:S;",
		"flowbits:isnotset,a; sameip;", "flowbits:isset,a; seq:5;", "flowbits:set,a; flowbits:noalert; dsize:0;"} {
		rs = append(rs, hdrRule(parseRule(t, o)))
	}
	x, err := Build(rs, Options{FlowbitWitness: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kw      string
		perFlow bool
	}{{"flowbits", true}, {"flowbits", true}, {"", false}, {"tcp.seq", false}, {"dsize", false}}
	for i, w := range want {
		ch := x.Choice(i)
		if ch.Keyword != w.kw || ch.PerFlow != w.perFlow || (x.PerFlow()[0]>>i&1 == 1) != w.perFlow {
			t.Errorf("rule %d: %+v, want %+v", i, ch, w)
		}
	}
	if r := x.Choice(2).Reason; r == "" || x.Always()[0] != 1<<2 {
		t.Errorf("isnotset rule: reason %q, always %b", r, x.Always()[0])
	}
	words := []uint64{0b11111}
	x.Filter(words, make([]uint64, 1), pkt(payload(0)), []uint64{0b01})
	if words[0] != 0b10101 { // rule 0 by its flow bit, 2 always, 4 by dsize:0; 1 and 3 not
		t.Fatalf("Filter = %05b", words[0])
	}
	if x, _ := Build(rs[:1], Options{}); x.Choice(0).Witnessed() {
		t.Fatal("flowbits witness without Options.FlowbitWitness")
	}
}

// TestFlowbitWitnessBruteForce checks, on random flows and packets, that a rule that matches
// (detect/match with the flow) has its witness hold: the header lookup, or for a per-flow
// witness the IDIndex of its flowbit numbers fed with the flow's bits.
func TestFlowbitWitnessBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	names := match.NewNames()
	bitNames := []string{"a", "b", "c", "d"}
	var rs []Rule
	var ms []*match.Matcher
	for range 400 {
		var opt string
		switch r.IntN(3) {
		case 0:
			opt = "flowbits:isset," + bitNames[r.IntN(4)]
		case 1:
			opt = "flowbits:isset," + bitNames[r.IntN(4)] + "|" + bitNames[r.IntN(4)]
		default:
			opt = "flowbits:isnotset," + bitNames[r.IntN(4)]
		}
		text := opt + "; "
		if r.IntN(2) == 0 {
			text += randOption(r) + "; "
		}
		ru, err := rules.Parse("alert ip any any -> any any (" + text + "sid:1;)")
		if err != nil {
			continue
		}
		m, err := match.Compile(ru, names)
		if err != nil {
			t.Fatal(err)
		}
		rs, ms = append(rs, FromRule(ru)), append(ms, m)
	}
	x, err := Build(rs, Options{FlowbitWitness: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([][]uint32, len(rs))
	for i := range rs {
		if ch := x.Choice(i); ch.PerFlow {
			for _, n := range ch.Option.Arg.(*rules.Flowbit).Names {
				ids[i] = append(ids[i], names.Flowbit(n))
			}
		}
	}
	fx := BuildIDs(len(rs), ids)
	perFlow := 0
	for i := range rs {
		if x.Choice(i).PerFlow {
			perFlow++
		}
	}
	if perFlow < len(rs)/3 {
		t.Fatalf("only %d of %d rules with a per-flow witness", perFlow, len(rs))
	}
	dst, fdst := make([]uint64, x.Words()), make([]uint64, x.Words())
	for range 2000 {
		p := randPacket(r)
		f := &flow.Flow{}
		for _, n := range bitNames {
			if r.IntN(3) == 0 {
				f.Vars.Set(names.Flowbit(n))
			}
		}
		in := &match.Input{P: p, F: f, Dir: flow.ToServer}
		got := x.Lookup(dst, p)
		clear(fdst)
		fx.AddSet(fdst, f.Vars.Bits[:])
		for i, m := range ms {
			bit := (got[i>>6]|fdst[i>>6]|x.Always()[i>>6])>>(i&63)&1 == 1
			if m.Match(in) && !bit {
				t.Fatalf("%s matches (flow bits %b) but is not a candidate", rs[i].Matches, f.Vars.Bits[0])
			}
		}
	}
}
