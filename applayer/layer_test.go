package applayer

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// lineTx is a transaction of the line protocol below: one request line and one response
// line, each complete at progress 1.
type lineTx struct {
	td       TxData
	req, res []byte
}

func (t *lineTx) TxData() *TxData { return &t.td }

// lineState is a minimal real parser (the role of Suricata's template parser): every
// "\n"-terminated line to the server opens a tx, every line to the client answers the
// oldest open one; "ERR" is a parse error, "UPGRADE" asks for a protocol change.
type lineState struct {
	txs    []*lineTx
	nextID uint64
	// refused counts the change requests the framework refused.
	refused int
}

func (s *lineState) ProtocolChangeRefused(Dir) { s.refused++ }

func (s *lineState) Parse(dir Dir, data []byte, flags Flags) Result {
	used := 0
	for {
		i := bytes.IndexByte(data[used:], '\n')
		if i < 0 {
			return Result{Consumed: used}
		}
		line := data[used : used+i]
		used += i + 1
		if bytes.Equal(line, []byte("ERR")) {
			return Result{Consumed: used, Err: errTest}
		}
		if dir == flow.ToServer {
			t := &lineTx{req: line}
			t.td.Reset(s.nextID)
			t.td.Progress[0] = 1
			s.nextID++
			s.txs = append(s.txs, t)
			continue
		}
		for _, t := range s.txs {
			if t.td.Progress[1] == 0 {
				t.res, t.td.Progress[1] = line, 1
				break
			}
		}
		if bytes.Equal(line, []byte("UPGRADE")) {
			return Result{Consumed: used, Change: &ProtocolChange{}}
		}
	}
}
func (s *lineState) Gap(dir Dir, n uint64) Result { return Result{} }
func (s *lineState) TxCount() int                 { return len(s.txs) }
func (s *lineState) TxAt(i int) Tx                { return s.txs[i] }
func (s *lineState) FreeTxs(below uint64) {
	for len(s.txs) > 0 && s.txs[0].td.ID < below {
		s.txs = s.txs[1:]
	}
}
func (s *lineState) Reset() { *s = lineState{} }

type linePool struct{ gets, puts int }

func (p *linePool) Get(FlowInfo) State { p.gets++; return &lineState{} }
func (p *linePool) Put(State)          { p.puts++ }

type testErr string

func (e testErr) Error() string { return string(e) }

const errTest = testErr("bad line")

var testPool = &linePool{}

func init() {
	Register(&Parser{
		Proto: ProtoTemplate, IPProto: 6,
		Patterns: [2][]Pattern{
			{{Bytes: []byte("HELLO "), Depth: 6, NoCase: true}},
			{{Bytes: []byte("WELCOME"), Depth: 7}},
		},
		NewPool:  func(any) Pool { return testPool },
		Complete: [2]uint8{1, 1},
		Events:   []string{"bad_line"},
	})
}

func testLayer(t *testing.T, mod func(*Config)) (*Layer, *flow.Flow) {
	t.Helper()
	cfg, err := DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(cfg)
	}
	f := &flow.Flow{SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"), SrcPort: 1234, DstPort: 80}
	return NewLayer(cfg), f
}

