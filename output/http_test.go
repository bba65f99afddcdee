package output

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

var updateGolden = flag.Bool("update", false, "rewrite output/testdata golden files")

// parseHTTP runs request and response bytes through the HTTP/1 parser (built-in defaults,
// no randomisation) and returns the state; the transactions are real parser output.
func parseHTTP(t testing.TB, request, response string) *htp.State {
	t.Helper()
	c := htp.DefaultConfig()
	c.Randomize = false
	st := htp.NewPool(&htp.Settings{Default: &c}).NewState(applayer.FlowInfo{})
	for _, part := range []struct {
		dir  flow.Direction
		data string
	}{{flow.ToServer, request}, {flow.ToClient, response}} {
		data := []byte(part.data)
		for len(data) > 0 {
			r := st.Parse(part.dir, data, 0)
			if r.Err != nil {
				t.Fatalf("parse: %v", r.Err)
			}
			if r.Consumed == 0 {
				break
			}
			data = data[r.Consumed:]
		}
	}
	return st
}

func httpTx(t testing.TB, st *htp.State, i int) *htp.Tx {
	t.Helper()
	if st.TxCount() <= i {
		t.Fatalf("%d transactions, want more than %d", st.TxCount(), i)
	}
	return st.Tx(i)
}

// httpPacket is a to_client packet of the flow 192.168.2.3:37010 -> 208.69.36.231:80 (the
// tuple of SV bug-78-uricontent).
func httpPacket(dir flow.Direction) (*decode.Packet, *flow.Flow) {
	cli, srv := netip.MustParseAddr("192.168.2.3"), netip.MustParseAddr("208.69.36.231")
	p := &decode.Packet{
		Timestamp: time.Date(2009, 10, 16, 16, 44, 16, 185868000, time.UTC),
		PcapCnt:   9, IPVersion: 4, IPProto: decode.ProtoTCP, HasL4: true,
		SrcIP: cli, DstIP: srv, SrcPort: 37010, DstPort: 80,
	}
	if dir == flow.ToClient {
		p.SrcIP, p.DstIP, p.SrcPort, p.DstPort = srv, cli, 80, 37010
	}
	f := &flow.Flow{SrcIP: cli, DstIP: srv, SrcPort: 37010, DstPort: 80, Proto: decode.ProtoTCP, IPv: 4}
	return p, f
}

// bug78Request and bug78Response follow SV bug-78-uricontent's transaction: its test.yaml
// expects hostname www.google.com, url /blah/, http_user_agent Wget/1.11.4, http_method GET,
// protocol HTTP/1.0, status 404, http_content_type text/html, length 1194.
const bug78Request = "GET /blah/ HTTP/1.0\r\nUser-Agent: Wget/1.11.4\r\nAccept: */*\r\nHost: www.google.com\r\nConnection: Keep-Alive\r\n\r\n"

func bug78Response() string {
	return "HTTP/1.0 404 Not Found\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: 1194\r\n\r\n" +
		strings.Repeat("x", 1194)
}

func TestHTTPRecordBug78Fields(t *testing.T) {
	st := parseHTTP(t, bug78Request, bug78Response())
	tx := httpTx(t, st, 0)
	p, f := httpPacket(flow.ToClient)
	var j JSON
	HTTPRecord(&j, p, f, flow.ToClient, tx, &HTTPOptions{Extended: true})
	var rec map[string]any
	if err := json.Unmarshal(j.B, &rec); err != nil {
		t.Fatalf("%v: %s", err, j.B)
	}
	// Flow direction: the client is src even on a to_client packet (§6.1).
	if rec["src_ip"] != "192.168.2.3" || rec["src_port"] != 37010.0 || rec["dest_port"] != 80.0 {
		t.Errorf("addresses: %s", j.B)
	}
	h := rec["http"].(map[string]any)
	want := map[string]any{"hostname": "www.google.com", "url": "/blah/", "http_user_agent": "Wget/1.11.4",
		"http_content_type": "text/html", "http_method": "GET", "protocol": "HTTP/1.0", "status": 404.0, "length": 1194.0}
	for k, v := range want {
		if h[k] != v {
			t.Errorf("http.%s = %v, want %v", k, h[k], v)
		}
	}
	if _, ok := h["http_port"]; ok {
		t.Errorf("http_port without a port in Host: %s", j.B)
	}
}

