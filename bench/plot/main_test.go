package main

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fig builds an expected figure: value v, bar b (0: none), higher is better when up.
func fig(name string, v, b float64, up bool) figure {
	return figure{Name: name, Value: v, Bar: b, HasBar: b != 0, HigherIsBetter: up}
}

// withCI adds a 95% interval to f.
func withCI(f figure, lo, hi float64) figure {
	f.Lo, f.Hi, f.HasInterval = lo, hi, true
	return f
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name, script, json string
		want               []figure
		warns              []string // substrings, one per expected warning
		err                bool
	}{
		{
			name:   "detect",
			script: "detect",
			json:   `{"median_disable_detection_pps": 1000, "median_detection_pps": 497, "ratio": 0.497, "bar": 0.4, "verdict": "PASS"}`,
			want:   []figure{fig("ET Open / no detection", 0.497, 0.4, true)},
		},
		{
			name:   "corpus",
			script: "corpus",
			json:   `{"median_disable_detection_pps": 1000, "median_detection_pps": 450, "ratio": 0.45, "bar": 0.4}`,
			want:   []figure{fig("ET Open / no detection", 0.45, 0.4, true)},
		},
		{
			name:   "detect from medians, no bar",
			script: "detect",
			json:   `{"median_disable_detection_pps": 1000, "median_detection_pps": 300}`,
			want:   []figure{fig("ET Open / no detection", 0.3, 0, true)},
		},
		{
			name:   "detect missing keys",
			script: "detect",
			json:   `{"median_detection_pps": 300, "bar": 0.4}`,
			warns:  []string{"corpus: no ratio or medians"},
		},
		{
			name:   "detect ratio of the wrong type",
			script: "detect",
			json:   `{"ratio": "0.5", "bar": 0.4}`,
			warns:  []string{"corpus: no ratio or medians"},
		},
		{
			name:   "replay",
			script: "replay",
			json: `{"bar": "meerkat packets/s >= 0.5 x read-loop packets/s", "runs": [
				{"capture": "bulk.pcap", "median_read_loop_pps": 1000, "median_meerkat_pps": 461, "ratio": 0.461, "bar": 0.5},
				{"capture": "corpus", "median_read_loop_pps": 1000, "median_meerkat_pps": 762},
				{"capture": "broken"},
				7]}`,
			want: []figure{
				// With a corpus run, the synthetic capture is a stress case without the bar.
				fig("meerkat / read loop (bulk.pcap), stress case", 0.461, 0, true),
				fig("meerkat / read loop (corpus)", 0.762, 0.5, true), // bar from the top-level sentence
			},
			warns: []string{"replay broken: no ratio", "run 4 is not an object"},
		},
		{
			name:   "replay without a corpus run",
			script: "replay",
			json:   `{"runs": [{"capture": "bulk.pcap", "ratio": 0.461, "bar": 0.5}]}`,
			want:   []figure{fig("meerkat / read loop (bulk.pcap)", 0.461, 0.5, true)},
		},
		{
			name:   "replay without runs",
			script: "replay",
			json:   `{"runs": {"capture": "corpus"}}`,
			warns:  []string{"replay: no runs"},
		},
		{
			name:   "groups",
			script: "groups",
			json: `{"median_auto_pps": 490127, "median_single_pps": 390543, "median_ratio": 1.144,
				"packet_loop_in_process": {"ns_per_packet": {"ips": 912.2, "ips_shared": 1311},
				"median_round_ratio_pps": {"ips_shared/ips": 0.8, "ips_again/ips": 0.99}}}`,
			want: []figure{
				fig("per-group / single DB, whole process", 1.144, 0, true),
				fig("per-group / single DB, packet loop", 1.25, 0, true),
			},
		},
		{
			name:   "groups from medians and ns per packet",
			script: "groups",
			json:   `{"median_auto_pps": 500, "median_single_pps": 400, "packet_loop_in_process": {"ns_per_packet": {"ips": 1000, "ips_shared": 1500}}}`,
			want: []figure{
				fig("per-group / single DB, whole process", 1.25, 0, true),
				fig("per-group / single DB, packet loop", 1.5, 0, true),
			},
		},
		{
			name:   "groups without the in-process loop",
			script: "groups",
			json:   `{"median_ratio": 1.1}`,
			want:   []figure{fig("per-group / single DB, whole process", 1.1, 0, true)},
			warns:  []string{"no packet_loop_in_process"},
		},
		{
			name:   "broad",
			script: "broad",
			json:   `{"median_pps_1k": 739436, "median_pps_50k": 566978, "ratio": 0.767, "bar": 0.6}`,
			want:   []figure{fig("50k / 1k broad rules", 0.767, 0.6, true)},
		},
		{
			name:   "firewall",
			script: "firewall",
			json: `{"median_pps_ips": 360034, "median_pps_fw": 335597, "median_pps_fw_empty": 348332,
				"ratio_fw": 0.915, "ratio_fw_ci95": [0.852, 1.032], "bar_fw": "median paired ratio >= 0.95",
				"ratio_fw_empty": 0.906, "ratio_fw_empty_ci95": [0.882, 1.107],
				"bar_fw_empty": "costs no more than ips: the 95% interval of the median paired ratio reaches 1.0"}`,
			want: []figure{
				withCI(fig("fw policy / IPS", 0.915, 0.95, true), 0.852, 1.032),
				withCI(fig("no fw rules / IPS", 0.906, 0, true), 0.882, 1.107),
			},
		},
		{
			name:   "firewall medians only, bad interval",
			script: "firewall",
			json:   `{"median_pps_ips": 400, "median_pps_fw": 380, "ratio_fw_ci95": [1.1, 1.2]}`,
			want:   []figure{fig("fw policy / IPS", 0.95, 0, true)},
			warns:  []string{"interval [1.1, 1.2] does not hold", "no ratio_fw_empty"},
		},
		{
			name:   "modes",
			script: "modes",
			json: `{"median_pps": {"ids": 1000, "ips": 980, "fw": 950},
				"ratio_ips_ids": {"median": 0.98, "ci95": [0.95, 1.01]},
				"ratio_fw_ips": {"median": 0.96, "ci95": [0.9, 1.0]}, "bar_fw_ips": 0.95}`,
			want: []figure{
				withCI(fig("IPS / IDS", 0.98, 0, true), 0.95, 1.01),
				withCI(fig("firewall / IPS", 0.96, 0.95, true), 0.9, 1.0),
			},
		},
		{
			name:   "modes from medians",
			script: "modes",
			json:   `{"median_pps": {"ids": 1000, "ips": 800}}`,
			want:   []figure{fig("IPS / IDS", 0.8, 0, true)},
			warns:  []string{"modes: no ratio_fw_ips"},
		},
		{
			name:   "ordering",
			script: "ordering",
			json:   `{"results": [{"order": "sorted", "median_s": 2.26}], "slowest_over_fastest": 1.105, "bar": 1.03}`,
			want:   []figure{fig("slowest / fastest order", 1.105, 1.03, false)},
		},
		{
			name:   "ordering from results",
			script: "ordering",
			json:   `{"results": [{"order": "a", "median_s": 2.0}, {"order": "b", "median_s": 2.5}, {"order": "c"}], "bar": 1.03}`,
			want:   []figure{fig("slowest / fastest order", 1.25, 1.03, false)},
		},
		{
			name:   "ordering without figures",
			script: "ordering",
			json:   `{"results": [{"order": "a", "median_s": 2.0}]}`,
			warns:  []string{"ordering: no slowest_over_fastest"},
		},
		{
			name:   "scaling",
			script: "scaling",
			json: `{"sizes": {"50000": {"median_pps": 250}, "1000": {"median_pps": 1000},
				"10000": {"median_pps": 800}, "huge": {"median_pps": 1}}}`,
			want: []figure{
				fig("10000 / 1000 rules", 0.8, 0, true),
				fig("50000 / 1000 rules", 0.25, 0, true),
			},
		},
		{
			name:   "scaling size without median",
			script: "scaling",
			json:   `{"sizes": {"1000": {"median_pps": 1000}, "10000": {"pps": [1]}, "50000": {"median_pps": 500}}}`,
			want:   []figure{fig("50000 / 1000 rules", 0.5, 0, true)},
			warns:  []string{"no median_pps for 10000 rules"},
		},
		{
			name:   "cores",
			script: "cores",
			json: `{"configs": {"w16": {"median_pps": 4000}, "single": {"median_pps": 1000},
				"w2": {"median_pps": 1800}, "w1": {"median_pps": 950}}}`,
			want: []figure{
				fig("w1 / single", 0.95, 0, true),
				fig("w2 / single", 1.8, 0, true),
				fig("w16 / single", 4, 0, true),
			},
		},
		{
			name:   "cores without single",
			script: "cores",
			json:   `{"configs": {"w1": {"median_pps": 950}}}`,
			warns:  []string{"no median_pps for single"},
		},
		{
			name:   "peer",
			script: "peer",
			json: `{"runs": {"meerkat-synthetic": {"median": 2.0}, "suricata-synthetic": {"median": 3.0},
				"meerkat-corpus": {"median": 4.0}, "suricata-corpus": {"median": 2.0}, "meerkat-lonely": {"median": 1}}}`,
			want: []figure{
				fig("corpus: suricata / meerkat time", 0.5, 0, true),
				fig("synthetic: suricata / meerkat time", 1.5, 0, true),
			},
			warns: []string{"peer lonely"},
		},
		{
			name:   "rules-load",
			script: "rules-load",
			json:   `{"ns_per_load": [531574176], "median_seconds": 0.436, "bar_seconds": 1.0}`,
			want:   []figure{{Name: "ET Open parse, 1 core", Value: 0.436, Unit: "s", Bar: 1, HasBar: true}},
		},
		{
			name:   "zero value",
			script: "broad",
			json:   `{"ratio": 0, "median_pps_1k": 0, "median_pps_50k": 5}`,
			warns:  []string{"broad: no ratio or medians"},
		},
		{
			name:   "negative bar ignored",
			script: "broad",
			json:   `{"ratio": 0.7, "bar": -1}`,
			want:   []figure{fig("50k / 1k broad rules", 0.7, 0, true)},
		},
		{name: "malformed JSON", script: "detect", json: `{"ratio": 0.5,`, err: true},
		{name: "JSON array", script: "detect", json: `[1, 2]`, err: true},
		{name: "JSON null", script: "detect", json: `null`, err: true},
		{name: "unknown script", script: "teleport", json: `{"ratio": 0.5}`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns, err := extract(tt.script, []byte(tt.json))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d figures %+v, want %d %+v (warnings %q)", len(got), got, len(tt.want), tt.want, warns)
			}
			for i := range got {
				if !sameFigure(got[i], tt.want[i]) {
					t.Errorf("figure %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
			if len(warns) != len(tt.warns) {
				t.Fatalf("warnings %q, want %d containing %q", warns, len(tt.warns), tt.warns)
			}
			for _, w := range tt.warns {
				found := false
				for _, g := range warns {
					found = found || strings.Contains(g, w)
				}
				if !found {
					t.Errorf("no warning contains %q: %q", w, warns)
				}
			}
		})
	}
}