// TestDetection walks protocol detection through its outcomes (src/app-layer.c:
// TCPProtoDetect, reference suricata-stream-http.md §3.1, §3.4, §3.5).
func TestDetection(t *testing.T) {
	type step struct {
		pktDir, dataDir Dir
		data            string
		flags           Flags
		consumed        int
		disable         bool
	}
	cases := []struct {
		name   string
		steps  []step
		proto  Proto
		dirs   [2]Proto
		events []PacketEvent
	}{
		{"request then response", []step{
			{flow.ToClient, flow.ToServer, "HELLO x\n", 0, 8, false},
			{flow.ToServer, flow.ToClient, "WELCOME\n", 0, 8, false},
		}, ProtoTemplate, [2]Proto{ProtoTemplate, ProtoTemplate}, nil},
		{"pattern case-insensitive", []step{
			{flow.ToClient, flow.ToServer, "hello x\n", 0, 8, false},
		}, ProtoTemplate, [2]Proto{ProtoTemplate, ProtoUnknown}, nil},
		{"short data waits", []step{
			{flow.ToClient, flow.ToServer, "HEL", 0, 0, false},
		}, ProtoUnknown, [2]Proto{}, nil},
		{"both directions fail", []step{
			{flow.ToClient, flow.ToServer, "GARBAGE1", 0, 0, false},
			{flow.ToServer, flow.ToClient, "GARBAGE2", 0, 0, true},
		}, ProtoFailed, [2]Proto{ProtoFailed, ProtoFailed}, nil},
		{"response not recognised: one direction", []step{
			{flow.ToClient, flow.ToServer, "HELLO x\n", 0, 8, false},
			{flow.ToServer, flow.ToClient, "NOPE...\n", 0, 8, false},
		}, ProtoTemplate, [2]Proto{ProtoTemplate, ProtoFailed}, []PacketEvent{EventDetectProtocolOnlyOneDirection}},
		{"midstream without to_server protocol gives up", []step{
			{flow.ToClient, flow.ToServer, "GARBAGE1", Midstream, 0, true},
		}, ProtoFailed, [2]Proto{ProtoFailed, ProtoFailed}, nil},
		{"parse error disables", []step{
			{flow.ToClient, flow.ToServer, "HELLO x\nERR\n", 0, 12, true},
		}, ProtoTemplate, [2]Proto{ProtoTemplate, ProtoUnknown}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, f := testLayer(t, nil)
			var fa *FlowApp
			for i, s := range c.steps {
				l.Begin(f, s.pktDir)
				r := l.Data(f, s.pktDir, s.dataDir, []byte(s.data), s.flags, false)
				if r.Consumed != s.consumed || r.Disable != s.disable {
					t.Fatalf("step %d: consumed %d disable %v, want %d %v", i, r.Consumed, r.Disable, s.consumed, s.disable)
				}
				fa = l.Ready(f, s.pktDir)
			}
			if fa.Proto != c.proto || fa.ProtoDir != c.dirs {
				t.Errorf("proto %v dirs %v, want %v %v", fa.Proto, fa.ProtoDir, c.proto, c.dirs)
			}
			for _, e := range c.events {
				if !fa.Events.Has(e) {
					t.Errorf("event %v not set", e)
				}
			}
		})
	}
}

// TestDetectionOnly: with enabled: detection-only the protocol is set but no parser runs,
// and the first data disables the app layer (reference §3.10).
func TestDetectionOnly(t *testing.T) {
	l, f := testLayer(t, func(c *Config) { c.Protocols[ProtoTemplate].DetectionOnly = true })
	l.Begin(f, flow.ToClient)
	r := l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO x\n"), 0, false)
	fa := l.Ready(f, flow.ToClient)
	if fa.Proto != ProtoTemplate || fa.State != nil || !r.Disable {
		t.Fatalf("proto %v state %v disable %v", fa.Proto, fa.State, r.Disable)
	}
}

// TestUpdateFlags follows PacketAppUpdate2FlowFlags and FlowWorker's UPDATE_NEXT handling:
// data parsed on a packet of the other direction (IDS: the ACK) marks the data's
// direction updated and makes the next packet of the ACK's own direction inspect too.
func TestUpdateFlags(t *testing.T) {
	l, f := testLayer(t, nil)
	// to_client ACK parses the request: the ACK itself inspects (it caused an update).
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\n"), 0, false)
	fa := l.Ready(f, flow.ToClient)
	if !fa.Updated[flow.ToClient] {
		t.Fatal("the packet that caused the parse inspects")
	}
	l.End(f, flow.ToClient, false, true, func(Tx) bool { return true })
	// the next to_server packet: the request side was updated (FLOW_TS_APP_UPDATED).
	l.Begin(f, flow.ToServer)
	fa = l.Ready(f, flow.ToServer)
	if !fa.Updated[flow.ToServer] {
		t.Fatal("to_server packet after the parse must inspect the request side")
	}
	l.End(f, flow.ToServer, false, true, func(Tx) bool { return true })
	// the next to_client packet: UPDATE_NEXT was set for it.
	l.Begin(f, flow.ToClient)
	fa = l.Ready(f, flow.ToClient)
	if !fa.Updated[flow.ToClient] {
		t.Fatal("UPDATE_NEXT: the following to_client packet inspects")
	}
	l.End(f, flow.ToClient, false, true, func(Tx) bool { return true })
	l.Begin(f, flow.ToServer)
	if fa = l.Ready(f, flow.ToServer); fa.Updated[flow.ToServer] {
		t.Fatal("no update left")
	}
}

