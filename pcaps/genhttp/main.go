// Command genhttp writes the capture of the HTTP end-to-end test (cmd/meerkat/http_e2e_test.go):
// six HTTP/1.1 connections with unique strings planted in the places one rule each looks for
// (URI path and query, a %-encoded URI, User-Agent, Host, a custom header, Cookie, a request
// body, response bodies sent with Content-Length, chunked and gzip-compressed, a status code),
// a request and a response split over several TCP segments with the planted strings cut in
// two and the other side ACKing in between, three pipelined requests and their three responses
// in one segment each, and a decoy connection carrying the same strings where no rule may find
// them.
//
// The capture is deterministic: fixed addresses, ports, initial sequence numbers and
// timestamps; the gzip body is a fixed byte string (checked against its plain text at start).
// Every connection has a full handshake, ACKs as a TCP stack sends them (each packet ACKs all
// the other side sent before it) and a FIN close started by the client. In IDS mode a side's
// bytes reach the HTTP parser when the other side ACKs them: the comments in writeAll say
// which packet's ACK has what parsed.
//
// Run it from the repository root:
//
//	go run ./pcaps/genhttp cmd/meerkat/testdata/http/e2e.pcap
//
// -list prints each packet's pcap_cnt, connection, direction, flags and payload length: the
// numbers the end-to-end test's expectations name.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// gen writes packets to the capture and counts them as Suricata's pcap_cnt does (from 1).
type gen struct {
	w    *pcapgo.Writer
	ts   time.Time
	cnt  int
	list io.Writer // nil: no listing
}

var (
	macClient = net.HardwareAddr{0x02, 0, 0, 0, 0, 1}
	macServer = net.HardwareAddr{0x02, 0, 0, 0, 0, 2}
	server    = net.IP{10, 0, 0, 80}
)

// conn is one TCP connection from a client to server:80. Every packet ACKs everything the
// other side has sent so far, as a stack does when nothing is in flight.
type conn struct {
	g          *gen
	name       string
	cip        net.IP
	cport      uint16
	cseq, sseq uint32
}

// client sends a packet from the client; it returns the packet's pcap_cnt.
func (c *conn) client(flags, payload string) int { return c.send(true, flags, payload) }

// server sends a packet from the server; it returns the packet's pcap_cnt.
func (c *conn) server(flags, payload string) int { return c.send(false, flags, payload) }

func (c *conn) send(fromClient bool, flags, payload string) int {
	src, dst, sp, dp, seq, ack := c.cip, server, c.cport, uint16(80), c.cseq, c.sseq
	smac, dmac := macClient, macServer
	if !fromClient {
		src, dst, sp, dp, seq, ack = server, c.cip, 80, c.cport, c.sseq, c.cseq
		smac, dmac = macServer, macClient
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
		case 'P':
			t.PSH = true
		default:
			panic("flag " + string(f))
		}
	}
	if t.ACK {
		t.Ack = ack
	}
	if t.SYN {
		t.Options = []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{0x05, 0xb4}}}
	}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src, DstIP: dst, Flags: layers.IPv4DontFragment}
	if err := t.SetNetworkLayerForChecksum(ip); err != nil {
		panic(err)
	}
	c.g.write(&layers.Ethernet{SrcMAC: smac, DstMAC: dmac, EthernetType: layers.EthernetTypeIPv4}, ip, t, gopacket.Payload(payload))
	adv := uint32(len(payload))
	if t.SYN || t.FIN {
		adv++
	}
	if fromClient {
		c.cseq += adv
	} else {
		c.sseq += adv
	}
	if c.g.list != nil {
		dir := "C->S"
		if !fromClient {
			dir = "S->C"
		}
		fmt.Fprintf(c.g.list, "%3d %-9s %s %-3s %4d %s\n", c.g.cnt, c.name, dir, flags, len(payload), summary(payload))
	}
	return c.g.cnt
}

// summary is the first line of a payload, for the listing.
func summary(p string) string {
	line, _, _ := strings.Cut(p, "\n")
	line = strings.TrimSuffix(line, "\r")
	if len(line) > 60 {
		line = line[:60] + "..."
	}
	return strconv.Quote(line)
}

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
	g.cnt++
	g.ts = g.ts.Add(time.Millisecond)
}

// open starts connection n (client 10.0.1.n:4100n) with its handshake.
func (g *gen) open(n int, name string) *conn {
	g.ts = g.ts.Add(time.Second) // connections one after the other, a second apart
	c := &conn{g: g, name: name, cip: net.IP{10, 0, 1, byte(n)}, cport: uint16(41000 + n),
		cseq: uint32(n) * 1000003, sseq: uint32(n) * 7000001}
	c.client("S", "")
	c.server("SA", "")
	c.client("A", "")
	return c
}

