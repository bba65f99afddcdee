package match

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// compileFunc compiles one option of a rule's match list into its check.
type compileFunc func(o *rules.Option, names *Names) (check, error)

// compilers is the one declaration of every keyword this package evaluates (by canonical
// name, as package rules registers it): the compiler of its match-list form. Supports, and so
// the engine's supported set, --list-keywords and the README's table, read it. flowbits,
// flowint, xbits and hostbits also have post-match forms (CompilePost).
var compilers = map[string]compileFunc{
	"flow":       compileFlow,
	"tcp.flags":  compileFlags,
	"ttl":        intKeyword(fieldTTL),
	"itype":      intKeyword(fieldIType),
	"icode":      intKeyword(fieldICode),
	"tcp.mss":    intKeyword(fieldMSS),
	"tcp.wscale": intKeyword(fieldWScale),
	"dsize":      intKeyword(fieldDsize),
	"ip_proto":   intKeyword(fieldIPProto),
	"icmp_id":    valueKeyword(fieldICMPID),
	"icmp_seq":   valueKeyword(fieldICMPSeq),
	"id":         valueKeyword(fieldIPID),
	"tcp.seq":    valueKeyword(fieldSeq),
	"tcp.ack":    valueKeyword(fieldAck),
	"tcp.window": valueKeyword(fieldWindow),
	"ipv4-csum":  compileCsum, "tcpv4-csum": compileCsum, "tcpv6-csum": compileCsum,
	"udpv4-csum": compileCsum, "udpv6-csum": compileCsum, "icmpv4-csum": compileCsum,
	"icmpv6-csum":  compileCsum,
	"decode-event": compileEvent,
	"stream-event": compileEvent,
	"stream_size":  compileStreamSize,
	"vlan.id":      compileVLAN,
	"ipopts":       compileIPOpts,
	"fragbits":     func(o *rules.Option, _ *Names) (check, error) { return checkOrErr(parseFragbits(o.Value)) },
	"fragoffset":   func(o *rules.Option, _ *Names) (check, error) { return checkOrErr(parseFragoffset(o.Value)) },
	"tos":          func(o *rules.Option, _ *Names) (check, error) { return checkOrErr(parseTOS(o.Value, o.Negated)) },
	"sameip":       func(*rules.Option, *Names) (check, error) { return sameIPCheck{}, nil },
	"flowbits":     compileFlowbitCheck,
	"flowint":      compileFlowintCheck,
	"xbits":        compileXbitCheck,
	"hostbits":     compileXbitCheck,
}

// checkOrErr returns c as a check, or no check (not a typed nil) with err.
func checkOrErr[C check](c C, err error) (check, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}

// compileMatch compiles one option of the match list.
func compileMatch(o *rules.Option, names *Names) (check, error) {
	c, ok := compilers[o.Name]
	if !ok {
		return nil, notSupported(o.Name)
	}
	return c(o, names)
}

// badArg is the error for an option whose parsed argument is not what its keyword gives.
func badArg(o *rules.Option) error {
	return fmt.Errorf("keyword %s: unexpected argument %T (%q)", o.Name, o.Arg, o.Value)
}

func compileFlow(o *rules.Option, _ *Names) (check, error) {
	f, ok := o.Arg.(*rules.Flow)
	if !ok || f == nil {
		return nil, badArg(o)
	}
	c := &flowCheck{f: *f}
	for _, b := range []bool{f.ToServer, f.ToClient, f.Established, f.NotEstablished, f.Stateless, f.OnlyFrag, f.NoFrag} {
		if b {
			c.cnt++
		}
	}
	return c, nil
}

func compileFlags(o *rules.Option, _ *Names) (check, error) {
	tf, ok := o.Arg.(*rules.TCPFlags)
	if !ok || tf == nil {
		return nil, badArg(o)
	}
	c := &flagsCheck{flags: tf.Flags, mask: ^tf.Ignore}
	if tf.Modifier != "" {
		c.mod = tf.Modifier[0]
	}
	return c, nil
}

