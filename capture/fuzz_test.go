package capture

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// FuzzOpenFile writes the input to a file and reads every frame from it. Any error is fine; a
// panic, an endless loop or unbounded memory is not. Seeds are in testdata/fuzz/FuzzOpenFile
// (a small pcap, pcapng, gzip'd pcap, old-version pcap and malformed headers); more are added
// here.
func FuzzOpenFile(f *testing.F) {
	pkts := genPkts(40, 3)
	for i := range pkts {
		pkts[i].data = pkts[i].data[:min(len(pkts[i].data), 24)]
		pkts[i].wire = len(pkts[i].data) + i
	}
	le := binary.LittleEndian
	f.Add(pcapBytes(binary.BigEndian, true, 65535, 276, pkts))
	f.Add(gz(ngWriterBytes(f, []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeRaw}, pkts)))
	f.Add(legacyPcapBytes(le, false, 2, 3, pkts, func(i int) bool { return i == 1 }))
	f.Add(ngBE(pkts, 16))

	dir := f.TempDir()
	var n int
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		if n%64 == 0 {
			runtime.ReadMemStats(&before)
		}
		s, err := OpenFile(path)
		if err != nil {
			return
		}
		defer s.Close()
		// Every record takes at least 8 bytes of the decompressed stream, and deflate expands
		// at most about 1032 times.
		limit := 200*len(data) + 100
		var fr Frame
		for i := 0; ; i++ {
			if i > limit {
				t.Fatalf("more than %d frames from %d bytes", limit, len(data))
			}
			err := s.Next(&fr)
			if err != nil {
				if errors.Is(err, os.ErrClosed) {
					t.Fatal(err)
				}
				if err != io.EOF && s.Next(&fr) != io.EOF {
					t.Fatalf("Next after %v is not io.EOF", err)
				}
				break
			}
			if len(fr.Data) != fr.CaptureLen || fr.CaptureLen > maxNgBlock || fr.CaptureLen > fr.WireLen ||
				fr.Cnt != uint64(i+1) {
				t.Fatalf("bad frame: len %d, CaptureLen %d, WireLen %d, Cnt %d",
					len(fr.Data), fr.CaptureLen, fr.WireLen, fr.Cnt)
			}
		}
		if n%64 == 0 {
			runtime.ReadMemStats(&after)
			if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
				t.Fatalf("%d MiB allocated for %d input bytes", a>>20, len(data))
			}
		}
	})
}
