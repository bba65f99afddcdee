// Command gen-traffic writes a deterministic synthetic capture (pcap, Ethernet) of mixed,
// interleaved traffic for benchmarks, and the rules that must alert on it a known number of
// times.
//
// The capture holds -flows sessions in total, split 40% HTTP, 30% TLS, 20% DNS and 10% ICMP
// (rounded down, the rest to HTTP), started at exponentially distributed intervals (mean 4 ms)
// and merged by timestamp, so that many flows are open at once:
//
//   - HTTP/1.1 over TCP port 80 (some 8080): three-way handshake, one to five GET or POST
//     requests on a keep-alive connection with browser-like headers, responses of 0 bytes to
//     several hundred KB (HTML, JavaScript, CSS, JSON, images, 304, 404, 301), FIN close;
//   - TLS over TCP port 443: handshake, a TLS 1.3 (70%) or TLS 1.2 ClientHello with SNI, ALPN,
//     key share and the usual extensions, a ServerHello-shaped reply (TLS 1.2: with
//     Certificate, ServerKeyExchange and ServerHelloDone), then application-data records of
//     random content both ways, FIN close;
//   - DNS over UDP port 53: A and AAAA queries with EDNS and their answers (compressed names,
//     CNAME chains, NXDOMAIN with SOA), some flows an A and an AAAA query from one port;
//   - ICMP echo request and reply, one to four pairs a second apart (ICMPv6 for IPv6 flows),
//     Linux-style or Windows-style payloads.
//
// TCP segments carry the timestamp option and at most 1448 payload bytes over IPv4 (1428 over
// IPv6), in slow-start rounds, with delayed ACKs, so that large responses span many
// full-size frames. Exactly round(-ipv6 × -flows) flows are IPv6. Clients are hosts of
// 10.20.0.0/16 (IPv6: fd6d:6b74:20::/64) with ephemeral ports 32768-60999; servers and
// resolvers have public-looking addresses. Every IPv4, TCP, UDP, ICMP and ICMPv6 checksum is
// valid. All randomness comes from a PCG seeded with -seed and timestamps start at
// 2026-01-15 10:00:00 UTC, so the same flags write the same bytes.
//
// Planted strings, for detection benchmarks and end-to-end checks: exactly -plant HTTP flows
// carry "meerkat-bench-planted" in one request URI; exactly -plant DNS flows make one query
// (type A) for planted.meerkat-bench.example; exactly -plant TLS flows send a ClientHello
// with the SNI planted.meerkat-bench.example. Nothing else in the capture holds these strings
// (responses to the planted DNS queries repeat the name, from port 53). -rules FILE writes one
// packet-payload rule per kind (sids 9000001 to 9000003), each of which alerts exactly once
// per planted flow: -plant times in all. On stderr the command prints the packet, byte and
// flow counts, a frame-size histogram, the planted counts and those rules.
//
//	go run ./bench/gen-traffic -flows 2000 -seed 1 -o /tmp/t.pcap -rules /tmp/t.rules
//	bin/meerkat -c suricata.yaml -S /tmp/t.rules -r /tmp/t.pcap -l /tmp/out --runmode single -k none
package main

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// The planted strings and the rules that match them.
const (
	plantedURI  = "meerkat-bench-planted"
	plantedName = "planted.meerkat-bench.example"
)

// plantRules are the rules -rules writes, in sid order: HTTP URI, DNS query name, TLS SNI.
// Each matches the packet payload only, and only in the packet that carries the planted
// string to the server, so each alerts once per planted flow.
var plantRules = []string{
	`alert tcp any any -> any any (msg:"BENCH planted string in HTTP request URI"; flow:to_server; content:"meerkat-bench-planted"; sid:9000001; rev:1;)`,
	`alert udp any any -> any 53 (msg:"BENCH planted DNS query name"; flow:to_server; content:"|07|planted|0d|meerkat-bench|07|example|00|"; sid:9000002; rev:1;)`,
	`alert tcp any any -> any any (msg:"BENCH planted TLS SNI"; flow:to_server; content:"|00 00 1d|planted.meerkat-bench.example"; sid:9000003; rev:1;)`,
}

// kind is the application a flow carries.
type kind int

const (
	kindHTTP kind = iota
	kindTLS
	kindDNS
	kindICMP
	numKinds
)

var (
	kindNames = [numKinds]string{"http", "tls", "dns", "icmp"}
	// kindShare is each kind's share of -flows in percent.
	kindShare = [numKinds]int{40, 30, 20, 10}
)

// config holds the generator's parameters (the command's flags).
type config struct {
	flows int     // sessions in total, split by kindShare
	seed  uint64  // PCG seed
	ipv6  float64 // fraction of flows over IPv6
	plant int     // planted flows per kind (HTTP, DNS, TLS)
}

// stats describes what generate wrote.
type stats struct {
	packets, bytes int
	flows          [numKinds]int
	v4, v6         int // flows per address family
	planted        [numKinds]int
	sizes          [len(sizeBuckets)]int // frames per size bucket
}

// sizeBuckets are the upper bounds of the frame-size histogram.
var sizeBuckets = [...]int{64, 128, 256, 512, 1024, 1514}

func main() {
	flows := flag.Int("flows", 1000, "sessions in total: 40% HTTP, 30% TLS, 20% DNS, 10% ICMP")
	seed := flag.Uint64("seed", 1, "random seed; the same flags write the same bytes")
	ipv6 := flag.Float64("ipv6", 0.2, "fraction of flows over IPv6 (0 to 1)")
	plant := flag.Int("plant", 10, "HTTP, DNS and TLS flows (each) that carry the planted strings")
	out := flag.String("o", "", "pcap file to write (- for standard output)")
	rulesPath := flag.String("rules", "", "also write the rules that match the planted strings to this file")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-traffic [-flows N] [-seed S] [-ipv6 F] [-plant K] [-rules FILE] -o FILE")
		os.Exit(2)
	}
	cfg := config{flows: *flows, seed: *seed, ipv6: *ipv6, plant: *plant}
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "gen-traffic:", err)
		os.Exit(2)
	}
	if err := run(cfg, *out, *rulesPath); err != nil {
		fmt.Fprintln(os.Stderr, "gen-traffic:", err)
		os.Exit(1)
	}
}

