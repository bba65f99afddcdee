package cert

import (
	"bytes"
	"crypto/x509"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer/tls/ja/tlspcap"
)

// tl builds one DER element.
func tl(tag byte, content ...[]byte) []byte {
	c := bytes.Join(content, nil)
	out := []byte{tag}
	switch n := len(c); {
	case n < 0x80:
		out = append(out, byte(n))
	case n < 0x100:
		out = append(out, 0x81, byte(n))
	default:
		out = append(out, 0x82, byte(n>>8), byte(n))
	}
	return append(out, c...)
}

func sq(c ...[]byte) []byte  { return tl(0x30, c...) }
func set(c ...[]byte) []byte { return tl(0x31, c...) }
func oidTLV(hexs string) []byte {
	b, _ := hex.DecodeString(hexs)
	return tl(0x06, b)
}
func atv(oidHex string, tag byte, v string) []byte { return sq(oidTLV(oidHex), tl(tag, []byte(v))) }

const (
	oidCN = "550403"
	oidC  = "550406"
	oidO  = "55040a"
	oidOU = "55040b"
	oidST = "550408"
	oidL  = "550407"
)

type parts struct {
	version, serial, alg, issuer, validity, subject, spki, uids, exts, outerAlg, sig, trailer []byte
}

func defaults() parts {
	alg := sq(oidTLV("2a864886f70d01010b"), []byte{0x05, 0x00})
	return parts{
		version:  tl(0xa0, []byte{0x02, 0x01, 0x02}),
		serial:   []byte{0x02, 0x01, 0x32},
		alg:      alg,
		issuer:   sq(set(atv(oidC, 0x13, "US")), set(atv(oidO, 0x13, "Let's Encrypt")), set(atv(oidCN, 0x13, "R3"))),
		validity: sq(tl(0x17, []byte("221201064731Z")), tl(0x17, []byte("230301064730Z"))),
		subject:  sq(set(atv(oidCN, 0x0c, "example.com"))),
		spki:     sq(sq(oidTLV("2a864886f70d010101"), []byte{0x05, 0x00}), tl(0x03, []byte{0x00, 0x01})),
		outerAlg: alg,
		sig:      tl(0x03, []byte{0x00, 0xaa}),
	}
}

func (p parts) der() []byte {
	tbs := sq(p.version, p.serial, p.alg, p.issuer, p.validity, p.subject, p.spki, p.uids, p.exts)
	return append(sq(tbs, p.outerAlg, p.sig), p.trailer...)
}

func extsWith(ext ...[]byte) []byte { return tl(0xa3, sq(ext...)) }
func sanExt(names ...[]byte) []byte {
	return sq(oidTLV("551d11"), tl(0x04, sq(names...)))
}

func decodeOK(t *testing.T, der []byte) *Cert {
	t.Helper()
	var c Cert
	if err := Decode(der, &c); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return &c
}

