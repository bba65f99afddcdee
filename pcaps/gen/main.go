// Command gen writes pcaps/sample.pcap, the small capture Meerkat bundles for `make run` and
// for end-to-end tests. The capture is synthetic and deterministic: an HTTP exchange over
// IPv4 with handshake and close, a DNS query and answer, an ICMP echo, an IPv6 TCP session
// closed by RST, a UDP datagram split into IPv4 fragments, a VLAN-tagged flow, and a late
// packet that makes the earlier flows time out.
//
// Run it from the repository root: go run ./pcaps/gen
//
// With -flows N it writes instead a bulk capture for benchmarks: N HTTP-like TCP sessions and
// N DNS exchanges between many hosts, interleaved, about 12 packets per pair
// (go run ./pcaps/gen -flows 20000 /tmp/bulk.pcap).
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

type gen struct {
	w  *pcapgo.Writer
	ts time.Time
}

var (
	macClient = net.HardwareAddr{0x02, 0, 0, 0, 0, 1}
	macServer = net.HardwareAddr{0x02, 0, 0, 0, 0, 2}
)

func (g *gen) write(ls ...gopacket.SerializableLayer) {
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		panic(err)
	}
	data := buf.Bytes()
	ci := gopacket.CaptureInfo{Timestamp: g.ts, CaptureLength: len(data), Length: len(data)}
	if err := g.w.WritePacket(ci, data); err != nil {
		panic(err)
	}
	g.ts = g.ts.Add(1500 * time.Microsecond)
}

func eth(src, dst net.HardwareAddr, et layers.EthernetType) *layers.Ethernet {
	return &layers.Ethernet{SrcMAC: src, DstMAC: dst, EthernetType: et}
}

type tcpConn struct {
	g            *gen
	cip, sip     net.IP
	cport, sport uint16
	cseq, sseq   uint32
	v6           bool
	vlan         uint16
}

func (c *tcpConn) send(fromClient bool, flags string, payload string) {
	src, dst := c.cip, c.sip
	sp, dp := c.cport, c.sport
	seq, ack := c.cseq, c.sseq
	smac, dmac := macClient, macServer
	if !fromClient {
		src, dst, sp, dp, seq, ack, smac, dmac = c.sip, c.cip, c.sport, c.cport, c.sseq, c.cseq, macServer, macClient
	}
	t := &layers.TCP{SrcPort: layers.TCPPort(sp), DstPort: layers.TCPPort(dp), Seq: seq, Window: 64240}
	for _, f := range flags {
		switch f {
		case 'S':
			t.SYN = true
		case 'A':
			t.ACK = true
		case 'F':
			t.FIN = true
		case 'R':
			t.RST = true
		case 'P':
			t.PSH = true
		}
	}
	if t.ACK {
		t.Ack = ack
	}
	if t.SYN {
		t.Options = []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{0x05, 0xb4}}}
	}
	var ls []gopacket.SerializableLayer
	et := layers.EthernetTypeIPv4
	if c.v6 {
		et = layers.EthernetTypeIPv6
	}
	if c.vlan != 0 {
		ls = append(ls, eth(smac, dmac, layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: c.vlan, Type: et})
	} else {
		ls = append(ls, eth(smac, dmac, et))
	}
	if c.v6 {
		ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src, DstIP: dst}
		t.SetNetworkLayerForChecksum(ip)
		ls = append(ls, ip)
	} else {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src, DstIP: dst, Flags: layers.IPv4DontFragment}
		t.SetNetworkLayerForChecksum(ip)
		ls = append(ls, ip)
	}
	ls = append(ls, t, gopacket.Payload(payload))
	c.g.write(ls...)
	adv := uint32(len(payload))
	if t.SYN || t.FIN {
		adv++
	}
	if fromClient {
		c.cseq += adv
	} else {
		c.sseq += adv
	}
}

func (c *tcpConn) handshake() {
	c.send(true, "S", "")
	c.send(false, "SA", "")
	c.send(true, "A", "")
}

func udp(g *gen, src, dst net.IP, sp, dp uint16, payload []byte) {
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src, DstIP: dst}
	u := &layers.UDP{SrcPort: layers.UDPPort(sp), DstPort: layers.UDPPort(dp)}
	u.SetNetworkLayerForChecksum(ip)
	g.write(eth(macClient, macServer, layers.EthernetTypeIPv4), ip, u, gopacket.Payload(payload))
}

func dnsMessage(response bool) []byte {
	d := &layers.DNS{ID: 0x1234, RD: true, QR: response, RA: response,
		Questions: []layers.DNSQuestion{{Name: []byte("www.example.com"), Type: layers.DNSTypeA, Class: layers.DNSClassIN}}}
	if response {
		d.Answers = []layers.DNSResourceRecord{{Name: []byte("www.example.com"), Type: layers.DNSTypeA,
			Class: layers.DNSClassIN, TTL: 300, IP: net.IP{93, 184, 216, 34}}}
	}
	buf := gopacket.NewSerializeBuffer()
	if err := d.SerializeTo(buf, gopacket.SerializeOptions{FixLengths: true}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// fragments writes one UDP datagram split into IPv4 fragments of at most 512 payload bytes.
func fragments(g *gen, src, dst net.IP, sp, dp uint16, payload []byte) {
	// Build the UDP header and payload with a correct checksum first.
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src, DstIP: dst}
	u := &layers.UDP{SrcPort: layers.UDPPort(sp), DstPort: layers.UDPPort(dp)}
	u.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, u, gopacket.Payload(payload)); err != nil {
		panic(err)
	}
	body := buf.Bytes()
	const chunk = 512
	for off := 0; off < len(body); off += chunk {
		end := min(off+chunk, len(body))
		fip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src, DstIP: dst,
			Id: 0x4242, FragOffset: uint16(off / 8)}
		if end < len(body) {
			fip.Flags = layers.IPv4MoreFragments
		}
		g.write(eth(macClient, macServer, layers.EthernetTypeIPv4), fip, gopacket.Payload(body[off:end]))
	}
}

