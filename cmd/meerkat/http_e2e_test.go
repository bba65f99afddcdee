package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// The HTTP end-to-end test replays testdata/http/e2e.pcap, written by pcaps/genhttp (go run
// ./pcaps/genhttp -list cmd/meerkat/testdata/http/e2e.pcap prints its packets), with one rule
// per planted string, and checks the alerts and http records against what the capture holds
// and what Suricata 8 logs for it in IDS mode.
//
// Which packet carries an alert (suricata-stream-http.md §2.7, §4.3, §4.4; src/flow-worker.c:
// PacketAppUpdate2FlowFlags, src/detect.c: DetectRun): in IDS mode a direction's bytes reach
// the HTTP parser when the other side ACKs them, so the server's ACK parses the request and
// the client's ACK parses the response. A packet whose ACK had data parsed sets the parsed
// direction "updated" and the packet's own direction "update next"; tx inspection runs on a
// packet only for the packet's direction, and only when that direction was updated. So a
// request-side rule alerts on the first client packet after the server ACKed the bytes it
// needs, and a response-side rule on the first server packet after the client ACKed them;
// alerts carry that packet's pcap_cnt, addresses and direction. The alert's http object shows
// the transaction as parsed when that packet was done with: a request-side alert on the
// client's ACK of the response already has the response's status and length.
//
// The capture, connection by connection (client 10.0.1.N:4100N, server 10.0.0.80:80):
//
//  1. basic, pcap_cnt 1-10: request 4, server ACK 5 (parses it), response 6, client ACK 7
//     (parses it): the request rules alert on 7; FIN 8, the server's FIN 9: the response
//     rule alerts on 9; ACK 10.
//  2. post, 11-19: request with body 14, response 15 (ACK: parses the request), client ACK 16:
//     request rules on 16.
//  3. split, 20-34: request line cut at "GET /PLANTspli" 23, ACK 24 (a tx with an unfinished
//     request line: no URI yet), 25 up to "User-Agent: PLANTspl", ACK 26 (request line and
//     Host parsed, User-Agent unfinished): the URI rule alerts on 27, the rest of the headers;
//     the response's first segment 28 ACKs 27 (the headers are complete): the User-Agent rule
//     alerts on the client's ACK 29, which parses the response headers and the first chunk
//     "PLANTch"; the second segment 30 ("unked03" and the last chunk) is ACKed by 31: the
//     body rule alerts on the server's FIN 33. Libhtp sets the hostname only once the header
//     block is complete (rust/htp/src/transaction.rs: process_request_headers), so the
//     alert on 27 has no hostname, no User-Agent, no status and length 0.
//  4. gzip, 35-43: request 38, gzip response 39, client ACK 40: the body rule alerts on the
//     server's FIN 42.
//  5. pipeline, 44-52: three requests in 47, three responses in 48, client ACK 49: the URI
//     rule alerts three times on 49, tx_id 2, 1, 0 in that order (same rule, higher tx_id
//     first: src/detect-engine-alert.c: AlertQueueSortHelper); the response rules alert on
//     the server's FIN 51 for tx 1 (body) and tx 2 (status 203).
//  6. decoy, 53-62: the planted strings where the rules must not see them: no alert.
//
// EVE length is the response body as transferred (rust/htp/src/response.rs: every byte of
// the chunk-size lines, the data and the CRLF after it, and the "0" line, not the empty line
// that ends the trailer): 12 after "7\r\nPLANTch\r\n", 27 for the whole chunked body; the
// gzip body is 92 bytes on the wire.

