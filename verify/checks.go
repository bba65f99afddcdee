package verify

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// CheckStatus is the outcome of one check.
type CheckStatus string

// Check outcomes. CheckError means the check could not be evaluated (for
// example eve.json was not written); it makes the test an ERROR.
const (
	CheckPass  CheckStatus = "pass"
	CheckFail  CheckStatus = "fail"
	CheckSkip  CheckStatus = "skip"
	CheckError CheckStatus = "error"
)

// CheckResult is the outcome of one check with enough detail to act on it.
type CheckResult struct {
	// Index is the check's 1-based position in checks:.
	Index int `json:"index"`
	// Kind is filter, stats, shell or file-compare.
	Kind string `json:"kind"`
	// Status is pass, fail, skip or error.
	Status CheckStatus `json:"status"`
	// Summary restates the check (e.g. the match conditions).
	Summary string `json:"summary,omitempty"`
	// Expected is what the check wanted; set when it did not pass.
	Expected string `json:"expected,omitempty"`
	// Observed is what the output held instead (or, for skipped checks,
	// why they were skipped).
	Observed string `json:"observed,omitempty"`
	// Detail explains a failure further (closest event, differing line).
	Detail string `json:"detail,omitempty"`
	// Causes group failures in the report.
	Causes []string `json:"causes,omitempty"`
}

// EventFile is a JSON-lines file the engine wrote, decoded once.
type EventFile struct {
	// Events are the decoded lines (blank lines are skipped).
	Events []any
	// Lines are the 1-based line numbers of Events.
	Lines []int
	// Err is set when the file could not be read; NotExist when absent.
	Err error
	// BadLine is the first line that is not valid JSON (0 if none).
	BadLine int
	// BadErr is the decode error of BadLine.
	BadErr error
}

// Outputs gives checks access to the files in one run's output directory,
// decoding each JSON-lines file at most once.
type Outputs struct {
	// Dir is the output directory.
	Dir   string
	cache map[string]*EventFile
}

// NewOutputs returns an Outputs for dir.
func NewOutputs(dir string) *Outputs {
	return &Outputs{Dir: dir, cache: map[string]*EventFile{}}
}

// Events returns the decoded file name (relative to the output dir).
func (o *Outputs) Events(name string) *EventFile {
	if ef, ok := o.cache[name]; ok {
		return ef
	}
	ef := readEventFile(filepath.Join(o.Dir, name))
	o.cache[name] = ef
	return ef
}

