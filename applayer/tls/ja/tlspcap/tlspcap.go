// Package tlspcap extracts the TLS handshake messages of the TCP connections of a capture file,
// for tests: the hellos and certificates of conformance and corpus pcaps are the table-test
// vectors of applayer/tls/ja and applayer/tls/cert. It shares no code with the TLS parser
// (applayer/tls): segments are ordered by sequence number (retransmitted and overlapping bytes
// dropped, a gap ends the direction), records are read from the start of each direction and
// handshake messages are reassembled across records until that direction's ChangeCipherSpec.
// After it, only a record holding exactly one ClientHello or ServerHello is still read (the
// plaintext hellos of TLS 1.3 after a HelloRetryRequest and a middlebox-compatibility CCS).
package tlspcap

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sort"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Handshake message types.
const (
	ClientHello = 1
	ServerHello = 2
	Certificate = 11
)

// Message is one handshake message.
type Message struct {
	Src, Dst netip.AddrPort // the direction the message was sent in
	Type     uint8
	Body     []byte // the message body, after the 4-byte header
	Frame    int    // 1-based number of the packet that completed the message
}

// Key is "src:port>dst:port" of the message's direction.
func (m *Message) Key() string { return m.Src.String() + ">" + m.Dst.String() }

type segment struct {
	seq     uint32
	payload []byte
	frame   int
	order   int
}

type direction struct {
	src, dst netip.AddrPort
	isn      uint32
	haveSYN  bool
	segs     []segment
}

// Read returns the handshake messages of every TCP direction of the capture at path, ordered by
// the frame that completed them.
func Read(path string) ([]Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	magic, err := br.Peek(4)
	if err != nil {
		return nil, err
	}
	type source interface {
		ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	}
	var src source
	var link layers.LinkType
	if binary.LittleEndian.Uint32(magic) == 0x0a0d0d0a {
		r, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return nil, err
		}
		src, link = r, r.LinkType()
	} else {
		r, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, err
		}
		src, link = r, r.LinkType()
	}
	dirs := map[string]*direction{}
	var order []*direction
	frame := 0
	for {
		data, _, err := src.ReadPacketData()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: frame %d: %w", path, frame+1, err)
		}
		frame++
		p := gopacket.NewPacket(data, link, gopacket.Default)
		var sa, da netip.Addr
		switch ip := p.NetworkLayer().(type) {
		case *layers.IPv4:
			sa, _ = netip.AddrFromSlice(ip.SrcIP.To4())
			da, _ = netip.AddrFromSlice(ip.DstIP.To4())
		case *layers.IPv6:
			sa, _ = netip.AddrFromSlice(ip.SrcIP)
			da, _ = netip.AddrFromSlice(ip.DstIP)
		default:
			continue
		}
		tcp, ok := p.TransportLayer().(*layers.TCP)
		if !ok {
			continue
		}
		s := netip.AddrPortFrom(sa, uint16(tcp.SrcPort))
		d := netip.AddrPortFrom(da, uint16(tcp.DstPort))
		k := s.String() + ">" + d.String()
		dir := dirs[k]
		if dir == nil {
			dir = &direction{src: s, dst: d, isn: tcp.Seq}
			dirs[k] = dir
			order = append(order, dir)
		}
		if tcp.SYN {
			dir.isn, dir.haveSYN = tcp.Seq+1, true
			dir.segs = dir.segs[:0]
			continue
		}
		if len(tcp.Payload) > 0 {
			pl := append([]byte(nil), tcp.Payload...)
			dir.segs = append(dir.segs, segment{seq: tcp.Seq, payload: pl, frame: frame, order: len(dir.segs)})
		}
	}
	var out []Message
	for _, dir := range order {
		out = append(out, dir.messages()...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Frame < out[j].Frame })
	return out, nil
}

