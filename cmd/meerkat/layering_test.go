package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// stages places every package of the module on the data path (README, "Layout"): a package
// may import packages of its own stage or an earlier one, never a later one. Stage 0 holds the
// shared vocabulary every stage may use (the decoded packet, configuration, parsed rules,
// actions). A package missing here fails the test, so a new package gets its place on purpose.
var stages = map[string]int{
	"decode": 0, "config": 0, "rules": 0, "alert": 0,
	"capture": 1,
	"defrag":  2, "flow": 2,
	"stream":   3,
	"applayer": 4, "applayer/protocols": 4, "applayer/dcerpc": 4, "applayer/dns": 4, "applayer/ftp": 4, "applayer/http": 4, "applayer/http2": 4, "applayer/smtp": 4, "applayer/ssh": 4, "applayer/telnet": 4, "applayer/http/uri": 4, "applayer/http/decompress": 4,
	"applayer/tls": 4, "applayer/tls/cert": 4, "applayer/tls/ja": 4, "applayer/tls/ja/tlspcap": 4, "detect/transform": 5, "detect/txtest": 5, "detect/txhttp": 5,
	// stage 4: applayer and applayer/<proto> (to come).
	"detect/pcre": 5, "prefilter/candidates": 5, "prefilter/hs": 5, "prefilter/broad": 5, "prefilter/header": 5,
	"detect": 5, "detect/dataset": 5, "detect/match": 5, "detect/payload": 5, "detect/threshold": 5, "firewall": 5,
	"reject":      6,
	"output":      7,
	"pipeline":    8,
	"cmd/meerkat": 9, "cmd/meerkat-verify": 9, "verify": 9, "pcaps/gen": 9, "pcaps/genhttp": 9,
	"bench": 9, "bench/gen-broad": 9, "bench/gen-firewall": 9, "bench/gen-rules": 9,
	"bench/gen-traffic": 9, "bench/plot": 9, "bench/readloop": 9, "bench/order-loop": 9,
}

// forbidden are imports the design rules out by name (DESIGN.md's package table): detect
// writes no output, flow knows nothing of rules or detection.
var forbidden = map[string][]string{
	"detect": {"output"},
	"flow":   {"rules", "detect", "detect/match", "detect/payload", "detect/threshold", "prefilter/broad"},
	"stream": {"rules", "detect", "detect/match", "detect/payload", "prefilter/broad"},
}

// TestImportDirection reads the module's import graph (go list, non-test imports) and fails
// on an import against the data path or a forbidden one, directly or through other packages.
func TestImportDirection(t *testing.T) {
	const module = "github.com/meerkat-ids/meerkat/"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var pkg struct {
			ImportPath    string
			Imports, Deps []string
		}
		if err := dec.Decode(&pkg); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(pkg.ImportPath, module)
		stage, ok := stages[name]
		if !ok {
			t.Errorf("package %s has no stage on the data path: add it to stages", name)
			continue
		}
		seen++
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if s, known := stages[dep]; known && s > stage {
				t.Errorf("%s (stage %d) imports %s (stage %d), later on the data path", name, stage, dep, s)
			}
		}
		for _, bad := range forbidden[name] {
			for _, dep := range pkg.Deps {
				if dep == module+bad {
					t.Errorf("%s depends on %s", name, bad)
				}
			}
		}
	}
	if seen < len(forbidden) {
		t.Fatalf("go list listed %d packages", seen)
	}
}
