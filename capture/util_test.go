package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/meerkat-ids/meerkat/decode"
)

// pkt is one packet a test writes; iface is its pcapng interface.
type pkt struct {
	data  []byte
	ts    time.Time
	wire  int
	iface int
}

// genPkts makes n packets of varied sizes with nanosecond timestamps.
func genPkts(seed uint64, n int) []pkt {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sizes := []int{0, 1, 14, 60, 64, 576, 1500, 1514, 9000}
	out := make([]pkt, n)
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range out {
		sz := sizes[rng.IntN(len(sizes))]
		d := make([]byte, sz)
		for j := range d {
			d[j] = byte(rng.Uint32())
		}
		wire := sz
		if rng.IntN(4) == 0 {
			wire += rng.IntN(100) // cut by a snap length
		}
		out[i] = pkt{data: d, ts: base.Add(time.Duration(i)*time.Second + time.Duration(rng.IntN(1e9))), wire: wire}
	}
	return out
}

// pcapBytes crafts a pcap file by hand, in either byte order.
func pcapBytes(order binary.AppendByteOrder, nanos bool, snaplen, linkType uint32, pkts []pkt) []byte {
	var b []byte
	magic := uint32(0xa1b2c3d4)
	if nanos {
		magic = 0xa1b23c4d
	}
	b = order.AppendUint32(b, magic)
	b = order.AppendUint16(b, 2)
	b = order.AppendUint16(b, 4)
	b = order.AppendUint32(b, 0) // thiszone
	b = order.AppendUint32(b, 0) // sigfigs
	b = order.AppendUint32(b, snaplen)
	b = order.AppendUint32(b, linkType)
	for _, p := range pkts {
		frac := uint32(p.ts.Nanosecond())
		if !nanos {
			frac /= 1000
		}
		b = order.AppendUint32(b, uint32(p.ts.Unix()))
		b = order.AppendUint32(b, frac)
		b = order.AppendUint32(b, uint32(len(p.data)))
		b = order.AppendUint32(b, uint32(p.wire))
		b = append(b, p.data...)
	}
	return b
}

