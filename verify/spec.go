package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Spec is a parsed test.yaml. Zero values mean "key absent" unless a *Set
// field says otherwise.
type Spec struct {
	// Requires are the whole-test conditions; nil when absent.
	Requires *Requires
	// Skip holds the skip: key.
	Skip SkipSpec
	// PcapSet reports whether a pcap: key is present.
	PcapSet bool
	// Pcap is the pcap: value (relative to the test folder).
	Pcap string
	// NoPcap is true when pcap: is false or empty.
	NoPcap bool
	// RulesSet reports whether a rules: key is present.
	RulesSet bool
	// Rules is the rules: value; empty means "run with no rules".
	Rules string
	// Args are the extra engine arguments, already split on whitespace,
	// before variable substitution.
	Args []string
	// Command replaces the default engine invocation when not empty.
	Command string
	// ExitCode is the expected engine exit status (default 0).
	ExitCode int
	// Env are extra environment variables, in document order.
	Env []EnvVar
	// Setup are shell scripts run in the output dir before the engine.
	Setup []string
	// PreCheck is a shell snippet run in the output dir after the engine.
	PreCheck string
	// Count is how many times the engine is run (default 1).
	Count int
	// Retry is how many attempts are allowed in total (default 1).
	Retry int
	// UnixCommands is true when the test uses unix-commands (live socket
	// mode), which this runner does not support.
	UnixCommands bool
	// Checks are the checks in document order.
	Checks []*Check
}

// EnvVar is one name=value pair from a test's env: key.
type EnvVar struct {
	// Name is the variable name.
	Name string
	// Value is its value, before ${...} substitution.
	Value string
}

// Requires is a set of conditions that must all hold for a test or check to
// run; otherwise it is skipped.
type Requires struct {
	// MinVersion: claimed version >= this.
	MinVersion string `json:"min-version,omitempty"`
	// LtVersion: claimed version < this.
	LtVersion string `json:"lt-version,omitempty"`
	// GtVersion: claimed version > this.
	GtVersion string `json:"gt-version,omitempty"`
	// Version: claimed version equal on the parts given.
	Version string `json:"version,omitempty"`
	// Features must all be reported by the engine.
	Features []string `json:"features,omitempty"`
	// Env variables must all be set.
	Env []string `json:"env,omitempty"`
	// Files must all exist (relative to the test folder).
	Files []string `json:"files,omitempty"`
	// Script commands must all exit 0 (run in the source tree).
	Script []string `json:"script,omitempty"`
	// Lambda is a Python expression; it cannot be evaluated, so a test
	// with one is skipped.
	Lambda string `json:"lambda,omitempty"`
	// OS lists acceptable operating systems (linux, darwin ...).
	OS []string `json:"os,omitempty"`
	// Arch lists acceptable architectures (x86_64/amd64, aarch64/arm64 ...).
	Arch []string `json:"arch,omitempty"`
	// NoPcap is set by `pcap: false`.
	NoPcap bool `json:"no-pcap,omitempty"`
	// Unknown lists keys this runner (and upstream) does not know; a test
	// with unknown requires keys is an error.
	Unknown []string `json:"unknown,omitempty"`
}

// SkipSpec is the skip: key: either Always, or a list of conditional entries.
type SkipSpec struct {
	// Always is set by skip: true.
	Always bool
	// Entries are conditional skips.
	Entries []SkipEntry
}

// SkipEntry skips a test when its condition holds.
type SkipEntry struct {
	// Msg is the reason printed when the entry applies.
	Msg string
	// UID skips when the runner runs as this uid (when UIDSet).
	UID int
	// UIDSet reports whether uid: was given.
	UIDSet bool
	// Feature skips when the engine HAS this feature.
	Feature string
	// Config skips when an effective config key matching the regex has the
	// given value.
	Config []KV
}

// CheckKind names the kind of a check.
type CheckKind string

// The check kinds this runner evaluates.
const (
	KindFilter      CheckKind = "filter"
	KindStats       CheckKind = "stats"
	KindShell       CheckKind = "shell"
	KindFileCompare CheckKind = "file-compare"
)