// run writes the capture to out and the rules to rulesPath (when set), and prints the summary.
func run(cfg config, out, rulesPath string) error {
	var w io.Writer = os.Stdout
	var f *os.File
	if out != "-" {
		var err error
		if f, err = os.Create(out); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	st, err := generate(bw, cfg)
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
	}
	if rulesPath != "" {
		if err := os.WriteFile(rulesPath, []byte(strings.Join(plantRules, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	st.summary(os.Stderr, out)
	return nil
}

// summary prints the counts, the size histogram, the planted counts and the rules.
func (st *stats) summary(w io.Writer, out string) {
	fmt.Fprintf(w, "wrote %s: %d packets, %d bytes, %d flows (", out, st.packets, st.bytes, st.v4+st.v6)
	for k := range numKinds {
		fmt.Fprintf(w, "%s=%d ", kindNames[k], st.flows[k])
	}
	fmt.Fprintf(w, "ipv4=%d ipv6=%d)\n", st.v4, st.v6)
	fmt.Fprint(w, "frame sizes:")
	lo := 0
	for i, hi := range sizeBuckets {
		fmt.Fprintf(w, " %d-%d:%d", lo, hi, st.sizes[i])
		lo = hi + 1
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "planted: http-uri=%d dns-qname=%d tls-sni=%d (each rule below alerts once per planted flow)\n",
		st.planted[kindHTTP], st.planted[kindDNS], st.planted[kindTLS])
	for _, r := range plantRules {
		fmt.Fprintln(w, r)
	}
}

// split returns the number of flows of each kind.
func (cfg config) split() [numKinds]int {
	var n [numKinds]int
	rest := cfg.flows
	for k := kindTLS; k < numKinds; k++ {
		n[k] = cfg.flows * kindShare[k] / 100
		rest -= n[k]
	}
	n[kindHTTP] = rest
	return n
}

func (cfg config) validate() error {
	if cfg.flows < 1 {
		return errors.New("-flows must be at least 1")
	}
	if !(cfg.ipv6 >= 0 && cfg.ipv6 <= 1) {
		return errors.New("-ipv6 must be between 0 and 1")
	}
	n := cfg.split()
	most := min(n[kindHTTP], n[kindTLS], n[kindDNS])
	if cfg.plant < 0 || cfg.plant > most {
		return fmt.Errorf("-plant must be between 0 and %d for -flows %d (the fewest HTTP, TLS or DNS flows)", most, cfg.flows)
	}
	return nil
}

// Timing, in microseconds.
const (
	meanArrival = 4000 // mean gap between flow starts
	second      = 1000000
)

var epoch = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)

// packet is one frame and its capture time in microseconds after epoch.
type packet struct {
	ts   int64
	data []byte
}

// flow is a session's frames in time order; next is the first not yet written.
type flow struct {
	id   int
	pkts []packet
	next int
}

// flowHeap orders open flows by the time of their next frame, then by flow id.
type flowHeap []*flow

func (h flowHeap) Len() int { return len(h) }
func (h flowHeap) Less(i, j int) bool {
	a, b := h[i].pkts[h[i].next].ts, h[j].pkts[h[j].next].ts
	if a != b {
		return a < b
	}
	return h[i].id < h[j].id
}
func (h flowHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *flowHeap) Push(x any)   { *h = append(*h, x.(*flow)) }
func (h *flowHeap) Pop() any {
	old := *h
	f := old[len(old)-1]
	*h = old[:len(old)-1]
	return f
}

// host is a client or server machine.
type host struct {
	v4, v6   net.IP
	mac      net.HardwareAddr
	ttl      uint8  // initial TTL (clients) or TTL as seen at the sensor (servers)
	windows  bool   // Windows-style ping payloads
	nextPort uint16 // next ephemeral port (clients)
	name     string // DNS name (servers)
}

// gen is the state of one generate call.
type gen struct {
	rng       *rand.Rand
	clients   []*host
	servers   []*host
	resolvers []*host
	gateway   net.HardwareAddr
	buf       gopacket.SerializeBuffer
	st        stats
}

// generate writes a pcap of cfg's traffic to w and reports what it wrote.
func generate(w io.Writer, cfg config) (stats, error) {
	if err := cfg.validate(); err != nil {
		return stats{}, err
	}
	g := &gen{
		rng:     rand.New(rand.NewPCG(cfg.seed, 0x6d65657274726166)),
		gateway: net.HardwareAddr{0x00, 0x1b, 0x21, 0x3a, 0x4c, 0x01},
		buf:     gopacket.NewSerializeBuffer(),
	}
	g.makeHosts(cfg.flows)

	// Plan every flow: kinds in random order, an exact number of IPv6 flows, exactly
	// cfg.plant planted flows of each planted kind.
	counts := cfg.split()
	kinds := make([]kind, 0, cfg.flows)
	for k := range numKinds {
		for range counts[k] {
			kinds = append(kinds, k)
		}
	}
	g.rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	v6 := make([]bool, cfg.flows)
	for _, i := range g.rng.Perm(cfg.flows)[:int(math.Round(cfg.ipv6*float64(cfg.flows)))] {
		v6[i] = true
	}
	planted := make([]bool, cfg.flows)
	for _, k := range []kind{kindHTTP, kindDNS, kindTLS} {
		var idx []int
		for i, kk := range kinds {
			if kk == k {
				idx = append(idx, i)
			}
		}
		for _, j := range g.rng.Perm(len(idx))[:cfg.plant] {
			planted[idx[j]] = true
		}
	}

	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return stats{}, err
	}
	writeNext := func(h *flowHeap) error {
		f := (*h)[0]
		p := f.pkts[f.next]
		ts := epoch.Add(time.Duration(p.ts) * time.Microsecond)
		ci := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(p.data), Length: len(p.data)}
		if err := pw.WritePacket(ci, p.data); err != nil {
			return err
		}
		g.st.packets++
		g.st.bytes += len(p.data)
		for i, hi := range sizeBuckets {
			if len(p.data) <= hi || i == len(sizeBuckets)-1 {
				g.st.sizes[i]++
				break
			}
		}
		f.pkts[f.next].data = nil
		f.next++
		if f.next == len(f.pkts) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
		return nil
	}

	open := &flowHeap{}
	var start int64
	for i, k := range kinds {
		start += int64(g.rng.ExpFloat64()*meanArrival) + 1
		for open.Len() > 0 && (*open)[0].pkts[(*open)[0].next].ts < start {
			if err := writeNext(open); err != nil {
				return stats{}, err
			}
		}
		f := &flow{id: i}
		switch k {
		case kindHTTP:
			g.httpFlow(f, start, v6[i], planted[i])
		case kindTLS:
			g.tlsFlow(f, start, v6[i], planted[i])
		case kindDNS:
			g.dnsFlow(f, start, v6[i], planted[i])
		case kindICMP:
			g.icmpFlow(f, start, v6[i])
		}
		g.st.flows[k]++
		if v6[i] {
			g.st.v6++
		} else {
			g.st.v4++
		}
		if planted[i] {
			g.st.planted[k]++
		}
		heap.Push(open, f)
	}
	for open.Len() > 0 {
		if err := writeNext(open); err != nil {
			return stats{}, err
		}
	}
	return g.st, nil
}

// makeHosts creates the client and server pools: about ten flows per client and fifteen per
// server, and two resolvers.
func (g *gen) makeHosts(flows int) {
	nc := min(max(flows/10, 8), 65000)
	for i := range nc {
		n := i + 1 // 10.20.0.1 and up
		h := &host{
			v4:  net.IP{10, 20, byte(n >> 8), byte(n)},
			v6:  net.IP{0xfd, 0x6d, 0x6b, 0x74, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, byte(n >> 8), byte(n)},
			mac: net.HardwareAddr{0x02, 0x4d, 0x4b, 0x00, byte(n >> 8), byte(n)},
			ttl: 64,
		}
		if g.rng.IntN(100) < 35 {
			h.ttl, h.windows = 128, true
		}
		h.nextPort = uint16(32768 + g.rng.IntN(28232))
		g.clients = append(g.clients, h)
	}
	ns := min(max(flows/15, 8), 20000)
	seen := map[string]bool{}
	for len(g.servers) < ns {
		h := g.publicHost()
		h.name = g.hostname()
		if seen[h.name] {
			continue
		}
		seen[h.name] = true
		g.servers = append(g.servers, h)
	}
	g.resolvers = []*host{g.publicHost(), g.publicHost()}
}

// publicHost returns a server with public-looking addresses, as seen some hops away.
func (g *gen) publicHost() *host {
	var v4 net.IP
	for {
		a := 1 + g.rng.IntN(223)
		b := g.rng.IntN(256)
		if a == 10 || a == 127 || a == 0 || (a == 100 && b >= 64 && b < 128) || (a == 169 && b == 254) ||
			(a == 172 && b >= 16 && b < 32) || (a == 192 && b == 168) || (a == 192 && b == 0) ||
			(a == 198 && (b == 18 || b == 19 || b == 51)) || (a == 203 && b == 0) {
			continue
		}
		v4 = net.IP{byte(a), byte(b), byte(g.rng.IntN(256)), byte(1 + g.rng.IntN(254))}
		break
	}
	v6 := make(net.IP, 16)
	binary.BigEndian.PutUint16(v6[0:], uint16(0x2400+g.rng.IntN(0x0c00)))
	binary.BigEndian.PutUint16(v6[2:], uint16(g.rng.IntN(65536)))
	binary.BigEndian.PutUint16(v6[4:], uint16(g.rng.IntN(65536)))
	v6[15] = byte(1 + g.rng.IntN(254))
	initial := []int{64, 128, 255}[g.rng.IntN(3)]
	return &host{v4: v4, v6: v6, mac: g.gateway, ttl: uint8(initial - 3 - g.rng.IntN(18))}
}

var (
	words = []string{"alpine", "amber", "anchor", "apex", "arrow", "aurora", "beacon", "birch", "blue",
		"bolt", "bright", "canyon", "cedar", "cloud", "cobalt", "comet", "coral", "crest", "delta", "drift",
		"ember", "falcon", "fern", "field", "flint", "forest", "frost", "garnet", "glacier", "harbor",
		"hazel", "horizon", "indigo", "iron", "jade", "juniper", "kestrel", "lagoon", "lantern", "maple",
		"meadow", "mesa", "mist", "nova", "oak", "ocean", "onyx", "orbit", "pine", "pixel", "prairie",
		"quartz", "raven", "ridge", "river", "saffron", "shore", "sierra", "signal", "silver", "slate",
		"spark", "spruce", "stone", "summit", "tide", "timber", "umber", "valley", "vector", "willow",
		"zenith", "news", "shop", "media", "cloud", "data", "mail", "photo", "video", "travel", "bank"}
	prefixes = []string{"www", "www", "www", "api", "cdn", "static", "img", "login", "app", "m", "assets", "edge"}
	tlds     = []string{"com", "com", "com", "net", "org", "io", "de", "co.uk", "fr", "nl"}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func (g *gen) hostname() string {
	name := pick(g.rng, prefixes) + "." + pick(g.rng, words)
	if g.rng.IntN(3) == 0 {
		name += "-" + pick(g.rng, words)
	}
	return name + "." + pick(g.rng, tlds)
}

// logUniform returns an integer spread evenly on a log scale between lo and hi.
func (g *gen) logUniform(lo, hi int) int {
	return int(math.Exp(math.Log(float64(lo)) + g.rng.Float64()*(math.Log(float64(hi))-math.Log(float64(lo)))))
}

// between returns a random value in [lo, hi].
func (g *gen) between(lo, hi int64) int64 { return lo + g.rng.Int64N(hi-lo+1) }

func (g *gen) randBytes(n int) []byte {
	b := make([]byte, n+8)
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], g.rng.Uint64())
	}
	return b[:n]
}