// TestFreeAndRelease: End frees the txs complete on both sides that detection and the
// loggers are done with; Release hands the state back to the pool.
func TestFreeAndRelease(t *testing.T) {
	l, f := testLayer(t, nil)
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\nHELLO b\n"), 0, false)
	l.Ready(f, flow.ToClient)
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToClient, []byte("WELCOME\n"), 0, false)
	fa := l.Ready(f, flow.ToServer)
	fa.InspectID = [2]uint64{2, 2}
	l.End(f, flow.ToServer, false, true, func(Tx) bool { return true })
	if n := fa.State.TxCount(); n != 1 {
		t.Fatalf("%d txs left, want 1 (the unanswered one)", n)
	}
	if l.Counters.Txs[ProtoTemplate] != 2 || l.Counters.Flows[ProtoTemplate] != 1 {
		t.Fatalf("counters %d txs %d flows", l.Counters.Txs[ProtoTemplate], l.Counters.Flows[ProtoTemplate])
	}
	puts := testPool.puts
	l.Release(f)
	if testPool.puts != puts+1 {
		t.Fatal("state not returned to its pool")
	}
}

// TestProtocolChange: a change request moves the protocol to alproto_orig and restarts
// detection; nothing detected within 4096 bytes disables the app layer (§3.9).
func TestProtocolChange(t *testing.T) {
	l, f := testLayer(t, nil)
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\n"), 0, false)
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToClient, []byte("UPGRADE\n"), 0, false)
	fa := l.Ready(f, flow.ToServer)
	if fa.ProtoOrig != ProtoTemplate || fa.State != nil {
		t.Fatalf("orig %v state %v", fa.ProtoOrig, fa.State)
	}
	big := bytes.Repeat([]byte{'x'}, 4096)
	l.Begin(f, flow.ToClient)
	if r := l.Data(f, flow.ToClient, flow.ToServer, big, 0, false); !r.Disable {
		t.Fatal("4096 undetected bytes after a change must disable the app layer")
	}
	if p, s := l.Old(f); p == nil || s == nil {
		t.Fatal("the old state stays for logging")
	}
}

// probeTelnet stands for a probing parser: IAC (0xff) first is the protocol.
func probeTelnet(data []byte) ProbeResult {
	switch {
	case len(data) == 0:
		return ProbeNeedMore
	case data[0] == 0xff:
		return ProbeMatch
	}
	return ProbeFail
}

func init() {
	Register(&Parser{Proto: ProtoTelnet, IPProto: 6, Probe: [2]ProbeFunc{probeTelnet, nil}, ProbeMin: 1, ProbeMax: 16,
		NewPool: func(any) Pool { return testPool }, Complete: [2]uint8{1, 1}})
}

// TestProbingPorts: probing parsers run on the flows detection-ports names, the destination
// port for dp and the source port for sp (AppLayerProtoDetectPPGetProto), on any port without
// a list; a prober that fails is masked for the flow.
func TestProbingPorts(t *testing.T) {
	cases := []struct {
		name   string
		dp, sp func(uint16) bool
		want   Proto
	}{
		{"no list: any port", nil, nil, ProtoTelnet},
		{"dp matches", func(p uint16) bool { return p == 80 }, nil, ProtoTelnet},
		{"dp does not match", func(p uint16) bool { return p == 23 }, nil, ProtoUnknown},
		{"sp matches", func(p uint16) bool { return p == 23 }, func(p uint16) bool { return p == 1234 }, ProtoTelnet},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, f := testLayer(t, func(cfg *Config) { cfg.Protocols[ProtoTelnet].Ports = [2]func(uint16) bool{c.dp, c.sp} })
			l.Begin(f, flow.ToClient)
			l.Data(f, flow.ToClient, flow.ToServer, []byte{0xff, 0xfb, 0x01}, 0, false)
			if fa := l.Ready(f, flow.ToClient); fa.ProtoDir[flow.ToServer] != c.want {
				t.Errorf("to_server protocol %v, want %v", fa.ProtoDir[flow.ToServer], c.want)
			}
		})
	}
}

// TestFreeWithoutDetection: with no detection (--disable-detection) a complete, logged tx
// is freed without waiting for inspect ids that nothing advances.
func TestFreeWithoutDetection(t *testing.T) {
	l, f := testLayer(t, nil)
	l.NoDetection()
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\n"), 0, false)
	l.Ready(f, flow.ToClient)
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToClient, []byte("WELCOME\n"), 0, false)
	fa := l.Ready(f, flow.ToServer)
	l.End(f, flow.ToServer, false, true, func(Tx) bool { return true })
	if n := fa.State.TxCount(); n != 0 {
		t.Fatalf("%d txs left, want 0", n)
	}
}