// Check is one entry of checks:.
type Check struct {
	// Index is the 1-based position in checks:.
	Index int
	// Kind is the check's kind.
	Kind CheckKind
	// Requires are the check's own conditions (requires: plus legacy
	// min-version style keys written directly in the check); nil if none.
	Requires *Requires
	// Filename is the file a filter check reads (default eve.json).
	Filename string
	// Count is the exact number of matching lines a filter wants; nil when
	// absent (then at least one line must match).
	Count *int64
	// Conds are a filter's match conditions or a stats check's conditions.
	Conds []Cond
	// ShellArgs is a shell check's command line.
	ShellArgs string
	// Expect is a shell check's expected output (Python str() of the YAML
	// value); nil when absent.
	Expect *string
	// CompareFile is a file-compare check's file in the output dir.
	CompareFile string
	// CompareExpected is the file it must equal, in the test dir.
	CompareExpected string
	// Err is set when the check is malformed.
	Err error
}

// Op is a match operator.
type Op string

// Match operators. OpEq is plain equality; the others come from key
// suffixes (__find ...) or special keys (has-key, not-has-key).
const (
	OpEq         Op = "eq"
	OpFind       Op = "__find"
	OpContains   Op = "__contains"
	OpStartsWith Op = "__startswith"
	OpEndsWith   Op = "__endswith"
	OpGt         Op = "__gt"
	OpGte        Op = "__gte"
	OpLt         Op = "__lt"
	OpLte        Op = "__lte"
	OpHasKey     Op = "has-key"
	OpNotHasKey  Op = "not-has-key"
)

var suffixOps = []Op{OpFind, OpContains, OpStartsWith, OpEndsWith, OpGte, OpGt, OpLte, OpLt}

// Cond is one match condition: a path, an operator and the expected value.
type Cond struct {
	// Key is the key as written in test.yaml.
	Key string
	// Op is the operator.
	Op Op
	// Paths holds one path, or several for has-key/not-has-key lists.
	Paths []Path
	// Want is the expected value (unused by has-key/not-has-key).
	Want any
}

// Path is a parsed dotted key.
type Path []PathSeg

// PathSeg is one dotted segment: a name followed by optional [N] indexes, or
// the __len pseudo-segment.
type PathSeg struct {
	// Name is the object key (or, on a list, a numeric index).
	Name string
	// Index are the [N] indexes that follow the name.
	Index []int
	// Len marks the __len pseudo-segment.
	Len bool
}

var segRe = regexp.MustCompile(`^(.*?)((?:\[[0-9]+\])+)$`)

// ParsePath parses "a.b[0].c", "a.0.c" or "a.__len".
func ParsePath(key string) Path {
	parts := strings.Split(key, ".")
	p := make(Path, 0, len(parts))
	for _, part := range parts {
		if part == "__len" {
			p = append(p, PathSeg{Len: true})
			continue
		}
		seg := PathSeg{Name: part}
		if m := segRe.FindStringSubmatch(part); m != nil {
			seg.Name = m[1]
			for _, ix := range strings.Split(strings.Trim(m[2], "[]"), "][") {
				n, err := strconv.Atoi(ix)
				if err != nil {
					seg = PathSeg{Name: part}
					break
				}
				seg.Index = append(seg.Index, n)
			}
		}
		p = append(p, seg)
	}
	return p
}

// parseCond builds a condition from one match: (or stats:) entry.
func parseCond(key string, valNode *yaml.Node, want any) Cond {
	switch key {
	case string(OpHasKey), string(OpNotHasKey):
		c := Cond{Key: key, Op: Op(key)}
		for _, s := range stringList(valNode) {
			c.Paths = append(c.Paths, ParsePath(s))
		}
		return c
	}
	c := Cond{Key: key, Op: OpEq, Want: want}
	path := key
	for _, op := range suffixOps {
		if strings.HasSuffix(key, "."+string(op)) {
			c.Op = op
			path = strings.TrimSuffix(key, "."+string(op))
			break
		}
	}
	c.Paths = []Path{ParsePath(path)}
	return c
}