func sameFigure(a, b figure) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return a.Name == b.Name && near(a.Value, b.Value) && a.Unit == b.Unit &&
		a.HasBar == b.HasBar && (!a.HasBar || near(a.Bar, b.Bar)) &&
		a.HigherIsBetter == b.HigherIsBetter && a.HasInterval == b.HasInterval &&
		(!a.HasInterval || near(a.Lo, b.Lo) && near(a.Hi, b.Hi))
}

func TestMeetsAndLabel(t *testing.T) {
	tests := []struct {
		f     figure
		meets bool
		label string
	}{
		{fig("a", 0.497, 0.4, true), true, "0.497   bar ≥ 0.4: met"},
		{fig("b", 0.39, 0.4, true), false, "0.390   bar ≥ 0.4: not met"},
		{fig("c", 1.105, 1.03, false), false, "1.105   bar ≤ 1.03: not met"},
		{fig("d", 1.2, 0, true), false, "1.200"},
		{withCI(fig("e", 0.9, 0, true), 0.8, 1.1), false, "0.900 [0.800, 1.100]"},
		{figure{Name: "f", Value: 0.436, Unit: "s", Bar: 1, HasBar: true}, true, "0.44 s   bar ≤ 1 s: met"},
	}
	for _, tt := range tests {
		if got := tt.f.Meets(); got != tt.meets {
			t.Errorf("%s: Meets() = %v, want %v", tt.f.Name, got, tt.meets)
		}
		if got := tt.f.label(); got != tt.label {
			t.Errorf("%s: label() = %q, want %q", tt.f.Name, got, tt.label)
		}
	}
}