// TestHTTPRecordKeyOrder checks the key order of §6.2 (EveHttpLogJSONBasic then
// EveHttpLogJSONExtended) and the header's (§6.1), on a tx that has every field.
func TestHTTPRecordKeyOrder(t *testing.T) {
	req := "GET http://example.com:8080/a?b HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: UA\r\n" +
		"X-Forwarded-For: 10.0.0.1, 10.0.0.2\r\nReferer: http://r/\r\n\r\n"
	resp := "HTTP/1.1 206 Partial\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-3/10\r\n" +
		"Location: /x\r\nContent-Length: 4\r\n\r\nabcd"
	st := parseHTTP(t, req, resp)
	p, f := httpPacket(flow.ToServer)
	var j JSON
	HTTPRecord(&j, p, f, flow.ToServer, httpTx(t, st, 0), &HTTPOptions{Extended: true})
	order := []string{`"timestamp"`, `"flow_id"`, `"pcap_cnt"`, `"event_type":"http"`, `"src_ip"`, `"src_port"`,
		`"dest_ip"`, `"dest_port"`, `"proto"`, `"ip_v"`, `"pkt_src"`, `"tx_id":0`, `"http":{`, `"hostname"`, `"http_port":8080`,
		`"url":"http://example.com:8080/a?b"`, `"http_user_agent"`, `"xff":"10.0.0.1, 10.0.0.2"`,
		`"http_content_type":"text/plain"`, `"content_range":{"raw":"bytes 0-3/10","start":0,"end":3,"size":10}`,
		`"http_refer":"http://r/"`, `"http_method":"GET"`, `"protocol":"HTTP/1.1"`, `"status":206`, `"redirect":"/x"`, `"length":4`}
	checkOrder(t, j.B, order)
	if !json.Valid(j.B) {
		t.Fatalf("invalid JSON: %s", j.B)
	}
}

func checkOrder(t *testing.T, b []byte, order []string) {
	t.Helper()
	at := 0
	for _, k := range order {
		i := bytes.Index(b[at:], []byte(k))
		if i < 0 {
			t.Fatalf("%s missing or out of order after offset %d in %s", k, at, b)
		}
		at += i + len(k)
	}
}

// TestHTTPStatusString follows SV http1-noint-status: a status that is not a number in
// 100..999 is logged as status_string.
func TestHTTPStatusString(t *testing.T) {
	st := parseHTTP(t, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "HTTP/1.1 2XX OK\r\nContent-Length: 0\r\n\r\n")
	p, f := httpPacket(flow.ToClient)
	var j JSON
	HTTPRecord(&j, p, f, flow.ToClient, httpTx(t, st, 0), &HTTPOptions{Extended: true})
	if !bytes.Contains(j.B, []byte(`"status_string":"2XX"`)) || bytes.Contains(j.B, []byte(`"status":`)) {
		t.Errorf("%s", j.B)
	}
}

func TestHTTPDumpAllHeadersAndCustom(t *testing.T) {
	req := "GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\nReferer: r\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nServer: s\r\nContent-Length: 0\r\n\r\n"
	st := parseHTTP(t, req, resp)
	tx := httpTx(t, st, 0)
	p, f := httpPacket(flow.ToServer)
	var j JSON
	rq, rs := ParseDumpAllHeaders("both")
	HTTPRecord(&j, p, f, flow.ToServer, tx, &HTTPOptions{Extended: true, RequestHeaders: rq, ResponseHeaders: rs})
	checkOrder(t, j.B, []string{`"length":0`, `"request_headers":[{"name":"Host","value":"a"},{"name":"Accept","value":"*/*"},{"name":"Referer","value":"r"}]`,
		`"response_headers":[{"name":"Server","value":"s"},{"name":"Content-Length","value":"0"}]`})

	// custom: only the listed fields; referer is left out with extended on (it is already
	// http_refer), an empty array is left out.
	var custom uint64
	for _, n := range []string{"accept", "Referer", "server", "no_such_field"} {
		if b, ok := HTTPCustomField(n); ok {
			custom |= b
		}
	}
	HTTPRecord(&j, p, f, flow.ToServer, tx, &HTTPOptions{Extended: true, Custom: custom})
	checkOrder(t, j.B, []string{`"request_headers":[{"name":"Accept","value":"*/*"}]`, `"response_headers":[{"name":"Server","value":"s"}]`})
	HTTPRecord(&j, p, f, flow.ToServer, tx, &HTTPOptions{Extended: false, Custom: custom})
	checkOrder(t, j.B, []string{`"request_headers":[{"name":"Accept","value":"*/*"},{"name":"Referer","value":"r"}]`})
	b, _ := HTTPCustomField("upgrade")
	HTTPRecord(&j, p, f, flow.ToServer, tx, &HTTPOptions{Custom: b})
	if bytes.Contains(j.B, []byte("_headers")) {
		t.Errorf("empty header arrays logged: %s", j.B)
	}
}

