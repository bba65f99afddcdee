package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/output"
)

// TestLogAnomalies: a packet's decoder events become anomaly records when types.decode is on,
// and nothing is written otherwise.
func TestLogAnomalies(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  output.AnomalyOptions
		want []string
	}{
		{"decode", output.AnomalyOptions{Decode: true},
			[]string{`"anomaly":{"type":"decode","event":"decoder.ipv4.opt_pad_required"}`, `"anomaly":{"type":"decode","event":"decoder.tcp.opt_duplicate"}`}},
		{"stream only", output.AnomalyOptions{Stream: true, AppLayer: true}, nil},
		{"off", output.AnomalyOptions{}, nil},
	} {
		dir := t.TempDir()
		ew, err := output.OpenWriter(filepath.Join(dir, "eve.json"), false)
		if err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(RunmodeSingle)
		cfg.Outputs = Outputs{EVE: ew, Anomaly: tc.opt}
		w, err := newWorker(0, 1, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		var p decode.Packet
		w.dec.Decode(&p, decode.LinkTypeEthernet, frame([4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}, 40000, 80, decode.TCPFlagSYN, ""))
		p.Timestamp, p.PcapCnt = time.Unix(1700000000, 0), 7
		p.Events.Add(decode.EventTCPOptDuplicate)
		p.Events.Add(decode.EventIPv4OptPadRequired)
		w.logAnomalies(&packetCtx{p: &p})
		if err := w.eve.Flush(); err != nil {
			t.Fatal(err)
		}
		ew.Close()
		data, _ := os.ReadFile(filepath.Join(dir, "eve.json"))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(tc.want) == 0 {
			if len(data) != 0 {
				t.Errorf("%s: wrote %s", tc.name, data)
			}
			continue
		}
		if len(lines) != len(tc.want) {
			t.Fatalf("%s: %d records, want %d:\n%s", tc.name, len(lines), len(tc.want), data)
		}
		for i, want := range tc.want {
			if !strings.Contains(lines[i], `"pcap_cnt":7,"event_type":"anomaly","src_ip":"10.0.0.1"`) || !strings.HasSuffix(lines[i], want+"}") {
				t.Errorf("%s: record %d: %s\nwant it to end with %s", tc.name, i, lines[i], want)
			}
		}
	}
}