func TestScriptOf(t *testing.T) {
	tests := []struct {
		file, host, command string
		want                string
		ok                  bool
	}{
		{"2026-11-30-vm-detect.json", "vm", "ROUNDS=5 bench/detect.sh", "corpus", true}, // corpus.sh's earlier name
		{"2026-12-01-vm-corpus.json", "vm", "ROUNDS=5 bench/corpus.sh", "corpus", true},
		{"2026-12-01-vm-detected.json", "vm", "ROUNDS=5 bench/detect.sh", "corpus", true}, // from the command
		{"2026-11-30-vm-firewall-seed2-f3a7a43.json", "vm", "bench/firewall.sh", "firewall", true},
		{"2026-11-30-vm-firewall-earlier-1.json", "vm", "", "firewall", true},
		{"2026-11-30-vm-rules-load.json", "vm", "", "rules-load", true},
		{"2026-11-30-my-box-groups.json", "my-box", "", "groups", true},
		{"2026-11-30-my-box-groups.json", "", "", "groups", true},             // host unknown: script after a dash
		{"2026-11-30-detect-box-broad.json", "detect-box", "", "broad", true}, // host that looks like a script
		{"results.json", "vm", "bench/rules_load.sh (go test ...)", "rules-load", true},
		{"2026-11-30-vm-teleport.json", "vm", "bench/teleport.sh", "teleport", false},
		{"notes.json", "", "", "", false},
	}
	for _, tt := range tests {
		got, ok := scriptOf(tt.file, tt.host, tt.command)
		if got != tt.want || ok != tt.ok {
			t.Errorf("scriptOf(%q, %q, %q) = %q, %v; want %q, %v", tt.file, tt.host, tt.command, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseResult(t *testing.T) {
	const good = `{"benchmark": "b", "date": "2026-11-30T05:15:12Z", "machine": {"host": "vm", "cpu": "AMD EPYC", "cores": 2, "memory": "23.5 GiB"}, "commit": "3946d86", "command": "bench/detect.sh", "disclaimer": "One machine on one day."}`
	tests := []struct {
		name, file, json string
		err              string // substring; "" for success
	}{
		{"good", "2026-11-30-vm-detect.json", good, ""},
		{"malformed", "2026-11-30-vm-detect.json", `{"date": `, "not a results file"},
		{"array", "2026-11-30-vm-detect.json", `[]`, "not a results file"},
		{"no date", "2026-11-30-vm-detect.json", `{"machine": {"host": "vm"}}`, "no RFC 3339 date"},
		{"bad date", "2026-11-30-vm-detect.json", `{"date": "30 Nov 2026"}`, "no RFC 3339 date"},
		{"unknown script", "2026-11-30-vm-teleport.json", `{"date": "2026-11-30T05:15:12Z", "machine": {"host": "vm"}}`, `unknown script "teleport"`},
		{"machine of the wrong type", "2026-11-30-vm-detect.json", `{"date": "2026-11-30T05:15:12Z", "machine": "vm"}`, "not a results file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseResult(tt.file, []byte(tt.json))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Script != "corpus" || r.Machine.CPU != "AMD EPYC" || r.Machine.Cores != 2 || r.Commit != "3946d86" ||
				!r.Date.Equal(time.Date(2026, 11, 30, 5, 15, 12, 0, time.UTC)) || r.Disclaimer == "" {
				t.Errorf("parsed %+v", r)
			}
		})
	}
}

func TestNewest(t *testing.T) {
	at := func(s string) time.Time {
		d, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	res := func(name, script, date string) result { return result{Name: name, Script: script, Date: at(date)} }
	tests := []struct {
		name string
		in   []result
		want []string // file names, in drawing order
	}{
		{"empty", nil, nil},
		{
			"newest by date, not by name",
			[]result{
				res("2026-11-30-vm-firewall.json", "firewall", "2026-11-30T04:12:11Z"),
				res("2026-11-30-vm-firewall-seed2.json", "firewall", "2026-11-30T03:53:09Z"),
				res("2026-12-01-vm-firewall-earlier.json", "firewall", "2026-11-29T23:00:00Z"),
			},
			[]string{"2026-11-30-vm-firewall.json"},
		},
		{
			"time zones compared as instants",
			[]result{
				res("a-detect.json", "corpus", "2026-11-30T05:00:00+02:00"), // 03:00Z
				res("b-detect.json", "corpus", "2026-11-30T04:00:00Z"),
			},
			[]string{"b-detect.json"},
		},
		{
			"detect.json and corpus.json are one script",
			[]result{
				res("2026-11-30-vm-detect.json", "corpus", "2026-11-30T05:15:12Z"),
				res("2026-12-01-vm-corpus.json", "corpus", "2026-12-01T01:00:00Z"),
			},
			[]string{"2026-12-01-vm-corpus.json"},
		},
		{
			"tie: the later file name",
			[]result{
				res("b-broad.json", "broad", "2026-11-30T01:00:00Z"),
				res("a-broad.json", "broad", "2026-11-30T01:00:00Z"),
			},
			[]string{"b-broad.json"},
		},
		{
			"one per script, in drawing order",
			[]result{
				res("rl.json", "rules-load", "2026-11-30T01:00:00Z"),
				res("d1.json", "corpus", "2026-11-29T01:00:00Z"),
				res("r.json", "replay", "2026-11-30T01:00:00Z"),
				res("d2.json", "corpus", "2026-11-30T01:00:00Z"),
			},
			[]string{"r.json", "d2.json", "rl.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range newest(tt.in) {
				got = append(got, r.Name)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("newest = %q, want %q", got, tt.want)
			}
		})
	}
}

// checkPNG fails unless path is a PNG of a sensible size.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() < 800 || b.Dx() > 3000 || b.Dy() < 300 || b.Dy() > 4000 {
		t.Errorf("%s: %dx%d pixels, want a legible size", path, b.Dx(), b.Dy())
	}
}

// TestRepositoryResults draws the repository's own results: every results file there must
// give its figure without a warning (a script whose output the plot cannot read fails here,
// not silently in make bench).
func TestRepositoryResults(t *testing.T) {
	dir := filepath.Join("..", "results")
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) == 0 {
		t.Fatalf("no results files in %s", dir)
	}
	out := filepath.Join(t.TempDir(), "latest.png")
	var warn bytes.Buffer
	if err := run(dir, out, &warn); err != nil {
		t.Fatal(err)
	}
	if warn.Len() > 0 {
		t.Errorf("warnings:\n%s", warn.String())
	}
	checkPNG(t, out)
}

