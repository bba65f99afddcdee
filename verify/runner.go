package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Verdict is the outcome of one test.
type Verdict string

// Test verdicts. ERROR covers engine crashes, timeouts, wrong exit codes,
// missing output files and malformed tests; it counts as failed.
const (
	Pass  Verdict = "PASS"
	Fail  Verdict = "FAIL"
	Skip  Verdict = "SKIP"
	Error Verdict = "ERROR"
)

// TestResult is the full outcome of one test.
type TestResult struct {
	// Name is the test name.
	Name string `json:"name"`
	// Dir is the test folder.
	Dir string `json:"dir"`
	// Verdict is PASS, FAIL, SKIP or ERROR.
	Verdict Verdict `json:"verdict"`
	// Reason is a one-line explanation for FAIL, SKIP and ERROR.
	Reason string `json:"reason,omitempty"`
	// Causes group this result in the report.
	Causes []string `json:"causes,omitempty"`
	// Invocation is how the engine was (or would be) started.
	Invocation *Invocation `json:"invocation,omitempty"`
	// OutputDir is where the engine wrote its files.
	OutputDir string `json:"output_dir,omitempty"`
	// ExitCode is the engine's exit status of the last run (nil if not run
	// or killed by a signal).
	ExitCode *int `json:"exit_code,omitempty"`
	// ExpectedExitCode is test.yaml's exit-code.
	ExpectedExitCode int `json:"expected_exit_code"`
	// Signal names the signal that killed the engine, if any.
	Signal string `json:"signal,omitempty"`
	// TimedOut is set when the engine ran past the timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Attempts counts retry attempts performed.
	Attempts int `json:"attempts,omitempty"`
	// Runs counts the engine runs of the last attempt (count:).
	Runs int `json:"runs,omitempty"`
	// Seconds is the wall time spent on the test.
	Seconds float64 `json:"seconds"`
	// Checks are the per-check outcomes of the last run.
	Checks []CheckResult `json:"checks,omitempty"`
	// Unsupported are engine stderr lines saying something is not
	// supported or not implemented yet.
	Unsupported []string `json:"unsupported,omitempty"`
	// StderrTail is the end of the engine's stderr for failed runs.
	StderrTail []string `json:"stderr_tail,omitempty"`
}

// Options configure a Runner.
type Options struct {
	// Engine says where meerkat and its stock files are.
	Engine *EngineConfig
	// Platform is what requires/skip are evaluated against.
	Platform *Platform
	// OutRoot holds one output directory per test (<OutRoot>/<name>).
	OutRoot string
	// Timeout bounds each engine run (default 60 s).
	Timeout time.Duration
	// Jobs is the number of tests run at once (default GOMAXPROCS).
	Jobs int
	// BaseEnv is the environment inherited by the engine (default
	// os.Environ()).
	BaseEnv []string
}

// Runner runs tests.
type Runner struct {
	opts Options
}

// NewRunner returns a Runner with defaults filled in.
func NewRunner(opts Options) *Runner {
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	if opts.BaseEnv == nil {
		opts.BaseEnv = os.Environ()
	}
	return &Runner{opts: opts}
}

// Plan is everything decided about a test before the engine runs.
type Plan struct {
	// Test is the test folder.
	Test Test
	// Spec is its parsed test.yaml.
	Spec *Spec
	// OutDir is its output directory.
	OutDir string
	// Pcap is the capture passed with -r ("" for none).
	Pcap string
	// Invocation is the engine command of every run.
	Invocation *Invocation
	// Env is the engine's environment.
	Env []string
	// CheckSkips holds, per check, why it is skipped (nil: it runs).
	CheckSkips []*SkipReason
}