// intKeyword compiles a keyword with an integer comparison (ttl:<5, dsize:100<>200) on field f.
func intKeyword(f intField) compileFunc {
	return func(o *rules.Option, _ *Names) (check, error) {
		m, ok := o.Arg.(rules.IntMatch)
		if !ok {
			return nil, badArg(o)
		}
		return &intCheck{field: f, m: m}, nil
	}
}

// valueKeyword compiles a keyword with one value, equal or (negated) not equal, on field f.
func valueKeyword(f intField) compileFunc {
	return func(o *rules.Option, _ *Names) (check, error) {
		v, ok := o.Arg.(uint64)
		if !ok {
			return nil, badArg(o)
		}
		op := "="
		if strings.HasPrefix(o.Value, "!") != o.Negated {
			op = "!="
		}
		return &intCheck{field: f, m: rules.IntMatch{Op: op, A: v}}, nil
	}
}

func compileCsum(o *rules.Option, _ *Names) (check, error) {
	c, ok := csumChecks[o.Name]
	if !ok {
		return nil, badArg(o)
	}
	c.valid = o.Value == "valid"
	return &c, nil
}

func compileEvent(o *rules.Option, _ *Names) (check, error) {
	e, ok := DecodeEvent(o)
	if !ok {
		return nil, fmt.Errorf("decode-event %s is not supported yet", o.Value)
	}
	return eventCheck(e), nil
}

func compileVLAN(o *rules.Option, _ *Names) (check, error) {
	m, ok := o.Arg.(rules.IntMatch)
	if !ok {
		return nil, badArg(o)
	}
	c := &vlanCheck{m: m, layer: vlanAny}
	if _, layer, has := strings.Cut(o.Value, ","); has {
		layer = strings.TrimSpace(layer)
		if layer == "all" {
			c.layer = vlanAll
		} else if n, err := strconv.Atoi(layer); err == nil {
			c.layer = n
		} else {
			return nil, badArg(o)
		}
	}
	return c, nil
}

func compileIPOpts(o *rules.Option, _ *Names) (check, error) {
	bit, ok := ipoptBits[strings.TrimSpace(o.Value)]
	if !ok {
		return nil, badArg(o)
	}
	return &ipoptsCheck{bit: bit}, nil
}

func compileFlowbitCheck(o *rules.Option, names *Names) (check, error) {
	fb, ok := o.Arg.(*rules.Flowbit)
	if !ok || fb == nil || !fb.IsCheck() {
		return nil, badArg(o)
	}
	c := &flowbitCheck{not: fb.Cmd == "isnotset"}
	for _, n := range fb.Names {
		c.ids = append(c.ids, names.Flowbit(n))
	}
	return c, nil
}

func compileFlowintCheck(o *rules.Option, names *Names) (check, error) {
	fi, ok := o.Arg.(*rules.Flowint)
	if !ok || fi == nil || fi.IsModifier() {
		return nil, badArg(o)
	}
	return compileFlowint(fi, names), nil
}

func compileXbitCheck(o *rules.Option, names *Names) (check, error) {
	x, ok := o.Arg.(*rules.Xbit)
	if !ok || x == nil || !x.IsCheck() {
		return nil, badArg(o)
	}
	xb, err := compileXbit(o.Name, x, names)
	if err != nil {
		return nil, err
	}
	return xb, nil
}

// dirCheck is a direction-only flow keyword (flow:to_server / to_client). Packets without a
// flow count as to_server, as Suricata inspects them with the to_server rule groups.
type dirCheck struct{ toClient bool }

func (c *dirCheck) match(in *Input) bool {
	if in.F == nil {
		return !c.toClient
	}
	return (in.Dir == flow.ToClient) == c.toClient
}

// flowCheck is a flow keyword with a state or frag option (Suricata's FlowMatch).
type flowCheck struct {
	f   rules.Flow
	cnt int
}

