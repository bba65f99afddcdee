package output

import (
	"encoding/json"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

func TestAppendIP(t *testing.T) {
	tests := []struct{ in, want string }{
		{"192.168.1.10", "192.168.1.10"},
		{"2001:db8:85a3::8a2e:370:7334", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"},
		{"::1", "0000:0000:0000:0000:0000:0000:0000:0001"},
		{"fe80::", "fe80:0000:0000:0000:0000:0000:0000:0000"},
	}
	for _, tc := range tests {
		if got := string(AppendIP(nil, netip.MustParseAddr(tc.in))); got != tc.want {
			t.Errorf("AppendIP(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestAppendTime(t *testing.T) {
	t.Setenv("TZ", "UTC")
	ts := time.Date(2023, 9, 18, 6, 13, 41, 532140999, time.UTC)
	if got := string(AppendTime(nil, ts)); got != "2023-09-18T06:13:41.532140+0000" {
		t.Errorf("AppendTime = %s", got)
	}
	if got := string(AppendFastTime(nil, ts)); got != "09/18/2023-06:13:41.532140" {
		t.Errorf("AppendFastTime = %s", got)
	}
}

func TestJSONStringEscaping(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, `"plain"`},
		{"quote\" back\\ nl\n tab\t", `"quote\" back\\ nl\n tab\t"`},
		{"\x01\x1f", `"\u0001\u001f"`},
		{"caf\xc3\xa9", "\"caf\xc3\xa9\""},
		{"bad\xff", `"bad\u00ff"`},
	}
	for _, tc := range tests {
		got := string(AppendJSONString(nil, tc.in))
		if got != tc.want {
			t.Errorf("AppendJSONString(%q) = %s, want %s", tc.in, got, tc.want)
		}
		var s string
		if err := json.Unmarshal([]byte(got), &s); err != nil {
			t.Errorf("%s is not valid JSON: %v", got, err)
		}
	}
}

func TestJSONNesting(t *testing.T) {
	var j JSON
	j.Begin()
	j.String("a", "x")
	j.Object("o")
	j.Uint("n", 1)
	j.Array("arr")
	j.ElemUint(1)
	j.ElemUint(2)
	j.Close(']')
	j.Object("empty")
	j.Close('}')
	j.Bool("t", true)
	j.Close('}')
	j.Int("neg", -5)
	j.End()
	want := `{"a":"x","o":{"n":1,"arr":[1,2],"empty":{},"t":true},"neg":-5}`
	if string(j.B) != want {
		t.Errorf("got %s\nwant %s", j.B, want)
	}
}

func samplePacket() *decode.Packet {
	return &decode.Packet{
		Data: make([]byte, 74), Timestamp: time.Date(2026, 1, 15, 10, 0, 0, 1500000, time.UTC), PcapCnt: 4,
		IPVersion: 4, SrcIP: netip.MustParseAddr("192.168.1.10"), DstIP: netip.MustParseAddr("93.184.216.34"),
		IPProto: decode.ProtoTCP, HasL4: true, SrcPort: 49152, DstPort: 80, IPLen: 60, TTL: 64, IPID: 7,
		TCPSeq: 1001, TCPAck: 5001, TCPFlags: decode.TCPFlagACK | decode.TCPFlagPSH, TCPWindow: 64240,
	}
}

func sampleFlow(p *decode.Packet) *flow.Flow {
	return &flow.Flow{Hash: 0xabcdef, SrcIP: p.SrcIP, DstIP: p.DstIP, SrcPort: p.SrcPort, DstPort: p.DstPort,
		Proto: p.IPProto, IPv: 4, Start: p.Timestamp.Add(-time.Second), LastUnixNano: p.Timestamp.UnixNano(),
		PktsToServer: 3, PktsToClient: 2, BytesToServer: 300, BytesToClient: 200,
		State: flow.StateEstablished, EndReason: flow.EndShutdown,
		TCP: flow.TCPState{Session: true, State: flow.TCPEstablished, Flags: 0x1b, ClientFlags: 0x1b, ServerFlags: 0x12}}
}

// golden compares got with testdata/<name>, rewriting it when MEERKAT_UPDATE_GOLDEN=1.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("MEERKAT_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run with MEERKAT_UPDATE_GOLDEN=1 to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs:\ngot  %s\nwant %s", name, got, want)
	}
}

func TestRecordsGolden(t *testing.T) {
	t.Setenv("TZ", "UTC")
	p := samplePacket()
	f := sampleFlow(p)
	var j JSON
	var all []byte

	FlowRecord(&j, f, p.Timestamp)
	all = append(append(all, j.B...), '\n')

	a := &Alert{GID: 1, SID: 1000002, Rev: 3, Msg: "MEERKAT test \"quoted\"", Category: "Potentially Bad Traffic",
		Severity: 2, Metadata: []byte(`{"created_at":["2026_01_15"]}`), TxID: -1}
	AlertRecord(&j, p, f, flow.ToServer, a, AlertOptions{Metadata: true, Flow: true}, nil)
	all = append(append(all, j.B...), '\n')

	a.Blocked, a.Drop = true, true
	DropRecord(&j, p, f, flow.ToServer, "rules", a)
	all = append(append(all, j.B...), '\n')

	s := &Stats{}
	s.Set("decoder.pkts", 10)
	s.Set("decoder.ipv4", 10)
	s.Set("flow.tcp", 1)
	s.Set("ips.blocked", 0)
	s.SetRaw("detect.engines", []byte(`[{"id":0,"rules_loaded":7}]`))
	StatsRecord(&j, s, p.Timestamp, 3, false)
	all = append(append(all, j.B...), '\n')
	StatsRecord(&j, s, p.Timestamp, 3, true)
	all = append(append(all, j.B...), '\n')

	for i, line := range strings.Split(strings.TrimSpace(string(all)), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("line %d is not JSON: %v\n%s", i+1, err, line)
		}
	}
	all = FastLine(all, p, a, true)
	a.Drop = false
	all = FastLine(all, p, a, false)
	golden(t, "records.golden", all)
}

