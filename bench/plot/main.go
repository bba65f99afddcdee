// Command plot draws the headline figures of the newest benchmark results as one PNG, for
// bench/README.md (issue #8).
//
// Usage:
//
//	go run ./bench/plot -o bench/results/latest.png [-dir bench/results]
//
// It reads every bench/results/*.json, works out which script wrote each file (the part of the
// file name after the date and host, <date>-<host>-<script>[-suffix].json, or else the
// bench/<script>.sh in its "command"; -detect.json files are corpus.sh's under its earlier
// name), keeps the newest file of each script by its "date" field, and draws one horizontal
// bar per headline figure: a ratio measured side by side in the same run (detection against
// none, 50k against 1k broad rules, firewall against IPS mode, ...), or for rules-load the
// parse time in seconds. Where the results file states a bar (the target
// the script judges against), a black tick marks it and the bar's colour says whether the
// figure meets it; where the file has a 95% interval, whiskers show it; a dashed line marks 1.0.
// The title names the machine and the dates, the footnote carries the files' disclaimer.
//
// Files that are not results files, or that come from a script this program does not know,
// are skipped with a warning on standard error; a figure whose keys are missing is left out
// with a warning.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func main() {
	out := flag.String("o", "", "PNG file to write (required), e.g. bench/results/latest.png")
	dir := flag.String("dir", "bench/results", "folder of the results files (*.json)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/plot -o FILE.png [-dir bench/results]")
		os.Exit(2)
	}
	if err := run(*dir, *out, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

// run reads the results files in dir, keeps the newest of each script and draws them to out;
// warnings go to warn.
func run(dir, out string, warn io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	var results []result
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(warn, "plot: skipping %s: %v\n", path, err)
			continue
		}
		r, err := parseResult(filepath.Base(path), data)
		if err != nil {
			fmt.Fprintf(warn, "plot: skipping %s: %v\n", path, err)
			continue
		}
		results = append(results, r)
	}
	var rows []row
	var used []result
	for _, r := range newest(results) {
		figs, warnings, err := extract(r.Script, r.Data)
		for _, w := range warnings {
			fmt.Fprintf(warn, "plot: %s: %s\n", r.Name, w)
		}
		if err != nil {
			fmt.Fprintf(warn, "plot: skipping %s: %v\n", r.Name, err)
			continue
		}
		if len(figs) == 0 {
			fmt.Fprintf(warn, "plot: skipping %s: no headline figure found\n", r.Name)
			continue
		}
		used = append(used, r)
		for _, f := range figs {
			rows = append(rows, row{Script: r.Script, figure: f})
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("no figures to draw from %s", dir)
	}
	return drawPNG(rows, used, out)
}

// A figure is one headline figure of a results file.
type figure struct {
	Name           string  // what it is, e.g. "ET Open / no detection"
	Value          float64 // a ratio, or seconds when Unit is "s"
	Unit           string  // "" for a ratio, "s" for seconds
	Bar            float64 // the target the script judges Value against, when HasBar
	HasBar         bool
	HigherIsBetter bool
	Lo, Hi         float64 // 95% interval of Value, when HasInterval
	HasInterval    bool
}

// Meets reports whether the figure meets its bar (false when it has none).
func (f figure) Meets() bool {
	if !f.HasBar {
		return false
	}
	if f.HigherIsBetter {
		return f.Value >= f.Bar
	}
	return f.Value <= f.Bar
}

type machine struct {
	Host   string `json:"host"`
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Memory string `json:"memory"`
}

// A result is one results file: the fields every file carries and its raw JSON.
type result struct {
	Name       string // file name
	Script     string // e.g. "detect", "rules-load"
	Date       time.Time
	Machine    machine
	Commit     string
	Disclaimer string
	Data       []byte
}

// scripts are the scripts whose results this program knows, in the order they are drawn.
var scripts = []string{"replay", "corpus", "stream", "http", "etopen", "groups", "broad", "firewall", "modes", "ordering",
	"scaling", "cores", "peer", "rules-load"}

