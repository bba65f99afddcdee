package header

import (
	"math"
	"strconv"
	"strings"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/rules"
)

// field is a packet field an engine indexes.
type field uint8

const (
	fFlags field = iota
	fTTL
	fIType
	fICode
	fIPProto
	fTOS
	fFragbits
	fWScale
	fDsize
	fWindow
	fMSS
	fID
	fICMPID
	fICMPSeq
	fFragoffset
	fVLAN
	fVLANLayer
	fSeq
	fAck
	nFields
)

// fieldNames are the canonical keyword names of the fields.
var fieldNames = [nFields]string{"tcp.flags", "ttl", "itype", "icode", "ip_proto", "tos", "fragbits",
	"tcp.wscale", "dsize", "tcp.window", "tcp.mss", "id", "icmp_id", "icmp_seq", "fragoffset",
	"vlan.id", "vlan.id", "tcp.seq", "tcp.ack"}

// exactField marks the fields indexed by exact value (32-bit domains).
const exactField = math.MaxUint32

// fieldMax is the largest value of each field's domain; value max+1 stands for every larger
// value (clamp). Exact fields have no table.
var fieldMax = [nFields]uint32{255, 255, 255, 255, 255, 255, 7, 255, 65535, 65535, 65535, 65535,
	65535, 65535, 65535, 4095, 4095, exactField, exactField}

// fragMask is the fragbits of the IPv4 flags (detect/match's fragbitsCheck).
const fragMask = decode.IPv4FlagMF | decode.IPv4FlagDF | decode.IPv4FlagRF

// value returns field f of p and whether p has it, exactly as detect/match reads it (a
// keyword on a field the packet lacks never matches). vlan.id is read by Lookup itself.
func value(p *decode.Packet, f field) (uint64, bool) {
	switch f {
	case fFlags:
		return uint64(p.TCPFlags), p.IsTCP()
	case fTTL:
		return uint64(p.TTL), p.IPVersion == 4 || p.IPVersion == 6
	case fIType:
		return uint64(p.ICMPType), p.IsICMP()
	case fICode:
		return uint64(p.ICMPCode), p.IsICMP()
	case fIPProto:
		return uint64(p.IPProto), p.IPVersion == 4 || p.IPVersion == 6
	case fTOS:
		return uint64(p.TOS), p.IPVersion == 4
	case fFragbits:
		return uint64(p.IPv4Flags & fragMask), p.IPVersion == 4
	case fWScale:
		if !p.IsTCP() || !p.HasWScale {
			return 0, false
		}
		if p.TCPWScale > 14 { // Suricata keeps 0 for an invalid shift count
			return 0, true
		}
		return uint64(p.TCPWScale), true
	case fDsize:
		return uint64(len(p.Payload)), true
	case fWindow:
		return uint64(p.TCPWindow), p.IsTCP()
	case fMSS:
		return uint64(p.TCPMSS), p.IsTCP() && p.HasTCPMSS
	case fID:
		return uint64(p.IPID), p.IPVersion == 4
	case fICMPID:
		return uint64(p.ICMPID), p.IsICMP() && p.HasICMPID
	case fICMPSeq:
		return uint64(p.ICMPSeq), p.IsICMP() && p.HasICMPID
	case fFragoffset:
		switch p.IPVersion {
		case 4:
			return uint64(p.FragOffset >> 3), true
		case 6:
			return uint64(p.FragOffset), p.IPv6FragHdr
		}
		return 0, false
	case fSeq:
		return uint64(p.TCPSeq), p.IsTCP()
	case fAck:
		return uint64(p.TCPAck), p.IsTCP()
	}
	return 0, false
}

// iv is an interval of field values, bounds included.
type iv struct{ lo, hi uint32 }

// cand is one keyword of a rule as a possible witness: the values of field f it admits.
type cand struct {
	f      field
	ivs    []iv   // admitted values over [0, max+1] (tree fields)
	exact  uint32 // admitted value (exact fields)
	admits float64
	opt    *rules.Option
	// perFlow marks a flow-variable witness (flowbits:isset), indexed by the caller.
	perFlow bool
}

// ackZeroAdmits is the share of TCP packets taken to carry acknowledgement number 0: every
// packet without the ACK flag (SYNs, some RSTs) does, so tcp.ack:0 is a weak witness.
const ackZeroAdmits = 0.05

// flowbitAdmits is the share of packets a flowbits:isset witness is taken to admit: flows
// seldom carry a given bit.
const flowbitAdmits = 0.001

// witness is a chosen cand with its rule.
type witness struct {
	rule uint32
	c    cand
}

