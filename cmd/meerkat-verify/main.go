// Command meerkat-verify runs the suricata-verify conformance tests against
// the meerkat engine.
//
// Usage:
//
//	meerkat-verify [flags]              run the tests
//	meerkat-verify report RESULTS.json  print the cause report of a --json file
//
// Flags:
//
//	--tests DIR[,DIR]    test folders, comma separated and/or the flag repeated (default
//	                     <repo>/../shared/conformance/tests and .../tests-next); a folder
//	                     that does not exist is skipped with a message, but at least one
//	                     must; test names must be unique across the folders
//	--engine PATH        meerkat binary (alias --meerkat; default <repo>/bin/meerkat,
//	                     then <repo>/meerkat, then meerkat on PATH)
//	--repo DIR           repository root: stock suricata.yaml, classification.config,
//	                     reference.config, ${SRCDIR} (default: found from the working dir)
//	--out DIR            output root; each test writes to DIR/<test> (default: a new temp dir,
//	                     removed at the end unless the run fails)
//	-j N                 tests run at once (default GOMAXPROCS)
//	--filter REGEX       run only tests whose name matches
//	--timeout D          limit per engine run, e.g. 60s or 60 (default 60s)
//	--json FILE          write full results as JSON
//	--report             print failures, errors and skips grouped by cause
//	--ratchet FILE       fail (exit 1) when a test listed in FILE does not pass
//	--update-ratchet     append newly passing tests to the --ratchet file
//	--features LIST      engine features (comma separated; "none" for none);
//	                     default: parsed from `meerkat --build-info`
//	--suricata-version V Suricata version Meerkat claims (default 8.0.6)
//	--list               list the selected tests and exit
//	--dry-run            print each test's engine command line and exit
//	-v                   print check details for passing tests too
//
// Each test runs the engine once per count: (retrying failures up to
// retry: attempts) with the working directory at the repository root, the
// environment plus TZ=UTC, SRCDIR, TEST_DIR, OUTPUT_DIR and the test's env:,
// and stdout/stderr captured in the output dir as files "stdout" and
// "stderr". The default command line follows the suricata-verify runner:
//
//	meerkat [args] --set classification-file=<repo>/classification.config
//	        --set reference-config-file=<repo>/reference.config
//	        --init-errors-fatal -l <out>/<test> [--simulate-ips if the name has "ips"]
//	        -c <test>/suricata.yaml|<repo>/suricata.yaml [-r <pcap>] <rules>
//
// where <rules> is -S <file>, --disable-detection (no rules),
// --firewall-rules-exclusive <test>/firewall.rules [-S <test>/td.rules]
// (firewall mode), following verify.RuleArgs. A test's command: is run with
// /bin/sh -c after mapping the Suricata binary to meerkat:
// ${SRCDIR}/src/suricata, $SRCDIR/src/suricata, ./src/suricata, src/suricata
// and a plain `suricata` in command position become the meerkat path.
//
// Tests are named by their folder's basename (<group>__<basename> when two
// folders of one tree share a basename); the same name in two of the --tests
// folders is misuse. When a --tests folder is missing, --ratchet does not
// count listed tests that were not found as regressions (they may live there)
// and says how many it could not check.
//
// Verdicts: PASS; FAIL (a check failed; expected and observed are printed);
// SKIP (requires/skip not met, with the reason); ERROR (crash, signal,
// timeout, wrong exit code, missing eve.json, malformed test).
//
// Exit status: 0 after a run, even when tests fail (the summary line says
// how many); 1 when --ratchet finds a regression; 2 on misuse (bad flags,
// no tests directory, a test name in two folders, no engine binary, bad
// --filter).
//
// The last line of a run is always "N passed, M failed, K skipped", where
// errors count as failed.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/meerkat-ids/meerkat/verify"
)

const modulePath = "github.com/meerkat-ids/meerkat"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// durationFlag accepts "60s", "2m" or a plain number of seconds.
type durationFlag struct{ d time.Duration }

// String implements flag.Value.
func (f *durationFlag) String() string { return f.d.String() }

