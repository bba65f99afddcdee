package output

import (
	"strconv"
	"strings"
	"time"
)

var protoNames [256]string

func init() {
	for i := range protoNames {
		protoNames[i] = strconv.Itoa(i)
	}
	// Names from the IANA protocol table, as Suricata prints them.
	protoNames[0] = "HOPOPT"
	protoNames[1] = "ICMP"
	protoNames[2] = "IGMP"
	protoNames[4] = "IPv4"
	protoNames[6] = "TCP"
	protoNames[17] = "UDP"
	protoNames[41] = "IPv6"
	protoNames[43] = "IPv6-Route"
	protoNames[44] = "IPv6-Frag"
	protoNames[47] = "GRE"
	protoNames[50] = "ESP"
	protoNames[51] = "AH"
	protoNames[58] = "IPv6-ICMP"
	protoNames[59] = "IPv6-NoNxt"
	protoNames[60] = "IPv6-Opts"
	protoNames[89] = "OSPFIGP"
	protoNames[103] = "PIM"
	protoNames[112] = "VRRP"
	protoNames[132] = "SCTP"
}

// protoName returns the EVE `proto` value of an IP protocol number.
func protoName(p uint8) string { return protoNames[p] }

// ProtoName returns the EVE `proto` value of an IP protocol number ("TCP", "IPv6-ICMP", "47").
func ProtoName(p uint8) string { return protoNames[p] }

// Stats collects named counters ("decoder.ipv4", "flow.tcp") and writes them as Suricata's
// nested `stats` object, members in the order they were first added.
type Stats struct {
	root statsNode
}

type statsNode struct {
	name     string
	value    uint64
	raw      []byte
	leaf     bool
	children []*statsNode
}

func (n *statsNode) child(name string) *statsNode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	c := &statsNode{name: name}
	n.children = append(n.children, c)
	return c
}

func (s *Stats) node(name string) *statsNode {
	n := &s.root
	for _, part := range strings.Split(name, ".") {
		n = n.child(part)
	}
	return n
}

// Add adds v to the counter name (dotted path).
func (s *Stats) Add(name string, v uint64) {
	n := s.node(name)
	n.leaf = true
	n.value += v
}

// Set sets the counter name to v.
func (s *Stats) Set(name string, v uint64) {
	n := s.node(name)
	n.leaf = true
	n.value = v
}

// SetRaw sets name to an already-encoded JSON value (used for arrays such as detect.engines).
func (s *Stats) SetRaw(name string, raw []byte) {
	n := s.node(name)
	n.leaf = true
	n.raw = append(n.raw[:0], raw...)
}

// Value returns the counter's value (0 when absent).
func (s *Stats) Value(name string) uint64 {
	n := &s.root
	for _, part := range strings.Split(name, ".") {
		var next *statsNode
		for _, c := range n.children {
			if c.name == part {
				next = c
				break
			}
		}
		if next == nil {
			return 0
		}
		n = next
	}
	return n.value
}

// Each walks every counter in order with its dotted name (raw values are skipped).
func (s *Stats) Each(fn func(name string, v uint64)) {
	var walk func(prefix string, n *statsNode)
	walk = func(prefix string, n *statsNode) {
		for _, c := range n.children {
			name := c.name
			if prefix != "" {
				name = prefix + "." + c.name
			}
			if c.leaf {
				if c.raw == nil {
					fn(name, c.value)
				}
				continue
			}
			walk(name, c)
		}
	}
	walk("", &s.root)
}

// StatsRecord writes a complete EVE `stats` record. now is the wall-clock time of the record,
// uptime the seconds since start. Zero counters are left out when omitZero is set (Suricata's
// `null-values: no`).
func StatsRecord(j *JSON, s *Stats, now time.Time, uptime int64, omitZero bool) {
	j.Reset()
	j.Begin()
	j.Time("timestamp", now)
	j.String("event_type", "stats")
	j.Object("stats")
	j.Int("uptime", uptime)
	writeStatsChildren(j, &s.root, omitZero)
	j.Close('}')
	j.End()
}

func writeStatsChildren(j *JSON, n *statsNode, omitZero bool) {
	for _, c := range n.children {
		switch {
		case c.leaf && c.raw != nil:
			j.Raw(c.name, c.raw)
		case c.leaf:
			if omitZero && c.value == 0 {
				continue
			}
			j.Uint(c.name, c.value)
		default:
			if omitZero && !hasNonZero(c) {
				continue // Suricata creates no object for a group whose counters are all skipped
			}
			j.Object(c.name)
			writeStatsChildren(j, c, omitZero)
			j.Close('}')
		}
	}
}

func hasNonZero(n *statsNode) bool {
	for _, c := range n.children {
		if c.leaf && (c.raw != nil || c.value != 0) || !c.leaf && hasNonZero(c) {
			return true
		}
	}
	return false
}