func (c *flowCheck) match(in *Input) bool {
	if in.F == nil {
		return false
	}
	rebuilt := in.P.Source == decode.SourceDefrag
	n := 0
	if c.f.NoFrag && !rebuilt {
		n++
	} else if c.f.OnlyFrag && rebuilt {
		n++
	}
	if c.f.ToServer && in.Dir == flow.ToServer {
		n++
	} else if c.f.ToClient && in.Dir == flow.ToClient {
		n++
	}
	est := in.F.PacketEstablished()
	if c.f.Established && est {
		n++
	} else if c.f.NotEstablished && !est {
		n++
	} else if c.f.Stateless {
		n++
	}
	return n == c.cnt
}

// flagsCheck is tcp.flags (Suricata's FlagsMatch).
type flagsCheck struct {
	mod   byte // 0, '!', '+', '*'
	flags uint8
	mask  uint8 // inverted ignore mask
}

func (c *flagsCheck) match(in *Input) bool {
	p := in.P
	if !p.IsTCP() {
		return false
	}
	return FlagsMatch(p.TCPFlags, c.mod, c.flags, c.mask)
}

// FlagsMatch is Suricata's FlagsMatch: whether TCP flags pflags satisfy the tcp.flags
// condition dflags with modifier mod ('*', '+', '!' or 0) and mask (the flags not ignored).
// The header witness index (prefilter/header) tabulates it, so both read the same rule.
func FlagsMatch(pflags uint8, mod byte, dflags, mask uint8) bool {
	if dflags == 0 && pflags != 0 {
		return mod == '!'
	}
	f := pflags & mask
	switch mod {
	case '*':
		return f&dflags != 0
	case '+':
		return f&dflags == dflags
	case '!':
		return f&dflags != dflags
	}
	return f == dflags
}

// intField names the packet field an integer keyword reads.
type intField uint8

const (
	fieldTTL intField = iota
	fieldIType
	fieldICode
	fieldMSS
	fieldWScale
	fieldDsize
	fieldIPProto
	fieldICMPID
	fieldICMPSeq
	fieldIPID
	fieldSeq
	fieldAck
	fieldWindow
)

// intCheck compares one packet field with an integer condition; the field must exist.
type intCheck struct {
	field intField
	m     rules.IntMatch
}

func (c *intCheck) match(in *Input) bool {
	v, ok := fieldValue(in.P, c.field)
	return ok && c.m.Match(v)
}

// fieldValue returns a packet field and whether the packet has it.
func fieldValue(p *decode.Packet, f intField) (uint64, bool) {
	switch f {
	case fieldTTL:
		if p.IPVersion != 4 && p.IPVersion != 6 {
			return 0, false
		}
		return uint64(p.TTL), true
	case fieldIType:
		if !p.IsICMP() {
			return 0, false
		}
		return uint64(p.ICMPType), true
	case fieldICode:
		if !p.IsICMP() {
			return 0, false
		}
		return uint64(p.ICMPCode), true
	case fieldMSS:
		if !p.IsTCP() || !p.HasTCPMSS {
			return 0, false
		}
		return uint64(p.TCPMSS), true
	case fieldWScale:
		if !p.IsTCP() || !p.HasWScale {
			return 0, false
		}
		if p.TCPWScale > 14 { // Suricata keeps 0 for an invalid shift count
			return 0, true
		}
		return uint64(p.TCPWScale), true
	case fieldDsize:
		return uint64(len(p.Payload)), true
	case fieldIPProto:
		if p.IPVersion != 4 && p.IPVersion != 6 {
			return 0, false
		}
		return uint64(p.IPProto), true
	case fieldICMPID:
		if !p.IsICMP() || !p.HasICMPID {
			return 0, false
		}
		return uint64(p.ICMPID), true
	case fieldICMPSeq:
		if !p.IsICMP() || !p.HasICMPID {
			return 0, false
		}
		return uint64(p.ICMPSeq), true
	case fieldIPID:
		if p.IPVersion != 4 {
			return 0, false
		}
		return uint64(p.IPID), true
	case fieldSeq:
		if !p.IsTCP() {
			return 0, false
		}
		return uint64(p.TCPSeq), true
	case fieldAck:
		if !p.IsTCP() {
			return 0, false
		}
		return uint64(p.TCPAck), true
	case fieldWindow:
		if !p.IsTCP() {
			return 0, false
		}
		return uint64(p.TCPWindow), true
	}
	return 0, false
}

