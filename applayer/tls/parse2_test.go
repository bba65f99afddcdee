package tls

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestProgressTable walks the transitions of reference §2.5 (enum TlsStateClient/Server,
// SSLDecode's end-of-call handshake-done jump, fatal alerts, application data, EOF).
func TestProgressTable(t *testing.T) {
	cli, srv := handshake12(t)
	shOnly := record(contentHandshake, VersionTLS12, hsMsg(hsServerHello, serverHello(VersionTLS12, nil, 47)))
	ccs := record(contentCCS, VersionTLS12, []byte{1})
	app := record(contentApplication, VersionTLS12, []byte("0123456789"))
	fatal := record(contentAlert, VersionTLS12, []byte{2, 40})
	warnLong := record(contentAlert, VersionTLS12, []byte{1, 0, 0}) // encrypted alert: no change
	type step struct {
		dir  applayer.Dir
		data []byte
		eof  bool
		want [2]uint8
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"client hello", []step{{flow.ToServer, cli, false, [2]uint8{ClientHelloDone, ServerInProgress}}}},
		{"server hello then ccs", []step{
			{flow.ToServer, cli, false, [2]uint8{ClientHelloDone, 0}},
			{flow.ToClient, shOnly, false, [2]uint8{ClientHelloDone, ServerHello}},
			{flow.ToServer, ccs, false, [2]uint8{ClientHandshakeDone, ServerHello}},
			{flow.ToClient, ccs, false, [2]uint8{ClientHandshakeDone, ServerHello}}, // server CCS: no change
			{flow.ToClient, app, false, [2]uint8{ClientHandshakeDone, ServerHandshakeDone}},
		}},
		// the certificate's subject and issuer known: both sides jump (SSLDecode's end)
		{"certificate jump", []step{
			{flow.ToServer, cli, false, [2]uint8{ClientHelloDone, 0}},
			{flow.ToClient, srv, false, [2]uint8{ClientHandshakeDone, ServerHandshakeDone}},
		}},
		{"fatal alert", []step{
			{flow.ToServer, cli, false, [2]uint8{ClientHelloDone, 0}},
			{flow.ToClient, warnLong, false, [2]uint8{ClientHelloDone, 0}},
			{flow.ToClient, fatal, false, [2]uint8{ClientFinished, ServerFinished}},
		}},
		{"eof", []step{
			{flow.ToServer, cli, false, [2]uint8{ClientHelloDone, 0}},
			{flow.ToServer, nil, true, [2]uint8{ClientFinished, 0}},
			{flow.ToClient, nil, true, [2]uint8{ClientFinished, ServerFinished}},
		}},
		// client application data: handshake done on that side only
		{"client app data", []step{
			{flow.ToServer, cat(cli, app), false, [2]uint8{ClientHandshakeDone, 0}},
		}},
	}
	for _, c := range cases {
		s := NewPool(nil).NewState()
		for i, st := range c.steps {
			var fl applayer.Flags
			if st.eof {
				fl = applayer.EOF
			}
			r := s.Parse(st.dir, st.data, fl)
			if r.Err != nil {
				t.Fatalf("%s step %d: %v", c.name, i, r.Err)
			}
			if s.td.Progress != st.want {
				t.Errorf("%s step %d: progress %v, want %v", c.name, i, s.td.Progress, st.want)
			}
		}
	}
}

