package tls

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// kwState is a state with the given versions, current flags and server certificate fields.
func kwState(cv, sv uint16, cur uint32) *State {
	s := NewPool(nil).NewState()
	s.Client.Version, s.Server.Version, s.CurrentFlags = cv, sv, cur
	return s
}

// TestVersionKeyword: tls.version (src/detect-tls-version.c: DetectTlsVersionParse/Match and
// its unit tests; reference §2.6): drafts count as 1.3 unless written raw.
func TestVersionKeyword(t *testing.T) {
	cases := []struct {
		arg     string
		ver     uint16
		want    bool
		loadErr bool
	}{
		{arg: "1.2", ver: VersionTLS12, want: true},
		{arg: "1.0", ver: VersionTLS12},
		{arg: "1.3", ver: 0x7f16, want: true},         // draft-22 is 1.3
		{arg: "0x7f16", ver: 0x7f16, want: true},      // raw
		{arg: "0x0304", ver: 0x7f16},                  // raw: no draft folding
		{arg: `"1.1"`, ver: VersionTLS11, want: true}, // quoted form of the regex
		{arg: "1.2x", ver: VersionTLS12, want: true},  // strncmp prefix compare
		{arg: "2.0", loadErr: true},
		{arg: "1 .2", loadErr: true},
		{arg: "0x12345", loadErr: true},
	}
	for _, c := range cases {
		m, err := CompileVersion(c.arg, false)
		if (err != nil) != c.loadErr {
			t.Errorf("%q: load error %v, want %v", c.arg, err, c.loadErr)
			continue
		}
		if err != nil {
			continue
		}
		s := kwState(c.ver, c.ver, 0)
		for _, d := range []applayer.Dir{flow.ToServer, flow.ToClient} {
			if got := m(s, d, nil); got != c.want {
				t.Errorf("%q on %#x dir %d: %v, want %v", c.arg, c.ver, d, got, c.want)
			}
		}
	}
}

// TestSSLVersionKeyword: ssl_version (src/detect-ssl-version.c; reference §2.6): a set, '!'
// negates it, an unknown version never matches.
func TestSSLVersionKeyword(t *testing.T) {
	cases := []struct {
		arg     string
		ver     uint16
		want    bool
		loadErr bool
	}{
		{arg: "sslv2", ver: VersionSSL2, want: true},
		{arg: "tls1.0,tls1.2", ver: VersionTLS12, want: true},
		{arg: "TLS1.3", ver: VersionTLS13Draft, want: true},
		{arg: "tls1.3", ver: 0x7f1c, want: true},
		{arg: "tls1.3", ver: 0xfb1a}, // not one of the keyword's drafts
		{arg: "!tls1.2", ver: VersionTLS12},
		{arg: "!tls1.2", ver: VersionTLS11, want: true},
		{arg: "!tls1.2", ver: 0x1234}, // unknown: no match even negated
		{arg: "sslv3 , tls1.1", ver: VersionTLS11, want: true},
		{arg: "tls1.2,tls1.2", loadErr: true},
		{arg: "tls1.4", loadErr: true},
		{arg: "", loadErr: true},
	}
	for _, c := range cases {
		m, err := CompileSSLVersion(c.arg, false)
		if (err != nil) != c.loadErr {
			t.Errorf("%q: load error %v, want %v", c.arg, err, c.loadErr)
			continue
		}
		if err == nil {
			if got := m(kwState(c.ver, 0, 0), flow.ToServer, nil); got != c.want {
				t.Errorf("%q on %#x: %v, want %v", c.arg, c.ver, got, c.want)
			}
		}
	}
}

// TestSSLStateKeyword: ssl_state (src/detect-ssl-state.c: (flags & current) ^ mask).
func TestSSLStateKeyword(t *testing.T) {
	cases := []struct {
		arg     string
		cur     uint32
		want    bool
		loadErr bool
	}{
		{arg: "client_hello", cur: FlagStateClientHello, want: true},
		{arg: "client_hello", cur: FlagStateServerHello},
		{arg: "client_hello|server_hello", cur: FlagStateServerHello, want: true},
		{arg: "client_keyx,server_keyx", cur: FlagStateServerKeyx, want: true},
		{arg: "!client_hello", cur: FlagStateServerHello, want: true},
		{arg: "!client_hello", cur: FlagStateClientHello},
		{arg: "unknown", cur: FlagStateClientHello},
		{arg: "client_hello | !server_hello", cur: FlagStateClientHello, want: true},
		{arg: "Client_hello", loadErr: true},
		{arg: "client_hello;", loadErr: true},
		{arg: "", loadErr: true},
	}
	for _, c := range cases {
		m, err := CompileSSLState(c.arg, false)
		if (err != nil) != c.loadErr {
			t.Errorf("%q: load error %v, want %v", c.arg, err, c.loadErr)
			continue
		}
		if err == nil {
			if got := m(kwState(0, 0, c.cur), flow.ToServer, nil); got != c.want {
				t.Errorf("%q on %#x: %v, want %v", c.arg, c.cur, got, c.want)
			}
		}
	}
}

