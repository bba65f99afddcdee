package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binPath is the meerkat binary built once for the end-to-end tests.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "meerkat-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "meerkat")
	out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building meerkat: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if bulkDir != "" {
		os.RemoveAll(bulkDir)
	}
	os.Exit(code)
}

const repoRoot = "../.."

type runResult struct {
	code   int
	stderr string
	eve    []map[string]any
	lines  []string
}

// runMeerkat runs the binary from the repository root with args and an -l folder it creates.
func runMeerkat(t *testing.T, args ...string) runResult {
	t.Helper()
	logDir := t.TempDir()
	cmd := exec.Command(binPath, append(args, "-l", logDir)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	res := runResult{stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	res.lines, res.eve = readEVE(t, filepath.Join(logDir, "eve.json"))
	return res
}

func readEVE(t *testing.T, path string) ([]string, []map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("%s does not end with a newline: a line was cut", path)
	}
	var lines []string
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: invalid JSON line: %v\n%s", path, err, sc.Text())
		}
		lines = append(lines, sc.Text())
		recs = append(recs, m)
	}
	return lines, recs
}

func ofType(recs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if r["event_type"] == typ {
			out = append(out, r)
		}
	}
	return out
}

// comparable strips what legitimately differs between runs (wall-clock stats time, uptime)
// and sorts the lines (workers may log in another order).
func comparable(t *testing.T, recs []map[string]any) []string {
	var out []string
	for _, r := range recs {
		if r["event_type"] == "stats" {
			delete(r, "timestamp")
			delete(r["stats"].(map[string]any), "uptime")
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

func TestSampleReplayRunmodesAgree(t *testing.T) {
	var results [][]string
	for _, mode := range []string{"single", "workers", "autofp"} {
		r := runMeerkat(t, "-c", "suricata.yaml", "-S", "rules/meerkat.rules", "-r", "pcaps/sample.pcap", "--runmode", mode)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", mode, r.code, r.stderr)
		}
		if len(ofType(r.eve, "alert")) == 0 {
			t.Errorf("%s: no alerts", mode)
		}
		for _, want := range []string{"packets: 28\n", "bytes: 3192\n", "packets/s: ", "alerts: 9\n", "drops: 0\n", "heap allocations per packet: "} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: summary lacks %q:\n%s", mode, want, r.stderr)
			}
		}
		results = append(results, comparable(t, r.eve))
	}
	for i := 1; i < len(results); i++ {
		if strings.Join(results[0], "\n") != strings.Join(results[i], "\n") {
			t.Errorf("run mode %d logged differently from single:\n%s\n---\n%s",
				i, strings.Join(results[0], "\n"), strings.Join(results[i], "\n"))
		}
	}
}

