package stream

import (
	"reflect"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

func smallChunks(n uint32) Config {
	cfg := defaultConfig()
	cfg.ToServerChunk, cfg.ToClientChunk = n, n
	return cfg
}

// Split content is reassembled and handed out by Raw only once the server ACKed it, on a
// to_server packet (§2.2; SV bug-78-uricontent's timing).
func TestRawAfterAck(t *testing.T) {
	c := established(t, smallChunks(4))
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "GET /ind"})
	if got := c.raw(flow.ToServer, false); got != nil {
		t.Fatalf("raw before ACK: %q", got)
	}
	c.send(pkt{flags: fPA, seq: cISN + 9, ack: sISN + 1, data: "ex.html"})
	if got := c.raw(flow.ToServer, false); got != nil {
		t.Fatalf("raw before ACK: %q", got)
	}
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 16})
	c.send(pkt{flags: fACK, seq: cISN + 16, ack: sISN + 1})
	if got := c.raw(flow.ToServer, false); !reflect.DeepEqual(got, []string{"GET /index.html"}) {
		t.Fatalf("raw after ACK: %q", got)
	}
	if got := c.raw(flow.ToServer, false); got != nil {
		t.Fatalf("raw again: %q", got)
	}
}

// Below the chunk size nothing is inspected until a trigger: chunk size reached, the
// app-layer trigger, or a state past TIME_WAIT (§2.2).
func TestRawChunkAndTriggers(t *testing.T) {
	c := established(t, smallChunks(10))
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "12345"})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 6})
	c.send(pkt{flags: fPA, seq: cISN + 6, ack: sISN + 1, data: "678901"})
	if got := c.raw(flow.ToServer, false); got != nil {
		t.Fatalf("raw below chunk size: %q", got)
	}
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 12})
	c.send(pkt{flags: fACK, seq: cISN + 12, ack: sISN + 1})
	if got := c.raw(flow.ToServer, false); !reflect.DeepEqual(got, []string{"12345678901"}) {
		t.Fatalf("raw at chunk size: %q", got)
	}

	// The app-layer trigger.
	c.send(pkt{flags: fPA, seq: cISN + 12, ack: sISN + 1, data: "ab"})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 14})
	c.tr.TriggerRaw(c.f, flow.ToServer)
	c.send(pkt{flags: fACK, seq: cISN + 14, ack: sISN + 1})
	if got := c.raw(flow.ToServer, false); !reflect.DeepEqual(got, []string{"ab"}) {
		t.Fatalf("raw on trigger: %q", got)
	}

	// The client's FIN: CLOSE_WAIT > TIME_WAIT.
	c.send(pkt{flags: fPA, seq: cISN + 14, ack: sISN + 1, data: "cd"})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 16})
	c.send(pkt{flags: fFA, seq: cISN + 16, ack: sISN + 1})
	if c.state() != flow.TCPCloseWait {
		t.Fatalf("state %v", c.state())
	}
	if got := c.raw(flow.ToServer, false); !reflect.DeepEqual(got, []string{"cd"}) {
		t.Fatalf("raw after FIN: %q", got)
	}
}

// The flow-end pseudo packet inspects unACKed data too (§1.17, SV eve-overlap-payload-01).
func TestRawPseudoFlush(t *testing.T) {
	c := established(t, defaultConfig())
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "unacked data"})
	if got := c.raw(flow.ToServer, false); got != nil {
		t.Fatalf("raw: %q", got)
	}
	if nf := c.tr.NeedsFlush(c.f); nf != [2]bool{true, true} {
		t.Fatalf("needs flush %v", nf)
	}
	c.tr.PseudoPacket(c.f, flow.ToServer)
	if got := c.raw(flow.ToServer, true); !reflect.DeepEqual(got, []string{"unacked data"}) {
		t.Fatalf("pseudo raw: %q", got)
	}
	if c.tr.Counters.PseudoPackets != 1 {
		t.Errorf("pseudo counter %d", c.tr.Counters.PseudoPackets)
	}
}