// Prepare reads a test and decides whether it runs. It returns either a plan
// or a final result (SKIP or ERROR) when the test cannot run.
func (r *Runner) Prepare(ctx context.Context, t Test) (*Plan, *TestResult) {
	res := &TestResult{Name: t.Name, Dir: t.Dir}
	errorf := func(cause, format string, a ...any) (*Plan, *TestResult) {
		res.Verdict = Error
		res.Reason = fmt.Sprintf(format, a...)
		res.Causes = []string{cause}
		return nil, res
	}
	skip := func(s *SkipReason) (*Plan, *TestResult) {
		res.Verdict = Skip
		res.Reason = s.Reason
		res.Causes = []string{s.Cause}
		return nil, res
	}
	spec, err := LoadSpec(t.Dir)
	if err != nil {
		return errorf("malformed test.yaml", "%v", err)
	}
	res.ExpectedExitCode = spec.ExitCode
	outDir := filepath.Join(r.opts.OutRoot, t.Name)
	res.OutputDir = outDir
	p := &Plan{Test: t, Spec: spec, OutDir: outDir}
	p.Env = r.engineEnv(t, spec, outDir)
	if spec.UnixCommands {
		return skip(&SkipReason{Reason: "unix-commands (live unix-socket mode) is not supported by meerkat-verify", Cause: "unix-commands not supported"})
	}
	sr, err := r.opts.Platform.EvalRequires(ctx, spec.Requires, t.Dir, p.Env)
	if err != nil {
		return errorf("malformed requires", "%v", err)
	}
	if sr != nil {
		return skip(sr)
	}
	var config map[string]string
	if len(spec.Skip.Entries) > 0 {
		cfgPath := filepath.Join(t.Dir, "suricata.yaml")
		if _, err := os.Stat(cfgPath); err != nil {
			cfgPath = r.opts.Engine.DefaultConfig
		}
		config = EffectiveConfig(cfgPath, spec.Args)
	}
	if sr := r.opts.Platform.EvalSkip(spec.Skip, config); sr != nil {
		return skip(sr)
	}
	pcap, sr, err := PcapFor(t, spec)
	if err != nil {
		return errorf("bad pcap", "%v", err)
	}
	if sr != nil {
		return skip(sr)
	}
	p.Pcap = pcap
	skipped := 0
	var reasons []string
	for _, c := range spec.Checks {
		sr, err := r.opts.Platform.EvalRequires(ctx, c.Requires, t.Dir, p.Env)
		if err != nil {
			return errorf("malformed requires", "check %d: %v", c.Index, err)
		}
		p.CheckSkips = append(p.CheckSkips, sr)
		if sr != nil {
			skipped++
			reasons = append(reasons, sr.Reason)
		}
	}
	if len(spec.Checks) > 0 && skipped == len(spec.Checks) {
		res.Verdict = Skip
		res.Reason = "every check is skipped: " + strings.Join(dedupe(reasons), "; ")
		for _, s := range p.CheckSkips {
			res.Causes = append(res.Causes, s.Cause)
		}
		res.Causes = dedupe(res.Causes)
		return nil, res
	}
	inv, err := BuildInvocation(t, spec, r.opts.Engine, outDir, pcap)
	if err != nil {
		return errorf("bad rule files", "%v", err)
	}
	p.Invocation = inv
	return p, nil
}

// engineEnv is the inherited environment plus TZ=UTC, SRCDIR, TEST_DIR,
// OUTPUT_DIR and the test's env: entries.
func (r *Runner) engineEnv(t Test, spec *Spec, outDir string) []string {
	vars := Vars(t.Dir, outDir, r.opts.Engine.SrcDir, spec.Env)
	set := []EnvVar{{"TZ", "UTC"}, {"SRCDIR", r.opts.Engine.SrcDir}, {"TEST_DIR", t.Dir}, {"OUTPUT_DIR", outDir}}
	for _, e := range spec.Env {
		set = append(set, EnvVar{e.Name, vars[e.Name]})
	}
	override := map[string]bool{}
	for _, e := range set {
		override[e.Name] = true
	}
	env := make([]string, 0, len(r.opts.BaseEnv)+len(set))
	for _, kv := range r.opts.BaseEnv {
		name, _, _ := strings.Cut(kv, "=")
		if !override[name] {
			env = append(env, kv)
		}
	}
	for _, e := range set {
		env = append(env, e.Name+"="+e.Value)
	}
	return env
}

