package txhttp_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/rules"
)

// TestBase64HTTP: base64_decode in HTTP buffers over the real parser, with the requests and
// rules of the suricata-verify tests named (their captures' requests written out here).
func TestBase64HTTP(t *testing.T) {
	// suricata-verify base64: sids 1 and 2 alert, 3 (10 bytes: "thisisa") and 4 not.
	run(t, []string{
		`alert http any any -> any any (msg:"Example"; content:"arg"; http_uri; base64_decode:bytes 17, offset 1, relative; base64_data; content:"thisisatest"; sid:1; rev:1;)`,
		`alert http any any -> any any (msg:"Example"; content:"arg"; http_uri; base64_decode:bytes 17, offset 1, relative; base64_data; content:"thisisatest"; sid:2; rev:1;)`,
		`alert http any any -> any any (msg:"Example"; content:"arg"; http_uri; base64_decode:bytes 10, offset 1, relative; base64_data; content:"test"; sid:3; rev:1;)`,
		`alert http any any -> any any (msg:"Example"; content:"arg"; http_uri; base64_decode:bytes 17, offset 1, relative; base64_data; content:"toast"; sid:4; rev:1;)`,
	}, []step{
		{ts, "GET /?arg=dGhpc2lzYXRlc3QK HTTP/1.1\r\nHost: home.regit.org\r\nUser-Agent: curl/7.66.0\r\nAccept: */*\r\n\r\n", []string{"1/0", "2/0"}},
	})
	// suricata-verify base64-issue-5223: all four alert (RFC 4648 stops at the '%').
	run(t, []string{
		`alert http any any -> any any (msg:"base64 decode - no url_decode"; flow:established,to_server; http.cookie; content:"foobar="; base64_decode:relative; base64_data; content:"|9e|"; startswith; sid:1; rev:1;)`,
		`alert http any any -> any any (msg:"base64 decode - url_decode"; flow:established,to_server; http.cookie; url_decode; content:"foobar="; base64_decode:relative; base64_data; content:"|9e|"; sid:2; rev:1;)`,
		`alert http any any -> any any (msg:"base64 decode - no url_decode, proves no base64_data buffer via pcre"; flow:established,to_server; http.cookie; content:"foobar="; base64_decode:relative; base64_data; pcre:"/./"; sid:3; rev:1;)`,
		`alert http any any -> any any (msg:"base64 decode - no url_decode grab only the first two bytes"; flow:established,to_server; http.cookie; content:"foobar="; base64_decode:bytes 2,relative; base64_data; content:"|9e|"; startswith; sid:4; rev:1;)`,
	}, []step{
		{ts, "GET / HTTP/1.1\r\nCookie: foobar=np%2BA%2BbSdU3SD33cQXeLxh9gXqjV4t2Q0cOWQ20vCv74%3D\r\nHost: foo.bar\r\n\r\n", []string{"1/0", "2/0", "3/0", "4/0"}},
	})
	// A request body (bug-7842-01's shape, shortened): the decoded buffer starts at offset 0.
	body := "test='AAEAAAD/////AQAAAAAAAAAMAgAAAF9TeXN0ZW0uTWFuYWdlbWVudC5BdXRvbWF0aW9uLCBWZXJzaW9uPTMuMC4wLjAsIEN1bHR1cmU9bmV1dHJhbCwgUHVibGljS2V5VG9rZW49MzFiZjM4NTZhZDM2NGUzNQUBAAAAJVN5c3RlbS5NYW5hZ2VtZW50LkF1dG9tYXRpb24uUFNPYmplY3QBAAAABkNsaVhtbAECAAAABgMAAACDFQ0KPE9ianMgVmVyc2lvbj0iMS4xLjAuMSIgeG1sbnM9Imh0dHA6Ly9zY2hlbWFzLm1pY3Jvc29mdC5jb20vcG93ZXJzaGVsbC8yMDA0LzA0Ij4mI3hEOw0KPE9iaiBSZWZJZD0iMCI+JiN4RDsNCiAgICA8VE4gUmVmSWQ9IjAiPiYjeEQ7DQogICAgICA8VD5NaWNyb3NvZnQuTWFuYWdlbWVudC5JbmZyYXN0cnVjdHVyZS5DaW1JbnN0YW5jZSNTeXN0ZW0uTWFuYWdlbWVudC5BdXRvbWF0aW9uL1J1bnNwYWNlSW52b2tlNTwvVD4mI3hEOw0K'"
	run(t, []string{
		`alert http any any -> any any (flow:established,to_server; http.method; content:"POST"; http.request_body; content:"|27|"; base64_decode:relative; base64_data; content:"|ff ff ff ff|"; within:16; content:".PSObject"; distance:0; content:"|2f|RunspaceInvoke"; sid:2;)`,
		`alert http any any -> any any (flow:established,to_server; http.method; content:"POST"; http.request_body; content:"|27|"; base64_decode:relative; base64_data; content:"|ff 01|"; within:2; content:".PSObject"; distance:0; content:"|2f|RunspaceInvoke"; sid:3;)`,
		`alert http any any -> any any (flow:established,to_server; http.method; content:"POST"; http.request_body; content:"|27|"; base64_decode:relative; base64_data; content:"|00 01 00 00 00 ff ff ff ff|"; depth:9; content:".PSObject"; distance:0; content:"|2f|RunspaceInvoke"; sid:11;)`,
	}, []step{
		{ts, fmt.Sprintf("POST /PSObject_BinaryFormatter_bin HTTP/1.1\r\nHost: 192.168.0.37:4422\r\nContent-Length: %d\r\n\r\n", len(body)), nil},
		{ts, body, []string{"2/0", "11/0"}},
	})
}

// TestBase64ETOpenLoads: the ET Open 2024 rules with base64_decode load, but those of app
// layers without a parser yet (smtp).
func TestBase64ETOpenLoads(t *testing.T) {
	files, _ := filepath.Glob("/work/shared/corpus/rules/et-open-2024-04/*.rules")
	if d := os.Getenv("MEERKAT_SHARED"); d != "" {
		files, _ = filepath.Glob(filepath.Join(d, "corpus", "rules", "et-open-2024-04", "*.rules"))
	}
	if len(files) == 0 {
		t.Skip("ET Open corpus not found (set MEERKAT_SHARED)")
	}
	l := rules.NewLoader(nil)
	for _, f := range files {
		l.LoadFile(f)
	}
	var rs []*rules.Rule
	for _, r := range l.Rules() {
		if r.Buffer("base64_data") != nil {
			rs = append(rs, r)
		}
	}
	e, errs, err := detect.Build(rs, detect.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	loaded := map[uint32]bool{}
	for _, r := range e.Rules() {
		loaded[r.Src.SID] = true
	}
	for _, sid := range []uint32{2031507, 2034366, 2034520, 2043335, 2043336, 2045301, 2045302, 2045303, 2050784, 2051956} {
		if !loaded[sid] {
			t.Errorf("sid %d not loaded", sid)
		}
	}
	for _, be := range errs {
		var m detect.Missing
		if !errors.As(be, &m) || m.Feature() != "app-layer protocol smtp" {
			t.Errorf("unexpected: %v", be)
		}
	}
	if len(rs) != 18 || len(loaded) != 10 {
		t.Errorf("%d rules with base64_data, %d loaded; want 18 and 10", len(rs), len(loaded))
	}
}