// ipoptBits maps ipopts names to decode.IPv4Opt* bits. "any" needs every bit of the 16
// (Suricata 8.0.6 tests opts & 0xffff == 0xffff), which no packet has.
var ipoptBits = map[string]uint16{
	"rr": decode.IPv4OptRR, "eol": decode.IPv4OptEOL, "nop": decode.IPv4OptNOP,
	"ts": decode.IPv4OptTS, "sec": decode.IPv4OptSec, "esec": decode.IPv4OptESec,
	"lsrr": decode.IPv4OptLSRR, "lsrre": decode.IPv4OptLSRR, "ssrr": decode.IPv4OptSSRR,
	"satid": decode.IPv4OptSatID, "qs": decode.IPv4OptQS, "rtralt": decode.IPv4OptRtrAlt,
	"cipso": decode.IPv4OptCIPSO, "any": 0xffff,
}

type ipoptsCheck struct{ bit uint16 }

func (c *ipoptsCheck) match(in *Input) bool {
	p := in.P
	if p.IPVersion != 4 {
		return false
	}
	// IPv4OptAny is Meerkat's own summary bit, not one of Suricata's option flags.
	opts := p.IPv4Options &^ decode.IPv4OptAny
	return opts&c.bit == c.bit
}

// fragbitsCheck is fragbits (Suricata's FragBitsMatch), IPv4 only.
type fragbitsCheck struct {
	mod  byte
	bits uint8
}

func parseFragbits(v string) (*fragbitsCheck, error) {
	s := strings.TrimSpace(v)
	c := &fragbitsCheck{}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '+', '*', '!':
			c.mod = s[i]
		case 'M', 'm':
			c.bits |= decode.IPv4FlagMF
		case 'D', 'd':
			c.bits |= decode.IPv4FlagDF
		case 'R', 'r':
			c.bits |= decode.IPv4FlagRF
		case ' ', '\t':
		default:
			return nil, fmt.Errorf("keyword fragbits: invalid value %q", v)
		}
	}
	if c.bits == 0 {
		return nil, fmt.Errorf("keyword fragbits: invalid value %q", v)
	}
	return c, nil
}

func (c *fragbitsCheck) match(in *Input) bool {
	p := in.P
	if p.IPVersion != 4 {
		return false
	}
	return FragbitsMatch(p.IPv4Flags&(decode.IPv4FlagMF|decode.IPv4FlagDF|decode.IPv4FlagRF), c.mod, c.bits)
}

// FragbitsMatch is Suricata's FragBitsMatch: whether an IPv4 packet's fragment bits pb (MF,
// DF, RF) satisfy the fragbits condition bits with modifier mod ('*', '+', '!' or 0). The
// header witness index (prefilter/header) tabulates it.
func FragbitsMatch(pb, mod, bits uint8) bool {
	switch mod {
	case '*':
		return pb&bits != 0
	case '+':
		return pb&bits == bits && pb-bits > 0
	case '!':
		return pb&bits != bits
	}
	return pb == bits
}

// fragoffsetCheck is fragoffset: IPv4 compares the raw 13-bit field, IPv6 the fragment
// header's offset in bytes.
type fragoffsetCheck struct {
	op  byte // 0 (==), '!', '<', '>'
	off uint16
}

