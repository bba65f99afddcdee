package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
	"github.com/meerkat-ids/meerkat/rules"
)

// ruleSet is what start-up loaded: the rules, the counts Suricata reports, the classification
// and reference tables, and the threshold.config entries.
type ruleSet struct {
	rules           []*rules.Rule
	engine          *detect.Engine
	stats           rules.Stats
	classifications map[string]config.Classification
	references      map[string]string
	thresholds      []rules.ThresholdEntry
}

// loadGCPercent is the collector's pace (GOGC) while the rules load and the engine builds.
const loadGCPercent = 400

// firewallSetup is firewall mode's part of start-up: its rule files (loaded first, strictly)
// and its default policies.
type firewallSetup struct {
	files    []string
	policies *firewall.Policies
}

// loadRules parses every rule file with Suricata's loader semantics: a bad rule is reported
// (file, line, sid, keyword, reason), skipped and counted, unless --init-errors-fatal makes
// any failure stop start-up. It also reads the classification, reference and threshold files
// the configuration names; a missing one is a warning, as in Suricata.
//
// In firewall mode (fw not nil) the firewall rule files are loaded first, as firewall rules,
// and strictly: any rule that fails or is skipped stops start-up, as in Suricata.
func loadRules(o *options, st *config.Settings, fw *firewallSetup, files []string, stderr io.Writer) (*ruleSet, error) {
	// Loading allocates much that it drops at once (parse trees, compile tables): with the
	// collector at its default pace a third of a cached start-up went to collections. A
	// sparser pace while loading costs some 60 MB of peak RSS with ET Open and saves ~0.5 s
	// of CPU; a GOGC the user set is kept.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(loadGCPercent))
	}
	rs := &ruleSet{}
	var err error
	if rs.classifications, err = config.LoadClassifications(st.ClassificationFile); err != nil {
		if o.initErrorsFatal && !errors.Is(err, os.ErrNotExist) {
			return nil, &startupError{err}
		}
		warn(stderr, fmt.Sprintf("classification file: %v", err))
	}
	if rs.references, err = config.LoadReferences(st.ReferenceConfigFile); err != nil {
		if o.initErrorsFatal && !errors.Is(err, os.ErrNotExist) {
			return nil, &startupError{err}
		}
		warn(stderr, fmt.Sprintf("reference config file: %v", err))
	}
	loader := rules.NewLoader(&st.Vars)
	loader.Supported = detect.Supported
	disabled, err := rules.DisabledAppProtos(st.AppLayerEnabled)
	if err != nil {
		return nil, fail("configuration: %v", err)
	}
	loader.Options.DisabledAppProtos = disabled
	if fw != nil {
		loader.Options.Firewall = true
		for _, f := range fw.files {
			errs, fst := loader.LoadFile(f)
			for _, e := range errs {
				fmt.Fprintf(stderr, "meerkat: rule error: %v\n", e)
			}
			if len(errs) > 0 || fst.Failed > 0 || fst.Skipped > 0 {
				return nil, fail("firewall rule file %s did not load (%d error(s) above): every firewall rule must load", f, len(errs))
			}
			fmt.Fprintf(stderr, "meerkat: firewall: %d rules loaded from %s\n", fst.Loaded, f)
		}
		loader.Options.Firewall = false
		for _, r := range loader.Rules() {
			for _, kw := range r.Keywords() {
				if k := rules.Lookup(kw); k != nil && !k.IsFirewallSupported() {
					warn(stderr, fmt.Sprintf("%s:%d: sid %d: keyword '%s' has not been tested for firewall rules", r.File, r.Line, r.SID, kw))
				}
			}
		}
	}
	badFiles, unsupported := 0, 0
	for _, f := range files {
		errs, _ := loader.LoadFile(f)
		for _, e := range errs {
			var re *rules.Error
			kind := rules.KindFailed
			if errors.As(e, &re) {
				kind = re.Kind
			}
			switch kind {
			case rules.KindFailed, rules.KindUnsupported, rules.KindFile:
				fmt.Fprintf(stderr, "meerkat: rule error: %v\n", e)
				if kind == rules.KindFile {
					badFiles++
				}
				if kind == rules.KindUnsupported {
					unsupported++
				}
			case rules.KindSkipped:
				if o.verbose > 0 {
					fmt.Fprintf(stderr, "meerkat: info: rule skipped: %v\n", e)
				}
			default:
				warn(stderr, fmt.Sprintf("rule %s: %v", kind, e))
			}
		}
	}
	rs.rules = loader.Rules()
	rs.stats = loader.Stats()
	// Build the detection engine now, as a real run does (so -T costs what start-up costs).
	// Rules the engine cannot evaluate (an app-layer protocol, stream inspection) fail here.
	cache := ""
	if st.Detect.SGHMPMCaching {
		cache = st.Detect.SGHMPMCachingPath
	}
	if err := loadThresholds(o, st, rs, stderr); err != nil {
		return nil, err
	}
	dc := detect.Config{
		ActionOrder: st.ActionOrder, PacketAlertMax: st.PacketAlertMax, MPMCacheDir: cache,
		Classifications: rs.classifications, IPS: o.simulateIPS, Thresholds: rs.thresholds,
		Grouping: grouping(st, stderr), PrefilterDefault: st.Detect.PrefilterDefault,
		GuessAppLayerTx: st.Detect.GuessApplayerTx, StreamTxLogLimit: st.Detect.StreamTxLogLimit,
	}
	if fw != nil {
		dc.Firewall, dc.IPS, dc.Policies = true, true, fw.policies
	}
	engine, buildErrs, err := detect.Build(rs.rules, dc)
	if err != nil {
		return nil, &startupError{err}
	}
	// MEERKAT_HEAPPROFILE=<file> writes the live heap once the engine is built (what start-up
	// keeps: `go tool pprof -sample_index=inuse_space`).
	if path := os.Getenv("MEERKAT_HEAPPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			runtime.GC()
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	for _, e := range buildErrs {
		fmt.Fprintf(stderr, "meerkat: rule error: %v\n", e)
		var be *detect.BuildError
		if errors.As(e, &be) && be.Rule.Firewall {
			return nil, fail("firewall rule %s:%d (sid %d) cannot be evaluated; firewall rules must all load", be.Rule.File, be.Rule.Line, be.Rule.SID)
		}
		unsupported++ // the engine cannot evaluate it yet; Suricata would load it
	}
	if cache != "" && st.Detect.SGHMPMCachingMaxAge > 0 {
		// As Suricata 8 does after compiling: databases unused for sgh-mpm-caching-max-age go.
		if _, err := hs.PruneCache(cache, st.Detect.SGHMPMCachingMaxAge, 0); err != nil {
			warn(stderr, fmt.Sprintf("pruning the pattern database cache %s: %v", cache, err))
		}
	}
	rs.stats.Loaded -= len(buildErrs)
	rs.stats.Failed += len(buildErrs)
	rs.engine = engine
	fmt.Fprintln(stderr, "meerkat: "+rs.stats.String())
	if err := strictLoadError(o, rs.stats.Failed, unsupported, badFiles); err != nil {
		return nil, err
	}
	if o.testConfig && !o.initErrorsFatal && unsupported > 0 {
		warn(stderr, fmt.Sprintf("%d rule(s) use keywords or protocols Meerkat does not support yet: Suricata loads them, "+
			"so -T does not fail on them, but Meerkat will not evaluate them", unsupported))
	}
	return rs, nil
}