// LoadSpec reads and parses dir/test.yaml.
func LoadSpec(dir string) (*Spec, error) {
	data, err := os.ReadFile(filepath.Join(dir, "test.yaml"))
	if err != nil {
		return nil, err
	}
	return ParseSpec(data)
}

// ParseSpec parses the text of a test.yaml.
func ParseSpec(data []byte) (*Spec, error) {
	root, err := parseYAML(data)
	if err != nil {
		return nil, fmt.Errorf("test.yaml: %w", err)
	}
	s := &Spec{Count: 1, Retry: 1}
	if root == nil {
		return s, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("test.yaml: top level is not a mapping")
	}
	for _, kv := range mappingPairs(root) {
		n := kv.node
		switch kv.Key {
		case "requires":
			r, err := parseRequires(n)
			if err != nil {
				return nil, err
			}
			s.Requires = r
		case "skip":
			s.Skip = parseSkip(n)
		case "pcap":
			s.PcapSet = true
			switch v := kv.Value.(type) {
			case nil:
				s.NoPcap = true
			case bool:
				s.NoPcap = !v
			case string:
				if v == "" {
					s.NoPcap = true
				}
				s.Pcap = v
			default:
				s.Pcap = scalarText(n)
			}
		case "rules":
			s.RulesSet = true
			if kv.Value != nil {
				s.Rules = scalarText(n)
			}
		case "args":
			for _, a := range stringList(n) {
				s.Args = append(s.Args, strings.Fields(a)...)
			}
		case "command":
			s.Command = strings.TrimSpace(scalarText(n))
		case "exit-code":
			i, ok := kv.Value.(int64)
			if !ok {
				return nil, fmt.Errorf("test.yaml: exit-code %q is not an integer", scalarText(n))
			}
			s.ExitCode = int(i)
		case "env":
			env, err := parseEnv(n)
			if err != nil {
				return nil, err
			}
			s.Env = env
		case "setup":
			s.Setup = parseScripts(n)
		case "pre-check":
			s.PreCheck = strings.Join(parseScripts(n), "\n")
		case "count", "retry":
			i, ok := kv.Value.(int64)
			if !ok || i < 1 {
				return nil, fmt.Errorf("test.yaml: %s %q is not a positive integer", kv.Key, scalarText(n))
			}
			if kv.Key == "count" {
				s.Count = int(i)
			} else {
				s.Retry = int(i)
			}
		case "unix-commands":
			s.UnixCommands = true
		case "checks":
			if n == nil || n.Kind != yaml.SequenceNode {
				if isNullScalar(n) {
					continue
				}
				return nil, fmt.Errorf("test.yaml: checks is not a list")
			}
			for i, c := range n.Content {
				s.Checks = append(s.Checks, parseCheck(i+1, deref(c)))
			}
		default:
			// Unknown top-level keys are ignored, as upstream does (this
			// includes the misspelt `requirements:`).
		}
	}
	return s, nil
}

func parseEnv(n *yaml.Node) ([]EnvVar, error) {
	n = deref(n)
	var out []EnvVar
	switch {
	case n == nil || isNullScalar(n):
	case n.Kind == yaml.MappingNode:
		for _, kv := range mappingPairs(n) {
			out = append(out, EnvVar{kv.Key, envText(kv)})
		}
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			c = deref(c)
			if c.Kind == yaml.MappingNode {
				for _, kv := range mappingPairs(c) {
					out = append(out, EnvVar{kv.Key, envText(kv)})
				}
			} else if name, val, ok := strings.Cut(scalarText(c), "="); ok {
				out = append(out, EnvVar{name, val})
			}
		}
	default:
		return nil, fmt.Errorf("test.yaml: env must be a mapping")
	}
	return out, nil
}

func envText(kv KV) string {
	if kv.node != nil && kv.node.Kind == yaml.ScalarNode {
		if kv.Value == nil {
			return ""
		}
		return kv.node.Value
	}
	return fmt.Sprint(kv.Value)
}

// parseScripts accepts a string, a list of strings, or a list of
// {script: "..."} mappings.
func parseScripts(n *yaml.Node) []string {
	n = deref(n)
	if n == nil {
		return nil
	}
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		if !isNullScalar(n) {
			out = append(out, n.Value)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			out = append(out, parseScripts(c)...)
		}
	case yaml.MappingNode:
		for _, kv := range mappingPairs(n) {
			if kv.Key == "script" {
				out = append(out, parseScripts(kv.node)...)
			}
		}
	}
	return out
}

