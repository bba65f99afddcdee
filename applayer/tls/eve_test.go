package tls_test

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/output"
)

// TestEVEGolden writes the EVE tls record of the test handshake with the extended field set
// (the shipped suricata.yaml's), with every custom field, and the alert tls object, and
// compares them with testdata/eve/*.json (MEERKAT_UPDATE_GOLDEN=1 rewrites them; review the
// diff). The key order is checked against JsonTlsLogFields' order (reference §2.10).
func TestEVEGolden(t *testing.T) {
	defer tls.EnableJA3ForTest()()
	cli, srv := tls.Handshake12(t)
	s := tls.NewPool(nil).NewState()
	for _, st := range []struct {
		d    applayer.Dir
		data []byte
	}{{flow.ToServer, cli}, {flow.ToClient, srv}} {
		if r := s.Parse(st.d, st.data, 0); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	c, sv := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	p := &decode.Packet{Timestamp: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), PcapCnt: 4, IPVersion: 4,
		IPProto: decode.ProtoTCP, HasL4: true, SrcIP: sv, DstIP: c, SrcPort: 443, DstPort: 51000}
	f := &flow.Flow{SrcIP: c, DstIP: sv, SrcPort: 51000, DstPort: 443, Proto: decode.ProtoTCP, IPv: 4}
	if !output.TLSReady(s, false) {
		t.Fatalf("not ready to log at progress %v", s.TxData().Progress)
	}
	ext, _ := output.TLSOptionsFrom(true, true, nil, "")
	all, unknown := output.TLSOptionsFrom(true, false, []string{"subject", "issuer", "session_resumed", "serial",
		"fingerprint", "sni", "version", "not_before", "not_after", "certificate", "chain", "ja3", "ja3s", "ja4",
		"subjectaltname", "client", "client_certificate", "client_chain", "client_alpns", "server_alpns",
		"client_handshake", "server_handshake", "bogus"}, "no")
	if len(unknown) != 1 || unknown[0] != "bogus" {
		t.Errorf("unknown custom fields %v", unknown)
	}
	var j output.JSON
	cases := map[string]func(){
		"extended": func() { output.TLSRecord(&j, p, f, flow.ToClient, s, &ext, applayer.ProtoUnknown) },
		"custom":   func() { output.TLSRecord(&j, p, f, flow.ToClient, s, &all, applayer.ProtoSMTP) },
		"alert": func() {
			j.Reset()
			j.Begin()
			output.TLSObject(&j, s)
			j.End()
		},
	}
	order := []string{"subject", "issuerdn", "subjectaltname", "session_resumed", "serial", "fingerprint", "sni",
		"version", "notbefore", "notafter", "certificate", "chain", "ja3", "ja3s", "ja4", "client_alpns",
		"server_alpns", "client_handshake", "server_handshake", "client", "from_proto"}
	for name, write := range cases {
		write()
		got := string(j.B) + "\n"
		var m map[string]json.RawMessage
		if err := json.Unmarshal(j.B, &m); err != nil {
			t.Fatalf("%s: invalid JSON %v: %s", name, err, got)
		}
		keys := tlsKeys(t, m["tls"])
		last := -1
		for _, k := range keys {
			i := indexOf(order, k)
			if i < 0 || i < last {
				t.Errorf("%s: key %q out of order in %v", name, k, keys)
			}
			last = i
		}
		path := filepath.Join("testdata", "eve", name+".json")
		if os.Getenv("MEERKAT_UPDATE_GOLDEN") != "" {
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(got), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || string(want) != got {
			t.Errorf("%s differs from %s:\ngot  %s\nwant %s", name, path, got, want)
		}
	}
}

// tlsKeys returns the keys of the tls object in their order.
func tlsKeys(t *testing.T, raw json.RawMessage) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && len(keys)%1 == 0 {
				keys = append(keys, v)
				// skip the value
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return keys
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}
