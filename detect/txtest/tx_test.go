package txtest_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// conn is one TCP flow through the stand-in parser and a detection engine, driven the way
// the pipeline drives them: parse a packet's data, SetApp, Inspect, then the framework's
// cleanup (the txs' Updated flags of the packet's direction reset, complete txs freed with
// ReleaseTx once both directions' inspect ids are past them).
type conn struct {
	t  testing.TB
	e  *detect.Engine
	tc *detect.ThreadCtx
	f  *flow.Flow
	st *lineState
	fa applayer.FlowApp
	// free frees complete txs after each packet.
	free bool
	// port is the server's port (0: 80).
	port uint16
}

func build(t testing.TB, cfg detect.Config, texts ...string) *detect.Engine {
	t.Helper()
	var rs []*rules.Rule
	for _, s := range texts {
		r, err := rules.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		rs = append(rs, r)
	}
	e, errs, err := detect.Build(rs, cfg)
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	t.Cleanup(e.Close)
	return e
}

func newConn(t testing.TB, e *detect.Engine) *conn {
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	c := &conn{t: t, e: e, tc: tc, f: flow.NewDetached(), st: &lineState{}}
	c.f.SetPacketEstablished(true)
	c.f.Proto = decode.ProtoTCP
	c.fa = applayer.FlowApp{Proto: applayer.ProtoHTTP1, ProtoDir: [2]applayer.Proto{applayer.ProtoHTTP1, applayer.ProtoHTTP1},
		Parser: lineParser, State: c.st}
	return c
}

func packet(dir flow.Direction, payload string) *decode.Packet { return packetPort(dir, payload, 80) }

func packetPort(dir flow.Direction, payload string, port uint16) *decode.Packet {
	src, dst, sp, dp := "10.0.0.1", "10.0.0.2", uint16(40000), port
	if dir == flow.ToClient {
		src, dst, sp, dp = dst, src, dp, sp
	}
	return &decode.Packet{Data: make([]byte, 54+len(payload)), Timestamp: time.Unix(1700000000, 0), IPVersion: 4,
		SrcIP: netip.MustParseAddr(src), DstIP: netip.MustParseAddr(dst), IPProto: decode.ProtoTCP, HasL4: true,
		SrcPort: sp, DstPort: dp, TCPFlags: decode.TCPFlagACK | decode.TCPFlagPSH, Payload: []byte(payload), TTL: 64}
}

// send parses data in direction dir and inspects a packet of that direction carrying it,
// returning the queue as "sid/txid" ("sid/-" for no tx), in queue order.
func (c *conn) send(dir flow.Direction, data string) []string {
	c.st.Parse(dir, []byte(data), 0)
	c.fa.Updated[dir] = data != ""
	c.inspect(packetPort(dir, data, cmp.Or(c.port, 80)), dir, applayer.GetCtx{})
	return c.alerts()
}

func (c *conn) inspect(p *decode.Packet, dir flow.Direction, ctx applayer.GetCtx) {
	c.tc.SetApp(&c.fa, ctx)
	c.e.Inspect(c.tc, p, c.f, dir)
	// The framework's cleanup after detection (AppLayerParserTransactionsCleanup).
	for _, t := range c.st.txs {
		t.td.Updated[dir] = false
	}
	c.fa.Updated, c.fa.DetectDone, c.fa.Events = [2]bool{}, [2]bool{}, 0
	if c.free {
		below := min(c.fa.InspectID[0], c.fa.InspectID[1])
		for _, t := range c.st.txs {
			if t.td.ID < below {
				c.tc.ReleaseTx(&t.td)
			}
		}
		c.st.FreeTxs(below)
	}
}

func (c *conn) alerts() []string {
	var out []string
	for _, en := range c.tc.Queue.Entries() {
		sid := c.e.Rule(en.IID).Src.SID
		if en.TxID == alert.NoTx {
			out = append(out, fmt.Sprintf("%d/-", sid))
		} else {
			out = append(out, fmt.Sprintf("%d/%d", sid, en.TxID))
		}
	}
	return out
}