// TestSampleFlows checks the flow records against how pcaps/gen built the capture.
func TestSampleFlows(t *testing.T) {
	get := getPath
	r := runMeerkat(t, "-c", "suricata.yaml", "-S", "rules/meerkat.rules", "-r", "pcaps/sample.pcap", "--runmode", "single")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// Every bundled rule loads and alerts (sid 1000001 on the HTTP request's http.method and
	// http.uri, sid 1000004 on the two DNS queries' dns.query).
	for _, want := range []string{"1 rule files processed. 7 rules successfully loaded, 0 rules failed", "alerts: 9\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	var sids []string
	for _, a := range ofType(r.eve, "alert") {
		if sid, ok := get(a, "alert.signature_id").(float64); ok {
			sids = append(sids, fmt.Sprint(int(sid)))
		}
	}
	// sid 1000005 (content with depth: a packet and a stream rule, SigConsolidateTcpBuffer)
	// alerts on the SSH banner packet and again on the stream at flow end: Suricata has no
	// packet-vs-stream dedup (suricata-stream-http.md §2.4).
	slices.Sort(sids)
	if strings.Join(sids, ",") != "1000001,1000002,1000003,1000004,1000004,1000005,1000005,1000006,1000007" {
		t.Errorf("alerts for sids %v, want 1000001,1000002,1000003,1000004,1000004,1000005,1000005,1000006,1000007", sids)
	}
	flows := ofType(r.eve, "flow")
	if len(flows) != 7 {
		t.Fatalf("%d flow records, want 7", len(flows))
	}
	byPort := map[float64]map[string]any{}
	for _, f := range flows {
		if p, ok := f["dest_port"].(float64); ok {
			byPort[p] = f
		}
	}
	checks := []struct {
		port float64
		path string
		want any
	}{
		{80, "flow.pkts_toserver", 6.0}, {80, "flow.pkts_toclient", 4.0}, {80, "flow.state", "closed"},
		{80, "tcp.state", "closed"}, {80, "src_ip", "192.168.1.10"}, {80, "flow.reason", "timeout"},
		{22, "tcp.state", "closed"}, {22, "src_ip", "2001:0db8:0000:0000:0000:0000:0000:0010"}, {22, "ip_v", 6.0},
		{9999, "flow.bytes_toserver", 1228.0}, {8080, "tcp.state", "established"},
		{8080, "flow.state", "established"},
	}
	for _, c := range checks {
		rec := byPort[c.port]
		if rec == nil {
			t.Errorf("no flow to port %v", c.port)
			continue
		}
		if got := get(rec, c.path); got != c.want {
			t.Errorf("port %v %s = %v, want %v", c.port, c.path, got, c.want)
		}
	}
	if v := get(byPort[8080], "vlan"); fmt.Sprint(v) != "[100]" {
		t.Errorf("vlan flow vlan = %v", v)
	}
	// The last DNS query comes 30 minutes later: it is the only flow left at shutdown.
	shutdown := 0
	for _, f := range flows {
		if get(f, "flow.reason") == "shutdown" {
			shutdown++
		}
	}
	if shutdown != 1 {
		t.Errorf("%d flows ended by shutdown, want 1", shutdown)
	}
	stats := ofType(r.eve, "stats")
	if len(stats) != 1 {
		t.Fatalf("%d stats records", len(stats))
	}
	if e, ok := get(stats[0], "stats.detect.engines").([]any); !ok || len(e) != 1 || e[0].(map[string]any)["rules_loaded"] != 7.0 ||
		e[0].(map[string]any)["rules_failed"] != 0.0 {
		t.Errorf("stats.detect.engines = %v, want one engine with 7 rules loaded, 0 failed", get(stats[0], "stats.detect.engines"))
	}
	if got := get(stats[0], "stats.detect.alert"); got != 9.0 {
		t.Errorf("stats.detect.alert = %v, want 9", got)
	}
	for path, want := range map[string]float64{"stats.decoder.ipv6": 5, "stats.defrag.ipv4.reassembled": 1,
		"stats.flow.total": 7, "stats.flow.tcp": 3, "stats.decoder.vlan": 5} {
		if got := get(stats[0], path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
}

func TestStartupErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("%YAML 1.1\n---\nvars:\n  address-groups: [\n"), 0o644)
	notPcap := filepath.Join(dir, "notes.txt")
	os.WriteFile(notPcap, []byte("this is not a capture file at all\n"), 0o644)
	fwOff := filepath.Join(dir, "fw-off.yaml")
	os.WriteFile(fwOff, []byte("%YAML 1.1\n---\nfirewall:\n  enabled: no\n"), 0o644)
	badPolicy := filepath.Join(dir, "bad-policy.yaml")
	os.WriteFile(badPolicy, []byte("%YAML 1.1\n---\nfirewall:\n  policies:\n    packet-filter: [\"alert\"]\n"), 0o644)
	noScope := filepath.Join(dir, "noscope.rules")
	os.WriteFile(noScope, []byte("accept:hook tcp:all any any -> any 80 (sid:1;)\naccept tcp:all any any -> any any (sid:2;)\n"), 0o644)
	appHook := filepath.Join(dir, "apphook.rules")
	// A hook of a protocol without a parser yet (TLS) is refused; HTTP/1 hooks load.
	os.WriteFile(appHook, []byte("accept:hook snmp:request_complete any any -> any any (sid:3;)\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--frobnicate"}, "Usage: meerkat"},
		{"missing config", []string{"-c", filepath.Join(dir, "nope.yaml"), "-r", "pcaps/sample.pcap"}, "nope.yaml"},
		{"malformed config", []string{"-c", bad, "-r", "pcaps/sample.pcap"}, "bad.yaml:"},
		{"not a capture", []string{"-r", notPcap}, "notes.txt"},
		{"missing capture", []string{"-r", filepath.Join(dir, "none.pcap")}, "none.pcap"},
		{"bad runmode", []string{"-r", "pcaps/sample.pcap", "--runmode", "turbo"}, "unknown runmode"},
		{"bad set", []string{"-r", "pcaps/sample.pcap", "--set", "novalue"}, "--set novalue"},
		{"firewall rule file missing", []string{"-r", "pcaps/sample.pcap", "--firewall-rules-exclusive=x.rules"}, "firewall rule file x.rules did not load"},
		{"firewall flag with enabled: no", []string{"-c", fwOff, "-r", "pcaps/sample.pcap", "--firewall"}, "firewall mode enabled through commandline, but disabled in config"},
		{"bad firewall policy", []string{"-c", badPolicy, "-r", "pcaps/sample.pcap", "--firewall"}, "firewall.policies packet-filter"},
		{"firewall rule without scope is fatal", []string{"-r", "pcaps/sample.pcap", "--firewall-rules-exclusive", noScope}, "explicit action scope"},
		{"firewall app-layer hook without parser refused", []string{"-r", "pcaps/sample.pcap", "--firewall-rules-exclusive", appHook}, "app-layer hook snmp:request_complete is not supported yet"},
		{"rules with detection disabled", []string{"-r", "pcaps/sample.pcap", "-S", "rules/meerkat.rules", "--disable-detection"}, "can't use -s/-S or --firewall-rules-exclusive when detection is disabled"},
		{"nfqueue not yet", []string{"-q", "0"}, "NFQUEUE capture (-q 0) is not implemented yet"},
		{"nfqueue and a capture", []string{"-q", "0", "-r", "pcaps/sample.pcap"}, "more than one run mode has been specified"},
		{"unknown keyword listed", []string{"--list-keywords=nosuchkeyword"}, "unknown keyword"},
		{"missing rules fatal", []string{"-r", "pcaps/sample.pcap", "-S", "no-such.rules", "--init-errors-fatal"}, "no-such.rules"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runMeerkat(t, tc.args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, r.stderr)
			}
		})
	}
}

