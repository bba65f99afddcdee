// Package bench holds Meerkat's benchmark scripts, generators and recorded results; this test
// checks that every recorded result says where, when and how it was measured.
package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResultsFiles fails when a results file in results/ is not JSON or lacks the machine
// (host, CPU, cores, memory), the date (RFC 3339), the commit, the command that reproduces it,
// or the disclaimer.
func TestResultsFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("results", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no results files in bench/results")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Machine *struct {
				Host   string `json:"host"`
				CPU    string `json:"cpu"`
				Cores  int    `json:"cores"`
				Memory string `json:"memory"`
			} `json:"machine"`
			Date       string `json:"date"`
			Commit     string `json:"commit"`
			Command    string `json:"command"`
			Disclaimer string `json:"disclaimer"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Errorf("%s: not JSON: %v", path, err)
			continue
		}
		if m := r.Machine; m == nil || m.Host == "" || m.CPU == "" || m.Cores <= 0 || m.Memory == "" {
			t.Errorf("%s: machine missing or incomplete (host, cpu, cores, memory)", path)
		}
		if _, err := time.Parse(time.RFC3339, r.Date); err != nil {
			t.Errorf("%s: date %q is not an RFC 3339 time", path, r.Date)
		}
		if r.Commit == "" || r.Commit == "unknown" {
			t.Errorf("%s: no commit", path)
		}
		if !strings.Contains(r.Command, "bench/") {
			t.Errorf("%s: command %q does not name the script that reproduces it", path, r.Command)
		}
		if r.Disclaimer == "" {
			t.Errorf("%s: no disclaimer", path)
		}
	}
}
