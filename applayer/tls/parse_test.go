package tls

import (
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// TestPcapFields checks what the parser takes from the conformance pcaps against the values
// their test.yaml expect (suricata-verify tests named per case).
func TestPcapFields(t *testing.T) {
	EnableJA3()
	defer ja3On.Store(false)
	cases := []struct {
		test    string
		sni     string
		version uint16 // the server's version as EVE shows it
		ja3     string
		ja3s    string
		prog    [2]uint8
	}{
		// tls13-draft22: sni localhost, "TLS 1.3 draft-22", ja3 string of test.yaml
		{test: "tls13-draft22", sni: "localhost", version: 0x7f16, ja3: "771,4865-4867,0-43-13-10-40,23,",
			prog: [2]uint8{ClientFinished, ServerFinished}},
		// tls-ja3s: the ja3s string of test.yaml
		{test: "tls-ja3s", ja3s: "771,49199,65281-0-11-16-23", prog: [2]uint8{ClientFinished, ServerFinished}},
		// tls-duplicate-hello: JA3 frozen at the first of two ClientHellos
		{test: "tls-duplicate-hello", ja3: "771,4866-4867-4865-4868-49196-52393-49325-49162-49195-49324-49161-49200-52392-49172-49199-49171-157-49309-53-156-49308-47-159-52394-49311-57-158-49310-51,5-10-11-13-22-23-35-51-43-65281-0-45,23,0"},
	}
	for _, c := range cases {
		t.Run(c.test, func(t *testing.T) {
			states := runPcap(t, nil, testPcap(t, c.test))
			if len(states) == 0 {
				t.Fatal("no connection")
			}
			s := states[0]
			for _, st := range states {
				if st.Flags&FlagStateClientHello != 0 {
					s = st
					break
				}
			}
			if c.sni != "" && string(s.Client.SNI) != c.sni {
				t.Errorf("sni %q, want %q", s.Client.SNI, c.sni)
			}
			if c.version != 0 && s.Server.Version != c.version {
				t.Errorf("server version %#x, want %#x", s.Server.Version, c.version)
			}
			if c.ja3 != "" && string(s.Client.JA3) != c.ja3 {
				t.Errorf("ja3 %q\nwant %q", s.Client.JA3, c.ja3)
			}
			if c.ja3s != "" && string(s.Server.JA3) != c.ja3s {
				t.Errorf("ja3s %q, want %q", s.Server.JA3, c.ja3s)
			}
			if c.prog != [2]uint8{} && s.td.Progress != c.prog {
				t.Errorf("progress %v, want %v", s.td.Progress, c.prog)
			}
			if !s.td.Events.Empty() {
				s.td.Events.Each(func(e uint8) { t.Logf("event %s", EventNames[e]) })
			}
			_ = flow.ToServer
		})
	}
}
