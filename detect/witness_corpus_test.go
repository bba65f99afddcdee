package detect

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// TestWitnessesMatchNoIndexOnCorpus replays the corpus captures through two engines built from
// the same rules, one with the header witness index and one without, in lockstep, and checks
// that every packet gets the same alerts. The rules are the ET Open 2024 rules the engine loads
// and the header-only rules of bench/gen-rules' two mixes (et and scan), in IPS and firewall
// mode (the firewall policy of bench/gen-firewall).
func TestWitnessesMatchNoIndexOnCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the corpus")
	}
	dir := sharedRules(t)
	pcaps := filepath.Join(dir, "..", "pcaps")
	files, _ := filepath.Glob(filepath.Join(dir, "et-open-2024-04", "*.rules"))
	if len(files) == 0 {
		t.Skipf("no ET Open rules in %s", dir)
	}
	sort.Strings(files)
	l := rules.NewLoader(nil)
	for _, f := range files {
		l.LoadFile(f)
	}
	rs := l.Rules()
	work := t.TempDir()
	gen := func(name string, args ...string) string {
		out := filepath.Join(work, name)
		cmd := exec.Command("go", append([]string{"run", "../bench/" + name[:len(name)-len(filepath.Ext(name))]}, args...)...)
		data, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, mix := range []string{"et", "scan"} {
		path := gen("gen-rules.rules", "-n", "2000", "-broad", "0", "-header", "1", "-header-mix", mix, "-seed", "3",
			"-sidbase", map[string]string{"et": "5000000", "scan": "6000000"}[mix])
		lg := rules.NewLoader(nil)
		if errs, _ := lg.LoadFile(path); len(errs) > 0 {
			t.Fatalf("gen-rules %s: %v", mix, errs[0])
		}
		rs = append(rs, lg.Rules()...)
	}
	fwPath := gen("gen-firewall.rules", "-n", "200", "-seed", "1")
	lf := rules.NewLoader(nil)
	lf.Options.Firewall = true
	if errs, _ := lf.LoadFile(fwPath); len(errs) > 0 {
		t.Fatalf("gen-firewall: %v", errs[0])
	}
	fwRules := lf.Rules()
	for _, mode := range []string{"ips", "firewall"} {
		t.Run(mode, func(t *testing.T) {
			all, cfg := rs, Config{IPS: true, Grouping: Grouping{SharedMPM: true}}
			if mode == "firewall" {
				all, cfg.Firewall = append(append([]*rules.Rule(nil), fwRules...), rs...), true
			}
			with, _, err := Build(all, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer with.Close()
			cfg.NoHeaderIndex = true
			without, _, err := Build(all, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer without.Close()
			witnessed := 0
			for _, r := range with.Rules() {
				if r.witness.Witnessed() {
					witnessed++
				}
			}
			if witnessed < 1000 {
				t.Fatalf("only %d rules have a witness", witnessed)
			}
			pkts, alerts := replayBoth(t, pcaps, with, without)
			t.Logf("%s: %d rules, %d witnessed; %d packets, %d alerts, identical", mode, with.Len(), witnessed, pkts, alerts)
			if alerts == 0 {
				t.Error("no alerts at all: the comparison shows nothing")
			}
		})
	}
}

// replayBoth replays the captures of every folder under dir through engines a and b, each with
// its own flow table, and fails at the first packet whose alerts (or, in firewall mode,
// verdict) differ.
func replayBoth(t *testing.T, dir string, a, b *Engine) (packets, alerts int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("captures: %v", err)
	}
	var srcs []capture.Source
	for _, en := range ents {
		if !en.IsDir() {
			continue
		}
		src, err := capture.OpenPath(filepath.Join(dir, en.Name()))
		if err != nil {
			continue
		}
		defer src.Close()
		srcs = append(srcs, src)
	}
	if len(srcs) == 0 {
		t.Skipf("no capture folders in %s", dir)
	}
	type side struct {
		e     *Engine
		tc    *ThreadCtx
		flows *flow.Table
	}
	to := flow.Timeouts{New: 30 * time.Second, Established: 300 * time.Second, Closed: 10 * time.Second}
	mk := func(e *Engine) *side {
		tc, err := e.NewThreadCtx(nil)
		if err != nil {
			t.Fatal(err)
		}
		return &side{e: e, tc: tc, flows: flow.NewTable(flow.Config{MaxFlows: 1 << 16, TCP: to, UDP: to, ICMP: to, Default: to}, 1<<14, 0)}
	}
	sa, sb := mk(a), mk(b)
	defer sa.tc.Close()
	defer sb.tc.Close()
	var dec decode.Decoder
	var p decode.Packet
	var fr capture.Frame
	run := func(s *side) string {
		f, dir := s.flows.Packet(&p)
		if s.e.firewall {
			s.tc.StartPacket()
		}
		s.e.Inspect(s.tc, &p, f, dir)
		var sids []uint32
		for _, en := range s.tc.Queue.Entries() {
			sids = append(sids, s.e.Rule(en.IID).Src.SID)
		}
		for _, r := range s.tc.FirewallAlerts() {
			if r.Src != nil {
				sids = append(sids, r.Src.SID)
			}
		}
		out := fmt.Sprint(sids)
		if s.e.firewall {
			out += fmt.Sprintf(" verdict %v reason %v", s.tc.Verdict.Action, s.tc.Verdict.Reason)
		}
		alerts += len(sids)
		return out
	}
	for _, src := range srcs {
		for {
			err := src.Next(&fr)
			if err == io.EOF {
				break
			}
			if err != nil {
				continue // a truncated or unreadable file: the directory source goes on
			}
			dec.Decode(&p, fr.LinkType, fr.Data)
			p.Timestamp = fr.Timestamp
			packets++
			ga, gb := run(sa), run(sb)
			if ga != gb {
				t.Fatalf("packet %d (%v:%d -> %v:%d proto %d): %s with witnesses, %s without", packets,
					p.SrcIP, p.SrcPort, p.DstIP, p.DstPort, p.IPProto, ga, gb)
			}
		}
	}
	return packets, alerts / 2
}
