package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

func genBytes(t *testing.T, cfg config) ([]byte, stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := generate(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

// tcpKey names a TCP connection by its client and server address and port.
type tcpKey struct{ client, server string }

// tcpState follows one connection through the capture.
type tcpState struct {
	seen       int       // segments so far
	next       [2]uint32 // next sequence number expected, client and server
	fins       int
	firstData  [2][]byte // first payload each way
	serverPort uint16
}

// tally is what checkCapture counts in a capture.
type tally struct {
	packets, bytes       int
	v4, v6               int // packets
	tcpFlows, dnsFlows   int
	echoReq, echoReply   int
	uriPlanted           int // client-to-server TCP packets holding the planted URI string
	uriInRequestLine     int // HTTP requests whose URI holds it
	dnsRulePackets       int // UDP packets to port 53 holding the planted name in wire form
	dnsAllPackets        int // UDP packets holding it at all (queries and their answers)
	dnsPlantedQueries    int // DNS queries decoded with the planted name
	sniRulePackets       int // client-to-server TCP packets holding the SNI rule's bytes
	sniPlantedHellos     int // ClientHellos whose SNI is the planted name
	httpRequests, hellos int
	fullSegments         int // TCP segments of the maximum payload size
}

// checkCapture reads a pcap back, decodes every frame and checks it; it returns the counts.
func checkCapture(t *testing.T, data []byte) tally {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != layers.LinkTypeEthernet {
		t.Fatalf("link type %v", r.LinkType())
	}
	var tl tally
	conns := map[tcpKey]*tcpState{}
	udpFlows := map[string]bool{}
	var last int64
	wireName := dnsName(plantedName)
	sniBytes := append([]byte{0, 0, byte(len(plantedName))}, plantedName...)
	for i := 0; ; i++ {
		frame, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		tl.packets++
		tl.bytes += len(frame)
		if ns := ci.Timestamp.UnixNano(); ns < last {
			t.Fatalf("packet %d: timestamp goes back", i)
		} else {
			last = ns
		}
		if len(frame) > 1514 {
			t.Fatalf("packet %d: %d-byte frame", i, len(frame))
		}
		p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		if el := p.ErrorLayer(); el != nil {
			t.Fatalf("packet %d: decode error: %v", i, el.Error())
		}
		// gopacket verifies transport checksums once told the pseudo-header's layer.
		for _, l := range p.Layers() {
			if c, ok := l.(interface {
				SetNetworkLayerForChecksum(gopacket.NetworkLayer) error
			}); ok {
				if err := c.SetNetworkLayerForChecksum(p.NetworkLayer()); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err, bad := p.VerifyChecksums(); err != nil || len(bad) > 0 {
			t.Fatalf("packet %d: checksums: %v %+v", i, err, bad)
		}
		checkChecksums(t, i, p)

		var src, dst string
		switch ip := p.NetworkLayer().(type) {
		case *layers.IPv4:
			tl.v4++
			src, dst = ip.SrcIP.String(), ip.DstIP.String()
		case *layers.IPv6:
			tl.v6++
			src, dst = ip.SrcIP.String(), ip.DstIP.String()
		default:
			t.Fatalf("packet %d: network layer %v", i, p.NetworkLayer())
		}

		switch l4 := p.TransportLayer().(type) {
		case *layers.TCP:
			a := net.JoinHostPort(src, fmt.Sprint(uint16(l4.SrcPort)))
			b := net.JoinHostPort(dst, fmt.Sprint(uint16(l4.DstPort)))
			st := conns[tcpKey{a, b}]
			fromClient := st != nil
			if st == nil {
				st = conns[tcpKey{b, a}]
			}
			if st == nil {
				if !l4.SYN || l4.ACK || len(l4.Payload) > 0 {
					t.Fatalf("packet %d: TCP connection %s -> %s does not start with a SYN", i, a, b)
				}
				st = &tcpState{serverPort: uint16(l4.DstPort)}
				conns[tcpKey{a, b}] = st
				fromClient = true
				tl.tcpFlows++
			}
			dir := 1
			if fromClient {
				dir = 0
			}
			switch st.seen {
			case 1:
				if fromClient || !l4.SYN || !l4.ACK || l4.Ack != st.next[0] {
					t.Fatalf("packet %d: second segment of %s -> %s is not the SYN-ACK", i, a, b)
				}
			case 2:
				if !fromClient || l4.SYN || !l4.ACK || l4.Ack != st.next[1] || len(l4.Payload) > 0 {
					t.Fatalf("packet %d: third segment of %s -> %s is not the client's ACK", i, a, b)
				}
			}
			if st.seen > 0 && !(st.seen == 1 && !fromClient) && l4.Seq != st.next[dir] {
				t.Fatalf("packet %d: sequence %d, want %d (gap or overlap)", i, l4.Seq, st.next[dir])
			}
			st.seen++
			st.next[dir] = l4.Seq + uint32(len(l4.Payload))
			if l4.SYN || l4.FIN {
				st.next[dir]++
			}
			if l4.FIN {
				st.fins++
			}
			mss := 1448
			if _, ok := p.NetworkLayer().(*layers.IPv6); ok {
				mss = 1428
			}
			if len(l4.Payload) > mss {
				t.Fatalf("packet %d: %d-byte TCP payload", i, len(l4.Payload))
			}
			if len(l4.Payload) == mss {
				tl.fullSegments++
			}
			if fromClient {
				tl.uriPlanted += bytes.Count(l4.Payload, []byte(plantedURI))
				tl.sniRulePackets += bytes.Count(l4.Payload, sniBytes)
			} else if bytes.Contains(l4.Payload, []byte(plantedURI)) || bytes.Contains(l4.Payload, sniBytes) {
				t.Fatalf("packet %d: a planted string from the server", i)
			}
			if len(l4.Payload) > 0 && st.firstData[dir] == nil {
				st.firstData[dir] = l4.Payload
			}
			if fromClient && (bytes.HasPrefix(l4.Payload, []byte("GET ")) || bytes.HasPrefix(l4.Payload, []byte("POST "))) {
				req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(l4.Payload)))
				if err != nil {
					t.Fatalf("packet %d: HTTP request: %v", i, err)
				}
				if req.Host == "" || req.UserAgent() == "" {
					t.Fatalf("packet %d: HTTP request without Host or User-Agent", i)
				}
				tl.httpRequests++
				if strings.Contains(req.RequestURI, plantedURI) {
					tl.uriInRequestLine++
				}
			}
			if !fromClient && bytes.HasPrefix(l4.Payload, []byte("HTTP/1.1 ")) {
				if _, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(l4.Payload)), nil); err != nil {
					t.Fatalf("packet %d: HTTP response: %v", i, err)
				}
			}
		case *layers.UDP:
			tl.dnsAllPackets += bytes.Count(l4.Payload, wireName)
			if l4.DstPort != 53 && l4.SrcPort != 53 {
				t.Fatalf("packet %d: UDP not to or from port 53", i)
			}
			dns, ok := p.Layer(layers.LayerTypeDNS).(*layers.DNS)
			if !ok || len(dns.Questions) != 1 {
				t.Fatalf("packet %d: no DNS message with one question", i)
			}
			if l4.DstPort == 53 {
				udpFlows[udpFlowKey(src, dst, l4)] = true
				tl.dnsRulePackets += bytes.Count(l4.Payload, wireName)
				if dns.QR || len(dns.Answers) > 0 {
					t.Fatalf("packet %d: DNS query with answers", i)
				}
				if string(dns.Questions[0].Name) == plantedName {
					tl.dnsPlantedQueries++
				}
			} else {
				if !udpFlows[udpFlowKey(dst, src, l4)] || !dns.QR {
					t.Fatalf("packet %d: DNS response without a query", i)
				}
				if dns.ResponseCode == layers.DNSResponseCodeNoErr && len(dns.Answers) == 0 {
					t.Fatalf("packet %d: DNS NOERROR response without answers", i)
				}
				for _, an := range dns.Answers {
					if (an.Type == layers.DNSTypeA && an.IP.To4() == nil) || (an.Type == layers.DNSTypeAAAA && len(an.IP) != 16) {
						t.Fatalf("packet %d: bad address record %v", i, an)
					}
				}
			}
		default:
			if l, ok := p.Layer(layers.LayerTypeICMPv4).(*layers.ICMPv4); ok {
				switch l.TypeCode.Type() {
				case layers.ICMPv4TypeEchoRequest:
					tl.echoReq++
				case layers.ICMPv4TypeEchoReply:
					tl.echoReply++
				default:
					t.Fatalf("packet %d: ICMP %v", i, l.TypeCode)
				}
				continue
			}
			l, ok := p.Layer(layers.LayerTypeICMPv6).(*layers.ICMPv6)
			if !ok || p.Layer(layers.LayerTypeICMPv6Echo) == nil {
				t.Fatalf("packet %d: neither TCP, UDP nor an ICMP echo", i)
			}
			switch l.TypeCode.Type() {
			case layers.ICMPv6TypeEchoRequest:
				tl.echoReq++
			case layers.ICMPv6TypeEchoReply:
				tl.echoReply++
			}
		}
	}
	tl.dnsFlows = len(udpFlows)
	for k, st := range conns {
		if st.seen < 3 || st.fins != 2 {
			t.Fatalf("TCP %s -> %s: %d segments, %d FINs", k.client, k.server, st.seen, st.fins)
		}
		if st.serverPort == 443 {
			sni, err := parseClientHello(st.firstData[0])
			if err != nil {
				t.Fatalf("TCP %s -> %s: ClientHello: %v", k.client, k.server, err)
			}
			tl.hellos++
			if sni == plantedName {
				tl.sniPlantedHellos++
			}
			if s := st.firstData[1]; len(s) < 6 || s[0] != 0x16 || s[1] != 3 || s[2] != 3 || s[5] != 2 {
				t.Fatalf("TCP %s -> %s: server's first bytes are not a ServerHello record", k.client, k.server)
			}
		}
	}
	return tl
}

