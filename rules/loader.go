package rules

import (
	"bytes"
	"fmt"
	"io"
	"os"

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

// Rules returns the loaded rules in load order (replaced duplicates removed).
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
	return l.Load(path, f)
}

// Load parses rules from r, naming them after file, and adds them.
func (l *Loader) Load(file string, r io.Reader) ([]error, Stats) {
	var st Stats
	st.Files = 1
	lines, rerr := SplitLines(r)
	var errs []error
	for _, ln := range lines {
		errs = l.add(file, ln, &st, errs)
	}
	if rerr != nil {
		errs = append(errs, &Error{File: file, Msg: rerr.Error(), Kind: KindFile})
	}
	l.stats = l.stats.Add(st)
	return errs, st
}

// LoadBytes parses rules held in memory.
func (l *Loader) LoadBytes(file string, data []byte) ([]error, Stats) {
	return l.Load(file, bytes.NewReader(data))
}

func (l *Loader) add(file string, ln Line, st *Stats, errs []error) []error {
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