// httpE2ERules are the rules of the test: one per planted string, in the buffer that string is
// planted in; the 9x sids are decoys that must never alert.
const httpE2ERules = `alert http any any -> any any (msg:"uri path"; http.uri; content:"PLANTuri01"; sid:1001; rev:1;)
alert http any any -> any any (msg:"uri query"; http.uri; content:"?q=PLANTquery01"; sid:1002; rev:1;)
alert http any any -> any any (msg:"user agent"; http.user_agent; content:"PLANTua01"; sid:1003; rev:1;)
alert http any any -> any any (msg:"host"; http.host; content:"plant-host01.example"; sid:1004; rev:1;)
alert http any any -> any any (msg:"custom header"; http.header; content:"X-Plant|3a 20|PLANThdr01|0d 0a|"; sid:1005; rev:1;)
alert http any any -> any any (msg:"cookie"; http.cookie; content:"PLANTcookie01"; sid:1006; rev:1;)
alert http any any -> any any (msg:"response body with content-length"; file.data; content:"PLANTbody01"; sid:1007; rev:1;)
alert http any any -> any any (msg:"decoy: http.header leaves the Cookie out"; http.header; content:"PLANTcookie01"; sid:1091; rev:1;)
alert http any any -> any any (msg:"normalized uri"; http.uri; content:"/PLANTUenc02/"; sid:2001; rev:1;)
alert http any any -> any any (msg:"raw uri"; http.uri.raw; content:"/PLANT%55enc02/"; sid:2002; rev:1;)
alert http any any -> any any (msg:"legacy http_uri"; content:"PLANTlegacy02"; http_uri; sid:2003; rev:1;)
alert http any any -> any any (msg:"legacy uricontent"; uricontent:"PLANTuric02"; sid:2004; rev:1;)
alert http any any -> any any (msg:"method"; http.method; content:"POST"; sid:2005; rev:1;)
alert http any any -> any any (msg:"request body"; http.request_body; content:"PLANTreqbody02"; sid:2006; rev:1;)
alert http any any -> any any (msg:"legacy http_client_body"; content:"PLANTreqbody02"; http_client_body; sid:2007; rev:1;)
alert http any any -> any any (msg:"decoy: the normalized uri is decoded"; http.uri; content:"PLANT%55enc02"; sid:2091; rev:1;)
alert http any any -> any any (msg:"decoy: the raw uri is not"; http.uri.raw; content:"PLANTUenc02"; sid:2092; rev:1;)
alert http any any -> any any (msg:"uri split over segments"; http.uri; content:"PLANTsplituri03"; sid:3001; rev:1;)
alert http any any -> any any (msg:"user agent split over segments"; http.user_agent; content:"PLANTsplitua03"; sid:3002; rev:1;)
alert http any any -> any any (msg:"chunked response body"; http.response_body; content:"PLANTchunked03"; sid:3003; rev:1;)
alert http any any -> any any (msg:"gzip response body"; file_data; content:"PLANTgzip04"; sid:4001; rev:1;)
alert http any any -> any any (msg:"pipelined uri"; http.uri; content:"/PLANTpipe05-"; sid:5001; rev:1;)
alert http any any -> any any (msg:"pipelined response body"; http.response_body; content:"PLANTpiperesp05-b"; sid:5002; rev:1;)
alert http any any -> any any (msg:"status code"; http.stat_code; content:"203"; sid:5003; rev:1;)
`

// httpE2ERuleCount is the number of rules in httpE2ERules; all must load.
const httpE2ERuleCount = 24

// wantHTTP is an expected http object (alert) or record (event_type http): "" and 0 are
// "absent", except length, which is always there.
type wantHTTP struct {
	hostname    string
	port        int
	url         string
	userAgent   string
	contentType string
	method      string
	protocol    string
	status      int
	length      int
}

// The transactions of the capture, complete, and as they stand at the alerts that see them
// unfinished.
var (
	httpBasic = wantHTTP{hostname: "plant-host01.example", url: "/PLANTuri01/index.html?q=PLANTquery01",
		userAgent: "PLANTua01/1.0", contentType: "text/html", method: "GET", protocol: "HTTP/1.1", status: 200, length: 25}
	httpPost = wantHTTP{hostname: "plant-host02.example", port: 8080, url: "/PLANT%55enc02/submit?x=PLANTlegacy02&y=PLANTuric02",
		userAgent: "meerkat-e2e", method: "POST", protocol: "HTTP/1.1", status: 200, length: 2}
	httpSplitLine = wantHTTP{url: "/PLANTsplituri03/a", method: "GET", protocol: "HTTP/1.1"}
	httpSplitHead = wantHTTP{hostname: "split.example", url: "/PLANTsplituri03/a", userAgent: "PLANTsplitua03",
		contentType: "text/plain", method: "GET", protocol: "HTTP/1.1", status: 200, length: 12}
	httpSplit = wantHTTP{hostname: "split.example", url: "/PLANTsplituri03/a", userAgent: "PLANTsplitua03",
		contentType: "text/plain", method: "GET", protocol: "HTTP/1.1", status: 200, length: 27}
	httpGzip = wantHTTP{hostname: "gzip.example", url: "/gz/data.txt", userAgent: "meerkat-e2e",
		contentType: "text/plain", method: "GET", protocol: "HTTP/1.1", status: 200, length: 92}
	httpPipe = [3]wantHTTP{
		{hostname: "pipe.example", url: "/PLANTpipe05-a", method: "GET", protocol: "HTTP/1.1", status: 200, length: 5},
		{hostname: "pipe.example", url: "/PLANTpipe05-b", method: "GET", protocol: "HTTP/1.1", status: 200, length: 17},
		{hostname: "pipe.example", url: "/PLANTpipe05-c", method: "GET", protocol: "HTTP/1.1", status: 203, length: 5},
	}
	httpDecoy = wantHTTP{hostname: "decoy.example", url: "/decoy/PLANTbody01/PLANTgzip04?PLANThdr01=203&m=POST",
		userAgent: "decoy-agent plant-host01.example PLANTuri01", contentType: "text/plain", method: "PUT",
		protocol: "HTTP/1.1", status: 200, length: 200}
)