type step struct {
	dir  flow.Direction
	data string
	want []string
}

const ts, tc = flow.ToServer, flow.ToClient

func runSteps(t *testing.T, rs []string, steps []step) {
	t.Helper()
	for _, cfg := range []detect.Config{{}, {NoTxPrefilter: true}} {
		c := newConn(t, build(t, cfg, rs...))
		for i, s := range steps {
			if got := c.send(s.dir, s.data); !slices.Equal(got, s.want) {
				t.Errorf("prefilter off %v, step %d (%q): alerts %q, want %q", cfg.NoTxPrefilter, i, s.data, got, s.want)
			}
		}
	}
}

// TestTxProgress follows §4.2 (src/detect.c: DetectRunTxInspectRule,
// src/detect-engine.c: DetectEngineInspectBufferGeneric): engines run in order while the tx
// reached their progress; a missing buffer or a mismatch at the engine's progress is retried
// on a later packet, past it the rule can't match for that tx; matched engines are
// remembered, so a rule completes across packets; a full match alerts once per tx.
func TestTxProgress(t *testing.T) {
	rs := []string{
		// uri at LINE, header at HEADERS (present once the header block ended).
		`alert http any any -> any any (msg:"uri+header"; http.uri; content:"/a"; http.header; content:"X-A"; sid:1;)`,
		// the header never holds X-B: can't match once the tx is past HEADERS.
		`alert http any any -> any any (msg:"cant"; http.uri; content:"/a"; http.header; content:"X-B"; sid:2;)`,
		// a body content: retried while the body grows at BODY.
		`alert http any any -> any any (msg:"body"; file.data; content:"needle"; sid:3;)`,
		// method only: alerts on the request line, once per tx.
		`alert http any any -> any any (msg:"method"; http.method; content:"GET"; sid:4;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /a\n", []string{"4/0"}},
		{ts, "X-A: 1\n", nil}, // HEADERS reached, the block not ended: retry
		{ts, "\n", []string{"1/0"}},
		{ts, "hay\n", nil},
		{ts, "more needle\n", []string{"3/0"}},
		{ts, "needle again\n.\n", nil},                                // one alert per rule per tx
		{ts, "GET /b\nX-B: 2\n\nneedle\n.\n", []string{"3/1", "4/1"}}, // iid (sid) order
	})
}

// TestTxPipelined: several txs complete on one packet each alert (§4.4: pipelining), and the
// queue orders one rule's tx alerts by descending tx_id after the rules in iid order; a
// packet rule's alert (no tx) sits in its own iid place (src/detect-engine-alert.c:
// AlertQueueSortHelper).
func TestTxPipelined(t *testing.T) {
	rs := []string{
		`alert http any any -> any any (msg:"method"; http.method; content:"GET"; sid:1;)`,
		`alert tcp any any -> any any (msg:"packet"; content:"GET"; sid:2;)`,
		`alert http any any -> any any (msg:"uri"; http.uri; content:"/"; sid:3;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /1\n\n.\nGET /2\n\n.\nGET /3\n", []string{"1/2", "1/1", "1/0", "2/-", "3/2", "3/1", "3/0"}},
		{ts, "\n.\n", nil},
	})
}