// RunTest prepares and runs one test.
func (r *Runner) RunTest(ctx context.Context, t Test) *TestResult {
	start := time.Now()
	p, res := r.Prepare(ctx, t)
	if res == nil {
		res = r.Execute(ctx, p)
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

// Execute runs a prepared test: retry attempts of count runs each.
func (r *Runner) Execute(ctx context.Context, p *Plan) *TestResult {
	var res *TestResult
	for attempt := 1; attempt <= p.Spec.Retry; attempt++ {
		for run := 1; run <= p.Spec.Count; run++ {
			res = r.runOnce(ctx, p)
			res.Attempts, res.Runs = attempt, run
			if res.Verdict != Pass {
				break
			}
		}
		if res.Verdict == Pass || res.Verdict == Skip || ctx.Err() != nil {
			break
		}
	}
	return res
}

var (
	unsupportedRe = regexp.MustCompile(`(?i)not (supported|implemented) yet`)
	panicRe       = regexp.MustCompile(`(?m)^(panic: |fatal error: |SIGSEGV|runtime: )`)
)

// runOnce performs one engine run and its checks.
func (r *Runner) runOnce(ctx context.Context, p *Plan) *TestResult {
	res := &TestResult{Name: p.Test.Name, Dir: p.Test.Dir, Invocation: p.Invocation,
		OutputDir: p.OutDir, ExpectedExitCode: p.Spec.ExitCode}
	errorf := func(cause, format string, a ...any) *TestResult {
		res.Verdict = Error
		res.Reason = fmt.Sprintf(format, a...)
		res.Causes = append([]string{cause}, res.Causes...)
		return res
	}
	if err := os.RemoveAll(p.OutDir); err != nil {
		return errorf("runner error", "cannot empty output dir: %v", err)
	}
	if err := os.MkdirAll(p.OutDir, 0o755); err != nil {
		return errorf("runner error", "cannot create output dir: %v", err)
	}
	rctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	for i, script := range p.Spec.Setup {
		if out, err := r.shell(rctx, p, script); err != nil {
			return errorf("setup script failed", "setup script %d failed: %v: %s", i+1, err, truncate(out, 300))
		}
	}

	var cmd *exec.Cmd
	if p.Invocation.Shell != "" {
		cmd = exec.CommandContext(rctx, "/bin/sh", "-c", p.Invocation.Shell)
	} else {
		cmd = exec.CommandContext(rctx, p.Invocation.Argv[0], p.Invocation.Argv[1:]...)
	}
	cmd.Dir = r.opts.Engine.SrcDir
	cmd.Env = p.Env
	stdout, err := os.Create(filepath.Join(p.OutDir, "stdout"))
	if err != nil {
		return errorf("runner error", "%v", err)
	}
	stderr, err := os.Create(filepath.Join(p.OutDir, "stderr"))
	if err != nil {
		stdout.Close()
		return errorf("runner error", "%v", err)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	runErr := cmd.Run()
	stdout.Close()
	stderr.Close()

	errText, _ := readTail(filepath.Join(p.OutDir, "stderr"), 1<<20)
	res.Unsupported, res.Causes = unsupportedLines(errText)
	tail := func() {
		lines := strings.Split(strings.TrimRight(errText, "\n"), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		if len(lines) == 1 && lines[0] == "" {
			lines = nil
		}
		res.StderrTail = lines
	}

	if runErr != nil && rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		res.TimedOut = true
		tail()
		return errorf("timeout", "engine timed out after %s", r.opts.Timeout)
	}
	if ctx.Err() != nil {
		return errorf("interrupted", "interrupted")
	}
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return errorf("engine did not start", "cannot start engine: %v", runErr)
		}
	}
	code, sig := exitInfo(cmd.ProcessState)
	if sig != "" {
		res.Signal = sig
		tail()
		return errorf("engine crashed (signal "+sig+")", "engine killed by signal %s", sig)
	}
	res.ExitCode = &code
	if m := panicRe.FindStringIndex(errText); m != nil {
		tail()
		line, _, _ := strings.Cut(errText[m[0]:], "\n")
		return errorf("engine crashed (Go panic)", "engine crashed (exit %d): %s", code, truncate(line, 200))
	}
	if code != p.Spec.ExitCode {
		tail()
		cause := fmt.Sprintf("exit code %d, expected %d", code, p.Spec.ExitCode)
		if code != 0 {
			// The engine refused to start: name what it could not load.
			for i, c := range res.Causes {
				if strings.HasPrefix(c, "keyword ") {
					res.Causes[i] = "rule load failed: " + c
				}
			}
		}
		if len(res.Causes) == 0 {
			if msg := firstErrorLine(errText); msg != "" {
				res.Causes = append(res.Causes, "start-up failed: "+msg)
			}
		}
		return errorf(cause, "engine exited with %d, expected %d%s", code, p.Spec.ExitCode, lastLineHint(res.StderrTail))
	}
	if p.Spec.PreCheck != "" {
		if out, err := r.shell(rctx, p, p.Spec.PreCheck); err != nil {
			tail()
			return errorf("pre-check failed", "pre-check failed: %v: %s", err, truncate(out, 300))
		}
	}

	outs := NewOutputs(p.OutDir)
	cenv := &CheckEnv{Ctx: rctx, TestDir: p.Test.Dir, OutDir: p.OutDir, Env: p.Env}
	var failed, errored, skipped int
	firstFail, firstErr := -1, -1
	var checkCauses []string
	for i, c := range p.Spec.Checks {
		if sr := p.CheckSkips[i]; sr != nil {
			res.Checks = append(res.Checks, CheckResult{Index: c.Index, Kind: string(c.Kind), Status: CheckSkip, Observed: sr.Reason})
			skipped++
			continue
		}
		cr := c.Evaluate(outs, cenv)
		res.Checks = append(res.Checks, cr)
		switch cr.Status {
		case CheckFail:
			failed++
			if firstFail < 0 {
				firstFail = len(res.Checks) - 1
			}
		case CheckError:
			errored++
			if firstErr < 0 {
				firstErr = len(res.Checks) - 1
			}
		}
		if cr.Status == CheckFail || cr.Status == CheckError {
			checkCauses = append(checkCauses, cr.Causes...)
		}
	}
	// Check causes come first; engine "not supported yet" lines follow.
	res.Causes = dedupe(append(checkCauses, res.Causes...))
	switch {
	case errored > 0:
		tail()
		res.Verdict = Error
		firstBad := &res.Checks[firstErr]
		same := 0
		for _, c := range res.Checks {
			if c.Status == CheckError && c.Observed == firstBad.Observed {
				same++
			}
		}
		if same > 1 {
			res.Reason = fmt.Sprintf("%s (needed by %d checks)", firstBad.Observed, same)
		} else {
			res.Reason = fmt.Sprintf("check %d (%s): %s", firstBad.Index, firstBad.Kind, firstBad.Observed)
		}
	case failed > 0:
		tail()
		res.Verdict = Fail
		firstBad := &res.Checks[firstFail]
		res.Reason = fmt.Sprintf("%d of %d checks failed; first: check %d (%s) expected %s, observed %s",
			failed, len(p.Spec.Checks)-skipped, firstBad.Index, firstBad.Kind, firstBad.Expected, firstBad.Observed)
	default:
		res.Verdict = Pass
		res.Causes = nil
		if skipped > 0 {
			res.Reason = fmt.Sprintf("%d of %d checks skipped", skipped, len(p.Spec.Checks))
		}
	}
	return res
}

// shell runs a setup or pre-check snippet in the output dir.
func (r *Runner) shell(ctx context.Context, p *Plan, script string) (string, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = p.OutDir
	cmd.Env = p.Env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	setProcessGroup(cmd)
	err := cmd.Run()
	return out.String(), err
}

// readTail reads at most the last max bytes of a file.
func readTail(path string, max int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	off := int64(0)
	if st.Size() > max {
		off = st.Size() - max
	}
	buf := make([]byte, st.Size()-off)
	_, err = f.ReadAt(buf, off)
	return string(buf), err
}

// unsupportedLines returns the stderr lines that say something is not
// supported or implemented yet, and one report cause for each distinct
// thing named.
func unsupportedLines(stderr string) (lines, causes []string) {
	if !unsupportedRe.MatchString(stderr) {
		return nil, nil
	}
	for _, l := range strings.Split(stderr, "\n") {
		if unsupportedRe.MatchString(l) {
			l = strings.TrimSpace(l)
			lines = append(lines, l)
			causes = append(causes, UnsupportedCause(l))
		}
	}
	return dedupe(lines), dedupe(causes)
}

var (
	// "<kind> <name> [is|are] not supported yet", the name optionally quoted.
	unsupportedNameRe = regexp.MustCompile("(?i)(?:\\b([A-Za-z-]+)[ \t]+)?[\"'`]?([^\\s\"'`]+?)[\"'`]?:?[ \t]+(?:is[ \t]+|are[ \t]+)?not[ \t]+(supported|implemented)[ \t]+yet")
	// "not supported yet: <name>".
	unsupportedAfterRe = regexp.MustCompile("(?i)not[ \t]+(supported|implemented)[ \t]+yet[ \t]*[:-][ \t]*[\"'`]?([^\\s\"'`,;]+)")
	// "keyword <name>" anywhere on the line.
	keywordRe    = regexp.MustCompile("(?i)\\b(keyword|option|setting|protocol|parser|decoder|output|feature|runmode|action|transform|buffer)[ \t:]+[\"'`]?([A-Za-z0-9_.:-]+)[\"'`]?")
	genericWords = map[string]bool{"is": true, "are": true, "this": true, "it": true, "that": true, "yet": true, "feature": true,
		"keyword": true, "option": true, "setting": true, "mode": true}
	pathRe   = regexp.MustCompile(`(?:/[^\s:'"]+)+`)
	numberRe = regexp.MustCompile(`\b\d+\b`)
)

// UnsupportedCause turns an engine message such as
// `test.rules:3: keyword "flowbits" is not supported yet` into a report
// cause such as `keyword flowbits is not supported yet`: the thing named
// (after a word like keyword/option/protocol, or right before "not
// supported yet", or right after it), or else the message with paths and
// numbers blanked.
func UnsupportedCause(line string) string {
	what := "not supported yet"
	if m := unsupportedRe.FindStringSubmatch(line); m != nil && strings.EqualFold(m[1], "implemented") {
		what = "not implemented yet"
	}
	if m := keywordRe.FindStringSubmatch(line); m != nil {
		return fmt.Sprintf("%s %s is %s", strings.ToLower(m[1]), m[2], what)
	}
	if m := unsupportedNameRe.FindStringSubmatch(line); m != nil && !genericWords[strings.ToLower(m[2])] {
		return fmt.Sprintf("%s is %s", strings.TrimSuffix(m[2], ":"), what)
	}
	if m := unsupportedAfterRe.FindStringSubmatch(line); m != nil {
		return fmt.Sprintf("%s is %s", m[2], what)
	}
	return what + ": " + normalizeMessage(line)
}

// normalizeMessage removes the variable parts of an engine message (paths,
// numbers, log prefixes) so that equal problems group together.
func normalizeMessage(s string) string {
	s = strings.TrimSpace(s)
	// Drop a leading "[...]" / "<...>" / timestamp style prefix.
	for {
		t := strings.TrimLeft(s, " \t")
		if len(t) > 0 && (t[0] == '[' || t[0] == '<') {
			close := map[byte]byte{'[': ']', '<': '>'}[t[0]]
			if i := strings.IndexByte(t, close); i > 0 {
				s = strings.TrimLeft(t[i+1:], " \t-:")
				continue
			}
		}
		break
	}
	s = pathRe.ReplaceAllString(s, "<path>")
	s = numberRe.ReplaceAllString(s, "N")
	return truncate(s, 140)
}

// firstErrorLine picks the most telling line of a failed start-up.
func firstErrorLine(stderr string) string {
	var last string
	for _, l := range strings.Split(stderr, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		last = t
		lt := strings.ToLower(t)
		if strings.Contains(lt, "error") || strings.Contains(lt, "unknown") || strings.Contains(lt, "invalid") || strings.Contains(lt, "failed") {
			return normalizeMessage(t)
		}
	}
	if last == "" {
		return ""
	}
	return normalizeMessage(last)
}

func lastLineHint(tail []string) string {
	for i := len(tail) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(tail[i]); t != "" {
			return ": " + truncate(t, 200)
		}
	}
	return ""
}

