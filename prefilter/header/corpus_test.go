package header

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/rules"
)

// etRulesDir finds the ET Open 2024-04 rule corpus of the shared reference material.
func etRulesDir() string {
	var cands []string
	if d := os.Getenv("MEERKAT_SHARED"); d != "" {
		cands = append(cands, filepath.Join(d, "corpus", "rules", "et-open-2024-04"))
	}
	cands = append(cands,
		filepath.Join("..", "..", "..", "shared", "corpus", "rules", "et-open-2024-04"),
		"/work/shared/corpus/rules/et-open-2024-04")
	for _, c := range cands {
		if m, _ := filepath.Glob(filepath.Join(c, "*.rules")); len(m) > 0 {
			return c
		}
	}
	return ""
}

// TestETOpen indexes every ET Open rule without a fast pattern whose match keywords
// detect/match evaluates, checks on random packets that a rule that matches has its witness
// hold, and logs how many rules got a witness and why the others did not.
func TestETOpen(t *testing.T) {
	dir := etRulesDir()
	if dir == "" {
		t.Skip("ET Open corpus not found (MEERKAT_SHARED)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rules"))
	var rs []Rule
	var ms []*match.Matcher
	var raws []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "alert ") && !strings.HasPrefix(l, "drop ") {
				continue
			}
			r, err := rules.Parse(l)
			if err != nil {
				continue
			}
			if _, ok := r.FastPattern(); ok {
				continue
			}
			m, err := match.Compile(r, nil)
			if err != nil {
				continue
			}
			rs, ms, raws = append(rs, Rule{Matches: r.Matches}), append(ms, m), append(raws, l)
		}
	}
	if len(rs) < 100 {
		t.Fatalf("only %d ET rules without a fast pattern", len(rs))
	}
	x, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	for i := range rs {
		if ch := x.Choice(i); !ch.Witnessed() {
			reasons[ch.Reason]++
		}
	}
	st := x.Stats()
	t.Logf("%d ET rules without a fast pattern: %d witnessed %v", len(rs), st.Witnessed, st.PerKeyword)
	var rk []string
	for k := range reasons {
		rk = append(rk, k)
	}
	sort.Slice(rk, func(i, j int) bool { return reasons[rk[i]] > reasons[rk[j]] })
	for _, k := range rk[:min(len(rk), 8)] {
		t.Logf("  %4d without witness: %s", reasons[k], k)
	}
	r := rand.New(rand.NewPCG(1, 17))
	dst := make([]uint64, x.Words())
	for range 3000 {
		p := randPacket(r)
		in := &match.Input{P: p}
		got := x.Lookup(dst, p)
		for i, m := range ms {
			if x.Witnessed(i) && got[i>>6]&(1<<(i&63)) == 0 && m.Match(in) {
				t.Fatalf("%s matches %s but its witness %s does not hold", raws[i], show(p), x.Choice(i).Option)
			}
		}
	}
}