// renamed maps earlier names of scripts to their names now: results of both count as one
// script, the newest drawn.
var renamed = map[string]string{"detect": "corpus"}

// canonical returns the name of script s now, and whether it is known.
func canonical(s string) (string, bool) {
	if n, ok := renamed[s]; ok {
		return n, true
	}
	return s, slices.Contains(scripts, s)
}

var (
	datePrefix = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-(.+)$`)
	scriptCmd  = regexp.MustCompile(`bench/([A-Za-z0-9_-]+)\.sh`)
)

// parseResult reads the common fields of a results file named name. It fails when data is
// not a JSON object, has no RFC 3339 "date", or comes from a script this program does not know.
func parseResult(name string, data []byte) (result, error) {
	var h struct {
		Date       string   `json:"date"`
		Machine    *machine `json:"machine"`
		Commit     string   `json:"commit"`
		Command    string   `json:"command"`
		Disclaimer string   `json:"disclaimer"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return result{}, fmt.Errorf("not a results file: %v", err)
	}
	date, err := time.Parse(time.RFC3339, h.Date)
	if err != nil {
		return result{}, fmt.Errorf("no RFC 3339 date (%q)", h.Date)
	}
	r := result{Name: name, Date: date, Commit: h.Commit, Disclaimer: h.Disclaimer, Data: data}
	if h.Machine != nil {
		r.Machine = *h.Machine
	}
	script, ok := scriptOf(name, r.Machine.Host, h.Command)
	if !ok {
		return result{}, fmt.Errorf("unknown script %q", script)
	}
	r.Script = script
	return r, nil
}

// scriptOf names the script that wrote a results file: from its file name
// (<date>-<host>-<script>[-suffix].json), else from the bench/<script>.sh in its command.
// When neither names a known script it returns its best guess and false.
func scriptOf(name, host, command string) (string, bool) {
	guess := ""
	if m := datePrefix.FindStringSubmatch(strings.TrimSuffix(name, ".json")); m != nil {
		rest := m[1]
		if host != "" && strings.HasPrefix(rest, host+"-") {
			rest = rest[len(host)+1:]
		}
		guess, _, _ = strings.Cut(rest, "-")
		// The script starts the rest or follows a dash in it (when the host is not known).
		for i := 0; i < len(rest); i++ {
			if i > 0 && rest[i-1] != '-' {
				continue
			}
			if s := knownPrefix(rest[i:]); s != "" {
				return canonical(s)
			}
		}
	}
	if m := scriptCmd.FindStringSubmatch(command); m != nil {
		s := strings.ReplaceAll(m[1], "_", "-")
		if n, ok := canonical(s); ok {
			return n, true
		}
		if guess == "" {
			guess = s
		}
	}
	return guess, false
}

// knownPrefix returns the longest known script (or earlier name of one) that is s or starts s
// followed by a dash.
func knownPrefix(s string) string {
	best := ""
	for _, k := range append(slices.Clone(scripts), slices.Collect(maps.Keys(renamed))...) {
		if (s == k || strings.HasPrefix(s, k+"-")) && len(k) > len(best) {
			best = k
		}
	}
	return best
}

// newest keeps the newest result of each script by date (on a tie, the later file name), in
// the order of scripts.
func newest(rs []result) []result {
	best := map[string]result{}
	for _, r := range rs {
		b, ok := best[r.Script]
		if !ok || r.Date.After(b.Date) || (r.Date.Equal(b.Date) && r.Name > b.Name) {
			best[r.Script] = r
		}
	}
	var out []result
	for _, s := range scripts {
		if r, ok := best[s]; ok {
			out = append(out, r)
		}
	}
	return out
}

// obj is a decoded JSON object with lookups by path.
type obj map[string]any