// notHeader says why keywords of the match list that are not header fields cannot be a
// witness here.
var notHeader = map[string]string{
	"flow":         "flow direction and state are per-flow, not a header value",
	"flowint":      "flow variable, needs per-flow state",
	"xbits":        "host or ip-pair variable, needs per-host state",
	"hostbits":     "host variable, needs per-host state",
	"sameip":       "compares two fields of the packet",
	"ipopts":       "bit test on the option summary, not indexed",
	"decode-event": "indexed by the engine's decoder-event table",
	"ipv4-csum":    "checksum validity is computed per packet",
	"tcpv4-csum":   "checksum validity is computed per packet",
	"tcpv6-csum":   "checksum validity is computed per packet",
	"udpv4-csum":   "checksum validity is computed per packet",
	"udpv6-csum":   "checksum validity is computed per packet",
	"icmpv4-csum":  "checksum validity is computed per packet",
	"icmpv6-csum":  "checksum validity is computed per packet",
}

// maxRuns bounds the intervals of one condition on a 16-bit field (a bitmask condition can
// admit thousands of separate values): beyond it the keyword is not indexed. 8-bit fields
// take any condition.
const maxRuns = 64

// fieldOf maps the keywords of integer fields to their field (vlan.id with a given layer is
// moved to fVLANLayer by candidate).
var fieldOf = map[string]field{"ttl": fTTL, "itype": fIType, "icode": fICode, "ip_proto": fIPProto,
	"tcp.wscale": fWScale, "dsize": fDsize, "tcp.mss": fMSS, "vlan.id": fVLAN, "icmp_id": fICMPID,
	"icmp_seq": fICMPSeq, "id": fID, "tcp.window": fWindow, "tcp.seq": fSeq, "tcp.ack": fAck}

// fragoffsetOps are the integer operators of fragoffset's prefixes.
var fragoffsetOps = map[byte]string{0: "=", '!': "!=", '<': "<", '>': ">"}

// candidate returns o as a witness candidate, or why it cannot be one.
func candidate(o *rules.Option) (cand, string) {
	c := cand{opt: o}
	switch o.Name {
	case "tcp.flags":
		tf, ok := o.Arg.(*rules.TCPFlags)
		if !ok || tf == nil {
			return c, "unexpected argument"
		}
		var mod byte
		if tf.Modifier != "" {
			mod = tf.Modifier[0]
		}
		flags, mask := tf.Flags, ^tf.Ignore
		c.f = fFlags
		c.ivs = enumerate(255, func(v uint32) bool { return match.FlagsMatch(uint8(v), mod, flags, mask) })
	case "fragbits":
		mod, b, ok := parseFragbits(o.Value)
		if !ok {
			return c, "invalid value"
		}
		c.f = fFragbits
		c.ivs = enumerate(7, func(v uint32) bool { return match.FragbitsMatch(uint8(v), mod, b) })
	case "tos":
		neg, tos, ok := parseTOS(o.Value, o.Negated)
		if !ok {
			return c, "invalid value"
		}
		c.f = fTOS
		c.ivs = enumerate(255, func(v uint32) bool { return (uint8(v) == tos) != neg })
	case "fragoffset":
		op, off, ok := parseFragoffset(o.Value)
		if !ok {
			return c, "invalid value"
		}
		c.f = fFragoffset
		m := rules.IntMatch{Op: fragoffsetOps[op], A: uint64(off)}
		c.ivs = intervals(m, fieldMax[fFragoffset])
	case "ttl", "itype", "icode", "ip_proto", "tcp.wscale", "dsize", "tcp.mss", "vlan.id":
		m, ok := o.Arg.(rules.IntMatch)
		if !ok {
			return c, "unexpected argument"
		}
		c.f = fieldOf[o.Name]
		if o.Name == "vlan.id" {
			if _, layer, has := strings.Cut(o.Value, ","); has {
				layer = strings.TrimSpace(layer)
				if _, err := strconv.Atoi(layer); err != nil && layer != "all" {
					return c, "invalid layer"
				} else if err == nil {
					c.f = fVLANLayer // one given layer: Lookup searches the whole array
				}
			}
		}
		mx := fieldMax[c.f]
		if mx <= 255 {
			c.ivs = enumerate(mx, func(v uint32) bool { return m.Match(uint64(v)) })
		} else {
			c.ivs = intervals(m, mx)
		}
	case "icmp_id", "icmp_seq", "id", "tcp.window", "tcp.seq", "tcp.ack":
		v, ok := o.Arg.(uint64)
		if !ok {
			return c, "unexpected argument"
		}
		c.f = fieldOf[o.Name]
		neg := strings.HasPrefix(o.Value, "!") != o.Negated
		if fieldMax[c.f] == exactField {
			if neg {
				return c, "negated: admits every value but one"
			}
			if v > math.MaxUint32 {
				c.ivs = []iv{} // can never match a 32-bit field
				c.admits = 0
				return c, "value out of range"
			}
			c.exact = uint32(v)
			c.admits = 1.0 / (1 << 32)
			if c.f == fAck && v == 0 {
				c.admits = ackZeroAdmits
			}
			return c, ""
		}
		op := "="
		if neg {
			op = "!="
		}
		c.ivs = intervals(rules.IntMatch{Op: op, A: v}, fieldMax[c.f])
	case "flowbits":
		fb, ok := o.Arg.(*rules.Flowbit)
		switch {
		case !ok || fb == nil || len(fb.Names) == 0:
			return c, "unexpected argument"
		case fb.Cmd == "isnotset":
			return c, "negated flow variable (isnotset) holds on every flow without the bit"
		case fb.Cmd != "isset":
			return c, "not a check"
		}
		c.perFlow, c.admits = true, flowbitAdmits
		return c, ""
	default:
		if why, ok := notHeader[o.Name]; ok {
			return c, why
		}
		return c, "no header engine for this keyword"
	}
	if len(c.ivs) > maxRuns && fieldMax[c.f] > 255 {
		return c, "bitmask condition admits too many separate values"
	}
	c.admits = priors[c.f].mass(c.ivs)
	return c, ""
}