// TestTxDirections follows §4.6 (src/detect-parse.c: SigConsolidateDirection): a buffer of
// both directions follows the rule's direction (both without flow:); a to-server buffer makes
// the rule to-server; a transactional (=>) rule matches the request engines and then the
// response engines, and alerts on the to-client side.
func TestTxDirections(t *testing.T) {
	rs := []string{
		`alert http any any -> any any (msg:"header any dir"; http.header; content:"Server"; sid:1;)`,
		`alert http any any -> any any (msg:"header to_server"; flow:to_server; http.header; content:"Server"; sid:2;)`,
		`alert http any any -> any any (msg:"header to_client"; flow:to_client; http.header; content:"Server"; sid:3;)`,
		`alert http any any => any any (msg:"GET then 200"; http.method; content:"GET"; http.stat_code; content:"200"; sid:4;)`,
		`alert http any any => any any (msg:"POST then 200"; http.method; content:"POST"; http.stat_code; content:"200"; sid:5;)`,
		`alert http any any -> any any (msg:"stat_code"; http.stat_code; content:"200"; sid:6;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /\nServer: a\n\n.\n", []string{"1/0", "2/0"}},
		{tc, "200\nServer: b\n\n.\n", []string{"1/0", "3/0", "4/0", "6/0"}},
		{ts, "POST /\n\n.\n", nil},
		{tc, "200\n\n.\n", []string{"5/1", "6/1"}},
	})
}

// TestTxInspectID: the inspect id of a direction moves past the txs complete in it
// (AppLayerParserSetTransactionInspectId), and a complete tx is not inspected again in that
// direction; Buffer.Inspected is called for each tx inspected on a packet.
func TestTxInspectID(t *testing.T) {
	e := build(t, detect.Config{}, `alert http any any -> any any (file.data; content:"x"; sid:1;)`)
	c := newConn(t, e)
	c.send(ts, "GET /\n\nab\n")
	if c.fa.InspectID[ts] != 0 {
		t.Errorf("inspect id %d, want 0 (tx 0 incomplete)", c.fa.InspectID[ts])
	}
	c.send(ts, ".\nGET /2\n")
	if c.fa.InspectID[ts] != 1 {
		t.Errorf("inspect id %d, want 1", c.fa.InspectID[ts])
	}
	if n := c.st.txs[0].inspected[ts]; n != 2 {
		t.Errorf("tx 0 Inspected %d times, want 2", n)
	}
	c.send(ts, "\n")
	if n := c.st.txs[0].inspected[ts]; n != 2 {
		t.Errorf("complete tx 0 inspected again: %d", n)
	}
	// tx 0 twice, then tx 0 (completed) and tx 1, then tx 1.
	if n, _ := c.tc.TxCounters(); n != 4 {
		t.Errorf("%d txs inspected, want 4", n)
	}
}

// TestTxMPMMatchesBruteForce: the per-buffer databases give the same alerts as making every
// tx rule a candidate for every tx (Config.NoTxPrefilter), on random rules and traffic.
func TestTxMPMMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	words := []string{"GET", "POST", "/a", "/adm", "X-A", "Server", "200", "404", "ab", "needle", "x"}
	bufs := []string{"http.method", "http.uri", "http.header", "file.data", "http.stat_code", "http.request_header"}
	alerts := 0
	for round := 0; round < 80; round++ {
		var texts []string
		for i := 0; i < 30; i++ {
			var opts []string
			for k := 1 + rng.IntN(2); k > 0; k-- {
				b := bufs[rng.IntN(len(bufs))]
				if b == "http.stat_code" && strings.Contains(strings.Join(opts, ""), "flow:to_server") {
					b = "http.uri"
				}
				c := fmt.Sprintf(`%s; content:"%s";`, b, words[rng.IntN(len(words))])
				switch rng.IntN(5) {
				case 0:
					c += " nocase;"
				case 1:
					c += " fast_pattern;"
				case 2:
					c = fmt.Sprintf(`%s; content:!"%s";`, b, words[rng.IntN(len(words))])
				}
				opts = append(opts, c)
			}
			switch rng.IntN(6) {
			case 0: // payload content too: a stream engine (§2.5)
				opts = append(opts, fmt.Sprintf(`pkt_data; content:"%s";`, words[rng.IntN(len(words))]))
			case 1: // ... holding the fast pattern
				opts = append(opts, fmt.Sprintf(`pkt_data; content:"%s"; fast_pattern;`, words[rng.IntN(len(words))]))
			}
			ports := []string{"any", "80", "!80", "8080", "[80,443]", "1024:"}
			hdr := fmt.Sprintf("any %s -> any %s", ports[rng.IntN(2)*rng.IntN(len(ports))], ports[rng.IntN(len(ports))])
			text := fmt.Sprintf(`alert http %s (%s sid:%d;)`, hdr, strings.Join(opts, " "), i+1)
			if _, err := rules.Parse(text); err != nil {
				continue // directions that conflict
			}
			texts = append(texts, text)
		}
		var traffic []step
		for k := 0; k < 12; k++ {
			dir := flow.Direction(rng.IntN(2))
			var b strings.Builder
			for n := 1 + rng.IntN(3); n > 0; n-- {
				switch rng.IntN(4) {
				case 0:
					b.WriteString(words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))] + "\n")
				case 1:
					b.WriteString(words[rng.IntN(len(words))] + ": v\n")
				case 2:
					b.WriteString("\n")
				case 3:
					b.WriteString(".\n")
				}
			}
			traffic = append(traffic, step{dir: dir, data: b.String()})
		}
		port := []uint16{80, 8080, 443, 2000}[round%4]
		with := newConn(t, build(t, detect.Config{}, texts...))
		without := newConn(t, build(t, detect.Config{NoTxPrefilter: true}, texts...))
		with.port, without.port = port, port
		for i, s := range traffic {
			a, b := with.send(s.dir, s.data), without.send(s.dir, s.data)
			alerts += len(a)
			if !slices.Equal(a, b) {
				t.Fatalf("round %d step %d (%q): prefilter %q, every rule %q\nrules:\n%s", round, i, s.data, a, b, strings.Join(texts, "\n"))
			}
		}
	}
	if alerts < 100 {
		t.Errorf("only %d alerts: the traffic exercises too little", alerts)
	}
	t.Logf("%d alerts compared", alerts)
}

// TestTxNoAllocs: a packet that only adds to an existing tx allocates nothing in detection.
func TestTxNoAllocs(t *testing.T) {
	e := build(t, detect.Config{},
		`alert http any any -> any any (http.method; content:"GET"; file.data; content:"never"; sid:1;)`,
		`alert http any any -> any any (http.uri; content:"/a"; sid:2;)`,
		`alert http any any -> any any (http.header; content:"nope"; sid:3;)`,
		`alert http any any -> any any (app-layer-event:http.missing_host_header; sid:4;)`,
		`alert tcp any any -> any any (content:"zzz"; sid:5;)`,
		`alert http any any -> any any (http.uri; to_uppercase; content:"/ZZ"; sid:6;)`,
		`alert http any any => any any (http.method; content:"GET"; http.stat_code; content:"200"; sid:7;)`,
		`alert http any any -> any any (http.request_header; content:"Y"; sid:8;)`,
		`alert http any any -> any any (content:"more"; fast_pattern; http.method; content:"GET"; file.data; content:"nix"; sid:9;)`,
	)
	c := newConn(t, e)
	c.send(ts, "GET /a\nX: 1\n\nbody\n")
	p := packet(ts, "more body")
	allocs := testing.AllocsPerRun(500, func() {
		c.st.txs[0].td.Updated[ts] = true
		c.fa.Updated[ts] = true
		c.inspect(p, ts, applayer.GetCtx{})
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per packet", allocs)
	}
}

// TestTxStateReleased: ReleaseTx hands a tx's state back, and a flow of many txs keeps the
// store pool at the number of live txs (no growth per tx).
func TestTxStateReleased(t *testing.T) {
	e := build(t, detect.Config{},
		`alert http any any -> any any (http.method; content:"GET"; file.data; content:"x"; sid:1;)`)
	c := newConn(t, e)
	c.free = true
	for i := 0; i < 200; i++ {
		got := c.send(ts, "GET /\n\nx\n.\n")
		if !slices.Equal(got, []string{"1/" + fmt.Sprint(i)}) {
			t.Fatalf("tx %d: %q", i, got)
		}
		c.send(tc, "200\n\n.\n")
	}
	if len(c.st.txs) != 0 {
		t.Errorf("%d txs left", len(c.st.txs))
	}
	allocs := testing.AllocsPerRun(100, func() {
		c.st.Parse(ts, []byte("GET /\n\nx\n.\n"), 0)
		c.fa.Updated[ts] = true
		c.inspect(packet(ts, ""), ts, applayer.GetCtx{})
		c.st.Parse(tc, []byte("200\n\n.\n"), 0)
		c.fa.Updated[tc] = true
		c.inspect(packet(tc, ""), tc, applayer.GetCtx{})
	})
	// The stand-in parser allocates its txs; detection's part must stay flat: at most the
	// parser's own allocations (tx, lines, slices).
	if allocs > 12 {
		t.Errorf("%.1f allocations per tx", allocs)
	}
}

// TestTxEvents follows §4.7 (src/detect-app-layer-event.c: DetectEngineAptEventInspect): a
// tx event matches once set; without it the rule can't match once the tx is complete in the
// direction. Packet-level events are packet matches (§3.11, DetectAppLayerEventPktMatch).
func TestTxEvents(t *testing.T) {
	rs := []string{
		`alert http any any -> any any (app-layer-event:http.missing_host_header; sid:1;)`,
		`alert http any any -> any any (app-layer-event:http.request_field_missing_colon; flow:to_server; sid:2;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /\nnocolon\n", []string{"2/0"}},
		{ts, "\n.\n", []string{"1/0"}},
		{ts, "GET /\nHost: x\n\n.\n", nil},
	})
	e := build(t, detect.Config{},
		`alert tcp any any -> any any (app-layer-event:applayer_mismatch_protocol_both_directions; sid:1;)`)
	c := newConn(t, e)
	c.fa.Events.Set(applayer.EventMismatchProtocolBothDirections)
	c.inspect(packet(ts, "x"), ts, applayer.GetCtx{})
	if got := c.alerts(); !slices.Equal(got, []string{"1/-"}) {
		t.Errorf("packet event: %q", got)
	}
	c.inspect(packet(ts, "x"), ts, applayer.GetCtx{})
	if got := c.alerts(); got != nil {
		t.Errorf("packet event not set: %q", got)
	}
}