// num returns the number at the path of keys, if there is one and it is finite.
func (o obj) num(path ...string) (float64, bool) {
	v, ok := o.get(path...)
	if !ok {
		return 0, false
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// pos is num for a number that must be above zero (a rate, a time, a ratio).
func (o obj) pos(path ...string) (float64, bool) {
	f, ok := o.num(path...)
	return f, ok && f > 0
}

func (o obj) get(path ...string) (any, bool) {
	var v any = map[string]any(o)
	for _, k := range path {
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

// interval returns the two-number array at the path as an interval, if it holds one.
func (o obj) interval(path ...string) (lo, hi float64, ok bool) {
	v, _ := o.get(path...)
	a, _ := v.([]any)
	if len(a) != 2 {
		return 0, 0, false
	}
	lo, ok1 := a[0].(float64)
	hi, ok2 := a[1].(float64)
	if !ok1 || !ok2 || lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}

var barText = regexp.MustCompile(`(?:>=|≥)\s*([0-9]+(?:\.[0-9]+)?)`)

// bar returns the bar at the path: a number, or a sentence such as "median paired ratio >= 0.95".
func (o obj) bar(path ...string) (float64, bool) {
	if f, ok := o.pos(path...); ok {
		return f, true
	}
	v, _ := o.get(path...)
	s, _ := v.(string)
	if m := barText.FindStringSubmatch(s); m != nil {
		if f, err := strconv.ParseFloat(m[1], 64); err == nil && f > 0 {
			return f, true
		}
	}
	return 0, false
}

// ratio returns the figure recorded at key, or else num/den of the two medians.
func (o obj) ratio(key string, num, den []string) (float64, bool) {
	if f, ok := o.pos(key); ok {
		return f, true
	}
	a, ok1 := o.pos(num...)
	b, ok2 := o.pos(den...)
	if ok1 && ok2 {
		return a / b, true
	}
	return 0, false
}

// extractors map a script to the function that picks its headline figures. Each appends the
// figures it finds and, for each it cannot, a warning.
var extractors = map[string]func(o obj, add func(figure), miss func(string)){
	"replay": func(o obj, add func(figure), miss func(string)) {
		v, _ := o.get("runs")
		runs, ok := v.([]any)
		if !ok {
			miss("replay: no runs")
			return
		}
		// replay.sh judges its bar on the real corpus when it ran; the synthetic capture is
		// then a stress case reported beside it, without the bar.
		hasCorpus := false
		for _, x := range runs {
			if m, ok := x.(map[string]any); ok && m["capture"] == "corpus" {
				hasCorpus = true
			}
		}
		for i, x := range runs {
			m, ok := x.(map[string]any)
			if !ok {
				miss(fmt.Sprintf("replay: run %d is not an object", i+1))
				continue
			}
			run := obj(m)
			name, _ := run["capture"].(string)
			if name == "" {
				name = fmt.Sprintf("run %d", i+1)
			}
			r, ok := run.ratio("ratio", []string{"median_meerkat_pps"}, []string{"median_read_loop_pps"})
			if !ok {
				miss("replay " + name + ": no ratio or medians")
				continue
			}
			f := figure{Name: "meerkat / read loop (" + name + ")", Value: r, HigherIsBetter: true}
			if hasCorpus && name != "corpus" {
				f.Name += ", stress case"
				add(f)
				continue
			}
			if f.Bar, f.HasBar = run.bar("bar"); !f.HasBar {
				f.Bar, f.HasBar = o.bar("bar")
			}
			add(f)
		}
	},
	"corpus": func(o obj, add func(figure), miss func(string)) {
		r, ok := o.ratio("ratio", []string{"median_detection_pps"}, []string{"median_disable_detection_pps"})
		if !ok {
			miss("corpus: no ratio or medians")
			return
		}
		f := figure{Name: "ET Open / no detection", Value: r, HigherIsBetter: true}
		f.Bar, f.HasBar = o.bar("bar")
		add(f)
	},
	"groups": func(o obj, add func(figure), miss func(string)) {
		if r, ok := o.ratio("median_ratio", []string{"median_auto_pps"}, []string{"median_single_pps"}); ok {
			add(figure{Name: "per-group / single DB, whole process", Value: r, HigherIsBetter: true})
		} else {
			miss("groups: no median_ratio or medians")
		}
		// The in-process loop records single-database (ips_shared) against per-group (ips)
		// packets/s; its inverse is the per-group speed-up.
		if r, ok := o.pos("packet_loop_in_process", "median_round_ratio_pps", "ips_shared/ips"); ok {
			add(figure{Name: "per-group / single DB, packet loop", Value: 1 / r, HigherIsBetter: true})
		} else if a, ok1 := o.pos("packet_loop_in_process", "ns_per_packet", "ips_shared"); ok1 {
			if b, ok2 := o.pos("packet_loop_in_process", "ns_per_packet", "ips"); ok2 {
				add(figure{Name: "per-group / single DB, packet loop", Value: a / b, HigherIsBetter: true})
			} else {
				miss("groups: no packet_loop_in_process figures")
			}
		} else {
			miss("groups: no packet_loop_in_process figures")
		}
	},
	"broad": func(o obj, add func(figure), miss func(string)) {
		r, ok := o.ratio("ratio", []string{"median_pps_50k"}, []string{"median_pps_1k"})
		if !ok {
			miss("broad: no ratio or medians")
			return
		}
		f := figure{Name: "50k / 1k broad rules", Value: r, HigherIsBetter: true}
		f.Bar, f.HasBar = o.bar("bar")
		add(f)
	},
	"firewall": func(o obj, add func(figure), miss func(string)) {
		for _, c := range []struct{ key, pps, name string }{
			{"fw", "median_pps_fw", "fw policy / IPS"},
			{"fw_empty", "median_pps_fw_empty", "no fw rules / IPS"},
		} {
			r, ok := o.ratio("ratio_"+c.key, []string{c.pps}, []string{"median_pps_ips"})
			if !ok {
				miss("firewall: no ratio_" + c.key + " or medians")
				continue
			}
			f := figure{Name: c.name, Value: r, HigherIsBetter: true}
			f.Bar, f.HasBar = o.bar("bar_" + c.key)
			f.Lo, f.Hi, f.HasInterval = o.interval("ratio_" + c.key + "_ci95")
			add(f)
		}
	},
	"modes": func(o obj, add func(figure), miss func(string)) {
		for _, c := range []struct{ key, num, den, name string }{
			{"ratio_ips_ids", "ips", "ids", "IPS / IDS"},
			{"ratio_fw_ips", "fw", "ips", "firewall / IPS"},
		} {
			r, ok := o.pos(c.key, "median")
			if !ok {
				a, ok1 := o.pos("median_pps", c.num)
				b, ok2 := o.pos("median_pps", c.den)
				if r, ok = a/b, ok1 && ok2; !ok {
					miss("modes: no " + c.key + " or medians")
					continue
				}
			}
			f := figure{Name: c.name, Value: r, HigherIsBetter: true}
			f.Bar, f.HasBar = o.bar("bar_" + c.num + "_" + c.den)
			f.Lo, f.Hi, f.HasInterval = o.interval(c.key, "ci95")
			add(f)
		}
	},
	"ordering": func(o obj, add func(figure), miss func(string)) {
		r, ok := o.pos("slowest_over_fastest")
		if !ok {
			v, _ := o.get("results")
			rs, _ := v.([]any)
			lo, hi := math.Inf(1), 0.0
			for _, x := range rs {
				m, _ := x.(map[string]any)
				if s, ok := obj(m).pos("median_s"); ok {
					lo, hi = math.Min(lo, s), math.Max(hi, s)
				}
			}
			if len(rs) < 2 || hi == 0 {
				miss("ordering: no slowest_over_fastest or results")
				return
			}
			r = hi / lo
		}
		f := figure{Name: "slowest / fastest order", Value: r}
		f.Bar, f.HasBar = o.bar("bar")
		add(f)
	},
	"scaling": func(o obj, add func(figure), miss func(string)) {
		// Since issue #17 the sizes are per mix (mixes.<mix>.sizes, the scan mix with a bar);
		// older files have one set of sizes.
		if m, ok := o.get("mixes"); ok {
			mixes, _ := m.(map[string]any)
			names := make([]string, 0, len(mixes))
			for name := range mixes {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				scalingSizes(o, []string{"mixes", name}, name+": ", add, miss)
			}
			return
		}
		scalingSizes(o, nil, "", add, miss)
	},
	"cores": func(o obj, add func(figure), miss func(string)) {
		m, _ := o.get("configs")
		configs, ok := m.(map[string]any)
		if !ok {
			miss("cores: no configs")
			return
		}
		base, ok := o.pos("configs", "single", "median_pps")
		if !ok {
			miss("cores: no median_pps for single")
			return
		}
		var keys []string
		for k := range configs {
			if k != "single" {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return naturalLess(keys[i], keys[j]) })
		for _, k := range keys {
			v, ok := o.pos("configs", k, "median_pps")
			if !ok {
				miss("cores: no median_pps for " + k)
				continue
			}
			add(figure{Name: k + " / single", Value: v / base, HigherIsBetter: true})
		}
	},
	"peer": func(o obj, add func(figure), miss func(string)) {
		m, _ := o.get("runs")
		runs, ok := m.(map[string]any)
		if !ok {
			miss("peer: no runs")
			return
		}
		var cases []string
		for k := range runs {
			if c, ok := strings.CutPrefix(k, "meerkat-"); ok {
				cases = append(cases, c)
			}
		}
		sort.Strings(cases)
		for _, c := range cases {
			mk, ok1 := o.pos("runs", "meerkat-"+c, "median")
			su, ok2 := o.pos("runs", "suricata-"+c, "median")
			if !ok1 || !ok2 {
				miss("peer " + c + ": no median wall time of both programs")
				continue
			}
			// Wall time suricata / meerkat: above 1 when meerkat is faster.
			add(figure{Name: c + ": suricata / meerkat time", Value: su / mk, HigherIsBetter: true})
		}
	},
	"stream": func(o obj, add func(figure), miss func(string)) {
		if r, ok := o.pos("stream_cost", "ratio_on_off_pps"); ok {
			f := figure{Name: "stream engine on / off, no detection", Value: r, HigherIsBetter: true}
			f.Bar, f.HasBar = o.bar("stream_cost", "bar")
			add(f)
		} else {
			miss("stream: no stream_cost.ratio_on_off_pps")
		}
		if r, ok := o.pos("detection", "ratio_detection_disable_detection_pps"); ok {
			f := figure{Name: "ET Open / no detection, stream engine on", Value: r, HigherIsBetter: true}
			f.Bar, f.HasBar = o.bar("detection", "bar")
			add(f)
		} else {
			miss("stream: no detection ratio")
		}
		if a, ok := o.pos("allocations", "median_detection_allocs_per_packet"); ok {
			f := figure{Name: "heap allocations per packet, ET Open", Value: a}
			f.Bar, f.HasBar = 0.05, true
			add(f)
		} else {
			miss("stream: no allocations")
		}
	},
	"http": func(o obj, add func(figure), miss func(string)) {
		if r, ok := o.pos("detection", "ratio_detection_disable_detection_pps"); ok {
			f := figure{Name: "ET Open / no detection, HTTP app layer on", Value: r, HigherIsBetter: true}
			f.Bar, f.HasBar = o.bar("detection", "bar")
			add(f)
		} else {
			miss("http: no detection ratio")
		}
		if a, ok := o.pos("allocations", "median_detection_allocs_per_packet"); ok {
			f := figure{Name: "heap allocations per packet, ET Open with HTTP", Value: a}
			f.Bar, f.HasBar = 0.1, true
			add(f)
		} else {
			miss("http: no allocations")
		}
	},
	"etopen": func(o obj, add func(figure), miss func(string)) {
		if r, ok := o.pos("detection", "ratio_detection_disable_detection_pps"); ok {
			f := figure{Name: "full ET Open / no detection (issue #19)", Value: r, HigherIsBetter: true}
			f.Bar, f.HasBar = o.bar("detection", "bar")
			add(f)
		} else {
			miss("etopen: no detection ratio")
		}
		if a, ok := o.pos("allocations", "median_detection_allocs_per_packet"); ok {
			f := figure{Name: "heap allocations per packet, full ET Open", Value: a}
			f.Bar, f.HasBar = 0.1, true
			add(f)
		} else {
			miss("etopen: no allocations")
		}
	},
	"rules-load": func(o obj, add func(figure), miss func(string)) {
		s, ok := o.pos("median_seconds")
		if !ok {
			miss("rules-load: no median_seconds")
			return
		}
		f := figure{Name: "ET Open parse, 1 core", Value: s, Unit: "s"}
		f.Bar, f.HasBar = o.bar("bar_seconds")
		add(f)
	},
}

// numericKeys returns the keys of m that are numbers, in numeric order.
func numericKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		if _, err := strconv.ParseFloat(k, 64); err == nil {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.ParseFloat(keys[i], 64)
		b, _ := strconv.ParseFloat(keys[j], 64)
		return a < b
	})
	return keys
}

// naturalLess orders names such as w1, w2, w16 by their number.
func naturalLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimLeft(a, "abcdefghijklmnopqrstuvwxyz"))
	nb, eb := strconv.Atoi(strings.TrimLeft(b, "abcdefghijklmnopqrstuvwxyz"))
	if ea == nil && eb == nil && na != nb {
		return na < nb
	}
	return a < b
}

