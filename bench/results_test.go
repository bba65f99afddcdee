// Package bench holds Meerkat's benchmark scripts, generators and recorded results; this test
// checks that every recorded result says where, when and how it was measured, and that the
// figures bench/README.md quotes are those of the newest results files.
package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// TestGoResultsFiles fails when a results/*-go.txt file (bench/go.sh's raw `go test -bench`
// output) lacks the header go.sh writes before it (date: RFC 3339, commit:, machine:, command:
// naming bench/go.sh, disclaimer:) or the lines of `go test -bench` itself (goos:, goarch:, cpu:
// and at least one Benchmark line).
func TestGoResultsFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(resultsDir, "*-go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no *-go.txt results files in bench/results")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first := map[string]string{} // the first line starting with each prefix, prefix cut
		benchmarks := 0
		for _, line := range strings.Split(string(data), "\n") {
			for _, p := range []string{"date:", "commit:", "machine:", "command:", "disclaimer:", "goos:", "goarch:", "cpu:"} {
				if v, ok := strings.CutPrefix(line, p); ok {
					if _, seen := first[p]; !seen {
						first[p] = strings.TrimSpace(v)
					}
				}
			}
			if strings.HasPrefix(line, "Benchmark") {
				benchmarks++
			}
		}
		for _, p := range []string{"goos:", "goarch:", "cpu:", "machine:", "disclaimer:"} {
			if first[p] == "" {
				t.Errorf("%s: no %q line", path, p)
			}
		}
		if benchmarks == 0 {
			t.Errorf("%s: no Benchmark lines", path)
		}
		if _, err := time.Parse(time.RFC3339, first["date:"]); err != nil {
			t.Errorf("%s: date line %q is not an RFC 3339 time", path, first["date:"])
		}
		if c := first["commit:"]; c == "" || c == "unknown" {
			t.Errorf("%s: no commit line", path)
		}
		if !strings.Contains(first["command:"], "bench/go.sh") {
			t.Errorf("%s: command line %q does not name bench/go.sh", path, first["command:"])
		}
	}
}

// readmePath and resultsDir are the files TestReadmeFiguresMatchResults checks.
var (
	readmePath = "README.md"
	resultsDir = "results"
)

// TestReadmeFiguresMatchResults checks issue #8's "the figures in bench/README.md are the ones
// in the newest results file": for every row of the "Latest results" table whose raw column
// names a results file, that file must exist, must be the newest results file of its script,
// and every figure quoted in the row's result column must be in it (see checkReadme).
func TestReadmeFiguresMatchResults(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	files, err := loadResults(resultsDir)
	if err != nil {
		t.Fatal(err)
	}
	problems := checkReadme(string(readme), files)
	for _, p := range problems {
		t.Error(p)
	}

	// The check must catch a figure changed in the README alone: change one figure that the
	// check finds in its row's own file to a number found in no results file of that script,
	// and the check must report it.
	t.Run("tampered figure", func(t *testing.T) {
		rows, err := latestRows(string(readme))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			f := files[r.file]
			if f == nil || !strings.HasSuffix(r.file, ".json") {
				continue
			}
			for _, fig := range figures(r.result) {
				if !fig.in(f) || strings.Count(r.result, fig.text) != 1 {
					continue
				}
				tampered := fig.text[:len(fig.text)-1] + string('0'+(fig.text[len(fig.text)-1]-'0'+1)%10)
				bad, ok := parseFigure(tampered)
				if !ok || bad.inAny(files, f.Script) {
					continue
				}
				row := r.line[:r.resultAt] + strings.Replace(r.line[r.resultAt:], fig.text, tampered, 1)
				for _, p := range checkReadme(strings.Replace(string(readme), r.line, row, 1), files) {
					if strings.Contains(p, "figure "+tampered+" ") {
						return
					}
				}
				t.Fatalf("changing %s to %s in the %s row was not reported", fig.text, tampered, r.file)
			}
		}
		t.Fatal("no figure in the README found in its results file to tamper with")
	})

	// A row naming a results file that is missing, or older than another of its script, fails.
	t.Run("stale or missing file", func(t *testing.T) {
		rows, err := latestRows(string(readme))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			f := files[r.file]
			if f == nil || newestOf(files, f.Script) != f {
				continue
			}
			var older *resultsFile
			for _, o := range files {
				if o.Script == f.Script && o != f {
					older = o
					break
				}
			}
			if older == nil {
				continue
			}
			for _, tc := range []struct{ name, want string }{
				{older.Name, "not the newest"},
				{"results/1999-01-01-nohost-" + f.Script + ".json", "does not exist"},
			} {
				changed := strings.Replace(string(readme), r.line, strings.Replace(r.line, r.file, tc.name, 1), 1)
				found := false
				for _, p := range checkReadme(changed, files) {
					found = found || strings.Contains(p, tc.name) && strings.Contains(p, tc.want)
				}
				if !found {
					t.Errorf("a row naming %s was not reported as %q", tc.name, tc.want)
				}
			}
			return
		}
		t.Skip("no script with more than one results file")
	})
}

