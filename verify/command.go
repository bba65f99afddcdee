package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// EngineConfig says where the engine and its stock files are.
type EngineConfig struct {
	// Engine is the path of the meerkat binary.
	Engine string
	// SrcDir is the engine's source tree (the repository root); it is the
	// working directory of the engine and the value of ${SRCDIR}.
	SrcDir string
	// DefaultConfig is the stock suricata.yaml, used when a test has none.
	DefaultConfig string
	// Classification is passed as --set classification-file=.
	Classification string
	// ReferenceConfig is passed as --set reference-config-file=.
	ReferenceConfig string
	// Version is the claimed Suricata version (for min<version>.rules).
	Version Version
}

// NewEngineConfig fills the stock paths from the repository root.
func NewEngineConfig(engine, srcDir string, version Version) *EngineConfig {
	return &EngineConfig{
		Engine:          engine,
		SrcDir:          srcDir,
		DefaultConfig:   filepath.Join(srcDir, "suricata.yaml"),
		Classification:  filepath.Join(srcDir, "classification.config"),
		ReferenceConfig: filepath.Join(srcDir, "reference.config"),
		Version:         version,
	}
}

// Invocation is how the engine is started for one run of a test.
type Invocation struct {
	// Argv is the argument vector of the default invocation (Argv[0] is the
	// engine path); empty when Shell is used.
	Argv []string `json:"argv,omitempty"`
	// Shell is a test's command:, rewritten to call meerkat, run with
	// /bin/sh -c.
	Shell string `json:"shell,omitempty"`
	// Config is the suricata.yaml passed with -c (default invocation).
	Config string `json:"config,omitempty"`
}

