package stream

import "strings"

// Policy is an overlap policy: which bytes win when a new segment overlaps stored data. The
// OS policies are Suricata's (host-os-policy), chosen by the destination address of the
// data (src/stream-tcp-list.c: DoHandleDataOverlap).
type Policy uint8

// Overlap policies.
const (
	PolicyBSD Policy = iota // the default
	PolicyFirst
	PolicyLast
	PolicyLinux
	PolicyOldLinux
	PolicySolaris
	PolicyHPUX10
	PolicyHPUX11
	PolicyIRIX
	PolicyMacOS
	PolicyWindows
	PolicyVista
	PolicyWindows2k3
)

var policyNames = [...]string{"bsd", "first", "last", "linux", "old-linux", "solaris", "hpux10",
	"hpux11", "irix", "macos", "windows", "vista", "windows2k3"}

// String returns the policy's host-os-policy name.
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "bsd"
}

// ParsePolicy reads a host-os-policy name as Suricata does: bsd-right is bsd, old-solaris
// is solaris, none is bsd.
func ParsePolicy(name string) (Policy, bool) {
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "bsd-right", "none":
		return PolicyBSD, true
	case "old-solaris":
		return PolicySolaris, true
	default:
		for i, s := range policyNames {
			if s == n {
				return Policy(i), true
			}
		}
	}
	return PolicyBSD, false
}