// extract picks the headline figures of a results file written by script. It fails when data
// is not a JSON object or the script is unknown; a figure whose keys are missing is left out
// and named in warnings.
func extract(script string, data []byte) (figs []figure, warnings []string, err error) {
	script, _ = canonical(script)
	fn, ok := extractors[script]
	if !ok {
		return nil, nil, fmt.Errorf("unknown script %q", script)
	}
	var o obj
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if o == nil {
		return nil, nil, errors.New("not a JSON object")
	}
	fn(o, func(f figure) {
		if math.IsNaN(f.Value) || math.IsInf(f.Value, 0) || f.Value <= 0 {
			warnings = append(warnings, fmt.Sprintf("%s %s: value %v is not a positive number", script, f.Name, f.Value))
			return
		}
		if f.HasInterval && (f.Lo > f.Value || f.Hi < f.Value) {
			f.HasInterval = false
			warnings = append(warnings, fmt.Sprintf("%s %s: interval [%v, %v] does not hold %v; not drawn", script, f.Name, f.Lo, f.Hi, f.Value))
		}
		figs = append(figs, f)
	}, func(w string) { warnings = append(warnings, "skipped "+w) })
	return figs, warnings, nil
}

// A row is one figure of the plot.
type row struct {
	Script string
	figure
}