// TestCertKeywords: tls.subject/tls.issuerdn/tls.fingerprint substrings and negation, and no
// certificate never matching (src/detect-tls.c), with tls-fingerprint-alert's fingerprint.
func TestCertKeywords(t *testing.T) {
	s := kwState(0, 0, 0)
	s.Server.HasCert = true
	s.Server.Cert.Subject = []byte("C=US, O=Let's Encrypt, CN=R3")
	s.Server.Cert.Issuer = []byte("C=US, O=Internet Security Research Group, CN=ISRG Root X1")
	s.Server.Cert.Fingerprint = []byte("4a:a4:3b:f5:cf:1b:2e:4e:f7:00:00:f9:de:ba:b9:00:00:00:3f:01")
	none := kwState(0, 0, 0)
	subj := func(v string, neg bool) (applayer.TxMatch, error) {
		return compileCertSubstr(v, neg, func(c *Conn) []byte { return c.Cert.Subject })
	}
	cases := []struct {
		name    string
		compile func(string, bool) (applayer.TxMatch, error)
		arg     string
		neg     bool
		want    bool
		loadErr bool
	}{
		{"subject", subj, "CN=R3", false, true, false},
		{"subject case", subj, "cn=r3", false, false, false},
		{"subject negated", subj, "CN=R3", true, false, false},
		{"subject negated other", subj, "CN=R4", true, true, false},
		{"subject bang", subj, "!CN=R4", false, true, false},
		{"subject charset", subj, "O=Let's", false, false, true},
		{"fingerprint upper", CompileFingerprint, "4A:A4:3B", false, true, false},
		{"fingerprint quoted", CompileFingerprint, `"4a:a4:3b:f5"`, false, true, false},
		{"fingerprint other", CompileFingerprint, "ff:ff", false, false, false},
	}
	for _, c := range cases {
		m, err := c.compile(c.arg, c.neg)
		if (err != nil) != c.loadErr {
			t.Errorf("%s: load error %v, want %v", c.name, err, c.loadErr)
			continue
		}
		if err != nil {
			continue
		}
		if got := m(s, flow.ToClient, nil); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if m(none, flow.ToClient, nil) {
			t.Errorf("%s matched without a certificate", c.name)
		}
		if m(s, flow.ToServer, nil) {
			t.Errorf("%s matched the client's (absent) certificate", c.name)
		}
	}
}

// TestValidityKeywords: tls_cert_notbefore/notafter (< is <=, > is >=, ranges inclusive),
// tls_cert_expired/valid against the packet time (src/detect-tls-cert-validity.c and its
// unit tests' dates).
func TestValidityKeywords(t *testing.T) {
	s := kwState(0, 0, 0)
	s.Server.HasCert = true
	s.Server.Cert.NotBefore = 1423764447 // 2015-02-12T18:07:27 (bug-7286-tls-metadata-01)
	s.Server.Cert.NotAfter = 1739124447  // 2025-02-09T18:07:27
	cases := []struct {
		kind    validityKind
		arg     string
		now     int64
		want    bool
		loadErr bool
	}{
		{ValidityNotBefore, "2015-02-12T18:07:27", 0, true, false},
		{ValidityNotBefore, "1423764447", 0, true, false},
		{ValidityNotBefore, "<2015-02-13", 0, true, false},
		{ValidityNotBefore, ">2015-02-13", 0, false, false},
		{ValidityNotBefore, "2015-01 <> 2015-03", 0, true, false},
		{ValidityNotAfter, "2025-02-09 18:07:27", 0, true, false},
		{ValidityNotAfter, "2025-02-09 18:07", 0, false, false},
		{ValidityNotAfter, "2016 <> 2015", 0, false, true},
		{ValidityNotAfter, "yesterday", 0, false, true},
		{ValidityExpired, "", 1739124448, true, false},
		{ValidityExpired, "", 1739124447, false, false},
		{ValidityValid, "", 1739124447, true, false},
		{ValidityValid, "", 1739124448, false, false},
		{ValidityValid, "x", 0, false, true},
	}
	for _, c := range cases {
		m, err := CompileValidity(c.kind, c.arg)
		if (err != nil) != c.loadErr {
			t.Errorf("%d %q: load error %v, want %v", c.kind, c.arg, err, c.loadErr)
			continue
		}
		if err != nil {
			continue
		}
		if got := m(s, flow.ToClient, &applayer.GetCtx{PacketTime: c.now}); got != c.want {
			t.Errorf("%d %q at %d: %v, want %v", c.kind, c.arg, c.now, got, c.want)
		}
	}
	// A time of 0 is absent: never matched.
	s.Server.Cert.NotBefore = 0
	m, _ := CompileValidity(ValidityNotBefore, "0")
	if m(s, flow.ToClient, nil) {
		t.Error("notbefore 0 matched")
	}
}