// strictLoadError applies -T and --init-errors-fatal (both set Suricata's
// engine.init-failure-fatal) once the rules are loaded: a rule that failed (a duplicate sid
// included, as in Suricata, and in the same count as the summary line) or a rule file that
// could not be read stops start-up with "Loading signatures failed.". With -T alone the rules
// that fail only because Meerkat does not support their keywords or protocol yet do not count:
// Suricata loads them, so they say nothing against the configuration; they are reported above
// and will not be evaluated.
func strictLoadError(o *options, failed, unsupported, badFiles int) error {
	if !o.initErrorsFatal && !o.testConfig {
		return nil
	}
	flag := "--init-errors-fatal"
	if !o.initErrorsFatal {
		flag = "-T"
		failed -= unsupported
	}
	if failed <= 0 && badFiles == 0 {
		return nil
	}
	return fail("Loading signatures failed. %d rule(s) failed and %d rule file(s) could not be read (%s makes any failure fatal)",
		failed, badFiles, flag)
}

// grouping returns the signature-group settings of the detect section. A priority port list
// that does not parse, or holds a range, is dropped with a warning, as Suricata does.
func grouping(st *config.Settings, stderr io.Writer) detect.Grouping {
	d := st.Detect
	g := detect.Grouping{Profile: d.Profile, CustomToClient: d.CustomToClientGroups, CustomToServer: d.CustomToServerGroups,
		SharedMPM: d.SGHMPMContext == "single", PerGroupMPM: d.SGHMPMContext == "full"}
	parse := func(key, text string) []uint16 {
		ports, err := detect.ParsePriorityPorts(text, &st.Vars)
		if err != nil {
			warn(stderr, fmt.Sprintf("'%s' is not a valid value for detect.grouping.%s: %v", text, key, err))
			return []uint16{}
		}
		return ports
	}
	g.TCPPriorityPorts = parse("tcp-priority-ports", d.TCPPriorityPorts)
	g.UDPPriorityPorts = parse("udp-priority-ports", d.UDPPriorityPorts)
	return g
}

