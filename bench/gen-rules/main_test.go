package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/rules"
)

// output runs the command as main does and returns stdout.
func output(t *testing.T, o options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := run(o, "", 0, &buf); err != nil {
		t.Fatalf("run(%+v): %v", o, err)
	}
	return buf.Bytes()
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func lines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func opts(n int, seed uint64, order string, sticky bool, broadSIDs string) options {
	return options{n: n, seed: seed, order: order, broad: 0.1, sticky: sticky, broadSIDs: broadSIDs}
}

func TestSameSeedSameBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    options
	}{
		{"sorted", opts(2000, 1, "sorted", false, "high")},
		{"shuffled", opts(2000, 1, "shuffled", false, "high")},
		{"reversed sticky", opts(2000, 7, "reversed", true, "high")},
		{"broadlast mixed", opts(2000, 3, "broadlast", false, "mixed")},
		{"all broad", options{n: 500, seed: 2, order: "shuffled", broad: 1, broadSIDs: "high"}},
		{"no broad", options{n: 500, seed: 2, order: "sorted", broad: 0, broadSIDs: "high"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := output(t, tc.o), output(t, tc.o)
			if !bytes.Equal(a, b) {
				t.Fatal("two runs with the same flags differ")
			}
			if got := len(lines(a)); got != tc.o.n {
				t.Fatalf("%d lines, want %d", got, tc.o.n)
			}
			other := tc.o
			other.seed++
			if bytes.Equal(a, output(t, other)) {
				t.Fatal("another seed gives the same bytes")
			}
		})
	}
	fa, err := firewallPolicy(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := firewallPolicy(100, 1)
	if !slices.Equal(fa, fb) {
		t.Fatal("firewall policies of one seed differ")
	}
}

func TestOrdersHoldTheSameLines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		broadSIDs string
		sticky    bool
	}{
		{"high", "high", false},
		{"mixed", "mixed", false},
		{"high sticky", "high", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sortedOut := output(t, opts(3000, 5, "sorted", tc.sticky, tc.broadSIDs))
			sorted := lines(sortedOut)
			sids := make([]int, len(sorted))
			for i, l := range sorted {
				r, err := rules.Parse(l)
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				sids[i] = int(r.SID)
			}
			for i := range sids {
				if sids[i] != tdSIDBase+i {
					t.Fatalf("sorted line %d has sid %d, want %d", i+1, sids[i], tdSIDBase+i)
				}
			}
			want := slices.Sorted(slices.Values(sorted))
			isBroad := func(l string) bool { return !strings.Contains(l, "content:") }
			for _, order := range orders {
				out := output(t, opts(3000, 5, order, tc.sticky, tc.broadSIDs))
				got := lines(out)
				if !slices.Equal(slices.Sorted(slices.Values(got)), want) {
					t.Fatalf("%s: not the same multiset of lines as sorted", order)
				}
				switch order {
				case "shuffled":
					if slices.Equal(got, sorted) {
						t.Fatal("shuffled is sorted")
					}
				case "reversed":
					if !slices.Equal(got, reversed(sorted)) {
						t.Fatal("reversed is not sorted backwards")
					}
				case "broadlast":
					split := slices.IndexFunc(got, isBroad)
					if split < 0 || slices.ContainsFunc(got[split:], func(l string) bool { return !isBroad(l) }) {
						t.Fatal("broadlast: a TD rule after the first broad rule")
					}
					var td, broad []string
					for _, l := range sorted {
						if isBroad(l) {
							broad = append(broad, l)
						} else {
							td = append(td, l)
						}
					}
					if !slices.Equal(got, append(td, broad...)) {
						t.Fatal("broadlast: not TD rules then broad rules, each in sid order")
					}
					if same := bytes.Equal(out, sortedOut); same != (tc.broadSIDs == "high") {
						t.Fatalf("broadlast equal to sorted: %v with -broadsids %s", same, tc.broadSIDs)
					}
				}
			}
		})
	}
}

// ruleset is the -n 10000 -seed 1 output, with and without -sticky, parsed once.
type ruleset struct {
	lines  []string
	parsed []*rules.Rule
}

var (
	setsOnce sync.Once
	sets     map[bool]ruleset
)