// TestNeedsFlush: a tx detection has not finished with in a direction asks for that
// direction's flow-end pseudo packet (FlowNeedsReassembly: inspect id below the tx count).
func TestNeedsFlush(t *testing.T) {
	l, f := testLayer(t, nil)
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\n"), 0, false)
	fa := l.Ready(f, flow.ToClient)
	done := func(Tx) bool { return true }
	if got := l.NeedsFlush(f, done); got != [2]bool{true, true} {
		t.Fatalf("uninspected tx: %v", got)
	}
	fa.InspectID[flow.ToServer] = 1
	if got := l.NeedsFlush(f, done); got != [2]bool{false, true} {
		t.Fatalf("inspected to_server: %v", got)
	}
}

// TestProtocolChangeWhilePending: a parser that asks for a change while one is pending is
// refused and told so (AppLayerRequestProtocolChange returns false; HTTP's 101 h2c after
// SMTP's STARTTLS found HTTP instead of TLS: SV protocol-change-failed-event). The
// protocol detected during the change runs its parser before the change ends, so its
// request is refused; once the change is over, a new request is accepted and the state
// from before the first change goes back to its pool.
func TestProtocolChangeWhilePending(t *testing.T) {
	l, f := testLayer(t, nil)
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\n"), 0, false)
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToClient, []byte("WELCOME\nUPGRADE\n"), 0, false)
	l.Ready(f, flow.ToServer)
	// Detection during the change finds the protocol again; its parser asks at once.
	l.Begin(f, flow.ToServer)
	r := l.Data(f, flow.ToServer, flow.ToClient, []byte("WELCOME\nUPGRADE\n"), 0, false)
	fa := l.Ready(f, flow.ToServer)
	st, _ := fa.State.(*lineState)
	if r.Disable || st == nil || fa.Proto != ProtoTemplate {
		t.Fatalf("detection during the change: disable %v state %v proto %v", r.Disable, fa.State, fa.Proto)
	}
	if st.refused != 1 {
		t.Fatalf("%d refusals, want 1: a change asked while one is pending fails", st.refused)
	}
	// The change is over: the next request is accepted.
	puts := testPool.puts
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToClient, []byte("UPGRADE\n"), 0, false)
	fa = l.Ready(f, flow.ToServer)
	if st.refused != 1 || fa.State != nil || fa.ProtoOrig != ProtoTemplate {
		t.Fatalf("second change: refused %d state %v orig %v", st.refused, fa.State, fa.ProtoOrig)
	}
	if testPool.puts != puts+1 {
		t.Fatal("the state from before the first change must go back to its pool")
	}
	if _, old := l.Old(f); old != st {
		t.Fatal("the state from before the second change stays for logging")
	}
}

// probeState is a parser state for the probed test protocol (RFB's id): it takes all data.
type probeState struct{ lineState }

func (s *probeState) Parse(dir Dir, data []byte, flags Flags) Result {
	return Result{Consumed: len(data)}
}

func init() {
	Register(&Parser{
		Proto: ProtoRFB, IPProto: 6,
		Probe: [2]ProbeFunc{flow.ToClient: func(b []byte) ProbeResult {
			if bytes.HasPrefix(b, []byte("RFB ")) {
				return ProbeMatch
			}
			return ProbeFail
		}},
		ProbeMin: 4, ProbeMax: 12, Ports: "[5900:5901]",
		Complete: [2]uint8{1, 1},
	})
}

// TestProbePorts: a probing parser runs only on the ports it is registered for
// (AppLayerProtoDetectPPGetProto looks up dp, then sp): the built-in ports are destination
// ports (the RustParser default_port is registered to_server, the dp list), so a flow
// whose source port alone is in the list does not run it; detection-ports sp lists do.
func TestProbePorts(t *testing.T) {
	for _, c := range []struct {
		dp, sp uint16
		want   Proto
	}{{5900, 40000, ProtoRFB}, {5901, 40000, ProtoRFB}, {40000, 5901, ProtoUnknown}, {80, 40000, ProtoUnknown}} {
		l, f := testLayer(t, nil)
		f.DstPort, f.SrcPort = c.dp, c.sp
		l.Begin(f, flow.ToServer)
		l.Data(f, flow.ToServer, flow.ToClient, []byte("RFB 003.008\n"), 0, false)
		if fa := l.Ready(f, flow.ToServer); fa.ProtoDir[flow.ToClient] != c.want {
			t.Errorf("dp %d sp %d: %v, want %v", c.dp, c.sp, fa.ProtoDir[flow.ToClient], c.want)
		}
	}
}