var (
	colourMeets  = color.RGBA{0x1b, 0x9e, 0x77, 0xff} // teal: meets its bar
	colourMisses = color.RGBA{0xd9, 0x5f, 0x02, 0xff} // orange: misses its bar
	colourNoBar  = color.RGBA{0x8d, 0xa0, 0xcb, 0xff} // blue-grey: no bar
)

// label is the text beside a row's bar: the value, its interval and its bar.
func (f figure) label() string {
	v := func(x float64, prec int) string {
		if f.Unit == "s" {
			return strconv.FormatFloat(x, 'f', min(prec, 2), 64) + " s"
		}
		return strconv.FormatFloat(x, 'f', prec, 64)
	}
	s := v(f.Value, 3)
	if f.HasInterval {
		s += " [" + v(f.Lo, 3) + ", " + v(f.Hi, 3) + "]"
	}
	if f.HasBar {
		op, verdict := "≥", "met"
		if !f.HigherIsBetter {
			op = "≤"
		}
		if !f.Meets() {
			verdict = "not met"
		}
		s += "   bar " + op + " " + v(f.Bar, -1) + ": " + verdict
	}
	return s
}

const (
	rowHeight = 0.36 * vg.Inch
	width     = 10.5 * vg.Inch
	legendW   = 1.8 * vg.Inch
	footH     = 0.55 * vg.Inch
)