func rulesets(t *testing.T) map[bool]ruleset {
	t.Helper()
	setsOnce.Do(func() {
		sets = map[bool]ruleset{}
		for _, sticky := range []bool{false, true} {
			var rs ruleset
			var buf bytes.Buffer
			if err := run(opts(10000, 1, "sorted", sticky, "high"), "", 0, &buf); err != nil {
				panic(err)
			}
			rs.lines = lines(buf.Bytes())
			for _, l := range rs.lines {
				r, err := rules.Parse(l)
				if err != nil {
					panic(l + ": " + err.Error())
				}
				rs.parsed = append(rs.parsed, r)
			}
			sets[sticky] = rs
		}
	})
	return sets
}

// classify names a parsed rule's kind from its text and parse, independently of the
// generator's own bookkeeping.
func classify(r *rules.Rule) kind {
	isSticky := r.AppProto != ""
	for _, b := range r.Buffers {
		if b.Name != "pkt_data" {
			isSticky = true
		}
	}
	hasPCRE := strings.Contains(r.Raw, "pcre:")
	switch {
	case isSticky:
		return kSticky
	case len(r.Contents()) == 0 && !hasPCRE:
		// By header: the parser also types UDP rules with ports ip_only (Suricata allows ports
		// in IP-only rules) and lists with negations like_ip_only.
		if strings.HasPrefix(r.Raw, "alert ip ") {
			return kIPOnly
		}
		return kHeader
	case strings.HasPrefix(r.Raw, "drop "):
		return kDrop
	case strings.HasPrefix(r.Raw, "pass "):
		return kPass
	case len(r.Flowbits) > 0 && r.Flowbits[0].Cmd == "set":
		return kFlowSet
	case len(r.Flowbits) > 0 && r.Flowbits[0].Cmd == "isset":
		return kFlowIsset
	case r.Threshold != nil:
		return kThreshold
	case r.DetectionFilter != nil:
		return kDetFilter
	case hasPCRE:
		return kPCRE
	}
	return kContent
}

func TestMix(t *testing.T) {
	sets := rulesets(t)
	// Expected shares of all 10,000 rules: 1,000 broad (700 IP-only, 300 header-only) and
	// 9,000 TD rules split as the doc comment says.
	td := 0.9
	for _, tc := range []struct {
		sticky bool
		want   map[kind]float64
	}{
		{false, map[kind]float64{kContent: 0.62 * td, kPCRE: 0.15 * td, kFlowSet: 0.05 * td, kFlowIsset: 0.05 * td,
			kThreshold: 0.08 * td, kDetFilter: 0.02 * td, kDrop: 0.02 * td, kPass: 0.01 * td, kIPOnly: 0.07, kHeader: 0.03}},
		{true, map[kind]float64{kContent: 0.22 * td, kSticky: 0.40 * td, kPCRE: 0.15 * td, kFlowSet: 0.05 * td, kFlowIsset: 0.05 * td,
			kThreshold: 0.08 * td, kDetFilter: 0.02 * td, kDrop: 0.02 * td, kPass: 0.01 * td, kIPOnly: 0.07, kHeader: 0.03}},
	} {
		rs := sets[tc.sticky]
		var count [nKinds]int
		for _, r := range rs.parsed {
			count[classify(r)]++
		}
		var report []string
		for k := range nKinds {
			got := float64(count[k]) / float64(len(rs.parsed))
			report = append(report, fmt.Sprintf("%s=%.2f%%", k, 100*got))
			if d := got - tc.want[k]; d > 0.005 || d < -0.005 {
				t.Errorf("sticky %v: %s is %.2f%% of the rules, want %.2f%% (±0.5)", tc.sticky, k, 100*got, 100*tc.want[k])
			}
		}
		t.Logf("sticky %v: %s", tc.sticky, strings.Join(report, " "))
	}

	// Payload rules: fast-pattern lengths, modifiers, flowbits pairs, broad rules without a
	// fast pattern.
	rs := sets[false]
	var fps, fpIn, fpExplicit, contents, nocase, positional, relative, pcreR int
	bySID := map[uint32]*rules.Rule{}
	for _, r := range rs.parsed {
		bySID[r.SID] = r
	}
	for _, r := range rs.parsed {
		k := classify(r)
		fp, ok := r.FastPattern()
		if k.broad() {
			if ok {
				t.Fatalf("broad rule sid %d has a fast pattern", r.SID)
			}
			continue
		}
		if !ok {
			t.Fatalf("TD rule sid %d has no fast pattern", r.SID)
		}
		fps++
		if n := len(fp.Pattern()); n < 4 {
			t.Fatalf("sid %d: fast pattern of %d bytes", r.SID, n)
		} else if n <= 20 {
			fpIn++
		}
		if fp.Explicit {
			fpExplicit++
		}
		for _, c := range r.Contents() {
			contents++
			if c.Nocase {
				nocase++
			}
			if c.Depth.Set || c.Offset.Set {
				positional++
			}
			if c.Distance.Set || c.Within.Set {
				relative++
			}
		}
		if strings.Contains(r.Raw, "/R") {
			pcreR++
		}
		if k == kFlowIsset {
			set := bySID[r.SID-1]
			if set == nil || classify(set) != kFlowSet || !set.NoAlert || set.Flowbits[0].Names[0] != r.Flowbits[0].Names[0] {
				t.Fatalf("isset rule sid %d does not follow its set+noalert rule", r.SID)
			}
		}
	}
	t.Logf("fast patterns 4-20 bytes: %d/%d, explicit fast_pattern %d; contents %d: nocase %d, depth/offset %d, distance/within %d; pcre with R %d",
		fpIn, fps, fpExplicit, contents, nocase, positional, relative, pcreR)
	share := func(a, b int) float64 { return float64(a) / float64(b) }
	switch {
	case share(fpIn, fps) < 0.85:
		t.Errorf("only %d of %d fast patterns are 4-20 bytes", fpIn, fps)
	case share(fpExplicit, fps) < 0.15:
		t.Errorf("only %d of %d fast patterns are explicit", fpExplicit, fps)
	case share(nocase, contents) < 0.15 || share(nocase, contents) > 0.5:
		t.Errorf("%d of %d contents are nocase", nocase, contents)
	case share(positional, contents) < 0.1:
		t.Errorf("only %d of %d contents have depth/offset", positional, contents)
	case share(relative, contents) < 0.2:
		t.Errorf("only %d of %d contents have distance/within", relative, contents)
	case pcreR == 0:
		t.Error("no pcre with R")
	}
}