func TestVerbose(t *testing.T) {
	r := runMeerkat(t, "-vv", "-c", "suricata.yaml", "-S", "rules/meerkat.rules", "-r", "pcaps/sample.pcap", "--runmode", "single")
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("the bundled configuration warns:\n%s", r.stderr)
	}
	for _, want := range []string{"info: configuration: suricata.yaml", "runmode single (1 worker(s))", "checksums: TCP",
		"info: rule groups: tcp toserver: ", "info: rule groups: other toclient: "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-vv output lacks %q:\n%s", want, r.stderr)
		}
	}
	quiet := runMeerkat(t, "-c", "suricata.yaml", "-r", "pcaps/sample.pcap", "--runmode", "single")
	if strings.Contains(quiet.stderr, "info:") {
		t.Errorf("info lines without -v:\n%s", quiet.stderr)
	}
}

func TestInfoCommands(t *testing.T) {
	for _, args := range [][]string{{"-V"}, {"--build-info"}, {"-c", "suricata.yaml", "--dump-config"}, {"-c", "suricata.yaml", "-T"}} {
		cmd := exec.Command(binPath, args...)
		cmd.Dir = repoRoot
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
		if len(out) == 0 {
			t.Errorf("%v printed nothing", args)
		}
	}
}

func TestTruncatedCaptureKeepsWork(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "pcaps/sample.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	os.WriteFile(cut, data[:len(data)-40], 0o644)
	r := runMeerkat(t, "-c", "suricata.yaml", "-r", cut, "--runmode", "single")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "truncated") || !strings.Contains(r.stderr, "packets: 27\n") {
		t.Errorf("want a truncation warning and 27 packets:\n%s", r.stderr)
	}
	if len(ofType(r.eve, "flow")) == 0 {
		t.Errorf("no flow records after a truncated capture")
	}
	// In a directory, a truncated capture is a warning and the next capture is read.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a-cut.pcap"), data[:len(data)-40], 0o644)
	os.WriteFile(filepath.Join(dir, "b-whole.pcap"), data, 0o644)
	r = runMeerkat(t, "-c", "suricata.yaml", "-r", dir, "--runmode", "single")
	if r.code != 0 || !strings.Contains(r.stderr, "truncated") || !strings.Contains(r.stderr, "packets: 55\n") {
		t.Errorf("directory with a truncated capture first: exit %d, want a warning and 27+28 packets:\n%s", r.code, r.stderr)
	}
}

