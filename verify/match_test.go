package verify

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// evalChecks parses a checks: block, writes eve to a temp output dir and
// evaluates every check.
func evalChecks(t *testing.T, checksYAML, eve string) []CheckResult {
	t.Helper()
	spec, err := ParseSpec([]byte("checks:\n" + checksYAML))
	if err != nil {
		t.Fatalf("ParseSpec: %v", err)
	}
	dir := t.TempDir()
	if eve != "" {
		if err := os.WriteFile(filepath.Join(dir, "eve.json"), []byte(eve), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outs := NewOutputs(dir)
	env := &CheckEnv{Ctx: context.Background(), TestDir: dir, OutDir: dir, Env: os.Environ()}
	var res []CheckResult
	for _, c := range spec.Checks {
		res = append(res, c.Evaluate(outs, env))
	}
	return res
}

// filterPasses evaluates one filter (given as match: lines) against events
// and returns whether a count of want passes.
func filterPasses(t *testing.T, match string, want int, eve string) bool {
	t.Helper()
	y := "- filter:\n    count: " + strconv.Itoa(want) + "\n    match:\n"
	for _, l := range strings.Split(strings.TrimSpace(match), "\n") {
		y += "      " + strings.TrimSpace(l) + "\n"
	}
	res := evalChecks(t, y, eve)
	if len(res) != 1 {
		t.Fatalf("want 1 result, got %d", len(res))
	}
	if res[0].Status == CheckError {
		t.Fatalf("check error: %+v", res[0])
	}
	return res[0].Status == CheckPass
}

func TestOperators(t *testing.T) {
	ev := `{"event_type":"alert","src_port":80,"ratio":1.5,"s":"hello world","n":"1","b":true,"f":false,` +
		`"alert":{"signature_id":1,"signature":"ET TEST thing","metadata":{"tag":["a","b"]}},` +
		`"dns":{"queries":[{"rrname":"example.com","rrtype":"A"},{"rrname":"x.org","rrtype":"AAAA"}]},` +
		`"list":[1,2,3],"obj":{"x":1,"y":2},"nul":null,"uni":"héllo","big":18446744073709551615}` + "\n"
	cases := []struct {
		name  string
		match string
		hit   bool
	}{
		{"int equal", "src_port: 80", true},
		{"int vs string", `src_port: "80"`, false},
		{"string vs int", "n: 1", false},
		{"string equal", `n: "1"`, true},
		{"float equal", "ratio: 1.5", true},
		{"int equals float form", "src_port: 80.0", true},
		{"bool equal", "b: true", true},
		{"bool vs string", `b: "true"`, false},
		{"bool vs int", "b: 1", false},
		{"yaml 1.1 yes is true", "b: yes", true},
		{"false", "f: false", true},
		{"false vs no", "f: no", true},
		{"nested", "alert.signature_id: 1", true},
		{"nested wrong", "alert.signature_id: 2", false},
		{"deep nested", "alert.metadata.tag: [a, b]", true},
		{"list index brackets", "dns.queries[1].rrname: x.org", true},
		{"list index numeric segment", "dns.queries.0.rrtype: A", true},
		{"list index out of range", "dns.queries[5].rrname: x.org", false},
		{"index on non-list", "alert[0]: 1", false},
		{"direct list index", "list[2]: 3", true},
		{"missing key", "alert.nope: 1", false},
		{"missing top key", "nope: 1", false},
		{"missing under scalar", "src_port.x: 1", false},
		{"null equals null", "nul: null", true},
		{"len string", "s.__len: 11", true},
		{"len unicode string", "uni.__len: 5", true},
		{"len list", "list.__len: 3", true},
		{"len object", "obj.__len: 2", true},
		{"len number", "src_port.__len: -1", true},
		{"len nested list", "dns.queries.__len: 2", true},
		{"len of missing key is missing", "nope.__len: -1", false},
		{"contains list", "list.__contains: 2", true},
		{"contains list strict", `list.__contains: "2"`, false},
		{"contains list miss", "list.__contains: 9", false},
		{"contains string", "s.__contains: lo wo", true},
		{"contains object key", "obj.__contains: x", true},
		{"find", "alert.signature.__find: TEST", true},
		{"find miss", "alert.signature.__find: nope", false},
		{"find on number", "src_port.__find: 8", false},
		{"startswith", "alert.signature.__startswith: ET ", true},
		{"startswith miss", "alert.signature.__startswith: GPL", false},
		{"endswith", "s.__endswith: world", true},
		{"endswith miss", "s.__endswith: hello", false},
		{"gt", "src_port.__gt: 79", true},
		{"gt equal", "src_port.__gt: 80", false},
		{"gte", "src_port.__gte: 80", true},
		{"lt", "ratio.__lt: 2", true},
		{"lte", "ratio.__lte: 1.5", true},
		{"lt miss", "ratio.__lt: 1", false},
		{"gt on bool", "b.__gt: 0", false},
		{"gt on string", "n.__gt: 0", false},
		{"gt missing", "nope.__gt: 0", false},
		{"len gt", "list.__len.__gt: 2", true},
		{"big uint", "big: 18446744073709551615", true},
		{"big uint not int", "big: 9223372036854775807", false},
		{"has-key", "has-key: alert.signature_id", true},
		{"has-key missing", "has-key: alert.nope", false},
		{"has-key null", "has-key: nul", false},
		{"has-key list", `has-key: [alert.signature_id, "dns.queries[0].rrname"]`, true},
		{"not-has-key", "not-has-key: flow.action", true},
		{"not-has-key present", "not-has-key: alert", false},
		{"not-has-key list", "not-has-key: [x, alert]", false},
		{"all conditions", "event_type: alert\nalert.signature_id: 1\nsrc_port: 80", true},
		{"one condition fails", "event_type: alert\nalert.signature_id: 1\nsrc_port: 81", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := 0
			if tc.hit {
				want = 1
			}
			if !filterPasses(t, tc.match, want, ev) {
				t.Errorf("match %q: want hit=%v", tc.match, tc.hit)
			}
		})
	}
}

func TestFilterCountMismatch(t *testing.T) {
	eve := `{"event_type":"alert","alert":{"signature_id":1}}
{"event_type":"alert","alert":{"signature_id":2}}
{"event_type":"flow","flow":{"state":"closed"}}
`
	res := evalChecks(t, `
- filter:
    count: 2
    match:
      event_type: alert
      alert.signature_id: 1
- filter:
    count: 0
    match:
      event_type: alert
- filter:
    count: 1
    match:
      event_type: http
- filter:
    count: 1
    match:
      event_type: flow
      flow.action: drop
- filter:
    match:
      event_type: flow
- filter:
    match:
      event_type: dns
`, eve)
	if res[0].Status != CheckFail || res[0].Expected != "count 2" || res[0].Observed != "count 1" {
		t.Errorf("check 1: %+v", res[0])
	}
	if !strings.Contains(res[0].Detail, "closest line 2") || !strings.Contains(res[0].Detail, "alert.signature_id=2") {
		t.Errorf("check 1 detail: %q", res[0].Detail)
	}
	if res[1].Status != CheckFail || res[1].Observed != "count 2" || !strings.Contains(res[1].Detail, "matching lines: 1, 2") {
		t.Errorf("check 2: %+v", res[1])
	}
	if res[1].Causes[0] != "wrong count: too many matching alert events" {
		t.Errorf("check 2 causes: %v", res[1].Causes)
	}
	if res[2].Status != CheckFail || res[2].Causes[0] != "missing event_type http" {
		t.Errorf("check 3: %+v", res[2])
	}
	if res[3].Status != CheckFail || res[3].Causes[0] != "missing field(s) in flow events: flow.action" {
		t.Errorf("check 4: %+v", res[3])
	}
	if res[4].Status != CheckPass {
		t.Errorf("check 5 (no count, one match): %+v", res[4])
	}
	if res[5].Status != CheckFail || res[5].Expected != "count >= 1" {
		t.Errorf("check 6 (no count, no match): %+v", res[5])
	}
}

func TestFilterMissingAndBadFile(t *testing.T) {
	res := evalChecks(t, "- filter:\n    count: 0\n    match:\n      event_type: alert\n", "")
	if res[0].Status != CheckError || !strings.Contains(res[0].Observed, "eve.json was not written") {
		t.Errorf("missing eve.json: %+v", res[0])
	}
	res = evalChecks(t, "- filter:\n    count: 1\n    match:\n      event_type: alert\n",
		"{\"event_type\":\"alert\"}\n{not json\n")
	if res[0].Status != CheckFail || !strings.Contains(res[0].Detail, "line 2 is not valid JSON") {
		t.Errorf("bad JSON: %+v", res[0])
	}
	// Another file name, blank lines ignored.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rules.json"), []byte("\n{\"id\":1}\n\n{\"id\":2}\n"), 0o644)
	spec, _ := ParseSpec([]byte("checks:\n- filter:\n    filename: rules.json\n    count: 1\n    match:\n      id: 2\n"))
	r := spec.Checks[0].Evaluate(NewOutputs(dir), &CheckEnv{Ctx: context.Background(), OutDir: dir})
	if r.Status != CheckPass {
		t.Errorf("rules.json: %+v", r)
	}
}

func TestStatsCheck(t *testing.T) {
	eve := `{"event_type":"stats","stats":{"decoder":{"pkts":1},"detect":{"alert":0}}}
{"event_type":"alert","alert":{"signature_id":1}}
{"event_type":"stats","stats":{"decoder":{"pkts":42},"detect":{"alert":3,"engines":[{"rules_loaded":7}]},"ips":{"accepted":2}}}
`
	res := evalChecks(t, `
- stats:
    decoder.pkts: 42
    detect.alert.__gte: 1
    detect.engines[0].rules_loaded: 7
- stats:
    decoder.pkts: 1
- stats:
    firewall.blocked: 2
    ips.accepted: 2
- stats:
    detect.engines.rules_loaded: 7
`, eve)
	if res[0].Status != CheckPass {
		t.Errorf("stats 1: %+v", res[0])
	}
	if res[1].Status != CheckFail || !strings.Contains(res[1].Observed, "decoder.pkts=42") {
		t.Errorf("stats 2 (must use the last record): %+v", res[1])
	}
	if res[2].Status != CheckFail || res[2].Causes[0] != "missing stats counter firewall.blocked" ||
		!strings.Contains(res[2].Observed, "firewall.blocked missing") {
		t.Errorf("stats 3: %+v", res[2])
	}
	if res[3].Status != CheckFail {
		t.Errorf("stats 4 (a list is not an object): %+v", res[3])
	}
	res = evalChecks(t, "- stats:\n    decoder.pkts: 1\n", `{"event_type":"alert"}`+"\n")
	if res[0].Status != CheckFail || res[0].Causes[0] != "missing event_type stats" {
		t.Errorf("no stats record: %+v", res[0])
	}
}

func TestShellAndFileCompare(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fast.log"), []byte("a\nb\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "out.csv"), []byte("x,1\ny,2\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "expected"), 0o755)
	os.WriteFile(filepath.Join(dir, "expected", "same.csv"), []byte("x,1\ny,2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "expected", "other.csv"), []byte("x,1\ny,3\n"), 0o644)
	spec, err := ParseSpec([]byte(`checks:
- shell:
    args: cat fast.log | wc -l | xargs
    expect: 2
- shell:
    args: cat fast.log | wc -l | xargs
    expect: 3
- shell:
    args: "false"
- shell:
    args: test -n "$MARKER"
- shell:
    args: echo True
    expect: yes
- file-compare:
    filename: out.csv
    expected: expected/same.csv
- file-compare:
    filename: out.csv
    expected: expected/other.csv
`))
	if err != nil {
		t.Fatal(err)
	}
	env := &CheckEnv{Ctx: context.Background(), TestDir: dir, OutDir: dir, Env: append(os.Environ(), "MARKER=1")}
	want := []CheckStatus{CheckPass, CheckFail, CheckFail, CheckPass, CheckPass, CheckPass, CheckFail}
	for i, c := range spec.Checks {
		r := c.Evaluate(NewOutputs(dir), env)
		if r.Status != want[i] {
			t.Errorf("check %d: got %s want %s: %+v", i+1, r.Status, want[i], r)
		}
		if i == 1 && (r.Expected != `"3"` || r.Observed != `"2"`) {
			t.Errorf("shell expect mismatch message: %+v", r)
		}
		if i == 6 && !strings.Contains(r.Detail, "line 2") {
			t.Errorf("file-compare detail: %+v", r)
		}
	}
}

func TestYAML11Scalars(t *testing.T) {
	spec, err := ParseSpec([]byte(`checks:
- filter:
    count: 010
    match:
      a: yes
      b: Off
      c: 8.0
      d: 7.0.11
      e: "yes"
      f: ~
      g: 0x10
      h: !!str 12
      i: 1_000
`))
	if err != nil {
		t.Fatal(err)
	}
	c := spec.Checks[0]
	if *c.Count != 8 {
		t.Errorf("count 010 = %d, want 8 (octal)", *c.Count)
	}
	want := map[string]any{"a": true, "b": false, "c": 8.0, "d": "7.0.11", "e": "yes", "f": nil, "g": int64(16), "h": "12", "i": int64(1000)}
	for _, cd := range c.Conds {
		if cd.Want != want[cd.Key] {
			t.Errorf("%s = %#v, want %#v", cd.Key, cd.Want, want[cd.Key])
		}
	}
	if pyStr(1.0) != "1.0" || pyStr(true) != "True" || pyStr(int64(3)) != "3" || pyStr(nil) != "None" || pyStr(1e20) != "1e+20" {
		t.Errorf("pyStr: %q %q %q %q %q", pyStr(1.0), pyStr(true), pyStr(int64(3)), pyStr(nil), pyStr(1e20))
	}
}

func TestCheckLevelRequiresParsing(t *testing.T) {
	spec, err := ParseSpec([]byte(`checks:
- filter:
    requires:
      min-version: 7
    count: 1
    match:
      event_type: flow
- filter:
    min-version: 9
    count: 1
    match:
      event_type: flow
- filter:
    lt-version: 8
    count: 1
    match: {event_type: flow}
- bogus:
    x: 1
`))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlatform(Version{Parts: []int{8, 0, 6}}, nil, "/")
	ctx := context.Background()
	if sr, err := p.EvalRequires(ctx, spec.Checks[0].Requires, "/", nil); sr != nil || err != nil {
		t.Errorf("check 1 should run: %v %v", sr, err)
	}
	if sr, _ := p.EvalRequires(ctx, spec.Checks[1].Requires, "/", nil); sr == nil {
		t.Errorf("check 2 (min-version 9 written in the check) should be skipped")
	}
	if sr, _ := p.EvalRequires(ctx, spec.Checks[2].Requires, "/", nil); sr == nil {
		t.Errorf("check 3 (lt-version 8) should be skipped")
	}
	if spec.Checks[3].Err == nil {
		t.Errorf("unknown check kind should be an error")
	}
}