// TestPacketRuleAppProto follows §3.8 and §4.5 (src/detect.c: DetectRulePacketRules): a
// packet rule of protocol http is skipped while the flow's protocol is not http; with
// detect.guess-applayer-tx its alert names the direction's only live tx, as a guess, at most
// stream-tx-log-limit times per tx.
func TestPacketRuleAppProto(t *testing.T) {
	rs := []string{`alert http any any -> any any (content:"GET"; sid:1;)`}
	e := build(t, detect.Config{}, rs...)
	c := newConn(t, e)
	c.fa.Proto = applayer.ProtoUnknown
	if got := c.send(ts, "GET /\n"); got != nil {
		t.Errorf("unknown protocol: %q", got)
	}
	c.fa.Proto = applayer.ProtoHTTP1
	if got := c.send(ts, "GET"); !slices.Equal(got, []string{"1/-"}) {
		t.Errorf("http: %q", got)
	}
	c.tc.SetApp(nil, applayer.GetCtx{})
	e.Inspect(c.tc, packet(ts, "GET"), c.f, ts)
	if got := c.alerts(); got != nil {
		t.Errorf("no app layer: %q", got)
	}

	g := newConn(t, build(t, detect.Config{GuessAppLayerTx: true, StreamTxLogLimit: 2}, rs...))
	g.st.Parse(ts, []byte("GET /\n"), 0)
	var got []string
	for i := 0; i < 3; i++ {
		g.inspect(packet(ts, "GET"), ts, applayer.GetCtx{})
		got = append(got, g.alerts()...)
		if i < 2 {
			if en := g.tc.Queue.Entries()[0]; en.Flags&(alert.FlagTx|alert.FlagTxGuessed) != alert.FlagTx|alert.FlagTxGuessed {
				t.Errorf("flags %#x, want tx and tx_guessed", en.Flags)
			}
		}
	}
	if want := []string{"1/0", "1/0", "1/-"}; !slices.Equal(got, want) {
		t.Errorf("guessed: %q, want %q", got, want)
	}
	g.st.Parse(ts, []byte("\n.\nGET /2\n"), 0) // two live txs: no guess
	if got := g.send(ts, "GET"); !slices.Equal(got, []string{"1/-"}) {
		t.Errorf("two txs: %q", got)
	}
}