// After a RST, a closed session still needs a flush of what was not inspected, and the
// pseudo packet sees the unACKed data (SV tcp-rst-unacked-stream-01-raw).
func TestRawAfterRst(t *testing.T) {
	c := established(t, defaultConfig())
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "secret"})
	c.send(pkt{fromServer: true, flags: fRST, seq: sISN + 1})
	if c.state() != flow.TCPClosed {
		t.Fatalf("state %v", c.state())
	}
	if nf := c.tr.NeedsFlush(c.f); nf != [2]bool{true, false} {
		t.Fatalf("needs flush %v", nf)
	}
	if got := c.raw(flow.ToServer, true); !reflect.DeepEqual(got, []string{"secret"}) {
		t.Fatalf("pseudo raw: %q", got)
	}
	d, gap, eof := c.tr.AppDataFlush(c.f, flow.ToServer)
	if string(d) != "secret" || gap != 0 || !eof {
		t.Errorf("app flush %q %d %v", d, gap, eof)
	}
}

// A gap splits the raw data into blocks; Suricata's progress stops at the block after the
// gap (StreamReassembleRawDo).
func TestRawGapSplits(t *testing.T) {
	c := established(t, smallChunks(1))
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "AAAA"})
	c.send(pkt{flags: fPA, seq: cISN + 9, ack: sISN + 1, data: "CCCC"})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 13})
	c.send(pkt{flags: fACK, seq: cISN + 13, ack: sISN + 1})
	var buf RawBuffer
	if !c.tr.Raw(c.f, flow.ToServer, false, &buf) {
		t.Fatal("no raw data")
	}
	if len(buf.Chunks) != 2 || string(buf.Chunks[0]) != "AAAA" || string(buf.Chunks[1]) != "CCCC" ||
		!reflect.DeepEqual(buf.Offsets, []uint64{0, 8}) || buf.End != 8 {
		t.Fatalf("chunks %q offsets %v end %d", buf.Chunks, buf.Offsets, buf.End)
	}

	// The app layer gets the data, then the gap (reassembly_seq_gap), then the rest.
	if d, gap := c.app(flow.ToServer); d != "AAAA" || gap != 0 {
		t.Fatalf("app %q gap %d", d, gap)
	}
	d, gap := c.app(flow.ToServer)
	if d != "CCCC" || gap != 4 || !c.hasEvent(decode.EventStreamReassemblySeqGap) || c.tr.Counters.ReassemblyGap != 1 {
		t.Fatalf("app %q gap %d events %v", d, gap, c.events())
	}
	// The flow record's tcp.ts_gap (STREAMTCP_STREAM_FLAG_HAS_GAP on the client's stream).
	if !c.f.TCP.TSGap || c.f.TCP.TCGap {
		t.Errorf("ts_gap %v tc_gap %v, want true false", c.f.TCP.TSGap, c.f.TCP.TCGap)
	}
}

// Depth: the segment passing the depth is not stored (Suricata 8.0.6 stores no part of it),
// reassembly_depth_reached is raised, and after the next prune the direction is not
// reassembled any more.
func TestSessionDepth(t *testing.T) {
	cfg := defaultConfig()
	cfg.Depth = 10
	c := established(t, cfg)
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "12345678"})
	if c.hasEvent(decode.EventStreamReassemblyDepthReached) || !c.last.Added {
		t.Fatalf("first: events %v", c.events())
	}
	c.send(pkt{flags: fPA, seq: cISN + 9, ack: sISN + 1, data: "abcdefgh"})
	if !c.hasEvent(decode.EventStreamReassemblyDepthReached) || !c.tr.DepthReached(c.f, flow.ToServer) ||
		c.tr.Counters.StreamDepthReached != 1 {
		t.Fatalf("second: events %v", c.events())
	}
	if !c.last.AppUpdate[flow.ToServer] {
		t.Errorf("depth: app not updated in packet direction")
	}
	c.tr.Prune(c.f, flow.ToServer)
	c.send(pkt{flags: fPA, seq: cISN + 17, ack: sISN + 1, data: "more"})
	if c.last.Added || c.hasEvent(decode.EventStreamReassemblyDepthReached) {
		t.Fatalf("after depth: added %v events %v", c.last.Added, c.events())
	}
	if c.tr.Pool().InUse() != 0 {
		t.Errorf("pool in use %d after depth", c.tr.Pool().InUse())
	}
}

// Overlapping different data raises the event with check-overlap-different-data, and in
// inline mode (forced check).
func TestOverlapDifferentData(t *testing.T) {
	for _, inline := range []bool{false, true} {
		cfg := defaultConfig()
		cfg.CheckOverlapDiff = !inline
		cfg.Inline = inline
		c := established(t, cfg)
		c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "aaaa"})
		c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abba"})
		if !c.hasEvent(decode.EventStreamReassemblyOverlapDifferentData) || c.tr.Counters.OverlapDiffData != 1 ||
			c.tr.Counters.Overlap != 1 {
			t.Errorf("inline %v: events %v counters %+v", inline, c.events(), c.tr.Counters)
		}
		if inline && (string(c.p.Payload) != "aaaa" || !c.last.Modified) {
			t.Errorf("inline packet not rewritten: %q", c.p.Payload)
		}
	}
}