// TestSignalFlushesEverything stops a long replay with SIGTERM and checks that the logs hold
// only complete lines and the final stats record.
func TestSignalFlushesEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 40 MB capture")
	}
	dir := t.TempDir()
	pcap := filepath.Join(dir, "bulk.pcap")
	gen := exec.Command("go", "run", "./pcaps/gen", "-flows", "20000", pcap)
	gen.Dir = repoRoot
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		logDir := t.TempDir()
		cmd := exec.Command(binPath, "-c", "suricata.yaml", "-r", pcap, "-l", logDir, "--runmode", "workers")
		cmd.Dir = repoRoot
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		stopped := strings.Contains(stderr.String(), "stopped by signal")
		var ee *exec.ExitError
		switch {
		case stopped && (!errors.As(err, &ee) || ee.ExitCode() != 128+int(sig)):
			t.Errorf("%v: stopped by the signal: %v, want exit status %d\n%s", sig, err, 128+int(sig), stderr.String())
		case !stopped && err != nil:
			t.Fatalf("%v: %v\n%s", sig, err, stderr.String())
		}
		_, recs := readEVE(t, filepath.Join(logDir, "eve.json"))
		if len(ofType(recs, "stats")) != 1 {
			t.Errorf("%v: want the final stats record", sig)
		}
		if !stopped {
			t.Logf("%v: the replay finished before the signal arrived; only the flush was checked", sig)
		}
		m := regexp.MustCompile(`packets: (\d+)`).FindStringSubmatch(stderr.String())
		if m == nil {
			t.Errorf("%v: no summary:\n%s", sig, stderr.String())
		}
	}
}

