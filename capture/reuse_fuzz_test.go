package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// readFrames reads every frame of s, up to limit, and describes them and the errors met.
func readFrames(s *FileSource, limit int) []string {
	var out []string
	var fr Frame
	for i := 0; i <= limit; i++ {
		err := s.Next(&fr)
		if err == io.EOF {
			return out
		}
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue // the next call says io.EOF
		}
		out = append(out, fmt.Sprintf("%x %v %d %d %d %d", fr.Data, fr.Timestamp, fr.CaptureLen, fr.WireLen, fr.LinkType, fr.Cnt))
	}
	return append(out, "limit")
}

// FuzzReuseSame reads the input as a capture twice, once by a FileSource of its own and once
// by one built in a reuse shared with every earlier input (as a DirSource's files share it),
// and wants the same frames and errors. A pcap 2.4 input is read by pcapgo's Reader too, which
// pcapReader must match record for record.
func FuzzReuseSame(f *testing.F) {
	pkts := genPkts(41, 3)
	for i := range pkts {
		pkts[i].data = pkts[i].data[:min(len(pkts[i].data), 24)]
		pkts[i].wire = len(pkts[i].data) + i
	}
	f.Add(pcapBytes(binary.BigEndian, true, 65535, 276, pkts))
	f.Add(pcapBytes(binary.LittleEndian, false, 8, 1, pkts))
	f.Add(gz(pcapBytes(binary.LittleEndian, false, 65535, 1, pkts)))
	f.Add(gz(ngWriterBytes(f, []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeRaw}, pkts)))
	f.Add(ngWriterBytes(f, []layers.LinkType{layers.LinkTypeEthernet}, pkts))
	f.Add(legacyPcapBytes(binary.LittleEndian, false, 2, 3, pkts, func(i int) bool { return i == 1 }))
	f.Add(ngBE(pkts, 16))

	re := new(reuse)
	f.Fuzz(func(t *testing.T, data []byte) {
		limit := 200*len(data) + 100
		var want, got []string
		if s, err := newSourceSize("in", bytes.NewReader(data), int64(len(data))); err != nil {
			want = []string{"open: " + err.Error()}
		} else {
			want = readFrames(s, limit)
			_ = s.Close()
		}
		if s, err := newSourceReuse("in", bytes.NewReader(data), int64(len(data)), re); err != nil {
			got = []string{"open: " + err.Error()}
		} else {
			got = readFrames(s, limit)
			_ = s.Close()
		}
		if !equalStrings(got, want) {
			t.Fatalf("with a shared reuse:\n%q\nalone:\n%q", got, want)
		}

		// pcapReader against pcapgo, on a plain pcap stream (no length fix-up here).
		if fm, _ := classify("in", data[:min(len(data), 4)], false); fm != formatPcap {
			return // pcapgo would decompress a gzip stream itself; capture does that first
		}
		gr, gerr := pcapgo.NewReader(bytes.NewReader(data))
		var pr pcapReader
		perr := pr.open(bytes.NewReader(data))
		if (gerr == nil) != (perr == nil) || gerr != nil && gerr.Error() != perr.Error() {
			t.Fatalf("open: pcapReader %v, pcapgo %v", perr, gerr)
		}
		if gerr != nil {
			return
		}
		if gr.Snaplen() > maxPcapRecord {
			gr.SetSnaplen(maxPcapRecord)
		}
		pr.snaplen = min(pr.snaplen, maxPcapRecord)
		if gr.LinkType() != layers.LinkType(pr.linkType) { // both uint16, as decode.LinkType
			t.Fatalf("link type %d, pcapgo %d", pr.linkType, gr.LinkType())
		}
		for i := 0; i <= limit; i++ {
			gd, gci, gerr := gr.ZeroCopyReadPacketData()
			pd, pts, pcl, pwl, perr := pr.next()
			if !errors.Is(perr, gerr) && (gerr == nil || perr == nil || gerr.Error() != perr.Error()) {
				t.Fatalf("record %d: pcapReader %v, pcapgo %v", i+1, perr, gerr)
			}
			if !bytes.Equal(gd, pd) || !gci.Timestamp.Equal(pts) || gci.Timestamp.Location() != pts.Location() ||
				gci.CaptureLength != pcl || gci.Length != pwl {
				t.Fatalf("record %d: pcapReader %x %v %d %d, pcapgo %x %v %d %d",
					i+1, pd, pts, pcl, pwl, gd, gci.Timestamp, gci.CaptureLength, gci.Length)
			}
			if gerr != nil {
				return
			}
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