// §2.4 name rules (x509-parser x509name_to_string / attribute_value_to_string).
func TestNames(t *testing.T) {
	tests := []struct {
		name    string
		subject []byte
		want    string
	}{
		{"letsencrypt", sq(set(atv(oidC, 0x13, "US")), set(atv(oidO, 0x13, "Let's Encrypt")), set(atv(oidCN, 0x13, "R3"))),
			"C=US, O=Let's Encrypt, CN=R3"},
		{"multi-valued-rdn", sq(set(atv(oidOU, 0x0c, "a"), atv(oidCN, 0x0c, "b")), set(atv(oidC, 0x13, "FR"))),
			"OU=a + CN=b, C=FR"},
		// tests tls-subject-zero / tls-issuer-zero: NUL bytes are kept
		{"nul", sq(set(atv(oidO, 0x13, "Microsoft Corporat\x00on"))), "O=Microsoft Corporat\x00on"},
		{"abbrevs", sq(set(atv(oidST, 0x0c, "IDF")), set(atv(oidL, 0x0c, "Paris")),
			set(atv("0992268993f22c640119", 0x16, "com")), set(atv("2a864886f70d010901", 0x16, "a@b"))),
			"ST=IDF, L=Paris, DC=com, Email=a@b"},
		{"registry-short-name", sq(set(atv("550405", 0x13, "123")), set(atv("2b0601040182373c020103", 0x13, "US"))),
			"serialNumber=123, msJurisdictionCountry=US"},
		{"unknown-oid", sq(set(atv("2a0304", 0x0c, "x"))), "OID(1.2.3.4)=x"},
		{"unknown-oid-multibyte-arc", sq(set(atv("2a864886f70d0109ff7f", 0x0c, "x"))), "OID(1.2.840.113549.1.9.16383)=x"},
		{"non-string-hex", sq(set(sq(oidTLV(oidCN), tl(0x04, []byte{0xde, 0xad})))), "CN=DEAD"},
		{"integer-hex", sq(set(sq(oidTLV(oidCN), tl(0x02, []byte{0x01, 0xff})))), "CN=01FF"},
		{"bmp", sq(set(sq(oidTLV(oidCN), tl(0x1e, []byte{0x00, 'h', 0x00, 'i', 0x20, 0xac})))), "CN=hi€"},
		{"t61-teletex", sq(set(atv(oidCN, 0x14, "t61"))), "CN=t61"},
		{"invalid-utf8", sq(set(atv(oidC, 0x13, "US")), set(atv(oidCN, 0x0c, "\xff"))), "<X509Error: Invalid X.509 name>"},
		{"invalid-bmp", sq(set(sq(oidTLV(oidCN), tl(0x1e, []byte{0xdc, 0x00})))), "<X509Error: Invalid X.509 name>"},
		{"empty", sq(), ""},
		// a broken RDN ends the name silently (many0 over complete RDNs)
		{"broken-rdn-truncates", sq(set(atv(oidC, 0x13, "US")), set(sq(tl(0x04, nil)))), "C=US"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := defaults()
			p.subject = tc.subject
			c := decodeOK(t, p.der())
			if string(c.Subject) != tc.want {
				t.Errorf("Subject = %q, want %q", c.Subject, tc.want)
			}
		})
	}
}

func TestSerialAndDates(t *testing.T) {
	p := defaults()
	p.serial = []byte{0x02, 0x09, 0x00, 0x97, 0xE6, 0x47, 0x09, 0x8E, 0xEA, 0xC9, 0xB4}
	c := decodeOK(t, p.der())
	// bug-7286-tls-metadata-01: leading 00 kept
	if string(c.Serial) != "00:97:E6:47:09:8E:EA:C9:B4" {
		t.Errorf("Serial = %q", c.Serial)
	}
	p = defaults()
	c = decodeOK(t, p.der())
	if string(c.Serial) != "32" { // tls-pre-1970: one byte
		t.Errorf("Serial = %q", c.Serial)
	}
	if got := string(FormatTime(nil, c.NotBefore)); got != "2022-12-01T06:47:31" {
		t.Errorf("notbefore %s", got)
	}
	dates := []struct {
		tag  byte
		v    string
		want string // "" = invalid
	}{
		{0x17, "691231000000Z", "1969-12-31T00:00:00"}, // tls-pre-1970
		{0x17, "500101000000Z", "1950-01-01T00:00:00"},
		{0x17, "491231235959Z", "2049-12-31T23:59:59"},
		{0x17, "7001010000Z", "1970-01-01T00:00:00"},       // seconds optional
		{0x17, "700101010000+0100", "1970-01-01T00:00:00"}, // offset
		{0x18, "19691231000000Z", "1969-12-31T00:00:00"},
		{0x18, "20380119031408.5Z", "2038-01-19T03:14:08"},
		{0x18, "20000229000000Z", "2000-02-29T00:00:00"},
		{0x17, "500229000000Z", ""},
		{0x17, "701301000000Z", ""},
		{0x17, "700100000000Z", ""},
		{0x17, "700101000000", ""},
		{0x18, "20000101000000", ""}, // DER: GeneralizedTime must end in Z
		{0x18, "20000101000000+0000", ""},
		{0x04, "700101000000Z", ""},
	}
	for _, d := range dates {
		p := defaults()
		p.validity = sq(tl(d.tag, []byte(d.v)), tl(0x17, []byte("300101000000Z")))
		var c Cert
		err := Decode(p.der(), &c)
		if d.want == "" {
			if err == nil || err.(*DecodeError).Event != EventInvalidDate {
				t.Errorf("%s: err %v, want %s", d.v, err, EventInvalidDate)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", d.v, err)
			continue
		}
		if got := string(FormatTime(nil, c.NotBefore)); got != d.want {
			t.Errorf("%s: %s, want %s", d.v, got, d.want)
		}
	}
}

// §2.4 SAN forms (x509-parser GeneralName Display with Suricata's SCGeneralName).
func TestSANs(t *testing.T) {
	dn := sq(set(atv(oidCN, 0x0c, "d")))
	p := defaults()
	p.exts = extsWith(sanExt(
		tl(0x82, []byte("a.example")),
		tl(0x87, []byte{10, 0, 0, 1}),
		tl(0x86, []byte("http://u/")),
		tl(0x81, []byte("m@example")),
		tl(0xa4, dn),
		tl(0xa0, oidTLV("2b0601"), tl(0xa0, []byte{0x0c, 0x01, 'x'})),
		tl(0x88, []byte{0x2a, 0x03}),
		tl(0xa3, []byte{0x30, 0x00}),
		tl(0xa5, []byte{0x30, 0x00}),
		tl(0x87, []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}),
	))
	c := decodeOK(t, p.der())
	want := []string{"a.example", "[10, 0, 0, 1]", "http://u/", "RFC822Name(m@example)", "DirectoryName(CN=d)",
		"OtherName(1.3.6.1, [...])", "RegisteredID(1.2.3)", "X400Address(<unparsed>)", "EDIPartyName(<unparsed>)",
		"[32, 1, 13, 184, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]"}
	var got []string
	for _, s := range c.SANs {
		got = append(got, string(s))
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("SANs\n got %q\nwant %q", got, want)
	}
	// one bad name: the extension is a ParseError, no SAN at all, the cert still decodes
	p.exts = extsWith(sanExt(tl(0x82, []byte("ok")), tl(0x82, []byte{0xff})))
	if c := decodeOK(t, p.der()); len(c.SANs) != 0 {
		t.Errorf("SANs %q, want none", c.SANs)
	}
	// two SAN extensions: subject_alternative_name() is Err(DuplicateExtensions): none
	p.exts = extsWith(sanExt(tl(0x82, []byte("a"))), sanExt(tl(0x82, []byte("b"))))
	if c := decodeOK(t, p.der()); len(c.SANs) != 0 {
		t.Errorf("SANs %q, want none", c.SANs)
	}
}