// wantAlert is an expected alert: the rule, the transaction, the packet (pcap_cnt, direction),
// the connection (client 10.0.1.conn:4100conn) and the http object.
type wantAlert struct {
	sid, tx, pcapCnt, conn int
	toServer               bool
	http                   wantHTTP
}

// httpE2EAlerts are the alerts of the capture, in the packet order the comment above
// explains.
var httpE2EAlerts = []wantAlert{
	{1001, 0, 7, 1, true, httpBasic},
	{1002, 0, 7, 1, true, httpBasic},
	{1003, 0, 7, 1, true, httpBasic},
	{1004, 0, 7, 1, true, httpBasic},
	{1005, 0, 7, 1, true, httpBasic},
	{1006, 0, 7, 1, true, httpBasic},
	{1007, 0, 9, 1, false, httpBasic},
	{2001, 0, 16, 2, true, httpPost},
	{2002, 0, 16, 2, true, httpPost},
	{2003, 0, 16, 2, true, httpPost},
	{2004, 0, 16, 2, true, httpPost},
	{2005, 0, 16, 2, true, httpPost},
	{2006, 0, 16, 2, true, httpPost},
	{2007, 0, 16, 2, true, httpPost},
	{3001, 0, 27, 3, true, httpSplitLine},
	{3002, 0, 29, 3, true, httpSplitHead},
	{3003, 0, 33, 3, false, httpSplit},
	{4001, 0, 42, 4, false, httpGzip},
	{5001, 2, 49, 5, true, httpPipe[2]},
	{5001, 1, 49, 5, true, httpPipe[1]},
	{5001, 0, 49, 5, true, httpPipe[0]},
	{5002, 1, 51, 5, false, httpPipe[1]},
	{5003, 2, 51, 5, false, httpPipe[2]},
}

// wantRecord is an expected event_type http record: one per transaction, addressed from the
// flow's client (suricata-stream-http.md §6.1).
type wantRecord struct {
	conn, tx int
	http     wantHTTP
}

var httpE2ERecords = []wantRecord{
	{1, 0, httpBasic},
	{2, 0, httpPost},
	{3, 0, httpSplit},
	{4, 0, httpGzip},
	{5, 0, httpPipe[0]},
	{5, 1, httpPipe[1]},
	{5, 2, httpPipe[2]},
	{6, 0, httpDecoy},
}

const httpE2EServer = "10.0.0.80"

func clientIP(conn int) string { return fmt.Sprintf("10.0.1.%d", conn) }
func clientPort(conn int) int  { return 41000 + conn }

// httpE2EConfig is the bundled configuration with EVE alert (with metadata: the http object),
// http (extended, as Suricata ships it) and flow records.
func httpE2EConfig(t *testing.T, dir string) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	yml := filepath.Join(dir, "http-e2e.yaml")
	body := "%YAML 1.1\n---\ninclude: " + filepath.Join(root, "suricata.yaml") + "\n" +
		"outputs:\n  - eve-log:\n      enabled: yes\n      filename: eve.json\n      types:\n" +
		"        - alert:\n            metadata: yes\n        - http:\n            extended: yes\n        - flow\n"
	if err := os.WriteFile(yml, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return yml
}