func dedupe(s []string) []string {
	if len(s) < 2 {
		return s
	}
	seen := make(map[string]bool, len(s))
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// RunAll runs tests with opts.Jobs workers. done, if not nil, is called for
// every result in test order (results that finish early wait for their
// predecessors), from one goroutine at a time.
func (r *Runner) RunAll(ctx context.Context, tests []Test, done func(*TestResult)) []*TestResult {
	results := make([]*TestResult, len(tests))
	var mu sync.Mutex
	next := 0
	finished := make([]bool, len(tests))
	jobs := make(chan int)
	var wg sync.WaitGroup
	workers := r.opts.Jobs
	if workers > len(tests) {
		workers = len(tests)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res := r.RunTest(ctx, tests[i])
				mu.Lock()
				results[i] = res
				finished[i] = true
				for next < len(tests) && finished[next] {
					if done != nil {
						done(results[next])
					}
					next++
				}
				mu.Unlock()
			}
		}()
	}
	for i := range tests {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return results
}

// Summary counts verdicts.
type Summary struct {
	// Passed counts PASS.
	Passed int
	// Failed counts FAIL (not ERROR).
	Failed int
	// Skipped counts SKIP.
	Skipped int
	// Errors counts ERROR.
	Errors int
}

// Summarize counts the results.
func Summarize(results []*TestResult) Summary {
	var s Summary
	for _, r := range results {
		switch r.Verdict {
		case Pass:
			s.Passed++
		case Fail:
			s.Failed++
		case Skip:
			s.Skipped++
		case Error:
			s.Errors++
		}
	}
	return s
}

// Line is the final summary line: "N passed, M failed, K skipped", where
// errors count as failed.
func (s Summary) Line() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", s.Passed, s.Failed+s.Errors, s.Skipped)
}
