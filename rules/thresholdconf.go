package rules

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// ThresholdEntryKind is the kind of a threshold.config line.
type ThresholdEntryKind uint8

// Kinds of threshold.config entries.
const (
	// EntryThreshold is a `threshold` (or `event_filter`) line: it sets or overrides a rule's
	// threshold.
	EntryThreshold ThresholdEntryKind = iota
	// EntrySuppress is a `suppress` line: alerts are not logged (for the given addresses,
	// when track and ip are given).
	EntrySuppress
	// EntryRateFilter is a `rate_filter` line: the rule's action changes to NewAction once the
	// rate is exceeded, for Timeout seconds.
	EntryRateFilter
)

// String returns the keyword that starts such a line.
func (k ThresholdEntryKind) String() string {
	switch k {
	case EntrySuppress:
		return "suppress"
	case EntryRateFilter:
		return "rate_filter"
	}
	return "threshold"
}

// ThresholdEntry is one line of a threshold.config file. GID 0 with SID 0 applies to every
// rule; SID 0 alone to every rule of the GID.
type ThresholdEntry struct {
	File string
	Line int
	Kind ThresholdEntryKind
	GID  uint32
	SID  uint32
	// Type is limit, threshold or both (threshold entries).
	Type string
	// Track is by_src, by_dst, by_rule, by_both, by_flow, or by_either (suppress).
	Track string
	// Count and Seconds are the rate (threshold and rate_filter entries).
	Count   uint32
	Seconds uint32
	// NewAction and Timeout belong to rate_filter.
	NewAction string
	Timeout   uint32
	// IP is the suppress address set (nil: every address), with its text in IPText.
	IP     *Address
	IPText string
}

// LoadThresholdConfig reads a threshold.config file. Each bad line is an error naming the file
// and line; good lines are returned in file order.
func LoadThresholdConfig(path string, vars *config.Vars) ([]ThresholdEntry, []error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, []error{fmt.Errorf("threshold-file: %w", err)}
	}
	defer f.Close()
	return ParseThresholdConfig(path, f, vars)
}

// ParseThresholdConfig reads threshold.config text from r; name is used in errors.
func ParseThresholdConfig(name string, r io.Reader, vars *config.Vars) ([]ThresholdEntry, []error) {
	var out []ThresholdEntry
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		e, err := parseThresholdLine(line, vars)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n, err))
			continue
		}
		e.File, e.Line = name, n
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	return out, errs
}

var thresholdKeys = map[ThresholdEntryKind][]string{
	EntryThreshold:  {"gen_id", "sig_id", "type", "track", "count", "seconds"},
	EntrySuppress:   {"gen_id", "sig_id", "track", "ip"},
	EntryRateFilter: {"gen_id", "sig_id", "track", "count", "seconds", "new_action", "timeout"},
}

func parseThresholdLine(line string, vars *config.Vars) (ThresholdEntry, error) {
	var e ThresholdEntry
	word, rest, _ := strings.Cut(line, " ")
	switch word {
	case "threshold", "event_filter":
		e.Kind = EntryThreshold
	case "suppress":
		e.Kind = EntrySuppress
	case "rate_filter":
		e.Kind = EntryRateFilter
	default:
		return e, fmt.Errorf("unknown entry %q (want threshold, event_filter, suppress or rate_filter)", word)
	}
	seen := map[string]string{}
	for _, part := range splitOutsideBrackets(rest) {
		part = strings.TrimSpace(part)
		if part == "" {
			return e, fmt.Errorf("%s: empty field", word)
		}
		k, v, ok := strings.Cut(part, " ")
		v = strings.TrimSpace(v)
		if !ok || v == "" {
			return e, fmt.Errorf("%s: field %q has no value", word, part)
		}
		if !contains(thresholdKeys[e.Kind], k) {
			return e, fmt.Errorf("%s: unknown field %q", word, k)
		}
		if _, dup := seen[k]; dup {
			return e, fmt.Errorf("%s: field %q given twice", word, k)
		}
		seen[k] = v
	}
	num := func(k string, max uint64) (uint32, error) {
		v, ok := seen[k]
		if !ok {
			return 0, fmt.Errorf("%s: missing %s", word, k)
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n > max {
			return 0, fmt.Errorf("%s: %s: invalid number %q", word, k, v)
		}
		return uint32(n), nil
	}
	var err error
	if e.GID, err = num("gen_id", 1<<32-1); err != nil {
		return e, err
	}
	if e.SID, err = num("sig_id", 1<<32-1); err != nil {
		return e, err
	}
	track := seen["track"]
	switch e.Kind {
	case EntryThreshold, EntryRateFilter:
		if e.Kind == EntryThreshold {
			e.Type = seen["type"]
			if e.Type != "limit" && e.Type != "threshold" && e.Type != "both" {
				return e, fmt.Errorf("%s: type must be limit, threshold or both, not %q", word, e.Type)
			}
		}
		if !contains([]string{"by_src", "by_dst", "by_rule", "by_both", "by_flow"}, track) {
			return e, fmt.Errorf("%s: track must be by_src, by_dst, by_rule, by_both or by_flow, not %q", word, track)
		}
		if e.Count, err = num("count", 1<<32-1); err != nil {
			return e, err
		}
		if e.Seconds, err = num("seconds", 1<<32-1); err != nil {
			return e, err
		}
		if e.Kind == EntryRateFilter {
			e.NewAction = seen["new_action"]
			if !contains([]string{"alert", "drop", "pass", "reject"}, e.NewAction) {
				return e, fmt.Errorf("%s: new_action must be alert, drop, pass or reject, not %q", word, e.NewAction)
			}
			if e.Timeout, err = num("timeout", 1<<32-1); err != nil {
				return e, err
			}
		}
	case EntrySuppress:
		ip, hasIP := seen["ip"]
		switch {
		case track == "" && !hasIP:
		case track == "" || !hasIP:
			return e, fmt.Errorf("%s: track and ip go together", word)
		case !contains([]string{"by_src", "by_dst", "by_either"}, track):
			return e, fmt.Errorf("%s: track must be by_src, by_dst or by_either, not %q", word, track)
		default:
			addr, err := ParseAddress(ip, vars)
			if err != nil {
				return e, fmt.Errorf("%s: ip: %w", word, err)
			}
			e.IP, e.IPText = addr, ip
		}
	}
	e.Track = track
	return e, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splitOutsideBrackets splits s on commas that are not inside [ ] (suppress ip lists).
func splitOutsideBrackets(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