func parseRequires(n *yaml.Node) (*Requires, error) {
	n = deref(n)
	if n == nil || isNullScalar(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("test.yaml: requires is not a mapping")
	}
	r := &Requires{}
	for _, kv := range mappingPairs(n) {
		if !r.setKey(kv) {
			r.Unknown = append(r.Unknown, kv.Key)
		}
	}
	return r, nil
}

// setKey applies one requires key; it returns false for unknown keys.
func (r *Requires) setKey(kv KV) bool {
	switch kv.Key {
	case "min-version":
		r.MinVersion = scalarText(kv.node)
	case "lt-version":
		r.LtVersion = scalarText(kv.node)
	case "gt-version":
		r.GtVersion = scalarText(kv.node)
	case "version":
		r.Version = scalarText(kv.node)
	case "features":
		r.Features = append(r.Features, stringList(kv.node)...)
	case "env":
		r.Env = append(r.Env, stringList(kv.node)...)
	case "files":
		r.Files = append(r.Files, stringList(kv.node)...)
	case "script":
		r.Script = append(r.Script, stringList(kv.node)...)
	case "lambda":
		r.Lambda = scalarText(kv.node)
		if r.Lambda == "" {
			r.Lambda = fmt.Sprint(kv.Value)
		}
	case "os":
		r.OS = append(r.OS, stringList(kv.node)...)
	case "arch":
		r.Arch = append(r.Arch, stringList(kv.node)...)
	case "pcap":
		if b, ok := kv.Value.(bool); ok && !b {
			r.NoPcap = true
		} else if kv.Value == nil {
			r.NoPcap = true
		}
	default:
		return false
	}
	return true
}

func parseSkip(n *yaml.Node) SkipSpec {
	n = deref(n)
	var s SkipSpec
	if n == nil {
		return s
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if b, ok := scalarValue(n).(bool); ok {
			s.Always = b
		} else if !isNullScalar(n) {
			s.Always = true
		}
	case yaml.MappingNode:
		s.Entries = append(s.Entries, parseSkipEntry(n))
	case yaml.SequenceNode:
		for _, c := range n.Content {
			c = deref(c)
			if c.Kind == yaml.MappingNode {
				s.Entries = append(s.Entries, parseSkipEntry(c))
			}
		}
	}
	return s
}

func parseSkipEntry(n *yaml.Node) SkipEntry {
	var e SkipEntry
	for _, kv := range mappingPairs(n) {
		switch kv.Key {
		case "msg":
			e.Msg = scalarText(kv.node)
		case "uid":
			if i, ok := kv.Value.(int64); ok {
				e.UID, e.UIDSet = int(i), true
			}
		case "feature":
			e.Feature = scalarText(kv.node)
		case "config":
			e.Config = mappingPairs(kv.node)
		}
	}
	return e
}

// legacyRequireKeys may be written directly inside a check instead of under
// its requires:.
var legacyRequireKeys = map[string]bool{
	"min-version": true, "lt-version": true, "gt-version": true, "version": true, "features": true,
}

