// Command gen-rules writes a ruleset of N rules shaped like ET Open, deterministically from a
// seed (math/rand/v2, PCG): the same flags always give the same bytes. Every literal (contents,
// pcre, addresses, names) is random, drawn from templates, so the content rules, like real ET
// rules, seldom match ordinary traffic and alerts stay rare. No ET rule text is copied.
//
//	go run ./bench/gen-rules -n 10000 -seed 1 -order shuffled > rules
//	go run ./bench/gen-rules -n 10000 -seed 1 -firewall fw.rules > td.rules
//
// # Mix
//
// A fraction -broad of the N rules (default 0.1) are broad rules, without a fast pattern, as in
// bench/gen-broad (their count rounded to the nearest integer); the rest are threat-detection
// (TD) rules. Counts are exact (rounded down, the remainder going to plain content rules),
// in a seeded order. Of the TD rules:
//
//   - 62% content rules: 1-4 contents on the packet payload (pkt_data), the fast-pattern
//     literal mostly 4-20 bytes (text, hex or both), nocase on 40% of text contents; 30% of
//     the multi-content rules start with a short anchor at a depth/offset, 20% of the others
//     put depth (and offset) on their first content; distance/within chains; an explicit
//     fast_pattern on half of the multi-content rules; isdataat, byte_test, byte_jump or dsize
//     on a quarter of the rules; flow:established,to_server (to_client/from_server for server
//     replies) on TCP;
//   - 15% pcre rules: one or two contents and a pcre with flags (R, i, s, m), as ET combines
//     them;
//   - 10% flowbits rules, in pairs sharing a name: a flowbits:set + flowbits:noalert rule
//     followed (next sid) by a flowbits:isset rule;
//   - 8% threshold rules (type limit, threshold or both, by_src or by_dst), 2% detection_filter
//     rules, both on content rules;
//   - 2% drop rules and 1% pass rules (content rules with another action).
//
// With -sticky, 40% of the TD rules are app-layer rules as ET writes most of its rules
// (alert http with http.method, http.uri, http.host, http.user_agent; alert tls with tls.sni;
// alert dns with dns.query) and the plain content rules drop to 22%. Today's engine evaluates
// the packet payload and header/flow keywords only, so exactly those rules fail to load ("not
// supported yet"); without -sticky (the default) every rule loads and compiles.
//
// Of the broad rules: 70% IP-only "alert ip" rules (35% blocklists of 1-4 public hosts towards
// $HOME_NET, 15% a public /24 out of $HOME_NET, 10% address lists with negations in ranges
// captures seldom use, 10% IPv6 /48s) and 30% header-only (15% TCP flags:S to a public host's
// ports, 10% UDP to a public host's ports, 5% ICMP itype/icode to a public host). In the
// parser's rule types (Suricata's) the UDP rules are ip_only too (ports are allowed there) and
// the negated lists like_ip_only; the TCP and ICMP ones are pkt.
//
// For -n 10000 -seed 1 (1,000 broad, 9,000 TD rules) that is 5,580 content, 1,350 pcre, 450+450
// flowbits, 720 threshold, 180 detection_filter, 180 drop, 90 pass, 700 IP-only and 300
// header-only rules; with -sticky 1,980 content and 3,600 sticky-buffer rules.
//
// # Header-only mixes
//
// With -header-mix et or scan, a further fraction -header of the N rules (default 0.05, rounded
// to the nearest integer; taken from the TD rules' share) are header-only rules of one of two
// mixes. They are broad rules for the sids and the orders (no fast pattern), drawn after the
// broad rules of -broad:
//
//   - et: as ET Open writes its header-only rules: $EXTERNAL_NET/$HOME_NET headers, often a
//     service port; SYN scans of a port (flow:to_server; flags:S,12 and a threshold, 40%),
//     scanner fingerprints (fragbits:!D; dsize:0; flags:S,12; ack:0; window:N, 10%), stealth
//     scans (flags:0 / FPU / SF ..., 10%), ICMP types and codes (itype, icode, dsize:>800, 15%),
//     UDP sizes (dsize:>N from port 53 or to a UDP service, 10%), IP anomalies (fragbits,
//     fragoffset, ttl, ip_proto, 10%) and zero-window SYN drops (5%);
//   - scan: scan detection on any/any headers (Suricata's worst case, every rule a candidate of
//     its whole protocol group): SYNs to a port (25%), odd flag combinations (12%), UDP sizes
//     (13%), scanner windows (drop ... window:N; flags:S,12, 10%), ICMP itype/icode/dsize (15%),
//     fragbits (13%) and low TTLs (12%); the values are ones ordinary traffic seldom carries.
//
// # Flags
//
//	-n N             number of rules (default 10000)
//	-seed S          random seed (default 1)
//	-order O         sorted (default), shuffled, reversed or broadlast
//	-broad F         fraction of broad rules, 0 to 1 (default 0.1)
//	-sticky          also emit app-layer rules with sticky buffers (default false)
//	-broadsids M     high (default): broad rules after every TD rule; mixed: interleaved
//	-header-mix M    none (default), et or scan: header-only rules of that mix
//	-header F        fraction of -header-mix rules (default 0.05)
//	-sidbase B       first sid (default 2000000), to put the rules beside others
//	-firewall FILE   also write a broad firewall policy to FILE
//	-firewall-n N    number of firewall rules, at least 40 (default 100)
//
// # Sids and orders
//
// TD rules take sids 2000000 and up; broad rules take the sids after them, the highest
// (-broadsids high, the default). Then "sorted" (by sid) already has the broad rules last and
// -order broadlast writes the very same file as -order sorted. With -broadsids mixed the broad
// rules' sids are interleaved with the TD rules' (still from 2000000, in a seeded order), and
// broadlast differs from sorted. The orders write the same rule lines:
//
//   - sorted: by sid;
//   - shuffled: a seeded permutation of the sorted rules (from -seed, independent of the rules'
//     contents);
//   - reversed: sorted, last sid first;
//   - broadlast: the TD rules in sid order, then the broad rules in sid order.
//
// The rules file holds rule lines only, no comments, so the orders' files differ only in the
// order of their lines.
//
// # Firewall policy
//
// -firewall FILE also writes a broad Suricata 8 firewall policy (packet:filter table; load it
// as a firewall rule file, e.g. meerkat --firewall-rules-exclusive=FILE) of -firewall-n rules,
// in the style of bench/gen-firewall but accepting only: accept:hook rules for infrastructure
// (DNS, DHCP, NTP, ICMP), for outbound services per port and their replies (with tcp:flow_start
// for new connections), for internal networks (10.x.y.0/24) and their service ports, and last
// a catch-all accept:hook ip:all any any -> any any, so every IP packet reaches the TD rules
// (non-IP packets get the default packet-filter policy, as with bench/gen-firewall). Sids
// start at 9100000.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
)