// stream concatenates the direction's bytes in sequence order and records, for every byte, the
// frame that delivered it (as segment end offsets).
func (d *direction) stream() ([]byte, []int, []int) {
	base := d.isn
	if !d.haveSYN && len(d.segs) > 0 {
		base = d.segs[0].seq
		for _, s := range d.segs {
			if int32(s.seq-base) < 0 {
				base = s.seq
			}
		}
	}
	segs := append([]segment(nil), d.segs...)
	sort.SliceStable(segs, func(i, j int) bool {
		return int32(segs[i].seq-base) < int32(segs[j].seq-base)
	})
	var buf []byte
	var ends, frames []int
	for _, s := range segs {
		off := int(int32(s.seq - base))
		if off < 0 {
			continue
		}
		if off > len(buf) {
			break // gap
		}
		if end := off + len(s.payload); end > len(buf) {
			buf = append(buf, s.payload[len(buf)-off:]...)
			ends = append(ends, len(buf))
			frames = append(frames, s.frame)
		}
	}
	return buf, ends, frames
}

func (d *direction) messages() []Message {
	buf, ends, frames := d.stream()
	frameAt := func(off int) int { // frame delivering byte off
		i := sort.SearchInts(ends, off+1)
		if i < len(frames) {
			return frames[i]
		}
		return 0
	}
	var out []Message
	var hs []byte   // handshake bytes not yet a whole message
	var hsEnd []int // stream offset of each byte of hs (its last one is what matters)
	ccs := false
	for p := 0; len(buf)-p >= 5; {
		typ := buf[p]
		ver := binary.BigEndian.Uint16(buf[p+1:])
		n := int(binary.BigEndian.Uint16(buf[p+3:]))
		if typ < 20 || typ > 24 || ver>>8 != 3 || len(buf)-p-5 < n {
			break
		}
		rec := buf[p+5 : p+5+n]
		recStart := p + 5
		p += 5 + n
		switch typ {
		case 20:
			ccs = true
			hs, hsEnd = hs[:0], hsEnd[:0]
		case 22:
			if ccs {
				if len(rec) >= 4 && (rec[0] == ClientHello || rec[0] == ServerHello) && int(rec[1])<<16|int(rec[2])<<8|int(rec[3]) == len(rec)-4 {
					out = append(out, Message{Src: d.src, Dst: d.dst, Type: rec[0],
						Body: rec[4:], Frame: frameAt(recStart + len(rec) - 1)})
				}
				continue
			}
			for i := range rec {
				hs = append(hs, rec[i])
				hsEnd = append(hsEnd, recStart+i)
			}
			for len(hs) >= 4 {
				ml := int(hs[1])<<16 | int(hs[2])<<8 | int(hs[3])
				if len(hs) < 4+ml {
					break
				}
				out = append(out, Message{Src: d.src, Dst: d.dst, Type: hs[0],
					Body: append([]byte(nil), hs[4:4+ml]...), Frame: frameAt(hsEnd[4+ml-1])})
				hs, hsEnd = hs[4+ml:], hsEnd[4+ml:]
			}
		}
	}
	return out
}

// Certificates splits a TLS 1.0-1.2 Certificate message body into its DER certificates.
func Certificates(body []byte) [][]byte {
	if len(body) < 3 {
		return nil
	}
	l := int(body[0])<<16 | int(body[1])<<8 | int(body[2])
	b := body[3:]
	if l < len(b) {
		b = b[:l]
	}
	var out [][]byte
	for len(b) >= 3 {
		n := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		if len(b)-3 < n {
			break
		}
		out = append(out, b[3:3+n])
		b = b[3+n:]
	}
	return out
}

// Shared returns the path of sub inside the project's shared directory ($MEERKAT_SHARED, else
// shared/ beside the repository root seen from a package 3 or 4 levels deep, else /work/shared),
// or "" when it does not exist.
func Shared(sub string) string {
	var cands []string
	if d := os.Getenv("MEERKAT_SHARED"); d != "" {
		cands = append(cands, d)
	}
	cands = append(cands, "../../../../shared", "../../../../../shared", "/work/shared")
	for _, d := range cands {
		p := d + "/" + sub
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// ConformanceTest returns the directory of a suricata-verify test (tests or tests-next), or "".
func ConformanceTest(name string) string {
	for _, set := range []string{"tests-next", "tests"} {
		if p := Shared("conformance/" + set + "/" + name); p != "" {
			return p
		}
	}
	return ""
}
