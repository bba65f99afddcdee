package payload

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/rules"
)

const etDir = "/work/shared/corpus/rules/et-open-2024-04"

// TestETCorpus compiles every buffer of the ET Open 2024 corpus and reports how many compile,
// the top reasons for "not supported yet" and the pcre engine split.
func TestETCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(etDir, "*.rules"))
	if len(files) == 0 {
		t.Skip("corpus not present")
	}
	var total, ok, pkt, pktOK, pcres int
	reasons := map[string]int{}
	engines := map[string]int{}
	pcreErrs := map[string]int{}
	for _, f := range files {
		rs, _ := rules.LoadFile(f, nil)
		for _, r := range rs {
			for _, b := range r.Buffers {
				total++
				if b.Name == "pkt_data" {
					pkt++
				}
				p, err := Compile(b)
				if err != nil {
					var pe *PCREError
					if errors.As(err, &pe) {
						pcreErrs[pe.Pattern]++
						reasons["pcre: no engine compiles it"]++
					} else {
						reasons[Reason(err)]++
					}
					continue
				}
				ok++
				if b.Name == "pkt_data" {
					pktOK++
				}
				for _, e := range p.Engines() {
					pcres++
					engines[e]++
				}
			}
		}
	}
	t.Logf("buffers: %d compile of %d (pkt_data %d of %d, sticky %d of %d)", ok, total, pktOK, pkt, ok-pktOK, total-pkt)
	t.Logf("pcre in compiled buffers: %d: %v", pcres, engines)
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range reasons {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	for i, x := range l {
		if i == 15 {
			break
		}
		t.Logf("refused %5d  %s", x.v, x.k)
	}
	i := 0
	for k := range pcreErrs {
		if i == 5 {
			break
		}
		t.Logf("pcre no engine: /%s/", k)
		i++
	}
	if ok == 0 {
		t.Fatal("nothing compiled")
	}
	_ = os.Stderr
}