func parseFragoffset(v string) (*fragoffsetCheck, error) {
	s := strings.TrimSpace(v)
	c := &fragoffsetCheck{}
	if s != "" && strings.IndexByte("!<>", s[0]) >= 0 {
		c.op = s[0]
		s = strings.TrimSpace(s[1:])
	}
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("keyword fragoffset: invalid value %q", v)
	}
	c.off = uint16(n)
	return c, nil
}

func (c *fragoffsetCheck) match(in *Input) bool {
	p := in.P
	var frag uint16
	switch p.IPVersion {
	case 4:
		frag = p.FragOffset >> 3
	case 6:
		if !p.IPv6FragHdr {
			return false
		}
		frag = p.FragOffset
	default:
		return false
	}
	switch c.op {
	case '<':
		return frag < c.off
	case '>':
		return frag > c.off
	case '!':
		return frag != c.off
	}
	return frag == c.off
}

// tosCheck is tos, IPv4 only.
type tosCheck struct {
	neg bool
	tos uint8
}

func parseTOS(v string, negated bool) (*tosCheck, error) {
	s := strings.TrimSpace(v)
	c := &tosCheck{neg: negated}
	if strings.HasPrefix(s, "!") {
		c.neg = !c.neg
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
		return nil, fmt.Errorf("keyword tos: invalid value %q", v)
	}
	c.tos = uint8(n)
	return c, nil
}

func (c *tosCheck) match(in *Input) bool {
	p := in.P
	if p.IPVersion != 4 {
		return false
	}
	return (p.TOS == c.tos) != c.neg
}

// sameIPCheck is sameip.
type sameIPCheck struct{}

func (sameIPCheck) match(in *Input) bool {
	p := in.P
	if p.IPVersion != 4 && p.IPVersion != 6 {
		return false
	}
	return p.SrcIP == p.DstIP
}

// flowbitCheck is flowbits isset / isnotset; several ids are an OR.
type flowbitCheck struct {
	not bool
	ids []uint32
}

func (c *flowbitCheck) match(in *Input) bool {
	if in.F == nil {
		return false
	}
	v := flowVars(in.F)
	for _, id := range c.ids {
		if v.IsSet(id) != c.not {
			return true
		}
	}
	return false
}

// vlanCheck is vlan.id (DetectVlanIdMatch): by default any VLAN layer may match; "all" needs
// every layer to match; a layer number picks one, counted from the outermost (0) or, when
// negative, from the innermost (-1).
type vlanCheck struct {
	m     rules.IntMatch
	layer int
}

const (
	vlanAny = 1 << 20
	vlanAll = vlanAny + 1
)

func (c *vlanCheck) match(in *Input) bool {
	p := in.P
	n := int(p.VLANCount)
	if n == 0 {
		return false
	}
	switch c.layer {
	case vlanAny:
		for i := 0; i < n && i < decode.MaxVLANs; i++ {
			if c.m.Match(uint64(p.VLAN[i])) {
				return true
			}
		}
		return false
	case vlanAll:
		for i := 0; i < n && i < decode.MaxVLANs; i++ {
			if !c.m.Match(uint64(p.VLAN[i])) {
				return false
			}
		}
		return true
	}
	i := c.layer
	if i < 0 {
		i += n
	} else if n < i {
		return false
	}
	if i < 0 || i >= decode.MaxVLANs {
		return false
	}
	return c.m.Match(uint64(p.VLAN[i]))
}

// DecodeEvent returns the decoder event a decode-event option names; ok is false when Meerkat's
// decoder never raises it (a layer it does not decode, or an event it has no counterpart of),
// so that such a rule is refused rather than loaded to never match.
func DecodeEvent(o *rules.Option) (e decode.Event, ok bool) {
	switch o.Name {
	case "decode-event":
		e, ok = decode.EventByName(o.Value)
	case "stream-event":
		e, ok = decode.EventByName("stream." + streamEventAlias(o.Value))
	default:
		return decode.EventNone, false
	}
	return e, ok && e.Raised()
}

