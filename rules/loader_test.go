package rules

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestErrorFormat(t *testing.T) {
	l := NewLoader(nil)
	in := strings.Repeat("\n", 11) + `alert tcp any any -> any any (msg:"x"; content:"|4 41|"; sid:1000003;)` + "\n"
	errs, st := l.LoadBytes("rules/local.rules", []byte(in))
	if len(errs) != 1 || st.Failed != 1 {
		t.Fatalf("%v %v", errs, st)
	}
	want := `rules/local.rules:12: sid 1000003: content: odd number of hex digits in "|4 41|"`
	if errs[0].Error() != want {
		t.Fatalf("got  %s\nwant %s", errs[0], want)
	}
	e := &Error{Msg: "m"}
	if e.Error() != "m" {
		t.Fatal(e.Error())
	}
	e = &Error{File: "f", Line: 3, SID: 5, GID: 3, Keyword: "k", Msg: "m"}
	if e.Error() != "f:3: gid 3 sid 5: k: m" {
		t.Fatal(e.Error())
	}
}

func TestLoader(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "test.rules")
	text := strings.Join([]string{
		`# a comment`,
		`alert tcp any any -> any any (msg:"one"; sid:1; rev:1;)`,
		`alert tcp any any -> any any (msg:"bad"; content:"x"; depth:0; sid:2;)`,
		`alert tcp any any -> any any (msg:"needs 9"; requires:version >= 9; sid:3;)`,
		`alert tcp any any -> any any (msg:"one again, older"; sid:1; rev:1;)`,
		`alert tcp any any -> any any (msg:"four"; \`,
		`  sid:4; rev:1;)`,
		`alert tcp any any -> any any (msg:"four newer"; sid:4; rev:2;)`,
		`alert tcp any any -> any any (msg:"four same rev"; sid:4; rev:2;)`,
		`alert tcp any any -> any any (msg:"gid 2"; gid:2; sid:1; rev:1;)`,
		`alert tcp any any -> any any (msg:"uses ttl"; ttl:3; sid:5;)`,
		`drop tcp any any -> any any (msg:"too long"; content:"` + strings.Repeat("A", MaxRuleSize) + `"; sid:6;)`,
		``,
	}, "\n")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l := NewLoader(nil)
	l.Supported = func(k string) bool { return k != "ttl" }
	errs, st := l.LoadFile(path)
	want := Stats{Files: 1, Loaded: 4, Failed: 5, Skipped: 1}
	if st != want {
		t.Fatalf("stats %+v, want %+v\n%v", st, want, errs)
	}
	if l.Stats() != want {
		t.Fatalf("loader stats %+v", l.Stats())
	}
	if st.String() != "1 rule files processed. 4 rules successfully loaded, 5 rules failed, 1 rules skipped" {
		t.Fatal(st.String())
	}
	kinds := map[ErrorKind]int{}
	for _, e := range errs {
		kinds[e.(*Error).Kind]++
	}
	if kinds[KindFailed] != 2 || kinds[KindSkipped] != 1 || kinds[KindDuplicate] != 2 || kinds[KindReplaced] != 1 || kinds[KindUnsupported] != 1 {
		t.Fatalf("kinds %v\n%v", kinds, errs)
	}
	rs := l.Rules()
	var got []string
	for _, r := range rs {
		got = append(got, r.Msg)
	}
	// Threat-detection rules come in sid order (gid 1 sid 1, gid 2 sid 1, sid 4).
	if strings.Join(got, "|") != "one|gid 2|four newer" {
		t.Fatalf("rules %q", got)
	}
	if rs[2].Line != 8 || rs[2].File != path {
		t.Fatalf("position %s:%d", rs[2].File, rs[2].Line)
	}
	// Errors come in file order.
	for i := 1; i < len(errs); i++ {
		if errs[i].(*Error).Line < errs[i-1].(*Error).Line && errs[i].(*Error).Kind != KindReplaced {
			t.Fatalf("errors out of file order: %v", errs)
		}
	}
	for _, e := range errs {
		if e.(*Error).Kind == KindUnsupported && !strings.Contains(e.Error(), "keyword ttl is not supported yet") {
			t.Error(e)
		}
	}

	// The package-level helper, and a missing file.
	rules, errs := LoadFile(path, nil)
	if len(rules) != 4 || len(errs) != 6 {
		t.Fatalf("LoadFile: %d rules, %d errors", len(rules), len(errs))
	}
	_, errs = LoadFile(filepath.Join(dir, "missing.rules"), nil)
	if len(errs) != 1 || errs[0].(*Error).Kind != KindFile {
		t.Fatalf("missing file: %v", errs)
	}
}

func TestBundledRules(t *testing.T) {
	rules, errs := LoadFile("meerkat.rules", nil)
	if len(errs) != 0 || len(rules) == 0 {
		t.Fatalf("%d rules, errors %v", len(rules), errs)
	}
}

func TestRuleTypes(t *testing.T) {
	for _, tc := range []struct{ rule, want string }{
		{`alert ip any any -> any any (sid:1;)`, "ip_only"},
		{`alert tcp-pkt [192.168.0.0/16,10.0.0.0/8] any -> any any (msg:"x"; sid:201;)`, "ip_only"},
		{`alert udp any any -> any any (sid:1601;)`, "ip_only"},
		{`alert ip any any -> any any (hostbits:set,myflow2; sid:1505;)`, "ip_only"},
		{`alert ip any any -> any any (flowbits:set,x; threshold:type limit,track by_src,count 1,seconds 60; sid:1;)`, "ip_only"},
		{`alert ip !1.1.1.1 any -> any any (sid:1;)`, "like_ip_only"},
		{`alert ip $EXTERNAL_NET any -> $HOME_NET any (sid:1;)`, "like_ip_only"},
		{`alert ip any any -> any any (flowbits:isset,x; sid:1;)`, "pkt"},
		{`alert tcp any any -> any any (flow:to_server; sid:1;)`, "pkt"},
		{`alert tcp any any -> any any (flow:established; sid:1;)`, "pkt"},
		{`alert tcp any any -> any any (ttl:10; sid:1;)`, "pkt"},
		{`alert tcp any any -> any any (app-layer-protocol:http; sid:1;)`, "pd_only"},
		{`alert tcp any any -> any any (app-layer-protocol:http; flow:to_server; sid:1;)`, "pd_only"},
		{`alert pkthdr any any -> any any (decode-event:ipv4.pkt_too_small; sid:1;)`, "de_only"},
		{`alert tcp any any -> any any (stream-event:3whs_async_wrong_seq; sid:1;)`, "pkt"},
		{`alert tcp any any -> any any (content:"a"; sid:1;)`, "stream"},
		{`alert tcp any any -> any any (content:"a"; depth:4; sid:1;)`, "pkt_stream"},
		{`alert udp any any -> any any (content:"a"; sid:1;)`, "pkt_stream"},
		{`alert tcp-pkt any any -> any any (content:"a"; sid:1;)`, "pkt"},
		{`alert tcp any any -> any any (content:"a"; dsize:>5; sid:1;)`, "pkt"},
		{`alert tcp-stream any any -> any any (content:"a"; sid:1;)`, "stream"},
		{`alert tcp any any -> any any (tcp.hdr; content:"a"; sid:1;)`, "pkt"},
		{`alert http any any -> any any (sid:1;)`, "app_layer"},
		{`alert http any any -> any any (http.uri; content:"a"; sid:1;)`, "app_tx"},
		{`alert tcp any any -> any any (content:"a"; http_uri; sid:1;)`, "app_tx"},
		{`alert tls any any -> any any (tls.version:1.2; sid:1;)`, "app_tx"},
		{`alert http1:request_started any any -> any any (sid:1;)`, "app_tx"},
	} {
		r, err := Parse(tc.rule)
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		if got := r.Type().String(); got != tc.want {
			t.Errorf("%s: type %s, want %s", tc.rule, got, tc.want)
		}
	}
}

func TestRuleStructure(t *testing.T) {
	r, err := Parse(`alert http $HOME_NET any -> $EXTERNAL_NET $HTTP_PORTS (msg:"ET TEST"; flow:established,to_server; ` +
		`content:"POST"; http_method; content:"/gate.php"; http_uri; fast_pattern; pcre:"/id=\d+/U"; ` +
		`http.user_agent; content:"Bot"; startswith; flowbits:set,ET.bot; flowbits:noalert; ` +
		`threshold:type limit, track by_src, count 1, seconds 60; reference:url,example.com; classtype:trojan-activity; ` +
		`metadata:created_at 2024_01_01, tag bot; sid:2000001; rev:3;)`)
	if err != nil {
		t.Fatal(err)
	}
	if r.SID != 2000001 || r.Rev != 3 || r.GID != 1 || r.Msg != "ET TEST" || r.Classtype != "trojan-activity" {
		t.Fatalf("meta %+v", r)
	}
	if r.AppProto != "http1" || !r.ToServer || r.ToClient || !r.NoAlert {
		t.Fatalf("app %q ts %v tc %v noalert %v", r.AppProto, r.ToServer, r.ToClient, r.NoAlert)
	}
	var names []string
	for _, b := range r.Buffers {
		var ms []string
		for _, m := range b.Matches {
			ms = append(ms, m.String())
		}
		names = append(names, b.Name+"["+strings.Join(ms, " ")+"]")
	}
	if got := strings.Join(names, " "); got != `http.method[content:"POST"] http.uri[content:"/gate.php" pcre:"/id=\d+/U"] http.user_agent[content:"Bot"]` {
		t.Fatalf("buffers %s", got)
	}
	c := r.Buffer("http.uri").Matches[0].Arg.(*Content)
	if !c.FastPattern || string(c.Pattern) != "/gate.php" {
		t.Fatalf("content %+v", c)
	}
	if !r.Buffer("http.user_agent").Matches[0].Arg.(*Content).StartsWith {
		t.Fatal("startswith")
	}
	if len(r.Flowbits) != 2 || r.Flowbits[0].Cmd != "set" || len(r.PostMatches) != 1 || r.Threshold == nil || r.Threshold.Count != 1 {
		t.Fatalf("flowbits %v post %v threshold %v", r.Flowbits, r.PostMatches, r.Threshold)
	}
	if len(r.References) != 1 || r.References[0].System != "url" || len(r.Metadata) != 2 || r.Metadata[1].Key != "tag" {
		t.Fatalf("refs %v meta %v", r.References, r.Metadata)
	}
	if r.Flow == nil || !r.Flow.Established || !r.Flow.ToServer {
		t.Fatalf("flow %+v", r.Flow)
	}
	if len(r.Contents()) != 3 || r.Option("classtype").Value != "trojan-activity" || r.Option("nosuch") != nil {
		t.Fatal("helpers")
	}
	if kws := r.Keywords(); kws[0] != "msg" || kws[len(kws)-1] != "rev" {
		t.Fatalf("keywords %v", kws)
	}
	if !r.Header.DstPort.Contains(80) || r.Header.DstPort.Contains(81) {
		t.Fatal("ports")
	}
}

// TestLoaderOrderIndependent loads the same rules in several file orders: the loaded rules
// come in the same (sid) order, the same rules fail, and errors follow the file's lines.
// Firewall rules keep file order.
func TestLoaderOrderIndependent(t *testing.T) {
	var lines []string
	for sid := 1; sid <= 40; sid++ {
		switch {
		case sid%7 == 0:
			lines = append(lines, fmt.Sprintf(`alert tcp any any -> any any (msg:"bad %d"; content:"|4 41|"; sid:%d;)`, sid, sid))
		case sid%5 == 0:
			lines = append(lines, fmt.Sprintf(`alert udp any any -> any 53 (msg:"udp %d";sid : %d; rev:2;)`, sid, sid))
		default:
			lines = append(lines, fmt.Sprintf(`alert tcp any any -> any %d (msg:"tcp %d"; content:"x%d"; sid:%d;)`, sid, sid, sid, sid))
		}
	}
	orders := map[string][]string{"sorted": lines, "reversed": nil, "shuffled": nil}
	for i := len(lines) - 1; i >= 0; i-- {
		orders["reversed"] = append(orders["reversed"], lines[i])
	}
	shuffled := append([]string(nil), lines...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	orders["shuffled"] = shuffled
	var want string
	for name, text := range orders {
		l := NewLoader(nil)
		errs, st := l.LoadBytes(name, []byte(strings.Join(text, "\n")))
		if st.Loaded != 35 || st.Failed != 5 {
			t.Fatalf("%s: %+v %v", name, st, errs)
		}
		var got []string
		for _, r := range l.Rules() {
			got = append(got, fmt.Sprint(r.SID))
		}
		for i := 1; i < len(errs); i++ {
			if errs[i].(*Error).Line <= errs[i-1].(*Error).Line {
				t.Fatalf("%s: errors out of file order: %v", name, errs)
			}
		}
		var failed []string
		for _, e := range errs {
			failed = append(failed, fmt.Sprint(e.(*Error).SID))
		}
		sort.Strings(failed)
		g := strings.Join(got, ",") + " failed " + strings.Join(failed, ",")
		if want == "" {
			want = g
		} else if g != want {
			t.Fatalf("%s: %s\nwant %s", name, g, want)
		}
	}
	if !strings.HasPrefix(want, "1,2,3,4,5,6,8,") {
		t.Fatalf("not in sid order: %s", want)
	}

	fw := NewLoader(nil)
	fw.Options.Firewall = true
	text := "accept:hook tcp:all any any -> any 80 (sid:9;)\n" +
		"accept:hook tcp:all any any -> any 22 (sid:3;)\n"
	if errs, _ := fw.LoadBytes("fw.rules", []byte(text)); len(errs) != 0 {
		t.Fatal(errs)
	}
	if rs := fw.Rules(); len(rs) != 2 || rs[0].SID != 9 {
		t.Fatalf("firewall rules must keep file order: %v", rs)
	}
}

func TestSIDHint(t *testing.T) {
	for _, c := range []struct {
		text string
		want uint64
	}{
		{`alert tcp any any -> any any (msg:"x"; sid:42; rev:1;)`, 42},
		{`alert tcp any any -> any any (msg:"x";sid : 7;)`, 7},
		{`alert tcp any any -> any any (msg:"sid:9"; sid:12;)`, 12},
		{`alert tcp any any -> any any (sid:12; msg:"nosid:9";)`, 12},
		{`alert tcp any any -> any any (msg:"x";)`, 0},
		{`alert tcp any any -> any any (sid:;)`, 0},
		{`sid:99999999999999999999999`, 9999999999999999999},
		{``, 0},
	} {
		if got := sidHint([]byte(c.text)); got != c.want {
			t.Errorf("sidHint(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}
