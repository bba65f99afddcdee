package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dnsQuery is a DNS standard query for name (type A, class IN).
func dnsQuery(id uint16, name string) string {
	var b strings.Builder
	b.WriteString(string([]byte{byte(id >> 8), byte(id), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}))
	for _, l := range strings.Split(name, ".") {
		b.WriteByte(byte(len(l)))
		b.WriteString(l)
	}
	b.WriteString("\x00\x00\x01\x00\x01")
	return b.String()
}

// TestDatasetE2E replays DNS queries against datarep and dataset rules: the .rep file is
// found beside the rule file (SetupLoadPath), a set defined under datasets: in the yaml
// (DatasetsInit) is used by name, and a missing load file is a rule error, as in Suricata.
func TestDatasetE2E(t *testing.T) {
	dir := t.TempDir()
	// suricata-verify's dns_rep.rep: client-cf.dropbox.com and block.dropbox.com, rep 255.
	os.WriteFile(filepath.Join(dir, "dns_rep.rep"), []byte("Y2xpZW50LWNmLmRyb3Bib3guY29t,255\nYmxvY2suZHJvcGJveC5jb20=,255\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "names.lst"), []byte("Y29kZW1vbmtleS5uZXQ=\n"), 0o644) // codemonkey.net
	rulesFile := filepath.Join(dir, "ds.rules")
	os.WriteFile(rulesFile, []byte(`alert dns any any -> any any (msg:"rep"; dns.query; datarep:dns_rep,>,0,load dns_rep.rep,type string; sid:1;)
alert dns any any -> any any (msg:"yaml set"; dns.query; dataset:isset,yamlset; sid:2;)
alert dns any any -> any any (msg:"missing"; dns.query; datarep:other,>,0,load nope.rep,type string; sid:3;)
`), 0o644)
	pcap := filepath.Join(dir, "dns.pcap")
	writeFramesPcap(t, pcap,
		ethIPv4UDP(nil, dnsQuery(1, "block.dropbox.com"), 0),
		ethIPv4UDP(nil, dnsQuery(2, "codemonkey.net"), 0),
		ethIPv4UDP(nil, dnsQuery(3, "www.example.com"), 0))
	r := runMeerkat(t, "-c", "suricata.yaml", "-S", rulesFile, "-r", pcap, "-k", "none",
		"--set", "datasets.yamlset.type=string", "--set", "datasets.yamlset.load="+filepath.Join(dir, "names.lst"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "sid 3: failed to set up datarep set 'other'") {
		t.Errorf("missing load file not reported:\n%s", r.stderr)
	}
	got := map[float64]int{}
	for _, e := range ofType(r.eve, "alert") {
		got[getPath(e, "alert.signature_id").(float64)]++
	}
	if got[1] != 1 || got[2] != 1 || got[3] != 0 || len(got) != 2 {
		t.Errorf("alerts by sid = %v, want 1:1 2:1\n%s", got, r.stderr)
	}
}