// TestHelloFields: what the hellos leave for the buffers, EVE and the fingerprints.
func TestHelloFields(t *testing.T) {
	EnableJA3()
	defer ja3On.Store(false)
	cli, srv := handshake12(t)
	s := NewPool(nil).NewState()
	if err := feed(s, flow.ToServer, cli, nil); err != nil {
		t.Fatal(err)
	}
	if err := feed(s, flow.ToClient, srv, nil); err != nil {
		t.Fatal(err)
	}
	if string(s.Client.SNI) != "meerkat.test" {
		t.Errorf("sni %q", s.Client.SNI)
	}
	// JA3: legacy version, GREASE removed from ciphers, extensions and groups (§2.7)
	if want := "771,49195-49199-47,0-10-11-13-16,29-23,0"; string(s.Client.JA3) != want {
		t.Errorf("ja3 %q, want %q", s.Client.JA3, want)
	}
	if want := "771,49199,65281-16"; string(s.Server.JA3) != want {
		t.Errorf("ja3s %q, want %q", s.Server.JA3, want)
	}
	if len(s.Client.Hello.ALPNs) != 2 || string(s.Client.Hello.ALPNs[1]) != "http/1.1" || string(s.Server.Hello.ALPNs[0]) != "h2" {
		t.Errorf("alpns %q / %q", s.Client.Hello.ALPNs, s.Server.Hello.ALPNs)
	}
	if !s.Server.HasCert || len(s.Server.Certs) != 1 || !bytes.Contains(s.Server.Cert.Subject, []byte("CN=meerkat.test")) {
		t.Errorf("cert %v %d %q", s.Server.HasCert, len(s.Server.Certs), s.Server.Cert.Subject)
	}
	if s.Client.Version != VersionTLS12 || s.Server.Version != VersionTLS12 {
		t.Errorf("versions %#x %#x", s.Client.Version, s.Server.Version)
	}
	if r, ok := random(s, flow.ToServer); !ok || r[0] != 0x11 {
		t.Errorf("client random %x %v", r, ok)
	}
	if !s.td.Events.Empty() {
		t.Errorf("events %v", s.td.Events)
	}
}

// TestRandomQuirk: the to-server tls.random exists only once the ServerHello was parsed, the
// to-client one once the ClientHello was (TLS_TS/TC_RANDOM_SET, test tls-random).
func TestRandomQuirk(t *testing.T) {
	cli, _ := handshake12(t)
	s := NewPool(nil).NewState()
	s.Parse(flow.ToServer, cli, 0)
	if _, ok := random(s, flow.ToServer); ok {
		t.Error("to-server random before the ServerHello")
	}
	if r, ok := random(s, flow.ToClient); !ok || r[0] != 0 {
		t.Errorf("to-client random after the ClientHello: %v %x", ok, r)
	}
}

// TestSplitSegmentsAndRecords: the same handshake cut at random places across segments, and a
// ClientHello message cut across two records (hs_buffer), give the state the whole one does.
func TestSplitSegmentsAndRecords(t *testing.T) {
	EnableJA3()
	defer ja3On.Store(false)
	cli, srv := handshake12(t)
	ref := NewPool(nil).NewState()
	feed(ref, flow.ToServer, cli, nil)
	feed(ref, flow.ToClient, srv, nil)
	rng := rand.New(rand.NewPCG(7, 9))
	for i := range 200 {
		var sizes []int
		for range 20 {
			sizes = append(sizes, 1+rng.IntN(40))
		}
		s := NewPool(nil).NewState()
		if err := feed(s, flow.ToServer, cli, sizes); err != nil {
			t.Fatal(err)
		}
		if err := feed(s, flow.ToClient, srv, sizes); err != nil {
			t.Fatal(err)
		}
		if !sameState(s, ref) {
			t.Fatalf("round %d sizes %v: state differs", i, sizes)
		}
	}
	// handshake message across records
	msg := hsMsg(hsClientHello, clientHello(VersionTLS12, nil, []int{0x0a0a, 49195, 49199, 47},
		ext(0x1a1a, nil), sniExt("meerkat.test"), ext(extGroups, list16(0x2a2a, 29, 23)),
		ext(extECPointFormats, []byte{1, 0}), ext(extSigAlgs, list16(1027, 2052)), alpnExt("h2", "http/1.1")))
	for cut := 1; cut < len(msg); cut += 7 {
		s := NewPool(nil).NewState()
		two := cat(record(contentHandshake, VersionTLS10, msg[:cut]), record(contentHandshake, VersionTLS10, msg[cut:]))
		if cut < 4 {
			// a record shorter than a handshake header is INVALID_SSL_RECORD (SSLv3ParseHandshakeProtocol)
			if r := s.Parse(flow.ToServer, two, 0); r.Err == nil {
				t.Errorf("cut %d: no error", cut)
			}
			continue
		}
		if err := feed(s, flow.ToServer, two, nil); err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if string(s.Client.JA3) != string(ref.Client.JA3) || string(s.Client.SNI) != "meerkat.test" || s.td.Progress[0] != ClientHelloDone {
			t.Errorf("cut %d: ja3 %q sni %q progress %v", cut, s.Client.JA3, s.Client.SNI, s.td.Progress)
		}
	}
}