// TestHTTPEndToEnd: the planted strings give exactly the planted alerts, on the packets
// Suricata alerts on, with the right tx_id, addresses, direction, app_proto and http object,
// and one http record per transaction. It needs the HTTP/1 parser (applayer/http), detection
// over transactions and EVE http output: without them it fails, listing what is missing.
func TestHTTPEndToEnd(t *testing.T) {
	dir := t.TempDir()
	rulesPath := filepath.Join(dir, "http-e2e.rules")
	if err := os.WriteFile(rulesPath, []byte(httpE2ERules), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(httpE2ERules, "\n"); n != httpE2ERuleCount {
		t.Fatalf("httpE2ERules has %d rules, httpE2ERuleCount says %d", n, httpE2ERuleCount)
	}
	r := runMeerkat(t, "-c", httpE2EConfig(t, dir), "-k", "none", "--runmode", "single",
		"-r", "cmd/meerkat/testdata/http/e2e.pcap", "-S", rulesPath)
	if r.code != 0 {
		t.Fatalf("meerkat exited %d:\n%s", r.code, r.stderr)
	}
	loaded := fmt.Sprintf("1 rule files processed. %d rules successfully loaded, 0 rules failed", httpE2ERuleCount)
	if !strings.Contains(r.stderr, loaded) {
		t.Errorf("not every rule loaded (want %q):\n%s", loaded, r.stderr)
	}

	checkHTTPAlerts(t, ofType(r.eve, "alert"))
	checkHTTPRecords(t, ofType(r.eve, "http"))
}

// alertKey identifies an alert as the test compares them.
type alertKey struct {
	sid, tx, pcapCnt int
	src, dst         string
	direction        string
}

func (k alertKey) String() string {
	return fmt.Sprintf("sid %d tx_id %d pcap_cnt %d %s -> %s %s", k.sid, k.tx, k.pcapCnt, k.src, k.dst, k.direction)
}

func (w wantAlert) key() alertKey {
	c, s := fmt.Sprintf("%s:%d", clientIP(w.conn), clientPort(w.conn)), httpE2EServer+":80"
	if w.toServer {
		return alertKey{w.sid, w.tx, w.pcapCnt, c, s, "to_server"}
	}
	return alertKey{w.sid, w.tx, w.pcapCnt, s, c, "to_client"}
}

// num is a JSON number as an int; -1 when absent or not a number.
func num(v any) int {
	f, ok := v.(float64)
	if !ok {
		return -1
	}
	return int(f)
}

func gotKey(a map[string]any) alertKey {
	return alertKey{
		sid: num(getPath(a, "alert.signature_id")), tx: num(a["tx_id"]), pcapCnt: num(a["pcap_cnt"]),
		src:       fmt.Sprintf("%v:%d", a["src_ip"], num(a["src_port"])),
		dst:       fmt.Sprintf("%v:%d", a["dest_ip"], num(a["dest_port"])),
		direction: fmt.Sprint(a["direction"]),
	}
}

func checkHTTPAlerts(t *testing.T, alerts []map[string]any) {
	t.Helper()
	want := map[alertKey]wantAlert{}
	for _, w := range httpE2EAlerts {
		want[w.key()] = w
	}
	got := map[alertKey]map[string]any{}
	var unexpected []string
	for _, a := range alerts {
		k := gotKey(a)
		if _, dup := got[k]; dup {
			unexpected = append(unexpected, "twice: "+k.String())
			continue
		}
		got[k] = a
		if _, ok := want[k]; !ok {
			unexpected = append(unexpected, k.String())
		}
	}
	var missing []string
	for _, w := range httpE2EAlerts {
		if _, ok := got[w.key()]; !ok {
			missing = append(missing, w.key().String())
		}
	}
	sort.Strings(unexpected)
	if len(missing) > 0 || len(unexpected) > 0 {
		t.Errorf("%d alerts, want %d\nmissing (%d):\n  %s\nunexpected (%d):\n  %s", len(alerts), len(httpE2EAlerts),
			len(missing), strings.Join(missing, "\n  "), len(unexpected), strings.Join(unexpected, "\n  "))
	}
	for k, w := range want {
		a := got[k]
		if a == nil {
			continue
		}
		if p := a["app_proto"]; p != "http" {
			t.Errorf("%s: app_proto %v, want http", k, p)
		}
		h, _ := a["http"].(map[string]any)
		if h == nil {
			t.Errorf("%s: no http object", k)
			continue
		}
		for _, d := range diffHTTP(h, w.http) {
			t.Errorf("%s: http %s", k, d)
		}
	}

	// The pipelined rule's three alerts on one packet: higher tx_id first.
	var order []int
	for _, a := range alerts {
		if k := gotKey(a); k.sid == 5001 && k.pcapCnt == 49 {
			order = append(order, k.tx)
		}
	}
	if len(order) == 3 && fmt.Sprint(order) != "[2 1 0]" {
		t.Errorf("sid 5001 on pcap_cnt 49 logged for tx_id %v, want [2 1 0] (same rule: higher tx_id first)", order)
	}
}

// diffHTTP lists how the http object h differs from w.
func diffHTTP(h map[string]any, w wantHTTP) []string {
	var out []string
	str := func(key, want string) {
		v, ok := h[key]
		switch {
		case want == "" && ok:
			out = append(out, fmt.Sprintf("%s %q, want none", key, v))
		case want != "" && v != want:
			out = append(out, fmt.Sprintf("%s %v, want %q", key, v, want))
		}
	}
	integer := func(key string, want int, always bool) {
		v, ok := h[key]
		switch {
		case want == 0 && !always && ok:
			out = append(out, fmt.Sprintf("%s %v, want none", key, v))
		case (want != 0 || always) && num(v) != want:
			out = append(out, fmt.Sprintf("%s %v, want %d", key, v, want))
		}
	}
	str("hostname", w.hostname)
	integer("http_port", w.port, false)
	str("url", w.url)
	str("http_user_agent", w.userAgent)
	str("http_content_type", w.contentType)
	str("http_method", w.method)
	str("protocol", w.protocol)
	integer("status", w.status, false)
	integer("length", w.length, true)
	return out
}

func checkHTTPRecords(t *testing.T, recs []map[string]any) {
	t.Helper()
	type recKey struct {
		client string
		tx     int
	}
	got := map[recKey]map[string]any{}
	for _, r := range recs {
		k := recKey{fmt.Sprintf("%v:%d", r["src_ip"], num(r["src_port"])), num(r["tx_id"])}
		if _, dup := got[k]; dup {
			t.Errorf("two http records for %v tx_id %d", k.client, k.tx)
		}
		got[k] = r
		if d := fmt.Sprintf("%v:%d", r["dest_ip"], num(r["dest_port"])); d != httpE2EServer+":80" {
			t.Errorf("http record for %v tx_id %d: dest %s, want the server %s:80 (the flow's direction)", k.client, k.tx, d, httpE2EServer)
		}
	}
	if len(recs) != len(httpE2ERecords) {
		t.Errorf("%d http records, want %d (one per transaction)", len(recs), len(httpE2ERecords))
	}
	for _, w := range httpE2ERecords {
		k := recKey{fmt.Sprintf("%s:%d", clientIP(w.conn), clientPort(w.conn)), w.tx}
		r := got[k]
		if r == nil {
			t.Errorf("no http record for %s tx_id %d", k.client, w.tx)
			continue
		}
		h, _ := r["http"].(map[string]any)
		if h == nil {
			t.Errorf("http record for %s tx_id %d has no http object", k.client, w.tx)
			continue
		}
		for _, d := range diffHTTP(h, w.http) {
			t.Errorf("http record for %s tx_id %d: %s", k.client, w.tx, d)
		}
	}
}

// TestHTTPEndToEndCaptureCurrent: testdata/http/e2e.pcap is what pcaps/genhttp writes now, so
// that the expectations above, written against the generator, hold for the capture replayed.
// After changing the generator: go run ./pcaps/genhttp cmd/meerkat/testdata/http/e2e.pcap,
// and review the expectations.
func TestHTTPEndToEndCaptureCurrent(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e2e.pcap")
	cmd := exec.Command("go", "run", "./pcaps/genhttp", out)
	cmd.Dir = repoRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./pcaps/genhttp: %v\n%s", err, b)
	}
	gen, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join("testdata", "http", "e2e.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gen, have) {
		t.Errorf("testdata/http/e2e.pcap (%d bytes) differs from what pcaps/genhttp writes (%d bytes): regenerate it and review the expectations", len(have), len(gen))
	}
}

