package pipeline

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/defrag"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/output"
	"github.com/meerkat-ids/meerkat/rules"
)

// frame builds an Ethernet/IPv4/TCP frame (checksums left zero: tests run with ChecksumNone).
func frame(src, dst [4]byte, sport, dport uint16, flags uint8, payload string) []byte {
	b := make([]byte, 14+20+20+len(payload))
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(40+len(payload)))
	ip[8] = 64
	ip[9] = 6
	copy(ip[12:], src[:])
	copy(ip[16:], dst[:])
	tcp := ip[20:]
	binary.BigEndian.PutUint16(tcp[0:], sport)
	binary.BigEndian.PutUint16(tcp[2:], dport)
	tcp[12] = 5 << 4
	tcp[13] = flags
	copy(tcp[20:], payload)
	return b
}

func testConfig(rm Runmode) Config {
	to := flow.Timeouts{New: 30 * time.Second, Established: 300 * time.Second, Closed: 10 * time.Second}
	return Config{
		Runmode: rm, Workers: 2, Checksums: decode.ChecksumNone,
		Flow:         flow.Config{MaxFlows: 10000, TCP: to, UDP: to, ICMP: to, Default: to},
		FlowHashSize: 1024, FlowPrealloc: 64, Defrag: defrag.DefaultConfig(),
	}
}

