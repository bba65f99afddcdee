package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// httpEVEConfig is the repository's suricata.yaml, which ships eve-log types http (extended,
// as Suricata ships it) and files, with force-hash md5, sha256 added to files, and an xff
// section of eve-log that the types without their own use.
func httpEVEConfig(t *testing.T, dir, xff string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "suricata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	const anchor = "        - files:\n            # One fileinfo record per HTTP file (no file-store yet: stored is false).\n"
	if !strings.Contains(s, anchor) || !strings.Contains(s, "        - http:\n") {
		t.Fatal("suricata.yaml does not ship the http and files types")
	}
	s = strings.Replace(s, anchor, anchor+"            force-hash: [md5, sha256]\n", 1)
	if xff != "" {
		s = strings.Replace(s, "      types:\n", "      xff:\n"+xff+"      types:\n", 1)
	}
	path := filepath.Join(dir, "suricata.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// httpFlowPcap writes one HTTP/1.1 transaction over a full TCP session: the request (with
// an X-Forwarded-For chain) at pcap_cnt 4, the response with a 5-byte body at 6.
func httpFlowPcap(t *testing.T, dir string) string {
	t.Helper()
	const c, s = 1000, 5000
	req := "GET /dir/file.txt HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: meerkat-test\r\n" +
		"X-Forwarded-For: 10.1.1.1, 10.2.2.2\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\nhello"
	rq, rs := uint32(len(req)), uint32(len(resp))
	frames := [][]byte{
		ethIPv4TCP(true, c, 0, tcpSYN, ""),
		ethIPv4TCP(false, s, c+1, tcpSYN|tcpACK, ""),
		ethIPv4TCP(true, c+1, s+1, tcpACK, ""),
		ethIPv4TCP(true, c+1, s+1, tcpPSH|tcpACK, req),
		ethIPv4TCP(false, s+1, c+1+rq, tcpACK, ""),
		ethIPv4TCP(false, s+1, c+1+rq, tcpPSH|tcpACK, resp),
		ethIPv4TCP(true, c+1+rq, s+1+rs, tcpACK, ""),
		ethIPv4TCP(true, c+1+rq, s+1+rs, tcpFIN|tcpACK, ""),
		ethIPv4TCP(false, s+1+rs, c+2+rq, tcpFIN|tcpACK, ""),
		ethIPv4TCP(true, c+2+rq, s+2+rs, tcpACK, ""),
	}
	pcap := filepath.Join(dir, "http.pcap")
	writeFramesPcap(t, pcap, frames...)
	return pcap
}

// TestEVEHTTPRecords: an HTTP transaction gives one http record (flow direction, tx_id 0,
// the §6.2 fields), one fileinfo record for the response body (server as src, CLOSED, the
// forced digests), and app_proto http in the flow record; with and without detection.
func TestEVEHTTPRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := httpEVEConfig(t, dir, "")
	pcap := httpFlowPcap(t, dir)
	for _, args := range [][]string{{"--disable-detection"}, {"-S", "/dev/null"}} {
		r := runMeerkat(t, append([]string{"-c", cfg, "-k", "none", "-r", pcap}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		https := ofType(r.eve, "http")
		if len(https) != 1 {
			t.Fatalf("%v: %d http records, want 1: %v", args, len(https), r.lines)
		}
		h := https[0]
		for path, want := range map[string]any{
			"src_ip": "10.0.0.1", "src_port": 40000.0, "dest_ip": "10.0.0.2", "dest_port": 80.0, "tx_id": 0.0,
			"http.hostname": "www.example.com", "http.url": "/dir/file.txt", "http.http_user_agent": "meerkat-test",
			"http.xff": "10.1.1.1, 10.2.2.2", "http.http_content_type": "text/plain", "http.http_method": "GET",
			"http.protocol": "HTTP/1.1", "http.status": 200.0, "http.length": 5.0,
		} {
			if got := getPath(h, path); got != want {
				t.Errorf("%v: http %s = %v, want %v", args, path, got, want)
			}
		}
		if getPath(h, "xff") != nil {
			t.Errorf("%v: top-level xff without an xff section", args)
		}
		files := ofType(r.eve, "fileinfo")
		if len(files) != 1 {
			t.Fatalf("%v: %d fileinfo records, want 1: %v", args, len(files), r.lines)
		}
		f := files[0]
		for path, want := range map[string]any{
			"src_ip": "10.0.0.2", "dest_ip": "10.0.0.1", "app_proto": "http", "http.hostname": "www.example.com",
			"fileinfo.filename": "/dir/file.txt", // the whole URI path (HtpResponseBodyHandle; SV bug-130)
			"fileinfo.state":    "CLOSED", "fileinfo.size": 5.0, "fileinfo.gaps": false,
			"fileinfo.stored": false, "fileinfo.tx_id": 0.0,
			"fileinfo.md5":    "5d41402abc4b2a76b9719d911017c592",
			"fileinfo.sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
		} {
			if got := getPath(f, path); got != want {
				t.Errorf("%v: fileinfo %s = %v, want %v", args, path, got, want)
			}
		}
		if getPath(f, "fileinfo.sha1") != nil {
			t.Errorf("%v: sha1 not forced but logged", args)
		}
		flows := ofType(r.eve, "flow")
		if len(flows) != 1 || getPath(flows[0], "app_proto") != "http" {
			t.Errorf("%v: flow records %v", args, flows)
		}
		st := ofType(r.eve, "stats")
		if len(st) != 1 || getPath(st[0], "stats.app_layer.flow.http") != 1.0 || getPath(st[0], "stats.app_layer.tx.http") != 1.0 {
			t.Errorf("%v: stats app_layer: %v", args, getPath(st[0], "stats.app_layer"))
		}
	}
}

// TestEVEHTTPXFF: eve-log's xff section applies to the http type (OutputHttpLogInitSub's
// parent_xff_cfg): extra-data with deployment forward adds xff with the chain's first
// address (SV http-xff-eve-forward-extra-data).
func TestEVEHTTPXFF(t *testing.T) {
	dir := t.TempDir()
	cfg := httpEVEConfig(t, dir, "        enabled: yes\n        mode: extra-data\n        deployment: forward\n")
	r := runMeerkat(t, "-c", cfg, "-k", "none", "-r", httpFlowPcap(t, dir), "--disable-detection")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	https := ofType(r.eve, "http")
	if len(https) != 1 || getPath(https[0], "xff") != "10.1.1.1" {
		t.Fatalf("http records %v", https)
	}
	files := ofType(r.eve, "fileinfo")
	if len(files) != 1 || getPath(files[0], "xff") != "10.1.1.1" {
		t.Fatalf("fileinfo records %v", files)
	}
}