func (g *gen) client() *host { return pick(g.rng, g.clients) }

// server picks a server, popular ones more often.
func (g *gen) server() *host {
	u := g.rng.Float64()
	return g.servers[int(u*u*float64(len(g.servers)))]
}

// ephemeral returns the client's next ephemeral port (32768-60999, in sequence).
func (h *host) ephemeral() uint16 {
	p := h.nextPort
	h.nextPort++
	if h.nextPort > 60999 {
		h.nextPort = 32768
	}
	return p
}

// endpoint is one side of a flow.
type endpoint struct {
	ip        net.IP
	mac       net.HardwareAddr
	port      uint16
	ttl       uint8
	ipid      uint16
	flowLabel uint32
}

func (g *gen) endpoints(cl, sv *host, v6 bool, cport, sport uint16) (c, s endpoint) {
	c = endpoint{ip: cl.v4, mac: cl.mac, port: cport, ttl: cl.ttl, ipid: uint16(g.rng.Uint32()), flowLabel: g.rng.Uint32() & 0xfffff}
	s = endpoint{ip: sv.v4, mac: g.gateway, port: sport, ttl: sv.ttl, ipid: uint16(g.rng.Uint32()), flowLabel: g.rng.Uint32() & 0xfffff}
	if v6 {
		c.ip, s.ip = cl.v6, sv.v6
	}
	return c, s
}