// Which malformation raises which event (x509-parser error -> rust/src/x509/mod.rs
// x509_parse_error_to_errcode -> TlsDecodeHSCertificateErrSetEvent).
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(p *parts)
		der   []byte
		event string
	}{
		{name: "empty", der: []byte{}, event: EventInvalidLength},
		{name: "truncated", der: defaults().der()[:40], event: EventInvalidLength},
		{name: "not-a-sequence", der: []byte{0x04, 0x00}, event: EventInvalidDER},
		{name: "indefinite-length", der: []byte{0x30, 0x80, 0x00, 0x00}, event: EventInvalidDER},
		{name: "version-negative", edit: func(p *parts) { p.version = tl(0xa0, []byte{0x02, 0x01, 0xff}) }, event: EventInvalidVersion},
		{name: "version-not-integer", edit: func(p *parts) { p.version = tl(0xa0, []byte{0x04, 0x01, 0x02}) }, event: EventInvalidVersion},
		{name: "version-wrong-class", edit: func(p *parts) { p.version = tl(0x60, []byte{0x02, 0x01, 0x02}) }, event: EventInvalidDER},
		{name: "serial-truncated-no-version", edit: func(p *parts) { p.version = nil; p.serial = []byte{0x02, 0x82, 0xff, 0xff, 0x01} }, event: EventInvalidLength},
		{name: "uid-wrong-class", edit: func(p *parts) { p.uids = tl(0x01, []byte{0x00}) }, event: EventInvalidCertificate},
		{name: "serial-not-integer", edit: func(p *parts) { p.serial = []byte{0x04, 0x01, 0x01} }, event: EventInvalidSerial},
		{name: "alg-no-oid", edit: func(p *parts) { p.alg = sq([]byte{0x05, 0x00}) }, event: EventInvalidAlgorithm},
		{name: "alg-not-sequence", edit: func(p *parts) { p.alg = set(oidTLV("2a")) }, event: EventInvalidDER},
		{name: "issuer-not-sequence", edit: func(p *parts) { p.issuer = set() }, event: EventInvalidDER},
		{name: "validity-bad-date", edit: func(p *parts) { p.validity = sq(tl(0x17, []byte("zz")), tl(0x17, []byte("zz"))) }, event: EventInvalidDate},
		{name: "validity-one-date", edit: func(p *parts) { p.validity = sq(tl(0x17, []byte("700101000000Z"))) }, event: EventInvalidDate},
		{name: "spki-bad-key", edit: func(p *parts) { p.spki = sq(sq(oidTLV("2a")), tl(0x04, nil)) }, event: EventInvalidCertificate},
		{name: "exts-wrong-tag", edit: func(p *parts) { p.exts = tl(0xa4, sq()) }, event: EventInvalidExtensions},
		{name: "exts-broken-extension", edit: func(p *parts) { p.exts = extsWith(sq(tl(0x04, nil))) }, event: EventInvalidCertificate},
		{name: "exts-not-sequence", edit: func(p *parts) { p.exts = tl(0xa3, set()) }, event: EventInvalidDER},
		{name: "sig-not-bitstring", edit: func(p *parts) { p.sig = tl(0x04, nil) }, event: EventInvalidCertificate},
		{name: "outer-alg-bad", edit: func(p *parts) { p.outerAlg = sq(tl(0x04, nil)) }, event: EventInvalidAlgorithm},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			der := tc.der
			if tc.edit != nil {
				p := defaults()
				tc.edit(&p)
				der = p.der()
			}
			var c Cert
			err := Decode(der, &c)
			de, ok := err.(*DecodeError)
			if !ok || de.Event != tc.event {
				t.Fatalf("err %v, want %s", err, tc.event)
			}
			found := false
			for _, n := range EventNames {
				found = found || n == de.Event
			}
			if !found {
				t.Errorf("%s not in EventNames", de.Event)
			}
		})
	}
	// accepted leniencies: trailing data after the certificate, a broken extension BODY, a
	// non-minimal long length.
	p := defaults()
	p.trailer = []byte{1, 2, 3}
	decodeOK(t, p.der())
	p = defaults()
	p.exts = extsWith(sq(oidTLV("551d13"), tl(0x04, []byte{0xff})))
	decodeOK(t, p.der())
	p = defaults()
	p.uids = append(tl(0x81, []byte{0x00, 0x01}), tl(0x82, []byte{0x00})...)
	decodeOK(t, p.der())
	p = defaults()
	p.version = nil // v1: no [0]
	decodeOK(t, p.der())
	p = defaults()
	p.serial = []byte{0x02, 0x82, 0x00, 0x01, 0x07}
	if c := decodeOK(t, p.der()); string(c.Serial) != "07" {
		t.Errorf("serial %q", c.Serial)
	}
}

