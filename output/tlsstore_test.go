package output

import (
	"bytes"
	"encoding/pem"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestCertFileName: CreateFileName (src/log-tlsstore.c) prints "%s/%s%ld.%ld-%d.pem": the
// microseconds without padding, "client-" for the client's chain, the id as a C int. The
// first row is tls-store-02's server file (1523912382.235074-1.pem).
func TestCertFileName(t *testing.T) {
	tests := []struct {
		dir    string
		client bool
		ts     time.Time
		id     uint32
		want   string
	}{
		{"certs", false, time.Unix(1523912382, 235074000), 1, "certs/1523912382.235074-1.pem"},
		{"certs", true, time.Unix(1523912382, 237160000), 2, "certs/client-1523912382.237160-2.pem"},
		{"/var/log", false, time.Unix(1600000000, 5000), 17, "/var/log/1600000000.5-17.pem"},
		{"d", true, time.Unix(0, 0), 1 << 31, "d/client-0.0--2147483648.pem"},
		{"d", false, time.Unix(10, 999999999), 3, "d/10.999999-3.pem"},
	}
	for _, tc := range tests {
		if got := string(appendCertFileName(nil, tc.dir, tc.client, tc.ts, tc.id)); got != tc.want {
			t.Errorf("appendCertFileName(%q, %v, %v, %d) = %q, want %q", tc.dir, tc.client, tc.ts, tc.id, got, tc.want)
		}
	}
}

// TestCertsPEM: LogTlsLogPem writes each certificate as standard base64 in lines of 64 between
// the BEGIN/END CERTIFICATE lines, the same layout as RFC 7468 (encoding/pem writes it too).
func TestCertsPEM(t *testing.T) {
	if got := string(appendCertsPEM(nil, [][]byte{{0x30, 0x03, 0x02, 0x01, 0x05}})); got !=
		"-----BEGIN CERTIFICATE-----\nMAMCAQU=\n-----END CERTIFICATE-----\n" {
		t.Errorf("5-byte cert: %q", got)
	}
	if got := string(appendCertsPEM(nil, [][]byte{{}})); got != "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n" {
		t.Errorf("empty cert: %q", got)
	}
	for _, n := range []int{1, 47, 48, 49, 95, 96, 97, 1000, 1450} {
		a, b := make([]byte, n), make([]byte, n/2+1)
		for i := range a {
			a[i] = byte(i*7 + n)
		}
		for i := range b {
			b[i] = byte(i * 13)
		}
		var want bytes.Buffer
		pem.Encode(&want, &pem.Block{Type: "CERTIFICATE", Bytes: a})
		pem.Encode(&want, &pem.Block{Type: "CERTIFICATE", Bytes: b})
		got := appendCertsPEM([]byte("keep"), [][]byte{a, b})
		if string(got) != "keep"+want.String() {
			t.Errorf("%d bytes: got\n%s\nwant\n%s", n, got, want.String())
		}
	}
}

func metaConn() *tls.Conn {
	c := &tls.Conn{HasCert: true, StoreCerts: true}
	c.Certs = [][]byte{{1, 2, 3}}
	c.Cert.Subject = []byte("C=HU, O=TLSClientAuthSampleServer, CN=SampleServer")
	c.Cert.Issuer = []byte("C=HU, O=TLSClientAuthSampleCA, CN=SampleRoot")
	c.Cert.Fingerprint = []byte("06:39:f9:5d:fe:81:53:c4:9d:f0:ac:80:3e:2d:42:07:e8:96:de:09")
	return c
}

// TestCertMeta: the .meta lines of LogTlsLogPem: TIME (CreateTimeString, local time), PCAP
// PKT NUM only for a packet from a capture, the client as SRC (TLSGetIPInformations swaps a
// to-client packet's addresses), PROTO, the ports for TCP and UDP, then cert0's subject,
// issuer and fingerprint. The first row is what tls-store-02's server .meta holds for
// Suricata's packet 10.
func TestCertMeta(t *testing.T) {
	t.Setenv("TZ", "UTC")
	tail := "TLS SUBJECT:       C=HU, O=TLSClientAuthSampleServer, CN=SampleServer\n" +
		"TLS ISSUERDN:      C=HU, O=TLSClientAuthSampleCA, CN=SampleRoot\n" +
		"TLS FINGERPRINT:   06:39:f9:5d:fe:81:53:c4:9d:f0:ac:80:3e:2d:42:07:e8:96:de:09\n"
	v6 := netip.MustParseAddr("::1")
	tests := []struct {
		name string
		p    decode.Packet
		dir  flow.Direction
		want string
	}{
		{"to client ipv6", decode.Packet{Timestamp: time.Unix(1523912382, 235074000), PcapCnt: 10, SrcIP: v6, DstIP: v6,
			IPProto: decode.ProtoTCP, SrcPort: 8081, DstPort: 58606}, flow.ToClient,
			"TIME:              04/16/2018-20:59:42.235074\nPCAP PKT NUM:      10\n" +
				"SRC IP:            0000:0000:0000:0000:0000:0000:0000:0001\nDST IP:            0000:0000:0000:0000:0000:0000:0000:0001\n" +
				"PROTO:             6\nSRC PORT:          58606\nDST PORT:          8081\n" + tail},
		{"to server ipv4, no pcap number", decode.Packet{Timestamp: time.Unix(1, 5000), SrcIP: netip.MustParseAddr("10.0.0.1"),
			DstIP: netip.MustParseAddr("10.0.0.2"), IPProto: decode.ProtoTCP, SrcPort: 1234, DstPort: 443}, flow.ToServer,
			"TIME:              01/01/1970-00:00:01.000005\nSRC IP:            10.0.0.1\nDST IP:            10.0.0.2\n" +
				"PROTO:             6\nSRC PORT:          1234\nDST PORT:          443\n" + tail},
		{"to client ipv4 swapped", decode.Packet{Timestamp: time.Unix(1, 0), PcapCnt: 3, SrcIP: netip.MustParseAddr("10.0.0.2"),
			DstIP: netip.MustParseAddr("10.0.0.1"), IPProto: decode.ProtoTCP, SrcPort: 443, DstPort: 1234}, flow.ToClient,
			"TIME:              01/01/1970-00:00:01.000000\nPCAP PKT NUM:      3\nSRC IP:            10.0.0.1\nDST IP:            10.0.0.2\n" +
				"PROTO:             6\nSRC PORT:          1234\nDST PORT:          443\n" + tail},
		{"sctp: no ports", decode.Packet{Timestamp: time.Unix(1, 0), SrcIP: netip.MustParseAddr("10.0.0.1"),
			DstIP: netip.MustParseAddr("10.0.0.2"), IPProto: 132, SrcPort: 1, DstPort: 2}, flow.ToServer,
			"TIME:              01/01/1970-00:00:01.000000\nSRC IP:            10.0.0.1\nDST IP:            10.0.0.2\n" +
				"PROTO:             132\n" + tail},
	}
	c := metaConn()
	for _, tc := range tests {
		if got := string(appendCertMeta(nil, &tc.p, tc.dir, c)); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	// a side without a decoded cert0 (written only at the flow's end): NULL strings
	c.HasCert = false
	got := string(appendCertMeta(nil, &tests[1].p, flow.ToServer, c))
	if !strings.HasSuffix(got, "TLS SUBJECT:       <ERROR>\nTLS ISSUERDN:      <ERROR>\nTLS FINGERPRINT:   (null)\n") {
		t.Errorf("no cert0: %s", got)
	}
	// %s stops at a NUL byte
	c = metaConn()
	c.Cert.Subject = []byte("CN=a\x00b")
	if got := string(appendCertMeta(nil, &tests[1].p, flow.ToServer, c)); !strings.Contains(got, "TLS SUBJECT:       CN=a\n") {
		t.Errorf("NUL in subject: %s", got)
	}
}

func TestCertStoreDir(t *testing.T) {
	tests := []struct{ logDir, certs, want string }{
		{"/var/log/meerkat", "certs", "/var/log/meerkat/certs"},
		{"/var/log/meerkat", "", "/var/log/meerkat"},
		{"/var/log/meerkat", "/tmp/c", "/tmp/c"},
		{"out", "a/b", "out/a/b"},
	}
	for _, tc := range tests {
		if got := CertStoreDir(tc.logDir, tc.certs); got != tc.want {
			t.Errorf("CertStoreDir(%q, %q) = %q, want %q", tc.logDir, tc.certs, got, tc.want)
		}
	}
}

// TestCertStoreWrites: Store numbers the files with one counter from 1, writes nothing (and
// takes no number) for an unmarked side or one without certificates, clears the mark once
// written, and keeps it when the file cannot be made (with a warning).
func TestCertStoreWrites(t *testing.T) {
	t.Setenv("TZ", "UTC")
	dir := filepath.Join(t.TempDir(), "certs")
	s, err := NewCertStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() || st.Mode().Perm() != 0o750 {
		t.Fatalf("certs dir: %v %v", st, err)
	}
	if _, err := NewCertStore(dir); err != nil { // exists: fine
		t.Fatal(err)
	}
	p := &decode.Packet{Timestamp: time.Unix(100, 7), PcapCnt: 4, SrcIP: netip.MustParseAddr("10.0.0.1"),
		DstIP: netip.MustParseAddr("10.0.0.2"), IPProto: decode.ProtoTCP, SrcPort: 1, DstPort: 2}
	var buf []byte
	empty := &tls.Conn{StoreCerts: true, HasCert: true}
	s.Store(&buf, p, flow.ToServer, empty, false) // no certificates: nothing, no number
	unmarked := metaConn()
	unmarked.StoreCerts = false
	s.Store(&buf, p, flow.ToServer, unmarked, false)
	srv, cli := metaConn(), metaConn()
	srv.Certs = [][]byte{{0x30, 0x03, 0x02, 0x01, 0x05}, {0x30, 0}}
	s.Store(&buf, p, flow.ToClient, srv, false)
	s.Store(&buf, p, flow.ToServer, cli, true)
	s.Store(&buf, p, flow.ToServer, cli, true) // cleared: not again
	if srv.StoreCerts || cli.StoreCerts {
		t.Errorf("marks not cleared: %v %v", srv.StoreCerts, cli.StoreCerts)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := []string{"100.0-1.meta", "100.0-1.pem", "client-100.0-2.meta", "client-100.0-2.pem"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", names, want)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "100.0-1.pem"))
	if string(b) != "-----BEGIN CERTIFICATE-----\nMAMCAQU=\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n" {
		t.Errorf("pem: %q", b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "100.0-1.meta"))
	if !strings.HasPrefix(string(b), "TIME:              01/01/1970-00:01:40.000000\nPCAP PKT NUM:      4\nSRC IP:            10.0.0.2\n") {
		t.Errorf("meta: %s", b)
	}

	var warned []string
	bad := &CertStore{dir: filepath.Join(dir, "missing"), Warn: func(m string) { warned = append(warned, m) }}
	bad.id.Store(1)
	for range certStoreWarnLimit + 2 {
		c := metaConn()
		bad.Store(&buf, p, flow.ToServer, c, false)
		if !c.StoreCerts {
			t.Fatal("mark cleared after a failed write")
		}
	}
	if len(warned) != certStoreWarnLimit || !strings.Contains(warned[0], "Can't create PEM file") {
		t.Errorf("warnings %d: %v", len(warned), warned)
	}
}

func TestTLSStoreReady(t *testing.T) {
	c := metaConn()
	if !TLSStoreReady(c) {
		t.Error("marked side with cert0 not ready")
	}
	c.HasCert = false
	if TLSStoreReady(c) {
		t.Error("ready without cert0 (LogTlsStoreCondition needs its subject and issuer)")
	}
	c = metaConn()
	c.StoreCerts = false
	if TLSStoreReady(c) {
		t.Error("ready without the mark")
	}
}