func parseCheck(index int, n *yaml.Node) *Check {
	c := &Check{Index: index}
	if n == nil || n.Kind != yaml.MappingNode {
		c.Err = fmt.Errorf("check %d is not a mapping", index)
		return c
	}
	pairs := mappingPairs(n)
	var body KV
	found := 0
	for _, kv := range pairs {
		switch CheckKind(kv.Key) {
		case KindFilter, KindStats, KindShell, KindFileCompare:
			body = kv
			found++
		case "requires":
			r, err := parseRequires(kv.node)
			if err != nil {
				c.Err = err
				return c
			}
			c.Requires = mergeRequires(c.Requires, r)
		}
	}
	if found != 1 {
		keys := make([]string, 0, len(pairs))
		for _, kv := range pairs {
			keys = append(keys, kv.Key)
		}
		c.Kind = CheckKind(strings.Join(keys, ","))
		c.Err = fmt.Errorf("check %d: want exactly one of filter, stats, shell, file-compare; got %s", index, strings.Join(keys, ", "))
		return c
	}
	c.Kind = CheckKind(body.Key)
	bn := body.node
	if c.Kind == KindShell && bn != nil && bn.Kind == yaml.ScalarNode {
		c.ShellArgs = bn.Value
		return c
	}
	if bn == nil || bn.Kind != yaml.MappingNode {
		c.Err = fmt.Errorf("check %d: %s is not a mapping", index, c.Kind)
		return c
	}
	extra := &Requires{}
	hasExtra := false
	for _, kv := range mappingPairs(bn) {
		if kv.Key == "requires" {
			r, err := parseRequires(kv.node)
			if err != nil {
				c.Err = err
				return c
			}
			c.Requires = mergeRequires(c.Requires, r)
			continue
		}
		if c.Kind != KindStats && legacyRequireKeys[kv.Key] {
			extra.setKey(kv)
			hasExtra = true
			continue
		}
		switch c.Kind {
		case KindFilter:
			switch kv.Key {
			case "filename":
				c.Filename = scalarText(kv.node)
			case "count":
				i, ok := kv.Value.(int64)
				if !ok {
					c.Err = fmt.Errorf("check %d: count %q is not an integer", index, scalarText(kv.node))
					return c
				}
				c.Count = &i
			case "match":
				if isNullScalar(kv.node) {
					continue
				}
				if kv.node.Kind != yaml.MappingNode {
					c.Err = fmt.Errorf("check %d: match is not a mapping", index)
					return c
				}
				for _, m := range mappingPairs(kv.node) {
					c.Conds = append(c.Conds, parseCond(m.Key, m.node, m.Value))
				}
			}
		case KindStats:
			c.Conds = append(c.Conds, parseCond(kv.Key, kv.node, kv.Value))
		case KindShell:
			switch kv.Key {
			case "args":
				c.ShellArgs = scalarText(kv.node)
			case "expect":
				e := pyStr(kv.Value)
				if kv.node.Kind != yaml.ScalarNode {
					e = fmt.Sprint(kv.Value)
				}
				c.Expect = &e
			}
		case KindFileCompare:
			switch kv.Key {
			case "filename":
				c.CompareFile = scalarText(kv.node)
			case "expected":
				c.CompareExpected = scalarText(kv.node)
			}
		}
	}
	if hasExtra {
		c.Requires = mergeRequires(c.Requires, extra)
	}
	switch c.Kind {
	case KindFilter:
		if c.Filename == "" {
			c.Filename = "eve.json"
		}
	case KindShell:
		if c.ShellArgs == "" {
			c.Err = fmt.Errorf("check %d: shell check without args", index)
		}
	case KindFileCompare:
		if c.CompareFile == "" || c.CompareExpected == "" {
			c.Err = fmt.Errorf("check %d: file-compare needs filename and expected", index)
		}
	}
	return c
}

// mergeRequires combines two condition sets (both must hold).
func mergeRequires(a, b *Requires) *Requires {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	m := *a
	pick := func(x, y string) string {
		if y != "" {
			return y
		}
		return x
	}
	m.MinVersion = pick(a.MinVersion, b.MinVersion)
	m.LtVersion = pick(a.LtVersion, b.LtVersion)
	m.GtVersion = pick(a.GtVersion, b.GtVersion)
	m.Version = pick(a.Version, b.Version)
	m.Lambda = pick(a.Lambda, b.Lambda)
	m.Features = append(append([]string(nil), a.Features...), b.Features...)
	m.Env = append(append([]string(nil), a.Env...), b.Env...)
	m.Files = append(append([]string(nil), a.Files...), b.Files...)
	m.Script = append(append([]string(nil), a.Script...), b.Script...)
	m.OS = append(append([]string(nil), a.OS...), b.OS...)
	m.Arch = append(append([]string(nil), a.Arch...), b.Arch...)
	m.NoPcap = a.NoPcap || b.NoPcap
	m.Unknown = append(append([]string(nil), a.Unknown...), b.Unknown...)
	return &m
}
