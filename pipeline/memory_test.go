package pipeline

import (
	"container/heap"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// TestStreamMemoryBounded is issue #16's "a 30-minute-equivalent replay loop with bounded
// RSS": 30 minutes of capture time of TCP traffic, generated as it is replayed (memConvs
// conversations at any time: short and long ones, data both ways with ACKs, out-of-order and
// retransmitted segments, FIN and RST closes, some never closed so that they time out), run
// through one worker with the stream engine (raw reassembly on) and content rules that inspect
// the stream. Every simulated minute it samples the stream engine's accounted memory (segment
// pool, sessions), the live heap and the process RSS. After the warm-up (minute memWarmup, when
// every kind of conversation has started and ended) no sample may exceed 1.5 times the warm-up
// level plus a slack, the accounted memory stays within the memcaps, and once every flow has
// ended the stream engine holds nothing.
func TestStreamMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30-minute-equivalent replay; skipped with -short")
	}
	e := memEngine(t)
	defer e.Close()
	cfg := testConfig(RunmodeSingle)
	// Suricata's timeouts are longer; these keep the steady state within the warm-up.
	to := flow.Timeouts{New: 30 * time.Second, Established: 120 * time.Second, Closed: 10 * time.Second}
	cfg.Flow.TCP = to
	cfg.Flow.MaxFlows = 1 << 16
	cfg.FlowHashSize, cfg.FlowPrealloc = 1<<14, 1<<12
	cfg.Stream = benchStreamConfig()
	cfg.Stream.Raw = true
	cfg.Engine = e
	cfg.Hosts = match.NewHostTable(4096)
	w, err := newWorker(0, 1, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()

	g := newTrafficGen(memConvs, time.Unix(1700000000, 0))
	var fr capture.Frame
	var samples []memSample
	next := g.start.Add(time.Minute)
	t0 := time.Now()
	for g.next(&fr) {
		for !fr.Timestamp.Before(next) {
			samples = append(samples, sampleMemory(w, len(samples)+1))
			w.flush()
			next = next.Add(time.Minute)
		}
		w.process(&fr)
	}
	elapsed := time.Since(t0)
	samples = append(samples, sampleMemory(w, len(samples)+1)) // the end of minute 30
	// The capture ends: every flow times out (the never-closed ones too) or is shut down.
	w.flows.ExpireAt(w.flows.Now().Add(time.Hour))
	w.flows.Shutdown()
	w.finishEnded()
	w.flush()
	end := sampleMemory(w, len(samples))

	alerts := w.tc.Queue.Counters.Alerts
	t.Logf("%d packets, %d conversations (%d never closed), %d alerts, in %s", w.packets, g.convs, g.unclosed, alerts, elapsed.Round(time.Millisecond))
	for _, s := range samples {
		t.Logf("%v", s)
	}
	t.Logf("end %v", end)
	if len(samples) < memMinutes {
		t.Fatalf("%d samples, want %d (one per simulated minute)", len(samples), memMinutes)
	}
	if alerts == 0 {
		t.Error("no alerts: the rules did not inspect the stream")
	}
	sc := cfg.Stream
	c := &w.stream.t.Counters
	t.Logf("stream: %d overlaps (retransmissions), %d reassembly gaps, %d insert failures", c.Overlap, c.ReassemblyGap, c.InsertDataNormalFail+c.InsertDataOverlapFail)
	if c.Overlap == 0 {
		t.Error("no overlaps: the retransmitted segments did not reach reassembly")
	}
	if c.SsnMemcapDrop != 0 || c.SegmentMemcapDrop != 0 {
		// A memcap reached would bound the memory for the wrong reason.
		t.Errorf("memcap drops: %d sessions, %d segments", c.SsnMemcapDrop, c.SegmentMemcapDrop)
	}
	warm := samples[memWarmup-1]
	for _, s := range samples[memWarmup:] {
		for _, m := range []struct {
			name        string
			got, base   uint64
			slack, ceil uint64
		}{
			{"segment pool in use", s.pool, warm.pool, 1 << 20, sc.ReassemblyMemcap},
			{"session memuse", s.ssn, warm.ssn, 256 << 10, sc.Memcap},
			{"live heap", s.heap, warm.heap, 16 << 20, 0},
			{"RSS", s.rss, warm.rss, 32 << 20, 0},
		} {
			if limit := m.base + m.base/2 + m.slack; m.got > limit {
				t.Errorf("minute %d: %s %d bytes, above 1.5 x %d (minute %d) + %d", s.minute, m.name, m.got, m.base, memWarmup, m.slack)
			}
			if m.ceil != 0 && m.got > m.ceil {
				t.Errorf("minute %d: %s %d bytes, above its memcap %d", s.minute, m.name, m.got, m.ceil)
			}
		}
	}
	if end.pool != 0 || end.ssn != 0 {
		t.Errorf("after every flow ended: segment pool %d bytes in use, sessions %d bytes; want 0", end.pool, end.ssn)
	}
	if n := w.flows.Len(); n != 0 {
		t.Errorf("%d flows left after shutdown", n)
	}
}

