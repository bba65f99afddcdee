package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const conformanceDir = "../../../shared/conformance/tests"

// flowFieldsMeerkatComputes are the flow-record fields the foundation computes itself; checks
// on other fields (alerted, action, app_proto) need detection or app-layer parsing.
var flowFieldsMeerkatComputes = map[string]bool{
	"event_type": true, "flow.pkts_toserver": true, "flow.pkts_toclient": true,
	"flow.bytes_toserver": true, "flow.bytes_toclient": true, "flow.state": true, "flow.reason": true,
	"flow.age": true, "tcp.state": true, "proto": true, "src_ip": true, "dest_ip": true,
	"src_port": true, "dest_port": true,
}

type verifyTest struct {
	Pcap   string   `yaml:"pcap"`
	Args   []string `yaml:"args"`
	Checks []struct {
		Filter *struct {
			Count *int           `yaml:"count"`
			Match map[string]any `yaml:"match"`
		} `yaml:"filter"`
	} `yaml:"checks"`
}

// TestFlowRecordsMatchSuricata replays the conformance captures whose expectations include
// flow records, and checks the fields Meerkat computes (packet and byte counts, states,
// tuple) against what Suricata logged for the same capture. Fields that need detection or
// app-layer parsing are left out of the comparison.
func TestFlowRecordsMatchSuricata(t *testing.T) {
	root, err := filepath.Abs(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "test.yaml"))
	if len(dirs) == 0 {
		t.Skipf("no conformance tests at %s (../shared missing)", conformanceDir)
	}
	checked := 0
	for _, ty := range dirs {
		dir := filepath.Dir(ty)
		var vt verifyTest
		data, err := os.ReadFile(ty)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &vt); err != nil {
			continue // some tests use constructs this small reader does not model
		}
		// In IPS and firewall tests, verdicts change what the stream engine sees (a dropped
		// packet does not move the TCP state), so states are compared only in IDS tests.
		verdicts := inlineTest(dir, vt.Args)
		var wants []map[string]any
		for _, c := range vt.Checks {
			if c.Filter == nil || c.Filter.Count == nil || *c.Filter.Count < 1 || c.Filter.Match["event_type"] != "flow" {
				continue
			}
			m := map[string]any{}
			for k, v := range c.Filter.Match {
				if flowFieldsMeerkatComputes[k] && !(verdicts && (k == "flow.state" || k == "tcp.state")) {
					m[k] = v
				}
			}
			if len(m) > 1 {
				wants = append(wants, m)
			}
		}
		if len(wants) == 0 {
			continue
		}
		pcap := vt.Pcap
		if pcap == "" {
			ps, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
			if len(ps) != 1 {
				continue
			}
			pcap = ps[0]
		} else {
			pcap = filepath.Join(dir, pcap)
		}
		args := []string{"-r", pcap, "--disable-detection", "--runmode", "single"}
		cfg := filepath.Join(dir, "suricata.yaml")
		if _, err := os.Stat(cfg); err != nil {
			cfg = "suricata.yaml"
		}
		args = append(args, "-c", cfg)
		for _, a := range vt.Args {
			f := strings.Fields(a)
			if len(f) > 0 && (f[0] == "-k" || f[0] == "--set") {
				args = append(args, f...)
			}
		}
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			r := runMeerkat(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			flows := ofType(r.eve, "flow")
			for _, want := range wants {
				if !anyMatches(flows, want) {
					t.Errorf("no flow record matches Suricata's %v; meerkat logged:\n%s", want, describe(flows, want))
				}
			}
		})
		checked++
	}
	if checked == 0 {
		t.Errorf("no conformance test with flow expectations was checked")
	}
}

// inlineTest reports whether a conformance test runs with verdicts: firewall rules, IPS mode
// (by name, as suricata-verify decides, or by argument), or drop/reject rules.
func inlineTest(dir string, args []string) bool {
	name := filepath.Base(dir)
	if strings.Contains(name, "ips") || strings.Contains(name, "firewall") {
		return true
	}
	for _, a := range args {
		if strings.Contains(a, "--simulate-ips") || strings.Contains(a, "firewall") {
			return true
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rules"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			l := strings.TrimSpace(line)
			if strings.HasPrefix(l, "drop") || strings.HasPrefix(l, "reject") || strings.HasPrefix(l, "accept") {
				return true
			}
		}
	}
	return false
}

func lookup(rec map[string]any, path string) (any, bool) {
	var v any = rec
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func sameValue(got, want any) bool {
	switch w := want.(type) {
	case int:
		g, ok := got.(float64)
		return ok && g == float64(w)
	case string:
		g, ok := got.(string)
		return ok && g == w
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

func anyMatches(recs []map[string]any, want map[string]any) bool {
	for _, r := range recs {
		ok := true
		for k, v := range want {
			g, found := lookup(r, k)
			if !found || !sameValue(g, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func describe(recs []map[string]any, want map[string]any) string {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, r := range recs {
		for _, k := range keys {
			v, _ := lookup(r, k)
			fmt.Fprintf(&b, "%s=%v ", k, v)
		}
		b.WriteString("\n")
	}
	return b.String()
}