// readEventFile decodes a JSON-lines file. Numbers keep their text
// (json.Number) so that integer and float values are not confused.
func readEventFile(path string) *EventFile {
	ef := &EventFile{}
	f, err := os.Open(path)
	if err != nil {
		ef.Err = err
		return ef
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	line := 0
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			line++
			if t := bytes.TrimSpace(b); len(t) > 0 {
				dec := json.NewDecoder(bytes.NewReader(t))
				dec.UseNumber()
				var v any
				if derr := dec.Decode(&v); derr != nil || dec.More() {
					if ef.BadLine == 0 {
						ef.BadLine = line
						if derr == nil {
							derr = errors.New("trailing data after JSON value")
						}
						ef.BadErr = derr
					}
				} else {
					ef.Events = append(ef.Events, v)
					ef.Lines = append(ef.Lines, line)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			ef.Err = err
			break
		}
	}
	return ef
}

// CheckEnv is what a check needs besides the output files.
type CheckEnv struct {
	// Ctx bounds shell checks.
	Ctx context.Context
	// TestDir is the test folder (file-compare's expected files).
	TestDir string
	// OutDir is the output directory (shell checks run there).
	OutDir string
	// Env is the environment for shell checks.
	Env []string
}

// Evaluate runs one check (its requires must already have been evaluated).
func (c *Check) Evaluate(out *Outputs, env *CheckEnv) CheckResult {
	res := CheckResult{Index: c.Index, Kind: string(c.Kind)}
	if c.Err != nil {
		res.Status = CheckError
		res.Observed = c.Err.Error()
		res.Causes = []string{"malformed check in test.yaml"}
		return res
	}
	switch c.Kind {
	case KindFilter:
		c.evalFilter(out, &res)
	case KindStats:
		c.evalStats(out, &res)
	case KindShell:
		c.evalShell(env, &res)
	case KindFileCompare:
		c.evalFileCompare(env, &res)
	}
	return res
}

// describeConds joins the conditions as written.
func describeConds(conds []Cond) string {
	parts := make([]string, len(conds))
	for i := range conds {
		parts[i] = conds[i].Describe()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// wantedEventType returns the event_type a filter asks for, if any.
func wantedEventType(conds []Cond) string {
	for _, c := range conds {
		if c.Op == OpEq && c.Key == "event_type" {
			if s, ok := c.Want.(string); ok {
				return s
			}
		}
	}
	return ""
}

func countDesc(n *int64) string {
	if n == nil {
		return "count >= 1"
	}
	return fmt.Sprintf("count %d", *n)
}

func (c *Check) evalFilter(out *Outputs, res *CheckResult) {
	res.Summary = c.Filename + " " + describeConds(c.Conds)
	ef := out.Events(c.Filename)
	if ef.Err != nil {
		res.Status = CheckError
		res.Expected = countDesc(c.Count)
		if os.IsNotExist(ef.Err) {
			res.Observed = c.Filename + " was not written"
			res.Causes = []string{"missing " + c.Filename}
		} else {
			res.Observed = "cannot read " + c.Filename + ": " + ef.Err.Error()
			res.Causes = []string{"unreadable " + c.Filename}
		}
		return
	}
	var matched []int
	for i, ev := range ef.Events {
		if matchAll(c.Conds, ev) {
			matched = append(matched, ef.Lines[i])
		}
	}
	n := int64(len(matched))
	ok := n > 0
	if c.Count != nil {
		ok = n == *c.Count
	}
	if ok && ef.BadLine == 0 {
		res.Status = CheckPass
		return
	}
	res.Status = CheckFail
	res.Expected = countDesc(c.Count)
	res.Observed = fmt.Sprintf("count %d", n)
	var details []string
	if ef.BadLine != 0 {
		details = append(details, fmt.Sprintf("%s line %d is not valid JSON: %v", c.Filename, ef.BadLine, ef.BadErr))
		res.Causes = append(res.Causes, "invalid JSON in "+c.Filename)
		if ok {
			res.Status = CheckFail
			res.Detail = strings.Join(details, "; ")
			return
		}
	}
	et := wantedEventType(c.Conds)
	ofType := 0
	if et != "" {
		for _, ev := range ef.Events {
			if s, _ := eventType(ev); s == et {
				ofType++
			}
		}
		details = append(details, fmt.Sprintf("%d of %d lines have event_type %q", ofType, len(ef.Events), et))
	}
	label := et
	if label == "" {
		label = "any"
	}
	expectMore := c.Count == nil || n < *c.Count
	switch {
	case et != "" && ofType == 0 && expectMore:
		res.Causes = append(res.Causes, fmt.Sprintf("missing event_type %s", et))
	case expectMore:
		// Find the closest event: the one meeting most conditions.
		best, bestScore := -1, -1
		for i, ev := range ef.Events {
			if et != "" {
				if s, _ := eventType(ev); s != et {
					continue
				}
			}
			score := 0
			for j := range c.Conds {
				if c.Conds[j].Match(ev) {
					score++
				}
			}
			if score < len(c.Conds) && score > bestScore {
				best, bestScore = i, score
			}
		}
		if best >= 0 {
			ev := ef.Events[best]
			var fails, missing []string
			for j := range c.Conds {
				cd := &c.Conds[j]
				if cd.Match(ev) {
					continue
				}
				fails = append(fails, fmt.Sprintf("wants %s, has %s", cd.Describe(), cd.ObservedIn(ev)))
				if cd.missingIn(ev) {
					for _, p := range cd.Paths {
						missing = append(missing, p.String())
					}
				}
			}
			details = append(details, fmt.Sprintf("closest line %d: %s", ef.Lines[best], strings.Join(fails, "; ")))
			if len(missing) > 0 {
				sort.Strings(missing)
				res.Causes = append(res.Causes, fmt.Sprintf("missing field(s) in %s events: %s", label, strings.Join(missing, ", ")))
			} else {
				res.Causes = append(res.Causes, fmt.Sprintf("wrong count: too few matching %s events", label))
			}
		} else {
			res.Causes = append(res.Causes, fmt.Sprintf("wrong count: too few matching %s events", label))
		}
	default:
		shown := matched
		if len(shown) > 10 {
			shown = shown[:10]
		}
		s := make([]string, len(shown))
		for i, l := range shown {
			s[i] = fmt.Sprint(l)
		}
		more := ""
		if len(matched) > len(shown) {
			more = ", ..."
		}
		details = append(details, fmt.Sprintf("matching lines: %s%s", strings.Join(s, ", "), more))
		res.Causes = append(res.Causes, fmt.Sprintf("wrong count: too many matching %s events", label))
	}
	res.Detail = strings.Join(details, "; ")
}

func matchAll(conds []Cond, ev any) bool {
	for i := range conds {
		if !conds[i].Match(ev) {
			return false
		}
	}
	return true
}

func eventType(ev any) (string, bool) {
	m, ok := ev.(map[string]any)
	if !ok {
		return "", false
	}
	s, ok := m["event_type"].(string)
	return s, ok
}

func (c *Check) evalStats(out *Outputs, res *CheckResult) {
	res.Summary = "last stats record " + describeConds(c.Conds)
	ef := out.Events("eve.json")
	if ef.Err != nil {
		res.Status = CheckError
		res.Expected = describeConds(c.Conds)
		res.Observed = "eve.json was not written"
		res.Causes = []string{"missing eve.json"}
		return
	}
	var last any
	line := 0
	for i := len(ef.Events) - 1; i >= 0; i-- {
		if s, _ := eventType(ef.Events[i]); s == "stats" {
			last = ef.Events[i]
			line = ef.Lines[i]
			break
		}
	}
	if last == nil {
		res.Status = CheckFail
		res.Expected = describeConds(c.Conds)
		res.Observed = "no event_type stats record in eve.json"
		res.Causes = []string{"missing event_type stats"}
		return
	}
	stats, _ := last.(map[string]any)["stats"]
	var fails []string
	for i := range c.Conds {
		cd := &c.Conds[i]
		if cd.Match(stats) {
			continue
		}
		fails = append(fails, fmt.Sprintf("wants %s, has %s", cd.Describe(), cd.ObservedIn(stats)))
		if cd.missingIn(stats) {
			for _, p := range cd.Paths {
				res.Causes = append(res.Causes, "missing stats counter "+p.String())
			}
		} else {
			res.Causes = append(res.Causes, "wrong stats value "+cd.Key)
		}
	}
	if len(fails) == 0 {
		res.Status = CheckPass
		return
	}
	res.Status = CheckFail
	res.Expected = describeConds(c.Conds)
	res.Observed = strings.Join(fails, "; ")
	res.Detail = fmt.Sprintf("stats record at eve.json line %d", line)
}

func (c *Check) evalShell(env *CheckEnv, res *CheckResult) {
	res.Summary = c.ShellArgs
	cmd := exec.CommandContext(env.Ctx, "/bin/sh", "-c", c.ShellArgs)
	cmd.Dir = env.OutDir
	cmd.Env = env.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	setProcessGroup(cmd)
	err := cmd.Run()
	got := strings.TrimSpace(stdout.String())
	if err != nil {
		res.Status = CheckFail
		res.Expected = "exit status 0"
		if c.Expect != nil {
			res.Expected += ", output " + fmt.Sprintf("%q", *c.Expect)
		}
		res.Observed = fmt.Sprintf("%v, output %q", err, got)
		if s := strings.TrimSpace(stderr.String()); s != "" {
			res.Detail = "stderr: " + truncate(s, 300)
		}
		res.Causes = []string{"shell check failed"}
		return
	}
	if c.Expect != nil && got != *c.Expect {
		res.Status = CheckFail
		res.Expected = fmt.Sprintf("%q", *c.Expect)
		res.Observed = fmt.Sprintf("%q", got)
		res.Causes = []string{"shell check output differs"}
		return
	}
	res.Status = CheckPass
}

func (c *Check) evalFileCompare(env *CheckEnv, res *CheckResult) {
	res.Summary = c.CompareFile + " == " + c.CompareExpected
	got, err := os.ReadFile(filepath.Join(env.OutDir, c.CompareFile))
	if err != nil {
		res.Status = CheckFail
		res.Expected = "file " + c.CompareFile
		res.Observed = err.Error()
		res.Causes = []string{"file-compare: output file missing"}
		return
	}
	wantPath := c.CompareExpected
	if !filepath.IsAbs(wantPath) {
		wantPath = filepath.Join(env.TestDir, wantPath)
	}
	want, err := os.ReadFile(wantPath)
	if err != nil {
		res.Status = CheckError
		res.Observed = "cannot read expected file: " + err.Error()
		res.Causes = []string{"file-compare: expected file missing"}
		return
	}
	if bytes.Equal(got, want) {
		res.Status = CheckPass
		return
	}
	res.Status = CheckFail
	res.Expected = fmt.Sprintf("%d bytes as in %s", len(want), c.CompareExpected)
	res.Observed = fmt.Sprintf("%d bytes", len(got))
	gl := strings.Split(string(got), "\n")
	wl := strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			res.Detail = fmt.Sprintf("first difference at line %d: want %q, have %q", i+1, truncate(w, 200), truncate(g, 200))
			break
		}
	}
	res.Causes = []string{"file-compare: contents differ"}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