// Sid bases.
const (
	tdSIDBase = 2000000
	fwSIDBase = 9100000
	// maxRules keeps the sids below 2201000, the sid of the firewall's synthetic default-policy
	// alerts (which a generated rule must not shadow).
	maxRules = firewallPolicySID - tdSIDBase
	// firewallPolicySID is the firewall's synthetic default-policy alert sid (firewall.PolicySID;
	// PolicyAppSID is the next one).
	firewallPolicySID = 2201000
)

// kind is what a generated rule is made of; tests count them.
type kind int

const (
	kContent kind = iota
	kPCRE
	kFlowSet
	kFlowIsset
	kThreshold
	kDetFilter
	kDrop
	kPass
	kSticky
	kIPOnly
	kHeader
	kMix
	nKinds
)

var kindNames = [nKinds]string{"content", "pcre", "flowbits-set", "flowbits-isset", "threshold", "detection_filter", "drop", "pass", "sticky", "ip-only", "header-only", "header-mix"}

func (k kind) String() string { return kindNames[k] }

// broad reports whether the kind is a broad (no fast pattern) rule.
func (k kind) broad() bool { return k == kIPOnly || k == kHeader || k == kMix }

// tdMix is the percentage of each TD kind; flowbits counts both rules of a pair, content
// takes the remainder. stickyPct moves that share from content to sticky rules with -sticky.
var tdMix = []struct {
	k   kind
	pct int
}{{kPCRE, 15}, {kFlowSet, 10}, {kThreshold, 8}, {kDetFilter, 2}, {kDrop, 2}, {kPass, 1}}

const stickyPct = 40

// options are the command's flags.
type options struct {
	n         int
	seed      uint64
	order     string
	broad     float64
	sticky    bool
	broadSIDs string  // "high" or "mixed"
	headerMix string  // "none", "et" or "scan"
	header    float64 // fraction of -header-mix rules
	sidBase   int     // first sid (0: tdSIDBase)
}

// rule is one generated rule line.
type rule struct {
	sid  int
	kind kind
	text string
}

var orders = []string{"sorted", "shuffled", "reversed", "broadlast"}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 10000, "number of rules")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed")
	flag.StringVar(&o.order, "order", "sorted", "rule order: sorted, shuffled, reversed or broadlast")
	flag.Float64Var(&o.broad, "broad", 0.1, "fraction of broad (IP-only and header-only) rules, 0 to 1")
	flag.BoolVar(&o.sticky, "sticky", false, "emit app-layer rules with sticky buffers (today's engine refuses them)")
	flag.StringVar(&o.broadSIDs, "broadsids", "high", "broad rules' sids: high (after every TD rule) or mixed (interleaved)")
	flag.StringVar(&o.headerMix, "header-mix", "none", "header-only rules of a mix: none, et (as ET writes them) or scan (scan detection on any/any headers)")
	flag.IntVar(&o.sidBase, "sidbase", tdSIDBase, "first sid (the sids must stay clear of the firewall's 2201000 and 2201001)")
	flag.Float64Var(&o.header, "header", 0.05, "fraction of -header-mix rules, 0 to 1 (with -broad, at most 1 together)")
	fwFile := flag.String("firewall", "", "also write a broad firewall policy (Suricata 8 firewall mode) to this file")
	fwN := flag.Int("firewall-n", 100, "number of firewall rules (at least 40)")
	flag.Parse()
	if err := run(o, *fwFile, *fwN, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen-rules:", err)
		os.Exit(2)
	}
}

