package rules

import (
	"strconv"
	"strings"
)

// TCPFlags is a tcp.flags (flags) keyword.
type TCPFlags struct {
	// Modifier is "", "!", "+" or "*".
	Modifier string
	// Flags and Ignore are bit sets (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10,
	// URG 0x20, ECE 0x40, CWR 0x80).
	Flags  uint8
	Ignore uint8
}

func tcpFlagBit(c byte) (uint8, bool) {
	switch c {
	case 'F', 'f':
		return 0x01, true
	case 'S', 's':
		return 0x02, true
	case 'R', 'r':
		return 0x04, true
	case 'P', 'p':
		return 0x08, true
	case 'A', 'a':
		return 0x10, true
	case 'U', 'u':
		return 0x20, true
	case 'E', 'e', '2':
		return 0x40, true
	case 'C', 'c', '1':
		return 0x80, true
	}
	return 0, false
}

func setupTCPFlags(p *ruleParser, o *Option, arg string) error {
	bad := &kwError{msg: "invalid tcp flags \"" + arg + "\""}
	s := strings.TrimSpace(arg)
	set, ignore, hasIgnore := strings.Cut(s, ",")
	set = strings.TrimSpace(set)
	ignore = strings.TrimSpace(ignore)
	tf := &TCPFlags{}
	if set == "" {
		return bad
	}
	if strings.IndexByte("+*!", set[0]) >= 0 {
		tf.Modifier = set[:1]
		set = strings.TrimLeft(set[1:], " \t")
	}
	if set == "" {
		return bad
	}
	for i := 0; i < len(set); i++ {
		c := set[i]
		if strings.IndexByte("SAPRFU120CE+*!", c) < 0 {
			return bad
		}
		switch c {
		case '0':
			tf.Flags = 0
		case '+', '*', '!':
			tf.Modifier = string(c)
		default:
			b, _ := tcpFlagBit(c)
			tf.Flags |= b
		}
	}
	if hasIgnore {
		if ignore == "" {
			return bad
		}
		for i := 0; i < len(ignore); i++ {
			if strings.IndexByte("SAPRFU12CE", ignore[i]) < 0 {
				return bad
			}
			b, _ := tcpFlagBit(ignore[i])
			tf.Ignore |= b
		}
	}
	o.Arg = tf
	o.Value = stripSpace(s)
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

// packetIntKeyword is an integer keyword on packet headers (sets RequirePacket).
func packetIntKeyword(max uint64) setupFunc {
	return func(p *ruleParser, o *Option, arg string) error {
		m, err := ParseIntMatch(arg, max)
		if err != nil {
			return err
		}
		o.Arg = m
		o.Value = m.String()
		p.addMatch(o)
		p.r.RequirePacket = true
		return nil
	}
}

// plainNumberKeyword takes a plain decimal number up to max.
func plainNumberKeyword(max uint64, negation bool) setupFunc {
	return func(p *ruleParser, o *Option, arg string) error {
		s := strings.TrimSpace(arg)
		neg := false
		if negation && strings.HasPrefix(s, "!") {
			neg = true
			s = strings.TrimSpace(s[1:])
		}
		v, err := parseUintStrict(s, max)
		if err != nil {
			return errf("invalid %s value \"%s\"", o.Name, arg)
		}
		o.Arg = v
		o.Value = strconv.FormatUint(v, 10)
		if neg {
			o.Value = "!" + o.Value
		}
		p.addMatch(o)
		p.r.RequirePacket = true
		return nil
	}
}

// ipProtoNames are protocol names accepted by ip_proto (getprotobyname), lower-cased.
var ipProtoNames = map[string]uint8{
	"ip": 0, "hopopt": 0, "icmp": 1, "igmp": 2, "ggp": 3, "ipencap": 4, "st": 5, "tcp": 6,
	"egp": 8, "igp": 9, "pup": 12, "udp": 17, "hmp": 20, "xns-idp": 22, "rdp": 27,
	"iso-tp4": 29, "dccp": 33, "xtp": 36, "ddp": 37, "idpr-cmtp": 38, "ipv6": 41,
	"ipv6-route": 43, "ipv6-frag": 44, "idrp": 45, "rsvp": 46, "gre": 47, "esp": 50, "ah": 51,
	"skip": 57, "ipv6-icmp": 58, "ipv6-nonxt": 59, "ipv6-opts": 60, "rspf": 73, "vmtp": 81,
	"eigrp": 88, "ospf": 89, "ax.25": 93, "ipip": 94, "etherip": 97, "encap": 98, "pim": 103,
	"ipcomp": 108, "vrrp": 112, "l2tp": 115, "isis": 124, "sctp": 132, "fc": 133,
	"mobility-header": 135, "udplite": 136, "mpls-in-ip": 137, "manet": 138, "hip": 139,
	"shim6": 140, "wesp": 141, "rohc": 142, "ethernet": 143,
}

func setupIPProto(p *ruleParser, o *Option, arg string) error {
	s := strings.TrimSpace(arg)
	op := ""
	if s != "" && strings.IndexByte("!<>", s[0]) >= 0 {
		op = s[:1]
		s = strings.TrimLeft(s[1:], " \t")
	}
	if s == "" || strings.ContainsAny(s, " \t") {
		return errf("invalid ip_proto \"%s\"", arg)
	}
	var v uint64
	if s[0] >= '0' && s[0] <= '9' {
		n, err := parseUintStrict(s, 255)
		if err != nil {
			return errf("invalid ip_proto \"%s\"", arg)
		}
		v = n
	} else {
		n, ok := ipProtoNames[strings.ToLower(s)]
		if !ok {
			return errf("unknown protocol name: \"%s\"", s)
		}
		v = uint64(n)
	}
	if op == "<" && v == 0 || op == ">" && v == 255 {
		return errf("invalid ip_proto range \"%s\"", arg)
	}
	o.Value = op + s
	o.Arg = IntMatch{Op: map[string]string{"": "=", "!": "!=", "<": "<", ">": ">"}[op], A: v}
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupIPOpts(p *ruleParser, o *Option, arg string) error {
	s := strings.TrimSpace(arg)
	switch s {
	case "rr", "eol", "nop", "ts", "sec", "esec", "lsrr", "lsrre", "ssrr", "satid", "qs", "rtralt", "cipso", "any":
	default:
		return errf("unknown IP option specified \"%s\"", s)
	}
	o.Value = s
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupFragbits(p *ruleParser, o *Option, arg string) error {
	s := arg
	i := 0
	if i < len(s) && strings.IndexByte("+*!", s[i]) >= 0 {
		i++
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && strings.IndexByte("MDR", s[j]) >= 0 {
		j++
	}
	if j == i {
		return errf("invalid fragbits \"%s\"", arg)
	}
	o.Value = strings.TrimSpace(arg)
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupFragoffset(p *ruleParser, o *Option, arg string) error {
	s := strings.TrimSpace(arg)
	op := ""
	if s != "" && strings.IndexByte("!<>", s[0]) >= 0 {
		op = s[:1]
		s = strings.TrimSpace(s[1:])
	}
	v, err := parseUintStrict(s, 65535)
	if err != nil {
		return errf("invalid fragoffset \"%s\"", arg)
	}
	o.Value = op + strconv.FormatUint(v, 10)
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupTOS(p *ruleParser, o *Option, arg string) error {
	s := strings.TrimSpace(arg)
	neg := false
	if strings.HasPrefix(s, "!") {
		neg = true
		s = strings.TrimSpace(s[1:])
	}
	var v uint64
	var err error
	if s != "" && (s[0] == 'x' || s[0] == 'X') {
		if len(s) < 2 || len(s) > 3 {
			return errf("invalid tos \"%s\"", arg)
		}
		v, err = strconv.ParseUint(s[1:], 16, 8)
	} else {
		if len(s) > 3 {
			return errf("invalid tos \"%s\"", arg)
		}
		v, err = parseUintStrict(s, 255)
	}
	if err != nil || v > 255 {
		return errf("invalid tos \"%s\"", arg)
	}
	o.Value = s
	if neg != o.Negated {
		o.Value = "!" + s
	}
	o.Negated = false
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupSameIP(p *ruleParser, o *Option, arg string) error {
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupCsum(p *ruleParser, o *Option, arg string) error {
	s := strings.TrimSpace(arg)
	// Suricata compares case-insensitively (quotes never get here: the option parser
	// refuses them for the checksum keywords). Value holds "valid" or "invalid".
	switch {
	case strings.EqualFold(s, "valid"):
		o.Value = "valid"
	case strings.EqualFold(s, "invalid"):
		o.Value = "invalid"
	default:
		return errf("invalid %s value \"%s\": expected valid or invalid", o.Name, arg)
	}
	p.addMatch(o)
	return nil
}

func setupGeoIP(p *ruleParser, o *Option, arg string) error {
	parts := splitArgs(arg)
	if len(parts) < 2 {
		return errf("invalid geoip \"%s\"", arg)
	}
	switch parts[0] {
	case "src", "dst", "both", "any":
	default:
		return errf("invalid geoip direction \"%s\"", parts[0])
	}
	for _, cc := range parts[1:] {
		cc = strings.TrimPrefix(cc, "!")
		if cc == "" {
			return errf("invalid geoip country in \"%s\"", arg)
		}
	}
	o.Value = strings.Join(parts, ",")
	p.addMatch(o)
	return nil
}

// genericMatch accepts any non-empty argument and adds a match.
func genericMatch(p *ruleParser, o *Option, arg string) error {
	p.addMatch(o)
	return nil
}

// genericFlag is a keyword without argument that adds a match.
func genericFlag(p *ruleParser, o *Option, arg string) error {
	p.addMatch(o)
	return nil
}

func init() {
	register(
		&Keyword{Name: "tcp.flags", Aliases: []string{"flags"}, Kind: KindMatch, Flags: KwFirewall | KwRequirePacket, Desc: "TCP flags", setup: setupTCPFlags},
		&Keyword{Name: "ttl", Kind: KindMatch, Flags: KwRequirePacket, Desc: "IP time to live", setup: packetIntKeyword(255)},
		&Keyword{Name: "itype", Kind: KindMatch, Flags: KwFirewall | KwRequirePacket, Desc: "ICMP type", setup: packetIntKeyword(255)},
		&Keyword{Name: "icode", Kind: KindMatch, Flags: KwFirewall | KwRequirePacket, Desc: "ICMP code", setup: packetIntKeyword(255)},
		&Keyword{Name: "icmp_id", Kind: KindMatch, Flags: KwRequirePacket, Desc: "ICMP echo id", setup: plainNumberKeyword(65535, false)},
		&Keyword{Name: "icmp_seq", Kind: KindMatch, Flags: KwRequirePacket, Desc: "ICMP echo sequence", setup: plainNumberKeyword(65535, false)},
		&Keyword{Name: "icmpv6.mtu", Kind: KindMatch, Flags: KwRequirePacket, Desc: "ICMPv6 MTU", setup: packetIntKeyword(0xffffffff)},
		&Keyword{Name: "ip_proto", Kind: KindMatch, Flags: KwQuotesOptional | KwRequirePacket, Desc: "IP protocol", setup: setupIPProto},
		&Keyword{Name: "ipopts", Kind: KindMatch, Flags: KwRequirePacket, Desc: "IP options", setup: setupIPOpts},
		&Keyword{Name: "fragbits", Kind: KindMatch, Flags: KwRequirePacket, Desc: "IP fragment bits", setup: setupFragbits},
		&Keyword{Name: "fragoffset", Kind: KindMatch, Flags: KwRequirePacket, Desc: "IP fragment offset", setup: setupFragoffset},
		&Keyword{Name: "id", Kind: KindMatch, Flags: KwRequirePacket, Desc: "IP id", setup: plainNumberKeyword(65535, false)},
		&Keyword{Name: "tos", Kind: KindMatch, Flags: KwNegation | KwQuotesOptional | KwRequirePacket, Desc: "IP type of service", setup: setupTOS},
		&Keyword{Name: "sameip", Kind: KindMatch, Flags: KwNoOpt | KwRequirePacket, Desc: "source and destination IP are equal", setup: setupSameIP},
		&Keyword{Name: "tcp.seq", Aliases: []string{"seq"}, Kind: KindMatch, Flags: KwRequirePacket, Desc: "TCP sequence number", setup: plainNumberKeyword(0xffffffff, false)},
		&Keyword{Name: "tcp.ack", Aliases: []string{"ack"}, Kind: KindMatch, Flags: KwRequirePacket, Desc: "TCP acknowledgement number", setup: plainNumberKeyword(0xffffffff, false)},
		&Keyword{Name: "tcp.window", Aliases: []string{"window"}, Kind: KindMatch, Flags: KwRequirePacket, Desc: "TCP window size", setup: plainNumberKeyword(65535, true)},
		&Keyword{Name: "tcp.mss", Kind: KindMatch, Flags: KwRequirePacket, Desc: "TCP MSS option", setup: packetIntKeyword(65535)},
		&Keyword{Name: "tcp.wscale", Kind: KindMatch, Flags: KwFirewall | KwRequirePacket, Desc: "TCP window scale option", setup: packetIntKeyword(255)},
		&Keyword{Name: "ipv4-csum", Kind: KindMatch, Desc: "IPv4 checksum validity", setup: setupCsum},
		&Keyword{Name: "tcpv4-csum", Kind: KindMatch, Desc: "TCP/IPv4 checksum validity", setup: setupCsum},
		&Keyword{Name: "tcpv6-csum", Kind: KindMatch, Desc: "TCP/IPv6 checksum validity", setup: setupCsum},
		&Keyword{Name: "udpv4-csum", Kind: KindMatch, Desc: "UDP/IPv4 checksum validity", setup: setupCsum},
		&Keyword{Name: "udpv6-csum", Kind: KindMatch, Desc: "UDP/IPv6 checksum validity", setup: setupCsum},
		&Keyword{Name: "icmpv4-csum", Kind: KindMatch, Desc: "ICMPv4 checksum validity", setup: setupCsum},
		&Keyword{Name: "icmpv6-csum", Kind: KindMatch, Desc: "ICMPv6 checksum validity", setup: setupCsum},
		&Keyword{Name: "vlan.id", Kind: KindMatch, Flags: KwRequirePacket, Desc: "VLAN id", setup: setupVlanID},
		&Keyword{Name: "vlan.layers", Kind: KindMatch, Flags: KwRequirePacket, Desc: "number of VLAN layers", setup: packetIntKeyword(255)},
		&Keyword{Name: "l3_proto", Kind: KindMatch, Desc: "layer 3 protocol", setup: genericMatch},
		&Keyword{Name: "geoip", Kind: KindMatch, Desc: "GeoIP country", setup: setupGeoIP},
		&Keyword{Name: "rpc", Kind: KindMatch, Flags: KwRequirePacket, Desc: "SUNRPC call", setup: setupRPC},
		&Keyword{Name: "flow.age", Kind: KindMatch, Flags: KwRequirePacket, Desc: "flow age in seconds", setup: intKeyword(0xffffffff, "match")},
		&Keyword{Name: "flow.pkts", Kind: KindMatch, Flags: KwRequirePacket, Desc: "flow packet count (direction,condition)", setup: setupFlowCount},
		&Keyword{Name: "flow.bytes", Kind: KindMatch, Desc: "flow byte count (direction,condition)", setup: setupFlowCount},
		&Keyword{Name: "flow.pkts_toserver", Kind: KindMatch, Flags: KwRequirePacket | KwDeprecated, Desc: "flow packets to server", setup: intKeyword(0xffffffff, "match")},
		&Keyword{Name: "flow.pkts_toclient", Kind: KindMatch, Flags: KwRequirePacket | KwDeprecated, Desc: "flow packets to client", setup: intKeyword(0xffffffff, "match")},
		&Keyword{Name: "flow.bytes_toserver", Kind: KindMatch, Flags: KwDeprecated, Desc: "flow bytes to server", setup: intKeyword(^uint64(0), "match")},
		&Keyword{Name: "flow.bytes_toclient", Kind: KindMatch, Flags: KwDeprecated, Desc: "flow bytes to client", setup: intKeyword(^uint64(0), "match")},
	)
}

func setupVlanID(p *ruleParser, o *Option, arg string) error {
	val, layer, hasLayer := strings.Cut(arg, ",")
	m, err := ParseIntMatch(strings.TrimSpace(val), 4095)
	if err != nil {
		return err
	}
	o.Arg = m
	o.Value = m.String()
	if hasLayer {
		layer = strings.TrimSpace(layer)
		if _, err := strconv.ParseInt(layer, 10, 8); err != nil && layer != "all" {
			return errf("invalid vlan.id layer \"%s\"", layer)
		}
		o.Value += "," + layer
	}
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupRPC(p *ruleParser, o *Option, arg string) error {
	parts := splitArgs(arg)
	if len(parts) < 1 || len(parts) > 3 {
		return errf("invalid rpc \"%s\"", arg)
	}
	for i, s := range parts {
		if i > 0 && s == "*" {
			continue
		}
		if _, err := parseUintStrict(s, 0xffffffff); err != nil {
			return errf("invalid rpc \"%s\"", arg)
		}
	}
	o.Value = strings.Join(parts, ",")
	p.addMatch(o)
	p.r.RequirePacket = true
	return nil
}

func setupFlowCount(p *ruleParser, o *Option, arg string) error {
	dir, cond, ok := strings.Cut(arg, ",")
	dir = strings.TrimSpace(dir)
	if !ok {
		cond, dir = dir, ""
	} else {
		switch dir {
		case "toserver", "toclient", "either", "both":
		default:
			return errf("invalid %s direction \"%s\"", o.Name, dir)
		}
	}
	m, err := ParseIntMatch(strings.TrimSpace(cond), ^uint64(0))
	if err != nil {
		return err
	}
	o.Arg = m
	o.Value = m.String()
	if dir != "" {
		o.Value = dir + "," + o.Value
	}
	p.addMatch(o)
	return nil
}