// enumerate returns the runs of values in [0, max] for which ok holds. The value max+1
// (larger values) is never admitted: these fields never exceed max.
func enumerate(max uint32, ok func(uint32) bool) []iv {
	var out []iv
	for v := uint32(0); v <= max; v++ {
		if !ok(v) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].hi+1 == v {
			out[n-1].hi = v
		} else {
			out = append(out, iv{v, v})
		}
	}
	return out
}

// intervals returns the values of [0, max+1] that an integer condition admits, max+1
// standing for every value above max: exact for comparisons and ranges; for a bitmask
// condition the values up to max are enumerated and max+1 is admitted (it cannot stand for
// all larger values exactly, so it errs on the side of admitting).
func intervals(m rules.IntMatch, max uint32) []iv {
	const inf = math.MaxUint64
	type span struct{ lo, hi uint64 }
	var line []span
	a, b := m.A, m.B
	switch m.Op {
	case "=":
		line = []span{{a, a}}
	case "!=":
		if a > 0 {
			line = append(line, span{0, a - 1})
		}
		if a < inf {
			line = append(line, span{a + 1, inf})
		}
	case "<":
		if a > 0 {
			line = []span{{0, a - 1}}
		}
	case "<=":
		line = []span{{0, a}}
	case ">":
		if a < inf {
			line = []span{{a + 1, inf}}
		}
	case ">=":
		line = []span{{a, inf}}
	case "<>":
		if b > a && b-a >= 2 {
			line = []span{{a + 1, b - 1}}
		}
	case "!<>":
		line = []span{{0, a}}
		if b > a {
			line = append(line, span{b, inf})
		} else {
			line = []span{{0, inf}}
		}
	case "&", "!&":
		out := enumerate(max, func(v uint32) bool { return m.Match(uint64(v)) })
		if n := len(out); n > 0 && out[n-1].hi == max {
			out[n-1].hi = max + 1
		} else {
			out = append(out, iv{max + 1, max + 1})
		}
		return out
	}
	var out []iv
	top := uint64(max) + 1
	for _, s := range line {
		if s.lo > top {
			s.lo = top
		}
		if s.hi > top {
			s.hi = top
		}
		if n := len(out); n > 0 && uint64(out[n-1].hi)+1 >= s.lo {
			out[n-1].hi = max32(out[n-1].hi, uint32(s.hi))
			continue
		}
		out = append(out, iv{uint32(s.lo), uint32(s.hi)})
	}
	return out
}

func max32(a, b uint32) uint32 {
	if a > b {
		return a
	}
	return b
}

// parseFragbits reads a fragbits value as detect/match does.
func parseFragbits(v string) (mod, b uint8, ok bool) {
	s := strings.TrimSpace(v)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '+', '*', '!':
			mod = s[i]
		case 'M', 'm':
			b |= decode.IPv4FlagMF
		case 'D', 'd':
			b |= decode.IPv4FlagDF
		case 'R', 'r':
			b |= decode.IPv4FlagRF
		case ' ', '\t':
		default:
			return 0, 0, false
		}
	}
	return mod, b, b != 0
}

// parseFragoffset reads a fragoffset value as detect/match does.
func parseFragoffset(v string) (op byte, off uint16, ok bool) {
	s := strings.TrimSpace(v)
	if s != "" && strings.IndexByte("!<>", s[0]) >= 0 {
		op = s[0]
		s = strings.TrimSpace(s[1:])
	}
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return 0, 0, false
	}
	return op, uint16(n), true
}

// parseTOS reads a tos value as detect/match does.
func parseTOS(v string, negated bool) (neg bool, tos uint8, ok bool) {
	s := strings.TrimSpace(v)
	neg = negated
	if strings.HasPrefix(s, "!") {
		neg = !neg
		s = strings.TrimSpace(s[1:])
	}
	var n uint64
	var err error
	if s != "" && (s[0] == 'x' || s[0] == 'X') {
		n, err = strconv.ParseUint(s[1:], 16, 8)
	} else {
		n, err = strconv.ParseUint(s, 10, 8)
	}
	if err != nil {
		return false, 0, false
	}
	return neg, uint8(n), true
}