// TestDetectDoneNextPacket: in IDS TCP the detection-done flag goes to the flow and the
// next packet of that direction takes it, never the detecting packet (FlagPacketFlow,
// FlowHandlePacketUpdate), and a flow-end pseudo packet does not take it; inline the
// detecting packet of that direction has it too (§3.7).
func TestDetectDoneNextPacket(t *testing.T) {
	for _, inline := range []bool{false, true} {
		l, f := testLayer(t, func(c *Config) { c.Inline = inline })
		fa := l.Begin(f, flow.ToServer)
		l.Data(f, flow.ToServer, flow.ToServer, []byte("HELLO a\n"), 0, false)
		if fa.DetectDone[flow.ToServer] != inline {
			t.Errorf("inline %v: detecting packet done %v", inline, fa.DetectDone[flow.ToServer])
		}
		l.End(f, flow.ToServer, false, true, func(Tx) bool { return true })
		if fa = l.Begin(f, flow.ToClient); fa.DetectDone != [2]bool{} {
			t.Errorf("inline %v: packet of the other direction has %v", inline, fa.DetectDone)
		}
		if fa = l.BeginPseudo(f, flow.ToServer); fa.DetectDone[flow.ToServer] {
			t.Errorf("inline %v: a pseudo packet took the flag", inline)
		}
		if fa = l.Begin(f, flow.ToServer); !fa.DetectDone[flow.ToServer] {
			t.Errorf("inline %v: the next to_server packet lacks the flag", inline)
		}
		if fa = l.Begin(f, flow.ToServer); fa.DetectDone[flow.ToServer] {
			t.Errorf("inline %v: the flag is taken once", inline)
		}
	}
}

// TestChangeStopsFeeding: the data that asks for a protocol change ends the packet's
// hand-over (ReassembleUpdateAppLayer breaks on FlowChangeProto): the caller sees Changing
// and the rest is detected on a later call.
func TestChangeStopsFeeding(t *testing.T) {
	l, f := testLayer(t, nil)
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\n"), 0, false)
	l.Begin(f, flow.ToServer)
	r := l.Data(f, flow.ToServer, flow.ToClient, []byte("WELCOME\nUPGRADE\nWELCOME\n"), 0, false)
	if !r.Changing || r.Consumed != len("WELCOME\nUPGRADE\n") {
		t.Fatalf("changing %v consumed %d", r.Changing, r.Consumed)
	}
	if r := l.Data(f, flow.ToServer, flow.ToClient, []byte("WELCOME\n"), 0, false); r.Changing || l.App(f).State == nil {
		t.Fatalf("the rest is detected afresh: changing %v state %v", r.Changing, l.App(f).State)
	}
}

// TestFreeWithoutInspection: a flow detection no longer inspects (passed) frees its
// transactions once logged, as APP_LAYER_PARSER_NO_INSPECTION makes Suricata's cleanup do.
func TestFreeWithoutInspection(t *testing.T) {
	l, f := testLayer(t, nil)
	l.Begin(f, flow.ToClient)
	l.Data(f, flow.ToClient, flow.ToServer, []byte("HELLO a\n"), 0, false)
	l.Ready(f, flow.ToClient)
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToClient, []byte("WELCOME\n"), 0, false)
	fa := l.Ready(f, flow.ToServer)
	l.End(f, flow.ToServer, false, true, func(Tx) bool { return true })
	if n := fa.State.TxCount(); n != 1 {
		t.Fatalf("%d txs, want 1 while detection has not inspected it", n)
	}
	l.NoInspection(f)
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToClient, []byte("X\n"), 0, false)
	fa = l.Ready(f, flow.ToServer)
	l.End(f, flow.ToServer, false, true, func(Tx) bool { return true })
	if n := fa.State.TxCount(); n != 0 {
		t.Fatalf("%d txs left, want 0", n)
	}
	if got := l.NeedsFlush(f, func(Tx) bool { return true }); got != [2]bool{} {
		t.Fatalf("NeedsFlush %v for a flow without inspection", got)
	}
}
