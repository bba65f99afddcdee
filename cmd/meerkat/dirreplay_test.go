package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// timedFrame is a frame and its capture time.
type timedFrame struct {
	at    time.Time
	frame []byte
}

// writeTimedPcap writes Ethernet frames as a classic pcap file with the given times.
func writeTimedPcap(t *testing.T, path string, frames ...timedFrame) {
	t.Helper()
	var b bytes.Buffer
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint32(hdr[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 65535)
	binary.LittleEndian.PutUint32(hdr[20:], 1) // Ethernet
	b.Write(hdr)
	for _, f := range frames {
		rec := make([]byte, 16)
		binary.LittleEndian.PutUint32(rec[0:], uint32(f.at.Unix()))
		binary.LittleEndian.PutUint32(rec[4:], uint32(f.at.Nanosecond()/1000))
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(f.frame)))
		binary.LittleEndian.PutUint32(rec[12:], uint32(len(f.frame)))
		b.Write(rec)
		b.Write(f.frame)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// udpFrom is ethIPv4UDP's datagram from 10.0.0.<host>:<port> to 10.0.0.2:53.
func udpFrom(host byte, port uint16) []byte {
	f := ethIPv4UDP(nil, "x", 0)
	f[14+15] = host
	binary.BigEndian.PutUint16(f[14+20:], port)
	return f
}

// flowLines returns the flow records of a replay, one line each (addresses, ports, start,
// end, packets, reason), sorted: workers log in another order than single.
func flowLines(t *testing.T, args ...string) []string {
	t.Helper()
	logDir := t.TempDir()
	cmd := exec.Command(binPath, append(args, "-l", logDir)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "TZ=UTC", "GOMAXPROCS=4") // workers mode: four workers
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	_, recs := readEVE(t, filepath.Join(logDir, "eve.json"))
	var out []string
	for _, r := range ofType(recs, "flow") {
		f := r["flow"].(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v %v:%v %v %v %v/%v %v", r["src_ip"], r["src_port"], r["dest_ip"], r["dest_port"],
			f["start"], f["end"], f["pkts_toserver"], f["pkts_toclient"], f["reason"]))
	}
	sort.Strings(out)
	return out
}

// TestDirectoryReplayFlowClock replays a directory whose second capture lies a day after the
// first and whose third starts again seconds after the first. Suricata times a flow out by
// the packet clock of the thread that owns it; in single mode that clock is every packet's,
// so the first capture's flow has timed out by the time the third capture's packet of the
// same tuple is read, and that packet starts a new flow. Every run mode must give that.
func TestDirectoryReplayFlowClock(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	writeTimedPcap(t, filepath.Join(dir, "1.pcap"), timedFrame{t0, udpFrom(1, 1000)})
	var later []timedFrame
	for i := range 16 { // flows on every worker and on none in particular
		later = append(later, timedFrame{t0.Add(24*time.Hour + time.Duration(i)*time.Second), udpFrom(byte(10+i), 2000)})
	}
	writeTimedPcap(t, filepath.Join(dir, "2.pcap"), later...)
	writeTimedPcap(t, filepath.Join(dir, "3.pcap"), timedFrame{t0.Add(5 * time.Second), udpFrom(1, 1000)})

	var runs [][]string
	for _, mode := range []string{"single", "workers"} {
		lines := flowLines(t, "-c", "suricata.yaml", "--disable-detection", "-r", dir, "--runmode", mode)
		var tuple []string
		for _, l := range lines {
			if strings.HasPrefix(l, "10.0.0.1:1000 ") {
				tuple = append(tuple, l)
			}
		}
		if len(lines) != 18 || len(tuple) != 2 {
			t.Errorf("%s: %d flows, %d of 10.0.0.1:1000, want 18 and 2 (the third capture's packet starts a new flow):\n%s",
				mode, len(lines), len(tuple), strings.Join(lines, "\n"))
		}
		runs = append(runs, lines)
	}
	if strings.Join(runs[0], "\n") != strings.Join(runs[1], "\n") {
		t.Errorf("workers logged other flows than single:\n%s\n---\n%s", strings.Join(runs[0], "\n"), strings.Join(runs[1], "\n"))
	}
}

// TestCorpusDirectoryRunmodesAgree replays the ndpi-tests folder of the shared corpus (when
// the workspace has it) in single and workers mode: the flow records must be the same. The
// folder holds http_asymmetric.pcapng and http_starting_with_reply.pcapng, the same TCP flow
// 192.168.1.146:80 <-> 192.168.1.103:1044 at the same times, with captures of other years in
// between: the first one's flow times out before the second starts, so it is two flows.
func TestCorpusDirectoryRunmodesAgree(t *testing.T) {
	dir := filepath.Join(repoRoot, "..", "shared", "corpus", "pcaps", "ndpi-tests")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no ../shared/corpus/pcaps/ndpi-tests in this workspace")
	}
	if testing.Short() {
		t.Skip("replays 544 captures twice")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	single := flowLines(t, "-c", "suricata.yaml", "--disable-detection", "-r", abs, "--runmode", "single")
	workers := flowLines(t, "-c", "suricata.yaml", "--disable-detection", "-r", abs, "--runmode", "workers")
	if len(single) != len(workers) {
		t.Errorf("single logged %d flows, workers %d", len(single), len(workers))
	}
	for i := range min(len(single), len(workers)) {
		if single[i] != workers[i] {
			t.Errorf("first difference: single %s, workers %s", single[i], workers[i])
			break
		}
	}
	n := 0
	for _, l := range single {
		if strings.HasPrefix(l, "192.168.1.146:80 192.168.1.103:1044 ") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("192.168.1.146:80 <-> 192.168.1.103:1044: %d flows, want 2", n)
	}
}