const (
	memMinutes = 30   // simulated capture time
	memWarmup  = 5    // the minute whose sample is the reference
	memConvs   = 1500 // conversations at any time
)

// memEngine builds a few content rules, stream-inspecting, that the generated traffic matches.
func memEngine(t *testing.T) *detect.Engine {
	var rs []*rules.Rule
	for _, s := range []string{
		`alert tcp any any -> any 80 (msg:"request"; flow:established,to_server; content:"GET /"; depth:5; sid:1;)`,
		`alert tcp any any -> any any (msg:"response"; flow:established,to_client; content:"HTTP/1.1 200"; sid:2;)`,
		`alert tcp any any -> any any (msg:"needle"; flow:established; content:"planted-needle"; sid:3;)`,
		`alert tcp any any -> any any (msg:"agent"; flow:established,to_server; content:"user-agent|3a| memtest"; nocase; sid:4;)`,
		`alert tcp any any -> any 443 (msg:"never"; flow:established; content:"absent-from-all-traffic"; sid:5;)`,
	} {
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
	if !e.HasStreamRules() {
		t.Fatal("the rules do not inspect the stream")
	}
	return e
}

// memSample is one sample of the worker's memory: the stream engine's accounted bytes
// (segment pool, sessions), the live heap after a collection, and the process RSS.
type memSample struct {
	minute    int
	pool, ssn uint64
	heap, rss uint64
	flows     int
}

func (s memSample) String() string {
	return "minute " + strconv.Itoa(s.minute) + ": flows " + strconv.Itoa(s.flows) +
		", segment pool " + strconv.FormatUint(s.pool>>10, 10) + " KiB, sessions " + strconv.FormatUint(s.ssn>>10, 10) +
		" KiB, heap " + strconv.FormatUint(s.heap>>20, 10) + " MiB, RSS " + strconv.FormatUint(s.rss>>20, 10) + " MiB"
}

func sampleMemory(w *worker, minute int) memSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memSample{minute: minute, pool: w.stream.t.Pool().InUse(), ssn: w.stream.t.SessionMemuse(),
		heap: ms.HeapAlloc, rss: processRSS(), flows: w.flows.Len()}
}

// processRSS reads the resident set size from /proc/self/statm (0 where there is none).
func processRSS() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// trafficGen generates memMinutes of TCP traffic in time order: n conversation slots, each
// running one conversation after another with a pause between them. A conversation is a
// handshake, exchanges (a request from the client, a response of one or more segments, the
// client's ACK), sometimes a segment sent out of order or again, and a FIN or RST close or none.
type trafficGen struct {
	rng        *rand.Rand
	start, end time.Time
	slots      []*conv
	queue      convQueue // by the time of each conversation's next packet
	buf        []byte
	payload    []byte
	cnt        uint64
	convs      int
	unclosed   int
}

// A segment is one TCP segment a conversation will send.
type segment struct {
	fromServer bool
	flags      uint8
	seq, ack   uint32
	data       []byte
	gap        time.Duration // before it is sent
}