// close ends the connection as the client starts it: FIN, the server's FIN, the last ACK.
func (c *conn) close() {
	c.client("FA", "")
	c.server("FA", "")
	c.client("A", "")
}

// gzipBody is gzipPlain compressed (compress/gzip, BestCompression, no header fields), kept
// as bytes so that the capture does not depend on the compressor's version.
var gzipBody = []byte{
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x4a, 0xce, 0xcf, 0x2d, 0x28, 0x4a,
	0x2d, 0x2e, 0x4e, 0x4d, 0x51, 0x28, 0x4a, 0x2d, 0x2e, 0xc8, 0xcf, 0x2b, 0x4e, 0x55, 0x48, 0xca,
	0x4f, 0xa9, 0xb4, 0x52, 0x08, 0xf0, 0x71, 0xf4, 0x0b, 0x49, 0xaf, 0xca, 0x2c, 0x30, 0x30, 0x51,
	0xc8, 0x2c, 0x56, 0xc8, 0xcf, 0xcb, 0xa9, 0x54, 0x28, 0xcb, 0x2c, 0xce, 0x4c, 0xca, 0x49, 0x55,
	0x48, 0x4c, 0x2b, 0x49, 0x2d, 0x52, 0x48, 0x49, 0x85, 0xe9, 0xce, 0xcc, 0xcf, 0xe3, 0x02, 0x04,
	0x00, 0x00, 0xff, 0xff, 0xa5, 0x61, 0xe0, 0x56, 0x4a, 0x00, 0x00, 0x00,
}

const gzipPlain = "compressed response body: PLANTgzip04 is only visible after decompression\n"

// checkGzip fails when gzipBody is not gzipPlain compressed, or shows the planted string.
func checkGzip() error {
	r, err := gzip.NewReader(bytes.NewReader(gzipBody))
	if err != nil {
		return err
	}
	plain, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if string(plain) != gzipPlain {
		return fmt.Errorf("gzip body decompresses to %q", plain)
	}
	if bytes.Contains(gzipBody, []byte("PLANT")) {
		return fmt.Errorf("the compressed body shows the planted string")
	}
	return nil
}