// TestTxAlertFlags: a tx match is queued with STATE_MATCH and TX (§4.4), and an app-layer
// rule's drop applies to the flow (§2.4 auto scope).
func TestTxAlertFlags(t *testing.T) {
	c := newConn(t, build(t, detect.Config{IPS: true}, `drop http any any -> any any (http.method; content:"GET"; sid:1;)`))
	c.send(ts, "GET /\n")
	en := c.tc.Queue.Entries()
	if len(en) != 1 || en[0].Flags != alert.FlagStateMatch|alert.FlagTx|alert.FlagApplyToFlow || en[0].TxID != 0 {
		t.Errorf("entries %+v", en)
	}
}

// TestAppLayerProtocolPDOnly follows §3.7 (src/detect-app-layer-protocol.c): a rule made only
// of app-layer-protocol is checked on packets with the "detection done" flag only; a negated
// match never matches an unknown protocol.
func TestAppLayerProtocolPDOnly(t *testing.T) {
	e := build(t, detect.Config{},
		`alert tcp any any -> any any (app-layer-protocol:http; sid:1;)`,
		`alert tcp any any -> any any (app-layer-protocol:!dns; sid:2;)`,
		`alert tcp any any -> any any (app-layer-protocol:http; content:"x"; sid:3;)`,
	)
	c := newConn(t, e)
	c.fa.ProtoDir = [2]applayer.Proto{}
	c.inspect(packet(ts, "x"), ts, applayer.GetCtx{})
	if got := c.alerts(); got != nil {
		t.Errorf("unknown: %q", got)
	}
	c.fa.ProtoDir[ts] = applayer.ProtoHTTP1
	c.inspect(packet(ts, "x"), ts, applayer.GetCtx{})
	if got := c.alerts(); !slices.Equal(got, []string{"3/-"}) {
		t.Errorf("http without detection-done: %q", got)
	}
	c.fa.ProtoDir[ts] = applayer.ProtoHTTP1
	c.fa.DetectDone[ts] = true
	c.inspect(packet(ts, "x"), ts, applayer.GetCtx{})
	if got := c.alerts(); !slices.Equal(got, []string{"1/-", "2/-", "3/-"}) {
		t.Errorf("http with detection-done: %q", got)
	}
}

