package verify

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// CauseGroup is one cause and the tests it affects.
type CauseGroup struct {
	// Cause is the shared cause.
	Cause string `json:"cause"`
	// Tests are the affected tests, sorted.
	Tests []string `json:"tests"`
}

// GroupCauses groups FAIL/ERROR results (problems) and SKIP results (skips)
// by cause, largest group first. A test appears once under each of its
// causes; one without causes is listed under "(unclassified)".
func GroupCauses(results []*TestResult) (problems, skips []CauseGroup) {
	prob := map[string][]string{}
	sk := map[string][]string{}
	for _, r := range results {
		var m map[string][]string
		switch r.Verdict {
		case Fail, Error:
			m = prob
		case Skip:
			m = sk
		default:
			continue
		}
		causes := dedupe(r.Causes)
		if len(causes) == 0 {
			causes = []string{"(unclassified)"}
		}
		for _, c := range causes {
			m[c] = append(m[c], r.Name)
		}
	}
	return sortGroups(prob), sortGroups(sk)
}

func sortGroups(m map[string][]string) []CauseGroup {
	out := make([]CauseGroup, 0, len(m))
	for c, t := range m {
		sort.Strings(t)
		out = append(out, CauseGroup{Cause: c, Tests: t})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Tests) != len(out[j].Tests) {
			return len(out[i].Tests) > len(out[j].Tests)
		}
		return out[i].Cause < out[j].Cause
	})
	return out
}

// WriteReport prints the failures, errors and skips grouped by cause, so
// that the most common missing piece of the engine comes first.
func WriteReport(w io.Writer, results []*TestResult) {
	s := Summarize(results)
	fmt.Fprintf(w, "Report: %d tests: %d passed, %d failed, %d errors, %d skipped\n",
		len(results), s.Passed, s.Failed, s.Errors, s.Skipped)
	problems, skips := GroupCauses(results)
	verdict := map[string]Verdict{}
	for _, r := range results {
		verdict[r.Name] = r.Verdict
	}
	if len(problems) > 0 {
		fmt.Fprintln(w, "\nFailures and errors by cause (a test may be listed under several causes):")
		for _, g := range problems {
			nerr := 0
			for _, t := range g.Tests {
				if verdict[t] == Error {
					nerr++
				}
			}
			kind := ""
			if nerr > 0 {
				kind = fmt.Sprintf(", %d errors", nerr)
			}
			fmt.Fprintf(w, "  %s (%d tests%s)\n", g.Cause, len(g.Tests), kind)
			fmt.Fprintf(w, "      %s\n", wrapNames(g.Tests, 8))
		}
	}
	if len(skips) > 0 {
		fmt.Fprintln(w, "\nSkips by cause:")
		for _, g := range skips {
			fmt.Fprintf(w, "  %s (%d tests)\n", g.Cause, len(g.Tests))
			fmt.Fprintf(w, "      %s\n", wrapNames(g.Tests, 8))
		}
	}
}

// wrapNames lists up to max names and says how many more there are.
func wrapNames(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, ... (%d more)", strings.Join(names[:max], ", "), len(names)-max)
}