func sameState(a, b *State) bool {
	return a.td.Progress == b.td.Progress && a.td.Events == b.td.Events && a.Flags == b.Flags &&
		string(a.Client.SNI) == string(b.Client.SNI) && string(a.Client.JA3) == string(b.Client.JA3) &&
		string(a.Server.JA3) == string(b.Server.JA3) && a.Server.HasCert == b.Server.HasCert &&
		string(a.Server.Cert.Subject) == string(b.Server.Cert.Subject) && len(a.Server.Certs) == len(b.Server.Certs) &&
		a.Client.Version == b.Client.Version && a.Server.Version == b.Server.Version
}

// TestRecordErrors: the record layer's errors and events (§2.2, SSLv3Decode).
func TestRecordErrors(t *testing.T) {
	cases := []struct {
		name  string
		data  []byte
		event uint8
		err   bool
	}{
		{"length 0", record(contentHandshake, VersionTLS12, nil), EvInvalidRecordLength, true},
		{"bad version", record(contentHandshake, 0x0205, []byte{1, 2, 3, 4}), EvInvalidRecordVersion, true},
		{"too long", cat([]byte{22, 3, 3}, u16(recordMaxLen+1)), EvInvalidRecordLength, true},
		{"unknown type", record(30, VersionTLS12, []byte{1}), EvInvalidRecordType, true},
		{"short handshake", record(contentHandshake, VersionTLS12, []byte{1, 0}), EvInvalidSSLRecord, true},
		{"short alert", record(contentAlert, VersionTLS12, []byte{2}), EvInvalidAlertMessage, true},
		{"unknown handshake type", record(contentHandshake, VersionTLS12, hsMsg(99, []byte{1})), EvInvalidHandshakeMessage, false},
		{"oversized handshake", record(contentHandshake, VersionTLS12, cat([]byte{hsCertificate}, u24(DefaultMaxHandshake+1), []byte{0})), EvHandshakeInvalidLength, true},
		{"bad sni type", record(contentHandshake, VersionTLS12, hsMsg(hsClientHello, clientHello(VersionTLS12, nil, []int{47},
			ext(extSNI, cat(u16(4), []byte{1, 0, 1, 'a'}))))), EvInvalidSNIType, false},
		{"two snis", record(contentHandshake, VersionTLS12, hsMsg(hsClientHello, clientHello(VersionTLS12, nil, []int{47},
			sniExt("a"), sniExt("b")))), EvMultipleSNIExtensions, false},
		{"odd ciphers", record(contentHandshake, VersionTLS12, hsMsg(hsClientHello, cat(u16(0x303), make([]byte, 32), []byte{0}, u16(3), []byte{0, 47, 1}))), EvHandshakeInvalidLength, false},
	}
	for _, c := range cases {
		s := NewPool(nil).NewState()
		r := s.Parse(flow.ToServer, c.data, 0)
		if (r.Err != nil) != c.err {
			t.Errorf("%s: error %v, want %v", c.name, r.Err, c.err)
		}
		if !s.td.Events.Has(c.event) {
			t.Errorf("%s: no %s", c.name, EventNames[c.event])
		}
	}
	// a record after an unknown one is tolerated at TLS 1.0/1.1 (the rest dropped)
	s := NewPool(nil).NewState()
	s.Client.Version = VersionTLS10
	if r := s.Parse(flow.ToServer, record(30, VersionTLS10, []byte{1}), 0); r.Err != nil || r.Consumed != 6 {
		t.Errorf("TLS 1.0 unknown record: %+v", r)
	}
}

