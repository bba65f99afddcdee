package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// dirAllocsPerFile reads the directory dir through a DirSource and returns the heap
// allocations per file made by Next (opening each file in turn and reading its records),
// the least of a few runs.
func dirAllocsPerFile(t *testing.T, dir string, files, records int) float64 {
	t.Helper()
	best := -1.0
	for range 3 {
		d, err := OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var f Frame
		n := 0
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for {
			err := d.Next(&f)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		runtime.ReadMemStats(&after)
		_ = d.Close()
		if n != records {
			t.Fatalf("%d records read, want %d", n, records)
		}
		if w := d.Warnings(); len(w) != 0 {
			t.Fatalf("warnings %q", w)
		}
		if per := float64(after.Mallocs-before.Mallocs) / float64(files); best < 0 || per < best {
			best = per
		}
	}
	return best
}

// TestDirSourceAllocsPerFile pins what a DirSource allocates to open each of many small
// captures and read it: the files share one FileSource and its buffers, so a pcap file costs
// what os.Open allocates, and a pcapng file what pcapgo's NgReader needs besides. A corpus of
// a thousand small files depends on it (heap allocations per packet of the replay).
func TestDirSourceAllocsPerFile(t *testing.T) {
	const files, per = 40, 3
	for _, tc := range []struct {
		kind  string
		file  func(i int) []byte
		limit float64
	}{
		{"pcap", func(i int) []byte { return pcapgoBytes(t, false, 1, genPkts(uint64(i), per)) }, 4},
		{"pcap-be-nanos", func(i int) []byte {
			return pcapBytes(binary.BigEndian, true, 65535, 1, genPkts(uint64(i), per))
		}, 4},
		{"pcap.gz", func(i int) []byte { return gz(pcapgoBytes(t, false, 1, genPkts(uint64(i), per))) }, 5},
		{"pcapng", func(i int) []byte {
			return ngWriterBytes(t, []layers.LinkType{layers.LinkTypeEthernet}, genPkts(uint64(i), per))
		}, 14},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := t.TempDir()
			for i := range files {
				writeFile(t, dir, fmt.Sprintf("%03d.cap", i), tc.file(i))
			}
			got := dirAllocsPerFile(t, dir, files, files*per)
			t.Logf("%s: %.2f allocations per file", tc.kind, got)
			if got > tc.limit {
				t.Errorf("%s: %.2f allocations per file, want at most %v", tc.kind, got, tc.limit)
			}
		})
	}
}
