package main

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const tlsStoreTest = "../../../shared/conformance/tests-next/tls-store-02"

// runTLSStore runs meerkat on tls-store-02's capture with config and rules, in single mode
// with checksums off as the test's args say, and returns the log directory.
func runTLSStore(t *testing.T, config, rulesFile string) string {
	t.Helper()
	root, _ := filepath.Abs(repoRoot)
	logDir := t.TempDir()
	cmd := exec.Command(binPath, "-k", "none", "--runmode=single",
		"--set", "classification-file="+filepath.Join(root, "classification.config"),
		"--set", "reference-config-file="+filepath.Join(root, "reference.config"),
		"-c", config, "-S", rulesFile, "-r", filepath.Join(tlsStoreTest, "tls-client-auth.pcap"), "-l", logDir)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("meerkat: %v\n%s", err, stderr.String())
	}
	return logDir
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// pemSubjects parses a .pem file and returns its certificates' subjects.
func pemSubjects(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var subs []string
	for len(b) > 0 {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			t.Fatalf("%s: trailing bytes %q", path, b)
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		subs = append(subs, c.Subject.String())
	}
	return subs
}

// TestTLSStore02 is suricata-verify's tls-store-02: the two tls.store rules store the
// server's chain (on packet 10, the first to-client packet after the server's Certificate
// was parsed, as Suricata's file name 1523912382.235074-1 says) and the client's (packet
// 12, client-1523912382.237160-2) under the log directory's certs folder. The .meta lines
// are LogTlsLogPem's for those packets.
func TestTLSStore02(t *testing.T) {
	if _, err := os.Stat(tlsStoreTest); err != nil {
		t.Skipf("no %s (../shared missing): %v", tlsStoreTest, err)
	}
	logDir := runTLSStore(t, filepath.Join(tlsStoreTest, "suricata.yaml"), filepath.Join(tlsStoreTest, "tls.rules"))
	certs := filepath.Join(logDir, "certs")
	want := []string{"1523912382.235074-1.meta", "1523912382.235074-1.pem",
		"client-1523912382.237160-2.meta", "client-1523912382.237160-2.pem"}
	if got := dirNames(t, certs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("certs: %v, want %v", got, want)
	}
	srv := pemSubjects(t, filepath.Join(certs, "1523912382.235074-1.pem"))
	if len(srv) != 2 || !strings.Contains(srv[0], "O=TLSClientAuthSampleServer") || !strings.Contains(srv[1], "O=TLSClientAuthSampleCA") {
		t.Errorf("server chain %v", srv)
	}
	cli := pemSubjects(t, filepath.Join(certs, "client-1523912382.237160-2.pem"))
	if len(cli) == 0 || !strings.Contains(cli[0], "O=TLSClientAuthSampleClient") {
		t.Errorf("client chain %v", cli)
	}
	meta, _ := os.ReadFile(filepath.Join(certs, "1523912382.235074-1.meta"))
	wantMeta := "TIME:              04/16/2018-20:59:42.235074\n" +
		"PCAP PKT NUM:      10\n" +
		"SRC IP:            0000:0000:0000:0000:0000:0000:0000:0001\n" +
		"DST IP:            0000:0000:0000:0000:0000:0000:0000:0001\n" +
		"PROTO:             6\n" +
		"SRC PORT:          58606\n" +
		"DST PORT:          8081\n" +
		"TLS SUBJECT:       C=HU, ST=Budapest, L=Budapest, O=TLSClientAuthSampleServer, CN=SampleServer\n" +
		"TLS ISSUERDN:      C=HU, ST=Budapest, L=Budapest, O=TLSClientAuthSampleCA, CN=SampleRoot\n" +
		"TLS FINGERPRINT:   06:39:f9:5d:fe:81:53:c4:9d:f0:ac:80:3e:2d:42:07:e8:96:de:09\n"
	if string(meta) != wantMeta {
		t.Errorf("server meta:\n%s\nwant\n%s", meta, wantMeta)
	}
	meta, _ = os.ReadFile(filepath.Join(certs, "client-1523912382.237160-2.meta"))
	if !strings.HasPrefix(string(meta), "TIME:              04/16/2018-20:59:42.237160\nPCAP PKT NUM:      12\n") ||
		!strings.Contains(string(meta), "\nTLS SUBJECT:       C=HU, ST=Budapest, L=Budapest, O=TLSClientAuthSampleClient, CN=SampleClientJane\n") {
		t.Errorf("client meta:\n%s", meta)
	}
	_, eve := readEVE(t, filepath.Join(logDir, "eve.json"))
	sids := map[float64]int{}
	for _, a := range ofType(eve, "alert") {
		sids[getPath(a, "alert.signature_id").(float64)]++
	}
	if sids[1] != 1 || sids[2] != 1 {
		t.Errorf("alerts by sid %v, want one each of 1 and 2", sids)
	}
}

// TestTLSStoreWithoutEVE: the tls-store output works without eve-log, and without
// certs-log-dir writes into the log directory; a rule without tls.store stores nothing.
func TestTLSStoreWithoutEVE(t *testing.T) {
	if _, err := os.Stat(tlsStoreTest); err != nil {
		t.Skipf("no %s (../shared missing): %v", tlsStoreTest, err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "suricata.yaml")
	os.WriteFile(cfg, []byte("%YAML 1.1\n---\noutputs:\n  - tls-store:\n      enabled: yes\n"), 0o644)
	logDir := runTLSStore(t, cfg, filepath.Join(tlsStoreTest, "tls.rules"))
	want := []string{"1523912382.235074-1.meta", "1523912382.235074-1.pem",
		"client-1523912382.237160-2.meta", "client-1523912382.237160-2.pem"}
	if got := dirNames(t, logDir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("log dir: %v, want %v", got, want)
	}

	rf := filepath.Join(dir, "nostore.rules")
	os.WriteFile(rf, []byte(`alert tls any any -> any any (tls.cert_subject; content:"O=TLSClientAuthSampleServer"; sid:1; rev:1;)`+"\n"), 0o644)
	logDir = runTLSStore(t, filepath.Join(tlsStoreTest, "suricata.yaml"), rf)
	if got := dirNames(t, filepath.Join(logDir, "certs")); len(got) != 0 {
		t.Errorf("without tls.store: %v", got)
	}
}