func run(o options, fwFile string, fwN int, stdout io.Writer) error {
	rs, err := generate(o)
	if err != nil {
		return err
	}
	rs, err = reorder(rs, o.order, o.seed)
	if err != nil {
		return err
	}
	if fwFile != "" {
		fw, err := firewallPolicy(fwN, o.seed)
		if err != nil {
			return err
		}
		if err := os.WriteFile(fwFile, []byte(strings.Join(fw, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(stdout)
	for _, r := range rs {
		w.WriteString(r.text)
		w.WriteByte('\n')
	}
	return w.Flush()
}

// generate returns the rules in sid order.
func generate(o options) ([]rule, error) {
	switch {
	case o.n < 0 || o.n > maxRules:
		return nil, fmt.Errorf("-n must be between 0 and %d", maxRules)
	case o.sidBase < 0 || o.sidBase > 1<<31-1-o.n || o.sidBase <= firewallPolicySID+1 && o.sidBase+o.n > firewallPolicySID:
		return nil, fmt.Errorf("-sidbase: sids %d to %d are out of range or hold the firewall's %d and %d", o.sidBase, o.sidBase+o.n-1, firewallPolicySID, firewallPolicySID+1)
	case !(o.broad >= 0 && o.broad <= 1):
		return nil, fmt.Errorf("-broad must be between 0 and 1")
	case o.broadSIDs != "high" && o.broadSIDs != "mixed":
		return nil, fmt.Errorf("-broadsids must be high or mixed")
	case o.headerMix != "" && o.headerMix != "none" && o.headerMix != "et" && o.headerMix != "scan":
		return nil, fmt.Errorf("-header-mix must be none, et or scan")
	}
	nBroad := int(math.Round(float64(o.n) * o.broad))
	nMix := 0
	if o.headerMix == "et" || o.headerMix == "scan" {
		if !(o.header >= 0 && o.header <= 1) || nBroad+int(math.Round(float64(o.n)*o.header)) > o.n {
			return nil, fmt.Errorf("-header must be between 0 and 1, and -broad plus -header at most 1")
		}
		nMix = int(math.Round(float64(o.n) * o.header))
	}
	nTD := o.n - nBroad - nMix

	// Units: one rule each, except a flowbits pair (kFlowSet stands for set + isset).
	var units []kind
	add := func(k kind, count int) {
		for range count {
			units = append(units, k)
		}
	}
	rest := nTD
	for _, m := range tdMix {
		c := nTD * m.pct / 100
		if m.k == kFlowSet {
			c /= 2
			rest -= 2 * c
		} else {
			rest -= c
		}
		add(m.k, c)
	}
	if o.sticky {
		c := nTD * stickyPct / 100
		add(kSticky, c)
		rest -= c
	}
	add(kContent, rest)
	g := newGen(o.seed)
	g.rng.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })

	// Broad units: 70% IP-only, 30% header-only, exact counts.
	var broad []kind
	nHeader := nBroad * 30 / 100
	for i := range nBroad {
		if i < nHeader {
			broad = append(broad, kHeader)
		} else {
			broad = append(broad, kIPOnly)
		}
	}
	for range nMix {
		broad = append(broad, kMix)
	}
	g.rng.Shuffle(len(broad), func(i, j int) { broad[i], broad[j] = broad[j], broad[i] })
	g.mix = o.headerMix
	if o.broadSIDs == "high" {
		units = append(units, broad...)
	} else {
		units = append(units, broad...)
		g.rng.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
	}

	out := make([]rule, 0, o.n)
	sid := tdSIDBase
	if o.sidBase != 0 {
		sid = o.sidBase
	}
	for _, k := range units {
		if k == kFlowSet {
			set, isset := g.flowbitsPair(sid)
			out = append(out, rule{sid, kFlowSet, set}, rule{sid + 1, kFlowIsset, isset})
			sid += 2
			continue
		}
		out = append(out, rule{sid, k, g.rule(k, sid)})
		sid++
	}
	return out, nil
}

// reorder returns the rules (in sid order) in the order asked for; shuffled is a permutation
// drawn from its own stream of seed, so the rules themselves never depend on the order.
func reorder(rs []rule, order string, seed uint64) ([]rule, error) {
	out := slices.Clone(rs)
	switch order {
	case "sorted":
	case "shuffled":
		rng := rand.New(rand.NewPCG(seed, 0x73687566666c65))
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	case "reversed":
		slices.Reverse(out)
	case "broadlast":
		slices.SortStableFunc(out, func(a, b rule) int {
			switch ab, bb := a.kind.broad(), b.kind.broad(); {
			case ab == bb:
				return 0
			case bb:
				return -1
			}
			return 1
		})
	default:
		return nil, fmt.Errorf("-order must be one of %s", strings.Join(orders, ", "))
	}
	return out, nil
}

// gen draws the rules' literals.
type gen struct {
	rng    *rand.Rand
	nFlows int
	mix    string // -header-mix
}

func newGen(seed uint64) *gen {
	return &gen{rng: rand.New(rand.NewPCG(seed, 0x67656e72756c6573))}
}

func (g *gen) n(k int) int            { return g.rng.IntN(k) }
func (g *gen) pct(p int) bool         { return g.rng.IntN(100) < p }
func (g *gen) pick(s []string) string { return s[g.rng.IntN(len(s))] }

const (
	alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	lower = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// token is n random characters of set.
func (g *gen) token(n int, set string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.n(len(set))]
	}
	return string(b)
}

// fpLen is the length of a fast-pattern literal: mostly 4-20 bytes.
func (g *gen) fpLen() int {
	switch k := g.n(100); {
	case k < 30:
		return 4 + g.n(4) // 4-7
	case k < 70:
		return 8 + g.n(5) // 8-12
	case k < 95:
		return 13 + g.n(8) // 13-20
	default:
		return 21 + g.n(12) // 21-32
	}
}

// lit is one content literal of about n bytes: its rule text, its length in bytes and whether
// it is text (nocase makes sense).
type lit struct {
	text   string
	len    int
	isText bool
}

func (g *gen) hexBytes(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%02x", g.n(256))
	}
	return b.String()
}

// literal draws a random literal of about n bytes: text from templates (at least 3 random
// characters, so a short literal is still rare), hex bytes, or text with a few hex bytes, as
// ET writes them.
func (g *gen) literal(n int) lit {
	switch k := g.n(100); {
	case k < 60:
		var s string
		switch g.n(6) {
		case 0: // a script path
			s = "/" + g.token(max(3, n-5), lower) + ".php"
		case 1: // a query parameter
			s = g.token(max(3, n-1), lower) + "="
		case 2: // a path segment
			s = "/" + g.token(max(3, n-2), alnum) + "/"
		case 3: // a file name
			s = g.token(max(3, n-4), alnum) + g.pick([]string{".exe", ".dll", ".bin", ".dat", ".zip", ".jar"})
		default:
			s = g.token(n, alnum)
		}
		return lit{s, len(s), true}
	case k < 85:
		return lit{"|" + g.hexBytes(n) + "|", n, false}
	default:
		a := max(1, (n-2)/2)
		b := max(1, n-2-a)
		return lit{g.token(a, alnum) + "|" + g.hexBytes(2) + "|" + g.token(b, alnum), a + 2 + b, true}
	}
}

// anchor is a short content at a fixed place (protocol magic, a method), as ET rules start.
func (g *gen) anchor() (string, int) {
	switch g.n(4) {
	case 0:
		m := g.pick([]string{"GET ", "POST ", "PUT ", "HEAD "})
		return fmt.Sprintf("content:\"%s\"; depth:%d;", m, len(m)), len(m)
	case 1:
		n := 1 + g.n(3)
		return fmt.Sprintf("content:\"|%s|\"; depth:%d;", g.hexBytes(n), n), n
	case 2:
		n := 2 + g.n(3)
		off := 1 + g.n(12)
		return fmt.Sprintf("content:\"|%s|\"; offset:%d; depth:%d;", g.hexBytes(n), off, n), n
	default:
		return fmt.Sprintf("content:\"|%s|\"; depth:%d;", g.pick([]string{"16 03", "ff", "00 00", "4d 5a", "1f 8b"}), 2+g.n(8)), 2
	}
}

