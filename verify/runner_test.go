package verify

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// sharedTests is the conformance corpus beside the repository.
const sharedTests = "../../shared/conformance/tests"

// fakeEngine copies testdata/fake-meerkat.sh into a temp dir as an
// executable (git may not keep the mode bit) and returns its path.
func fakeEngine(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake engine is a shell script")
	}
	data, err := os.ReadFile("testdata/fake-meerkat.sh")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "fake-meerkat")
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// copyDir copies a test folder.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// realTest copies a test from the shared corpus into a temp tests dir,
// skipping when the corpus is absent.
func realTest(t *testing.T, name string) Test {
	t.Helper()
	src := filepath.Join(sharedTests, name)
	if _, err := os.Stat(filepath.Join(src, "test.yaml")); err != nil {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository): %v", src, err)
	}
	dst := filepath.Join(t.TempDir(), "tests", name)
	copyDir(t, src, dst)
	return Test{Name: name, Base: name, Dir: dst}
}

// setFake writes the fake engine's playback files for a test.
func setFake(t *testing.T, tc Test, files map[string]string) {
	t.Helper()
	dir := filepath.Join(tc.Dir, "fake")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newTestRunner(t *testing.T, engine string, timeout time.Duration) *Runner {
	t.Helper()
	src := t.TempDir()
	v := Version{Parts: []int{8, 0, 6}}
	return NewRunner(Options{
		Engine:   NewEngineConfig(engine, src, v),
		Platform: NewPlatform(v, nil, src),
		OutRoot:  filepath.Join(t.TempDir(), "out"),
		Timeout:  timeout,
		Jobs:     2,
	})
}

const alertSid1 = `{"timestamp":"2017-01-01T00:00:00.000000+0000","event_type":"alert","src_ip":"10.0.0.1","alert":{"action":"allowed","gid":1,"signature_id":1,"rev":1}}
{"event_type":"flow","flow":{"pkts_toserver":3}}
`

func TestRunnerRealFolder(t *testing.T) {
	engine := fakeEngine(t)
	tc := realTest(t, "bug-1401-03")
	r := newTestRunner(t, engine, 30*time.Second)
	ctx := context.Background()

	// The fake engine writes what the test wants: PASS.
	setFake(t, tc, map[string]string{"eve.json": alertSid1})
	res := r.RunTest(ctx, tc)
	if res.Verdict != Pass {
		t.Fatalf("want PASS, got %s: %s %+v", res.Verdict, res.Reason, res.Checks)
	}
	argv, err := os.ReadFile(filepath.Join(res.OutputDir, "argv"))
	if err != nil {
		t.Fatal(err)
	}
	wantArgv := strings.Join(res.Invocation.Argv[1:], "\n") + "\n"
	if string(argv) != wantArgv {
		t.Errorf("engine saw argv\n%s\nwant\n%s", argv, wantArgv)
	}
	if !strings.Contains(string(argv), "-S\n"+tc.Dir+"/1.rules\n") {
		t.Errorf("argv lacks -S 1.rules:\n%s", argv)
	}

	// Missing event: FAIL, with the cause named.
	setFake(t, tc, map[string]string{"eve.json": `{"event_type":"flow","flow":{}}` + "\n"})
	res = r.RunTest(ctx, tc)
	if res.Verdict != Fail || !strings.Contains(res.Reason, "expected count 1, observed count 0") {
		t.Errorf("missing alert: got %s %q", res.Verdict, res.Reason)
	}
	if len(res.Causes) == 0 || res.Causes[0] != "missing event_type alert" {
		t.Errorf("missing alert causes: %v", res.Causes)
	}

	// A deliberately wrong expected count in test.yaml: FAIL.
	setFake(t, tc, map[string]string{"eve.json": alertSid1})
	yml := filepath.Join(tc.Dir, "test.yaml")
	orig, _ := os.ReadFile(yml)
	os.WriteFile(yml, bytes.Replace(orig, []byte("count: 1"), []byte("count: 2"), 1), 0o644)
	res = r.RunTest(ctx, tc)
	if res.Verdict != Fail || res.Checks[0].Expected != "count 2" || res.Checks[0].Observed != "count 1" {
		t.Errorf("wrong count: got %s %q %+v", res.Verdict, res.Reason, res.Checks)
	}

	// requires: min-version: 99 → SKIP (the engine is not run).
	os.WriteFile(yml, append([]byte("requires:\n  min-version: 99\n"), orig...), 0o644)
	res = r.RunTest(ctx, tc)
	if res.Verdict != Skip || !strings.Contains(res.Reason, "min-version 99") {
		t.Errorf("min-version 99: got %s %q", res.Verdict, res.Reason)
	}
	if res.Invocation != nil {
		t.Errorf("a skipped test must not run the engine")
	}

	// exit-code mismatch → ERROR.
	os.WriteFile(yml, orig, 0o644)
	setFake(t, tc, map[string]string{"eve.json": alertSid1, "exit": "1", "stderr": "Error: rules: keyword \"flags\" is not supported yet\n"})
	res = r.RunTest(ctx, tc)
	if res.Verdict != Error || !strings.Contains(res.Reason, "exited with 1, expected 0") {
		t.Errorf("exit code: got %s %q", res.Verdict, res.Reason)
	}
	if !contains(res.Causes, "rule load failed: keyword flags is not supported yet") || !contains(res.Causes, "exit code 1, expected 0") {
		t.Errorf("exit code causes: %v", res.Causes)
	}
	if len(res.StderrTail) == 0 || !strings.Contains(res.StderrTail[0], "flags") {
		t.Errorf("stderr tail: %q", res.StderrTail)
	}

	// Expected non-zero exit code that happens: checks still run.
	os.WriteFile(yml, append([]byte("exit-code: 1\n"), orig...), 0o644)
	res = r.RunTest(ctx, tc)
	if res.Verdict != Pass {
		t.Errorf("exit-code 1 expected and seen: got %s %q", res.Verdict, res.Reason)
	}
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// synthTest builds a test folder with a dummy capture and a rules file.
func synthTest(t *testing.T, name, yaml string, fake map[string]string) Test {
	t.Helper()
	tc := mkTest(t, t.TempDir(), name, map[string]string{"test.yaml": yaml, "input.pcap": "", "test.rules": ""})
	if fake != nil {
		setFake(t, tc, fake)
	}
	return tc
}

const simpleChecks = `checks:
- filter:
    count: 1
    match:
      event_type: alert
      alert.signature_id: 1
`

func TestRunnerErrors(t *testing.T) {
	engine := fakeEngine(t)
	r := newTestRunner(t, engine, 500*time.Millisecond)
	ctx := context.Background()

	res := r.RunTest(ctx, synthTest(t, "crash", simpleChecks, map[string]string{"eve.json": alertSid1, "signal": "SEGV"}))
	if res.Verdict != Error || res.Signal == "" || !strings.Contains(res.Causes[0], "crashed") {
		t.Errorf("crash: %s %q %v", res.Verdict, res.Reason, res.Causes)
	}

	start := time.Now()
	res = r.RunTest(ctx, synthTest(t, "hang", simpleChecks, map[string]string{"eve.json": alertSid1, "sleep": "30"}))
	if res.Verdict != Error || !res.TimedOut || res.Causes[0] != "timeout" {
		t.Errorf("timeout: %s %q %v", res.Verdict, res.Reason, res.Causes)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %s; the process group was not killed", d)
	}

	res = r.RunTest(ctx, synthTest(t, "no-eve", simpleChecks, map[string]string{}))
	if res.Verdict != Error || !strings.Contains(res.Reason, "eve.json was not written") {
		t.Errorf("missing eve.json: %s %q", res.Verdict, res.Reason)
	}

	res = r.RunTest(ctx, synthTest(t, "panic", simpleChecks, map[string]string{"eve.json": alertSid1, "exit": "2",
		"stderr": "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n"}))
	if res.Verdict != Error || res.Causes[0] != "engine crashed (Go panic)" {
		t.Errorf("panic: %s %q %v", res.Verdict, res.Reason, res.Causes)
	}

	res = r.RunTest(ctx, synthTest(t, "bad-yaml", "checks: [\n", nil))
	if res.Verdict != Error || res.Causes[0] != "malformed test.yaml" {
		t.Errorf("bad yaml: %s %q", res.Verdict, res.Reason)
	}

	res = r.RunTest(ctx, synthTest(t, "bad-requires", "requires:\n  nonsense: 1\n"+simpleChecks, nil))
	if res.Verdict != Error {
		t.Errorf("unknown requires key: %s %q", res.Verdict, res.Reason)
	}

	r2 := NewRunner(Options{Engine: NewEngineConfig(filepath.Join(t.TempDir(), "absent"), t.TempDir(), Version{Parts: []int{8}}),
		Platform: NewPlatform(Version{Parts: []int{8}}, nil, "/"), OutRoot: t.TempDir()})
	res = r2.RunTest(ctx, synthTest(t, "no-engine", simpleChecks, nil))
	if res.Verdict != Error || res.Causes[0] != "engine did not start" {
		t.Errorf("absent engine: %s %q %v", res.Verdict, res.Reason, res.Causes)
	}
}

func TestRunnerFeatures(t *testing.T) {
	engine := fakeEngine(t)
	r := newTestRunner(t, engine, 10*time.Second)
	ctx := context.Background()

	// Every check skipped → SKIP; some skipped → PASS.
	res := r.RunTest(ctx, synthTest(t, "all-skipped", `checks:
- filter:
    requires:
      min-version: 9
    count: 1
    match:
      event_type: alert
`, map[string]string{"eve.json": alertSid1}))
	if res.Verdict != Skip {
		t.Errorf("all checks skipped: %s %q", res.Verdict, res.Reason)
	}
	res = r.RunTest(ctx, synthTest(t, "some-skipped", simpleChecks+`- filter:
    requires:
      lt-version: 7
    count: 5
    match:
      event_type: alert
`, map[string]string{"eve.json": alertSid1}))
	if res.Verdict != Pass || res.Checks[1].Status != CheckSkip {
		t.Errorf("one check skipped: %s %q %+v", res.Verdict, res.Reason, res.Checks)
	}

	// Features: the fake engine's --build-info is not consulted here; the
	// platform has none, so a required feature skips.
	res = r.RunTest(ctx, synthTest(t, "feature", "requires:\n  features: [HAVE_LUA]\n"+simpleChecks, nil))
	if res.Verdict != Skip || res.Causes[0] != "unsupported requires feature HAVE_LUA" {
		t.Errorf("feature: %s %v", res.Verdict, res.Causes)
	}

	// env, setup, pre-check, shell checks and the engine environment.
	res = r.RunTest(ctx, synthTest(t, "env-setup", `env:
  GREETING: hello
  WHERE: ${TEST_DIR}/x
setup:
  - script: echo "$GREETING" > setup.txt
pre-check: |
  echo "$TZ $GREETING" > pre.txt
checks:
- shell:
    args: cat setup.txt
    expect: hello
- shell:
    args: cat pre.txt
    expect: UTC hello
- shell:
    args: test "$OUTPUT_DIR" = "$(pwd)" && test -f "$TEST_DIR/test.yaml" && test "$WHERE" = "$TEST_DIR/x" && test -n "$SRCDIR"
- shell:
    args: grep -c . argv
    expect: 13
`, map[string]string{}))
	if res.Verdict != Pass {
		t.Errorf("env/setup/pre-check: %s %q %+v", res.Verdict, res.Reason, res.Checks)
	}

	// count: the engine runs several times; retry: a flaky test passes on
	// a later attempt.
	tc := synthTest(t, "count", "count: 3\n"+simpleChecks, map[string]string{"eve.json": alertSid1})
	res = r.RunTest(ctx, tc)
	if res.Verdict != Pass || res.Runs != 3 {
		t.Errorf("count 3: %s runs=%d", res.Verdict, res.Runs)
	}
	flaky := synthTest(t, "flaky", "retry: 3\nsetup:\n  - script: n=$(cat $TEST_DIR/fake/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > $TEST_DIR/fake/n; if [ $n -ge 2 ]; then cp $TEST_DIR/fake/good.json $TEST_DIR/fake/eve.json; fi\n"+simpleChecks,
		map[string]string{"good.json": alertSid1, "eve.json": "{}\n"})
	res = r.RunTest(ctx, flaky)
	if res.Verdict != Pass || res.Attempts != 2 {
		t.Errorf("retry: %s attempts=%d %q", res.Verdict, res.Attempts, res.Reason)
	}

	// command: runs through sh with the engine substituted.
	res = r.RunTest(ctx, synthTest(t, "command", `command: suricata --build-info > ${OUTPUT_DIR}/bi.txt
checks:
- shell:
    args: grep -c FAKE_FEATURE bi.txt
    expect: 1
`, nil))
	if res.Verdict != Pass {
		t.Errorf("command: %s %q %+v", res.Verdict, res.Reason, res.Checks)
	}

	// unix-commands are not supported.
	res = r.RunTest(ctx, synthTest(t, "unix", "unix-commands: [x]\n"+simpleChecks, nil))
	if res.Verdict != Skip {
		t.Errorf("unix-commands: %s", res.Verdict)
	}
}

func TestRunAllOrderAndReport(t *testing.T) {
	engine := fakeEngine(t)
	r := newTestRunner(t, engine, 10*time.Second)
	tests := []Test{
		synthTest(t, "a-pass", simpleChecks, map[string]string{"eve.json": alertSid1, "sleep": "0.3"}),
		synthTest(t, "b-fail", simpleChecks, map[string]string{"eve.json": "{\"event_type\":\"flow\"}\n"}),
		synthTest(t, "c-skip", "requires:\n  min-version: 99\n"+simpleChecks, nil),
		synthTest(t, "d-error", simpleChecks, map[string]string{"exit": "1", "stderr": "keyword \"flags\" is not supported yet\n"}),
		synthTest(t, "e-fail", simpleChecks, map[string]string{"eve.json": "{\"event_type\":\"dns\"}\n"}),
	}
	var order []string
	results := r.RunAll(context.Background(), tests, func(res *TestResult) { order = append(order, res.Name) })
	if strings.Join(order, " ") != "a-pass b-fail c-skip d-error e-fail" {
		t.Errorf("callback order: %v", order)
	}
	s := Summarize(results)
	if s.Line() != "1 passed, 3 failed, 1 skipped" || s.Errors != 1 {
		t.Errorf("summary: %q %+v", s.Line(), s)
	}
	problems, skips := GroupCauses(results)
	if len(problems) == 0 || problems[0].Cause != "missing event_type alert" || len(problems[0].Tests) != 2 {
		t.Errorf("problems: %+v", problems)
	}
	if len(skips) != 1 || skips[0].Cause != "requires min-version 99" {
		t.Errorf("skips: %+v", skips)
	}
	var buf bytes.Buffer
	WriteReport(&buf, results)
	for _, want := range []string{"missing event_type alert (2 tests)", "rule load failed: keyword flags is not supported yet (1 tests, 1 errors)", "requires min-version 99 (1 tests)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestRatchet(t *testing.T) {
	p := filepath.Join(t.TempDir(), "passing.txt")
	os.WriteFile(p, []byte("# header\n\na  # comment\nb\nmissing"), 0o644)
	listed, err := ReadRatchet(p)
	if err != nil || strings.Join(listed, ",") != "a,b,missing" {
		t.Fatalf("ReadRatchet: %v %v", listed, err)
	}
	results := []*TestResult{{Name: "a", Verdict: Pass}, {Name: "b", Verdict: Fail, Reason: "x"}, {Name: "c", Verdict: Pass}, {Name: "d", Verdict: Skip}}
	o := CheckRatchet(listed, map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true}, results)
	if !o.Failed() || len(o.Regressions) != 2 || o.Regressions[0].Name != "b" || o.Regressions[1].Reason != "test not found" {
		t.Errorf("regressions: %+v", o.Regressions)
	}
	if strings.Join(o.NewlyPassing, ",") != "c" {
		t.Errorf("newly passing: %v", o.NewlyPassing)
	}
	o = CheckRatchet([]string{"a", "e"}, map[string]bool{"a": true, "e": true}, results)
	if o.Failed() || strings.Join(o.NotSelected, ",") != "e" {
		t.Errorf("not selected: %+v", o)
	}
	if err := AppendRatchet(p, []string{"c", "z"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "# header\n\na  # comment\nb\nmissing\nc\nz\n" {
		t.Errorf("after append: %q", data)
	}
}

func TestDiscoverSharedCorpus(t *testing.T) {
	if _, err := os.Stat(sharedTests); err != nil {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository): %v", sharedTests, err)
	}
	tests, err := Discover(sharedTests)
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) != 115 {
		t.Errorf("discovered %d tests, want 115", len(tests))
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		if seen[tc.Name] {
			t.Errorf("duplicate name %s", tc.Name)
		}
		seen[tc.Name] = true
		if _, err := LoadSpec(tc.Dir); err != nil {
			t.Errorf("%s: %v", tc.Name, err)
		}
	}
	if !seen["bug-1401-03"] || !seen["dns__bug-990"] {
		t.Errorf("expected names missing")
	}
}

func TestDiscoverNesting(t *testing.T) {
	root := t.TempDir()
	mkTest(t, root, "g1/dup", map[string]string{"test.yaml": "", "sub/test.yaml": ""})
	mkTest(t, root, "g2/dup", map[string]string{"test.yaml": ""})
	mkTest(t, root, "solo", map[string]string{"test.yaml": ""})
	mkTest(t, root, "group/not-a-test", map[string]string{"README.md": ""})
	tests, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tc := range tests {
		names = append(names, tc.Name+"="+tc.Base)
	}
	if strings.Join(names, " ") != "g1__dup=dup g2__dup=dup solo=solo" {
		t.Errorf("names: %v", names)
	}
}

// TestRatchetPartial: with a test folder missing, a listed test not found is not checked
// rather than a regression; a listed test that ran and failed still is one.
func TestRatchetPartial(t *testing.T) {
	results := []*TestResult{{Name: "a", Verdict: Pass}, {Name: "b", Verdict: Fail, Reason: "x"}}
	o := CheckRatchetPartial([]string{"a", "b", "elsewhere"}, map[string]bool{"a": true, "b": true}, results, true)
	if len(o.Regressions) != 1 || o.Regressions[0].Name != "b" || strings.Join(o.Unavailable, ",") != "elsewhere" {
		t.Errorf("partial: %+v", o)
	}
	o = CheckRatchetPartial([]string{"a", "elsewhere"}, map[string]bool{"a": true}, results, false)
	if !o.Failed() || o.Regressions[0].Name != "elsewhere" || len(o.Unavailable) != 0 {
		t.Errorf("complete: %+v", o)
	}
}

func TestDiscoverAll(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	mkTest(t, one, "x", map[string]string{"test.yaml": ""})
	mkTest(t, one, "g1/dup", map[string]string{"test.yaml": ""})
	mkTest(t, one, "g2/dup", map[string]string{"test.yaml": ""})
	mkTest(t, two, "a", map[string]string{"test.yaml": ""})
	tests, err := DiscoverAll([]string{one, two})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tc := range tests {
		names = append(names, tc.Name)
	}
	if strings.Join(names, " ") != "g1__dup g2__dup x a" {
		t.Errorf("names: %v", names)
	}
	mkTest(t, two, "x", map[string]string{"test.yaml": ""})
	if _, err := DiscoverAll([]string{one, two}); err == nil || !strings.Contains(err.Error(), "test name x is in two folders") {
		t.Errorf("duplicate across folders: %v", err)
	}
	if _, err := DiscoverAll([]string{one, filepath.Join(two, "none")}); err == nil {
		t.Error("a missing root is an error for DiscoverAll (the command skips it before)")
	}
}

func TestDiscoverSharedCorpusNext(t *testing.T) {
	next := filepath.Join(filepath.Dir(sharedTests), "tests-next")
	for _, d := range []string{sharedTests, next} {
		if _, err := os.Stat(d); err != nil {
			t.Skipf("conformance corpus not found at %s: %v", d, err)
		}
	}
	tests, err := DiscoverAll([]string{sharedTests, next})
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) != 115+123 {
		t.Errorf("discovered %d tests, want %d", len(tests), 115+123)
	}
	for _, tc := range tests[115:] {
		if _, err := LoadSpec(tc.Dir); err != nil {
			t.Errorf("%s: %v", tc.Name, err)
		}
	}
}