// drawPNG draws rows (from the results used) as one PNG at out.
func drawPNG(rows []row, used []result, out string) error {
	p := plot.New()
	p.Title.Text = title(used)
	p.Title.TextStyle.Font.Size = 14
	p.Title.Padding = 0.15 * vg.Inch
	p.X.Label.Text = "ratio measured side by side (rules-load: seconds)"
	p.X.Min = 0
	n := len(rows)
	names := make([]string, n)
	xmax := 1.0
	for i, r := range rows {
		y := float64(n - 1 - i) // the first row at the top
		names[n-1-i] = r.Script + ": " + r.Name
		xmax = math.Max(xmax, math.Max(r.Value, math.Max(r.Hi, r.Bar)))

		b, err := plotter.NewBarChart(plotter.Values{r.Value}, rowHeight*0.55)
		if err != nil {
			return err
		}
		b.Horizontal = true
		b.XMin = y
		b.LineStyle.Width = 0
		switch {
		case !r.HasBar:
			b.Color = colourNoBar
		case r.Meets():
			b.Color = colourMeets
		default:
			b.Color = colourMisses
		}
		p.Add(b)
		if r.HasInterval {
			e := &plotter.XErrorBars{
				XYs:       plotter.XYs{{X: r.Value, Y: y}},
				XErrors:   plotter.XErrors{{Low: r.Value - r.Lo, High: r.Hi - r.Value}},
				LineStyle: draw.LineStyle{Color: color.Gray{0x30}, Width: vg.Points(1.2)},
				CapWidth:  rowHeight * 0.3,
			}
			p.Add(e)
		}
		if r.HasBar {
			l, err := plotter.NewLine(plotter.XYs{{X: r.Bar, Y: y - 0.36}, {X: r.Bar, Y: y + 0.36}})
			if err != nil {
				return err
			}
			l.LineStyle = barStyle
			p.Add(l)
		}
		at := math.Max(r.Value, r.Bar)
		if r.HasInterval {
			at = math.Max(at, r.Hi)
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: at, Y: y}}, Labels: []string{r.label()}})
		if err != nil {
			return err
		}
		lab.TextStyle[0].YAlign = draw.YCenter
		lab.TextStyle[0].Font.Size = 9.5
		lab.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(1.5)}
		p.Add(lab)
	}
	parity, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	if err != nil {
		return err
	}
	parity.LineStyle = parityStyle
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	p.Add(grid, parity)
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = 10.5
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.X.Max = xmax * 1.05
	p.X.Tick.Marker = ticks(p.X.Max)

	height := 1.5*vg.Inch + footH + rowHeight*vg.Length(n)
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0.1*vg.Inch, -legendW, footH, 0))
	drawLegend(draw.Crop(dc, width-legendW+vg.Points(14), 0, footH, -(0.7 * vg.Inch)))
	drawFootnote(draw.Crop(dc, 0.1*vg.Inch, 0, 0, -(height-footH)), used)

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ticks marks 0 to max every 0.2 (0.5, 1 for wider ranges), with a grid line at each.
func ticks(max float64) plot.ConstantTicks {
	step := 0.2
	if max > 6 {
		step = 1
	} else if max > 2.5 {
		step = 0.5
	}
	var t plot.ConstantTicks
	for i := 0; float64(i)*step <= max; i++ {
		t = append(t, plot.Tick{Value: float64(i) * step, Label: strconv.FormatFloat(float64(i)*step, 'f', 1, 64)})
	}
	return t
}