// TestHTTPEndToEndDecoyCarriesStrings: the decoy connection (client port 41006) carries the
// content of every rule that is not itself a decoy, so that the rules' silence on it shows
// they read their own buffer and not just the bytes of the flow.
func TestHTTPEndToEndDecoyCarriesStrings(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "http", "e2e.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var decoy []byte
	for {
		data, _, err := rd.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
		if tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP); ok && (tcp.SrcPort == 41006 || tcp.DstPort == 41006) {
			decoy = append(decoy, tcp.Payload...)
		}
	}
	if len(decoy) == 0 {
		t.Fatal("no decoy connection (port 41006) in the capture")
	}
	content := regexp.MustCompile(`(?:uri)?content:"([^"]*)".*sid:(\d+);`)
	for _, line := range strings.Split(strings.TrimSpace(httpE2ERules), "\n") {
		m := content.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("no content in rule %s", line)
		}
		if m[2][2] == '9' { // 1091, 2091, 2092: decoy rules
			continue
		}
		if s := unescapeContent(t, m[1]); !bytes.Contains(decoy, s) {
			t.Errorf("sid %s: %q is not in the decoy connection", m[2], s)
		}
	}
}

// unescapeContent turns a rule's content string with |hex| parts into bytes.
func unescapeContent(t *testing.T, s string) []byte {
	t.Helper()
	var out []byte
	for i, part := range strings.Split(s, "|") {
		if i%2 == 0 {
			out = append(out, part...)
			continue
		}
		b, err := hex.DecodeString(strings.ReplaceAll(part, " ", ""))
		if err != nil {
			t.Fatalf("content %q: %v", s, err)
		}
		out = append(out, b...)
	}
	return out
}

