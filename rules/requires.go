package rules

import (
	"strconv"
	"strings"
)

// Requires is a parsed requires keyword.
type Requires struct {
	// Features and Keywords are the required features and keywords.
	Features []string
	Keywords []string
	// Versions is the version expression: alternatives separated by '|', each a list of
	// comparisons that must all hold.
	Versions [][]VersionCmp
	// Unknown holds requirements of unknown kinds ("kind value"); they make the rule skipped.
	Unknown []string
}

// VersionCmp is one version comparison of a requires keyword.
type VersionCmp struct {
	// Op is ">", ">=", "<" or "<=".
	Op string
	// Version is major, minor, patch.
	Version [3]int
}

// parseVersion parses "8", "8.0" or "8.0.6" and returns the rest.
func parseVersion(s string) ([3]int, string, bool) {
	var v [3]int
	s = strings.TrimLeft(s, " \t\r\n")
	for i := 0; i < 3; i++ {
		if i > 0 {
			if s == "" || s[0] == ' ' {
				return v, s, true
			}
			if s[0] != '.' {
				return v, s, false
			}
			s = s[1:]
		}
		j := 0
		for j < len(s) && s[j] != '.' && s[j] != '-' && s[j] != ' ' {
			j++
		}
		n, err := strconv.ParseUint(s[:j], 10, 8)
		if err != nil {
			return v, s, false
		}
		v[i] = int(n)
		s = s[j:]
	}
	return v, s, true
}

// parseVersionExpr parses "OP VERSION [OP VERSION]... [| ...]".
func parseVersionExpr(s string) ([][]VersionCmp, bool) {
	var out [][]VersionCmp
	for {
		var group []VersionCmp
		for {
			t := strings.TrimLeft(s, " \t\r\n")
			op := ""
			for _, o := range []string{">=", ">", "<=", "<"} {
				if strings.HasPrefix(t, o) {
					op = o
					break
				}
			}
			if op == "" {
				break
			}
			v, rest, ok := parseVersion(t[len(op):])
			if !ok {
				break
			}
			group = append(group, VersionCmp{Op: op, Version: v})
			s = rest
		}
		if len(group) == 0 {
			return nil, false
		}
		out = append(out, group)
		t := strings.TrimLeft(s, " \t\r\n")
		if !strings.HasPrefix(t, "|") {
			return out, true
		}
		s = t[1:]
	}
}

// parseRequires parses the argument of a requires keyword.
func parseRequires(s string) (*Requires, error) {
	req := &Requires{}
	for s != "" {
		t := strings.TrimLeft(s, " \t\r\n")
		i := 0
		for i < len(t) && (isAlpha(t[i]) || t[i] >= '0' && t[i] <= '9' || t[i] == '-' || t[i] == '_' || t[i] >= 0x80) {
			i++
		}
		key := t[:i]
		t = strings.TrimLeft(t[i:], " \t\r\n")
		j := strings.IndexByte(t, ',')
		if j < 0 {
			j = len(t)
		}
		val := t[:j]
		switch key {
		case "feature":
			req.Features = append(req.Features, strings.TrimSpace(val))
		case "version":
			if req.Versions != nil {
				return nil, errf("Version may only be specified once: %s", s)
			}
			v, ok := parseVersionExpr(val)
			if !ok {
				return nil, errf("Failed to parse requires expression: %s", val)
			}
			req.Versions = v
		case "keyword":
			req.Keywords = append(req.Keywords, strings.TrimSpace(val))
		default:
			req.Unknown = append(req.Unknown, key+" "+val)
		}
		s = strings.TrimLeft(t[j:], ", \t\r\n")
	}
	return req, nil
}

// check reports why the requirements are not met by version with features, or nil.
func (req *Requires) check(version [3]int, features map[string]bool) error {
	if len(req.Unknown) > 0 {
		return skipErr("Unknown requirements: %s", strings.Join(req.Unknown, ","))
	}
	if len(req.Versions) > 0 {
		var first error
		ok := false
		for _, group := range req.Versions {
			var err error
			for _, c := range group {
				cmp := compareVersion(version, c.Version)
				switch {
				case c.Op == ">" && cmp <= 0, c.Op == ">=" && cmp < 0:
					err = skipErr("Suricata version less than required (%d.%d.%d)", c.Version[0], c.Version[1], c.Version[2])
				case c.Op == "<" && cmp >= 0, c.Op == "<=" && cmp > 0:
					err = skipErr("Suricata version greater than required")
				}
				if err != nil {
					break
				}
			}
			if err == nil {
				ok = true
				break
			}
			if first == nil {
				first = err
			}
		}
		if !ok {
			return first
		}
	}
	for _, f := range req.Features {
		if !features[f] {
			return skipErr("Suricata missing a required feature: %s", f)
		}
	}
	for _, k := range req.Keywords {
		if Lookup(k) == nil {
			return skipErr("Suricata missing a required keyword: %s", k)
		}
	}
	return nil
}

func compareVersion(a, b [3]int) int {
	for i := 0; i < 3; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func setupRequires(p *ruleParser, o *Option, arg string) error {
	req, err := parseRequires(arg)
	if err != nil {
		return err
	}
	vs := p.opts.Version
	if vs == "" {
		vs = SuricataVersion
	}
	ver, _, _ := parseVersion(vs)
	feats := p.opts.Features
	if feats == nil {
		feats = DefaultFeatures
	}
	p.r.Requires = req
	o.Arg = req
	return req.check(ver, feats)
}