// contents writes 1-4 payload contents (and sometimes an isdataat, byte_test, byte_jump or
// dsize) as ET does. extra is false for pcre rules, which get contents only.
func (g *gen) contents(b *strings.Builder, extra bool) {
	count := 1
	switch k := g.n(100); {
	case k < 35:
	case k < 70:
		count = 2
	case k < 90:
		count = 3
	default:
		count = 4
	}
	if !extra && count > 2 {
		count = 2
	}
	hasAnchor := count > 1 && g.pct(30)
	anchorLen := 0
	if hasAnchor {
		var a string
		a, anchorLen = g.anchor()
		b.WriteString(" " + a)
		count--
	}
	// The main literal, then follow-ups chained with distance/within.
	main := g.literal(g.fpLen())
	fp := (hasAnchor || count > 1) && g.pct(50) || main.len <= anchorLen
	writeContent(b, main, g.pct(40))
	if !hasAnchor && g.pct(20) {
		off := 0
		if g.pct(40) {
			off = g.n(16)
			fmt.Fprintf(b, " offset:%d;", off)
		}
		fmt.Fprintf(b, " depth:%d;", main.len+g.n(200))
	} else if hasAnchor {
		fmt.Fprintf(b, " distance:%d;", g.n(8))
		if g.pct(50) {
			fmt.Fprintf(b, " within:%d;", main.len+g.n(64))
		}
	}
	if fp {
		b.WriteString(" fast_pattern;")
	}
	for i := 1; i < count; i++ {
		l := g.literal(3 + g.n(14))
		writeContent(b, l, g.pct(40))
		switch k := g.n(100); {
		case k < 50:
			b.WriteString(" distance:0;")
		case k < 80:
			fmt.Fprintf(b, " distance:%d; within:%d;", g.n(16), l.len+g.n(48))
		case k < 90:
			fmt.Fprintf(b, " within:%d;", l.len+g.n(100))
		}
	}
	if extra && g.pct(25) {
		switch g.n(4) {
		case 0:
			fmt.Fprintf(b, " isdataat:%d,relative;", 1+g.n(256))
		case 1:
			fmt.Fprintf(b, " byte_test:%s,%s,%d,%d,relative;", g.pick([]string{"1", "2", "4"}), g.pick([]string{">", "<", "=", "&"}), g.n(4096), g.n(32))
		case 2:
			fmt.Fprintf(b, " byte_jump:%s,%d,relative%s;", g.pick([]string{"1", "2", "4"}), g.n(32), g.pick([]string{"", ",little", ",big"}))
			fmt.Fprintf(b, " content:\"|%s|\"; within:%d;", g.hexBytes(2+g.n(3)), 8+g.n(32))
		default:
			fmt.Fprintf(b, " dsize:>%d;", 20+g.n(500))
		}
	}
}

func writeContent(b *strings.Builder, l lit, nocase bool) {
	fmt.Fprintf(b, " content:\"%s\";", l.text)
	if nocase && l.isText {
		b.WriteString(" nocase;")
	}
}

// pcre writes a pcre built from a template with random literals; the rule has a content before
// it, so R (relative) is allowed.
func (g *gen) pcre(b *strings.Builder) {
	t1, t2 := g.token(3+g.n(6), lower), g.token(2+g.n(5), lower)
	lo := 2 + g.n(8)
	hi := lo + 1 + g.n(24)
	var re string
	switch g.n(6) {
	case 0:
		re = fmt.Sprintf(`^%s[a-z0-9]{%d,%d}`, t1, lo, hi)
	case 1:
		re = fmt.Sprintf(`%s\x3d[0-9a-f]{%d,%d}(?:&|$)`, t1, lo, hi)
	case 2:
		re = fmt.Sprintf(`\/%s\/[A-Za-z0-9]{%d}\.(?:php|asp|jsp)`, t1, lo)
	case 3:
		re = fmt.Sprintf(`%s(?:\x00|\x20){2}[^\r\n]{%d,%d}%s`, t1, lo, hi, t2)
	case 4:
		re = fmt.Sprintf(`^[^\r\n]{%d,%d}%s\d{2,6}`, lo, hi, t1)
	default:
		re = fmt.Sprintf(`%s[\x20\x09]+%s\s*[\x3a\x3d]`, t1, t2)
	}
	fmt.Fprintf(b, " pcre:\"/%s/%s\";", re, g.pick([]string{"", "i", "R", "Ri", "s", "Rs", "smi", "Rsi"}))
}

// header draws a payload rule's header and flow keyword (without -sticky's app-layer
// protocols): action proto src sport -> dst dport, and the flow option ("" for none).
func (g *gen) header(action string) (string, string) {
	ports := []string{"21", "22", "23", "25", "110", "135", "139", "143", "445", "873", "1433", "3306", "3389", "5432", "5900", "6379", "8080", "8443", "9200", "11211", "[8000:8100]", "!$HTTP_PORTS"}
	switch k := g.n(100); {
	case k < 35: // outbound, client to a server out there
		dp := g.pick([]string{"any", "any", "$HTTP_PORTS", "[443,8443]", "[1024:]", fmt.Sprint(1024 + g.n(60000))})
		return fmt.Sprintf("%s tcp $HOME_NET any -> $EXTERNAL_NET %s", action, dp), "flow:established,to_server;"
	case k < 60: // inbound, attack on a home server
		dp := g.pick(append([]string{"$HTTP_PORTS", "$HTTP_PORTS", "any"}, ports...))
		return fmt.Sprintf("%s tcp $EXTERNAL_NET any -> $HOME_NET %s", action, dp), "flow:established,to_server;"
	case k < 75: // a server's reply to a home client
		sp := g.pick([]string{"$HTTP_PORTS", "$HTTP_PORTS", "any", "[21,25,110,143]"})
		return fmt.Sprintf("%s tcp $EXTERNAL_NET %s -> $HOME_NET any", action, sp), g.pick([]string{"flow:established,to_client;", "flow:established,from_server;"})
	case k < 85: // an exploit on a port, anywhere
		return fmt.Sprintf("%s tcp any any -> any %s", action, g.pick(ports)), g.pick([]string{"flow:established,to_server;", "flow:to_server,established;"})
	case k < 93:
		dp := g.pick([]string{"53", "123", "161", "1900", "5060", "[1024:65535]", fmt.Sprint(1024 + g.n(60000))})
		return fmt.Sprintf("%s udp $HOME_NET any -> $EXTERNAL_NET %s", action, dp), g.pick([]string{"", "", "flow:to_server;"})
	case k < 98:
		dp := g.pick([]string{"69", "161", "500", "1434", "5060", "[1024:65535]"})
		return fmt.Sprintf("%s udp $EXTERNAL_NET any -> $HOME_NET %s", action, dp), ""
	default:
		return fmt.Sprintf("%s icmp $EXTERNAL_NET any -> $HOME_NET any", action), fmt.Sprintf("itype:%d;", g.pick2(0, 8))
	}
}

func (g *gen) pick2(a, b int) int {
	if g.n(2) == 0 {
		return a
	}
	return b
}

var categories = []struct{ name, classtype string }{
	{"MALWARE", "trojan-activity"}, {"MALWARE", "command-and-control"}, {"EXPLOIT", "attempted-admin"},
	{"WEB_SERVER", "web-application-attack"}, {"WEB_CLIENT", "attempted-user"}, {"INFO", "misc-activity"},
	{"POLICY", "policy-violation"}, {"SCAN", "attempted-recon"}, {"DOS", "attempted-dos"},
	{"ATTACK_RESPONSE", "bad-unknown"}, {"HUNTING", "bad-unknown"}, {"PHISHING", "credential-theft"},
	{"COINMINER", "coin-mining"}, {"EXPLOIT_KIT", "exploit-kit"}, {"SHELLCODE", "shellcode-detect"},
}