func TestIPv6AndICMPHeader(t *testing.T) {
	t.Setenv("TZ", "UTC")
	p := &decode.Packet{Timestamp: time.Unix(0, 0), IPVersion: 6, SrcIP: netip.MustParseAddr("2001:db8::1"),
		DstIP: netip.MustParseAddr("2001:db8::2"), IPProto: decode.ProtoICMPv6, HasL4: true, ICMPType: 128,
		VLAN: [3]uint16{100, 200}, VLANCount: 2}
	var j JSON
	j.Begin()
	PacketHeader(&j, p, nil, "alert")
	j.End()
	want := `{"timestamp":"1970-01-01T00:00:00.000000+0000","event_type":"alert","vlan":[100,200],` +
		`"src_ip":"2001:0db8:0000:0000:0000:0000:0000:0001","dest_ip":"2001:0db8:0000:0000:0000:0000:0000:0002",` +
		`"proto":"IPv6-ICMP","ip_v":6,"icmp_type":128,"icmp_code":0,"pkt_src":"wire/pcap"}`
	if string(j.B) != want {
		t.Errorf("got  %s\nwant %s", j.B, want)
	}
}

func TestWriterAndBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eve.json")
	w, err := OpenWriter(path, false)
	if err != nil {
		t.Fatal(err)
	}
	b := Buffer{W: w}
	line := []byte(`{"event_type":"flow","pad":"` + strings.Repeat("x", 1000) + `"}`)
	for i := 0; i < 200; i++ {
		b.Line(line)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 200 || lines[199] != string(line) {
		t.Errorf("%d lines written", len(lines))
	}
	// Append mode keeps what was there.
	w2, err := OpenWriter(path, true)
	if err != nil {
		t.Fatal(err)
	}
	w2.Write([]byte("x\n"))
	w2.Close()
	data2, _ := os.ReadFile(path)
	if len(data2) != len(data)+2 {
		t.Errorf("append mode: %d bytes, want %d", len(data2), len(data)+2)
	}
	if _, err := OpenWriter(filepath.Join(t.TempDir(), "missing", "eve.json"), true); err == nil {
		t.Errorf("no error for a missing directory")
	}
}

