package applayer

import (
	"strconv"
	"strings"
)

// portList is a parsed probing-parser port list (a Suricata port string as RustParser
// default_port gives it: "80", "[80,8080]", "[1024:65535]"). nil matches every port.
type portList []portRange

type portRange struct{ lo, hi uint16 }

// parsePorts parses a port list; "" and "any" give nil (no restriction); ok is false for
// a string that is not a port list.
func parsePorts(s string) (portList, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if s == "" || s == "any" {
		return nil, true
	}
	var out portList
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, ":")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 16)
		if err != nil {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 16); err != nil || b < a {
				return nil, false
			}
		}
		out = append(out, portRange{uint16(a), uint16(b)})
	}
	return out, true
}

// has reports whether port is in the list (every port for a nil list).
func (l portList) has(port uint16) bool {
	if l == nil {
		return true
	}
	for _, r := range l {
		if r.lo <= port && port <= r.hi {
			return true
		}
	}
	return false
}