// loadThresholds reads threshold.config when the configuration names one that exists (a
// missing default file is normal, as in Suricata).
func loadThresholds(o *options, st *config.Settings, rs *ruleSet, stderr io.Writer) error {
	if st.ThresholdFile == "" {
		return nil
	}
	if _, err := os.Stat(st.ThresholdFile); err != nil && st.ThresholdFile == config.DefaultThresholdFile {
		return nil
	}
	entries, errs := rules.LoadThresholdConfig(st.ThresholdFile, &st.Vars)
	for _, e := range errs {
		fmt.Fprintf(stderr, "meerkat: threshold error: %v\n", e)
	}
	if o.initErrorsFatal && len(errs) > 0 {
		return fail("threshold-file %s has errors and --init-errors-fatal is set", st.ThresholdFile)
	}
	rs.thresholds = entries
	return nil
}

// analysisRecord is one line of rules.json written by --engine-analysis.
type analysisRecord struct {
	Raw      string       `json:"raw"`
	ID       uint32       `json:"id"`
	GID      uint32       `json:"gid"`
	Rev      uint32       `json:"rev"`
	Msg      string       `json:"msg"`
	File     string       `json:"file"`
	Line     int          `json:"line"`
	AppProto string       `json:"app_proto,omitempty"`
	Type     string       `json:"type"`
	Buffers  []string     `json:"buffers,omitempty"`
	Keywords []string     `json:"keywords"`
	MPM      *analysisMPM `json:"mpm,omitempty"`
	Flowbits []string     `json:"flowbits,omitempty"`
	// Prefilter says how the engine makes the rule a candidate; nil for a rule it did not
	// load.
	Prefilter *analysisPrefilter `json:"prefilter,omitempty"`
	Extra     *analysisNote      `json:"notes,omitempty"`
}