// frame serializes one frame from src to dst with valid lengths and checksums; l4 are the
// transport layers (the first gets the network layer for its checksum).
func (g *gen) frame(v6 bool, src, dst *endpoint, proto layers.IPProtocol, l4 []gopacket.SerializableLayer, payload []byte) []byte {
	et := layers.EthernetTypeIPv4
	if v6 {
		et = layers.EthernetTypeIPv6
	}
	var ip gopacket.NetworkLayer
	var ipl gopacket.SerializableLayer
	if v6 {
		l := &layers.IPv6{Version: 6, HopLimit: src.ttl, NextHeader: proto, SrcIP: src.ip, DstIP: dst.ip, FlowLabel: src.flowLabel}
		ip, ipl = l, l
	} else {
		l := &layers.IPv4{Version: 4, TTL: src.ttl, Protocol: proto, SrcIP: src.ip, DstIP: dst.ip, Id: src.ipid}
		if proto == layers.IPProtocolTCP {
			l.Flags = layers.IPv4DontFragment
		}
		src.ipid++
		ip, ipl = l, l
	}
	switch t := l4[0].(type) {
	case *layers.TCP:
		_ = t.SetNetworkLayerForChecksum(ip)
	case *layers.UDP:
		_ = t.SetNetworkLayerForChecksum(ip)
	case *layers.ICMPv6:
		_ = t.SetNetworkLayerForChecksum(ip)
	}
	ls := []gopacket.SerializableLayer{&layers.Ethernet{SrcMAC: src.mac, DstMAC: dst.mac, EthernetType: et}, ipl}
	ls = append(ls, l4...)
	ls = append(ls, gopacket.Payload(payload))
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(g.buf, opts, ls...); err != nil {
		panic(err) // the layers are built here; an error is a bug
	}
	return append([]byte(nil), g.buf.Bytes()...)
}

// TCP flags for tcpConn.emit.
const (
	fSYN = 1 << iota
	fACK
	fPSH
	fFIN
)

// tcpConn builds the frames of one TCP connection as seen by a sensor next to the client.
type tcpConn struct {
	g          *gen
	f          *flow
	v6         bool
	c, s       endpoint
	cseq, sseq uint32 // next sequence number of each side
	cwin, swin uint16 // scaled windows after the handshake
	cts, sts   uint32 // timestamp clocks (ms) at t0
	ctsLast    uint32 // last TSval each side sent, echoed by the other
	stsLast    uint32
	t, t0      int64 // clock (µs)
	rtt        int64
	gap        int64 // between back-to-back full segments
	mss        int
	cwnd       [2]int // segments per round, client and server
}

func (g *gen) newTCP(f *flow, start int64, v6 bool, cl, sv *host, sport uint16) *tcpConn {
	c := &tcpConn{g: g, f: f, v6: v6, t: start, t0: start, mss: 1448,
		cseq: g.rng.Uint32(), sseq: g.rng.Uint32(), cts: g.rng.Uint32(), sts: g.rng.Uint32(),
		cwin: uint16(g.between(500, 2052)), swin: uint16(g.between(235, 509)),
		rtt: int64(g.logUniform(2000, 180000)), gap: g.between(12, 120), cwnd: [2]int{10, 10}}
	if v6 {
		c.mss = 1428
	}
	c.c, c.s = g.endpoints(cl, sv, v6, cl.ephemeral(), sport)
	return c
}

func (c *tcpConn) tsval(fromClient bool) uint32 {
	ms := uint32((c.t - c.t0) / 1000)
	if fromClient {
		return c.cts + ms
	}
	return c.sts + ms
}

// emit writes one segment at the current time; ack is the acknowledgment number.
func (c *tcpConn) emit(fromClient bool, flags int, payload []byte, ack uint32) {
	src, dst, seq := &c.c, &c.s, &c.cseq
	win, tsLast, tsEcr := c.cwin, &c.ctsLast, c.stsLast
	if !fromClient {
		src, dst, seq = &c.s, &c.c, &c.sseq
		win, tsLast, tsEcr = c.swin, &c.stsLast, c.ctsLast
	}
	t := &layers.TCP{SrcPort: layers.TCPPort(src.port), DstPort: layers.TCPPort(dst.port), Seq: *seq, Window: win,
		SYN: flags&fSYN != 0, ACK: flags&fACK != 0, PSH: flags&fPSH != 0, FIN: flags&fFIN != 0}
	if t.ACK {
		t.Ack = ack
	}
	tsv := c.tsval(fromClient)
	*tsLast = tsv
	ts := make([]byte, 8)
	binary.BigEndian.PutUint32(ts, tsv)
	if t.ACK {
		binary.BigEndian.PutUint32(ts[4:], tsEcr)
	}
	tsOpt := layers.TCPOption{OptionType: layers.TCPOptionKindTimestamps, OptionData: ts}
	nop := layers.TCPOption{OptionType: layers.TCPOptionKindNop, OptionLength: 1}
	if t.SYN {
		// Linux: MSS, SACK permitted, timestamps, NOP, window scale 7.
		mss := make([]byte, 2)
		binary.BigEndian.PutUint16(mss, uint16(c.mss+12))
		t.Window = 64240
		if c.v6 {
			t.Window = 64800
		}
		t.Options = []layers.TCPOption{
			{OptionType: layers.TCPOptionKindMSS, OptionData: mss},
			{OptionType: layers.TCPOptionKindSACKPermitted},
			tsOpt, nop,
			{OptionType: layers.TCPOptionKindWindowScale, OptionData: []byte{7}},
		}
	} else {
		t.Options = []layers.TCPOption{nop, nop, tsOpt}
	}
	c.f.pkts = append(c.f.pkts, packet{ts: c.t, data: c.g.frame(c.v6, src, dst, layers.IPProtocolTCP, []gopacket.SerializableLayer{t}, payload)})
	adv := uint32(len(payload))
	if t.SYN || t.FIN {
		adv++
	}
	*seq += adv
}

// ack sends a pure ACK of ack.
func (c *tcpConn) ack(fromClient bool, ack uint32) { c.emit(fromClient, fACK, nil, ack) }

// ackNow sends a pure ACK of everything the other side sent.
func (c *tcpConn) ackNow(fromClient bool) {
	if fromClient {
		c.ack(true, c.sseq)
	} else {
		c.ack(false, c.cseq)
	}
}

func (c *tcpConn) wait(d int64) { c.t += d }

func (c *tcpConn) handshake() {
	c.emit(true, fSYN, nil, 0)
	c.wait(c.rtt)
	c.emit(false, fSYN|fACK, nil, c.cseq)
	c.wait(c.g.between(20, 200))
	c.ackNow(true)
	c.wait(c.g.between(20, 300))
}