// Certificates of conformance pcaps; expected strings from the tests' test.yaml / test.rules.
func TestConformanceCerts(t *testing.T) {
	type want struct {
		subject, issuer, serial, fingerprint, notBefore, notAfter string
		sans                                                      []string
	}
	tests := map[string]want{
		"tls-glupteba": {subject: "CN=xn--j1ahhq.xn--p1ai", issuer: "C=US, O=Let's Encrypt, CN=R3",
			serial: "03:DE:23:89:7E:97:FB:86:8E:7C:C5:53:09:FE:AE:D0:AE:20", fingerprint: "e9:a0:69:50:ba:18:dc:ac:d3:a7:fe:58:22:4a:1f:42:5b:bc:96:b0",
			notBefore: "2022-12-01T06:47:31", notAfter: "2023-03-01T06:47:30",
			sans: []string{"server1.xn--j1ahhq.xn--p1ai", "server10.xn--j1ahhq.xn--p1ai", "server11.xn--j1ahhq.xn--p1ai",
				"server12.xn--j1ahhq.xn--p1ai", "server13.xn--j1ahhq.xn--p1ai", "server14.xn--j1ahhq.xn--p1ai",
				"server15.xn--j1ahhq.xn--p1ai", "server16.xn--j1ahhq.xn--p1ai", "server2.xn--j1ahhq.xn--p1ai",
				"server3.xn--j1ahhq.xn--p1ai", "server4.xn--j1ahhq.xn--p1ai", "server5.xn--j1ahhq.xn--p1ai",
				"server6.xn--j1ahhq.xn--p1ai", "server7.xn--j1ahhq.xn--p1ai", "server8.xn--j1ahhq.xn--p1ai",
				"server9.xn--j1ahhq.xn--p1ai", "xn--j1ahhq.xn--p1ai"}},
		"tls-pre-1970": {subject: "OU=vd, CN=fkp.samsungcloudsolution.com",
			issuer: "C=KR, ST=Kyunggido, L=Suwon, O=Samsung Electronics, OU=SW2 SISC, CN=ROOT CA SISC FKP2_PLUS",
			serial: "32", fingerprint: "71:cd:fe:08:7f:3d:2a:18:32:69:38:fa:bd:64:7b:c6:cf:cc:44:8e",
			notBefore: "1969-12-31T00:00:00", notAfter: "2038-12-31T00:10:03"},
		"bug-7286-tls-metadata-01": {subject: "C=FR, ST=IDF, L=Paris, O=Stamus, CN=SELKS", issuer: "C=FR, ST=IDF, L=Paris, O=Stamus, CN=SELKS",
			serial: "00:97:E6:47:09:8E:EA:C9:B4", fingerprint: "3a:0b:3b:23:15:2c:44:5c:27:ac:6a:0c:41:d6:fa:74:af:b4:09:5b",
			notBefore: "2015-02-12T18:07:27", notAfter: "2025-02-09T18:07:27"},
		// test.rules content (the rule matches a substring; the full string is the rule's content)
		"tls-subject-zero": {subject: "C=US, ST=WA, L=Redmond, O=Microsoft Corporat\x00on, OU=Microsoft Corporation, CN=go.microsoft.com"},
		"tls-issuer-zero":  {issuer: "C=US, O=Microsoft Corporation, CN=Microsoft RSA TL\x00 CA 01"},
	}
	for name, w := range tests {
		t.Run(name, func(t *testing.T) {
			c := firstServerCert(t, name)
			check := func(field, got, want string) {
				if want != "" && got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			check("subject", string(c.Subject), w.subject)
			check("issuer", string(c.Issuer), w.issuer)
			check("serial", string(c.Serial), w.serial)
			check("fingerprint", string(c.Fingerprint), w.fingerprint)
			check("notbefore", string(FormatTime(nil, c.NotBefore)), w.notBefore)
			check("notafter", string(FormatTime(nil, c.NotAfter)), w.notAfter)
			if w.sans != nil {
				var got []string
				for _, s := range c.SANs {
					got = append(got, string(s))
				}
				// EVE keys subjectaltname[0..16] are listed sorted by key in test.yaml; the
				// values above are in certificate order, which is the order of those indexes.
				check("sans", strings.Join(got, ","), strings.Join(w.sans, ","))
			}
		})
	}
}

// firstServerCert decodes the first certificate of the first Certificate message of a test's pcap.
func firstServerCert(t *testing.T, test string) *Cert {
	t.Helper()
	for _, der := range pcapCerts(t, test) {
		var c Cert
		if err := Decode(der, &c); err == nil {
			return &c
		}
	}
	t.Fatalf("%s: no certificate decodes", test)
	return nil
}

func pcapCerts(t *testing.T, test string) [][]byte {
	t.Helper()
	dir := tlspcap.ConformanceTest(test)
	if dir == "" {
		t.Skipf("conformance test %s not found (set MEERKAT_SHARED)", test)
	}
	pcaps, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	if len(pcaps) != 1 {
		t.Fatalf("%s: %d pcaps", dir, len(pcaps))
	}
	msgs, err := tlspcap.Read(pcaps[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Type == tlspcap.Certificate {
			return tlspcap.Certificates(m.Body)
		}
	}
	t.Fatalf("%s: no Certificate message", test)
	return nil
}

// Serial, fingerprint input, validity and DNS/IP SANs agree with crypto/x509 on the conformance
// certificates it can parse (a second implementation for the fields whose text form is simple).
func TestAgainstCryptoX509(t *testing.T) {
	n := 0
	for _, test := range []string{"tls-glupteba", "tls-pre-1970", "bug-7286-tls-metadata-01", "tls-subject-zero", "tls-issuer-zero"} {
		for _, der := range pcapCerts(t, test) {
			xc, err := x509.ParseCertificate(der)
			if err != nil {
				continue
			}
			var c Cert
			if err := Decode(der, &c); err != nil {
				t.Errorf("%s: crypto/x509 parses a cert we reject: %v", test, err)
				continue
			}
			n++
			if xc.NotBefore.Unix() != c.NotBefore || xc.NotAfter.Unix() != c.NotAfter {
				t.Errorf("%s: validity %d..%d, x509 %v..%v", test, c.NotBefore, c.NotAfter, xc.NotBefore, xc.NotAfter)
			}
			if len(xc.DNSNames) > 0 && len(c.SANs) < len(xc.DNSNames) {
				t.Errorf("%s: %d SANs, x509 %d DNS names", test, len(c.SANs), len(xc.DNSNames))
			}
		}
	}
	if n == 0 {
		t.Skip("no certificate crypto/x509 parses")
	}
}

func TestDecodeAllocs(t *testing.T) {
	p := defaults()
	p.exts = extsWith(sanExt(tl(0x82, []byte("a.example")), tl(0x87, []byte{10, 0, 0, 1})))
	der := p.der()
	var c Cert
	if err := Decode(der, &c); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Decode(der, &c) }); n != 0 {
		t.Errorf("Decode into a warm Cert: %v allocs, want 0", n)
	}
	tbuf := make([]byte, 0, 32)
	if n := testing.AllocsPerRun(100, func() { _ = FormatTime(tbuf[:0], -86400) }); n != 0 {
		t.Errorf("FormatTime: %v allocs", n)
	}
}