func BenchmarkTxInspect(b *testing.B) {
	var texts []string
	for i := 0; i < 200; i++ {
		switch i % 4 {
		case 0:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (http.uri; content:"/p%d"; sid:%d;)`, i, i+1))
		case 1:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (http.method; content:"GET"; http.header; content:"H%d"; sid:%d;)`, i, i+1))
		case 2:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (file.data; content:"body%d"; sid:%d;)`, i, i+1))
		case 3:
			texts = append(texts, fmt.Sprintf(`alert http any any -> any any (http.header; content:!"X%d"; sid:%d;)`, i, i+1))
		}
	}
	e := build(b, detect.Config{}, texts...)
	c := newConn(b, e)
	c.send(ts, "GET /index\nHost: a\nUser-Agent: b\n\nsome body\n")
	p := packet(ts, "more body")
	b.ReportAllocs()
	for b.Loop() {
		c.st.txs[0].td.Updated[ts] = true
		c.fa.Updated[ts] = true
		c.inspect(p, ts, applayer.GetCtx{})
	}
}

// TestTxPayloadKeywords: the payload keywords on transaction buffers, as on pkt_data:
// urilen on http.uri (src/detect-urilen.c: the length of the normalized URI), bsize,
// startswith / endswith, and a negated content, which needs the buffer to exist
// (DetectEngineInspectBufferGeneric: no buffer is no match).
func TestTxPayloadKeywords(t *testing.T) {
	rs := []string{
		`alert http any any -> any any (urilen:2; sid:1;)`,
		`alert http any any -> any any (urilen:>2; sid:2;)`,
		`alert http any any -> any any (http.uri; bsize:2; sid:3;)`,
		`alert http any any -> any any (http.uri; content:"/a"; startswith; sid:4;)`,
		`alert http any any -> any any (http.method; content:"ET"; endswith; sid:5;)`,
		`alert http any any -> any any (http.method; content:"GE"; endswith; sid:6;)`,
		`alert http any any -> any any (http.uri; content:!"/x"; sid:7;)`,
		`alert http any any -> any any (http.request_header; content:"B: 2"; startswith; sid:8;)`,
		`alert http any any -> any any (http.uri; content:"/"; http.request_header; content:"A: 1"; endswith; sid:9;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /a\n", []string{"1/0", "3/0", "4/0", "5/0", "7/0"}},
		{ts, "A: 1\nB: 2\n\n.\n", []string{"8/0", "9/0"}},
		{ts, "GET /xyz\nA: 1x\n\n.\n", []string{"2/1", "5/1"}},
	})
}