// TestRuleLoading checks rule errors, counts, -T, --init-errors-fatal and --engine-analysis.
func TestRuleLoading(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "mixed.rules")
	os.WriteFile(bad, []byte(`alert tcp any any -> any any (msg:"good"; content:"abc"; sid:1; rev:1;)
alert tcp any any -> any any (msg:"bad hex"; content:"|4 41|"; sid:2; rev:1;)
# a comment
alert tcp any any -> any any (msg:"needs 99"; requires: version >= 99; sid:3; rev:1;)
alert udp any any -> any 53 (msg:"dns"; content:"example"; nocase; sid:4; rev:1;)
alert krb5 any any -> any any (msg:"needs the krb5 parser"; krb5.cname; content:"x"; sid:5; rev:1;)
alert tcp any any -> any any (msg:"no sid"; content:"x";)
`), 0o644)
	// -T makes a failed rule fatal, as in Suricata: the errors and counts come first.
	r := runMeerkat(t, "-c", "suricata.yaml", "-S", bad, "-T")
	if r.code != 1 {
		t.Fatalf("-T exit %d, want 1\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"mixed.rules:2: sid 2: content:",
		"mixed.rules:6: sid 5: krb5.cname: keyword krb5.cname is not supported yet",
		"1 rule files processed. 2 rules successfully loaded, 3 rules failed, 1 rules skipped",
		"Loading signatures failed.",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-T output lacks %q:\n%s", want, r.stderr)
		}
	}
	if r := runMeerkat(t, "-c", "suricata.yaml", "-S", bad, "-T", "--init-errors-fatal"); r.code != 1 || !strings.Contains(r.stderr, "--init-errors-fatal") {
		t.Errorf("--init-errors-fatal: exit %d\n%s", r.code, r.stderr)
	}

	logDir := t.TempDir()
	cmd := exec.Command(binPath, "-c", "suricata.yaml", "-S", bad, "--engine-analysis", "-l", logDir)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--engine-analysis: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(logDir, "rules.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("rules.json has %d records, want 2:\n%s", len(lines), data)
	}
	var rec struct {
		ID   uint32 `json:"id"`
		Type string `json:"type"`
		MPM  struct {
			Buffer  string `json:"buffer"`
			Pattern string `json:"pattern"`
			Nocase  bool   `json:"nocase"`
		} `json:"mpm"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ID != 4 || rec.MPM.Buffer != "pkt_data" || rec.MPM.Pattern != "example" || !rec.MPM.Nocase {
		t.Errorf("rules.json record = %+v", rec)
	}

	cmd = exec.Command(binPath, "--list-keywords=all")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "content: ") || strings.Count(string(out), "\n") < 100 {
		t.Errorf("--list-keywords=all: %v, %d lines", err, strings.Count(string(out), "\n"))
	}
}

// getPath returns the value at a dotted path of a decoded EVE record (nil when absent).
func getPath(rec map[string]any, path string) any {
	var v any = rec
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestTaggedPackets: a rule with tag:session tags the packets of its flow that follow the
// alert; with the bundled configuration's tagged-packets: yes they are logged as EVE packet
// records carrying the captured frame.
func TestTaggedPackets(t *testing.T) {
	dir := t.TempDir()
	rf := filepath.Join(dir, "tag.rules")
	os.WriteFile(rf, []byte(`alert tcp any any -> any any (msg:"tagging"; flow:established,to_client; content:"uid=0|28|root|29|"; tag:session,4,packets; sid:1; rev:1;)`+"\n"), 0o644)
	r := runMeerkat(t, "-c", "suricata.yaml", "-S", rf, "-r", "pcaps/sample.pcap", "--runmode", "single")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	alerts := ofType(r.eve, "alert")
	if len(alerts) != 1 {
		t.Fatalf("%d alerts, want 1", len(alerts))
	}
	pkts := ofType(r.eve, "packet")
	if len(pkts) == 0 || len(pkts) > 3 {
		t.Fatalf("%d packet records, want 1 to 3 (a 4-packet tag counts the alerting packet)", len(pkts))
	}
	for _, p := range pkts {
		if p["flow_id"] != alerts[0]["flow_id"] || p["pcap_cnt"].(float64) <= alerts[0]["pcap_cnt"].(float64) {
			t.Errorf("packet record %v does not follow the alert %v in its flow", p, alerts[0])
		}
		raw, err := base64.StdEncoding.DecodeString(p["packet"].(string))
		info, _ := p["packet_info"].(map[string]any)
		if err != nil || len(raw) < 40 || info["linktype_name"] == "" {
			t.Errorf("packet record %v: %v", p, err)
		}
	}
}

// TestPatternCache runs with sgh-mpm-caching on: the first run stores the compiled databases,
// the second reads them back and alerts the same; start-up prunes cache files unused for
// longer than sgh-mpm-caching-max-age and leaves the others.
func TestPatternCache(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, strings.Repeat("ab", 32)+".hsdb")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	month := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(stale, month, month); err != nil {
		t.Fatal(err)
	}
	args := []string{"-c", "suricata.yaml", "-S", "rules/meerkat.rules", "-r", "pcaps/sample.pcap", "--runmode", "single",
		"--set", "detect.sgh-mpm-caching=yes", "--set", "detect.sgh-mpm-caching-path=" + dir}
	first := runMeerkat(t, args...)
	if first.code != 0 {
		t.Fatalf("exit %d: %s", first.code, first.stderr)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a cache file unused for 30 days is still there (err %v)", err)
	}
	stored, _ := filepath.Glob(filepath.Join(dir, "*.hsdb"))
	if len(stored) == 0 {
		t.Fatal("no database was stored in the cache")
	}
	// A warm run reads the databases back and marks them used (modification time) in place; a
	// run that compiled afresh would write new files (a new inode, by rename). Age the files
	// and remember their inodes first.
	old := time.Now().Add(-48 * time.Hour)
	inodes := map[string]uint64{}
	for _, p := range stored {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		inodes[p] = inode(t, p)
	}
	second := runMeerkat(t, args...)
	for _, p := range stored {
		st, err := os.Stat(p)
		if err != nil || st.ModTime().Before(time.Now().Add(-time.Hour)) || inode(t, p) != inodes[p] {
			t.Errorf("%s was not read back by the second run (stat %v)", filepath.Base(p), err)
		}
	}
	if second.code != 0 || len(second.eve) == 0 || countAlerts(second.eve) != countAlerts(first.eve) || countAlerts(first.eve) == 0 {
		t.Errorf("alerts with a warm cache %d, cold %d (exit %d)", countAlerts(second.eve), countAlerts(first.eve), second.code)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "*.hsdb"))
	if len(kept) != len(stored) {
		t.Errorf("cache files %d after the second run, %d after the first", len(kept), len(stored))
	}
}

// inode returns the inode number of path.
func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode numbers on this system")
	}
	return sys.Ino
}

func countAlerts(eve []map[string]any) int {
	n := 0
	for _, e := range eve {
		if e["event_type"] == "alert" {
			n++
		}
	}
	return n
}

// writeFramesPcap writes Ethernet frames as a classic pcap file, one second apart.
func writeFramesPcap(t *testing.T, path string, frames ...[]byte) {
	t.Helper()
	var b bytes.Buffer
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint32(hdr[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 65535)
	binary.LittleEndian.PutUint32(hdr[20:], 1) // Ethernet
	b.Write(hdr)
	for i, f := range frames {
		rec := make([]byte, 16)
		binary.LittleEndian.PutUint32(rec[0:], uint32(1700000000+i))
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(f)))
		binary.LittleEndian.PutUint32(rec[12:], uint32(len(f)))
		b.Write(rec)
		b.Write(f)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ethIPv4UDP is an Ethernet frame holding an IPv4/UDP datagram with the given options; a
// totalLen past the frame makes it truncated.
func ethIPv4UDP(opts []byte, payload string, totalLen int) []byte {
	hlen := 20 + len(opts)
	n := hlen + 8 + len(payload)
	if totalLen == 0 {
		totalLen = n
	}
	f := make([]byte, 14+n)
	copy(f[0:], []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00})
	ip := f[14:]
	ip[0] = 0x40 | byte(hlen/4)
	binary.BigEndian.PutUint16(ip[2:], uint16(totalLen))
	ip[8], ip[9] = 64, 17
	copy(ip[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	copy(ip[20:], opts)
	u := ip[hlen:]
	binary.BigEndian.PutUint16(u[0:], 5000)
	binary.BigEndian.PutUint16(u[2:], 53)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(payload)))
	copy(u[8:], payload)
	return f
}

// TestDecodeEventAlerts replays malformed frames with decoder-event rules written as
// Suricata's own decoder-events.rules are: an event on a datagram whose IP layer decoded, and
// events on frames without a decoded IP layer, alert once each; a rule naming an event of a
// layer Meerkat does not decode is refused by name.
func TestDecodeEventAlerts(t *testing.T) {
	dir := t.TempDir()
	rulesPath := filepath.Join(dir, "events.rules")
	os.WriteFile(rulesPath, []byte(`alert pkthdr any any -> any any (msg:"IPv4 truncated packet"; decode-event:ipv4.trunc_pkt; classtype:protocol-command-decode; sid:2200003; rev:2;)
alert pkthdr any any -> any any (msg:"IPv4 padding required"; decode-event:ipv4.opt_pad_required; classtype:protocol-command-decode; sid:2200007; rev:2;)
alert pkthdr any any -> any any (msg:"Ethernet packet too small"; decode-event:ethernet.pkt_too_small; classtype:protocol-command-decode; sid:2200042; rev:2;)
alert pkthdr any any -> any any (msg:"GRE packet too small"; decode-event:gre.pkt_too_small; classtype:protocol-command-decode; sid:2200010; rev:2;)
`), 0o644)
	pcap := filepath.Join(dir, "events.pcap")
	writeFramesPcap(t, pcap,
		ethIPv4UDP(nil, "clean", 0),
		ethIPv4UDP([]byte{148, 4, 0, 0}, "router alert", 0),
		ethIPv4UDP(nil, "cut", 400),
		make([]byte, 10),
	)
	r := runMeerkat(t, "-c", "suricata.yaml", "-S", rulesPath, "-r", pcap, "-k", "none")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if want := "sid 2200010: decode-event gre.pkt_too_small is not supported yet"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	var got []string
	for _, a := range ofType(r.eve, "alert") {
		cnt, _ := a["pcap_cnt"].(float64)
		sid, _ := getPath(a, "alert.signature_id").(float64)
		got = append(got, fmt.Sprintf("%.0f:%.0f:%v", cnt, sid, a["src_ip"] != nil))
	}
	sort.Strings(got) // workers write in their own order
	// pcap_cnt:sid:has-src_ip. The truncated datagram and the short frame have no IP layer.
	if want := "[2:2200007:true 3:2200003:false 4:2200042:false]"; fmt.Sprint(got) != want {
		t.Errorf("alerts (pcap_cnt:sid:has src_ip) %v, want %s", got, want)
	}
	stats := ofType(r.eve, "stats")
	if len(stats) == 0 {
		t.Fatal("no stats record")
	}
	last := stats[len(stats)-1]
	for path, want := range map[string]float64{
		"stats.decoder.event.ipv4.trunc_pkt":         1,
		"stats.decoder.event.ipv4.opt_pad_required":  1,
		"stats.decoder.event.ethernet.pkt_too_small": 1,
		"stats.detect.alert":                         3,
	} {
		if v, _ := getPath(last, path).(float64); v != want {
			t.Errorf("%s = %v, want %v", path, getPath(last, path), want)
		}
	}
}

// TestPcapChecksumChecks replays 1,200 TCP segments whose checksums are all wrong with a
// tcpv4-csum:invalid rule: as in Suricata, pcap-file.checksum-checks auto (the default) takes
// the capture for one made with checksum offloading at the 1000th frame and ignores checksums
// from there on, "yes" never ignores them, "no" always does, and -k none (no stream checksum
// validation, so no bad checksum is counted) leaves auto undecided while the keyword still
// computes the checksum. capture.checksum-validation stands for -k when -k is not given, and
// -k overrides stream.checksum-validation.
func TestPcapChecksumChecks(t *testing.T) {
	dir := t.TempDir()
	rulesPath := filepath.Join(dir, "csum.rules")
	os.WriteFile(rulesPath, []byte("alert tcp any any -> any any (msg:\"TCPv4 invalid checksum\"; tcpv4-csum:invalid; sid:2200074; rev:2;)\n"), 0o644)
	frame := ethIPv4UDP(nil, "", 0)[:14]
	seg := make([]byte, 40)
	seg[0] = 0x45
	binary.BigEndian.PutUint16(seg[2:], 40)
	seg[8], seg[9] = 64, 6
	copy(seg[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	binary.BigEndian.PutUint16(seg[20:], 1234)
	binary.BigEndian.PutUint16(seg[22:], 80)
	seg[32], seg[33] = 5<<4, 0x10
	binary.BigEndian.PutUint16(seg[36:], 0xbad0) // a wrong TCP checksum
	var frames [][]byte
	for i := 0; i < 1200; i++ {
		frames = append(frames, append(append([]byte(nil), frame...), seg...))
	}
	pcap := filepath.Join(dir, "offload.pcap")
	writeFramesPcap(t, pcap, frames...)
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, 999},
		{[]string{"--set", "pcap-file.checksum-checks=yes"}, 1200},
		{[]string{"--set", "pcap-file.checksum-checks=no"}, 0},
		{[]string{"-k", "none"}, 1200},
		{[]string{"--set", "capture.checksum-validation=none"}, 1200},
		{[]string{"--set", "stream.checksum-validation=no"}, 1200},
		{[]string{"-k", "all", "--set", "stream.checksum-validation=no"}, 999},
	} {
		args := append([]string{"-c", "suricata.yaml", "-S", rulesPath, "-r", pcap}, c.args...)
		r := runMeerkat(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, r.code, r.stderr)
		}
		if got := len(ofType(r.eve, "alert")); got != c.want {
			t.Errorf("%v: %d alerts, want %d", c.args, got, c.want)
		}
	}
}

// TestAppLayerProtocolConfig: app-layer.protocols.<proto>.enabled decides whether rules may
// name a protocol, as in Suricata: the bundled configuration turns dnp3 off like Suricata's
// stock one, turning it on makes the rule parse (the engine then reports that it cannot
// evaluate dnp3 yet, which does not fail -T), and a value that is not a boolean or detection-only stops start-up.
func TestAppLayerProtocolConfig(t *testing.T) {
	dir := t.TempDir()
	rulesPath := filepath.Join(dir, "dnp3.rules")
	os.WriteFile(rulesPath, []byte("alert dnp3 any any -> any any (msg:\"DNP3 flooded\"; app-layer-event:dnp3.flooded; sid:2270000; rev:2;)\n"), 0o644)
	// A rule Suricata refuses fails -T, as in Suricata.
	r := runMeerkat(t, "-c", "suricata.yaml", "-S", rulesPath, "-T")
	if r.code != 1 || !strings.Contains(r.stderr, `protocol "dnp3" cannot be used in a signature`) {
		t.Errorf("stock: exit %d\n%s", r.code, r.stderr)
	}
	r = runMeerkat(t, "-c", "suricata.yaml", "-S", rulesPath, "-T", "--set", "app-layer.protocols.dnp3.enabled=yes")
	if r.code != 0 || strings.Contains(r.stderr, "cannot be used") || !strings.Contains(r.stderr, "app-layer protocol dnp3 is not supported yet") {
		t.Errorf("dnp3 enabled: exit %d\n%s", r.code, r.stderr)
	}
	r = runMeerkat(t, "-c", "suricata.yaml", "-S", rulesPath, "-T", "--set", "app-layer.protocols.dnp3.enabled=sometimes")
	if r.code != 1 || !strings.Contains(r.stderr, "app-layer.protocols.dnp3.enabled: invalid value") {
		t.Errorf("bad value: exit %d\n%s", r.code, r.stderr)
	}
}

// TestEngineAnalysisPrefilter: --engine-analysis says how each loaded rule becomes a candidate,
// and lists the rules evaluated on every packet with the reason they have no witness.
func TestEngineAnalysisPrefilter(t *testing.T) {
	dir := t.TempDir()
	rulesFile := filepath.Join(dir, "p.rules")
	if err := os.WriteFile(rulesFile, []byte(`alert tcp any any -> any 22 (msg:"syn"; flags:S; dsize:0; sid:1;)
alert ip any any -> any any (msg:"no bit"; flowbits:isnotset,x; sid:2;)
alert tcp any any -> any any (msg:"content"; content:"abc"; sid:3;)
alert ip 192.0.2.1 any -> any any (msg:"ip only"; sid:4;)
alert tcp any any -> any 80 (msg:"weak"; tos:!8; sid:5;)
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "-c", "suricata.yaml", "-S", rulesFile, "--engine-analysis", "-l", dir)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--engine-analysis: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "rules.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint32]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			ID        uint32 `json:"id"`
			Prefilter struct {
				Engine, Witness, Reason string
			} `json:"prefilter"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		got[rec.ID] = rec.Prefilter.Engine + "/" + rec.Prefilter.Witness
		if rec.Prefilter.Engine == "every packet" && rec.Prefilter.Reason == "" {
			t.Errorf("sid %d is evaluated on every packet without a reason", rec.ID)
		}
	}
	// sid 1: flags:S admits fewer packets than dsize:0 (most packets are ACKs, a third carry no
	// payload); sid 2: isnotset holds on every flow without the bit; sid 5: tos:!8 admits nearly
	// every packet.
	want := map[uint32]string{1: "witness/tcp.flags", 2: "every packet/", 3: "mpm/", 4: "ip-only/", 5: "every packet/"}
	for sid, w := range want {
		if got[sid] != w {
			t.Errorf("sid %d: %q, want %q", sid, got[sid], w)
		}
	}
}

// TestAppLayerBadConfig: a bad app-layer value stops start-up with the key named, and -T
// checks the app-layer section as a run reads it.
func TestAppLayerBadConfig(t *testing.T) {
	for _, c := range []struct{ set, want string }{
		{"app-layer.protocols.http.libhtp.default-config.personality=Bogus", `app-layer.protocols.http.libhtp.default-config.personality: invalid value "Bogus"`},
		{"app-layer.error-policy=sometimes", `app-layer.error-policy: "sometimes" is not an exception policy`},
		{"app-layer.protocols.http.detection-ports.dp=notaport", "app-layer.protocols.http.detection-ports.dp:"},
	} {
		r := runMeerkat(t, "-c", "suricata.yaml", "-S", "/dev/null", "-T", "--set", c.set)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr lacks %q:\n%s", c.set, r.code, c.want, r.stderr)
		}
	}
}