// Set implements flag.Value.
func (f *durationFlag) Set(s string) error {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		f.d = time.Duration(n * float64(time.Second))
	} else {
		d, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		f.d = d
	}
	if f.d <= 0 {
		return errors.New("timeout must be positive")
	}
	return nil
}

// dirsFlag collects the --tests folders: each use of the flag adds its comma-separated list.
type dirsFlag []string

// String implements flag.Value.
func (f *dirsFlag) String() string { return strings.Join(*f, ",") }

// Set implements flag.Value.
func (f *dirsFlag) Set(s string) error {
	for _, d := range strings.Split(s, ",") {
		if d = strings.TrimSpace(d); d != "" {
			*f = append(*f, d)
		}
	}
	return nil
}

// defaultTestDirs are the folders of the shared conformance corpus, beside the repository.
var defaultTestDirs = []string{"tests", "tests-next"}

// results is the --json document.
type results struct {
	// SuricataVersion is the version requires were evaluated against.
	SuricataVersion string `json:"suricata_version"`
	// Features are the engine features assumed.
	Features []string `json:"features"`
	// Engine is the meerkat binary.
	Engine string `json:"engine"`
	// TestsDir is the first folder the tests were found in (see TestsDirs).
	TestsDir string `json:"tests_dir"`
	// TestsDirs are all the folders the tests were found in, in order.
	TestsDirs []string `json:"tests_dirs"`
	// OutDir holds the per-test output directories.
	OutDir string `json:"out_dir"`
	// Summary counts passed, failed, errors and skipped.
	Summary map[string]int `json:"summary"`
	// Results are the per-test results in test order.
	Results []*verify.TestResult `json:"results"`
}