var activities = []string{"CnC Checkin", "Activity", "Inbound Request", "Outbound Beacon", "Payload Download",
	"Exfiltration Attempt", "Exploit Attempt", "Command Response", "Config Retrieval", "Encoded Request",
	"Successful Exploitation", "Response Observed", "Handshake", "Keepalive"}

var families = []string{"Win32", "Linux", "MSIL", "JS", "Android", "ELF", "VBS", "PS", "Java"}

// msg returns a message and classtype for a TD rule.
func (g *gen) msg(tag string) (string, string) {
	c := categories[g.n(len(categories))]
	m := fmt.Sprintf("BENCH %s %s/%s%s %s", c.name, g.pick(families), strings.ToUpper(g.token(1, "abcdefghijklmnopqrstuvwxyz")), g.token(4+g.n(6), "abcdefghijklmnopqrstuvwxyz"), g.pick(activities))
	if tag != "" {
		m += " " + tag
	}
	return m, c.classtype
}

// trailer writes reference, classtype, sid, rev and metadata, as ET orders them.
func (g *gen) trailer(b *strings.Builder, classtype string, sid int) {
	for range g.n(3) {
		switch g.n(3) {
		case 0:
			fmt.Fprintf(b, " reference:url,%s.example.%s/%s;", g.token(4+g.n(8), lower), g.pick([]string{"com", "net", "org"}), g.token(6+g.n(10), lower))
		case 1:
			fmt.Fprintf(b, " reference:cve,%d-%d;", 2010+g.n(15), 1000+g.n(40000))
		default:
			fmt.Fprintf(b, " reference:md5,%s;", g.token(32, "0123456789abcdef"))
		}
	}
	y := 2015 + g.n(9)
	fmt.Fprintf(b, " classtype:%s; sid:%d; rev:%d; metadata:attack_target %s, created_at %d_%02d_%02d, deployment %s, signature_severity %s, updated_at %d_%02d_%02d;)",
		classtype, sid, 1+g.n(5), g.pick([]string{"Client_Endpoint", "Server", "Web_Server", "Networking_Equipment", "IoT"}),
		y, 1+g.n(12), 1+g.n(28), g.pick([]string{"Perimeter", "Perimeter, deployment Internal", "Datacenter"}),
		g.pick([]string{"Major", "Minor", "Critical", "Informational"}), y+1+g.n(2), 1+g.n(12), 1+g.n(28))
}

// rule writes one rule of kind k (not a flowbits pair).
func (g *gen) rule(k kind, sid int) string {
	switch k {
	case kSticky:
		return g.sticky(sid)
	case kIPOnly, kHeader:
		return g.broadRule(k, sid)
	case kMix:
		if g.mix == "scan" {
			return g.scanRule(sid)
		}
		return g.etHeaderRule(sid)
	}
	action, tag := "alert", ""
	switch k {
	case kDrop:
		action = "drop"
	case kPass:
		action, tag = "pass", "(pass)"
	}
	h, flow := g.header(action)
	m, ct := g.msg(tag)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (msg:\"%s\";", h, m)
	if flow != "" {
		b.WriteString(" " + flow)
	}
	switch k {
	case kPCRE:
		g.contents(&b, false)
		g.pcre(&b)
	default:
		g.contents(&b, true)
	}
	switch k {
	case kThreshold:
		t := g.pick([]string{"limit", "threshold", "both"})
		count := 1
		if t != "limit" {
			count = 2 + g.n(20)
		}
		track := g.pick([]string{"by_src", "by_dst"})
		secs := g.pick([]string{"60", "120", "300", "3600"})
		if g.pct(50) {
			fmt.Fprintf(&b, " threshold:type %s, track %s, count %d, seconds %s;", t, track, count, secs)
		} else {
			fmt.Fprintf(&b, " threshold: type %s, track %s, seconds %s, count %d;", t, track, secs, count)
		}
	case kDetFilter:
		fmt.Fprintf(&b, " detection_filter:track %s, count %d, seconds %s;", g.pick([]string{"by_src", "by_dst"}), 2+g.n(30), g.pick([]string{"10", "60", "300"}))
	}
	g.trailer(&b, ct, sid)
	return b.String()
}

// flowbitsPair writes a set + noalert rule and the isset rule that follows it (sids sid and
// sid+1), sharing one flowbit name: a request marks the flow, the reply alerts.
func (g *gen) flowbitsPair(sid int) (string, string) {
	g.nFlows++
	name := fmt.Sprintf("BENCH.%s.%d", g.token(4+g.n(8), alnum), g.nFlows)
	var set, isset strings.Builder
	m, ct := g.msg("(set)")
	out := g.pct(60)
	if out {
		fmt.Fprintf(&set, "alert tcp $HOME_NET any -> $EXTERNAL_NET %s (msg:\"%s\"; flow:established,to_server;", g.pick([]string{"any", "$HTTP_PORTS", "[443,8080]"}), m)
	} else {
		fmt.Fprintf(&set, "alert tcp $EXTERNAL_NET any -> $HOME_NET %s (msg:\"%s\"; flow:established,to_server;", g.pick([]string{"$HTTP_PORTS", "445", "21", "any"}), m)
	}
	g.contents(&set, true)
	fmt.Fprintf(&set, " flowbits:set,%s; flowbits:noalert;", name)
	g.trailer(&set, ct, sid)

	m, ct = g.msg("")
	if out {
		fmt.Fprintf(&isset, "alert tcp $EXTERNAL_NET any -> $HOME_NET any (msg:\"%s\"; flow:established,to_client; flowbits:isset,%s;", m, name)
	} else {
		fmt.Fprintf(&isset, "alert tcp $HOME_NET any -> $EXTERNAL_NET any (msg:\"%s\"; flow:established,to_client; flowbits:isset,%s;", m, name)
	}
	g.contents(&isset, true)
	g.trailer(&isset, ct, sid+1)
	return set.String(), isset.String()
}

// domain is a random host name.
func (g *gen) domain() string {
	d := g.token(5+g.n(12), lower)
	if g.pct(30) {
		d = g.token(3+g.n(6), lower) + "." + d
	}
	return d + "." + g.pick([]string{"com", "net", "org", "ru", "xyz", "top", "info", "cn", "io"})
}