// TestHTTPEveryTxLogged: a connection with more transactions than max-tx (512, libhtp's
// default) gets an http record for every one of them, with detection and without: the app
// layer frees the transactions that are complete and logged (AppLayerParserTransactionsCleanup
// waits for detection's inspect flags only while detection runs: has_tx_detect_flags is
// !g_detect_disabled), so a long keep-alive
// connection never reaches the limit. 600 pipelined requests, 10 per segment (so that a
// packet's alerts stay within packet-alert-max, 15), each batch answered and ACKed before the
// next; with detection every transaction alerts once.
func TestHTTPEveryTxLogged(t *testing.T) {
	const batches, per = 60, 10
	const c, s = 1000, 5000 // ISNs
	req := "GET /item HTTP/1.1\r\nHost: many.example\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	cs, ss := uint32(c+1), uint32(s+1)
	frames := [][]byte{
		ethIPv4TCP(true, c, 0, tcpSYN, ""),
		ethIPv4TCP(false, s, cs, tcpSYN|tcpACK, ""),
		ethIPv4TCP(true, cs, ss, tcpACK, ""),
	}
	for range batches {
		p := strings.Repeat(req, per)
		frames = append(frames, ethIPv4TCP(true, cs, ss, tcpPSH|tcpACK, p))
		cs += uint32(len(p))
		r := strings.Repeat(resp, per)
		frames = append(frames, ethIPv4TCP(false, ss, cs, tcpPSH|tcpACK, r))
		ss += uint32(len(r))
		frames = append(frames, ethIPv4TCP(true, cs, ss, tcpACK, ""))
	}
	frames = append(frames,
		ethIPv4TCP(true, cs, ss, tcpFIN|tcpACK, ""),
		ethIPv4TCP(false, ss, cs+1, tcpFIN|tcpACK, ""),
		ethIPv4TCP(true, cs+1, ss+1, tcpACK, ""))
	dir := t.TempDir()
	pcap := filepath.Join(dir, "many.pcap")
	writeFramesPcap(t, pcap, frames...)
	rulesPath := filepath.Join(dir, "one.rules")
	if err := os.WriteFile(rulesPath, []byte(`alert http any any -> any any (msg:"item"; http.uri; content:"/item"; sid:1;)`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := httpE2EConfig(t, dir)
	for _, tc := range []struct {
		name   string
		args   []string
		alerts int
	}{
		{"detection", []string{"-S", rulesPath}, batches * per},
		{"--disable-detection", []string{"--disable-detection"}, 0},
	} {
		r := runMeerkat(t, append([]string{"-c", conf, "-k", "none", "--runmode", "single", "-r", pcap}, tc.args...)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d:\n%s", tc.name, r.code, r.stderr)
		}
		recs := ofType(r.eve, "http")
		seen := map[int]bool{}
		for _, rec := range recs {
			seen[num(rec["tx_id"])] = true
		}
		missing := 0
		for id := range batches * per {
			if !seen[id] {
				missing++
			}
		}
		if len(recs) != batches*per || missing > 0 {
			t.Errorf("%s: %d http records, %d of tx_id 0-%d missing; want one per transaction", tc.name, len(recs), missing, batches*per-1)
		}
		if n := len(ofType(r.eve, "alert")); n != tc.alerts {
			t.Errorf("%s: %d alerts, want %d (one per transaction)", tc.name, n, tc.alerts)
		}
	}
}