// transfer sends data from one side in MSS-sized segments, in slow-start rounds. The client
// ACKs every second segment at once (the sensor is next to it); the server's ACKs of an
// upload arrive a round trip after each round, the last one carried by its next data.
func (c *tcpConn) transfer(fromClient bool, data []byte) {
	dir := 1
	if fromClient {
		dir = 0
	}
	for off := 0; off < len(data); {
		var acks []uint32
		for n := 0; n < c.cwnd[dir] && off < len(data); n++ {
			if n > 0 {
				c.wait(c.gap)
			}
			size := min(c.mss, len(data)-off)
			last := off+size == len(data)
			flags := fACK
			if last {
				flags |= fPSH
			}
			if fromClient {
				c.emit(true, flags, data[off:off+size], c.sseq)
			} else {
				c.emit(false, flags, data[off:off+size], c.cseq)
			}
			off += size
			if n%2 == 1 || last {
				if fromClient {
					acks = append(acks, c.cseq)
				} else {
					c.wait(c.g.between(8, 40))
					c.ackNow(true)
				}
			}
		}
		if fromClient {
			if off == len(data) {
				acks = acks[:len(acks)-1] // carried by the response
			}
			if len(acks) > 0 {
				c.wait(c.rtt)
				for i, a := range acks {
					if i > 0 {
						c.wait(c.gap)
					}
					c.ack(false, a)
				}
			}
		} else if off < len(data) {
			c.wait(c.rtt)
		}
		if off < len(data) {
			c.cwnd[dir] = min(c.cwnd[dir]*2, 256)
		}
	}
}

// close ends the connection with FINs, the client first unless serverFirst.
func (c *tcpConn) close(serverFirst bool) {
	if serverFirst {
		c.emit(false, fFIN|fACK, nil, c.cseq)
		c.wait(c.g.between(30, 400))
		c.emit(true, fFIN|fACK, nil, c.sseq)
		c.wait(c.rtt)
		c.ackNow(false)
		return
	}
	c.emit(true, fFIN|fACK, nil, c.sseq)
	c.wait(c.rtt)
	c.emit(false, fFIN|fACK, nil, c.cseq)
	c.wait(c.g.between(20, 200))
	c.ackNow(true)
}

var userAgents = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"curl/8.5.0",
	"python-requests/2.32.3",
	"okhttp/4.12.0",
}

var servers = []string{"nginx", "nginx/1.24.0", "Apache/2.4.58 (Ubuntu)", "cloudflare", "Microsoft-IIS/10.0", "openresty", "AmazonS3", "gws"}

// resource is what a request asks for.
type resource struct {
	path, ctype string
	status      int
	size        int
	binary      bool
}

func (g *gen) resource() resource {
	w := pick(g.rng, words)
	hex := fmt.Sprintf("%08x", g.rng.Uint32())
	switch r := g.rng.IntN(100); {
	case r < 18:
		p := []string{"/", "/index.html", "/" + w + "/", "/news/" + w + "-" + hex[:4] + ".html", "/products/" + w}[g.rng.IntN(5)]
		return resource{path: p, ctype: "text/html; charset=utf-8", status: 200, size: g.logUniform(2000, 80000)}
	case r < 34:
		return resource{path: "/static/js/" + w + "." + hex + ".js", ctype: "application/javascript", status: 200, size: g.logUniform(3000, 150000)}
	case r < 44:
		return resource{path: "/static/css/" + w + "." + hex + ".css", ctype: "text/css", status: 200, size: g.logUniform(1500, 60000)}
	case r < 64:
		return resource{path: fmt.Sprintf("/api/v1/%s/%d", w, g.rng.IntN(100000)), ctype: "application/json", status: 200, size: g.logUniform(80, 8000)}
	case r < 82:
		ext, ct := "jpg", "image/jpeg"
		if g.rng.IntN(3) == 0 {
			ext, ct = "png", "image/png"
		}
		return resource{path: "/images/" + w + "-" + hex[:6] + "." + ext, ctype: ct, status: 200, size: g.logUniform(2000, 200000), binary: true}
	case r < 90:
		return resource{path: "/static/img/" + w + ".svg", ctype: "image/svg+xml", status: 304}
	case r < 95:
		return resource{path: fmt.Sprintf("/search?q=%s&page=%d", w, 1+g.rng.IntN(5)), ctype: "text/html; charset=utf-8", status: 200, size: g.logUniform(5000, 60000)}
	case r < 98:
		return resource{path: "/" + w + "/old-" + hex[:5], ctype: "text/html; charset=iso-8859-1", status: 404, size: g.logUniform(150, 600)}
	default:
		return resource{path: "/" + w, ctype: "text/html; charset=iso-8859-1", status: 301, size: g.logUniform(150, 300)}
	}
}

// text returns n bytes of HTML-like text.
func (g *gen) text(n int, ctype string) []byte {
	var b strings.Builder
	b.Grow(n + 64)
	if strings.HasPrefix(ctype, "text/html") {
		b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
		b.WriteString(pick(g.rng, words))
		b.WriteString("</title></head>\n<body>\n")
	}
	for b.Len() < n {
		b.WriteString("<p>")
		for range 8 + g.rng.IntN(30) {
			b.WriteString(pick(g.rng, words))
			b.WriteByte(' ')
		}
		b.WriteString("</p>\n")
	}
	return []byte(b.String()[:n])
}

var statusText = map[int]string{200: "OK", 301: "Moved Permanently", 304: "Not Modified", 404: "Not Found"}

// httpDate formats a capture time as an HTTP Date header does.
func httpDate(us int64) string {
	return epoch.Add(time.Duration(us) * time.Microsecond).Format("Mon, 02 Jan 2006 15:04:05 GMT")
}