// sticky writes an app-layer rule with sticky buffers, as ET writes most of its rules.
func (g *gen) sticky(sid int) string {
	var b strings.Builder
	m, ct := g.msg("")
	switch k := g.n(100); {
	case k < 60: // http: 1-3 of uri, host, user agent
		if g.pct(70) {
			fmt.Fprintf(&b, "alert http $HOME_NET any -> $EXTERNAL_NET any (msg:\"%s\"; flow:established,to_server;", m)
		} else {
			fmt.Fprintf(&b, "alert http $EXTERNAL_NET any -> $HOME_NET any (msg:\"%s\"; flow:established,to_server;", m)
		}
		if g.pct(50) {
			fmt.Fprintf(&b, " http.method; content:\"%s\";", g.pick([]string{"GET", "POST", "PUT"}))
		}
		uri, host, ua := g.pct(80), g.pct(40), g.pct(30)
		if !uri && !host && !ua {
			uri = true
		}
		if uri {
			fmt.Fprintf(&b, " http.uri; content:\"/%s/%s.%s?%s=\";", g.token(3+g.n(8), lower), g.token(3+g.n(8), alnum), g.pick([]string{"php", "asp", "aspx", "jsp", "cgi"}), g.token(1+g.n(5), lower))
			if g.pct(40) {
				b.WriteString(" startswith;")
			}
			b.WriteString(" fast_pattern;")
			if g.pct(20) {
				fmt.Fprintf(&b, " pcre:\"/\\x3d[a-f0-9]{%d,}$/\";", 8+g.n(24))
			}
		}
		if host {
			d := g.domain()
			fmt.Fprintf(&b, " http.host; content:\"%s\";", d)
			if g.pct(50) {
				b.WriteString(" endswith;")
			} else {
				fmt.Fprintf(&b, " bsize:%d;", len(d))
			}
		}
		if ua {
			fmt.Fprintf(&b, " http.user_agent; content:\"%s/%d.%d\";", g.token(4+g.n(10), alnum), g.n(10), g.n(100))
			if g.pct(30) {
				b.WriteString(" nocase;")
			}
		}
	case k < 80: // tls.sni
		d := g.domain()
		fmt.Fprintf(&b, "alert tls $HOME_NET any -> $EXTERNAL_NET any (msg:\"%s (TLS SNI)\"; flow:established,to_server; tls.sni; content:\"%s\";", m, d)
		if g.pct(50) {
			fmt.Fprintf(&b, " bsize:%d; fast_pattern;", len(d))
		} else {
			b.WriteString(" endswith; fast_pattern;")
		}
	default: // dns.query
		d := g.domain()
		fmt.Fprintf(&b, "alert dns $HOME_NET any -> any any (msg:\"%s (DNS Lookup)\"; dns.query; content:\"%s\"; nocase;", m, d)
		if g.pct(60) {
			fmt.Fprintf(&b, " bsize:%d;", len(d))
		} else {
			b.WriteString(" endswith;")
		}
	}
	g.trailer(&b, ct, sid)
	return b.String()
}

// public draws the first two octets of a public IPv4 address outside the private, shared,
// loopback, link-local, benchmark and documentation ranges test captures are full of.
func (g *gen) public() (int, int) {
	for {
		a, b := 1+g.n(223), g.n(256)
		switch {
		case a == 10, a == 127, a == 100 && b >= 64 && b < 128, a == 169 && b == 254,
			a == 172 && b >= 16 && b < 32, a == 192 && (b == 0 || b == 168), a == 198 && (b == 18 || b == 19 || b == 51),
			a == 203 && b == 0:
			continue
		}
		return a, b
	}
}

func (g *gen) host() string {
	a, b := g.public()
	return fmt.Sprintf("%d.%d.%d.%d", a, b, g.n(256), 1+g.n(254))
}

// broadRule writes an IP-only or header-only rule (no content), like bench/gen-broad.
func (g *gen) broadRule(k kind, sid int) string {
	meta := func(cat string) string {
		return fmt.Sprintf("classtype:misc-attack; sid:%d; rev:%d; metadata:tag %s, signature_severity Informational, updated_at 2024_%02d_%02d;", sid, 1+g.n(5000), cat, 1+g.n(12), 1+g.n(28))
	}
	if k == kIPOnly {
		switch x := g.n(70); {
		case x < 35: // blocklist of 1-4 hosts
			l := []string{g.host()}
			for j := g.n(4); j > 0; j-- {
				l = append(l, g.host())
			}
			return fmt.Sprintf("alert ip [%s] any -> $HOME_NET any (msg:\"BENCH COMPROMISED Known Compromised or Hostile Host group %d\"; %s)", strings.Join(l, ","), sid%100000, meta("COMPROMISED"))
		case x < 50: // a /24 out
			a, b := g.public()
			return fmt.Sprintf("alert ip $HOME_NET any -> %d.%d.%d.0/24 any (msg:\"BENCH DROP listed net %d\"; %s)", a, b, g.n(256), sid%100000, meta("DROP"))
		case x < 60: // lists with negations, in 100.64.0.0/10 and 198.18.0.0/15
			a := g.n(64)
			return fmt.Sprintf("alert ip [100.%d.0.0/16,!100.%d.%d.0/24,198.18.%d.0/24] any -> $EXTERNAL_NET any (msg:\"BENCH POLICY internal range %d\"; %s)",
				64+a, 64+a, g.n(256), g.n(256), sid%100000, meta("POLICY"))
		default: // IPv6
			return fmt.Sprintf("alert ip [2a%02x:%x:%x::/48,2a%02x:%x::/32] any -> $HOME_NET any (msg:\"BENCH TOR v6 relay group %d\"; %s)",
				g.n(16), g.n(65536), g.n(65536), g.n(16), g.n(65536), sid%100000, meta("TOR"))
		}
	}
	switch x := g.n(30); {
	case x < 15:
		return fmt.Sprintf("alert tcp $EXTERNAL_NET any -> %s [%d,%d:%d,!%d] (msg:\"BENCH SCAN SYN to listed host %d\"; flags:S,12; %s)",
			g.host(), 1+g.n(1023), 1024+g.n(1000), 3000+g.n(1000), 3500, sid%100000, meta("SCAN"))
	case x < 25:
		return fmt.Sprintf("alert udp $HOME_NET any -> %s [%d,%d] (msg:\"BENCH POLICY UDP to listed host %d\"; %s)",
			g.host(), 1+g.n(1023), 1024+g.n(64000), sid%100000, meta("POLICY"))
	default:
		return fmt.Sprintf("alert icmp $EXTERNAL_NET any -> %s any (msg:\"BENCH ICMP unusual type to listed host %d\"; itype:%d; icode:%d; %s)",
			g.host(), sid%100000, 13+g.n(6), g.n(2), meta("ICMP"))
	}
}

