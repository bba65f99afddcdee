package rules

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/meerkat-ids/meerkat/config"
)

// Stats counts what a Loader did, as Suricata's rule loader reports it.
type Stats struct {
	// Files is the number of rule files processed.
	Files int
	// Loaded counts the rules parsed successfully (a rule later replaced by a higher rev of
	// the same gid:sid stays counted, as in Suricata).
	Loaded int
	// Failed counts bad rules, duplicates and rules refused by the Supported hook.
	Failed int
	// Skipped counts rules whose requires keyword is not met.
	Skipped int
}

// String returns Suricata's summary line: "N rule files processed. X rules successfully
// loaded, Y rules failed, Z rules skipped".
func (s Stats) String() string {
	return fmt.Sprintf("%d rule files processed. %d rules successfully loaded, %d rules failed, %d rules skipped",
		s.Files, s.Loaded, s.Failed, s.Skipped)
}

// Add returns the sum of two Stats.
func (s Stats) Add(o Stats) Stats {
	return Stats{s.Files + o.Files, s.Loaded + o.Loaded, s.Failed + o.Failed, s.Skipped + o.Skipped}
}

// Loader parses rule files into one rule set: it keeps going after bad rules, applies
// Suricata's duplicate handling (same gid and sid: the higher rev wins, on a tie the first
// loaded wins) and counts loaded, failed and skipped rules. A Loader is not safe for
// concurrent use.
type Loader struct {
	// Options configure parsing (variables, disabled protocols, firewall mode, version).
	Options ParseOptions
	// Supported, when set, is asked for every keyword of every parsed rule; a rule using a
	// keyword it refuses fails with "keyword X is not supported yet". The detection engine
	// uses it for keywords it cannot evaluate.
	Supported func(keyword string) bool

	rules []*Rule
	index map[[2]uint32]int // gid,sid -> position in rules
	stats Stats
}

// NewLoader returns a Loader using vars for $VARIABLES (nil: Suricata's stock groups).
func NewLoader(vars *config.Vars) *Loader {
	return &Loader{Options: ParseOptions{Vars: vars}}
}

