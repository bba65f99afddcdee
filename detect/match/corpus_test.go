package match

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/rules"
)

// TestCorpus compiles the Matches and PostMatches of the ET Open 2024 rules and reports how
// many compile and why the others do not.
func TestCorpus(t *testing.T) {
	var dir string
	for _, d := range []string{
		filepath.Join(os.Getenv("MEERKAT_SHARED"), "corpus", "rules", "et-open-2024-04"),
		filepath.Join("..", "..", "..", "shared", "corpus", "rules", "et-open-2024-04"),
		"/work/shared/corpus/rules/et-open-2024-04",
	} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dir = d
			break
		}
	}
	if dir == "" {
		t.Skip("ET Open 2024 corpus not found")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rules"))
	if len(files) == 0 {
		t.Skip("no rule files")
	}
	sort.Strings(files)
	names := NewNames()
	total, okMatch, okPost, okBoth, withMatches := 0, 0, 0, 0, 0
	reasons := map[string]int{}
	for _, f := range files {
		rs, _ := rules.LoadFile(f, nil)
		for _, r := range rs {
			total++
			if len(r.Matches) > 0 {
				withMatches++
			}
			_, err1 := Compile(r, names)
			if err1 == nil {
				okMatch++
			} else {
				reasons[err1.Error()]++
			}
			_, err2 := CompilePost(r, names)
			if err2 == nil {
				okPost++
			} else {
				reasons["post: "+err2.Error()]++
			}
			if err1 == nil && err2 == nil {
				okBoth++
			}
		}
	}
	if total == 0 {
		t.Skip("no rules loaded")
	}
	t.Logf("ET Open 2024-04: %d rules (%d with Matches); Matches compile: %d, PostMatches compile: %d, both: %d (%.1f%%)",
		total, withMatches, okMatch, okPost, okBoth, 100*float64(okBoth)/float64(total))
	type kv struct {
		k string
		n int
	}
	var list []kv
	for k, n := range reasons {
		list = append(list, kv{k, n})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].n > list[j].n || list[i].n == list[j].n && list[i].k < list[j].k })
	for i, e := range list {
		if i == 15 {
			break
		}
		t.Logf("  %6d  %s", e.n, e.k)
	}
	for _, e := range list {
		if !strings.HasSuffix(e.k, "is not supported yet") {
			t.Errorf("unexpected compile error on corpus: %s (%d rules)", e.k, e.n)
		}
	}
}