// streamEventAlias maps the long spellings Suricata accepts to the event names.
func streamEventAlias(name string) string {
	switch name {
	case "est_synack_resend_with_different_ack":
		return "est_synack_resend_with_diff_ack"
	case "3whs_synack_resend_with_different_ack":
		return "3whs_synack_resend_with_diff_ack"
	}
	return name
}

// streamSizeCheck is stream_size (Suricata's DetectStreamSizeMatchAux): next_seq - ISN of
// the server, the client, both or either, compared with the value; no TCP session, no match.
type streamSizeCheck struct {
	server, client bool // which sides are compared
	both           bool // both must hold (else either)
	m              rules.IntMatch
}

func (c *streamSizeCheck) match(in *Input) bool {
	if !in.Session || !in.P.IsTCP() {
		return false
	}
	s := c.server && c.m.Match(uint64(in.ServerSize))
	cl := c.client && c.m.Match(uint64(in.ClientSize))
	switch {
	case c.server && c.client && c.both:
		return s && cl
	case c.server && c.client:
		return s || cl
	case c.server:
		return s
	}
	return cl
}

func compileStreamSize(o *rules.Option, _ *Names) (check, error) {
	parts := strings.Split(o.Value, ",")
	if len(parts) != 3 {
		return nil, badArg(o)
	}
	v, err := strconv.ParseUint(parts[2], 10, 32)
	if err != nil {
		return nil, badArg(o)
	}
	c := &streamSizeCheck{m: rules.IntMatch{Op: parts[1], A: v}}
	switch parts[0] {
	case "server":
		c.server = true
	case "client":
		c.client = true
	case "both":
		c.server, c.client, c.both = true, true, true
	case "either":
		c.server, c.client = true, true
	default:
		return nil, badArg(o)
	}
	return c, nil
}

// eventCheck is decode-event: the packet carries the event (Suricata's DetectEngineEventMatch).
type eventCheck decode.Event

func (c eventCheck) match(in *Input) bool { return in.P.Events.Has(decode.Event(c)) }

// csumCheck is one of the checksum keywords (Suricata's detect-csum.c): the packet must be of
// the keyword's IP version and protocol (and not a fragment, whose transport header Suricata
// does not decode); then, when the packet's checksums are ignored (PKT_IGNORE_CHECKSUM:
// pcap-file.checksum-checks no, or auto once offloading was detected) the checksum counts as
// valid, otherwise it is computed, whatever -k says. A UDP/IPv4 datagram without a checksum
// (0) matches neither valid nor invalid.
type csumCheck struct {
	ipVersion uint8
	proto     uint8 // 0 for the IPv4 header checksum
	valid     bool
}

var csumChecks = map[string]csumCheck{
	"ipv4-csum":   {ipVersion: 4},
	"tcpv4-csum":  {ipVersion: 4, proto: decode.ProtoTCP},
	"tcpv6-csum":  {ipVersion: 6, proto: decode.ProtoTCP},
	"udpv4-csum":  {ipVersion: 4, proto: decode.ProtoUDP},
	"udpv6-csum":  {ipVersion: 6, proto: decode.ProtoUDP},
	"icmpv4-csum": {ipVersion: 4, proto: decode.ProtoICMP},
	"icmpv6-csum": {ipVersion: 6, proto: decode.ProtoICMPv6},
}

func (c *csumCheck) match(in *Input) bool {
	p := in.P
	if p.IPVersion != c.ipVersion {
		return false
	}
	if c.proto == 0 {
		if p.ChecksumIgnored {
			return c.valid
		}
		return p.IPv4ChecksumOK() == c.valid
	}
	if !p.HasL4 || p.IsFragment || p.IPProto != c.proto {
		return false
	}
	if c.proto == decode.ProtoUDP && c.ipVersion == 4 && p.L4Header[6] == 0 && p.L4Header[7] == 0 {
		return false
	}
	if p.ChecksumIgnored {
		return c.valid
	}
	return p.L4ChecksumOK() == c.valid
}