// Inline raw inspection: on every packet added, the block around it.
func TestRawInline(t *testing.T) {
	cfg := smallChunks(2560)
	cfg.Inline = true
	c := established(t, cfg)
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "GET /"})
	if got := c.raw(flow.ToServer, false); !reflect.DeepEqual(got, []string{"GET /"}) {
		t.Fatalf("raw 1: %q", got)
	}
	c.send(pkt{flags: fPA, seq: cISN + 6, ack: sISN + 1, data: "index"})
	if got := c.raw(flow.ToServer, false); !reflect.DeepEqual(got, []string{"GET /index"}) {
		t.Fatalf("raw 2: %q", got)
	}
	// Inline app data is there before any ACK.
	if d, _ := c.app(flow.ToServer); d != "GET /index" {
		t.Errorf("inline app %q", d)
	}
	// A big stream is trimmed to about a chunk around the packet.
	cfg.ToServerChunk = 30
	c = established(t, cfg)
	seq := uint32(cISN + 1)
	for i := 0; i < 10; i++ {
		c.send(pkt{flags: fPA, seq: seq, ack: sISN + 1, data: strings.Repeat(string(rune('a'+i)), 10)})
		seq += 10
	}
	got := c.raw(flow.ToServer, false)
	if len(got) != 1 || !strings.HasSuffix(got[0], "jjjjjjjjjj") || len(got[0]) != 30 {
		t.Fatalf("trimmed raw %q", got)
	}
}

// Storage is released once raw and app progress and last_ack pass it.
func TestSessionRelease(t *testing.T) {
	c := established(t, smallChunks(1))
	data := strings.Repeat("x", 3*PageSize)
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: data})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 1 + uint32(len(data))})
	if c.tr.Pool().InUse() == 0 {
		t.Fatal("nothing stored")
	}
	if d, _ := c.app(flow.ToServer); len(d) != len(data) {
		t.Fatalf("app %d bytes", len(d))
	}
	c.send(pkt{flags: fACK, seq: cISN + 1 + uint32(len(data)), ack: sISN + 1})
	if got := c.raw(flow.ToServer, false); len(got) != 1 || len(got[0]) != len(data) {
		t.Fatalf("raw %d chunks", len(got))
	}
	c.tr.Prune(c.f, flow.ToServer)
	if c.tr.Pool().InUse() != 0 {
		t.Errorf("in use %d after prune", c.tr.Pool().InUse())
	}
	c.tr.Release(c.f)
	if c.tr.Pool().InUse() != 0 || c.tr.SessionMemuse() != 0 {
		t.Errorf("after release %d %d", c.tr.Pool().InUse(), c.tr.SessionMemuse())
	}
}

// Reassembly memcap: no segment or no page under the memcap makes the session lossy; a RST
// is then accepted whatever its sequence number (§1.6, §1.12).
func TestReassemblyMemcap(t *testing.T) {
	cfg := defaultConfig()
	cfg.ReassemblyMemcap = 1 // nothing fits
	cfg.SegmentPrealloc = 0
	c := established(t, cfg)
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "data"})
	if !c.hasEvent(decode.EventStreamReassemblyNoSegment) || c.last.Added || c.tr.Counters.SegmentMemcapDrop != 1 {
		t.Fatalf("events %v added %v counters %+v", c.events(), c.last.Added, c.tr.Counters)
	}
	c.send(pkt{flags: fRST, seq: cISN + 777})
	if c.state() != flow.TCPClosed {
		t.Errorf("lossy session did not take the RST: %v", c.state())
	}
}