// String renders the invocation as a shell-like line for messages.
func (inv *Invocation) String() string {
	if inv.Shell != "" {
		return "sh -c " + shellQuote(inv.Shell)
	}
	q := make([]string, len(inv.Argv))
	for i, a := range inv.Argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for /bin/sh when needed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r == ',' || r == '+' || r == '@' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var varRe = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Substitute replaces ${NAME} for the names in vars; other text is kept.
func Substitute(s string, vars map[string]string) string {
	return varRe.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// Vars returns the substitution variables of one run: TEST_DIR, OUTPUT_DIR,
// SRCDIR and the test's env: entries.
func Vars(testDir, outDir, srcDir string, env []EnvVar) map[string]string {
	v := map[string]string{"TEST_DIR": testDir, "OUTPUT_DIR": outDir, "SRCDIR": srcDir}
	for _, e := range env {
		v[e.Name] = Substitute(e.Value, v)
	}
	return v
}

// The engine spellings a command: may use. Upstream commands call the
// binary of the build under test as ${SRCDIR}/src/suricata (or
// $SRCDIR/src/suricata, ./src/suricata, src/suricata) or as a plain
// `suricata` in command position.
var (
	engineVarRe  = regexp.MustCompile(`(?:\$\{SRCDIR\}|\$SRCDIR)/src/suricata([\s;&|)\x60]|$)`)
	engineRelRe  = regexp.MustCompile(`(^|[\s;&|(\x60])\.?/?src/suricata([\s;&|)\x60]|$)`)
	engineWordRe = regexp.MustCompile(`(^|[;&|(\x60\n]|\$\()([ \t]*)suricata([\s;&|)\x60]|$)`)
)

// RewriteCommand maps the Suricata binary named in a test's command: to the
// meerkat binary: every ${SRCDIR}/src/suricata, $SRCDIR/src/suricata,
// ./src/suricata and src/suricata, and the word `suricata` where it is the
// command (at the start, or after ; & | ( ` or $( ), becomes the quoted
// engine path. Other occurrences (suricata.yaml, arguments) are left alone.
func RewriteCommand(command, engine string) string {
	q := strings.ReplaceAll(shellQuote(engine), "$", "$$")
	out := command
	// Each pattern consumes the separator after the name, so a second pass
	// catches neighbours such as "suricata;suricata".
	for i := 0; i < 2; i++ {
		out = engineVarRe.ReplaceAllString(out, q+"${1}")
		out = engineRelRe.ReplaceAllString(out, "${1}"+q+"${2}")
		out = engineWordRe.ReplaceAllString(out, "${1}${2}"+q+"${3}")
	}
	return out
}

// PcapFor resolves the capture of a test: the pcap: key (relative to the
// test folder; may point elsewhere), or the one *.pcap/*.pcapng file in the
// folder. It returns "" when the test runs without a capture, a SkipReason
// when a capture is needed but there is none, and an error when the choice
// is ambiguous or the named file is missing.
func PcapFor(t Test, s *Spec) (string, *SkipReason, error) {
	if s.NoPcap || (s.Requires != nil && s.Requires.NoPcap) {
		return "", nil, nil
	}
	if s.PcapSet && s.Pcap != "" {
		p := s.Pcap
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.Dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", nil, fmt.Errorf("pcap %s: %w", s.Pcap, err)
		}
		return filepath.Clean(p), nil, nil
	}
	var found []string
	for _, pat := range []string{"*.pcap", "*.pcapng"} {
		m, err := filepath.Glob(filepath.Join(t.Dir, pat))
		if err != nil {
			return "", nil, err
		}
		found = append(found, m...)
	}
	sort.Strings(found)
	switch len(found) {
	case 0:
		if s.Command != "" {
			return "", nil, nil
		}
		return "", &SkipReason{Reason: "no pcap in the test folder and none declared", Cause: "no pcap"}, nil
	case 1:
		return found[0], nil, nil
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = filepath.Base(f)
	}
	return "", nil, fmt.Errorf("more than one capture in the test folder: %s", strings.Join(names, ", "))
}

// RuleArgs selects the rule files of a test (format reference §4):
//
//   - rules: key → -S <file>; an empty value → --disable-detection;
//   - otherwise the *.rules files of the folder, sorted:
//     none → --disable-detection;
//     firewall.rules alone → --firewall-rules-exclusive <file>;
//     min<version>.rules → -S <file> when the claimed version is at least
//     <version>, else --disable-detection;
//     one other file → -S <file>;
//     firewall.rules + td.rules → --firewall-rules-exclusive <fw> -S <td>;
//     anything else is an error.
func RuleArgs(t Test, s *Spec, version Version) ([]string, error) {
	if s.RulesSet {
		if s.Rules == "" {
			return []string{"--disable-detection"}, nil
		}
		p := s.Rules
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.Dir, p)
		}
		return []string{"-S", filepath.Clean(p)}, nil
	}
	files, err := filepath.Glob(filepath.Join(t.Dir, "*.rules"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	switch len(files) {
	case 0:
		return []string{"--disable-detection"}, nil
	case 1:
		base := filepath.Base(files[0])
		if base == "firewall.rules" {
			return []string{"--firewall-rules-exclusive", files[0]}, nil
		}
		if strings.HasPrefix(base, "min") {
			if v, err := ParseVersion(strings.TrimSuffix(strings.TrimPrefix(base, "min"), ".rules")); err == nil {
				if version.Compare(v) >= 0 {
					return []string{"-S", files[0]}, nil
				}
				return []string{"--disable-detection"}, nil
			}
		}
		return []string{"-S", files[0]}, nil
	case 2:
		a, b := filepath.Base(files[0]), filepath.Base(files[1])
		if a == "firewall.rules" && b == "td.rules" {
			return []string{"--firewall-rules-exclusive", files[0], "-S", files[1]}, nil
		}
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	return nil, fmt.Errorf("cannot choose rule files: %s (only firewall.rules + td.rules may be combined)", strings.Join(names, ", "))
}

// BuildInvocation builds the engine invocation of one run. pcap is the
// result of PcapFor ("" for none). The default command line is (format
// reference §4):
//
//	<engine> [args] --set classification-file=<repo>/classification.config
//	         --set reference-config-file=<repo>/reference.config
//	         --init-errors-fatal -l <outdir>
//	         [--simulate-ips  when the test's folder name contains "ips"]
//	         -c <test>/suricata.yaml | -c <repo>/suricata.yaml
//	         [-r <pcap>] <rule selection>
//
// A command: key replaces all of this; see RewriteCommand.
func BuildInvocation(t Test, s *Spec, cfg *EngineConfig, outDir, pcap string) (*Invocation, error) {
	vars := Vars(t.Dir, outDir, cfg.SrcDir, s.Env)
	if s.Command != "" {
		return &Invocation{Shell: Substitute(RewriteCommand(s.Command, cfg.Engine), vars)}, nil
	}
	argv := []string{cfg.Engine}
	for _, a := range s.Args {
		argv = append(argv, Substitute(a, vars))
	}
	argv = append(argv,
		"--set", "classification-file="+cfg.Classification,
		"--set", "reference-config-file="+cfg.ReferenceConfig,
		"--init-errors-fatal",
		"-l", outDir)
	if strings.Contains(t.Base, "ips") {
		argv = append(argv, "--simulate-ips")
	}
	config := filepath.Join(t.Dir, "suricata.yaml")
	if _, err := os.Stat(config); err != nil {
		config = cfg.DefaultConfig
	}
	argv = append(argv, "-c", config)
	if pcap != "" {
		argv = append(argv, "-r", pcap)
	}
	rules, err := RuleArgs(t, s, cfg.Version)
	if err != nil {
		return nil, err
	}
	argv = append(argv, rules...)
	return &Invocation{Argv: argv, Config: config}, nil
}