// Rules returns the loaded rules (replaced duplicates removed): files in load order; within
// a file, firewall rules in file order and threat-detection rules in sid order.
func (l *Loader) Rules() []*Rule {
	out := make([]*Rule, 0, len(l.rules))
	for _, r := range l.rules {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// Stats returns the counts so far.
func (l *Loader) Stats() Stats { return l.stats }

// LoadFile parses one rule file and adds its rules. It returns the problems found, one
// *Error per rule (or one for the file when it cannot be read), and the counts of this file.
func (l *Loader) LoadFile(path string) ([]error, Stats) {
	f, err := os.Open(path)
	if err != nil {
		l.stats.Files++
		return []error{&Error{File: path, Msg: err.Error(), Kind: KindFile}}, Stats{Files: 1}
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = int(fi.Size())
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, rerr := buf.ReadFrom(f)
	return l.load(path, buf.Bytes(), rerr)
}

// Load parses rules from r, naming them after file, and adds them.
func (l *Loader) Load(file string, r io.Reader) ([]error, Stats) {
	data, rerr := io.ReadAll(r)
	return l.load(file, data, rerr)
}

// LoadBytes parses rules held in memory.
func (l *Loader) LoadBytes(file string, data []byte) ([]error, Stats) {
	return l.load(file, data, nil)
}

// load parses the rules of a file's bytes (those read before rerr, when reading failed).
func (l *Loader) load(file string, data []byte, rerr error) ([]error, Stats) {
	var st Stats
	st.Files = 1
	lines := splitRaw(data)
	var errs []error
	if l.Options.Firewall {
		// Firewall rules act in file order: parse and register them in that order.
		for i := range lines {
			errs = l.add(file, lines[i].toLine(), &st, errs)
		}
	} else {
		// Threat-detection rules are parsed and registered in sid order, whatever the order of
		// the file, so that start-up costs the same for any order of the same rules: in file
		// order a shuffled ET Open file left the rules scattered in memory against the order
		// they are walked in, and start-up took 15% longer (most of it in garbage collection,
		// bench/ordering.sh). Each rule's text becomes a string only now, so the texts too lie
		// in memory in sid order: copied in file order, every pass over them (UTF-8 check,
		// option split, parse, error report) jumped about memory on a shuffled file.
		// Same-sid rules keep their file order, so the duplicate rule (first loaded wins a rev
		// tie) is Suricata's; errors are reported in file order.
		lineErrs := make([][]error, len(lines))
		for _, i := range canonicalOrder(lines) {
			lineErrs[i] = l.add(file, lines[i].toLine(), &st, nil)
		}
		for _, e := range lineErrs {
			errs = append(errs, e...)
		}
	}
	if rerr != nil {
		errs = append(errs, &Error{File: file, Msg: rerr.Error(), Kind: KindFile})
	}
	l.stats = l.stats.Add(st)
	return errs, st
}

// canonicalOrder returns the positions of lines ordered by the sid their text names (read
// without parsing; a line naming none sorts first), ties in file order.
func canonicalOrder(lines []rawLine) []int {
	type keyed struct {
		sid uint64
		pos int
	}
	keys := make([]keyed, len(lines))
	for i, ln := range lines {
		keys[i] = keyed{sidHint(ln.text), i}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		if c := cmp.Compare(a.sid, b.sid); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	order := make([]int, len(keys))
	for i, k := range keys {
		order[i] = k.pos
	}
	return order
}

var sidWord = []byte("sid")

// sidHint returns the number after the last "sid:" of a rule's text (spaces allowed around
// the colon), or 0. It only orders the parsing; the parser decides the rule's real sid.
func sidHint(text []byte) uint64 {
	for end := len(text); end > 0; {
		i := bytes.LastIndex(text[:end], sidWord)
		if i < 0 {
			return 0
		}
		end = i
		if i > 0 && text[i-1] != ';' && text[i-1] != '(' && text[i-1] != ' ' && text[i-1] != '\t' {
			continue
		}
		j := i + 3
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j >= len(text) || text[j] != ':' {
			continue
		}
		j++
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		var n uint64
		digits := 0
		for ; j < len(text) && text[j] >= '0' && text[j] <= '9' && digits < 19; j++ {
			n = n*10 + uint64(text[j]-'0')
			digits++
		}
		if digits > 0 {
			return n
		}
	}
	return 0
}

func (l *Loader) add(file string, ln Line, st *Stats, errs []error) []error {
	parsedRules.Add(1)
	if ln.TooLong {
		st.Failed++
		return append(errs, &Error{File: file, Line: ln.Line, Msg: fmt.Sprintf("rule is longer than %d bytes", MaxRuleSize-1)})
	}
	if l.Options.cache == nil {
		l.Options.cache = &parseCache{addrs: map[string]*Address{}, ports: map[string]*Port{}}
	}
	rule, err := ParseWith(ln.Text, &l.Options)
	if err != nil {
		e := err.(*Error)
		e.File, e.Line = file, ln.Line
		switch e.Kind {
		case KindSkipped:
			st.Skipped++
		case KindDropped:
		default:
			st.Failed++
		}
		return append(errs, e)
	}
	rule.File, rule.Line = file, ln.Line
	if l.Supported != nil {
		for _, k := range rule.Keywords() {
			if !l.Supported(k) {
				st.Failed++
				return append(errs, &Error{File: file, Line: ln.Line, SID: rule.SID, GID: rule.GID, Keyword: k,
					Msg: fmt.Sprintf("keyword %s is not supported yet", k), Kind: KindUnsupported})
			}
		}
	}
	if l.index == nil {
		l.index = map[[2]uint32]int{}
	}
	key := [2]uint32{rule.GID, rule.SID}
	if i, dup := l.index[key]; dup {
		old := l.rules[i]
		if rule.Rev <= old.Rev {
			st.Failed++
			return append(errs, &Error{File: file, Line: ln.Line, SID: rule.SID, GID: rule.GID, Kind: KindDuplicate,
				Msg: fmt.Sprintf("duplicate signature: rev %d does not replace rev %d loaded from %s:%d", rule.Rev, old.Rev, old.File, old.Line)})
		}
		// The new rule replaces the old one; both count as loaded, as in Suricata.
		l.rules[i] = nil
		errs = append(errs, &Error{File: old.File, Line: old.Line, SID: old.SID, GID: old.GID, Kind: KindReplaced,
			Msg: fmt.Sprintf("rev %d replaced by rev %d from %s:%d", old.Rev, rule.Rev, file, ln.Line)})
	}
	l.index[key] = len(l.rules)
	l.rules = append(l.rules, rule)
	st.Loaded++
	return errs
}

// LoadFile parses one rule file with variables vars (nil: Suricata's stock groups) and
// returns its rules and problems (see Loader).
func LoadFile(path string, vars *config.Vars) ([]*Rule, []error) {
	l := NewLoader(vars)
	errs, _ := l.LoadFile(path)
	return l.Rules(), errs
}