// response is an HTTP/1.1 response with a Content-Length body.
func response(status, headers, body string) string {
	return "HTTP/1.1 " + status + "\r\n" + headers + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func main() {
	list := flag.Bool("list", false, "print every packet: pcap_cnt, connection, direction, flags, payload length")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genhttp [-list] OUT.pcap")
		os.Exit(2)
	}
	if err := checkGzip(); err != nil {
		fmt.Fprintln(os.Stderr, "genhttp:", err)
		os.Exit(1)
	}
	f, err := os.Create(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		panic(err)
	}
	g := &gen{w: w, ts: time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)}
	if *list {
		g.list = os.Stdout
	}
	writeAll(g)
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// writeAll writes the six connections, one after the other.
func writeAll(g *gen) {
	// 1 basic (pcap_cnt 1-10): a GET with strings in the path, the query, User-Agent, Host,
	// a custom header and Cookie; the server ACKs the request alone, then answers with a
	// Content-Length body and the client ACKs it.
	c := g.open(1, "basic")
	// pcap_cnt 4
	c.client("PA", "GET /PLANTuri01/index.html?q=PLANTquery01 HTTP/1.1\r\n"+
		"Host: plant-host01.example\r\n"+
		"User-Agent: PLANTua01/1.0\r\n"+
		"X-Plant: PLANThdr01\r\n"+
		"Cookie: session=PLANTcookie01\r\n"+
		"Accept: */*\r\n\r\n")
	// pcap_cnt 5: the request is parsed
	c.server("A", "")
	// pcap_cnt 6
	c.server("PA", response("200 OK", "Content-Type: text/html\r\n", "<html>PLANTbody01</html>\n"))
	// pcap_cnt 7: the response is parsed
	c.client("A", "")
	// pcap_cnt 8, 9, 10
	c.close()

	// 2 post (11-19): a POST with a %-encoded path (%55 is "U": http.uri has PLANTUenc02,
	// http.uri.raw PLANT%55enc02), strings for the legacy http_uri and uricontent forms, a
	// Host with a port, and a Content-Length body; the response ACKs the request.
	c = g.open(2, "post")
	body := "field=PLANTreqbody02&other=1"
	// pcap_cnt 14
	c.client("PA", "POST /PLANT%55enc02/submit?x=PLANTlegacy02&y=PLANTuric02 HTTP/1.1\r\n"+
		"Host: plant-host02.example:8080\r\n"+
		"User-Agent: meerkat-e2e\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\n"+
		"Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	// pcap_cnt 15: the request is parsed
	c.server("PA", response("200 OK", "", "ok"))
	// pcap_cnt 16: the response is parsed
	c.client("A", "")
	// pcap_cnt 17, 18, 19
	c.close()

	// 3 split (20-34): the request in three segments, each ACKed before the next, cutting
	// PLANTsplituri03 and PLANTsplitua03 in two; a chunked response in two segments, the
	// client ACKing the first before the second comes, PLANTchunked03 cut across chunks and
	// segments.
	c = g.open(3, "split")
	// pcap_cnt 23
	c.client("PA", "GET /PLANTspli")
	// pcap_cnt 24: a partial request line
	c.server("A", "")
	// pcap_cnt 25
	c.client("PA", "turi03/a HTTP/1.1\r\nHost: split.example\r\nUser-Agent: PLANTspl")
	// pcap_cnt 26: the request line, Host, part of User-Agent
	c.server("A", "")
	// pcap_cnt 27
	c.client("PA", "itua03\r\nAccept: */*\r\n\r\n")
	// pcap_cnt 28: the rest of the request is parsed
	c.server("PA", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"7\r\nPLANTch\r\n")
	// pcap_cnt 29: the response headers and the first chunk are parsed
	c.client("A", "")
	// pcap_cnt 30
	c.server("PA", "7\r\nunked03\r\n0\r\n\r\n")
	// pcap_cnt 31: the response is complete
	c.client("A", "")
	// pcap_cnt 32, 33, 34
	c.close()

	// 4 gzip (35-43): a response body sent with Content-Encoding: gzip; the planted string is
	// only in the decompressed body.
	c = g.open(4, "gzip")
	// pcap_cnt 38
	c.client("PA", "GET /gz/data.txt HTTP/1.1\r\nHost: gzip.example\r\nUser-Agent: meerkat-e2e\r\nAccept-Encoding: gzip\r\n\r\n")
	// pcap_cnt 39
	c.server("PA", response("200 OK", "Content-Type: text/plain\r\nContent-Encoding: gzip\r\n", string(gzipBody)))
	// pcap_cnt 40
	c.client("A", "")
	// pcap_cnt 41, 42, 43
	c.close()

	// 5 pipeline (44-52): three requests in one segment, three responses in one segment
	// (tx_id 0, 1, 2); the second body and the third status are planted.
	c = g.open(5, "pipeline")
	req := func(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: pipe.example\r\n\r\n" }
	// pcap_cnt 47
	c.client("PA", req("/PLANTpipe05-a")+req("/PLANTpipe05-b")+req("/PLANTpipe05-c"))
	// pcap_cnt 48
	c.server("PA", response("200 OK", "", "first")+response("200 OK", "", "PLANTpiperesp05-b")+
		response("203 Non-Authoritative Information", "", "third"))
	// pcap_cnt 49
	c.client("A", "")
	// pcap_cnt 50, 51, 52
	c.close()

	// 6 decoy (53-62): every planted string again, each where the rules looking for it must
	// not: response-body strings in the request's URI and body (a PUT, so file.data, which
	// reads request files too, is not fooled: PLANTbody01 and PLANTgzip04 stay out of it),
	// the User-Agent string in a custom header and the Cookie, the Cookie string in the
	// request body (http.header leaves Cookie out but sees every other header), request-side
	// strings in response headers and the response body, the planted status code in the
	// reason phrase, the POST method in the URI. Every rule's content is somewhere in this
	// connection (the end-to-end test checks it).
	c = g.open(6, "decoy")
	put := "PLANTchunked03 PLANTpiperesp05-b PLANTcookie01"
	// pcap_cnt 56
	c.client("PA", "PUT /decoy/PLANTbody01/PLANTgzip04?PLANThdr01=203&m=POST HTTP/1.1\r\n"+
		"Host: decoy.example\r\n"+
		"User-Agent: decoy-agent plant-host01.example PLANTuri01\r\n"+
		"X-Decoy: PLANTua01 PLANTsplitua03 PLANTreqbody02\r\n"+
		"Cookie: c=PLANTquery01 PLANTua01\r\n"+
		"Content-Length: "+strconv.Itoa(len(put))+"\r\n\r\n"+put)
	// pcap_cnt 57
	c.server("A", "")
	// pcap_cnt 58
	c.server("PA", response("200 Fine 203", "Content-Type: text/plain\r\nSet-Cookie: s=PLANTuri01\r\nX-Resp: PLANTreqbody02 PLANTsplituri03\r\n",
		"PLANTreqbody02 PLANTuri01 ?q=PLANTquery01 PLANTua01 PLANTsplitua03 /PLANTUenc02/ /PLANT%55enc02/ PLANTlegacy02 "+
			"PLANTuric02 /PLANTpipe05-a PLANTcookie01 plant-host01.example POST\r\nX-Plant: PLANThdr01\r\n"))
	// pcap_cnt 59
	c.client("A", "")
	// pcap_cnt 60, 61, 62
	c.close()
}