// servicePorts are the ports scans probe.
var servicePorts = []string{"21", "22", "23", "25", "53", "80", "110", "135", "139", "143", "443", "445", "1433", "1521",
	"3306", "3389", "5432", "5900", "6379", "8080", "9200", "11211", "27017"}

// mixMeta is the end of a -header-mix rule.
func (g *gen) mixMeta(sid int, cat string) string {
	return fmt.Sprintf("classtype:attempted-recon; sid:%d; rev:%d; metadata:tag %s, signature_severity Minor, updated_at 2024_%02d_%02d;)", sid, 1+g.n(20), cat, 1+g.n(12), 1+g.n(28))
}

// threshold is an ET-style threshold on a scan rule.
func (g *gen) threshold() string {
	return fmt.Sprintf(" threshold: type %s, track %s, count %d, seconds %d;", g.pick([]string{"both", "threshold", "limit"}),
		g.pick([]string{"by_src", "by_dst"}), 1+g.n(60), []int{30, 60, 120, 300}[g.n(4)])
}

// etHeaderRule writes a header-only rule of the ET-like mix (-header-mix et), shaped as ET
// Open's scan, ICMP, DoS and policy rules without content: their header names $HOME_NET and
// $EXTERNAL_NET and often a service port; flags, dsize, window, itype/icode, fragbits, ttl,
// ack and ip_proto carry the detection, thresholds keep the alerts down.
func (g *gen) etHeaderRule(sid int) string {
	m := func(what string) string { return fmt.Sprintf("BENCH HEADER %s %d", what, sid%100000) }
	switch k := g.n(100); {
	case k < 30: // a service scan: SYNs to one port
		p := g.pick(servicePorts)
		return fmt.Sprintf("alert tcp $EXTERNAL_NET any -> $HOME_NET %s (msg:\"%s\"; flow:to_server; flags:S,12;%s %s",
			p, m("Potential Scan port "+p), g.threshold(), g.mixMeta(sid, "SCAN"))
	case k < 40: // behavioural: many outbound SYNs to one port
		p := g.pick(servicePorts)
		return fmt.Sprintf("alert tcp $HOME_NET any -> any %s (msg:\"%s\"; flow:to_server; flags:S,12;%s %s",
			p, m("Behavioral Unusual Port "+p+" traffic"), g.threshold(), g.mixMeta(sid, "SCAN"))
	case k < 50: // a scanner's fingerprint
		return fmt.Sprintf("alert tcp $EXTERNAL_NET any -> $HOME_NET any (msg:\"%s\"; fragbits:!D; dsize:0; flags:S,12; ack:0; window:%d;%s %s",
			m("NMAP -sS window"), []int{1024, 2048, 3072, 4096}[g.n(4)], g.threshold(), g.mixMeta(sid, "SCAN"))
	case k < 60: // stealth scans
		f := g.pick([]string{"flags:0,12;", "flags:FPU,12;", "flags:SF,12;", "flags:F,12; dsize:0;", "flags:SRAFPU,12;"})
		return fmt.Sprintf("alert tcp $EXTERNAL_NET any -> $HOME_NET any (msg:\"%s\"; %s%s %s", m("stealth scan"), f, g.threshold(), g.mixMeta(sid, "SCAN"))
	case k < 75: // ICMP
		opts := g.pick([]string{"itype:8; dsize:>800;", "itype:13;", "itype:15;", "itype:17;", "itype:3; icode:%d;", "itype:5; icode:%d;", "itype:8; icode:!0;", "itype:>18;"})
		if strings.Contains(opts, "%d") {
			opts = fmt.Sprintf(opts, g.n(16))
		}
		return fmt.Sprintf("alert icmp $EXTERNAL_NET any -> $HOME_NET any (msg:\"%s\"; %s%s %s", m("ICMP unusual"), opts, g.threshold(), g.mixMeta(sid, "ICMP"))
	case k < 85: // UDP sizes
		if g.pct(50) {
			return fmt.Sprintf("alert udp any 53 -> $HOME_NET any (msg:\"%s\"; dsize:>%d; %s", m("large DNS answer"), 600+g.n(900), g.mixMeta(sid, "DNS"))
		}
		return fmt.Sprintf("alert udp $EXTERNAL_NET any -> $HOME_NET %s (msg:\"%s\"; dsize:>%d;%s %s",
			g.pick([]string{"69", "123", "161", "500", "1434", "1900", "5060"}), m("large UDP request"), 400+g.n(1000), g.threshold(), g.mixMeta(sid, "POLICY"))
	case k < 95: // IP level
		opts := g.pick([]string{"fragbits:M; fragoffset:0; dsize:<%d;", "ttl:<%d;", "fragbits:R;", "ip_proto:%d;", "fragbits:*MR; ttl:<%d;"})
		if strings.Contains(opts, "%d") {
			opts = fmt.Sprintf(opts, 2+g.n(100))
		}
		return fmt.Sprintf("alert ip $EXTERNAL_NET any -> $HOME_NET any (msg:\"%s\"; %s %s", m("IP anomaly"), opts, g.mixMeta(sid, "MISC"))
	default: // DoS: zero windows
		return fmt.Sprintf("drop tcp $EXTERNAL_NET any -> $HOME_NET %s (msg:\"%s\"; flow:to_server; flags:S,12; window:0;%s %s",
			g.pick(servicePorts), m("DOS zero window SYN"), g.threshold(), g.mixMeta(sid, "DOS"))
	}
}

