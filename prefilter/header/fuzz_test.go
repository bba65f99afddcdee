package header

import (
	"math/rand/v2"
	"testing"

	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/rules"
)

// FuzzBuild parses rule options, builds the index from the rule and a few random ones and
// checks, on random packets, that the witness of every rule that matches holds.
func FuzzBuild(f *testing.F) {
	for _, s := range []string{"flags:S; dsize:0;", "dsize:!10-20; ttl:&0x40=0x40;", "vlan.id:100,-1;",
		"fragbits:+D; fragoffset:!0;", "tos:!x10; window:!0;", "seq:1; ack:2;", "tcp.wscale:>20;"} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, opts string, seed uint64) {
		ru, err := rules.Parse("alert ip any any -> any any (" + opts + " sid:1;)")
		if err != nil {
			return
		}
		m, err := match.Compile(ru, nil)
		if err != nil {
			return
		}
		r := rand.New(rand.NewPCG(seed, 3))
		rs := []Rule{{Matches: ru.Matches, Prefilter: pickOpt(ru.Matches, seed)}}
		ms := []*match.Matcher{m}
		for range 3 {
			o := randRule(r)
			om, err := match.Compile(o, nil)
			if err != nil {
				t.Fatal(err)
			}
			rs, ms = append(rs, Rule{Matches: o.Matches}), append(ms, om)
		}
		x, err := Build(rs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]uint64, x.Words())
		for range 64 {
			p := randPacket(r)
			got := x.Lookup(dst, p)
			for i, m := range ms {
				if x.Witnessed(i) && m.Match(&match.Input{P: p}) && got[0]&(1<<i) == 0 {
					t.Fatalf("rule %d (%s, witness %s) matches %s but is not in the lookup", i, rs[i].Matches, x.Choice(i).Option, show(p))
				}
			}
		}
	})
}

// pickOpt returns one of os chosen by seed (or nil), standing for a prefilter keyword.
func pickOpt(os []*rules.Option, seed uint64) *rules.Option {
	if len(os) == 0 || seed%3 == 0 {
		return nil
	}
	return os[int(seed/3)%len(os)]
}