func TestProcessAllocatesNothing(t *testing.T) {
	cfg := testConfig(RunmodeSingle)
	w, _ := newWorker(0, 1, &cfg)
	ts := time.Unix(1700000000, 0)
	c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	frames := [][]byte{
		frame(c, s, 40000, 80, decode.TCPFlagSYN, ""),
		frame(s, c, 80, 40000, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
		frame(c, s, 40000, 80, decode.TCPFlagACK, ""),
		frame(c, s, 40000, 80, decode.TCPFlagACK|decode.TCPFlagPSH, "GET / HTTP/1.1\r\n\r\n"),
		frame(s, c, 80, 40000, decode.TCPFlagACK, ""),
	}
	var n uint64
	next := func() {
		n++
		fr := capture.Frame{Data: frames[int(n)%len(frames)], Timestamp: ts.Add(time.Duration(n) * time.Millisecond),
			LinkType: decode.LinkTypeEthernet, Cnt: n}
		w.process(&fr)
	}
	for i := 0; i < 10; i++ {
		next()
	}
	if allocs := testing.AllocsPerRun(2000, next); allocs != 0 {
		t.Errorf("%.2f allocations per packet through decode and flow", allocs)
	}
	if w.flows.Len() != 1 {
		t.Errorf("%d flows, want 1", w.flows.Len())
	}
}

// memSource replays frames from memory.
type memSource struct {
	frames []capture.Frame
	i      int
}

func (m *memSource) Next(f *capture.Frame) error {
	if m.i >= len(m.frames) {
		return io.EOF
	}
	*f = m.frames[m.i]
	m.i++
	return nil
}

func (m *memSource) Close() error { return nil }

func manyFlows(n int) []capture.Frame {
	ts := time.Unix(1700000000, 0)
	var out []capture.Frame
	for i := 0; i < n; i++ {
		c := [4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}
		s := [4]byte{172, 16, 0, byte(i % 200)}
		sp := uint16(1024 + i%50000)
		for k, f := range [][]byte{
			frame(c, s, sp, 80, decode.TCPFlagSYN, ""),
			frame(s, c, 80, sp, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
			frame(c, s, sp, 80, decode.TCPFlagACK, ""),
			frame(c, s, sp, 80, decode.TCPFlagACK|decode.TCPFlagPSH, "hello"),
			frame(s, c, 80, sp, decode.TCPFlagRST, ""),
		} {
			out = append(out, capture.Frame{Data: f, Timestamp: ts.Add(time.Duration(i*5+k) * time.Millisecond),
				LinkType: decode.LinkTypeEthernet, Cnt: uint64(len(out) + 1)})
		}
	}
	return out
}

func TestRunmodesCountAlike(t *testing.T) {
	frames := manyFlows(3000)
	var got []map[string]uint64
	for _, rm := range []Runmode{RunmodeSingle, RunmodeWorkers} {
		res, err := Run(context.Background(), &memSource{frames: frames}, testConfig(rm))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]uint64{}
		res.Stats.Each(func(name string, v uint64) { m[name] = v })
		if res.Packets != uint64(len(frames)) {
			t.Errorf("%s: %d packets, want %d", rm, res.Packets, len(frames))
		}
		got = append(got, m)
	}
	for k, v := range got[0] {
		if got[1][k] != v {
			t.Errorf("counter %s: single %d, workers %d", k, v, got[1][k])
		}
	}
	if got[0]["flow.total"] != 3000 || got[0]["flow.tcp"] != 3000 {
		t.Errorf("flow counters %d/%d, want 3000", got[0]["flow.total"], got[0]["flow.tcp"])
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	frames := manyFlows(2000)
	for _, rm := range []Runmode{RunmodeSingle, RunmodeWorkers} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := Run(ctx, &memSource{frames: frames}, testConfig(rm))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Interrupted || res.Packets >= uint64(len(frames)) {
			t.Errorf("%s: interrupted %v after %d packets", rm, res.Interrupted, res.Packets)
		}
	}
}

func TestPeekHashSymmetric(t *testing.T) {
	a := frame([4]byte{1, 2, 3, 4}, [4]byte{5, 6, 7, 8}, 1, 2, 0, "")
	b := frame([4]byte{5, 6, 7, 8}, [4]byte{1, 2, 3, 4}, 2, 1, 0, "")
	if peekHash(decode.LinkTypeEthernet, a) != peekHash(decode.LinkTypeEthernet, b) {
		t.Errorf("directions hash differently")
	}
	for _, short := range [][]byte{nil, {1}, a[:20]} {
		peekHash(decode.LinkTypeEthernet, short) // must not panic
	}
}

func BenchmarkWorkerProcess(b *testing.B) {
	cfg := testConfig(RunmodeSingle)
	w, _ := newWorker(0, 1, &cfg)
	frames := manyFlows(2000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.process(&frames[i%len(frames)])
		i++
	}
}

// loadFrames reads every frame of a capture file or directory into memory (a truncated capture
// ends its file, as in a replay).
func loadFrames(tb testing.TB, path string) []capture.Frame {
	src, err := capture.OpenPath(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	var frames []capture.Frame
	for {
		var fr capture.Frame
		if err := src.Next(&fr); err != nil {
			if errors.Is(err, io.EOF) {
				return frames
			}
			continue // a truncated capture: a directory source goes on with the next file
		}
		fr.Data = append([]byte(nil), fr.Data...)
		frames = append(frames, fr)
	}
}

// BenchmarkReplayFile runs the frames of the capture named by MEERKAT_BENCH_PCAP through one
// worker from memory (no I/O on the read side), to split the cost of a replay into stages.
// Sub-benchmarks: decode only, decode+flow, decode+flow+flow records to /dev/null.
func BenchmarkReplayFile(b *testing.B) {
	path := os.Getenv("MEERKAT_BENCH_PCAP")
	if path == "" {
		b.Skip("set MEERKAT_BENCH_PCAP to a capture file")
	}
	frames := loadFrames(b, path)
	devnull, err := output.OpenWriter(os.DevNull, true)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"read", "decode", "decode+flow", "decode+flow+eve"} {
		for _, ck := range []decode.ChecksumMode{decode.ChecksumNone, decode.ChecksumAll} {
			name := mode + map[decode.ChecksumMode]string{decode.ChecksumNone: "/k-none", decode.ChecksumAll: "/k-all"}[ck]
			b.Run(name, func(b *testing.B) {
				cfg := testConfig(RunmodeSingle)
				cfg.Checksums = ck
				cfg.FlowHashSize, cfg.FlowPrealloc = 1024, 64
				if mode == "decode+flow+eve" {
					cfg.Outputs = Outputs{EVE: devnull, EVEFlow: true}
				}
				var sum byte
				for b.Loop() {
					w, _ := newWorker(0, 1, &cfg)
					for i := range frames {
						switch mode {
						case "read":
							sum ^= frames[i].Data[0]
						case "decode":
							w.dec.Decode(&w.pkt, frames[i].LinkType, frames[i].Data)
						default:
							w.process(&frames[i])
						}
					}
					w.flows.ExpireAt(w.flows.Now())
					w.flows.Shutdown()
					w.flush()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/pkt")
			})
		}
	}
}

// TestFlowPassStopsInspection: an IP-only pass rule applies to the flow (auto scope), so the
// flow's later packets are not inspected and the alert rule never fires; a packet-scoped pass
// (flags makes the rule a packet rule) only passes its own packet.
func TestFlowPassStopsInspection(t *testing.T) {
	build := func(texts ...string) *detect.Engine {
		var rs []*rules.Rule
		for _, s := range texts {
			r, err := rules.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		e, errs, err := detect.Build(rs, detect.Config{})
		if err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		return e
	}
	for _, tc := range []struct {
		name   string
		pass   string
		alerts uint64
	}{
		{"flow pass", `pass ip 10.0.0.1 any -> any any (sid:1;)`, 0},
		{"packet pass", `pass tcp 10.0.0.1 any -> any any (flags:S; sid:1;)`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := build(tc.pass, `alert tcp any any -> any any (content:"hello"; sid:2;)`)
			defer e.Close()
			cfg := testConfig(RunmodeSingle)
			cfg.Engine = e
			c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
			ts := time.Unix(1700000000, 0)
			var frames []capture.Frame
			for i, f := range [][]byte{
				frame(c, s, 40000, 80, decode.TCPFlagSYN, ""),
				frame(s, c, 80, 40000, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
				frame(c, s, 40000, 80, decode.TCPFlagACK, ""),
				frame(c, s, 40000, 80, decode.TCPFlagACK|decode.TCPFlagPSH, "hello"),
			} {
				frames = append(frames, capture.Frame{Data: f, Timestamp: ts.Add(time.Duration(i) * time.Millisecond),
					LinkType: decode.LinkTypeEthernet, Cnt: uint64(i + 1)})
			}
			res, err := Run(context.Background(), &memSource{frames: frames}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Alerts != tc.alerts {
				t.Errorf("%d alerts, want %d", res.Alerts, tc.alerts)
			}
		})
	}
}

// TestIPSDrops: in IPS mode a flow-scoped drop (IP-only rule) drops its packet with reason
// "rules", every later packet of the flow with "flow drop", logs one drop record per flow
// direction plus the rule's, and counts ips.blocked/accepted.
func TestIPSDrops(t *testing.T) {
	r, err := rules.Parse(`drop ip 10.0.0.1 any -> any any (msg:"drop it"; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	e, errs, err := detect.Build([]*rules.Rule{r}, detect.Config{IPS: true})
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	defer e.Close()
	dir := t.TempDir()
	w, err := output.OpenWriter(filepath.Join(dir, "eve.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(RunmodeSingle)
	cfg.Engine, cfg.IPS = e, true
	cfg.Outputs = Outputs{EVE: w, EVEAlert: true, EVEDrop: true, DropAlerts: true, EVEStats: true}
	c, s, o := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}, [4]byte{10, 0, 0, 3}
	ts := time.Unix(1700000000, 0)
	var frames []capture.Frame
	for i, f := range [][]byte{
		frame(c, s, 40000, 80, decode.TCPFlagSYN, ""),
		frame(s, c, 80, 40000, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
		frame(c, s, 40000, 80, decode.TCPFlagACK, ""),
		frame(o, s, 40001, 80, decode.TCPFlagSYN, ""), // another flow, not dropped
	} {
		frames = append(frames, capture.Frame{Data: f, Timestamp: ts.Add(time.Duration(i) * time.Millisecond),
			LinkType: decode.LinkTypeEthernet, Cnt: uint64(i + 1)})
	}
	res, err := Run(context.Background(), &memSource{frames: frames}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if res.Drops != 3 || res.Stats.Value("ips.accepted") != 1 || res.Stats.Value("ips.drop_reason.rules") != 1 ||
		res.Stats.Value("ips.drop_reason.flow_drop") != 2 {
		var all []string
		res.Stats.Each(func(n string, v uint64) {
			if strings.HasPrefix(n, "ips.") {
				all = append(all, fmt.Sprintf("%s=%d", n, v))
			}
		})
		t.Errorf("drops %d, stats %v", res.Drops, all)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "eve.json"))
	text := string(data)
	// The rule's drop (with its alert), then the first flow drop of the other direction; the
	// third packet's flow drop in a direction already logged is not logged (flows: start).
	if n := strings.Count(text, `"event_type":"drop"`); n != 2 {
		t.Errorf("%d drop records, want 2:\n%s", n, text)
	}
	for _, want := range []string{`"reason":"rules"},"alert":{"action":"blocked"`, `"reason":"flow drop"`, `"action":"blocked","gid":1,"signature_id":1`} {
		if !strings.Contains(text, want) {
			t.Errorf("eve lacks %s:\n%s", want, text)
		}
	}
}

func TestPacketVerdict(t *testing.T) {
	tcp := &decode.Packet{IPVersion: 4, IPProto: decode.ProtoTCP, HasL4: true}
	type add struct {
		iid    uint32
		action alert.Action
	}
	tests := []struct {
		name string
		adds []add
		ips  bool
		want output.Verdict
	}{
		{"alerts only", []add{{1, alert.ActionAlert}, {2, alert.ActionAlert}}, false, output.Verdict{Action: "alert"}},
		{"drop in IDS", []add{{1, alert.ActionDrop | alert.ActionAlert}}, false, output.Verdict{Action: "alert"}},
		{"drop in IPS", []add{{1, alert.ActionDrop | alert.ActionAlert}}, true, output.Verdict{Action: "drop"}},
		{"reject", []add{{1, alert.ActionReject | alert.ActionDrop | alert.ActionAlert}}, true,
			output.Verdict{Action: "drop", RejectTarget: "to_client", Reject: "tcp-reset"}},
		{"alert then silent pass", []add{{1, alert.ActionAlert}, {2, alert.ActionPass}}, false, output.Verdict{Action: "pass"}},
		{"pass with alert logged last", []add{{1, alert.ActionAlert}, {2, alert.ActionPass | alert.ActionAlert}}, false, output.Verdict{Action: "pass"}},
	}
	for _, tc := range tests {
		q := alert.New(15)
		for _, a := range tc.adds {
			q.Add(alert.Entry{IID: a.iid, Action: a.action, TxID: alert.NoTx}, alert.Matched)
		}
		q.Finalize()
		if got := packetVerdict(q, tcp, tc.ips); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