func main() {
	flows := flag.Int("flows", 0, "write a bulk benchmark capture with this many TCP and UDP flows")
	flag.Parse()
	out := "pcaps/sample.pcap"
	if flag.NArg() > 0 {
		out = flag.Arg(0)
	}
	f, err := os.Create(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		panic(err)
	}
	g := &gen{w: w, ts: time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)}
	if *flows > 0 {
		writeBulk(g, *flows)
	} else {
		writeSample(g)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// writeBulk writes n TCP sessions, each a request and an 8 KB response in full-size segments
// with ACKs, and n DNS exchanges: about 20 packets per pair, a mix of small and large frames.
func writeBulk(g *gen, n int) {
	body := make([]byte, 8000)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	req := "GET /bench/item HTTP/1.1\r\nHost: bench.example\r\nUser-Agent: meerkat-bench\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 8000\r\n\r\n" + string(body)
	q := dnsMessage(false)
	a := dnsMessage(true)
	for i := 0; i < n; i++ {
		client := net.IP{10, byte(i >> 16), byte(i >> 8), byte(i)}
		server := net.IP{172, 16, byte(i % 7), byte(1 + i%250)}
		c := &tcpConn{g: g, cip: client, sip: server, cport: uint16(1024 + i%60000), sport: 80,
			cseq: uint32(i) * 7919, sseq: uint32(i) * 104729}
		c.handshake()
		c.send(true, "PA", req)
		for off, k := 0, 0; off < len(resp); off, k = off+1448, k+1 {
			c.send(false, "PA", resp[off:min(off+1448, len(resp))])
			if k%2 == 1 {
				c.send(true, "A", "")
			}
		}
		c.send(true, "A", "")
		c.send(true, "FA", "")
		c.send(false, "FA", "")
		c.send(true, "A", "")
		udp(g, client, net.IP{192, 168, 0, 53}, uint16(20000+i%40000), 53, q)
		udp(g, net.IP{192, 168, 0, 53}, client, 53, uint16(20000+i%40000), a)
	}
}

// writeSample writes the bundled capture described in the package comment.
func writeSample(g *gen) {
	client := net.IP{192, 168, 1, 10}
	web := net.IP{93, 184, 216, 34}
	resolver := net.IP{192, 168, 1, 1}

	// DNS lookup, then HTTP to the answer.
	udp(g, client, resolver, 53011, 53, dnsMessage(false))
	udp(g, resolver, client, 53, 53011, dnsMessage(true))

	h := &tcpConn{g: g, cip: client, sip: web, cport: 49152, sport: 80, cseq: 1000, sseq: 5000}
	h.handshake()
	h.send(true, "PA", "GET /index.html HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n")
	h.send(false, "A", "")
	h.send(false, "PA", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 39\r\n\r\n<html><body>uid=0(root)</body></html>\r\n")
	h.send(true, "A", "")
	h.send(true, "FA", "")
	h.send(false, "FA", "")
	h.send(true, "A", "")

	// ICMP echo request and reply.
	for i, pair := range [][2]net.IP{{client, web}, {web, client}} {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolICMPv4, SrcIP: pair[0], DstIP: pair[1]}
		typ := uint8(layers.ICMPv4TypeEchoRequest)
		if i == 1 {
			typ = layers.ICMPv4TypeEchoReply
		}
		icmp := &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(typ, 0), Id: 7, Seq: 1}
		g.write(eth(macClient, macServer, layers.EthernetTypeIPv4), ip, icmp, gopacket.Payload("meerkat-ping-0123456789"))
	}

	// IPv6 TCP session to an SSH-like port, reset by the server after a banner.
	v6 := &tcpConn{g: g, v6: true, cip: net.ParseIP("2001:db8::10"), sip: net.ParseIP("2001:db8:0:1::22"),
		cport: 50500, sport: 22, cseq: 77, sseq: 9000}
	v6.handshake()
	v6.send(false, "PA", "SSH-2.0-OpenSSH_9.6\r\n")
	v6.send(true, "R", "")

	// A large UDP datagram that travels as IPv4 fragments.
	big := make([]byte, 1200)
	for i := range big {
		big[i] = byte('A' + i%26)
	}
	fragments(g, client, net.IP{198, 51, 100, 7}, 40000, 9999, big)

	// A flow on VLAN 100.
	vl := &tcpConn{g: g, vlan: 100, cip: net.IP{10, 1, 1, 5}, sip: net.IP{10, 1, 1, 6}, cport: 33000, sport: 8080, cseq: 1, sseq: 1}
	vl.handshake()
	vl.send(true, "PA", "hello over vlan\n")
	vl.send(false, "A", "")

	// Much later: one more DNS query, so every earlier flow times out first.
	g.ts = g.ts.Add(30 * time.Minute)
	udp(g, client, resolver, 53012, 53, dnsMessage(false))
}