// TestXFFModes follows src/app-layer-htp-xff.c's ParseXFFString unit tests (XFFTest01-09) and
// SV http-xff-eve-forward-extra-data / http-xff-eve-reverse-overwrite.
func TestXFFModes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1.2.3.4:5678", "1.2.3.4"}, {"[12::34]:1234", "12::34"},
		{"[2a03:2880:1010:3f02:face:b00c:0:2]:80", "2a03:2880:1010:3f02:face:b00c:0:2"},
		{"[2a03:2880:1010:3f02:face:b00c:0:2]", "2a03:2880:1010:3f02:face:b00c:0:2"},
		{"[::ffff:1.2.3.4]:1234", "::ffff:1.2.3.4"}, {"12::34", "12::34"}, {"1.2.3.4", "1.2.3.4"},
		{"[1.2.3.4:1234", ""}, {"999.999.999.999:1234", ""},
	} {
		got, ok := parseXFF([]byte(tc.in))
		if string(got) != tc.want || ok != (tc.want != "") {
			t.Errorf("parseXFF(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	st := parseHTTP(t, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.1.1.1, 10.2.2.2, 10.3.3.3\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	tx := httpTx(t, st, 0)
	fwd := ParseXFFConfig(true, "extra-data", "forward", "")
	rev := ParseXFFConfig(true, "overwrite", "reverse", "")
	if ip, _ := XFFIP(&fwd, tx); string(ip) != "10.1.1.1" {
		t.Errorf("forward: %q", ip)
	}
	if ip, _ := XFFIP(&rev, tx); string(ip) != "10.3.3.3" {
		t.Errorf("reverse: %q", ip)
	}
	other := ParseXFFConfig(true, "", "", "X-Real-IP")
	if _, ok := XFFIP(&other, tx); ok {
		t.Error("address from a header the request does not have")
	}
	p, f := httpPacket(flow.ToClient)
	var j JSON
	HTTPRecord(&j, p, f, flow.ToClient, tx, &HTTPOptions{XFF: fwd})
	checkOrder(t, j.B, []string{`"http":{`, `"xff":"10.1.1.1, 10.2.2.2, 10.3.3.3"`, `},"xff":"10.1.1.1"}`})
	// overwrite on a to_client packet: dest_ip is added again after the http object, as
	// JsonHttpLogger appends it; a JSON reader takes the last one.
	HTTPRecord(&j, p, f, flow.ToClient, tx, &HTTPOptions{XFF: rev})
	var rec map[string]any
	if err := json.Unmarshal(j.B, &rec); err != nil || rec["dest_ip"] != "10.3.3.3" || rec["src_ip"] != "192.168.2.3" {
		t.Errorf("overwrite: %v %s", err, j.B)
	}

	// Alerts: extra-data goes into the alert object, overwrite replaces the header's and the
	// flow object's address (AlertJson).
	app := &AlertApp{Flow: &applayer.FlowApp{Proto: applayer.ProtoHTTP1, State: st}, HasTx: true, TxID: 0, Tx: tx}
	a := &Alert{SID: 1, TxID: -1}
	AlertRecordApp(&j, p, f, flow.ToClient, a, AlertOptions{Flow: true, XFF: fwd}, nil, nil, app)
	checkOrder(t, j.B, []string{`"alert":{`, `"xff":"10.1.1.1"}`})
	AlertRecordApp(&j, p, f, flow.ToClient, a, AlertOptions{Flow: true, XFF: rev}, nil, nil, app)
	checkOrder(t, j.B, []string{`"src_ip":"208.69.36.231"`, `"dest_ip":"10.3.3.3"`, `"flow":{`, `"src_ip":"10.3.3.3"`, `"dest_ip":"208.69.36.231"`})
	if bytes.Contains(j.B, []byte(`"xff":"10.3.3.3"`)) {
		t.Errorf("overwrite also logged xff: %s", j.B)
	}
}

// TestAlertAppLayer checks the alert record's order (§6.3): tx_id, tx_guessed, alert, then
// ts_progress, tc_progress, http, files, app_proto, direction, flow.
func TestAlertAppLayer(t *testing.T) {
	st := parseHTTP(t, bug78Request, bug78Response())
	tx := httpTx(t, st, 0)
	p, f := httpPacket(flow.ToClient)
	fa := &applayer.FlowApp{Proto: applayer.ProtoHTTP1, ProtoDir: [2]applayer.Proto{applayer.ProtoHTTP1, applayer.ProtoHTTP1},
		Parser: htp.Parser, State: st}
	app := &AlertApp{Flow: fa, HasTx: true, Guessed: true, TxID: 0, Tx: tx}
	var j JSON
	opt := AlertOptions{Metadata: true, Flow: true, AppLayer: true}
	AlertRecordApp(&j, p, f, flow.ToClient, &Alert{SID: 100, Msg: "msg escape tests", TxID: -1}, opt, nil, nil, app)
	checkOrder(t, j.B, []string{`"pkt_src"`, `"tx_id":0`, `"tx_guessed":true`, `"alert":{`,
		`"ts_progress":"request_complete"`, `"tc_progress":"response_complete"`, `"http":{"hostname":"www.google.com"`,
		`"length":1194}`, `"app_proto":"http"`, `"direction":"to_client"`, `"flow":{`})
	if !json.Valid(j.B) {
		t.Fatalf("invalid JSON: %s", j.B)
	}
	// A packet alert on the flow: app_proto only (no tx_id, no http).
	AlertRecordApp(&j, p, f, flow.ToClient, &Alert{SID: 100, TxID: -1}, opt, nil, nil, &AlertApp{Flow: fa})
	if bytes.Contains(j.B, []byte(`"tx_id"`)) || bytes.Contains(j.B, []byte(`"http":{`)) || !bytes.Contains(j.B, []byte(`"app_proto":"http","direction"`)) {
		t.Errorf("packet alert: %s", j.B)
	}
	// metadata app-layer off: no progress, no http object.
	opt.AppLayer = false
	AlertRecordApp(&j, p, f, flow.ToClient, &Alert{SID: 100, TxID: -1}, opt, nil, nil, app)
	if bytes.Contains(j.B, []byte(`"http":{`)) || bytes.Contains(j.B, []byte(`"ts_progress"`)) {
		t.Errorf("app-layer off: %s", j.B)
	}
	// http-body-printable.
	opt.AppLayer, opt.HTTPBodyPrintable = true, true
	AlertRecordApp(&j, p, f, flow.ToClient, &Alert{SID: 100, TxID: -1}, opt, nil, nil, app)
	if !bytes.Contains(j.B, []byte(`"http_response_body_printable":"xxxx`)) {
		t.Errorf("body printable: %s", j.B)
	}
}

// TestAppProtoMembers follows EveAddAppProto and §6.4 / SV dcerpc-request-http-response
// (app_proto dcerpc, app_proto_tc http).
func TestAppProtoMembers(t *testing.T) {
	for _, tc := range []struct {
		app  applayer.FlowApp
		want string
	}{
		{applayer.FlowApp{}, ``},
		{applayer.FlowApp{Proto: applayer.ProtoHTTP1, ProtoDir: [2]applayer.Proto{applayer.ProtoHTTP1, applayer.ProtoHTTP1}}, `"app_proto":"http"`},
		{applayer.FlowApp{Proto: applayer.ProtoDCERPC, ProtoDir: [2]applayer.Proto{applayer.ProtoDCERPC, applayer.ProtoHTTP1}}, `"app_proto":"dcerpc","app_proto_tc":"http"`},
		{applayer.FlowApp{Proto: applayer.ProtoFailed, ProtoDir: [2]applayer.Proto{applayer.ProtoFailed, applayer.ProtoFailed}}, `"app_proto":"failed"`},
		{applayer.FlowApp{Proto: applayer.ProtoHTTP1, ProtoDir: [2]applayer.Proto{applayer.ProtoHTTP1, applayer.ProtoFailed}}, `"app_proto":"http","app_proto_tc":"failed"`},
		{applayer.FlowApp{Proto: applayer.ProtoTLS, ProtoDir: [2]applayer.Proto{applayer.ProtoTLS, applayer.ProtoTLS}, ProtoOrig: applayer.ProtoSMTP, ProtoExpect: applayer.ProtoTLS}, `"app_proto":"tls","app_proto_orig":"smtp"`},
	} {
		var j JSON
		j.Begin()
		AppProto(&j, &tc.app)
		j.End()
		if got := string(j.B); got != "{"+tc.want+"}" {
			t.Errorf("AppProto = %s, want {%s}", got, tc.want)
		}
		_, f := httpPacket(flow.ToServer)
		FlowRecordApp(&j, f, time.Unix(0, 0), &tc.app)
		if !json.Valid(j.B) || tc.want != "" && !bytes.Contains(j.B, []byte(`"proto":"TCP",`+tc.want+`,"flow":{`)) {
			t.Errorf("flow record: %s", j.B)
		}
	}
}

// TestHTTPRecordGolden writes records of parsed transactions and compares them with
// testdata/http/*.json (go test ./output -run Golden -update rewrites them; review the diff).
func TestHTTPRecordGolden(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	cases := []struct {
		name, req, resp string
		opt             HTTPOptions
	}{
		{"bug78", bug78Request, bug78Response(), HTTPOptions{Extended: true}},
		{"basic-only", bug78Request, bug78Response(), HTTPOptions{}},
		{"all-headers", "POST /up HTTP/1.1\r\nHost: h:81\r\nContent-Length: 3\r\nX-Forwarded-For: 1.2.3.4\r\n\r\nabc",
			"HTTP/1.1 302 Found\r\nLocation: /there\r\nContent-Length: 0\r\n\r\n",
			HTTPOptions{Extended: true, RequestHeaders: true, ResponseHeaders: true, XFF: ParseXFFConfig(true, "extra-data", "reverse", "")}},
		{"invalid-utf8", "GET /caf\xe9/\xc3\xa9 HTTP/1.1\r\nHost: a\r\nUser-Agent: \"q\"\\\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
			HTTPOptions{Extended: true}},
	}
	for _, tc := range cases {
		st := parseHTTP(t, tc.req, tc.resp)
		p, f := httpPacket(flow.ToClient)
		var j JSON
		HTTPRecord(&j, p, f, flow.ToClient, httpTx(t, st, 0), &tc.opt)
		got := append(append([]byte(nil), j.B...), '\n')
		path := filepath.Join("testdata", "http", tc.name+".json")
		if *updateGolden {
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, got, 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (-update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.name, got, want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: invalid JSON", tc.name)
		}
	}
}

// TestNoAllocsHTTPRecord checks that writing an http record allocates nothing once the
// buffer has grown.
func TestNoAllocsHTTPRecord(t *testing.T) {
	st := parseHTTP(t, bug78Request, bug78Response())
	tx := httpTx(t, st, 0)
	p, f := httpPacket(flow.ToClient)
	var j JSON
	opt := &HTTPOptions{Extended: true, RequestHeaders: true, ResponseHeaders: true,
		XFF: ParseXFFConfig(true, "extra-data", "forward", "User-Agent")} // any header works
	HTTPRecord(&j, p, f, flow.ToClient, tx, opt)
	if n := testing.AllocsPerRun(100, func() { HTTPRecord(&j, p, f, flow.ToClient, tx, opt) }); n != 0 {
		t.Errorf("HTTPRecord: %v allocations per record", n)
	}
	fa := &applayer.FlowApp{Proto: applayer.ProtoHTTP1, Parser: htp.Parser, State: st}
	app := &AlertApp{Flow: fa, HasTx: true, Tx: tx}
	a := &Alert{SID: 1, TxID: -1}
	aopt := AlertOptions{Metadata: true, Flow: true, AppLayer: true}
	AlertRecordApp(&j, p, f, flow.ToClient, a, aopt, nil, nil, app)
	if n := testing.AllocsPerRun(100, func() { AlertRecordApp(&j, p, f, flow.ToClient, a, aopt, nil, nil, app) }); n != 0 {
		t.Errorf("AlertRecordApp: %v allocations per record", n)
	}
}

func BenchmarkHTTPRecord(b *testing.B) {
	st := parseHTTP(b, bug78Request, bug78Response())
	tx := httpTx(b, st, 0)
	p, f := httpPacket(flow.ToClient)
	var j JSON
	opt := &HTTPOptions{Extended: true}
	b.ReportAllocs()
	for b.Loop() {
		HTTPRecord(&j, p, f, flow.ToClient, tx, opt)
	}
}

// TestInetPton checks the address syntax XFF addresses must have against netip.ParseAddr
// (which accepts what inet_pton accepts, except zones).
func TestInetPton(t *testing.T) {
	for _, s := range []string{"1.2.3.4", "0.0.0.0", "255.255.255.255", "01.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1",
		"1..2.3", "::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::2", "1::2:",
		"::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "12345::1", "g::1", "1:2:3:4:5:6:7::",
		"::1:2:3:4:5:6:7", "1:::2", "", "fe80::1%eth0", "2a03:2880:1010:3f02:face:b00c:0:2", "::1.2.3.4", "1.2.3.4::"} {
		a, err := netip.ParseAddr(s)
		want := err == nil && a.Zone() == ""
		if got := inetPton4([]byte(s)) || inetPton6([]byte(s)); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
}