func (g *gen) httpFlow(f *flow, start int64, v6, planted bool) {
	cl, sv := g.client(), g.server()
	port := uint16(80)
	if g.rng.IntN(20) == 0 {
		port = 8080
	}
	c := g.newTCP(f, start, v6, cl, sv, port)
	c.handshake()
	ua := pick(g.rng, userAgents)
	browser := strings.HasPrefix(ua, "Mozilla")
	nreq := 1
	switch r := g.rng.IntN(100); {
	case r >= 80:
		nreq = 3 + g.rng.IntN(3)
	case r >= 55:
		nreq = 2
	}
	plantAt := -1
	if planted {
		plantAt = g.rng.IntN(nreq)
	}
	hostHdr := sv.name
	if port != 80 {
		hostHdr += ":8080"
	}
	cookie := ""
	if browser && g.rng.IntN(2) == 0 {
		cookie = fmt.Sprintf("Cookie: session=%016x; theme=%s\r\n", g.rng.Uint64(), pick(g.rng, words))
	}
	for i := range nreq {
		if i > 0 {
			c.wait(int64(g.logUniform(500, 300000)))
		}
		res := g.resource()
		method := "GET"
		var body []byte
		var ctype string
		if g.rng.IntN(100) < 25 {
			method = "POST"
			switch g.rng.IntN(3) {
			case 0:
				res.path, ctype = "/login", "application/x-www-form-urlencoded"
				body = fmt.Appendf(nil, "username=%s%d&password=%016x&remember=1", pick(g.rng, words), g.rng.IntN(1000), g.rng.Uint64())
			case 1:
				res.path, ctype = "/api/v1/events", "application/json"
				body = []byte(`{"events":[` + strings.Repeat(fmt.Sprintf(`{"type":"%s","ts":%d},`, pick(g.rng, words), g.rng.IntN(1<<30)), 1+g.rng.IntN(40)) + `{}]}`)
			default:
				res.path, ctype = "/upload", "application/octet-stream"
				body = g.randBytes(g.logUniform(2000, 60000))
			}
			res.ctype, res.status, res.binary, res.size = "application/json", 200, false, g.logUniform(40, 600)
		}
		uri := res.path
		if i == plantAt {
			sep := "?"
			if strings.Contains(uri, "?") {
				sep = "&"
			}
			uri += sep + "tag=" + plantedURI
		}
		var req strings.Builder
		fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n", method, uri, hostHdr, ua)
		if browser {
			accept := "*/*"
			switch {
			case strings.HasPrefix(res.ctype, "text/html"):
				accept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
			case strings.HasPrefix(res.ctype, "image/"):
				accept = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
			}
			fmt.Fprintf(&req, "Accept: %s\r\nAccept-Language: en-US,en;q=0.9\r\nAccept-Encoding: gzip, deflate\r\n", accept)
			if i > 0 || g.rng.IntN(2) == 0 {
				fmt.Fprintf(&req, "Referer: http://%s/%s/\r\n", hostHdr, pick(g.rng, words))
			}
			req.WriteString(cookie)
		} else {
			req.WriteString("Accept: */*\r\n")
		}
		if method == "POST" {
			fmt.Fprintf(&req, "Content-Type: %s\r\nContent-Length: %d\r\n", ctype, len(body))
		}
		if res.status == 304 {
			fmt.Fprintf(&req, "If-None-Match: \"%08x\"\r\n", g.rng.Uint32())
		}
		req.WriteString("Connection: keep-alive\r\n\r\n")
		// Headers and body go in separate writes, as most clients send them.
		c.transfer(true, []byte(req.String()))
		if len(body) > 0 {
			c.wait(c.g.between(10, 100))
			c.transfer(true, body)
		}

		c.wait(c.rtt + int64(g.logUniform(200, 40000)))
		var payload []byte
		if res.size > 0 {
			if res.binary {
				payload = g.randBytes(res.size)
			} else {
				payload = g.text(res.size, res.ctype)
			}
		}
		var resp strings.Builder
		fmt.Fprintf(&resp, "HTTP/1.1 %d %s\r\nDate: %s\r\nServer: %s\r\n", res.status, statusText[res.status], httpDate(c.t), pick(g.rng, servers))
		if res.status == 301 {
			fmt.Fprintf(&resp, "Location: http://%s%s/\r\n", hostHdr, res.path)
		}
		if res.status != 304 {
			fmt.Fprintf(&resp, "Content-Type: %s\r\nContent-Length: %d\r\n", res.ctype, len(payload))
		}
		if res.status == 200 {
			fmt.Fprintf(&resp, "Cache-Control: max-age=%d\r\nETag: \"%08x\"\r\n", []int{0, 60, 3600, 86400}[g.rng.IntN(4)], g.rng.Uint32())
		}
		resp.WriteString("Connection: keep-alive\r\n\r\n")
		c.transfer(false, append([]byte(resp.String()), payload...))
	}
	c.wait(int64(g.logUniform(1000, 500000)))
	c.close(g.rng.IntN(5) == 0)
}

// TLS record and handshake helpers.

func record(typ byte, version uint16, body []byte) []byte {
	b := []byte{typ, byte(version >> 8), byte(version), byte(len(body) >> 8), byte(len(body))}
	return append(b, body...)
}

func handshakeMsg(typ byte, body []byte) []byte {
	n := len(body)
	return append([]byte{typ, byte(n >> 16), byte(n >> 8), byte(n)}, body...)
}

func u16(v int) []byte { return []byte{byte(v >> 8), byte(v)} }

func ext(typ int, body []byte) []byte { return append(append(u16(typ), u16(len(body))...), body...) }

func vec16(body []byte) []byte { return append(u16(len(body)), body...) }

func vec8(body []byte) []byte { return append([]byte{byte(len(body))}, body...) }

func (g *gen) grease() int { v := g.rng.IntN(16); return v<<12 | 0xa<<8 | v<<4 | 0xa }

// clientHello builds a TLS ClientHello record for sni (TLS 1.3 offers supported_versions and
// a key share).
func (g *gen) clientHello(sni string, tls13 bool) []byte {
	var b []byte
	b = append(b, 0x03, 0x03)
	b = append(b, g.randBytes(32)...)
	b = append(b, vec8(g.randBytes(32))...)
	suites := []int{0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035}
	if tls13 {
		suites = append([]int{g.grease(), 0x1301, 0x1302, 0x1303}, suites...)
	}
	var cs []byte
	for _, s := range suites {
		cs = append(cs, u16(s)...)
	}
	b = append(b, vec16(cs)...)
	b = append(b, 1, 0) // compression: null
	var exts []byte
	nameList := append([]byte{0}, vec16([]byte(sni))...)
	exts = append(exts, ext(0x0000, vec16(nameList))...)                                                // server_name
	exts = append(exts, ext(0x0017, nil)...)                                                            // extended_master_secret
	exts = append(exts, ext(0xff01, []byte{0})...)                                                      // renegotiation_info
	exts = append(exts, ext(0x000a, vec16([]byte{0x00, 0x1d, 0x00, 0x17, 0x00, 0x18}))...)              // supported_groups
	exts = append(exts, ext(0x000b, vec8([]byte{0}))...)                                                // ec_point_formats
	exts = append(exts, ext(0x0023, nil)...)                                                            // session_ticket
	exts = append(exts, ext(0x0010, vec16(append(vec8([]byte("h2")), vec8([]byte("http/1.1"))...)))...) // ALPN
	exts = append(exts, ext(0x0005, []byte{1, 0, 0, 0, 0})...)                                          // status_request
	exts = append(exts, ext(0x000d, vec16([]byte{4, 3, 8, 4, 4, 1, 5, 3, 8, 5, 5, 1, 8, 6, 6, 1}))...)  // signature_algorithms
	exts = append(exts, ext(0x0012, nil)...)                                                            // signed_certificate_timestamp
	if tls13 {
		share := append(u16(0x001d), vec16(g.randBytes(32))...)
		exts = append(exts, ext(0x0033, vec16(share))...)                    // key_share
		exts = append(exts, ext(0x002d, vec8([]byte{1}))...)                 // psk_key_exchange_modes
		exts = append(exts, ext(0x002b, vec8([]byte{3, 4, 3, 3}))...)        // supported_versions
		exts = append(exts, ext(0x0015, make([]byte, 32+g.rng.IntN(64)))...) // padding
	}
	b = append(b, vec16(exts)...)
	return record(0x16, 0x0301, handshakeMsg(1, b))
}