// load runs the project's loader with the engine's Supported hook, as meerkat does.
func load(t *testing.T, text []string, firewall bool) (*rules.Loader, []error, rules.Stats) {
	t.Helper()
	l := rules.NewLoader(nil)
	l.Supported = detect.Supported
	l.Options.Firewall = firewall
	errs, st := l.LoadBytes("gen.rules", []byte(strings.Join(text, "\n")+"\n"))
	return l, errs, st
}

func TestLoad(t *testing.T) {
	sets := rulesets(t)
	for _, sticky := range []bool{false, true} {
		rs := sets[sticky]
		stickySIDs := map[uint32]bool{}
		for _, r := range rs.parsed {
			if classify(r) == kSticky {
				stickySIDs[r.SID] = true
			}
		}
		_, errs, st := load(t, rs.lines, false)
		t.Logf("sticky %v: %v; sticky rules %d", sticky, st, len(stickySIDs))
		if st.Loaded+st.Failed != len(rs.lines) || st.Skipped != 0 {
			t.Fatalf("sticky %v: %v for %d rules", sticky, st, len(rs.lines))
		}
		if st.Failed != len(stickySIDs) || len(errs) != len(stickySIDs) {
			t.Fatalf("sticky %v: %d rules failed (%d errors), want the %d sticky-buffer rules", sticky, st.Failed, len(errs), len(stickySIDs))
		}
		if !sticky && st.Failed != 0 {
			t.Fatal("rules failed without -sticky")
		}
		for _, e := range errs {
			re, ok := e.(*rules.Error)
			if !ok || re.Kind != rules.KindUnsupported || !stickySIDs[re.SID] || !strings.Contains(re.Error(), "not supported yet") {
				t.Fatalf("unexpected load error: %v", e)
			}
		}
	}
}

