package verify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Platform is what requires and skip conditions are evaluated against.
type Platform struct {
	// Version is the Suricata version Meerkat claims compatibility with.
	Version Version
	// Features are the engine's build features (upper-cased keys).
	Features map[string]bool
	// SrcDir is the engine source tree (the repository root); requires
	// scripts run there.
	SrcDir string
	// UID is the uid the runner runs as.
	UID int
	// GOOS and GOARCH describe the host.
	GOOS, GOARCH string
}

// NewPlatform returns a Platform for this host.
func NewPlatform(version Version, features []string, srcDir string) *Platform {
	p := &Platform{Version: version, Features: map[string]bool{}, SrcDir: srcDir,
		UID: os.Getuid(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	for _, f := range features {
		if f = strings.TrimSpace(f); f != "" {
			p.Features[strings.ToUpper(f)] = true
		}
	}
	return p
}

// HasFeature reports whether the engine has a build feature (compared
// case-insensitively; unknown features are absent).
func (p *Platform) HasFeature(name string) bool {
	return p.Features[strings.ToUpper(strings.TrimSpace(name))]
}

// SkipReason is why a test or check does not apply.
type SkipReason struct {
	// Reason is a human-readable sentence.
	Reason string
	// Cause groups skips in the report (e.g. "requires feature HAVE_LUA").
	Cause string
}

// pythonArch maps GOARCH to the names Python's platform.machine() uses.
var pythonArch = map[string]string{
	"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l",
}

// EvalRequires evaluates a requires block. It returns nil when every
// condition holds, a SkipReason when one does not, and an error for
// malformed blocks (unknown keys, bad versions).
func (p *Platform) EvalRequires(ctx context.Context, r *Requires, testDir string, env []string) (*SkipReason, error) {
	if r == nil {
		return nil, nil
	}
	if len(r.Unknown) > 0 {
		return nil, fmt.Errorf("unknown requires key(s): %s", strings.Join(r.Unknown, ", "))
	}
	type vcheck struct {
		key, val string
		ok       func(c int) bool
	}
	for _, vc := range []vcheck{
		{"min-version", r.MinVersion, func(c int) bool { return c >= 0 }},
		{"lt-version", r.LtVersion, func(c int) bool { return c < 0 }},
		{"gt-version", r.GtVersion, func(c int) bool { return c > 0 }},
	} {
		if vc.val == "" {
			continue
		}
		want, err := ParseVersion(vc.val)
		if err != nil {
			return nil, fmt.Errorf("requires %s: %w", vc.key, err)
		}
		if !vc.ok(p.Version.Compare(want)) {
			return &SkipReason{
				Reason: fmt.Sprintf("requires %s %s; Meerkat claims Suricata %s", vc.key, vc.val, p.Version),
				Cause:  fmt.Sprintf("requires %s %s", vc.key, vc.val),
			}, nil
		}
	}
	if r.Version != "" {
		want, err := ParseVersion(r.Version)
		if err != nil {
			return nil, fmt.Errorf("requires version: %w", err)
		}
		if !p.Version.MatchesPrefix(want) {
			return &SkipReason{
				Reason: fmt.Sprintf("requires version %s; Meerkat claims Suricata %s", r.Version, p.Version),
				Cause:  fmt.Sprintf("requires version %s", r.Version),
			}, nil
		}
	}
	for _, f := range r.Features {
		if !p.HasFeature(f) {
			return &SkipReason{
				Reason: fmt.Sprintf("requires feature %s, which Meerkat does not report", f),
				Cause:  "unsupported requires feature " + f,
			}, nil
		}
	}
	for _, e := range r.Env {
		if _, ok := os.LookupEnv(e); !ok {
			return &SkipReason{Reason: "requires environment variable " + e, Cause: "requires env " + e}, nil
		}
	}
	for _, f := range r.Files {
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(testDir, f)
		}
		if _, err := os.Stat(path); err != nil {
			return &SkipReason{Reason: "requires file " + f + " (not found)", Cause: "requires file " + f}, nil
		}
	}
	if r.Lambda != "" {
		return &SkipReason{
			Reason: "requires lambda " + r.Lambda + ": python lambdas cannot be evaluated by meerkat-verify",
			Cause:  "requires lambda (python expressions cannot be evaluated)",
		}, nil
	}
	if len(r.OS) > 0 {
		ok := false
		for _, o := range r.OS {
			o = strings.ToLower(strings.TrimSpace(o))
			if o == p.GOOS || (o == "macos" && p.GOOS == "darwin") {
				ok = true
			}
		}
		if !ok {
			return &SkipReason{Reason: fmt.Sprintf("requires os %s (host is %s)", strings.Join(r.OS, "/"), p.GOOS), Cause: "requires os " + strings.Join(r.OS, "/")}, nil
		}
	}
	if len(r.Arch) > 0 {
		ok := false
		for _, a := range r.Arch {
			a = strings.ToLower(strings.TrimSpace(a))
			if a == p.GOARCH || a == pythonArch[p.GOARCH] {
				ok = true
			}
		}
		if !ok {
			return &SkipReason{Reason: fmt.Sprintf("requires arch %s (host is %s)", strings.Join(r.Arch, "/"), p.GOARCH), Cause: "requires arch " + strings.Join(r.Arch, "/")}, nil
		}
	}
	for _, s := range r.Script {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		cmd := exec.CommandContext(sctx, "/bin/sh", "-c", s)
		cmd.Dir = p.SrcDir
		cmd.Env = env
		err := cmd.Run()
		cancel()
		if err != nil {
			return &SkipReason{Reason: fmt.Sprintf("requires script %q failed: %v", s, err), Cause: "requires script"}, nil
		}
	}
	return nil, nil
}

// EvalSkip evaluates a skip: key. config is the effective configuration
// (flattened dotted keys), used by config entries.
func (p *Platform) EvalSkip(s SkipSpec, config map[string]string) *SkipReason {
	if s.Always {
		return &SkipReason{Reason: "skip: true in test.yaml", Cause: "skip: true in test.yaml"}
	}
	for _, e := range s.Entries {
		msg := e.Msg
		switch {
		case e.UIDSet:
			if p.UID == e.UID {
				if msg == "" {
					msg = fmt.Sprintf("skipped when running as uid %d", e.UID)
				}
				return &SkipReason{Reason: msg, Cause: fmt.Sprintf("skip: uid %d", e.UID)}
			}
		case e.Feature != "":
			if p.HasFeature(e.Feature) {
				if msg == "" {
					msg = "skipped because the engine has feature " + e.Feature
				}
				return &SkipReason{Reason: msg, Cause: "skip: has feature " + e.Feature}
			}
		case len(e.Config) > 0:
			if configMatches(e.Config, config) {
				if msg == "" {
					msg = "skipped because of the effective configuration"
				}
				return &SkipReason{Reason: msg, Cause: "skip: config"}
			}
		}
	}
	return nil
}

// configMatches reports whether every regex key of want matches some config
// key whose value equals the wanted one.
func configMatches(want []KV, config map[string]string) bool {
	for _, kv := range want {
		re, err := regexp.Compile("^(?:" + kv.Key + ")")
		if err != nil {
			return false
		}
		wantVal := normConfigValue(kv.Value)
		found := false
		for k, v := range config {
			if re.MatchString(k) && normConfigValue(v) == wantVal {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// normConfigValue folds the YAML boolean spellings together so that yes,
// true and on compare equal.
func normConfigValue(v any) string {
	s := pyStr(v)
	if b, ok := v.(bool); ok {
		if b {
			return "true"
		}
		return "false"
	}
	if b, ok := yaml11Bool[s]; ok {
		if b {
			return "true"
		}
		return "false"
	}
	return s
}

// EffectiveConfig approximates the engine's effective configuration: the
// given suricata.yaml flattened to dotted keys (list items by index, as
// `suricata --dump-config` prints them), with `--set key=value` overrides
// from args applied. include: files are not followed.
func EffectiveConfig(configPath string, args []string) map[string]string {
	out := map[string]string{}
	if data, err := os.ReadFile(configPath); err == nil {
		if root, err := parseYAML(data); err == nil && root != nil {
			flattenConfig("", root, out)
		}
	}
	for i := 0; i < len(args); i++ {
		var kv string
		switch {
		case args[i] == "--set" && i+1 < len(args):
			kv = args[i+1]
			i++
		case strings.HasPrefix(args[i], "--set="):
			kv = strings.TrimPrefix(args[i], "--set=")
		default:
			continue
		}
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

func flattenConfig(prefix string, n *yaml.Node, out map[string]string) {
	n = deref(n)
	if n == nil {
		return
	}
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			flattenConfig(join(scalarText(n.Content[i])), n.Content[i+1], out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			flattenConfig(join(fmt.Sprint(i)), c, out)
		}
	case yaml.ScalarNode:
		out[prefix] = n.Value
	}
}
