package detect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/rules"
)

// TestUnsupportedFirstIsCompileReason checks that the first entry of Unsupported is the reason
// Build gives, and that a rule with nothing missing is not refused as unsupported.
func TestUnsupportedFirstIsCompileReason(t *testing.T) {
	cases := []struct {
		rule string
		want []string // Feature of each Missing
	}{
		{`alert tcp any any -> any any (content:"a"; sid:1;)`, nil},
		// HTTP/1 is registered in this test binary (the blank import above), as in meerkat.
		{`alert http any any -> any any (http.uri; content:"a"; http.host; content:"b"; sid:2;)`, nil},
		{`alert tcp any any -> any any (content:"a"; http_uri; content:"GET"; http_method; sid:3;)`, nil},
		{`alert tcp any any -> any any (http.uri; to_lowercase; content:"a"; geoip:src,US; sid:4;)`,
			[]string{"geoip"}}, // transforms on app-layer buffers are supported
		// SMB and Kerberos have no parser yet.
		{`alert smb any any -> any any (smb.share; content:"a"; smb.named_pipe; content:"b"; sid:8;)`,
			[]string{"app-layer protocol smb", "smb.share", "smb.named_pipe"}},
		{`alert tcp any any -> any any (smb.share; content:"a"; pkt_data; content:"b"; sid:5;)`,
			[]string{"smb.share"}},
		{`alert tcp any any -> any any (krb5.cname; dotprefix; content:".a"; sid:7;)`,
			[]string{"krb5.cname"}},
		{`alert krb5 any any -> any any (krb5.cname; content:"a"; krb5.cname; content:"b"; sid:6;)`,
			[]string{"app-layer protocol krb5", "krb5.cname"}},
		// DNS and TLS have parsers (applayer/protocols is registered in this test binary).
		{`alert dns any any -> any any (dns.query; dotprefix; content:".a"; endswith; sid:9;)`, nil},
		{`alert tls any any -> any any (tls.sni; content:"a"; tls.cert_subject; content:"b"; sid:10;)`, nil},
	}
	for _, c := range cases {
		r, err := rules.Parse(c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		var got []string
		for _, m := range Unsupported(r) {
			got = append(got, m.Feature())
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s:\n got %q\nwant %q", c.rule, got, c.want)
		}
		_, errs, err := Build([]*rules.Rule{r}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(c.want) == 0 && len(errs) != 0:
			t.Errorf("%s: refused: %v", c.rule, errs)
		case len(c.want) > 0:
			var m Missing
			if len(errs) != 1 || !errors.As(errs[0], &m) || m.Feature() != c.want[0] {
				t.Errorf("%s: Build errors %v, want the first missing feature %q", c.rule, errs, c.want[0])
			}
		}
	}
}

// corpusRuleSets are the rulesets of shared/corpus/rules, with the names the README uses.
var corpusRuleSets = []struct{ dir, name string }{
	{"et-open-2024-04", "ET Open 2024"},
	{"et-open-2018-trojan", "ET Open 2018"},
	{"tgreen-hunting", "tgreen"},
	{"oisf-suricata", "OISF"},
}

// sharedRules returns shared/corpus/rules, or skips.
func sharedRules(t *testing.T) string {
	t.Helper()
	var cands []string
	if d := os.Getenv("MEERKAT_SHARED"); d != "" {
		cands = append(cands, filepath.Join(d, "corpus", "rules"))
	}
	cands = append(cands, filepath.Join("..", "..", "shared", "corpus", "rules"), "/work/shared/corpus/rules")
	for _, d := range cands {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	t.Skipf("rule corpus not found (looked in %v; set MEERKAT_SHARED to the shared directory)", cands)
	return ""
}

// unsupportedTable builds the README's table of what the engine cannot evaluate yet: per
// corpus ruleset, the rules that parse, the rules the engine loads, and for every missing
// feature the number of parsed rules that use it. It also checks that a rule fails in the
// engine exactly when it misses something, or for a reason of its own that the table names.
func unsupportedTable(t *testing.T) string {
	dir := sharedRules(t)
	type setCounts struct {
		parsed, loaded int
		feature        map[string]int
		other          map[string]int
	}
	counts := make([]setCounts, len(corpusRuleSets))
	total := map[string]int{}
	otherTotal := map[string]int{}
	for i, set := range corpusRuleSets {
		files, _ := filepath.Glob(filepath.Join(dir, set.dir, "*.rules"))
		if len(files) == 0 {
			t.Skipf("no rule files in %s", filepath.Join(dir, set.dir))
		}
		sort.Strings(files)
		l := rules.NewLoader(nil)
		for _, f := range files {
			l.LoadFile(f)
		}
		rs := l.Rules()
		c := setCounts{parsed: len(rs), feature: map[string]int{}, other: map[string]int{}}
		complete := 0
		for _, r := range rs {
			gaps := Unsupported(r)
			if len(gaps) == 0 {
				complete++
			}
			for _, m := range gaps {
				c.feature[m.Feature()]++
				total[m.Feature()]++
			}
		}
		e, errs, err := Build(rs, Config{Grouping: Grouping{SharedMPM: true}})
		if err != nil {
			t.Fatalf("%s: %v", set.dir, err)
		}
		c.loaded = e.Len() - countBidirectional(e)
		e.Close()
		for _, be := range errs {
			var m Missing
			if errors.As(be, &m) {
				continue
			}
			reason := otherReason(be)
			c.other[reason]++
			otherTotal[reason]++
		}
		if got := c.loaded + sum(c.other); got != complete {
			t.Errorf("%s: %d rules miss nothing, but %d load and %d fail for their own reasons",
				set.dir, complete, c.loaded, sum(c.other))
		}
		counts[i] = c
	}
	var b strings.Builder
	b.WriteString("| | ")
	for i, set := range corpusRuleSets {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(set.name)
	}
	b.WriteString(" |\n|---|" + strings.Repeat("---:|", len(corpusRuleSets)) + "\n")
	row := func(label string, f func(c setCounts) int) {
		b.WriteString("| " + label + " |")
		for _, c := range counts {
			fmt.Fprintf(&b, " %s |", thousands(f(c)))
		}
		b.WriteString("\n")
	}
	row("rules that parse", func(c setCounts) int { return c.parsed })
	row("**rules the engine loads**", func(c setCounts) int { return c.loaded })
	for _, reason := range byCount(otherTotal) {
		row("fail in the engine: "+reason, func(c setCounts) int { return c.other[reason] })
	}
	for _, feat := range byCount(total) {
		label := "`" + feat + "`"
		if strings.Contains(feat, " ") {
			i := strings.LastIndexByte(feat, ' ')
			label = feat[:i] + " `" + feat[i+1:] + "`"
		}
		row(label, func(c setCounts) int { return c.feature[feat] })
	}
	return b.String()
}

// countBidirectional counts the second halves of `<>` rules, which the engine holds as two.
func countBidirectional(e *Engine) int {
	seen := map[*rules.Rule]bool{}
	n := 0
	for _, r := range e.Rules() {
		if seen[r.Src] {
			n++
		}
		seen[r.Src] = true
	}
	return n
}

// otherReason shortens an engine error that is not a missing feature to its keyword and cause.
func otherReason(err error) string {
	var be *BuildError
	if errors.As(err, &be) {
		err = be.Err
	}
	s := err.Error()
	if i := strings.IndexByte(s, ':'); i > 0 {
		return s[:i]
	}
	return s
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// byCount orders keys by descending count, then name.
func byCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

const (
	readmeTableBegin = "<!-- unsupported-table: generated by TestReadmeUnsupportedTable -->"
	readmeTableEnd   = "<!-- end of unsupported-table -->"
)

// TestReadmeUnsupportedTable checks the README's table of keywords and protocols the engine
// cannot evaluate yet against the corpus: each row's count of corpus rules must be what the
// engine reports today. MEERKAT_UPDATE_README=1 rewrites the table.
func TestReadmeUnsupportedTable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds engines over the whole corpus")
	}
	want := unsupportedTable(t)
	path := filepath.Join("..", "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, readmeTableBegin)
	j := strings.Index(text, readmeTableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no table between %q and %q; it should be:\n%s", readmeTableBegin, readmeTableEnd, want)
	}
	got := text[i+len(readmeTableBegin)+1 : j]
	if got == want {
		return
	}
	if os.Getenv("MEERKAT_UPDATE_README") == "1" {
		text = text[:i+len(readmeTableBegin)+1] + want + text[j:]
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("README.md table rewritten")
		return
	}
	t.Errorf("README.md's unsupported-keyword table is out of date (MEERKAT_UPDATE_README=1 rewrites it); it should be:\n%s", want)
}

// TestSupportedByAlias: a keyword's aliases are as supported as its canonical name.
func TestSupportedByAlias(t *testing.T) {
	for _, k := range rules.Keywords() {
		for _, a := range k.Aliases {
			if Supported(a) != Supported(k.Name) {
				t.Errorf("%s: alias %s supported %v, name %v", k.Name, a, Supported(a), Supported(k.Name))
			}
		}
	}
}
