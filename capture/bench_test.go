package capture

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// imixPkts makes n packets in the IMIX proportion 7:4:1 of 64, 576 and 1500 bytes.
func imixPkts(n int) []pkt {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]pkt, n)
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		size := 64
		switch r := rng.IntN(12); {
		case r >= 11:
			size = 1500
		case r >= 7:
			size = 576
		}
		d := make([]byte, size)
		binary.BigEndian.PutUint64(d, rng.Uint64())
		out[i] = pkt{data: d, ts: ts.Add(time.Duration(i) * time.Microsecond), wire: size}
	}
	return out
}

// benchNext reads an in-memory capture over and over, one packet per iteration; reopening at
// the end is not timed.
func benchNext(b *testing.B, file []byte) {
	var f Frame
	// open opens the capture and reads its first packet (which sizes the reader's buffers).
	open := func() *FileSource {
		s, err := newSource("bench", bytes.NewReader(file))
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Next(&f); err != nil {
			b.Fatal(err)
		}
		return s
	}
	s := open()
	var bytesRead int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := s.Next(&f)
		if err == io.EOF {
			b.StopTimer()
			s = open()
			b.StartTimer()
		} else if err != nil {
			b.Fatal(err)
		}
		bytesRead += int64(f.CaptureLen)
	}
	b.StopTimer()
	b.ReportMetric(float64(bytesRead)/float64(b.N), "B/pkt")
}

// BenchmarkNext reads a generated pcap of 10k packets from memory (ns/op is per packet).
func BenchmarkNext(b *testing.B) {
	benchNext(b, pcapgoBytes(b, false, layers.LinkTypeEthernet, imixPkts(10000)))
}

// BenchmarkNextPcapng is BenchmarkNext over pcapng.
func BenchmarkNextPcapng(b *testing.B) {
	benchNext(b, ngWriterBytes(b, []layers.LinkType{layers.LinkTypeEthernet}, imixPkts(10000)))
}

// BenchmarkNextGzip is BenchmarkNext over a gzip-compressed pcap.
func BenchmarkNextGzip(b *testing.B) {
	benchNext(b, gz(pcapgoBytes(b, false, layers.LinkTypeEthernet, imixPkts(10000))))
}