// analysisPrefilter is how a loaded rule becomes a candidate (detect.Rule.Candidacy): by its
// fast pattern ("mpm"), once per flow direction ("ip-only"), by a decoder event, by its
// header witness, or on every packet its header accepts, with the reason it has no witness.
type analysisPrefilter struct {
	Engine  string `json:"engine"`
	Witness string `json:"witness,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

type analysisMPM struct {
	Buffer   string `json:"buffer"`
	Pattern  string `json:"pattern"`
	Length   int    `json:"length"`
	Nocase   bool   `json:"nocase"`
	Negated  bool   `json:"negated"`
	Explicit bool   `json:"fast_pattern"`
}

type analysisNote struct {
	Warning string `json:"warning"`
}

// writeEngineAnalysis writes rules.json: one JSON object per rule and line, with its type as
// Suricata classifies it, its buffers, its keywords and its fast pattern.
func writeEngineAnalysis(rs *ruleSet, dir string) (string, error) {
	path := filepath.Join(dir, "rules.json")
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("engine analysis: %w", err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	loaded := map[*rules.Rule]*detect.Rule{}
	if rs.engine != nil {
		for _, cr := range rs.engine.Rules() {
			if _, ok := loaded[cr.Src]; !ok {
				loaded[cr.Src] = cr
			}
		}
	}
	for _, r := range rs.rules {
		rec := analysisRecord{Raw: r.Raw, ID: r.SID, GID: r.GID, Rev: r.Rev, Msg: r.Msg, File: r.File, Line: r.Line,
			AppProto: r.AppProto, Type: r.Type().String(), Keywords: r.Keywords()}
		for _, b := range r.Buffers {
			rec.Buffers = append(rec.Buffers, b.Name)
		}
		for _, fb := range r.Flowbits {
			rec.Flowbits = append(rec.Flowbits, fmt.Sprint(fb))
		}
		if fp, ok := r.FastPattern(); ok {
			p := fp.Pattern()
			rec.MPM = &analysisMPM{Buffer: fp.Buffer, Pattern: printablePattern(p), Length: len(p),
				Nocase: fp.Content.Nocase, Negated: fp.Content.Negated, Explicit: fp.Explicit}
		}
		if cr := loaded[r]; cr != nil {
			kind, witness, reason := cr.Candidacy()
			rec.Prefilter = &analysisPrefilter{Engine: kind, Witness: witness, Reason: reason}
		}
		if err := enc.Encode(rec); err != nil {
			f.Close()
			return "", fmt.Errorf("engine analysis: %w", err)
		}
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("engine analysis: %w", err)
	}
	return path, nil
}

// printablePattern writes a pattern as Suricata's analyzer does: printable bytes as they are,
// others as |XX|.
func printablePattern(p []byte) string {
	var b strings.Builder
	for _, c := range p {
		if c >= 0x20 && c < 0x7f && c != '|' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "|%02X|", c)
		}
	}
	return b.String()
}

// listKeywords prints the keyword registry: names only; with "all", one line per keyword with
// its kind, aliases and description; with "csv", the same as CSV; with a keyword's name, that
// keyword's details.
func listKeywords(w io.Writer, arg string) error {
	kws := rules.Keywords()
	sort.Slice(kws, func(i, j int) bool { return kws[i].Name < kws[j].Name })
	// A keyword the parser knows but the engine cannot evaluate yet makes its rules fail to
	// load: say so wherever keywords are listed.
	refused := func(k *rules.Keyword) bool { return !detect.Supported(k.Name) }
	const refusedNote = "not supported yet: rules that use it fail to load"
	switch arg {
	case "":
		fmt.Fprintln(w, "=====Supported keywords=====")
		for _, k := range kws {
			if refused(k) {
				fmt.Fprintf(w, "- %s (%s)\n", k.Name, refusedNote)
				continue
			}
			fmt.Fprintf(w, "- %s\n", k.Name)
		}
	case "all", "csv":
		if arg == "csv" {
			fmt.Fprintln(w, "name;kind;aliases;description;supported")
		}
		for _, k := range kws {
			if arg == "csv" {
				fmt.Fprintf(w, "%s;%s;%s;%s;%s\n", k.Name, k.Kind, strings.Join(k.Aliases, ","), k.Desc, yesNo(!refused(k)))
			} else {
				fmt.Fprintf(w, "%s: %s", k.Name, k.Kind)
				if len(k.Aliases) > 0 {
					fmt.Fprintf(w, " (aliases: %s)", strings.Join(k.Aliases, ", "))
				}
				fmt.Fprintf(w, " - %s", k.Desc)
				if refused(k) {
					fmt.Fprintf(w, " [%s]", refusedNote)
				}
				fmt.Fprintln(w)
			}
		}
	default:
		k := rules.Lookup(arg)
		if k == nil {
			return fail("--list-keywords: unknown keyword %q", arg)
		}
		fmt.Fprintf(w, "= %s =\nKind: %s\nDescription: %s\n", k.Name, k.Kind, k.Desc)
		if len(k.Aliases) > 0 {
			fmt.Fprintf(w, "Aliases: %s\n", strings.Join(k.Aliases, ", "))
		}
		fmt.Fprintf(w, "IP-only compatible: %v\nFirewall: %v\n", k.IsIPOnlyCompatible(), k.IsFirewallSupported())
		if refused(k) {
			fmt.Fprintf(w, "Supported: no (%s)\n", refusedNote)
		} else {
			fmt.Fprintln(w, "Supported: yes")
		}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