var (
	barStyle    = draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}
	parityStyle = draw.LineStyle{Color: color.Gray{0x70}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
)

// title names the machines and the dates of the results used.
func title(used []result) string {
	var machines []string
	first, last := used[0].Date, used[0].Date
	for _, r := range used {
		m := "unknown machine"
		if r.Machine.CPU != "" {
			m = fmt.Sprintf("%s, %d cores", r.Machine.CPU, r.Machine.Cores)
			if r.Machine.Memory != "" {
				m += ", " + r.Machine.Memory
			}
		}
		if !slices.Contains(machines, m) {
			machines = append(machines, m)
		}
		if r.Date.Before(first) {
			first = r.Date
		}
		if r.Date.After(last) {
			last = r.Date
		}
	}
	dates := last.UTC().Format("2006-01-02")
	if d := first.UTC().Format("2006-01-02"); d != dates {
		dates = d + " to " + dates
	}
	return "Meerkat benchmarks: newest result of each script\n" + strings.Join(machines, "; ") + " — " + dates
}

// drawLegend explains colours and marks in the strip c.
func drawLegend(c draw.Canvas) {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = 10
	l.Padding = vg.Points(5)
	for _, e := range []struct {
		name string
		col  color.Color
	}{{"meets its bar", colourMeets}, {"misses its bar", colourMisses}, {"no bar", colourNoBar}} {
		l.Add(e.name, &plotter.BarChart{Color: e.col})
	}
	l.Add("bar (target)", vertical{barStyle})
	l.Add("95% interval", &plotter.Line{LineStyle: draw.LineStyle{Color: color.Gray{0x30}, Width: vg.Points(1.2)}})
	l.Add("1.0 (parity)", vertical{parityStyle})
	l.Draw(c)
}