// A resultsFile is one results/*.json file: its script, whether its name is exactly
// <date>-<host>-<script>.json, its date, and every number in it.
type resultsFile struct {
	Name   string // "results/<file name>", as the README's raw column names it
	Script string // from the bench/<script>.sh in its command, "_" as "-", earlier names renamed
	Exact  bool   // named <date>-<host>-<script>.json with no suffix
	Date   time.Time
	Nums   []keyedNumber
}

// A keyedNumber is a number in a results file and the key of the object member it is in ("" in
// arrays at the top level); numbers written inside strings count too.
type keyedNumber struct {
	Key   string
	Value float64
}

// renamedScripts maps earlier names of scripts to their names now (as bench/plot does):
// corpus.sh was detect.sh.
var renamedScripts = map[string]string{"detect": "corpus"}

var (
	commandScript = regexp.MustCompile(`bench/([A-Za-z0-9_-]+)\.sh`)
	datedName     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-`)
)

// loadResults reads every results/*.json file in dir, keyed by "results/<file name>".
func loadResults(dir string) (map[string]*resultsFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	files := map[string]*resultsFile{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		m, _ := doc.(map[string]any)
		date, _ := m["date"].(string)
		command, _ := m["command"].(string)
		machine, _ := m["machine"].(map[string]any)
		host, _ := machine["host"].(string)
		f := &resultsFile{Name: "results/" + filepath.Base(path)}
		if f.Date, err = time.Parse(time.RFC3339, date); err != nil {
			return nil, fmt.Errorf("%s: date %q: %v", path, date, err)
		}
		sm := commandScript.FindStringSubmatch(command)
		if sm == nil {
			return nil, fmt.Errorf("%s: command %q names no bench/<script>.sh", path, command)
		}
		named := strings.ReplaceAll(sm[1], "_", "-") // rules_load.sh writes ...-rules-load.json
		base := filepath.Base(path)
		f.Exact = datedName.MatchString(base) && base[len("2006-01-02-"):] == host+"-"+named+".json"
		f.Script = named
		if n, ok := renamedScripts[named]; ok {
			f.Script = n
		}
		collectNumbers("", doc, &f.Nums)
		files[f.Name] = f
	}
	return files, nil
}

// collectNumbers appends every number in v, and every number written in its strings (some
// scripts record measured counts in text: the rule loader's "3546 rules successfully loaded",
// a capture's "79878 packets", planted alerts "9000001=10"), to nums.
func collectNumbers(key string, v any, nums *[]keyedNumber) {
	switch v := v.(type) {
	case float64:
		*nums = append(*nums, keyedNumber{key, v})
	case string:
		for _, fig := range numberTokens(v) {
			*nums = append(*nums, keyedNumber{key, fig.value})
		}
	case []any:
		for _, e := range v {
			collectNumbers(key, e, nums)
		}
	case map[string]any:
		for k, e := range v {
			collectNumbers(k, e, nums)
		}
	}
}

// newestOf returns the newest results file of script: the latest "date" among the files named
// exactly <date>-<host>-<script>.json. Files with a suffix (-earlier-1, -seed1,
// -seed2-f3a7a43, ...) are older runs kept for the record, never the newest.
func newestOf(files map[string]*resultsFile, script string) *resultsFile {
	var best *resultsFile
	for _, f := range files {
		if f.Script != script || !f.Exact {
			continue
		}
		if best == nil || f.Date.After(best.Date) || f.Date.Equal(best.Date) && f.Name > best.Name {
			best = f
		}
	}
	return best
}

// A tableRow is one row of the README's "Latest results" table.
type tableRow struct {
	line     string // the whole line
	resultAt int    // where the result cell starts in line
	result   string // the result cell
	raw      string // the raw cell
	file     string // the results/... path the raw cell names, "" if none
}

var rawFile = regexp.MustCompile("`(results/[^`]+)`")

// latestRows returns the rows of the table in readme's "## Latest results" section.
func latestRows(readme string) ([]tableRow, error) {
	_, section, ok := strings.Cut(readme, "\n## Latest results")
	if !ok {
		return nil, fmt.Errorf("no \"## Latest results\" section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	resultCol, rawCol := -1, -1
	var rows []tableRow
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if resultCol >= 0 {
				break // the end of the table
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if resultCol < 0 { // the header
			for i, c := range cells {
				switch strings.TrimSpace(c) {
				case "result":
					resultCol = i
				case "raw":
					rawCol = i
				}
			}
			if resultCol < 0 || rawCol < 0 {
				return nil, fmt.Errorf("table header %q has no result and raw columns", line)
			}
			continue
		}
		if strings.Trim(line, "|-: ") == "" || len(cells) <= max(resultCol, rawCol) {
			continue // the separator, or a short row
		}
		r := tableRow{line: line, result: cells[resultCol], raw: strings.TrimSpace(cells[rawCol])}
		r.resultAt = 1 + len(strings.Join(cells[:resultCol], "|")) + 1
		if resultCol == 0 {
			r.resultAt = 1
		}
		if m := rawFile.FindStringSubmatch(r.raw); m != nil {
			r.file = m[1]
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows in the Latest results table")
	}
	return rows, nil
}

// notFigures are the numbers in a result cell that are not measured figures: each match is
// blanked before the figures are read. Numbers glued to letters (1k, 4ba851c) are never read
// as figures; the first pattern lists them anyway for the reader.
var notFigures = []*regexp.Regexp{
	regexp.MustCompile(`\b\d+k(?: / \d+k)*\b`),              // rule-count sizes: "1k / 10k / 50k", "of 1k"
	regexp.MustCompile(`\bbar:? \d+(?:\.\d+)?(?: s| min)?`), // the target: "bar 0.95", "bar 1 s", "bar: 15 min"
	regexp.MustCompile("\\d[\\d,]* (?:broad |threat-detection |`gen-rules` )?rules\\b" +
		`|\b\d+-rule\b|\bwith \d[\d,]*:`), // rule counts the script sets: "10,000 rules", "100-rule", "with 50,000:"
	regexp.MustCompile(`-flows \d+|\b\d+ rounds\b|\b[A-Z_]+=\S*`),                                // other inputs: "-flows 2000", "15 rounds", "ROUNDS=9"
	regexp.MustCompile(`\bon \d+ threads?\b|\b\d+-?vCPU\b`),                                      // thread and CPU counts: "on 2 threads", "2 vCPU"
	regexp.MustCompile(`\b\d+% intervals?\b`),                                                    // "95% intervals"
	regexp.MustCompile(`\bET Open \d{4}\b|\b\d{4}-\d{2}-\d{2}\b|\bcommit [0-9a-f]{7,40}\b|#\d+`), // years, dates, commits, issues
}

// A figure is a number as the README prints it.
type figure struct {
	text     string  // as printed, e.g. "1,189,161" or "0.752"
	value    float64 // with the thousands separators taken out
	decimals int     // digits after the point
	mib      bool    // followed by " MiB"
}

var numberToken = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`)

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// numberTokens returns the numbers in s that stand alone: not glued to a letter, digit or point
// before, nor to a letter or digit after, except a ratio's "x" ("1.152x").
func numberTokens(s string) []figure {
	var out []figure
	for _, loc := range numberToken.FindAllStringIndex(s, -1) {
		i, j := loc[0], loc[1]
		if i > 0 && (isWordByte(s[i-1]) || s[i-1] == '.') {
			continue
		}
		if j < len(s) && isWordByte(s[j]) && !(s[j] == 'x' && (j+1 == len(s) || !isWordByte(s[j+1]))) {
			continue
		}
		fig, ok := parseFigure(s[i:j])
		if !ok {
			continue
		}
		fig.mib = strings.HasPrefix(s[j:], " MiB")
		out = append(out, fig)
	}
	return out
}

// parseFigure parses a number as the README prints it.
func parseFigure(text string) (figure, bool) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(text, ",", ""), 64)
	if err != nil {
		return figure{}, false
	}
	dec := 0
	if i := strings.IndexByte(text, '.'); i >= 0 {
		dec = len(text) - i - 1
	}
	return figure{text: text, value: v, decimals: dec}, true
}

// figures returns the measured figures in a result cell: its numbers less notFigures.
func figures(result string) []figure {
	for _, re := range notFigures {
		result = re.ReplaceAllString(result, " ")
	}
	return numberTokens(result)
}

// matches reports whether v, printed as the README prints f, is f: rounded to f's decimals
// (an integer exactly). A figure in MiB also matches a number in KiB under a "_kb" key.
func (f figure) matches(n keyedNumber) bool {
	near := func(v float64) bool {
		if f.decimals == 0 && !f.mib {
			return v == f.value
		}
		scale := math.Pow(10, float64(f.decimals))
		return math.Abs(v*scale-f.value*scale) <= 0.5+1e-9
	}
	return near(n.Value) || f.mib && strings.HasSuffix(n.Key, "_kb") && near(n.Value/1024)
}

// in reports whether f is one of the numbers in r.
func (f figure) in(r *resultsFile) bool {
	for _, n := range r.Nums {
		if f.matches(n) {
			return true
		}
	}
	return false
}

// inAny reports whether f is in any results file of script, the older ones included.
func (f figure) inAny(files map[string]*resultsFile, script string) bool {
	for _, r := range files {
		if r.Script == script && f.in(r) {
			return true
		}
	}
	return false
}

// checkReadme returns what is wrong with the Latest results table of readme against files:
// a raw column naming a file that does not exist; a .json file that is not the newest results
// file of its script; a figure in the result column (figures) that is not in that file nor,
// as a figure of an earlier run the row quotes, in any other results file of its script.
// Rows whose raw column names no file ("(none)") are skipped; a .txt file (go.sh's raw output)
// must exist, its figures are not checked.
func checkReadme(readme string, files map[string]*resultsFile) []string {
	rows, err := latestRows(readme)
	if err != nil {
		return []string{"bench/README.md: " + err.Error()}
	}
	var problems []string
	for _, r := range rows {
		if r.file == "" {
			if r.raw != "(none)" {
				problems = append(problems, fmt.Sprintf("row with raw %q names no results file", r.raw))
			}
			continue
		}
		if strings.HasSuffix(r.file, ".txt") {
			if _, err := os.Stat(filepath.Join(resultsDir, filepath.Base(r.file))); err != nil {
				problems = append(problems, fmt.Sprintf("%s: does not exist", r.file))
			}
			continue
		}
		f := files[r.file]
		if f == nil {
			problems = append(problems, fmt.Sprintf("%s: does not exist", r.file))
			continue
		}
		if n := newestOf(files, f.Script); n != f {
			newest := "none named <date>-<host>-" + f.Script + ".json"
			if n != nil {
				newest = n.Name
			}
			problems = append(problems, fmt.Sprintf("%s: not the newest results file of %s.sh (newest: %s)", r.file, f.Script, newest))
		}
		for _, fig := range figures(r.result) {
			if !fig.in(f) && !fig.inAny(files, f.Script) {
				problems = append(problems, fmt.Sprintf("%s: figure %s in its README row is in no results file of %s.sh", r.file, fig.text, f.Script))
			}
		}
	}
	return problems
}