func BenchmarkDecode(b *testing.B) {
	p := defaults()
	p.exts = extsWith(sanExt(tl(0x82, []byte("a.example")), tl(0x82, []byte("b.example"))))
	der := p.der()
	var c Cert
	b.ReportAllocs()
	for b.Loop() {
		_ = Decode(der, &c)
	}
}

// FormatTime agrees with time.Format over the range x509 times can hold.
func TestFormatTime(t *testing.T) {
	for _, v := range []int64{0, -1, -86400, -86401, 951782400, 2147483647, 253402300799, -62135596800, 4102444800, 1234567890} {
		want := time.Unix(v, 0).UTC().Format("2006-01-02T15:04:05")
		if got := string(FormatTime(nil, v)); got != want {
			t.Errorf("FormatTime(%d) = %s, want %s", v, got, want)
		}
	}
	for v := int64(-3e9); v < 3e10; v += 7654321 {
		want := time.Unix(v, 0).UTC().Format("2006-01-02T15:04:05")
		if got := string(FormatTime(nil, v)); got != want {
			t.Fatalf("FormatTime(%d) = %s, want %s", v, got, want)
		}
	}
}

func TestOIDText(t *testing.T) {
	tests := map[string]string{
		"2a864886f70d010101":     "1.2.840.113549.1.1.1",
		"00":                     "0",
		"":                       "",
		"550403":                 "2.5.4.3",
		"2a8180":                 "1.2.128", // unterminated trailing group still an arc
		"2a81":                   "1.2.1",
		"2affffffffffffffffff7f": "1.2.1180591620717411303423", // 2^70-1
		"2a81ffffffffffffffff7f": "1.2.18446744073709551615",   // 2^64-1
		"7f":                     "3.7",
	}
	for h, want := range tests {
		b, _ := hex.DecodeString(h)
		if got := string(appendOID(nil, b)); got != want {
			t.Errorf("appendOID(%s) = %q, want %q", h, got, want)
		}
	}
}

// A real certificate (tls-glupteba's Let's Encrypt leaf, 17 SANs) decodes into a warm Cert
// without allocating.
func TestDecodeAllocsRealCert(t *testing.T) {
	der := pcapCerts(t, "tls-glupteba")[0]
	var c Cert
	if err := Decode(der, &c); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Decode(der, &c) }); n != 0 {
		t.Errorf("%v allocs, want 0", n)
	}
}

func BenchmarkDecodeRealCert(b *testing.B) {
	dir := tlspcap.ConformanceTest("tls-glupteba")
	if dir == "" {
		b.Skip("conformance tests not found")
	}
	msgs, err := tlspcap.Read(filepath.Join(dir, "input.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	var der []byte
	for _, m := range msgs {
		if m.Type == tlspcap.Certificate {
			der = tlspcap.Certificates(m.Body)[0]
			break
		}
	}
	var c Cert
	b.SetBytes(int64(len(der)))
	b.ReportAllocs()
	for b.Loop() {
		_ = Decode(der, &c)
	}
}
