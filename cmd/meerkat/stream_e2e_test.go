package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// ethIPv4TCP is an Ethernet frame holding an IPv4/TCP segment from 10.0.0.1:40000 (client,
// toServer) or 10.0.0.2:80, with the given sequence and acknowledgement numbers, flags and
// payload. Checksums are left zero: the tests run with -k none.
func ethIPv4TCP(toServer bool, seq, ack uint32, flags uint8, payload string) []byte {
	n := 20 + 20 + len(payload)
	f := make([]byte, 14+n)
	copy(f[0:], []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00})
	ip := f[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(n))
	ip[8], ip[9] = 64, 6
	src, dst := []byte{10, 0, 0, 1}, []byte{10, 0, 0, 2}
	sp, dp := uint16(40000), uint16(80)
	if !toServer {
		src, dst, sp, dp = dst, src, dp, sp
	}
	copy(ip[12:], src)
	copy(ip[16:], dst)
	t := ip[20:]
	binary.BigEndian.PutUint16(t[0:], sp)
	binary.BigEndian.PutUint16(t[2:], dp)
	binary.BigEndian.PutUint32(t[4:], seq)
	binary.BigEndian.PutUint32(t[8:], ack)
	t[12] = 5 << 4
	t[13] = flags
	binary.BigEndian.PutUint16(t[14:], 65535)
	copy(t[20:], payload)
	return f
}

const (
	tcpFIN = 0x01
	tcpSYN = 0x02
	tcpRST = 0x04
	tcpPSH = 0x08
	tcpACK = 0x10
)

// TestStreamSplitContent: a content split over two segments is found in the reassembled
// stream, not in either packet, and alerts once, on the packet Suricata alerts on: the
// client's FIN moves the session past TIME_WAIT in Suricata's state order (CLOSE_WAIT), which
// triggers raw inspection of the client's ACKed data (suricata-stream-http.md §2.2). The
// tcp-pkt rule, which sees packets only, never matches; with the stream engine off the
// packets are inspected one by one and the split content is not found at all.
func TestStreamSplitContent(t *testing.T) {
	dir := t.TempDir()
	const c, s = 1000, 5000 // ISNs
	frames := [][]byte{
		ethIPv4TCP(true, c, 0, tcpSYN, ""),
		ethIPv4TCP(false, s, c+1, tcpSYN|tcpACK, ""),
		ethIPv4TCP(true, c+1, s+1, tcpACK, ""),
		ethIPv4TCP(true, c+1, s+1, tcpPSH|tcpACK, "xx meerkat-sp"),
		ethIPv4TCP(true, c+14, s+1, tcpPSH|tcpACK, "lit-content yy"),
		ethIPv4TCP(false, s+1, c+28, tcpACK, ""),
		ethIPv4TCP(true, c+28, s+1, tcpFIN|tcpACK, ""), // pcap_cnt 7
		ethIPv4TCP(false, s+1, c+29, tcpFIN|tcpACK, ""),
		ethIPv4TCP(true, c+29, s+2, tcpACK, ""),
	}
	pcap := filepath.Join(dir, "split.pcap")
	writeFramesPcap(t, pcap, frames...)
	rulesPath := filepath.Join(dir, "split.rules")
	rules := `alert tcp any any -> any any (msg:"split content"; content:"meerkat-split-content"; sid:1;)
alert tcp-pkt any any -> any any (msg:"split content, packets only"; content:"meerkat-split-content"; sid:2;)
`
	if err := os.WriteFile(rulesPath, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		wantCnt float64 // pcap_cnt of the one alert; 0: no alert
	}{
		{"stream", nil, 7},
		{"no stream", []string{"--set", "stream.enabled=false"}, 0},
	} {
		args := append([]string{"-c", "suricata.yaml", "-k", "none", "-r", pcap, "-S", rulesPath}, tc.args...)
		r := runMeerkat(t, args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, r.code, r.stderr)
		}
		alerts := ofType(r.eve, "alert")
		if tc.wantCnt == 0 {
			if len(alerts) != 0 {
				t.Errorf("%s: %d alerts, want none", tc.name, len(alerts))
			}
			continue
		}
		if len(alerts) != 1 {
			t.Fatalf("%s: %d alerts, want 1: %v", tc.name, len(alerts), alerts)
		}
		a := alerts[0]
		if sid := getPath(a, "alert.signature_id"); sid != 1.0 {
			t.Errorf("%s: alert for sid %v, want 1", tc.name, sid)
		}
		if cnt := getPath(a, "pcap_cnt"); cnt != tc.wantCnt {
			t.Errorf("%s: alert on pcap_cnt %v, want %v", tc.name, cnt, tc.wantCnt)
		}
	}
}

// TestStreamAnomaly: with the anomaly logger's stream type on, a stream event is logged as
// an anomaly record of type stream (a RST without a session raises rst_but_no_session,
// suricata-stream-http.md §1.2), and the stream event stats count it.
func TestStreamAnomaly(t *testing.T) {
	dir := t.TempDir()
	pcap := filepath.Join(dir, "rst.pcap")
	writeFramesPcap(t, pcap, ethIPv4TCP(true, 77, 0, tcpRST, ""))
	yml := filepath.Join(dir, "suricata.yaml")
	body := "%YAML 1.1\n---\nstats:\n  stream-events: yes\noutputs:\n  - eve-log:\n      enabled: yes\n      filename: eve.json\n      types:\n        - stats\n        - anomaly:\n            types:\n              stream: yes\n"
	if err := os.WriteFile(yml, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runMeerkat(t, "-c", yml, "-k", "none", "-r", pcap, "--disable-detection")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	an := ofType(r.eve, "anomaly")
	if len(an) != 1 {
		t.Fatalf("%d anomaly records, want 1: %v", len(an), r.lines)
	}
	if typ, ev := getPath(an[0], "anomaly.type"), getPath(an[0], "anomaly.event"); typ != "stream" || ev != "stream.rst_but_no_session" {
		t.Errorf("anomaly %v / %v, want stream / stream.rst_but_no_session", typ, ev)
	}
	stats := ofType(r.eve, "stats")
	if len(stats) != 1 || getPath(stats[0], "stats.stream.rst_but_no_session") != 1.0 {
		t.Errorf("stats.stream.rst_but_no_session = %v, want 1", getPath(stats[len(stats)-1], "stats.stream.rst_but_no_session"))
	}
}