func TestFirewallPolicy(t *testing.T) {
	for _, n := range []int{40, 100, 500} {
		fw, err := firewallPolicy(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		var ruleLines []string
		for _, l := range fw {
			if !strings.HasPrefix(l, "#") {
				ruleLines = append(ruleLines, l)
			}
		}
		if len(ruleLines) != n {
			t.Fatalf("-firewall-n %d: %d rules", n, len(ruleLines))
		}
		l, errs, st := load(t, fw, true)
		if len(errs) > 0 || st.Failed > 0 || st.Skipped > 0 || st.Loaded != n {
			t.Fatalf("-firewall-n %d: %v, errors %v", n, st, errs)
		}
		rs := l.Rules()
		for _, r := range rs {
			if !r.Firewall || !strings.HasPrefix(r.Raw, "accept:hook ") || len(r.Contents()) > 0 {
				t.Fatalf("not a broad accept:hook firewall rule: %s", r.Raw)
			}
		}
		last := rs[len(rs)-1]
		if !strings.HasPrefix(last.Raw, "accept:hook ip:all any any -> any any ") {
			t.Fatalf("last rule is not the catch-all: %s", last.Raw)
		}
	}
	if _, err := firewallPolicy(39, 1); err == nil {
		t.Fatal("-firewall-n 39 accepted")
	}
	// run writes the file.
	path := filepath.Join(t.TempDir(), "fw.rules")
	var buf bytes.Buffer
	if err := run(opts(100, 1, "sorted", false, "high"), path, 60, &buf); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, _ := firewallPolicy(60, 1)
	if string(data) != strings.Join(fw, "\n")+"\n" {
		t.Fatal("the -firewall file is not the policy")
	}
}

func TestBadFlags(t *testing.T) {
	for _, o := range []options{
		{n: 10, order: "random", broad: 0.1, broadSIDs: "high"},
		{n: 10, order: "sorted", broad: 1.5, broadSIDs: "high"},
		{n: -1, order: "sorted", broad: 0.1, broadSIDs: "high"},
		{n: 10, order: "sorted", broad: 0.1, broadSIDs: "low"},
	} {
		if err := run(o, "", 0, &bytes.Buffer{}); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestBuild compiles the 10,000 rules into a detection engine, and a firewall-mode engine with
// the firewall policy in front of them.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Hyperscan databases")
	}
	rs := rulesets(t)[false]
	l, _, _ := load(t, rs.lines, false)
	e, errs, err := detect.Build(l.Rules(), detect.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("%d rules did not compile, first: %v", len(errs), errs[0])
	}
	if e.Len() != len(rs.lines) {
		t.Fatalf("engine holds %d rules, want %d", e.Len(), len(rs.lines))
	}

	fw, _ := firewallPolicy(100, 1)
	fl, _, _ := load(t, fw, true)
	fl.Options.Firewall = false
	if errs, st := fl.LoadBytes("gen.rules", []byte(strings.Join(rs.lines[:2000], "\n"))); len(errs) > 0 {
		t.Fatalf("%v: %v", st, errs[0])
	}
	e, errs, err = detect.Build(fl.Rules(), detect.Config{Firewall: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("firewall mode: %d rules did not compile, first: %v", len(errs), errs[0])
	}
	if e.Len() != 2100 {
		t.Fatalf("firewall-mode engine holds %d rules, want 2100", e.Len())
	}
}

// mixOpts are the flags of a -header-mix run.
func mixOpts(n int, mix string, order string) options {
	return options{n: n, seed: 1, order: order, broad: 0.1, broadSIDs: "high", headerMix: mix, header: 0.05}
}

// TestHeaderMixes checks the two header-only mixes: their count, that they are header-only
// (no content, no fast pattern), load and compile, their headers (any/any for scan, $HOME_NET
// for et) and the keywords they carry.
func TestHeaderMixes(t *testing.T) {
	for _, tc := range []struct {
		mix, tag string
		// the keywords the mix must use, with the least share of its rules each
		keywords map[string]float64
	}{
		{"scan", "BENCH SCANDETECT ", map[string]float64{"flags:": 0.3, "dsize:": 0.1, "window:": 0.05, "itype:": 0.1, "icode:": 0.02, "fragbits:": 0.08, "ttl:": 0.08}},
		{"et", "BENCH HEADER ", map[string]float64{"flags:": 0.4, "dsize:": 0.1, "window:": 0.1, "itype:": 0.1, "fragbits:": 0.05, "ttl:": 0.02, "threshold:": 0.4}},
	} {
		t.Run(tc.mix, func(t *testing.T) {
			out := output(t, mixOpts(10000, tc.mix, "sorted"))
			ls := lines(out)
			if len(ls) != 10000 {
				t.Fatalf("%d lines", len(ls))
			}
			var mix []*rules.Rule
			for _, l := range ls {
				if !strings.Contains(l, "msg:\""+tc.tag) {
					continue
				}
				r, err := rules.Parse(l)
				if err != nil {
					t.Fatalf("%s: %v", l, err)
				}
				if _, ok := r.FastPattern(); ok || len(r.Contents()) > 0 || strings.Contains(l, "pcre:") {
					t.Fatalf("not header-only: %s", l)
				}
				if len(r.Matches) == 0 {
					t.Fatalf("no header keyword: %s", l)
				}
				mix = append(mix, r)
			}
			if len(mix) != 500 {
				t.Fatalf("%d rules of the %s mix, want 500 (5%% of 10,000)", len(mix), tc.mix)
			}
			for _, r := range mix {
				hdr, _, _ := strings.Cut(r.Raw, " (")
				f := strings.Fields(hdr) // action proto src sp -> dst dp
				if tc.mix == "scan" && (f[2] != "any" || f[5] != "any") {
					t.Fatalf("scan rule with addresses: %s", r.Raw)
				}
				if tc.mix == "et" && f[2] != "$HOME_NET" && f[5] != "$HOME_NET" {
					t.Fatalf("et rule without $HOME_NET: %s", r.Raw)
				}
			}
			for kw, least := range tc.keywords {
				n := 0
				for _, r := range mix {
					if strings.Contains(r.Raw, " "+kw) {
						n++
					}
				}
				if share := float64(n) / float64(len(mix)); share < least {
					t.Errorf("%s: %.1f%% of the rules, want at least %.0f%%", kw, 100*share, 100*least)
				}
			}
			_, errs, st := load(t, ls, false)
			if len(errs) > 0 || st.Loaded != len(ls) {
				t.Fatalf("%v, first error %v", st, errs)
			}
			// The orders hold the same lines; the same flags give the same bytes.
			for _, o := range orders {
				got := lines(output(t, mixOpts(10000, tc.mix, o)))
				slices.Sort(got)
				want := slices.Clone(ls)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("-order %s holds other lines", o)
				}
			}
			if !bytes.Equal(out, output(t, mixOpts(10000, tc.mix, "sorted"))) {
				t.Fatal("two runs differ")
			}
		})
	}
	// 5% of 50,000, and no mix rule without -header-mix.
	for _, mix := range []string{"et", "scan", "none", ""} {
		rs, err := generate(mixOpts(50000, mix, "sorted"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rs {
			if r.kind == kMix {
				n++
			}
		}
		want := 2500
		if mix == "none" || mix == "" {
			want = 0
		}
		if n != want || len(rs) != 50000 {
			t.Errorf("-header-mix %q: %d mix rules of %d, want %d", mix, n, len(rs), want)
		}
	}
}

// TestHeaderMixesBuild compiles both mixes into a detection engine.
func TestHeaderMixesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Hyperscan databases")
	}
	for _, mix := range []string{"et", "scan"} {
		l, _, _ := load(t, lines(output(t, mixOpts(3000, mix, "shuffled"))), false)
		e, errs, err := detect.Build(l.Rules(), detect.Config{})
		if err != nil || len(errs) > 0 {
			t.Fatalf("%s: %v %v", mix, err, errs)
		}
		if e.Len() != 3000 {
			t.Fatalf("%s: %d rules", mix, e.Len())
		}
		e.Close()
	}
}

func TestBadMixFlags(t *testing.T) {
	for _, o := range []options{
		{n: 10, order: "sorted", broad: 0.1, broadSIDs: "high", headerMix: "all", header: 0.05},
		{n: 10, order: "sorted", broad: 0.1, broadSIDs: "high", headerMix: "scan", header: 1.5},
		{n: 100, order: "sorted", broad: 0.98, broadSIDs: "high", headerMix: "et", header: 0.05},
		{n: 100, order: "sorted", broad: 0.1, broadSIDs: "high", sidBase: 2200950},
		{n: 100, order: "sorted", broad: 0.1, broadSIDs: "high", sidBase: 2201001},
		{n: 100, order: "sorted", broad: 0.1, broadSIDs: "high", sidBase: -5},
	} {
		if err := run(o, "", 0, &bytes.Buffer{}); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestSIDBase checks that -sidbase moves the sids and nothing else.
func TestSIDBase(t *testing.T) {
	o := mixOpts(300, "scan", "sorted")
	a := lines(output(t, o))
	o.sidBase = 4000000
	b := lines(output(t, o))
	for i := range a {
		ra, err1 := rules.Parse(a[i])
		rb, err2 := rules.Parse(b[i])
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if rb.SID != ra.SID-tdSIDBase+4000000 {
			t.Fatalf("sid %d with -sidbase 4000000, %d without", rb.SID, ra.SID)
		}
		if strings.ReplaceAll(b[i], fmt.Sprintf("sid:%d;", rb.SID), "") != strings.ReplaceAll(a[i], fmt.Sprintf("sid:%d;", ra.SID), "") {
			t.Fatalf("line %d differs beyond its sid:\n%s\n%s", i, a[i], b[i])
		}
	}
}