// run is main without the process exit, for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "report" {
		return reportCmd(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("meerkat-verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var testsDirs dirsFlag
	fs.Var(&testsDirs, "tests", "test folders, comma separated or the flag repeated (default <repo>/../shared/conformance/tests,tests-next)")
	engine := fs.String("engine", "", "meerkat binary (default <repo>/bin/meerkat, <repo>/meerkat, else meerkat on PATH)")
	fs.StringVar(engine, "meerkat", "", "same as --engine")
	repo := fs.String("repo", "", "repository root (default: found from the working directory)")
	outRoot := fs.String("out", "", "output root; each test writes to DIR/<test> (default: a new temp dir)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "tests run at once")
	filter := fs.String("filter", "", "run only tests whose name matches this regular expression")
	timeout := &durationFlag{d: 60 * time.Second}
	fs.Var(timeout, "timeout", "limit per engine run (60s, 2m or seconds)")
	jsonOut := fs.String("json", "", "write full results as JSON to this file")
	report := fs.Bool("report", false, "print failures, errors and skips grouped by cause")
	ratchet := fs.String("ratchet", "", "list of tests that must pass (exit 1 on regression)")
	updateRatchet := fs.Bool("update-ratchet", false, "append newly passing tests to the --ratchet file")
	features := fs.String("features", "", `engine features, comma separated ("none" for none; default: from --build-info)`)
	version := fs.String("suricata-version", verify.DefaultSuricataVersion, "Suricata version Meerkat claims compatibility with")
	list := fs.Bool("list", false, "list the selected tests and exit")
	dryRun := fs.Bool("dry-run", false, "print each test's engine command line and exit")
	verbose := fs.Bool("v", false, "print check details for passing tests too")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	misuse := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "meerkat-verify: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return misuse("unexpected argument %q (see -h)", fs.Arg(0))
	}
	if *updateRatchet && *ratchet == "" {
		return misuse("--update-ratchet needs --ratchet FILE")
	}
	if *jobs < 1 {
		return misuse("-j must be at least 1")
	}
	ver, err := verify.ParseVersion(*version)
	if err != nil {
		return misuse("--suricata-version: %v", err)
	}
	var re *regexp.Regexp
	if *filter != "" {
		if re, err = regexp.Compile(*filter); err != nil {
			return misuse("--filter: %v", err)
		}
	}

	root := *repo
	if root == "" {
		root = findRepo()
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return misuse("%v", err)
	}
	if len(testsDirs) == 0 {
		for _, d := range defaultTestDirs {
			testsDirs = append(testsDirs, filepath.Join(root, "..", "shared", "conformance", d))
		}
	}
	// A folder that does not exist is skipped (the corpus may come without tests-next);
	// the same folder named twice counts once.
	var tdirs, missing []string
	for _, d := range testsDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return misuse("%v", err)
		}
		if slices.Contains(tdirs, abs) || slices.Contains(missing, abs) {
			continue
		}
		if _, err := os.Stat(abs); os.IsNotExist(err) {
			missing = append(missing, abs)
			continue
		}
		tdirs = append(tdirs, abs)
	}
	if len(tdirs) == 0 {
		return misuse("cannot read tests: no test folder found (%s; use --tests DIR)", strings.Join(missing, ", "))
	}
	for _, d := range missing {
		fmt.Fprintf(stderr, "meerkat-verify: test folder %s not found, skipped\n", d)
	}
	all, err := verify.DiscoverAll(tdirs)
	if err != nil {
		return misuse("cannot read tests: %v (use --tests DIR)", err)
	}
	discovered := map[string]bool{}
	var tests []verify.Test
	for _, t := range all {
		discovered[t.Name] = true
		if re == nil || re.MatchString(t.Name) {
			tests = append(tests, t)
		}
	}
	if *list {
		for _, t := range tests {
			fmt.Fprintln(stdout, t.Name)
		}
		return 0
	}

	enginePath, engineErr := findEngine(*engine, root)
	var feats []string
	switch *features {
	case "":
		if engineErr == nil {
			feats, _ = verify.EngineFeatures(ctx, enginePath)
		}
	case "none":
	default:
		feats = strings.FieldsFunc(*features, func(r rune) bool { return r == ',' || r == ' ' })
	}
	if engineErr != nil && !*dryRun {
		return misuse("%v", engineErr)
	}

	var listed []string
	if *ratchet != "" && !*dryRun {
		if listed, err = verify.ReadRatchet(*ratchet); err != nil {
			return misuse("--ratchet: %v", err)
		}
	}

	out := *outRoot
	ownTemp := false // out is a temporary directory of this run: removed unless the run fails
	if out == "" {
		if *dryRun {
			out = filepath.Join(os.TempDir(), "meerkat-verify-dry-run")
		} else if out, err = os.MkdirTemp("", "meerkat-verify-"); err != nil {
			return misuse("%v", err)
		} else {
			ownTemp = true
		}
	}
	if out, err = filepath.Abs(out); err != nil {
		return misuse("%v", err)
	}
	for _, forbidden := range append(slices.Clone(tdirs), filepath.Join(root, "..", "shared")) {
		if within(out, forbidden) {
			return misuse("--out %s is inside %s, which must stay untouched", out, forbidden)
		}
	}

	cfg := verify.NewEngineConfig(enginePath, root, ver)
	runner := verify.NewRunner(verify.Options{
		Engine:   cfg,
		Platform: verify.NewPlatform(ver, feats, root),
		OutRoot:  out,
		Timeout:  timeout.d,
		Jobs:     *jobs,
	})

	if *dryRun {
		for _, t := range tests {
			p, res := runner.Prepare(ctx, t)
			if res != nil {
				fmt.Fprintf(stdout, "%-5s %s: %s\n", res.Verdict, t.Name, res.Reason)
				continue
			}
			fmt.Fprintf(stdout, "RUN   %s: %s\n", t.Name, p.Invocation)
		}
		return 0
	}

	for _, f := range []string{cfg.DefaultConfig, cfg.Classification, cfg.ReferenceConfig} {
		if _, err := os.Stat(f); err != nil {
			fmt.Fprintf(stderr, "meerkat-verify: warning: %s does not exist; tests without their own copy will fail\n", f)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return misuse("%v", err)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	fmt.Fprintf(w, "meerkat-verify: %d tests from %s, engine %s, claimed Suricata %s, features [%s], output %s\n",
		len(tests), strings.Join(tdirs, ", "), enginePath, ver, strings.Join(feats, " "), out)
	w.Flush()
	start := time.Now()
	all2 := runner.RunAll(ctx, tests, func(r *verify.TestResult) {
		printResult(w, r, *verbose)
		w.Flush()
	})
	if ctx.Err() != nil {
		fmt.Fprintln(w, "interrupted")
	}
	sum := verify.Summarize(all2)

	if *jsonOut != "" {
		doc := results{SuricataVersion: ver.String(), Features: feats, Engine: enginePath, TestsDir: tdirs[0], TestsDirs: tdirs, OutDir: out,
			Summary: map[string]int{"passed": sum.Passed, "failed": sum.Failed, "errors": sum.Errors, "skipped": sum.Skipped},
			Results: all2}
		if doc.Features == nil {
			doc.Features = []string{}
		}
		data, err := json.MarshalIndent(doc, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonOut, append(data, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "meerkat-verify: --json: %v\n", err)
		}
	}
	if *report {
		fmt.Fprintln(w)
		verify.WriteReport(w, all2)
		fmt.Fprintln(w)
	}

	code := 0
	if *ratchet != "" {
		o := verify.CheckRatchetPartial(listed, discovered, all2, len(missing) > 0)
		if o.Failed() {
			code = 1
			fmt.Fprintf(w, "ratchet: %d regression(s): tests listed in %s that do not pass:\n", len(o.Regressions), *ratchet)
			for _, r := range o.Regressions {
				v := string(r.Verdict)
				if v == "" {
					v = "MISSING"
				}
				fmt.Fprintf(w, "  %s %s: %s\n", v, r.Name, r.Reason)
			}
		}
		if len(o.NotSelected) > 0 {
			fmt.Fprintf(w, "ratchet: %d listed test(s) not selected by --filter, not checked\n", len(o.NotSelected))
		}
		if len(o.Unavailable) > 0 {
			fmt.Fprintf(w, "ratchet: %d listed test(s) not found while a test folder is missing, not checked: %s\n",
				len(o.Unavailable), strings.Join(o.Unavailable, " "))
		}
		if len(o.NewlyPassing) > 0 {
			if *updateRatchet {
				if err := verify.AppendRatchet(*ratchet, o.NewlyPassing); err != nil {
					fmt.Fprintf(stderr, "meerkat-verify: --update-ratchet: %v\n", err)
					code = 2
				} else {
					fmt.Fprintf(w, "ratchet: added %d newly passing test(s) to %s: %s\n", len(o.NewlyPassing), *ratchet, strings.Join(o.NewlyPassing, " "))
				}
			} else {
				fmt.Fprintf(w, "ratchet: add these to %s (or rerun with --update-ratchet): %s\n", *ratchet, strings.Join(o.NewlyPassing, " "))
			}
		}
		if !o.Failed() {
			fmt.Fprintf(w, "ratchet: ok (%d listed)\n", len(listed))
		}
	}
	if ownTemp && code == 0 {
		// A temporary output directory is only worth keeping to look into a failed run; --out
		// keeps it in every case.
		if err := os.RemoveAll(out); err != nil {
			fmt.Fprintf(stderr, "meerkat-verify: removing %s: %v\n", out, err)
		}
		fmt.Fprintf(w, "output removed (--out DIR keeps it); %.1fs\n", time.Since(start).Seconds())
	} else {
		fmt.Fprintf(w, "output in %s; %.1fs\n", out, time.Since(start).Seconds())
	}
	if sum.Errors > 0 {
		fmt.Fprintf(w, "%d errors (counted as failed)\n", sum.Errors)
	}
	fmt.Fprintln(w, sum.Line())
	return code
}

// printResult writes one test's verdict and, for non-passing tests, every
// failing check with expected and observed values.
func printResult(w io.Writer, r *verify.TestResult, verbose bool) {
	switch r.Verdict {
	case verify.Pass:
		extra := ""
		if r.Reason != "" {
			extra = " (" + r.Reason + ")"
		}
		fmt.Fprintf(w, "PASS  %s%s\n", r.Name, extra)
	case verify.Skip:
		fmt.Fprintf(w, "SKIP  %s: %s\n", r.Name, r.Reason)
		return
	default:
		fmt.Fprintf(w, "%-5s %s: %s\n", r.Verdict, r.Name, r.Reason)
	}
	if r.Verdict == verify.Pass && !verbose {
		return
	}
	seenErr := map[string]int{}
	for _, c := range r.Checks {
		if c.Status == verify.CheckPass && !verbose {
			continue
		}
		if c.Status == verify.CheckError {
			// The same error (e.g. eve.json was not written) is printed once.
			seenErr[c.Observed]++
			if seenErr[c.Observed] > 1 {
				continue
			}
		}
		switch c.Status {
		case verify.CheckPass:
			fmt.Fprintf(w, "      check %d %s ok: %s\n", c.Index, c.Kind, c.Summary)
		case verify.CheckSkip:
			fmt.Fprintf(w, "      check %d %s skipped: %s\n", c.Index, c.Kind, c.Observed)
		default:
			fmt.Fprintf(w, "      check %d %s %s: %s\n", c.Index, c.Kind, strings.ToUpper(string(c.Status)), c.Summary)
			fmt.Fprintf(w, "        expected: %s\n        observed: %s\n", c.Expected, c.Observed)
			if c.Detail != "" {
				fmt.Fprintf(w, "        %s\n", c.Detail)
			}
		}
	}
	for msg, n := range seenErr {
		if n > 1 {
			fmt.Fprintf(w, "      (%d more checks: %s)\n", n-1, msg)
		}
	}
	if r.Verdict == verify.Pass {
		return
	}
	if r.Invocation != nil {
		fmt.Fprintf(w, "      command: %s\n", r.Invocation)
	}
	for _, u := range r.Unsupported {
		fmt.Fprintf(w, "      engine: %s\n", u)
	}
	if r.Verdict == verify.Error && len(r.StderrTail) > 0 {
		fmt.Fprintln(w, "      stderr (tail):")
		for _, l := range r.StderrTail {
			fmt.Fprintf(w, "        %s\n", l)
		}
	}
}

// reportCmd prints the cause report of a --json results file.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: meerkat-verify report RESULTS.json")
		return 2
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "meerkat-verify: %v\n", err)
		return 2
	}
	var doc results
	if err := json.Unmarshal(data, &doc); err != nil {
		fmt.Fprintf(stderr, "meerkat-verify: %s: %v\n", args[0], err)
		return 2
	}
	verify.WriteReport(stdout, doc.Results)
	fmt.Fprintln(stdout, verify.Summarize(doc.Results).Line())
	return 0
}