// TestTxPseudoPacket follows GetDetectTx (src/detect.c): a tx the parser did not update is
// skipped unless it is complete or the stream ended (a flow-end pseudo packet with EOF),
// which also runs tx inspection without an app-layer update.
func TestTxPseudoPacket(t *testing.T) {
	e := build(t, detect.Config{}, `alert http any any -> any any (file.data; content:"abc"; sid:1;)`)
	c := newConn(t, e)
	c.st.Parse(ts, []byte("GET /\n\nab"), 0)
	c.send(ts, "")
	c.st.Parse(ts, []byte("abc\n"), 0)
	c.st.txs[0].td.Updated[ts] = false
	pseudo := packet(ts, "")
	pseudo.Source = decode.SourceStreamFlowTimeout
	c.inspect(pseudo, ts, applayer.GetCtx{})
	if got := c.alerts(); got != nil {
		t.Errorf("not updated, no EOF: %q", got)
	}
	c.inspect(pseudo, ts, applayer.GetCtx{EOF: true})
	if got := c.alerts(); !slices.Equal(got, []string{"1/0"}) {
		t.Errorf("EOF pseudo packet: %q", got)
	}
}

// TestTxTransforms: a transform chain applies to the buffer before its contents and its
// fast pattern (the prefilter scans the transformed buffer, src/detect-engine-prefilter.c:
// PrefilterMpm on the InspectionBuffer after transforms); the same buffer with and without
// a chain are separate lists.
func TestTxTransforms(t *testing.T) {
	rs := []string{
		`alert http any any -> any any (http.uri; to_lowercase; content:"/admin"; sid:1;)`,
		`alert http any any -> any any (http.uri; content:"/admin"; sid:2;)`,
		`alert http any any -> any any (http.uri; to_uppercase; content:"/ADMIN"; http.method; to_lowercase; content:"get"; sid:3;)`,
		`alert http any any -> any any (http.request_header; strip_whitespace; content:"A:1"; sid:4;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /AdMin\nA: 1\n\n.\n", []string{"1/0", "3/0", "4/0"}},
		{ts, "GET /admin\n\n.\n", []string{"1/1", "2/1", "3/1"}},
	})
}

// TestTxBothDirPorts: a transactional rule written for the server's port matches: its request
// engines run on the to-server packet, whose header the rule's fields accept, and their
// result is stored for the to-client side too (src/detect-engine-state.c:
// DetectRunStoreStateTx), which only continues it; a new inspection on a to-client packet
// fails the header.
func TestTxBothDirPorts(t *testing.T) {
	rs := []string{
		`alert http any any => any 80 (msg:"GET then 200, server port"; http.method; content:"GET"; http.stat_code; content:"200"; sid:1;)`,
		`alert http any any => any 8080 (msg:"other port"; http.method; content:"GET"; http.stat_code; content:"200"; sid:2;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /\n\n.\n", nil},
		{tc, "200\n\n.\n", []string{"1/0"}},
		{tc, "200\n\n.\n", nil}, // a response without request: its request side never ran
	})
}