// scanRule writes a header-only rule of the scan-detection mix (-header-mix scan): any/any
// addresses, the detection in flags, dsize, window, itype/icode, fragbits and ttl, most of
// them with values ordinary traffic seldom has, so that they are evaluated, not alerted.
func (g *gen) scanRule(sid int) string {
	m := func(what string) string { return fmt.Sprintf("BENCH SCANDETECT %s %d", what, sid%100000) }
	switch k := g.n(100); {
	case k < 25: // SYN to a port nothing listens on
		return fmt.Sprintf("alert tcp any any -> any %d (msg:\"%s\"; flags:S%s; %s", 1024+g.n(64000), m("SYN probe"),
			g.pick([]string{"", ",12", ",CE"}), g.mixMeta(sid, "SCAN"))
	case k < 37: // odd flag combinations
		f := g.pick([]string{"flags:0;", "flags:FPU;", "flags:SF;", "flags:SR;", "flags:F; dsize:0;", "flags:+SF;", "flags:+UA;", "flags:SRAFPU;"})
		return fmt.Sprintf("alert tcp any any -> any any (msg:\"%s\"; %s %s", m("flag anomaly"), f, g.mixMeta(sid, "SCAN"))
	case k < 50: // UDP sizes
		if g.pct(50) {
			return fmt.Sprintf("alert udp any %d -> any any (msg:\"%s\"; dsize:>%d; %s", 1+g.n(1023), m("large reply"), 630+g.n(800), g.mixMeta(sid, "DNS"))
		}
		return fmt.Sprintf("alert udp any any -> any %d (msg:\"%s\"; dsize:%d; %s", 1+g.n(65000), m("fixed-size probe"), g.n(40), g.mixMeta(sid, "SCAN"))
	case k < 60: // windows
		return fmt.Sprintf("drop tcp any any -> any any (msg:\"%s\"; window:%d; flags:S,12; %s", m("scanner window"), []int{0, 1, 1024, 2048, 3072, 4096, 31337}[g.n(7)], g.mixMeta(sid, "SCAN"))
	case k < 75: // ICMP
		opts := fmt.Sprintf("itype:%d; icode:%d;", g.n(45), g.n(16))
		switch g.n(3) {
		case 0:
			opts = fmt.Sprintf("itype:8; dsize:>%d;", 800+g.n(700))
		case 1:
			opts = fmt.Sprintf("itype:%d;", 13+g.n(30))
		}
		return fmt.Sprintf("alert icmp any any -> any any (msg:\"%s\"; %s %s", m("ICMP"), opts, g.mixMeta(sid, "ICMP"))
	case k < 88: // fragments
		f := g.pick([]string{"fragbits:M;", "fragbits:R;", "fragbits:+D;", "fragbits:*MR;", "fragbits:M; fragoffset:0;", "fragbits:M; dsize:<%d;"})
		if strings.Contains(f, "%d") {
			f = fmt.Sprintf(f, 8+g.n(200))
		}
		return fmt.Sprintf("alert ip any any -> any any (msg:\"%s\"; %s %s", m("fragment"), f, g.mixMeta(sid, "MISC"))
	default: // TTLs
		t := g.pick([]string{"ttl:0;", "ttl:1;", "ttl:<%d;", "ttl:%d;"})
		if strings.Contains(t, "%d") {
			t = fmt.Sprintf(t, 2+g.n(4))
		}
		return fmt.Sprintf("alert ip any any -> any any (msg:\"%s\"; %s %s", m("low TTL"), t, g.mixMeta(sid, "MISC"))
	}
}

// firewallPolicy returns a broad Suricata 8 firewall policy of n rules (accept only, with a
// catch-all last), deterministically from seed, preceded by comment lines.
func firewallPolicy(n int, seed uint64) ([]string, error) {
	if n < 40 {
		return nil, fmt.Errorf("-firewall-n must be at least 40")
	}
	rng := rand.New(rand.NewPCG(seed, 0x6677706f6c696379))
	var out []string
	sid, count := fwSIDBase, 0
	rule := func(proto, src, sport, dst, dport, opts, msg string) {
		out = append(out, fmt.Sprintf("accept:hook %s %s %s -> %s %s (msg:\"FW %s\"; %ssid:%d; rev:1;)", proto, src, sport, dst, dport, msg, opts, sid))
		sid++
		count++
	}
	out = append(out,
		fmt.Sprintf("# Broad firewall policy generated by bench/gen-rules -seed %d -firewall-n %d (Suricata 8 firewall", seed, n),
		"# mode, packet:filter table): accept:hook rules per service port and network, and a catch-all.",
		"# 1. Infrastructure.")
	rule("udp:all", "any", "any", "any", "53", "", "DNS query")
	rule("udp:all", "any", "53", "any", "any", "", "DNS answer")
	rule("tcp:all", "any", "any", "any", "53", "", "DNS over TCP")
	rule("tcp:all", "any", "53", "any", "any", "", "DNS over TCP answer")
	rule("udp:all", "any", "[67,68]", "any", "[67,68]", "", "DHCP")
	rule("udp:all", "any", "[546,547]", "any", "[546,547]", "", "DHCPv6")
	rule("udp:all", "any", "any", "any", "123", "", "NTP")
	rule("udp:all", "any", "123", "any", "any", "", "NTP answer")
	rule("udp:all", "any", "any", "any", "[5353,5355]", "", "mDNS/LLMNR")
	rule("icmp:all", "any", "any", "any", "any", "", "ICMP")

	out = append(out, "# 2. Outbound services per port, new connections and replies.")
	services := []struct{ name, ports string }{
		{"web", "[80,443]"}, {"alt web", "[8000,8080,8443]"}, {"mail submission", "[25,465,587]"},
		{"mail access", "[110,143,993,995]"}, {"SSH", "22"}, {"FTP", "21"}, {"XMPP", "[5222,5223]"},
		{"VPN", "[1194,1723]"},
	}
	for _, s := range services {
		rule("tcp:flow_start", "$HOME_NET", "any", "$EXTERNAL_NET", s.ports, "flow:to_server; ", "new outbound "+s.name)
		rule("tcp:all", "$HOME_NET", "any", "any", s.ports, "", s.name+" out")
		rule("tcp:all", "any", s.ports, "$HOME_NET", "any", "", s.name+" replies")
	}
	rule("udp:all", "$HOME_NET", "any", "$EXTERNAL_NET", "443", "", "QUIC out")
	rule("udp:all", "$EXTERNAL_NET", "443", "$HOME_NET", "any", "", "QUIC replies")

	out = append(out, "# 3. Internal networks and their services.")
	ports := []string{"22", "[80,443]", "[139,445]", "[389,636]", "3389", "[1433,3306,5432]", "[8080,8443]", "[88,464]", "[2049,111]", "[5985,5986]"}
	for i := 0; count < n-1; i++ {
		netw := fmt.Sprintf("10.%d.%d.0/24", rng.IntN(256), rng.IntN(256))
		p := ports[rng.IntN(len(ports))]
		if rng.IntN(4) == 0 {
			rule("udp:all", "$HOME_NET", "any", netw, []string{"514", "[161,162]", "[1812,1813]", "[500,4500]"}[rng.IntN(4)], "", fmt.Sprintf("network %d UDP service", i))
			continue
		}
		rule("tcp:all", "$HOME_NET", "any", netw, p, "", fmt.Sprintf("network %d service", i))
		if count < n-1 {
			rule("tcp:all", netw, p, "$HOME_NET", "any", "", fmt.Sprintf("network %d replies", i))
		}
	}
	out = append(out, "# 4. Everything else is accepted and left to the threat-detection rules.")
	rule("ip:all", "any", "any", "any", "any", "", "catch-all")
	return out, nil
}