// pcapgoBytes writes a little-endian pcap file with pcapgo's writer.
func pcapgoBytes(t testing.TB, nanos bool, linkType layers.LinkType, pkts []pkt) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if nanos {
		w = pcapgo.NewWriterNanos(&buf)
	}
	if err := w.WriteFileHeader(65535, linkType); err != nil {
		t.Fatal(err)
	}
	for _, p := range pkts {
		ci := gopacket.CaptureInfo{Timestamp: p.ts, CaptureLength: len(p.data), Length: p.wire}
		if err := w.WritePacket(ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// ngWriterBytes writes a pcapng file (little-endian, nanosecond timestamps) with pcapgo's
// writer: one section with an interface per link type.
func ngWriterBytes(t testing.TB, linkTypes []layers.LinkType, pkts []pkt) []byte {
	t.Helper()
	var buf bytes.Buffer
	intf := pcapgo.DefaultNgInterface
	intf.LinkType = linkTypes[0]
	w, err := pcapgo.NewNgWriterInterface(&buf, intf, pcapgo.DefaultNgWriterOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, lt := range linkTypes[1:] {
		intf := pcapgo.DefaultNgInterface
		intf.LinkType = lt
		if _, err := w.AddInterface(intf); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pkts {
		ci := gopacket.CaptureInfo{Timestamp: p.ts, CaptureLength: len(p.data), Length: p.wire, InterfaceIndex: p.iface}
		if err := w.WritePacket(ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ngBuilder crafts pcapng blocks by hand, in either byte order. Interfaces have no options, so
// timestamps are in microseconds.
type ngBuilder struct {
	order interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}
	b []byte
}

func (n *ngBuilder) block(typ uint32, body []byte) *ngBuilder {
	pad := (4 - len(body)%4) % 4
	length := uint32(12 + len(body) + pad)
	n.b = n.order.AppendUint32(n.b, typ)
	n.b = n.order.AppendUint32(n.b, length)
	n.b = append(n.b, body...)
	n.b = append(n.b, make([]byte, pad)...)
	n.b = n.order.AppendUint32(n.b, length)
	return n
}

func (n *ngBuilder) shb() *ngBuilder {
	var body []byte
	body = n.order.AppendUint32(body, ngByteOrderMagic)
	body = n.order.AppendUint16(body, 1)
	body = n.order.AppendUint16(body, 0)
	body = n.order.AppendUint64(body, ^uint64(0))
	return n.block(ngBlockSHB, body)
}

func (n *ngBuilder) idb(linkType uint16, snaplen uint32) *ngBuilder {
	var body []byte
	body = n.order.AppendUint16(body, linkType)
	body = n.order.AppendUint16(body, 0)
	body = n.order.AppendUint32(body, snaplen)
	return n.block(ngBlockIDB, body)
}

func (n *ngBuilder) epb(p pkt) *ngBuilder {
	us := uint64(p.ts.UnixMicro())
	var body []byte
	body = n.order.AppendUint32(body, uint32(p.iface))
	body = n.order.AppendUint32(body, uint32(us>>32))
	body = n.order.AppendUint32(body, uint32(us))
	body = n.order.AppendUint32(body, uint32(len(p.data)))
	body = n.order.AppendUint32(body, uint32(p.wire))
	body = append(body, p.data...)
	return n.block(ngBlockEPB, body)
}

// gz compresses b.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// writeFile writes b to a new file in dir.
func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// frame is a copied Frame.
type frame struct {
	Data       []byte
	Timestamp  time.Time
	CaptureLen int
	WireLen    int
	LinkType   decode.LinkType
	Cnt        uint64
}

// readAll reads s to its end. It returns the frames and the error that ended the reading: nil
// for io.EOF. After an error it checks that the next call returns io.EOF.
func readAll(t testing.TB, s Source, limit int) ([]frame, error) {
	t.Helper()
	var out []frame
	var f Frame
	for i := 0; ; i++ {
		if i > limit {
			t.Fatalf("more than %d frames", limit)
		}
		err := s.Next(&f)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			if _, ok := s.(*FileSource); ok {
				if err2 := s.Next(&f); err2 != io.EOF {
					t.Fatalf("Next after error %v returned %v, want io.EOF", err, err2)
				}
			}
			return out, err
		}
		if len(f.Data) != f.CaptureLen {
			t.Fatalf("frame %d: len(Data) %d != CaptureLen %d", f.Cnt, len(f.Data), f.CaptureLen)
		}
		out = append(out, frame{bytes.Clone(f.Data), f.Timestamp, f.CaptureLen, f.WireLen, f.LinkType, f.Cnt})
	}
}

// expect builds the frames a reader should deliver for pkts.
func expect(pkts []pkt, linkTypes []decode.LinkType, res time.Duration, firstCnt uint64) []frame {
	out := make([]frame, len(pkts))
	for i, p := range pkts {
		out[i] = frame{
			Data:       p.data,
			Timestamp:  p.ts.Truncate(res),
			CaptureLen: len(p.data),
			WireLen:    p.wire,
			LinkType:   linkTypes[p.iface],
			Cnt:        firstCnt + uint64(i),
		}
	}
	return out
}

// compareFrames reports the first difference between got and want.
func compareFrames(t testing.TB, got, want []frame) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d frames, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		switch {
		case !bytes.Equal(g.Data, w.Data):
			t.Fatalf("frame %d: data differs (len %d vs %d)", i, len(g.Data), len(w.Data))
		case !g.Timestamp.Equal(w.Timestamp):
			t.Fatalf("frame %d: timestamp %v, want %v", i, g.Timestamp, w.Timestamp)
		case g.CaptureLen != w.CaptureLen || g.WireLen != w.WireLen:
			t.Fatalf("frame %d: lengths %d/%d, want %d/%d", i, g.CaptureLen, g.WireLen, w.CaptureLen, w.WireLen)
		case g.LinkType != w.LinkType:
			t.Fatalf("frame %d: link type %d, want %d", i, g.LinkType, w.LinkType)
		case g.Cnt != w.Cnt:
			t.Fatalf("frame %d: Cnt %d, want %d", i, g.Cnt, w.Cnt)
		}
	}
}

// isTruncated reports whether err says the file was cut short.
func isTruncated(err error) bool { return errors.Is(err, ErrTruncated) }