// serverHello builds the server's first flight after a ClientHello: ServerHello, then for
// TLS 1.3 ChangeCipherSpec and encrypted handshake records, for TLS 1.2 Certificate,
// ServerKeyExchange and ServerHelloDone in the same record.
func (g *gen) serverHello(tls13 bool) []byte {
	var b []byte
	b = append(b, 0x03, 0x03)
	b = append(b, g.randBytes(32)...)
	b = append(b, vec8(g.randBytes(32))...)
	var exts []byte
	if tls13 {
		b = append(b, u16(0x1301)...)
		b = append(b, 0)
		exts = append(exts, ext(0x002b, []byte{3, 4})...)
		exts = append(exts, ext(0x0033, append(u16(0x001d), vec16(g.randBytes(32))...))...)
		b = append(b, vec16(exts)...)
		out := record(0x16, 0x0303, handshakeMsg(2, b))
		out = append(out, record(0x14, 0x0303, []byte{1})...)
		return append(out, record(0x17, 0x0303, g.randBytes(g.logUniform(2500, 6000)))...)
	}
	b = append(b, u16(0xc02f)...)
	b = append(b, 0)
	exts = append(exts, ext(0xff01, []byte{0})...)
	exts = append(exts, ext(0x000b, vec8([]byte{0}))...)
	exts = append(exts, ext(0x0017, nil)...)
	b = append(b, vec16(exts)...)
	msgs := handshakeMsg(2, b)
	var certs []byte
	for range 2 {
		n := g.logUniform(900, 1800)
		cert := append([]byte{0x30, 0x82, byte((n - 4) >> 8), byte(n - 4)}, g.randBytes(n-4)...)
		certs = append(certs, byte(n>>16), byte(n>>8), byte(n))
		certs = append(certs, cert...)
	}
	msgs = append(msgs, handshakeMsg(11, append([]byte{byte(len(certs) >> 16), byte(len(certs) >> 8), byte(len(certs))}, certs...))...)
	ske := append([]byte{3, 0x00, 0x1d}, vec8(g.randBytes(32))...)
	ske = append(ske, 0x08, 0x04)
	ske = append(ske, vec16(g.randBytes(256))...)
	msgs = append(msgs, handshakeMsg(12, ske)...)
	msgs = append(msgs, handshakeMsg(14, nil)...)
	return record(0x16, 0x0303, msgs)
}

// appData returns n bytes of application data as records of at most 16 KB, with an AEAD
// overhead each.
func (g *gen) appData(n int) []byte {
	var out []byte
	for n > 0 {
		m := min(n, 16384)
		out = append(out, record(0x17, 0x0303, g.randBytes(m+17))...)
		n -= m
	}
	return out
}

func (g *gen) tlsFlow(f *flow, start int64, v6, planted bool) {
	cl, sv := g.client(), g.server()
	c := g.newTCP(f, start, v6, cl, sv, 443)
	c.handshake()
	tls13 := g.rng.IntN(10) < 7
	sni := sv.name
	if planted {
		sni = plantedName
	}
	c.transfer(true, g.clientHello(sni, tls13))
	c.wait(c.rtt + int64(g.logUniform(300, 20000)))
	c.transfer(false, g.serverHello(tls13))
	c.wait(g.between(300, 3000))
	if tls13 {
		c.transfer(true, append(record(0x14, 0x0303, []byte{1}), record(0x17, 0x0303, g.randBytes(53))...))
	} else {
		fin := record(0x16, 0x0303, handshakeMsg(16, vec8(g.randBytes(32))))
		fin = append(fin, record(0x14, 0x0303, []byte{1})...)
		fin = append(fin, record(0x16, 0x0303, g.randBytes(40))...)
		c.transfer(true, fin)
		c.wait(c.rtt)
		c.transfer(false, append(record(0x14, 0x0303, []byte{1}), record(0x16, 0x0303, g.randBytes(40))...))
	}
	n := 1 + g.rng.IntN(4)
	for i := range n {
		c.wait(g.between(50, 500))
		if i > 0 {
			c.wait(int64(g.logUniform(1000, 400000)))
		}
		c.transfer(true, g.appData(g.logUniform(60, 1200)))
		c.wait(c.rtt + int64(g.logUniform(300, 50000)))
		resp := g.appData(g.logUniform(100, 150000))
		if i == 0 && tls13 {
			resp = append(g.appData(g.logUniform(200, 300)), resp...) // NewSessionTicket
		}
		c.transfer(false, resp)
	}
	c.wait(int64(g.logUniform(1000, 1000000)))
	c.transfer(true, record(0x15, 0x0303, g.randBytes(26))) // close_notify alert
	c.wait(g.between(20, 200))
	c.close(false)
}

// DNS messages, written by hand for name compression as resolvers answer.

// dnsName returns name in wire form.
func dnsName(name string) []byte {
	var b []byte
	for _, l := range strings.Split(name, ".") {
		b = append(b, byte(len(l)))
		b = append(b, l...)
	}
	return append(b, 0)
}

// dnsRR is an answer record for dnsMessage.
type dnsRR struct {
	typ   layers.DNSType
	ttl   uint32
	rdata []byte // CNAME: the target name in wire form
}