// A warm session's in-order traffic allocates nothing.
func TestSteadyStateAllocs(t *testing.T) {
	c := established(t, smallChunks(100))
	payload := []byte(strings.Repeat("p", 100))
	cseq := uint32(cISN + 1)
	sseq := uint32(sISN + 1)
	step := func() {
		c.send(pkt{flags: fPA, seq: cseq, ack: sseq, payload: payload})
		cseq += 100
		c.tr.Raw(c.f, flow.ToServer, false, &c.rawBuf)
		c.tr.RawConsumed(c.f, flow.ToServer, c.rawBuf.End)
		c.send(pkt{fromServer: true, flags: fPA, seq: sseq, ack: cseq, payload: payload})
		sseq += 100
		c.tr.Raw(c.f, flow.ToClient, false, &c.rawBuf)
		c.tr.RawConsumed(c.f, flow.ToClient, c.rawBuf.End)
		d, _, _ := c.tr.AppData(c.f, flow.ToServer)
		c.tr.ConsumeApp(c.f, flow.ToServer, len(d))
		d, _, _ = c.tr.AppData(c.f, flow.ToClient)
		c.tr.ConsumeApp(c.f, flow.ToClient, len(d))
	}
	for i := 0; i < 200; i++ {
		step()
	}
	if n := testing.AllocsPerRun(500, step); n != 0 {
		t.Errorf("%v allocations per round", n)
	}
	if c.tr.Pool().InUse() > 4*(pageCost+8*recordCost) {
		t.Errorf("in use %d: storage not released", c.tr.Pool().InUse())
	}
}

// Urgent data: oob takes the last payload byte out and shifts later data, gap leaves a
// one-byte hole, inline keeps it (SV tcp-urgp-01-oob).
func TestUrgent(t *testing.T) {
	for _, tc := range []struct {
		pol  UrgentPolicy
		want []string
	}{
		{UrgentInline, []string{"abcXdef"}},
		{UrgentOOB, []string{"abcdef"}},
		{UrgentGap, []string{"abc", "def"}},
	} {
		cfg := defaultConfig()
		cfg.Urgent = tc.pol
		c := established(t, cfg)
		c.p.Reset()
		k := pkt{flags: fPA | decode.TCPFlagURG, seq: cISN + 1, ack: sISN + 1, data: "abcX"}
		c.sendURG(k, 4)
		c.send(pkt{flags: fPA, seq: cISN + 5, ack: sISN + 1, data: "def"})
		if got := c.raw(flow.ToServer, true); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("policy %d: raw %q, want %q", tc.pol, got, tc.want)
		}
	}
	cfg := defaultConfig()
	cfg.Urgent, cfg.Inline = UrgentDrop, true
	c := established(t, cfg)
	if r := c.sendURG(pkt{flags: fPA | decode.TCPFlagURG, seq: cISN + 1, ack: sISN + 1, data: "x"}, 1); !r.Drop || r.Added {
		t.Errorf("urgent drop: %+v", r)
	}
}

// IDS feeds the app layer the stream the packet ACKs (UPDATE_DIR_OPPOSING): the request is
// parsed on the server's ACK, packet 5 of SV bug-78-uricontent; the response on the client's.
func TestAppUpdateOpposing(t *testing.T) {
	c := newConv(t, defaultConfig())
	c.handshake(cISN, sISN)
	req := "GET /uri HTTP/1.0\r\n\r\n"
	r := c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: req})
	if r.AppUpdate != [2]bool{false, true} {
		t.Errorf("request packet: app update %v", r.AppUpdate)
	}
	if d, _ := c.app(flow.ToServer); d != "" {
		t.Errorf("request readable before the ACK: %q", d)
	}
	r = c.send(pkt{fromServer: true, flags: fPA, seq: sISN + 1, ack: cISN + 1 + uint32(len(req)), data: "HTTP/1.0 200 OK\r\n\r\n"})
	if r.AppUpdate != [2]bool{true, false} {
		t.Errorf("response packet: app update %v", r.AppUpdate)
	}
	if d, _ := c.app(flow.ToServer); d != req {
		t.Errorf("request on the server's ACK: %q", d)
	}
	if d, _ := c.app(flow.ToClient); d != "" {
		t.Errorf("response readable before the ACK: %q", d)
	}
	c.send(pkt{flags: fACK, seq: cISN + 1 + uint32(len(req)), ack: sISN + 20})
	if d, _ := c.app(flow.ToClient); d != "HTTP/1.0 200 OK\r\n\r\n" {
		t.Errorf("response on the client's ACK: %q", d)
	}
}

