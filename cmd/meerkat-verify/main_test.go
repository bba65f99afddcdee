package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeEngine installs the runner's test double (not the real engine) as an
// executable in a temp dir.
func fakeEngine(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../verify/testdata/fake-meerkat.sh")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "fake-meerkat")
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const checks = `checks:
- filter:
    count: 1
    match:
      event_type: alert
      alert.signature_id: 1
`

// corpus builds a tests dir: good passes, bad fails, old is skipped.
func corpus(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{"good", "bad", "old"} {
		dir := filepath.Join(root, name)
		write(t, filepath.Join(dir, "input.pcap"), "")
		write(t, filepath.Join(dir, "test.rules"), "")
		yml := checks
		if name == "old" {
			yml = "requires:\n  min-version: 99\n" + checks
		}
		write(t, filepath.Join(dir, "test.yaml"), yml)
	}
	write(t, filepath.Join(root, "good", "fake", "eve.json"), `{"event_type":"alert","alert":{"signature_id":1}}`+"\n")
	write(t, filepath.Join(root, "bad", "fake", "eve.json"), `{"event_type":"alert","alert":{"signature_id":2}}`+"\n")
	return root
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestCLIRun(t *testing.T) {
	engine := fakeEngine(t)
	tests := corpus(t)
	out := filepath.Join(t.TempDir(), "out")
	js := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI(t, "--tests", tests, "--engine", engine, "--out", out, "--repo", t.TempDir(),
		"--json", js, "--report", "-j", "2")
	if code != 0 {
		t.Fatalf("exit %d (plain runs exit 0 even with failures)\n%s\n%s", code, stdout, stderr)
	}
	if got := lastLine(stdout); got != "1 passed, 1 failed, 1 skipped" {
		t.Errorf("final line %q\n%s", got, stdout)
	}
	for _, want := range []string{
		"FAIL  bad: 1 of 1 checks failed",
		"expected: count 1\n        observed: count 0",
		"PASS  good",
		"SKIP  old: requires min-version 99",
		"wrong count: too few matching alert events (1 tests)",
		"command: " + engine,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "good", "eve.json")); err != nil {
		t.Errorf("output dir layout: %v", err)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc results
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Results) != 3 || doc.Summary["passed"] != 1 {
		t.Errorf("json: %v %+v", err, doc.Summary)
	}
	code, rep, _ := runCLI(t, "report", js)
	if code != 0 || !strings.Contains(rep, "requires min-version 99 (1 tests)") || lastLine(rep) != "1 passed, 1 failed, 1 skipped" {
		t.Errorf("report subcommand: %d\n%s", code, rep)
	}

	// --filter and --list.
	code, stdout, _ = runCLI(t, "--tests", tests, "--list", "--filter", "^go")
	if code != 0 || strings.TrimSpace(stdout) != "good" {
		t.Errorf("--list --filter: %d %q", code, stdout)
	}
}

func TestCLIRatchet(t *testing.T) {
	engine := fakeEngine(t)
	tests := corpus(t)
	ratchet := filepath.Join(t.TempDir(), "passing.txt")
	write(t, ratchet, "# tests that passed before\n")
	base := []string{"--tests", tests, "--engine", engine, "--out", t.TempDir(), "--repo", t.TempDir(), "--ratchet", ratchet}

	code, stdout, _ := runCLI(t, base...)
	if code != 0 || !strings.Contains(stdout, "add these to "+ratchet+" (or rerun with --update-ratchet): good") {
		t.Errorf("newly passing: %d\n%s", code, stdout)
	}
	if lastLine(stdout) != "1 passed, 1 failed, 1 skipped" {
		t.Errorf("final line: %q", lastLine(stdout))
	}
	code, stdout, _ = runCLI(t, append(base, "--update-ratchet")...)
	if code != 0 {
		t.Errorf("update: %d\n%s", code, stdout)
	}
	data, _ := os.ReadFile(ratchet)
	if string(data) != "# tests that passed before\ngood\n" {
		t.Errorf("ratchet file: %q", data)
	}
	// Listing a failing test breaks the ratchet.
	write(t, ratchet, string(data)+"bad\n")
	code, stdout, _ = runCLI(t, base...)
	if code != 1 || !strings.Contains(stdout, "FAIL bad: 1 of 1 checks failed") {
		t.Errorf("regression: %d\n%s", code, stdout)
	}
	if lastLine(stdout) != "1 passed, 1 failed, 1 skipped" {
		t.Errorf("final line: %q", lastLine(stdout))
	}
	// A listed test left out by --filter is not a regression.
	code, stdout, _ = runCLI(t, append(base, "--filter", "good")...)
	if code != 0 || !strings.Contains(stdout, "not selected by --filter") {
		t.Errorf("filtered ratchet: %d\n%s", code, stdout)
	}
}

func TestCLIMisuse(t *testing.T) {
	tests := corpus(t)
	cases := [][]string{
		{"--bogus"},
		{"--tests", filepath.Join(t.TempDir(), "none")},
		{"--tests", tests, "--filter", "("},
		{"--tests", tests, "--engine", filepath.Join(t.TempDir(), "no-such-engine")},
		{"--tests", tests, "--update-ratchet"},
		{"--tests", tests, "--engine", fakeEngine(t), "--out", filepath.Join(tests, "good", "out")},
		{"--tests", tests, "--engine", fakeEngine(t), "--ratchet", filepath.Join(t.TempDir(), "missing.txt")},
		{"--timeout", "soon"},
		{"report"},
	}
	for _, args := range cases {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

func TestCLIDryRunSharedCorpus(t *testing.T) {
	dir := "../../../shared/conformance/tests"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", dir, err)
	}
	code, stdout, stderr := runCLI(t, "--tests", dir, "--dry-run", "--engine", "/bin/true", "--repo", "/repo", "--features", "none")
	if code != 0 {
		t.Fatalf("dry run: %d %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 115 {
		t.Errorf("dry run printed %d lines, want 115", len(lines))
	}
	if !strings.Contains(stdout, "RUN   bug-6269-02-ips: /bin/true --set classification-file=/repo/classification.config") ||
		!strings.Contains(stdout, "--simulate-ips -c /repo/suricata.yaml") {
		t.Errorf("dry run lacks the ips-by-name command line:\n%s", stdout)
	}
}

// TestCLIDryRunBothSharedFolders: tests/ and tests-next/ together hold no name twice.
func TestCLIDryRunBothSharedFolders(t *testing.T) {
	dirs := []string{"../../../shared/conformance/tests", "../../../shared/conformance/tests-next"}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("conformance corpus not found at %s: %v", dir, err)
		}
	}
	code, stdout, stderr := runCLI(t, "--tests", strings.Join(dirs, ","), "--dry-run", "--engine", "/bin/true", "--repo", "/repo", "--features", "none")
	if code != 0 {
		t.Fatalf("dry run: %d %s", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); len(lines) != 115+123 {
		t.Errorf("dry run printed %d lines, want %d", len(lines), 115+123)
	}
	if !strings.Contains(stdout, "output-eve-anomaly-02: /bin/true") {
		t.Errorf("dry run lacks a tests-next test:\n%s", stdout)
	}
}

// TestCLITempOutputRemoved: without --out the runner writes to a temporary directory of its
// own and removes it after a run that succeeds (make test ran it on every build and left one
// behind each time); after a failed run (a ratchet regression) it is kept for a look.
func TestCLITempOutputRemoved(t *testing.T) {
	engine := fakeEngine(t)
	tests := corpus(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	left := func() []string {
		m, err := filepath.Glob(filepath.Join(tmp, "meerkat-verify-*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ratchet := filepath.Join(t.TempDir(), "passing.txt")
	write(t, ratchet, "good\n")
	base := []string{"--tests", tests, "--engine", engine, "--repo", t.TempDir(), "--ratchet", ratchet}
	if code, stdout, _ := runCLI(t, base...); code != 0 || len(left()) != 0 {
		t.Errorf("passing run: exit %d, left %v\n%s", code, left(), stdout)
	}
	write(t, ratchet, "good\nbad\n")
	if code, stdout, _ := runCLI(t, base...); code != 1 || len(left()) != 1 || !strings.Contains(stdout, "output in "+left()[0]) {
		t.Errorf("failing run: exit %d, left %v, want its output kept and named\n%s", code, left(), stdout)
	}
}

// TestCLISeveralFolders: --tests takes several folders, comma separated and/or repeated; a
// missing folder is skipped with a message (and listed tests not found are then not counted
// as regressions), the same name in two folders is misuse.
func TestCLISeveralFolders(t *testing.T) {
	engine := fakeEngine(t)
	one := corpus(t)
	two := t.TempDir()
	write(t, filepath.Join(two, "next", "input.pcap"), "")
	write(t, filepath.Join(two, "next", "test.rules"), "")
	write(t, filepath.Join(two, "next", "test.yaml"), checks)
	write(t, filepath.Join(two, "next", "fake", "eve.json"), `{"event_type":"alert","alert":{"signature_id":1}}`+"\n")

	for _, args := range [][]string{
		{"--tests", one + "," + two},
		{"--tests", one, "--tests", two},
		{"--tests", one + ",", "--tests", two + "," + one},
	} {
		code, stdout, stderr := runCLI(t, append(args, "--list")...)
		if code != 0 || strings.Join(strings.Fields(stdout), " ") != "bad good old next" {
			t.Errorf("%q --list: %d %q %s", args, code, stdout, stderr)
		}
	}

	missing := filepath.Join(t.TempDir(), "tests-next")
	ratchet := filepath.Join(t.TempDir(), "passing.txt")
	write(t, ratchet, "good\nnext\n")
	base := []string{"--engine", engine, "--out", t.TempDir(), "--repo", t.TempDir(), "--ratchet", ratchet}
	code, stdout, stderr := runCLI(t, append(base, "--tests", one+","+two)...)
	if code != 0 || lastLine(stdout) != "2 passed, 1 failed, 1 skipped" || !strings.Contains(stdout, "ratchet: ok (2 listed)") ||
		!strings.Contains(stdout, "tests from "+one+", "+two) {
		t.Errorf("two folders: %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, append(base, "--tests", one+","+missing)...)
	if code != 0 || !strings.Contains(stderr, "test folder "+missing+" not found, skipped") ||
		!strings.Contains(stdout, "ratchet: 1 listed test(s) not found while a test folder is missing, not checked: next") {
		t.Errorf("missing folder: %d\n%s\n%s", code, stdout, stderr)
	}
	// With every folder there, a listed test that is nowhere is a regression again.
	write(t, ratchet, "good\nnext\ngone\n")
	if code, stdout, _ = runCLI(t, append(base, "--tests", one+","+two)...); code != 1 || !strings.Contains(stdout, "MISSING gone: test not found") {
		t.Errorf("gone test: %d\n%s", code, stdout)
	}

	// The same test name in two folders.
	dup := t.TempDir()
	write(t, filepath.Join(dup, "good", "test.yaml"), checks)
	code, _, stderr = runCLI(t, "--tests", one+","+dup, "--list")
	if code != 2 || !strings.Contains(stderr, "test name good is in two folders") {
		t.Errorf("duplicate name: %d %s", code, stderr)
	}
	// No folder at all.
	if code, _, stderr = runCLI(t, "--tests", missing, "--list"); code != 2 || !strings.Contains(stderr, "no test folder found") {
		t.Errorf("no folder: %d %s", code, stderr)
	}
}

// TestCLIDefaultFolders: without --tests both folders of ../shared/conformance are used, and
// one that is missing is skipped.
func TestCLIDefaultFolders(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(repo, "go.mod"), "module "+modulePath+"\n")
	conf := filepath.Join(root, "shared", "conformance")
	write(t, filepath.Join(conf, "tests", "a", "test.yaml"), checks)
	code, stdout, stderr := runCLI(t, "--repo", repo, "--list")
	if code != 0 || strings.TrimSpace(stdout) != "a" || !strings.Contains(stderr, filepath.Join(conf, "tests-next")+" not found, skipped") {
		t.Errorf("tests only: %d %q %s", code, stdout, stderr)
	}
	write(t, filepath.Join(conf, "tests-next", "b", "test.yaml"), checks)
	code, stdout, stderr = runCLI(t, "--repo", repo, "--list")
	if code != 0 || strings.Join(strings.Fields(stdout), " ") != "a b" || stderr != "" {
		t.Errorf("both: %d %q %s", code, stdout, stderr)
	}
}