func TestNoAllocsFlowRecord(t *testing.T) {
	p := samplePacket()
	f := sampleFlow(p)
	var j JSON
	FlowRecord(&j, f, p.Timestamp)
	allocs := testing.AllocsPerRun(100, func() { FlowRecord(&j, f, p.Timestamp) })
	if allocs != 0 {
		t.Errorf("FlowRecord allocates %.1f times", allocs)
	}
}

func TestCachedTimeMatchesFormat(t *testing.T) {
	for _, tz := range []string{"UTC", "America/New_York", "Asia/Kolkata"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Skipf("no zone data: %v", err)
		}
		old := time.Local
		time.Local = loc
		var j JSON
		base := time.Date(2024, 3, 10, 6, 59, 59, 999999000, time.UTC)
		for i := 0; i < 50; i++ {
			ts := base.Add(time.Duration(i) * 137 * time.Millisecond)
			j.Reset()
			j.Begin()
			j.Time("t", ts)
			j.End()
			want := `{"t":"` + string(AppendTime(nil, ts)) + `"}`
			if string(j.B) != want {
				t.Errorf("%s: %s, want %s", tz, j.B, want)
			}
		}
		// Times from 1970 to 9999, seconds apart (every record misses the cache).
		rng := rand.New(rand.NewPCG(uint64(len(tz)), 7))
		for i := 0; i < 2000; i++ {
			ts := time.Unix(rng.Int64N(253402300800), rng.Int64N(1e9))
			j.Reset()
			j.Begin()
			j.Time("t", ts)
			j.End()
			want := `{"t":"` + string(AppendTime(nil, ts)) + `"}`
			if string(j.B) != want {
				t.Errorf("%s: %s, want %s", tz, j.B, want)
			}
		}
		time.Local = old
	}
}

// TestCachedTimeOffsets: zone offsets with minutes, either sign, and the year 9999 edge,
// where a positive offset takes the local year to 10000 (the uncached format then).
func TestCachedTimeOffsets(t *testing.T) {
	old := time.Local
	defer func() { time.Local = old }()
	for _, off := range []int{0, -7 * 3600, 5*3600 + 1800, -(3*3600 + 30*60), 14 * 3600, -12 * 3600, 45 * 60, -(9*3600 + 45*60 + 30)} {
		time.Local = time.FixedZone("x", off)
		for _, ts := range []time.Time{time.Unix(0, 0), time.Unix(1462218820, 334931000), time.Unix(253402300799, 999999000), time.Unix(951782400, 5000)} {
			var j JSON
			j.Reset()
			j.Begin()
			j.Time("t", ts)
			j.End()
			want := `{"t":"` + string(AppendTime(nil, ts)) + `"}`
			if string(j.B) != want {
				t.Errorf("offset %d: %s, want %s", off, j.B, want)
			}
		}
	}
}

// BenchmarkTimeSecondsApart formats timestamps that are each in a new second, so every one
// misses the cache of formatted seconds.
func BenchmarkTimeSecondsApart(b *testing.B) {
	var j JSON
	ts := time.Unix(1462218820, 334931000)
	for b.Loop() {
		ts = ts.Add(time.Second + time.Microsecond)
		j.Reset()
		j.Time("t", ts)
	}
}

func BenchmarkFlowRecord(b *testing.B) {
	p := samplePacket()
	f := sampleFlow(p)
	f.Ended = p.Timestamp
	var j JSON
	b.ReportAllocs()
	for b.Loop() {
		FlowRecord(&j, f, f.Ended)
	}
}

