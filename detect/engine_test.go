package detect

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
	"github.com/meerkat-ids/meerkat/rules"
)

func mustRules(t testing.TB, texts ...string) []*rules.Rule {
	t.Helper()
	var out []*rules.Rule
	for _, s := range texts {
		r, err := rules.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		out = append(out, r)
	}
	return out
}

func tcpPacket(src, dst string, sp, dp uint16, payload string) *decode.Packet {
	return &decode.Packet{Data: make([]byte, 54+len(payload)), Timestamp: time.Unix(1700000000, 0), IPVersion: 4,
		SrcIP: netip.MustParseAddr(src), DstIP: netip.MustParseAddr(dst), IPProto: decode.ProtoTCP, HasL4: true,
		SrcPort: sp, DstPort: dp, TCPFlags: decode.TCPFlagACK | decode.TCPFlagPSH, Payload: []byte(payload), TTL: 64}
}

func TestRuleOrder(t *testing.T) {
	rs := mustRules(t,
		`alert tcp any any -> any any (content:"a"; sid:1;)`,
		`drop tcp any any -> any any (content:"a"; sid:9;)`,
		`pass tcp any any -> any any (content:"a"; sid:50;)`,
		`alert tcp any any -> any any (content:"a"; priority:1; sid:60;)`,
		`alert tcp any any -> any any (content:"a"; flowbits:isset,x; sid:2;)`,
		`alert tcp any any -> any any (content:"a"; flowbits:set,x; sid:70;)`,
	)
	e, errs, err := Build(rs, Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	var got []uint32
	for _, r := range e.Rules() {
		got = append(got, r.Src.SID)
	}
	// pass, drop, then alerts: flowbits setters, readers, then the rest by priority and sid.
	want := []uint32{50, 9, 70, 2, 60, 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v", got, want)
	}
	// action-order: alert first.
	e2, _, _ := Build(rs, Config{ActionOrder: []string{"alert", "pass", "drop", "reject"}})
	defer e2.Close()
	if first := e2.Rules()[0].Src.SID; first != 70 {
		t.Errorf("with alert first, first sid %d, want 70", first)
	}
}

func TestInspectAlerts(t *testing.T) {
	rs := mustRules(t,
		`alert tcp any any -> any 80 (msg:"get"; content:"GET "; depth:4; sid:1;)`,
		`alert tcp any any -> any 80 (msg:"host"; content:"Host|3a| example"; nocase; sid:2;)`,
		`alert tcp any any -> any 443 (msg:"wrong port"; content:"GET"; sid:3;)`,
		`alert tcp 10.0.0.0/8 any -> any any (msg:"no content, net"; flags:AP; sid:4;)`,
		`alert tcp any any -> any any (msg:"not"; content:"zzz"; sid:5;)`,
		`alert udp any any -> any any (msg:"udp"; sid:6;)`,
		`alert tcp any any <> 192.168.1.1 80 (msg:"both ways"; content:"GET"; sid:7;)`,
	)
	e, errs, err := Build(rs, Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	p := tcpPacket("10.1.1.1", "192.168.1.1", 40000, 80, "GET / HTTP/1.1\r\nHOST: EXAMPLE.org\r\n\r\n")
	e.Inspect(tc, p, nil, flow.ToServer)
	var sids []uint32
	for _, en := range tc.Queue.Entries() {
		sids = append(sids, e.Rule(en.IID).Src.SID)
	}
	if fmt.Sprint(sids) != "[1 2 4 7]" {
		t.Errorf("alerts %v, want [1 2 4 7]", sids)
	}
	// The reverse direction of the <> rule.
	p2 := tcpPacket("192.168.1.1", "10.9.9.9", 80, 5555, "GET reply")
	e.Inspect(tc, p2, nil, flow.ToClient)
	sids = sids[:0]
	for _, en := range tc.Queue.Entries() {
		sids = append(sids, e.Rule(en.IID).Src.SID)
	}
	if fmt.Sprint(sids) != "[7]" {
		t.Errorf("reverse alerts %v, want [7]", sids)
	}
}

func TestUnsupportedRulesFail(t *testing.T) {
	rs := mustRules(t,
		`alert krb5 any any -> any any (krb5.cname; content:"x"; sid:1;)`, // no Kerberos parser yet
		`alert tcp any any -> any any (content:"ok"; sid:2;)`,
	)
	e, errs, err := Build(rs, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "not supported yet") || !strings.Contains(errs[0].Error(), "sid 1") {
		t.Errorf("errors %v", errs)
	}
	if e.Len() != 1 {
		t.Errorf("%d rules compiled, want 1", e.Len())
	}
}

// TestPrefilterMatchesBruteForce builds random rule sets and packets and checks that the
// prefiltered engine reports exactly the rules a brute-force evaluation of every rule, in iid
// order, accepts. Rounds vary the signature grouping (profiles, tiny custom bounds that force
// a joined group, one shared database), the broad-rule index and the header witness index;
// rules mix contents with header keywords (ranges, negations, flags with modifiers) on
// address and port fields, so header witnesses are combined with the broad index.
func TestPrefilterMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"abc", "GET", "admin", "x1", "passwd", "Zz", "evil", "|00 01|", "login", "q"}
	nets := []string{"any", "10.0.0.0/8", "!10.0.0.0/8", "[192.168.0.0/16,10.1.0.0/16]", "192.168.1.1"}
	ports := []string{"any", "80", "!80", "[80,443,8000:8100]", "1024:", "443", "53", "[1:1024]", "8000:8100", "![80,443]", "22"}
	allPorts := ports
	groupings := []Grouping{{}, {Profile: "custom", CustomToClient: 1, CustomToServer: 1},
		{Profile: "custom", CustomToClient: 2, CustomToServer: 3, TCPPriorityPorts: []uint16{}}, {SharedMPM: true},
		{Profile: "high", TCPPriorityPorts: []uint16{22, 8050}}, {Profile: "custom"}}
	for round := 0; round < 54; round++ {
		var texts []string
		for i := 0; i < 60; i++ {
			var opts []string
			for k := rng.IntN(3); k > 0; k-- {
				c := fmt.Sprintf(`content:"%s";`, words[rng.IntN(len(words))])
				if rng.IntN(3) == 0 {
					c += " nocase;"
				}
				opts = append(opts, c)
			}
			switch rng.IntN(4) {
			case 0:
				opts = append(opts, "flow:to_server;")
			case 1:
				opts = append(opts, "flow:to_client;")
			}
			proto := []string{"tcp", "ip", "udp", "icmp"}[rng.IntN(4)]
			if proto == "tcp" && rng.IntN(4) == 0 {
				opts = append(opts, []string{"flags:S;", "flags:S,12;", "flags:!S;", "flags:SA;", "flags:+A;", "flags:*SF;"}[rng.IntN(6)])
			}
			// Header keywords, the witnesses' material: any protocol, then per protocol. A
			// combination the parser refuses (dsize:0 with a content) is dropped.
			plain := len(opts)
			for n := rng.IntN(3); n > 0; n-- {
				hk := []string{"ttl:64;", "ttl:<64;", "ttl:>100;", "ttl:1-63;", "dsize:0;", "dsize:>5;", "dsize:<10;",
					"dsize:3<>20;", "dsize:!0;", "id:1234;", "id:7;", "tos:8;", "tos:!8;", "fragbits:D;", "fragbits:!D;",
					"fragbits:*MD;", "ip_proto:6;", "ip_proto:!17;"}
				switch proto {
				case "tcp":
					hk = append(hk, "window:1024;", "window:!0;", "seq:0;", "ack:0;", "tcp.mss:>1000;", "flags:S;")
				case "icmp":
					hk = append(hk, "itype:8;", "itype:>5;", "icode:0;", "icode:!1;", "icmp_id:7;", "icmp_seq:1;")
				}
				opts = append(opts, hk[rng.IntN(len(hk))])
			}
			if proto == "ip" || proto == "icmp" {
				ports = ports[:1] // ports need a port protocol
			}
			arrow := "->"
			if rng.IntN(5) == 0 {
				arrow = "<>"
			}
			head := fmt.Sprintf("alert %s %s %s %s %s %s", proto, nets[rng.IntN(len(nets))], ports[rng.IntN(len(ports))],
				arrow, nets[rng.IntN(len(nets))], ports[rng.IntN(len(ports))])
			text := fmt.Sprintf("%s (%s sid:%d;)", head, strings.Join(opts, " "), i+1)
			if _, err := rules.Parse(text); err != nil {
				text = fmt.Sprintf("%s (%s sid:%d;)", head, strings.Join(opts[:plain], " "), i+1)
			}
			texts = append(texts, text)
			ports = allPorts
		}
		rs := mustRules(t, texts...)
		e, errs, err := Build(rs, Config{PacketAlertMax: 255, NoBroadIndex: round%3 == 1, NoHeaderIndex: round%3 == 2,
			Grouping: groupings[round/3%len(groupings)]})
		if err != nil || len(errs) > 0 {
			t.Fatalf("build: %v %v", err, errs)
		}
		tc, err := e.NewThreadCtx(nil)
		if err != nil {
			t.Fatal(err)
		}
		addrs := []string{"10.1.2.3", "192.168.1.1", "8.8.8.8", "10.200.0.1"}
		// Flows are reused for repeated tuples, so the per-flow broad-rule cache and the
		// once-per-direction IP-only evaluation are exercised; the brute force knows both.
		flows := map[string]*flow.Flow{}
		for k := 0; k < 200; k++ {
			var payload strings.Builder
			for n := rng.IntN(5); n > 0; n-- {
				w := words[rng.IntN(len(words))]
				if w == "|00 01|" {
					w = "\x00\x01"
				}
				if rng.IntN(2) == 0 {
					w = strings.ToUpper(w)
				}
				payload.WriteString(w + " ")
			}
			p := tcpPacket(addrs[rng.IntN(4)], addrs[rng.IntN(4)], []uint16{80, 40080, 443, 53, 8050}[rng.IntN(5)],
				[]uint16{80, 443, 8050, 22, 53, 1024, 40000}[rng.IntN(7)], payload.String())
			p.TTL = []uint8{1, 63, 64, 100, 128, 255}[rng.IntN(6)]
			p.IPID = []uint32{0, 7, 1234}[rng.IntN(3)]
			p.TOS = []uint8{0, 8}[rng.IntN(2)]
			p.IPv4Flags = []uint8{0, decode.IPv4FlagDF, decode.IPv4FlagMF, decode.IPv4FlagDF | decode.IPv4FlagMF}[rng.IntN(4)]
			p.TCPWindow = []uint16{0, 1024, 65535}[rng.IntN(3)]
			p.TCPSeq, p.TCPAck = uint32(rng.IntN(2)), uint32(rng.IntN(2))
			if rng.IntN(2) == 0 {
				p.TCPMSS, p.HasTCPMSS = []uint16{536, 1460}[rng.IntN(2)], true
			}
			if rng.IntN(3) == 0 {
				p.TCPFlags = []uint8{decode.TCPFlagSYN | decode.TCPFlagACK, decode.TCPFlagFIN | decode.TCPFlagACK, decode.TCPFlagACK}[rng.IntN(3)]
			}
			switch rng.IntN(6) {
			case 0:
				p.IPProto = decode.ProtoUDP
			case 1:
				p.IPProto, p.SrcPort, p.DstPort = 1, 0, 0 // ICMP
				p.ICMPType, p.ICMPCode = []uint8{0, 3, 8}[rng.IntN(3)], uint8(rng.IntN(2))
				p.ICMPID, p.ICMPSeq, p.HasICMPID = 7, 1, p.ICMPType != 3
			case 2:
				p.TCPFlags = decode.TCPFlagSYN
			case 3:
				if rng.IntN(2) == 0 {
					p.HasL4, p.SrcPort, p.DstPort = false, 0, 0 // a fragment: no ports
				} else {
					p.IPVersion, p.SrcIP, p.DstIP = 6, netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2")
				}
			}
			var fl *flow.Flow
			dir := flow.ToServer
			if rng.IntN(3) > 0 {
				dir = flow.Direction(rng.IntN(2))
				key := fmt.Sprint(p.SrcIP, p.SrcPort, p.DstIP, p.DstPort, p.IPProto, dir)
				if fl = flows[key]; fl == nil {
					fl = flow.NewDetached()
					flows[key] = fl
				}
			}
			ipOnlyDone := fl != nil && tc.flows.at(fl, e).ipOnlyDone[dir]
			e.Inspect(tc, p, fl, dir)
			var got []uint32
			for _, en := range tc.Queue.Entries() {
				got = append(got, en.IID)
			}
			var want []uint32
			st := tc.pst
			in := match.Input{P: p, F: fl, Dir: dir}
			for _, r := range e.Rules() {
				if r.ipOnly && ipOnlyDone || r.synNoToClient && dir == flow.ToClient {
					continue
				}
				if r.headerMatch(p) && r.match.Match(&in) && (r.payload == nil || r.payload.Inspect(p.Payload, st)) {
					want = append(want, r.IID)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				var texts2 []string
				for _, iid := range want {
					texts2 = append(texts2, e.Rule(iid).Src.Raw)
				}
				t.Fatalf("round %d packet %q %v:%d->%v:%d proto %d flow %v dir %v: engine %v, brute force %v\n%s", round, p.Payload,
					p.SrcIP, p.SrcPort, p.DstIP, p.DstPort, p.IPProto, fl != nil, dir, got, want, strings.Join(texts2, "\n"))
			}
		}
		tc.Close()
		e.Close()
	}
}

func TestInspectNoAllocs(t *testing.T) {
	rs := mustRules(t,
		`alert tcp any any -> any 80 (content:"GET "; depth:4; sid:1;)`,
		`alert tcp any any -> any any (content:"never-here"; sid:2;)`,
		`alert tcp any any -> any any (flags:S; sid:3;)`,
	)
	e, _, err := Build(rs, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tc, _ := e.NewThreadCtx(nil)
	defer tc.Close()
	p := tcpPacket("10.1.1.1", "192.168.1.1", 40000, 80, "POST / HTTP/1.1\r\n\r\n")
	if allocs := testing.AllocsPerRun(1000, func() { e.Inspect(tc, p, nil, flow.ToServer) }); allocs != 0 {
		t.Errorf("%.1f allocations per non-alerting packet", allocs)
	}
	if tc.Queue.Len() != 0 {
		t.Errorf("unexpected alerts")
	}
	_ = alert.NoTx
}

// TestPayloadMask follows Suricata's signature masks: payload keywords and a dsize that
// excludes 0 need a packet with payload; dsize:0 needs one without; dsize:<N does not care.
func TestPayloadMask(t *testing.T) {
	rs := mustRules(t,
		`alert tcp any any -> any any (dsize:!9; sid:1;)`,
		`alert tcp any any -> any any (dsize:<10; sid:2;)`,
		`alert tcp any any -> any any (dsize:0; sid:3;)`,
		`alert tcp any any -> any any (content:!"x"; sid:4;)`,
	)
	e, errs, err := Build(rs, Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	tc, _ := e.NewThreadCtx(nil)
	defer tc.Close()
	for _, tc2 := range []struct {
		payload string
		want    string
	}{{"", "[2 3]"}, {"abc", "[1 2 4]"}, {"123456789", "[2 4]"}} {
		e.Inspect(tc, tcpPacket("1.1.1.1", "2.2.2.2", 1, 2, tc2.payload), nil, flow.ToServer)
		var sids []uint32
		for _, en := range tc.Queue.Entries() {
			sids = append(sids, e.Rule(en.IID).Src.SID)
		}
		if fmt.Sprint(sids) != tc2.want {
			t.Errorf("payload %q: sids %v, want %s", tc2.payload, sids, tc2.want)
		}
	}
}

func TestThresholds(t *testing.T) {
	rs := mustRules(t,
		`alert tcp any any -> any any (msg:"limit"; content:"x"; threshold: type limit, track by_src, count 2, seconds 60; sid:1;)`,
		`alert tcp any any -> any any (msg:"df"; content:"x"; detection_filter: track by_src, count 2, seconds 60; sid:2;)`,
		`alert tcp any any -> any any (msg:"suppressed"; content:"x"; sid:3;)`,
	)
	entries, errs := rules.ParseThresholdConfig("t", strings.NewReader("suppress gen_id 1, sig_id 3, track by_src, ip 10.0.0.1\n"), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	e, berrs, err := Build(rs, Config{Thresholds: entries})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(berrs) != 0 {
		t.Errorf("build errors %v", berrs)
	}
	tc, _ := e.NewThreadCtx(nil)
	defer tc.Close()
	var got []string
	for i := 0; i < 4; i++ {
		p := tcpPacket("10.0.0.1", "10.0.0.2", 1000, 80, "x")
		p.Timestamp = p.Timestamp.Add(time.Duration(i) * time.Second)
		e.Inspect(tc, p, nil, flow.ToServer)
		var sids []uint32
		for _, en := range tc.Queue.Entries() {
			sids = append(sids, e.Rule(en.IID).Src.SID)
		}
		got = append(got, fmt.Sprint(sids))
	}
	// limit 2: packets 1 and 2; detection_filter count 2: from the third; sid 3 suppressed.
	want := "[[1] [1] [2] [2]]"
	if fmt.Sprint(got) != want {
		t.Errorf("alerts per packet %v, want %s", got, want)
	}
	if c := tc.Queue.Counters; c.Suppressed == 0 {
		t.Errorf("no suppressed matches counted: %+v", c)
	}
}

// TestIPOnlyOncePerDirection: like Suricata's IP-only engine, an IP-only rule is evaluated on the
// first packet of each flow direction only; other rules on every packet.
func TestIPOnlyOncePerDirection(t *testing.T) {
	rs := mustRules(t,
		`alert ip 10.0.0.0/8 any -> any any (msg:"ip-only"; sid:1;)`,
		`alert tcp 10.0.0.0/8 any -> any any (msg:"packet"; flags:A+; sid:2;)`,
	)
	e, _, err := Build(rs, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Rules()[0].Src.Type() != rules.TypeIPOnly {
		t.Fatalf("sid 1 is %v, not ip_only", e.Rules()[0].Src.Type())
	}
	tc, _ := e.NewThreadCtx(nil)
	defer tc.Close()
	f := flow.NewDetached()
	var got []string
	for i := 0; i < 3; i++ {
		e.Inspect(tc, tcpPacket("10.0.0.1", "192.168.0.1", 1000, 80, "x"), f, flow.ToServer)
		var sids []uint32
		for _, en := range tc.Queue.Entries() {
			sids = append(sids, e.Rule(en.IID).Src.SID)
		}
		got = append(got, fmt.Sprint(sids))
	}
	if fmt.Sprint(got) != "[[1 2] [2] [2]]" {
		t.Errorf("alerts per packet %v, want [[1 2] [2] [2]]", got)
	}
	// Without a flow, every packet is evaluated.
	e.Inspect(tc, tcpPacket("10.0.0.1", "192.168.0.1", 1000, 80, "x"), nil, flow.ToServer)
	if tc.Queue.Len() != 2 {
		t.Errorf("flowless packet: %d alerts, want 2", tc.Queue.Len())
	}
}

// TestScanErrorFallsBackToAllGroupRules makes the Hyperscan scan fail (scratch space allocated
// for another, smaller database) and checks that the packet still gets every alert it should:
// a failed scan must not read as "no pattern matched".
func TestScanErrorFallsBackToAllGroupRules(t *testing.T) {
	var texts []string
	for i := range 40 {
		texts = append(texts, fmt.Sprintf(`alert tcp any any -> any any (msg:"p%d"; content:"pattern-%03d-%s"; sid:%d;)`,
			i, i, strings.Repeat("x", i%7), i+1))
	}
	texts = append(texts, `alert tcp any any -> any any (msg:"get"; content:"GET "; depth:4; sid:100;)`)
	e, errs, err := Build(mustRules(t, texts...), Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	p := tcpPacket("10.1.1.1", "192.168.1.1", 40000, 80, "GET /pattern-007-x and pattern-013-xxxxxx")
	alerts := func(tc *ThreadCtx) string {
		e.Inspect(tc, p, nil, flow.ToServer)
		var sids []uint32
		for _, en := range tc.Queue.Entries() {
			sids = append(sids, e.Rule(en.IID).Src.SID)
		}
		return fmt.Sprint(sids)
	}
	good, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	want := alerts(good)
	if want != "[8 14 100]" {
		t.Fatalf("alerts %s, want [8 14 100]", want)
	}

	bad, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	small, err := hs.Compile([]hs.Pattern{{ID: 0, Bytes: []byte("q")}}, hs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	bad.scanner.Close()
	if bad.scanner, err = hs.NewScanner(small); err != nil {
		t.Fatal(err)
	}
	if got := alerts(bad); got != want {
		t.Errorf("alerts after a failed scan %s, want %s", got, want)
	}
	if bad.MPMErrors != 1 {
		t.Errorf("MPMErrors = %d, want 1 (the scan did not fail; the test proves nothing)", bad.MPMErrors)
	}
}
