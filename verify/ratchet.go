package verify

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
)

// ReadRatchet reads a list of test names, one per line; blank lines and
// text after # are ignored.
func ReadRatchet(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			names = append(names, line)
		}
	}
	return dedupe(names), sc.Err()
}

// Regression is a listed test that did not pass.
type Regression struct {
	// Name is the test name.
	Name string
	// Verdict is what the test got ("" when it was not found).
	Verdict Verdict
	// Reason explains the verdict.
	Reason string
}

// RatchetOutcome compares a run with the ratchet list.
type RatchetOutcome struct {
	// Regressions are listed tests that ran and did not PASS, or that no
	// longer exist.
	Regressions []Regression
	// NotSelected are listed tests left out of this run by --filter.
	NotSelected []string
	// Unavailable are listed tests not found in a run where a test folder was missing
	// (CheckRatchetPartial): they may live there, so they are not counted as regressions.
	Unavailable []string
	// NewlyPassing are passing tests missing from the list, sorted.
	NewlyPassing []string
}

// Failed reports whether the ratchet is broken.
func (o RatchetOutcome) Failed() bool { return len(o.Regressions) > 0 }

// CheckRatchet compares results with the listed names. discovered holds the
// names of every test found (selected or not).
func CheckRatchet(listed []string, discovered map[string]bool, results []*TestResult) RatchetOutcome {
	return CheckRatchetPartial(listed, discovered, results, false)
}

// CheckRatchetPartial is CheckRatchet where partial says that some test folders were
// missing from the run: a listed test that was not discovered then goes to Unavailable
// rather than to Regressions.
func CheckRatchetPartial(listed []string, discovered map[string]bool, results []*TestResult, partial bool) RatchetOutcome {
	var o RatchetOutcome
	byName := map[string]*TestResult{}
	for _, r := range results {
		byName[r.Name] = r
	}
	inList := map[string]bool{}
	for _, n := range listed {
		inList[n] = true
		r, ran := byName[n]
		switch {
		case ran && r.Verdict != Pass:
			o.Regressions = append(o.Regressions, Regression{n, r.Verdict, r.Reason})
		case !ran && !discovered[n] && partial:
			o.Unavailable = append(o.Unavailable, n)
		case !ran && !discovered[n]:
			o.Regressions = append(o.Regressions, Regression{n, "", "test not found"})
		case !ran:
			o.NotSelected = append(o.NotSelected, n)
		}
	}
	for _, r := range results {
		if r.Verdict == Pass && !inList[r.Name] {
			o.NewlyPassing = append(o.NewlyPassing, r.Name)
		}
	}
	sort.Strings(o.NewlyPassing)
	return o
}

// AppendRatchet appends names to the list file; existing lines (and
// comments) are kept, so the list only grows.
func AppendRatchet(path string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteByte('\n')
	}
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("update %s: %w", path, err)
	}
	return nil
}