// vertical is a legend thumbnail: a vertical line.
type vertical struct{ draw.LineStyle }

func (v vertical) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.LineStyle, x, c.Min.Y, x, c.Max.Y)
}

// drawFootnote writes the disclaimer and the provenance of the figures at the top of c.
func drawFootnote(c draw.Canvas, used []result) {
	disclaimer, when := "", time.Time{}
	for _, r := range used { // the newest file's
		if r.Disclaimer != "" && (disclaimer == "" || r.Date.After(when)) {
			disclaimer, when = r.Disclaimer, r.Date
		}
	}
	if disclaimer == "" {
		disclaimer = "One machine on one day."
	}
	sty := text.Style{
		Color:   color.Gray{0x40},
		Font:    font.From(plot.DefaultFont, 9.5),
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
	txt := disclaimer + "\nEach row: the newest bench/results/*.json of its script (by \"date\"); bars are the ratios the scripts record, rules-load the median parse time."
	c.FillText(sty, vg.Point{X: c.Min.X, Y: c.Max.Y - vg.Points(4)}, txt)
}

// scalingSizes adds the figures of one set of scaling sizes at prefix (each size against the
// smallest, with the set's bar when it has one), their names starting with label.
func scalingSizes(o obj, prefix []string, label string, add func(figure), miss func(string)) {
	at := func(p ...string) []string { return append(append([]string(nil), prefix...), p...) }
	m, _ := o.get(at("sizes")...)
	sizes, ok := m.(map[string]any)
	if !ok {
		miss("scaling: " + label + "no sizes")
		return
	}
	keys := numericKeys(sizes)
	if len(keys) < 2 {
		miss("scaling: " + label + "fewer than two sizes")
		return
	}
	base, ok := o.pos(at("sizes", keys[0], "median_pps")...)
	if !ok {
		miss("scaling: " + label + "no median_pps for " + keys[0] + " rules")
		return
	}
	for _, k := range keys[1:] {
		v, ok := o.pos(at("sizes", k, "median_pps")...)
		if !ok {
			miss("scaling: " + label + "no median_pps for " + k + " rules")
			continue
		}
		f := figure{Name: label + k + " / " + keys[0] + " rules", Value: v / base, HigherIsBetter: true}
		if k == keys[len(keys)-1] {
			f.Bar, f.HasBar = o.bar(at("bar")...)
		}
		add(f)
	}
}