// TestTxICMPErrorSkipped: an ICMP error that belongs to a TCP flow is not a packet of the
// flow's app layer: no tx inspection runs for it (DetectRun: pflow->proto == p->proto).
func TestTxICMPErrorSkipped(t *testing.T) {
	c := newConn(t, build(t, detect.Config{}, `alert http any any -> any any (http.method; content:"GET"; sid:1;)`))
	c.st.Parse(ts, []byte("GET /\n"), 0)
	c.fa.Updated[ts] = true
	p := packet(ts, "")
	p.IPProto, p.HasL4 = decode.ProtoICMP, true
	c.inspect(p, ts, applayer.GetCtx{})
	if got := c.alerts(); got != nil {
		t.Errorf("icmp: %q", got)
	}
	c.fa.Updated[ts] = true
	c.st.txs[0].td.Updated[ts] = true
	c.inspect(packet(ts, ""), ts, applayer.GetCtx{})
	if got := c.alerts(); !slices.Equal(got, []string{"1/0"}) {
		t.Errorf("tcp: %q", got)
	}
}

// TestTxStreamEngine follows §2.5 (src/detect-engine.c: AppendStreamInspectEngine,
// src/detect-engine-payload.c: DetectEngineInspectStream): a rule with app-layer buffers and
// payload content is a tx rule with a stream engine at progress 0, which inspects the data
// of the packet inspecting the tx; with the fast pattern in the payload content the rule
// becomes a candidate when the packet's own database finds it.
func TestTxStreamEngine(t *testing.T) {
	rs := []string{
		`alert http any any -> any any (msg:"method and payload fp"; content:"secret"; fast_pattern; http.method; content:"GET"; sid:1;)`,
		`alert http any any -> any any (msg:"uri and payload"; http.uri; content:"/a"; pkt_data; content:"zzz"; sid:2;)`,
		`alert http any any -> any any (msg:"uri fp and payload"; http.uri; content:"/abc"; fast_pattern; pkt_data; content:"q"; sid:3;)`,
		`alert tcp any any -> any any (msg:"packet rule"; content:"secret"; sid:4;)`,
	}
	runSteps(t, rs, []step{
		{ts, "GET /abc\n", nil},
		{ts, "X: secret\n", []string{"1/0", "4/-"}},
		{ts, "Y: zzz q\n", []string{"2/0", "3/0"}},
		{ts, "\nsecret zzz q\n.\n", []string{"4/-"}},
	})
}

// TestFirewallModeInspectID: threat-detection tx rules load in firewall mode (app:td), and
// when the packet tables decide a packet (here the default drop:packet) the app tables do not
// run, but the inspect ids still move past complete txs, so the framework can free them.
func TestFirewallModeInspectID(t *testing.T) {
	var rs []*rules.Rule
	r, err := rules.Parse(`alert http any any -> any any (http.method; content:"GET"; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	rs = append(rs, r)
	e, errs, err := detect.Build(rs, detect.Config{Firewall: true})
	if err != nil || len(errs) != 0 {
		t.Fatalf("tx rule in firewall mode: %v %v", err, errs)
	}
	defer e.Close()
	c := newConn(t, e)
	c.send(ts, "GET /\n\n.\nGET /2\n")
	if c.fa.InspectID[ts] != 1 {
		t.Errorf("inspect id %d, want 1", c.fa.InspectID[ts])
	}
}