type conv struct {
	slot       int
	client     [4]byte
	server     [4]byte
	sport      uint16
	dport      uint16
	at         time.Time
	pending    []segment
	cseq, sseq uint32 // the next sequence number of each side
	exchanges  int    // left to plan; -1 once the close is planned
	n          int    // conversations the slot began
	long       bool
	index      int // in the queue
}

type convQueue []*conv

func (q convQueue) Len() int           { return len(q) }
func (q convQueue) Less(i, j int) bool { return q[i].at.Before(q[j].at) }
func (q convQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *convQueue) Push(x any) { c := x.(*conv); c.index = len(*q); *q = append(*q, c) }
func (q *convQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

func newTrafficGen(n int, start time.Time) *trafficGen {
	g := &trafficGen{rng: rand.New(rand.NewPCG(16, 30)), start: start, end: start.Add(memMinutes * time.Minute),
		buf: make([]byte, 0, 1600), payload: make([]byte, 64<<10)}
	for i := range g.payload {
		g.payload[i] = "abcdefghijklmnopqrstuvwxyz0123456789 \r\n"[i%39]
	}
	for i := 0; i < n; i++ {
		c := &conv{slot: i, client: [4]byte{10, 1, byte(i >> 8), byte(i)}}
		g.begin(c, start.Add(time.Duration(g.rng.Int64N(int64(20*time.Second)))))
		heap.Push(&g.queue, c)
	}
	return g
}

// begin starts a new conversation in c's slot at time at.
func (g *trafficGen) begin(c *conv, at time.Time) {
	g.convs++
	r := g.rng
	c.at = at
	c.server = [4]byte{172, 16, 0, byte(1 + r.IntN(50))}
	c.sport = uint16(1024 + c.n%60000) // each slot has a client address of its own
	c.n++
	c.dport = 80
	if r.IntN(4) == 0 {
		c.dport = 443
	}
	c.cseq, c.sseq = r.Uint32(), r.Uint32()
	c.long = r.IntN(4) == 0
	if c.long {
		c.exchanges = 10 + r.IntN(30) // with 3 to 9 s pauses: half a minute to six minutes
	} else {
		c.exchanges = 1 + r.IntN(3)
	}
	ms := time.Millisecond
	c.pending = append(c.pending[:0],
		segment{flags: decode.TCPFlagSYN, seq: c.cseq},
		segment{fromServer: true, flags: decode.TCPFlagSYN | decode.TCPFlagACK, seq: c.sseq, ack: c.cseq + 1, gap: 20 * ms},
		segment{flags: decode.TCPFlagACK, seq: c.cseq + 1, ack: c.sseq + 1, gap: 20 * ms})
	c.cseq++
	c.sseq++
}

// plan queues c's next exchange or its close.
func (g *trafficGen) plan(c *conv) {
	r := g.rng
	ms := time.Millisecond
	ack := decode.TCPFlagACK
	psh := decode.TCPFlagACK | decode.TCPFlagPSH
	if c.exchanges > 0 {
		c.exchanges--
		think := time.Duration(50+r.IntN(500)) * ms
		if c.long {
			think = time.Duration(3000+r.IntN(6000)) * ms
		}
		// The request.
		req := g.request(c)
		c.pending = append(c.pending, segment{flags: psh, seq: c.cseq, ack: c.sseq, data: req, gap: think})
		c.cseq += uint32(len(req))
		// The response: segments of up to 1,400 bytes, the first acknowledging the request.
		n := 1 + r.IntN(8)
		first := len(c.pending)
		for i := 0; i < n; i++ {
			d := g.response(i, 200+r.IntN(1200))
			c.pending = append(c.pending, segment{fromServer: true, flags: psh, seq: c.sseq, ack: c.cseq, data: d, gap: time.Duration(1+r.IntN(30)) * ms})
			c.sseq += uint32(len(d))
		}
		if n > 1 && r.IntN(8) == 0 { // two response segments out of order
			i := first + r.IntN(n-1)
			c.pending[i], c.pending[i+1] = c.pending[i+1], c.pending[i]
		}
		if r.IntN(12) == 0 { // a response segment sent again
			s := c.pending[first+r.IntN(n)]
			s.gap = 200 * ms
			c.pending = append(c.pending, s)
		}
		c.pending = append(c.pending, segment{flags: ack, seq: c.cseq, ack: c.sseq, gap: time.Duration(1+r.IntN(40)) * ms})
		return
	}
	switch k := r.IntN(20); {
	case k < 14: // FIN from the client, FIN from the server
		c.pending = append(c.pending,
			segment{flags: decode.TCPFlagFIN | ack, seq: c.cseq, ack: c.sseq, gap: 10 * ms},
			segment{fromServer: true, flags: decode.TCPFlagFIN | ack, seq: c.sseq, ack: c.cseq + 1, gap: 10 * ms},
			segment{flags: ack, seq: c.cseq + 1, ack: c.sseq + 1, gap: 10 * ms})
	case k < 18: // RST
		c.pending = append(c.pending, segment{fromServer: k%2 == 0, flags: decode.TCPFlagRST | ack, seq: c.cseq, ack: c.sseq, gap: 10 * ms})
		if k%2 == 0 {
			c.pending[len(c.pending)-1].seq, c.pending[len(c.pending)-1].ack = c.sseq, c.cseq
		}
	default: // never closed: the flow times out
		g.unclosed++
	}
	c.exchanges = -1
}

func (g *trafficGen) request(c *conv) []byte {
	s := "GET /index.html HTTP/1.1\r\nHost: example.com\r\nUser-Agent: MemTest/1.0\r\n"
	if c.dport == 443 {
		s = "\x16\x03\x01\x02\x00 client hello padding padding\r\n"
	}
	if g.rng.IntN(50) == 0 {
		s += "X-Planted: planted-needle\r\n"
	}
	pad := g.rng.IntN(600)
	return append(append([]byte(s), g.payload[:pad]...), "\r\n\r\n"...)
}

func (g *trafficGen) response(i, n int) []byte {
	off := g.rng.IntN(len(g.payload) - n)
	d := g.payload[off : off+n]
	if i == 0 {
		return append([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"), d...)
	}
	return d
}

// next writes the next packet into fr (its data valid until the next call); false after
// memMinutes of capture time.
func (g *trafficGen) next(fr *capture.Frame) bool {
	for len(g.queue) > 0 {
		c := g.queue[0]
		if len(c.pending) == 0 {
			if c.exchanges < 0 {
				// Over: the slot's next conversation starts after a pause.
				g.begin(c, c.at.Add(time.Duration(500+g.rng.IntN(5000))*time.Millisecond))
			} else {
				g.plan(c) // nothing, for one that is never closed
			}
			if len(c.pending) > 0 {
				c.at = c.at.Add(c.pending[0].gap)
			}
			heap.Fix(&g.queue, 0)
			continue
		}
		if !c.at.Before(g.end) {
			return false
		}
		s := c.pending[0]
		c.pending = c.pending[1:]
		src, dst, sp, dp := c.client, c.server, c.sport, c.dport
		if s.fromServer {
			src, dst, sp, dp = dst, src, dp, sp
		}
		g.buf = tcpFrame(g.buf[:0], src, dst, sp, dp, s.seq, s.ack, s.flags, s.data)
		g.cnt++
		*fr = capture.Frame{Data: g.buf, Timestamp: c.at, LinkType: decode.LinkTypeEthernet, Cnt: g.cnt}
		if len(c.pending) > 0 {
			c.at = c.at.Add(c.pending[0].gap)
		}
		heap.Fix(&g.queue, 0)
		return true
	}
	return false
}

// tcpFrame appends an Ethernet/IPv4/TCP frame to b: sequence and acknowledgement numbers, a
// 64 KiB window, checksums left zero (the tests run with ChecksumNone).
func tcpFrame(b []byte, src, dst [4]byte, sport, dport uint16, seq, ack uint32, flags uint8, payload []byte) []byte {
	n := 14 + 20 + 20 + len(payload)
	if cap(b) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	clear(b)
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
	binary.BigEndian.PutUint32(tcp[4:], seq)
	binary.BigEndian.PutUint32(tcp[8:], ack)
	tcp[12] = 5 << 4
	tcp[13] = flags
	binary.BigEndian.PutUint16(tcp[14:], 0xffff)
	copy(tcp[20:], payload)
	return b
}
