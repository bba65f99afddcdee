package verify

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultSuricataVersion is the Suricata version Meerkat claims compatibility
// with; version conditions in test.yaml are evaluated against it.
const DefaultSuricataVersion = "8.0.6"

// Version is a dotted engine version. Parts holds the components that were
// written (1 to 3 of them); missing ones count as 0 in ordered comparisons.
type Version struct {
	// Parts are major, minor and patch, as far as given.
	Parts []int
}

// ParseVersion parses "8", "7.0", "8.0.6" or "8.0.0-dev" (anything after the
// first character that is neither a digit nor a dot is ignored).
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && (s[end] == '.' || (s[end] >= '0' && s[end] <= '9')) {
		end++
	}
	core := strings.TrimRight(s[:end], ".")
	if core == "" {
		return Version{}, fmt.Errorf("invalid version %q", s)
	}
	var v Version
	for _, p := range strings.Split(core, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return Version{}, fmt.Errorf("invalid version %q", s)
		}
		v.Parts = append(v.Parts, n)
	}
	if len(v.Parts) > 3 {
		v.Parts = v.Parts[:3]
	}
	return v, nil
}

// String formats the version with the parts that were given.
func (v Version) String() string {
	s := make([]string, len(v.Parts))
	for i, p := range v.Parts {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ".")
}

func (v Version) part(i int) int {
	if i < len(v.Parts) {
		return v.Parts[i]
	}
	return 0
}

// Compare returns -1, 0 or 1; missing parts count as 0.
func (v Version) Compare(o Version) int {
	for i := 0; i < 3; i++ {
		a, b := v.part(i), o.part(i)
		if a < b {
			return -1
		}
		if a > b {
			return 1
		}
	}
	return 0
}

// MatchesPrefix reports whether v equals want on the parts want gives:
// want 7 matches every 7.x.y, 7.0 matches 7.0.x, 7.0.6 only 7.0.6.
func (v Version) MatchesPrefix(want Version) bool {
	for i := range want.Parts {
		if v.part(i) != want.Parts[i] {
			return false
		}
	}
	return true
}
