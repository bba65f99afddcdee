package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenCaptures are conformance captures that together cover the link types and layers the
// foundation decodes: Ethernet, BSD null, raw IP, VLAN, IPv4 options and fragments, IPv6
// extension headers and fragments, TCP, UDP, ICMP, ICMPv6, ARP and IGMP.
var goldenCaptures = []string{
	"alert-distance-within-1",      // Ethernet, IPv4, TCP
	"DetectEngineHttpRawUriTest30", // BSD null link type
	"alert-max-20",                 // raw IP link type
	"detect-bytetest-04",           // VLAN
	"bug-4663",                     // ARP, IGMP, IPv4 options
	"drop-protocol-change",         // IPv4 fragments
	"ipv6-malformed-fragments-35",  // IPv6 extension headers and fragments
	"iponly-ipv6-range-01",         // ICMPv6
	"detect-itype",                 // ICMP
	"bug-2158",                     // UDP
}

// TestGoldenFlowAndStats replays conformance captures and compares the EVE flow and stats
// records (stats without wall-clock timestamp and uptime) with testdata/golden. Regenerate
// with MEERKAT_UPDATE_GOLDEN=1 after an intended change, and review the diff.
func TestGoldenFlowAndStats(t *testing.T) {
	root, err := filepath.Abs(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no conformance tests at %s (../shared missing)", conformanceDir)
	}
	for _, name := range goldenCaptures {
		t.Run(name, func(t *testing.T) {
			pcaps, _ := filepath.Glob(filepath.Join(root, name, "*.pcap"))
			if len(pcaps) != 1 {
				t.Skipf("want one capture in %s, found %d", name, len(pcaps))
			}
			r := runMeerkat(t, "-c", "suricata.yaml", "-r", pcaps[0], "-k", "none", "--runmode", "single", "--disable-detection")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var recs []map[string]any
			for _, rec := range r.eve {
				if rec["event_type"] == "flow" || rec["event_type"] == "stats" {
					recs = append(recs, rec)
				}
			}
			got := strings.Join(comparable(t, recs), "\n") + "\n"
			checkGolden(t, name, got)
		})
	}
}

// TestGoldenFirewallSample replays the bundled capture in firewall mode (--firewall with the
// bundled rules/firewall.rules and threat-detection rules) in the single and workers run
// modes: both must log the same records, equal to testdata/golden/firewall-sample.jsonl
// (MEERKAT_UPDATE_GOLDEN=1 rewrites it), and the verdict counters must add up: every packet
// is accepted, blocked or rejected by the firewall, and threat detection decides only the
// packets the firewall let through.
func TestGoldenFirewallSample(t *testing.T) {
	var runs [][]string
	for _, mode := range []string{"single", "workers"} {
		r := runMeerkat(t, "-c", "suricata.yaml", "--firewall", "-S", "rules/meerkat.rules", "-r", "pcaps/sample.pcap", "--runmode", mode)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", mode, r.code, r.stderr)
		}
		stats := ofType(r.eve, "stats")
		if len(stats) != 1 {
			t.Fatalf("%s: %d stats records", mode, len(stats))
		}
		st := stats[0]["stats"].(map[string]any)
		num := func(path ...string) float64 {
			var cur any = st
			for _, p := range path {
				m, ok := cur.(map[string]any)
				if !ok {
					return -1
				}
				cur = m[p]
			}
			v, _ := cur.(float64)
			return v
		}
		fwTotal := num("firewall", "accepted") + num("firewall", "blocked") + num("firewall", "rejected")
		// The capture's 28 packets and the datagram rebuilt from its fragments.
		if fwTotal != 29 {
			t.Errorf("%s: firewall verdicts %v, want 29", mode, fwTotal)
		}
		if ips := num("ips", "accepted") + num("ips", "blocked") + num("ips", "rejected"); ips != num("firewall", "accepted") {
			t.Errorf("%s: ips verdicts %v, firewall accepted %v", mode, ips, num("firewall", "accepted"))
		}
		if num("firewall", "blocked") == 0 || num("firewall", "drop_reason", "default_packet_policy") != num("firewall", "blocked") {
			t.Errorf("%s: firewall blocked %v, default_packet_policy %v", mode, num("firewall", "blocked"), num("firewall", "drop_reason", "default_packet_policy"))
		}
		for _, a := range ofType(r.eve, "alert") {
			if e := a["alert"].(map[string]any)["engine"]; e != "td" && e != "fw" {
				t.Errorf("%s: alert without engine: %v", mode, a)
			}
		}
		runs = append(runs, comparable(t, r.eve))
	}
	if strings.Join(runs[0], "\n") != strings.Join(runs[1], "\n") {
		t.Errorf("workers logged differently from single:\n%s\n---\n%s", strings.Join(runs[0], "\n"), strings.Join(runs[1], "\n"))
	}
	checkGolden(t, "firewall-sample", strings.Join(runs[0], "\n")+"\n")
}

// checkGolden compares got with testdata/golden/<name>.jsonl line by line;
// MEERKAT_UPDATE_GOLDEN=1 rewrites the file first (review the diff).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".jsonl")
	if os.Getenv("MEERKAT_UPDATE_GOLDEN") == "1" {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (MEERKAT_UPDATE_GOLDEN=1 creates it)", err)
	}
	if string(want) == got {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s line %d differs from the golden file:\ngot:  %s\nwant: %s", name, i+1, g, w)
		}
	}
}