// FuzzJSONString checks that any string, valid UTF-8 or not, becomes one valid JSON string.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\", "\x00\x1f\x7f", "caf\xc3\xa9", "\xff\xfe", "\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendJSONString(nil, s)
		var out string
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%q -> %s: %v", s, b, err)
		}
		if bytes := appendJSONBytes(nil, []byte(s)); string(bytes) != string(b) {
			t.Fatalf("string and bytes encoders differ for %q", s)
		}
		if ref := appendJSONStringByByte(nil, s); string(ref) != string(b) {
			t.Fatalf("%q: %s, the byte-by-byte encoder gives %s", s, b, ref)
		}
	})
}

// appendJSONStringByByte is the plain byte-at-a-time form of AppendJSONString, the reference
// its run-at-a-time loop must agree with.
func appendJSONStringByByte(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf:
			b = append(b, c)
			i++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		default:
			b = appendEscape(b, c)
			i++
		}
	}
	return append(b, '"')
}

func TestAlertTarget(t *testing.T) {
	p := samplePacket()
	for _, tc := range []struct{ target, want string }{
		{"dest_ip", `"source":{"ip":"192.168.1.10","port":49152},"target":{"ip":"93.184.216.34","port":80}`},
		{"src_ip", `"source":{"ip":"93.184.216.34","port":80},"target":{"ip":"192.168.1.10","port":49152}`},
	} {
		var j JSON
		AlertRecord(&j, p, nil, flow.ToServer, &Alert{SID: 1, Target: tc.target, TxID: -1}, AlertOptions{}, nil)
		if !strings.Contains(string(j.B), tc.want) {
			t.Errorf("target %s: %s", tc.target, j.B)
		}
	}
}

func BenchmarkDropRecord(b *testing.B) {
	p := samplePacket()
	var j JSON
	b.ReportAllocs()
	for b.Loop() {
		DropRecord(&j, p, nil, flow.ToServer, "firewall default packet policy", nil)
	}
}

func TestPacketRecord(t *testing.T) {
	p := samplePacket()
	p.Data = []byte{0xde, 0xad, 0xbe, 0xef, 0x00}
	p.LinkType = decode.LinkTypeEthernet
	var j JSON
	PacketRecord(&j, p, nil)
	var m map[string]any
	if err := json.Unmarshal(j.B, &m); err != nil {
		t.Fatalf("%v: %s", err, j.B)
	}
	info, _ := m["packet_info"].(map[string]any)
	if m["event_type"] != "packet" || m["packet"] != "3q2+7wA=" || info["linktype"] != 1.0 || info["linktype_name"] != "EN10MB" {
		t.Errorf("packet record %s", j.B)
	}
	for _, c := range []struct {
		lt   decode.LinkType
		v    uint16
		name string
	}{{decode.LinkTypeRaw, 12, "RAW"}, {decode.LinkTypeNull, 0, "NULL"}, {decode.LinkTypeSLL2, 276, "LINUX_SLL2"}, {decode.LinkType(999), 999, "n/a"}} {
		if v, n := linkTypeInfo(c.lt); v != c.v || n != c.name {
			t.Errorf("link type %d: %d %s, want %d %s", c.lt, v, n, c.v, c.name)
		}
	}
}

// BenchmarkAppendJSONString encodes strings as EVE records carry them: short plain ones (event
// types, reasons) and a rule message.
func BenchmarkAppendJSONString(b *testing.B) {
	for _, s := range []string{"drop", "firewall default packet policy", `ET POLICY Outdated Windows Flash Version IE "quoted"`} {
		b.Run(strconv.Itoa(len(s)), func(b *testing.B) {
			buf := make([]byte, 0, 128)
			for b.Loop() {
				buf = AppendJSONString(buf[:0], s)
			}
		})
	}
}