// udpFlowKey names a DNS exchange by client address and port and resolver.
func udpFlowKey(client, server string, u *layers.UDP) string {
	if u.DstPort == 53 {
		return fmt.Sprintf("%s:%d-%s", client, u.SrcPort, server)
	}
	return fmt.Sprintf("%s:%d-%s", client, u.DstPort, server)
}

// sum16 adds b to s as big-endian 16-bit words (RFC 1071).
func sum16(b []byte, s uint32) uint32 {
	for ; len(b) >= 2; b = b[2:] {
		s += uint32(b[0])<<8 | uint32(b[1])
	}
	if len(b) == 1 {
		s += uint32(b[0]) << 8
	}
	return s
}

func fold(s uint32) uint16 {
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// checkChecksums recomputes the IPv4 header checksum and the transport checksums over the
// pseudo-header from the raw bytes, independently of gopacket.
func checkChecksums(t *testing.T, i int, p gopacket.Packet) {
	t.Helper()
	var pseudo uint32
	var proto uint8
	var seg []byte
	switch ip := p.NetworkLayer().(type) {
	case *layers.IPv4:
		if fold(sum16(ip.Contents, 0)) != 0xffff {
			t.Fatalf("packet %d: IPv4 header checksum", i)
		}
		proto, seg = uint8(ip.Protocol), ip.Payload
		pseudo = sum16(ip.SrcIP.To4(), sum16(ip.DstIP.To4(), 0))
	case *layers.IPv6:
		proto, seg = uint8(ip.NextHeader), ip.Payload
		pseudo = sum16(ip.SrcIP, sum16(ip.DstIP, 0))
	}
	pseudo += uint32(proto) + uint32(len(seg))
	switch layers.IPProtocol(proto) {
	case layers.IPProtocolICMPv4:
		if fold(sum16(seg, 0)) != 0xffff {
			t.Fatalf("packet %d: ICMP checksum", i)
		}
	case layers.IPProtocolUDP:
		if binary.BigEndian.Uint16(seg[6:]) == 0 {
			t.Fatalf("packet %d: UDP without checksum", i)
		}
		fallthrough
	default:
		if fold(sum16(seg, pseudo)) != 0xffff {
			t.Fatalf("packet %d: %v checksum", i, layers.IPProtocol(proto))
		}
	}
}

// parseClientHello checks that b starts with a structurally valid TLS ClientHello record
// (every length consistent) and returns its SNI.
func parseClientHello(b []byte) (string, error) {
	c := cursor{b: b}
	if c.u8() != 0x16 || c.u8() != 3 {
		return "", errors.New("not a handshake record")
	}
	c.u8()
	rec := c.sub(c.u16())
	if rec.u8() != 1 {
		return "", errors.New("not a ClientHello")
	}
	body := rec.sub(rec.u24())
	if rec.err == nil && len(rec.b) != 0 {
		return "", errors.New("bytes after the ClientHello in its record")
	}
	if v := body.u16(); v != 0x0303 {
		return "", fmt.Errorf("client version %#x", v)
	}
	body.sub(32)        // random
	body.sub(body.u8()) // session id
	suites := body.u16()
	if suites == 0 || suites%2 != 0 {
		return "", errors.New("bad cipher suites length")
	}
	body.sub(suites)
	body.sub(body.u8()) // compression methods
	exts := body.sub(body.u16())
	if body.err == nil && len(body.b) != 0 {
		return "", errors.New("bytes after the extensions")
	}
	sni := ""
	for exts.err == nil && len(exts.b) > 0 {
		typ := exts.u16()
		e := exts.sub(exts.u16())
		if typ != 0 {
			continue
		}
		list := e.sub(e.u16())
		if e.err == nil && len(e.b) != 0 {
			return "", errors.New("bytes after the server name list")
		}
		if list.u8() != 0 {
			return "", errors.New("server name type is not host_name")
		}
		sni = string(list.sub(list.u16()).b)
		if list.err == nil && len(list.b) != 0 {
			return "", errors.New("more than one server name")
		}
		if list.err != nil || e.err != nil {
			return "", errors.New("truncated server_name")
		}
	}
	for _, err := range []error{c.err, rec.err, body.err, exts.err} {
		if err != nil {
			return "", err
		}
	}
	if sni == "" {
		return "", errors.New("no server_name extension")
	}
	return sni, nil
}

// cursor reads big-endian fields; reading past the end sets err.
type cursor struct {
	b   []byte
	err error
}

func (c *cursor) take(n int) []byte {
	if c.err != nil || n > len(c.b) {
		c.err = errors.New("truncated")
		return nil
	}
	v := c.b[:n]
	c.b = c.b[n:]
	return v
}

func (c *cursor) u8() int  { return c.int(1) }
func (c *cursor) u16() int { return c.int(2) }
func (c *cursor) u24() int { return c.int(3) }
func (c *cursor) int(n int) int {
	v := 0
	for _, x := range c.take(n) {
		v = v<<8 | int(x)
	}
	return v
}
func (c *cursor) sub(n int) *cursor {
	b := c.take(n)
	return &cursor{b: b, err: c.err}
}

func TestGenerate(t *testing.T) {
	cases := []struct {
		name           string
		cfg            config
		wantV4, wantV6 bool
	}{
		{"mixed", config{flows: 300, seed: 1, ipv6: 0.2, plant: 7}, true, true},
		{"ipv4 only", config{flows: 120, seed: 2, ipv6: 0, plant: 3}, true, false},
		{"ipv6 only", config{flows: 120, seed: 3, ipv6: 1, plant: 3}, false, true},
		{"every dns flow planted", config{flows: 50, seed: 4, ipv6: 0.5, plant: 10}, true, true},
		{"nothing planted", config{flows: 40, seed: 5, ipv6: 0.3, plant: 0}, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, st := genBytes(t, tc.cfg)
			tl := checkCapture(t, data)
			n := tc.cfg.split()
			k := tc.cfg.plant
			checks := []struct {
				what      string
				got, want int
			}{
				{"packets", tl.packets, st.packets},
				{"bytes", tl.bytes, st.bytes},
				{"TCP connections", tl.tcpFlows, n[kindHTTP] + n[kindTLS]},
				{"ClientHellos", tl.hellos, n[kindTLS]},
				{"DNS flows", tl.dnsFlows, n[kindDNS]},
				{"echo replies", tl.echoReply, tl.echoReq},
				{"IPv6 flows", st.v6, int(math.Round(tc.cfg.ipv6 * float64(tc.cfg.flows)))},
				{"planted URI in client packets (sid 9000001)", tl.uriPlanted, k},
				{"planted URI in request lines", tl.uriInRequestLine, k},
				{"planted name to port 53 (sid 9000002)", tl.dnsRulePackets, k},
				{"planted DNS queries", tl.dnsPlantedQueries, k},
				{"planted name in all UDP (queries and answers)", tl.dnsAllPackets, 2 * k},
				{"planted SNI bytes in client packets (sid 9000003)", tl.sniRulePackets, k},
				{"planted SNIs", tl.sniPlantedHellos, k},
				{"stats http", st.planted[kindHTTP], k},
				{"stats dns", st.planted[kindDNS], k},
				{"stats tls", st.planted[kindTLS], k},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
				}
			}
			if tl.echoReq < n[kindICMP] {
				t.Errorf("%d echo requests for %d ICMP flows", tl.echoReq, n[kindICMP])
			}
			if tl.httpRequests < n[kindHTTP] {
				t.Errorf("%d HTTP requests for %d HTTP flows", tl.httpRequests, n[kindHTTP])
			}
			if tl.fullSegments == 0 {
				t.Error("no full-size TCP segment: no response spans several packets")
			}
			if (tl.v4 > 0) != tc.wantV4 || (tl.v6 > 0) != tc.wantV6 {
				t.Errorf("IPv4 packets %d, IPv6 packets %d", tl.v4, tl.v6)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	base := config{flows: 200, seed: 42, ipv6: 0.2, plant: 5}
	a, _ := genBytes(t, base)
	cases := []struct {
		name string
		cfg  config
		same bool
	}{
		{"same flags", base, true},
		{"another seed", config{flows: 200, seed: 43, ipv6: 0.2, plant: 5}, false},
		{"another IPv6 fraction", config{flows: 200, seed: 42, ipv6: 0.3, plant: 5}, false},
		{"another plant count", config{flows: 200, seed: 42, ipv6: 0.2, plant: 6}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := genBytes(t, tc.cfg)
			if bytes.Equal(a, b) != tc.same {
				t.Errorf("output equal: %v, want %v", !tc.same, tc.same)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		cfg config
		ok  bool
	}{
		{config{flows: 1, ipv6: 0, plant: 0}, true},
		{config{flows: 2000, ipv6: 1, plant: 400}, true},
		{config{flows: 2000, ipv6: 0.2, plant: 401}, false}, // 400 DNS flows
		{config{flows: 0, ipv6: 0.2}, false},
		{config{flows: 10, ipv6: -0.1}, false},
		{config{flows: 10, ipv6: 1.5}, false},
		{config{flows: 10, ipv6: math.NaN()}, false},
		{config{flows: 10, ipv6: 0, plant: -1}, false},
	}
	for _, tc := range cases {
		if err := tc.cfg.validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: validate() = %v", tc.cfg, err)
		}
	}
	if n := (config{flows: 2000}).split(); n != [numKinds]int{800, 600, 400, 200} {
		t.Errorf("split(2000) = %v", n)
	}
	if n := (config{flows: 7}).split(); n[kindHTTP]+n[kindTLS]+n[kindDNS]+n[kindICMP] != 7 {
		t.Errorf("split(7) = %v", n)
	}
}

// TestEndToEnd replays a capture through a freshly built meerkat with the planted rules and
// expects each rule to alert exactly once per planted flow.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meerkat")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "meerkat")
	build := exec.Command(goBin, "build", "-o", bin, "./cmd/meerkat")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building meerkat: %v\n%s", err, out)
	}
	cfg := config{flows: 600, seed: 11, ipv6: 0.3, plant: 9}
	data, _ := genBytes(t, cfg)
	pcap := filepath.Join(dir, "t.pcap")
	rules := filepath.Join(dir, "t.rules")
	if err := os.WriteFile(pcap, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, []byte(strings.Join(plantRules, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// -k none as a benchmark runs it, and -k all, which drops packets with bad checksums
	// from detection.
	for _, k := range []string{"none", "all"} {
		t.Run("k="+k, func(t *testing.T) {
			logs := t.TempDir()
			cmd := exec.Command(bin, "-c", "suricata.yaml", "-S", rules, "-r", pcap, "-l", logs, "--runmode", "single", "-k", k)
			cmd.Dir = "../.."
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("meerkat: %v\n%s", err, out)
			}
			eve, err := os.ReadFile(filepath.Join(logs, "eve.json"))
			if err != nil {
				t.Fatal(err)
			}
			got := map[int]int{}
			for _, line := range bytes.Split(bytes.TrimSpace(eve), []byte("\n")) {
				var rec struct {
					EventType string `json:"event_type"`
					Alert     struct {
						SignatureID int `json:"signature_id"`
					} `json:"alert"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("eve.json: %v: %s", err, line)
				}
				if rec.EventType == "alert" {
					got[rec.Alert.SignatureID]++
				}
			}
			want := map[int]int{9000001: cfg.plant, 9000002: cfg.plant, 9000003: cfg.plant}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("alerts per sid %v, want %v", got, want)
			}
		})
	}
}