// TestSSLv2: an SSLv2 ClientHello (2-byte header) then a ServerHello (§2.2, SSLv2Decode).
func TestSSLv2(t *testing.T) {
	body := cat([]byte{v2ClientHello}, u16(0x0002), u16(3), u16(0), u16(16), []byte{1, 0, 0x80}, make([]byte, 16))
	ch := cat([]byte{0x80 | byte(len(body)>>8), byte(len(body))}, body)
	if Probe(ch) != applayer.ProbeMatch {
		t.Error("probe")
	}
	s := NewPool(nil).NewState()
	if r := s.Parse(flow.ToServer, ch, 0); r.Err != nil || r.Consumed != len(ch) {
		t.Fatalf("%+v", r)
	}
	if s.td.Progress[0] != ClientHelloDone || s.Client.Version != 0x0002 || s.CurrentFlags&FlagStateClientHello == 0 {
		t.Errorf("progress %v version %#x flags %#x", s.td.Progress, s.Client.Version, s.CurrentFlags)
	}
	sbody := cat([]byte{v2ServerHello}, make([]byte, 10))
	sh := cat([]byte{0x80, byte(len(sbody))}, sbody)
	if r := s.Parse(flow.ToClient, sh[:5], 0); r.Consumed != 0 || r.Needed != len(sh) {
		t.Errorf("partial: %+v", r)
	}
	s.Parse(flow.ToClient, sh, 0)
	if s.td.Progress[1] != ServerHello {
		t.Errorf("server progress %d", s.td.Progress[1])
	}
}

// TestEncryptionHandling: the first application-data record asks for track-only's or
// bypass's action; full asks for nothing (§2.9).
func TestEncryptionHandling(t *testing.T) {
	app := record(contentApplication, VersionTLS12, []byte("secret"))
	for _, c := range []struct {
		enc               EncHandling
		encrypted, bypass bool
	}{{EncTrackOnly, true, false}, {EncBypass, true, true}, {EncFull, false, false}} {
		cfg := DefaultSettings()
		cfg.Enc = c.enc
		s := NewPool(cfg).NewState()
		r := s.Parse(flow.ToClient, app, 0)
		if (r.Flags&applayer.NoInspectionPayload != 0) != c.encrypted || (r.Flags&applayer.BypassReady != 0) != c.bypass {
			t.Errorf("enc %d: %+v", c.enc, r)
		}
	}
	// a partial application-data record is consumed as it arrives
	s := NewPool(nil).NewState()
	if r := s.Parse(flow.ToClient, app[:8], 0); r.Consumed != 8 || r.Needed != 0 {
		t.Errorf("partial app data: %+v", r)
	}
	if r := s.Parse(flow.ToClient, cat(app[8:], app), 0); r.Consumed != len(app)-8+len(app) {
		t.Errorf("rest: %+v", r)
	}
}

// TestMarkCertStore: tls.store's mark goes to the side of the packet's direction and Reset
// clears it (a pooled state must not store the next flow's chain).
func TestMarkCertStore(t *testing.T) {
	s := &State{}
	s.MarkCertStore(flow.ToServer)
	if !s.Client.StoreCerts || s.Server.StoreCerts {
		t.Fatalf("to server: client %v server %v", s.Client.StoreCerts, s.Server.StoreCerts)
	}
	s.MarkCertStore(flow.ToClient)
	if !s.Server.StoreCerts {
		t.Fatal("to client: server not marked")
	}
	s.Reset()
	if s.Client.StoreCerts || s.Server.StoreCerts {
		t.Fatal("Reset kept the marks")
	}
}
