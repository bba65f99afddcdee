package defrag

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"
	"github.com/meerkat-ids/meerkat/decode"
)

// readCapture calls fn for every record of a pcap or pcapng file.
func readCapture(path string, fn func(lt decode.LinkType, data []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	magic, err := br.Peek(4)
	if err != nil {
		return err
	}
	if string(magic) == "\x0a\x0d\x0d\x0a" {
		ng, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return err
		}
		for {
			data, _, err := ng.ReadPacketData()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			fn(decode.LinkType(ng.LinkType()), data)
		}
	}
	pr, err := pcapgo.NewReader(br)
	if err != nil {
		return err
	}
	for {
		data, _, err := pr.ReadPacketData()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return err
		}
		fn(decode.LinkType(pr.LinkType()), data)
	}
}

// TestCaptures reassembles the fragments of real captures: every reassembled datagram must
// decode completely, with a valid transport checksum.
func TestCaptures(t *testing.T) {
	for _, tc := range []struct {
		file    string
		v4, v6  uint64 // datagrams expected at least
		garbage bool   // the datagrams carry garbage: do not check them
	}{
		{file: "chrissanders-packets/ip_frag_source.pcapng", v4: 1},
		{file: "chrissanders-packets/ipv6_fragments.pcapng", v6: 1},
		{file: "ndpi-tests/dns_fragmented.pcap", v4: 1, v6: 1},
		{file: "ndpi-tests/ip_fragmented_garbage.pcap", v4: 4, garbage: true},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			path := filepath.Join("..", "..", "shared", "corpus", "pcaps", tc.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("capture %s not available: %v", path, err)
			}
			r := New(DefaultConfig())
			d := decode.Decoder{Checksums: decode.ChecksumAll}
			var p, p2 decode.Packet
			bad := 0
			err := readCapture(path, func(lt decode.LinkType, data []byte) {
				d.Decode(&p, lt, data)
				if !p.IsFragment {
					return
				}
				p.Timestamp = t0
				dg, done := r.Add(&p)
				for depth := 0; done && depth < 4; depth++ {
					d.Decode(&p2, decode.LinkTypeRaw, dg)
					if p2.IsFragment {
						p2.Timestamp = p.Timestamp
						dg, done = r.Add(&p2)
						continue
					}
					if !tc.garbage && (!p2.HasL4 || p2.L4ChecksumBad || p2.Invalid) {
						bad++
						t.Logf("reassembled datagram: proto %d L4 %v bad checksum %v events %v", p2.IPProto, p2.HasL4, p2.L4ChecksumBad, p2.Events)
					}
					break
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			c := &r.Counters
			t.Logf("ipv4 %d fragments %d datagrams, ipv6 %d fragments %d datagrams, %d left, %d overlaps",
				c.IPv4Fragments, c.IPv4Reassembled, c.IPv6Fragments, c.IPv6Reassembled, r.Trackers(), c.IPv4Overlap+c.IPv6Overlap)
			if c.IPv4Reassembled < tc.v4 || c.IPv6Reassembled < tc.v6 || c.IPv4Reassembled+c.IPv6Reassembled == 0 || bad > 0 {
				t.Errorf("reassembled %d ipv4, %d ipv6, %d bad", c.IPv4Reassembled, c.IPv6Reassembled, bad)
			}
		})
	}
}