// dnsMessage builds a query for qname (response false; rcode and answers unused) or a
// response with rcode and answers, every message with an EDNS OPT record. Answer owner names
// are compression pointers: to the question name, or after a CNAME to its target. With
// soaZone set, the response carries that zone's SOA record in the authority section.
func dnsMessage(id uint16, qname string, qtype layers.DNSType, response bool, rcode int, answers []dnsRR, soaZone string) []byte {
	flags := 0x0100
	if response {
		flags = 0x8180 | rcode
	}
	b := make([]byte, 12)
	binary.BigEndian.PutUint16(b[0:], id)
	binary.BigEndian.PutUint16(b[2:], uint16(flags))
	binary.BigEndian.PutUint16(b[4:], 1)
	binary.BigEndian.PutUint16(b[6:], uint16(len(answers)))
	if soaZone != "" {
		binary.BigEndian.PutUint16(b[8:], 1)
	}
	binary.BigEndian.PutUint16(b[10:], 1) // OPT
	b = append(b, dnsName(qname)...)
	b = append(b, u16(int(qtype))...)
	b = append(b, 0, 1)
	owner := 12 // offset of the current owner name
	for _, rr := range answers {
		b = append(b, 0xc0|byte(owner>>8), byte(owner))
		b = append(b, u16(int(rr.typ))...)
		b = append(b, 0, 1)
		b = binary.BigEndian.AppendUint32(b, rr.ttl)
		b = append(b, u16(len(rr.rdata))...)
		if rr.typ == layers.DNSTypeCNAME {
			owner = len(b)
		}
		b = append(b, rr.rdata...)
	}
	if soaZone != "" {
		zone := dnsName(soaZone)
		rdata := append(append([]byte{}, dnsName("ns1."+soaZone)...), dnsName("hostmaster."+soaZone)...)
		rdata = binary.BigEndian.AppendUint32(rdata, 2026011501)
		for _, v := range []uint32{7200, 3600, 1209600, 300} {
			rdata = binary.BigEndian.AppendUint32(rdata, v)
		}
		b = append(b, zone...)
		b = append(b, 0, 6, 0, 1)
		b = binary.BigEndian.AppendUint32(b, 300)
		b = append(b, u16(len(rdata))...)
		b = append(b, rdata...)
	}
	// OPT: root owner, UDP payload size 1232, no extended flags.
	return append(b, 0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0)
}

func (g *gen) dnsFlow(f *flow, start int64, v6, planted bool) {
	cl := g.client()
	res := g.resolvers[g.rng.IntN(len(g.resolvers))]
	c, s := g.endpoints(cl, res, v6, cl.ephemeral(), 53)
	rtt := int64(g.logUniform(800, 40000))
	var target *host
	name := ""
	switch {
	case planted:
		name = plantedName
		target = g.publicHost()
	case g.rng.IntN(100) < 85:
		target = g.server()
		name = target.name
	default:
		target = g.publicHost()
		name = g.hostname()
	}
	qtypes := []layers.DNSType{layers.DNSTypeA}
	switch r := g.rng.IntN(100); {
	case planted:
	case r < 25:
		qtypes = []layers.DNSType{layers.DNSTypeAAAA}
	case r < 45:
		qtypes = []layers.DNSType{layers.DNSTypeA, layers.DNSTypeAAAA}
	}
	nx := !planted && g.rng.IntN(100) < 4
	var cname []byte
	if g.rng.IntN(100) < 25 {
		cname = dnsName(pick(g.rng, words) + ".edge-" + pick(g.rng, words) + ".net")
	}
	ttl := uint32([]int{30, 60, 300, 3600}[g.rng.IntN(4)])
	t := start
	emit := func(fromClient bool, payload []byte) {
		src, dst := &c, &s
		if !fromClient {
			src, dst = &s, &c
		}
		u := &layers.UDP{SrcPort: layers.UDPPort(src.port), DstPort: layers.UDPPort(dst.port)}
		f.pkts = append(f.pkts, packet{ts: t, data: g.frame(v6, src, dst, layers.IPProtocolUDP, []gopacket.SerializableLayer{u}, payload)})
	}
	ids := make([]uint16, len(qtypes))
	for i, qt := range qtypes {
		if i > 0 {
			t += g.between(10, 80)
		}
		ids[i] = uint16(g.rng.Uint32())
		emit(true, dnsMessage(ids[i], name, qt, false, 0, nil, ""))
	}
	t += rtt
	for i, qt := range qtypes {
		if i > 0 {
			t += g.between(50, 3000)
		}
		if nx {
			zone := name[strings.IndexByte(name, '.')+1:]
			emit(false, dnsMessage(ids[i], name, qt, true, 3, nil, zone))
			continue
		}
		var answers []dnsRR
		if cname != nil {
			answers = append(answers, dnsRR{typ: layers.DNSTypeCNAME, ttl: ttl, rdata: cname})
		}
		n := 1
		if cname != nil || g.rng.IntN(3) == 0 {
			n += g.rng.IntN(3)
		}
		for j := range n {
			var ip net.IP
			if qt == layers.DNSTypeA {
				ip = append(net.IP{}, target.v4.To4()...)
			} else {
				ip = append(net.IP{}, target.v6...)
			}
			ip[len(ip)-1] += byte(j)
			answers = append(answers, dnsRR{typ: qt, ttl: ttl, rdata: ip})
		}
		emit(false, dnsMessage(ids[i], name, qt, true, 0, answers, ""))
	}
}

var winPing = []byte("abcdefghijklmnopqrstuvwabcdefghi")

func (g *gen) icmpFlow(f *flow, start int64, v6 bool) {
	cl, sv := g.client(), g.server()
	c, s := g.endpoints(cl, sv, v6, 0, 0)
	rtt := int64(g.logUniform(2000, 200000))
	id := uint16(g.rng.Uint32())
	seq := uint16(1)
	if cl.windows {
		id, seq = 1, uint16(g.rng.IntN(2000))
	}
	t := start
	for i := range 1 + g.rng.IntN(4) {
		if i > 0 {
			t += second + g.between(0, 3000)
		}
		var payload []byte
		if cl.windows {
			payload = winPing
		} else {
			// Linux ping: a struct timeval, then bytes 0x10 and up (56 bytes in all).
			at := epoch.Add(time.Duration(t) * time.Microsecond)
			payload = binary.LittleEndian.AppendUint64(nil, uint64(at.Unix()))
			payload = binary.LittleEndian.AppendUint64(payload, uint64(at.Nanosecond()/1000))
			for b := range 40 {
				payload = append(payload, byte(0x10+b))
			}
		}
		for _, reply := range []bool{false, true} {
			src, dst := &c, &s
			if reply {
				src, dst = &s, &c
			}
			ts := t
			if reply {
				ts = t + rtt + g.between(0, rtt/10)
			}
			var data []byte
			if v6 {
				typ := uint8(layers.ICMPv6TypeEchoRequest)
				if reply {
					typ = layers.ICMPv6TypeEchoReply
				}
				l4 := []gopacket.SerializableLayer{
					&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(typ, 0)},
					&layers.ICMPv6Echo{Identifier: id, SeqNumber: seq},
				}
				data = g.frame(true, src, dst, layers.IPProtocolICMPv6, l4, payload)
			} else {
				typ := uint8(layers.ICMPv4TypeEchoRequest)
				if reply {
					typ = layers.ICMPv4TypeEchoReply
				}
				l4 := []gopacket.SerializableLayer{&layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(typ, 0), Id: id, Seq: seq}}
				data = g.frame(false, src, dst, layers.IPProtocolICMPv4, l4, payload)
			}
			f.pkts = append(f.pkts, packet{ts: ts, data: data})
		}
		seq++
	}
}