// findRepo walks up from the working directory to the directory whose
// go.mod declares this module; it falls back to the working directory.
func findRepo() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == modulePath {
					return dir
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}

// findEngine resolves the engine binary: the flag, else <repo>/bin/meerkat
// (where make build puts it), else <repo>/meerkat, else meerkat on PATH.
func findEngine(flagVal, root string) (string, error) {
	if flagVal != "" {
		p, err := exec.LookPath(flagVal)
		if err != nil {
			if !strings.ContainsRune(flagVal, filepath.Separator) {
				return flagVal, fmt.Errorf("engine %q not found: %v", flagVal, err)
			}
			return flagVal, fmt.Errorf("engine %s is not an executable file (run make build)", flagVal)
		}
		return filepath.Abs(p)
	}
	candidates := []string{filepath.Join(root, "bin", "meerkat"), filepath.Join(root, "meerkat")}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	if p, err := exec.LookPath("meerkat"); err == nil {
		return filepath.Abs(p)
	}
	return candidates[0], fmt.Errorf("no engine binary: neither %s nor %s exists and meerkat is not on PATH (run make build, or pass --engine)",
		candidates[0], candidates[1])
}

// within reports whether path is dir or inside it (after resolving
// symlinks where possible).
func within(path, dir string) bool {
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(resolve(dir), resolvePartial(path, resolve))
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// resolvePartial resolves symlinks of the longest existing prefix of path.
func resolvePartial(path string, resolve func(string) string) string {
	path = filepath.Clean(path)
	var rest []string
	for p := path; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			out := resolve(p)
			for i := len(rest) - 1; i >= 0; i-- {
				out = filepath.Join(out, rest[i])
			}
			return out
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = append(rest, filepath.Base(p))
	}
}