// Without an app layer but with raw inspection, the tracker takes the byte stream itself, as
// Suricata's app layer does while it looks for a protocol: data packets enter the stream
// (PKT_STREAM_ADD), the data is released once raw inspection consumed it, and a gap the
// receiver ACKed is declared. With raw inspection off too nothing reads the stream: it is not
// reassembled (StreamTcpPruneSession's APP_LAYER_DISABLED and DISABLE_RAW).
func TestNoAppLayer(t *testing.T) {
	data := strings.Repeat("y", 3*PageSize)
	for _, raw := range []bool{false, true} {
		cfg := smallChunks(1)
		cfg.AppLayer, cfg.Raw = false, raw
		c := established(t, cfg)
		if res := c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: data}); res.Added != raw {
			t.Errorf("raw=%v: data packet added %v", raw, res.Added)
		}
		c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 1 + uint32(len(data))})
		if raw {
			c.send(pkt{flags: fACK, seq: cISN + 1 + uint32(len(data)), ack: sISN + 1})
			if got := c.raw(flow.ToServer, false); len(got) != 1 || len(got[0]) != len(data) {
				t.Fatalf("raw=true: raw %d chunks", len(got))
			}
		}
		c.tr.Prune(c.f, flow.ToServer)
		if n := c.tr.Pool().InUse(); n != 0 {
			t.Errorf("raw=%v: %d bytes in use after the data was taken", raw, n)
		}
	}
	// A hole the server ACKs past is a gap (reassembly_seq_gap), with no app layer too.
	cfg := smallChunks(1)
	cfg.AppLayer = false
	c := established(t, cfg)
	c.send(pkt{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "AAAA"})
	c.send(pkt{flags: fPA, seq: cISN + 9, ack: sISN + 1, data: "CCCC"})
	c.send(pkt{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 13})
	if !c.hasEvent(decode.EventStreamReassemblySeqGap) || c.tr.Counters.ReassemblyGap != 1 || !c.f.TCP.TSGap {
		t.Errorf("gap without an app layer: events %v, reassembly_gap %d, ts_gap %v", c.events(), c.tr.Counters.ReassemblyGap, c.f.TCP.TSGap)
	}
}

// Raw reports StreamReassembleRawHasDataReady (src/stream-tcp-reassemble.c), which
// src/detect.c: DetectRunSetup turns into PKT_DETECT_HAS_STREAMDATA: it depends on the
// segments, the raw flags, raw progress against the segments' right edge and
// StreamTcpReassembleRawCheckLimit (IDS), or on a payload added to the stream (inline) — not
// on whether StreamReassembleRawDo then finds ACKed data. So after the client's FIN
// (CLOSE_WAIT > TIME_WAIT) with its data not yet ACKed, a to_server packet has stream data to
// inspect but no chunk (and counts as having payload for the signature mask,
// PacketCreateMask). In inline mode DISABLE_RAW (stream.reassembly.raw off) leaves nothing to
// inspect, though StreamReassembleRawInline itself does not check it.
func TestRawHasDataReady(t *testing.T) {
	inlineNoRaw := defaultConfig()
	inlineNoRaw.Inline, inlineNoRaw.Raw = true, false
	for _, tc := range []struct {
		name   string
		cfg    Config
		pkts   []pkt
		ready  bool
		chunks []string
		end    uint64
	}{
		{"unACKed data below the chunk size", defaultConfig(), []pkt{
			{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"},
		}, false, nil, 0},
		{"FIN, data not ACKed", defaultConfig(), []pkt{
			{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"},
			{flags: fFA, seq: cISN + 4, ack: sISN + 1},
		}, true, nil, 0},
		{"FIN, data ACKed", defaultConfig(), []pkt{
			{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"},
			{fromServer: true, flags: fACK, seq: sISN + 1, ack: cISN + 4},
			{flags: fFA, seq: cISN + 4, ack: sISN + 1},
		}, true, []string{"abc"}, 3},
		{"inline, raw off", inlineNoRaw, []pkt{
			{flags: fPA, seq: cISN + 1, ack: sISN + 1, data: "abc"},
		}, false, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := established(t, tc.cfg)
			for _, k := range tc.pkts {
				c.send(k)
			}
			var buf RawBuffer
			ready := c.tr.Raw(c.f, flow.ToServer, false, &buf)
			var got []string
			for _, ch := range buf.Chunks {
				got = append(got, string(ch))
			}
			if ready != tc.ready || !reflect.DeepEqual(got, tc.chunks) || ready && buf.End != tc.end {
				t.Errorf("ready %v chunks %q end %d, want %v %q %d", ready, got, buf.End, tc.ready, tc.chunks, tc.end)
			}
		})
	}
}