// TestRunSkipsBadFiles draws a folder with one good file among bad ones, and fails cleanly on
// a folder with none.
func TestRunSkipsBadFiles(t *testing.T) {
	const header = `"date": "2026-11-30T05:15:12Z", "machine": {"host": "vm", "cpu": "AMD EPYC", "cores": 2, "memory": "23.5 GiB"}, "commit": "abc", "command": "bench/x.sh", "disclaimer": "One machine on one day."`
	files := map[string]string{
		"2026-11-30-vm-detect.json":   `{` + header + `, "ratio": 0.5, "bar": 0.4}`,
		"2026-11-30-vm-broad.json":    `{` + header + `, "bar": 0.6}`, // no figure
		"2026-11-30-vm-teleport.json": `{` + header + `, "ratio": 0.5}`,
		"2026-11-30-vm-replay.json":   `{"date": `,
		"2026-11-30-vm-groups.json":   `{` + header + `, "median_ratio": 1.1}`, // one of two figures
		"notes.txt":                   `not JSON, not *.json`,
	}
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "latest.png")
	var warn bytes.Buffer
	if err := run(dir, out, &warn); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"skipping 2026-11-30-vm-broad.json: no headline figure",
		`2026-11-30-vm-teleport.json: unknown script "teleport"`,
		"2026-11-30-vm-replay.json: not a results file",
		"2026-11-30-vm-groups.json: skipped groups: no packet_loop_in_process",
	} {
		if !strings.Contains(warn.String(), w) {
			t.Errorf("warnings lack %q:\n%s", w, warn.String())
		}
	}
	checkPNG(t, out)

	for name := range files {
		if name != "2026-11-30-vm-detect.json" && name != "2026-11-30-vm-groups.json" {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(dir, out, &warn); err == nil || !strings.Contains(err.Error(), "no figures") {
		t.Errorf("folder without figures: err = %v, want no figures", err)
	}
}
