package http

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
)

// FuzzFrames runs FuzzConnection's records (bit 7 the direction, bits 0-6 a length, 0x7f a
// gap of 5 bytes) through the framework with HTTP/1 frames enabled: no panic, at most
// MaxFrames frames per direction, every frame within the bytes the direction has had
// (offsets and lengths of Frame as AppLayerFrameNewByAbsoluteOffset and the complete
// callbacks set them).
func FuzzFrames(f *testing.F) {
	for _, s := range fuzzSeeds("FuzzConnection") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		l, fl := frameLayer(t)
		var pend [2][]byte
		var total [2]uint64 // bytes handed plus gaps, per direction
		for len(in) > 0 {
			dir := applayer.Dir(in[0] >> 7)
			n := int(in[0] & 0x7f)
			in = in[1:]
			l.Begin(fl, dir)
			var r applayer.DataResult
			if n == 0x7f {
				r = l.Gap(fl, dir, dir, 5)
				total[dir] += 5
			} else {
				n = min(n, len(in))
				pend[dir] = append(pend[dir], in[:n]...)
				total[dir] += uint64(n)
				in = in[n:]
				r = l.Data(fl, dir, dir, pend[dir], 0, false)
				if r.Consumed < 0 || r.Consumed > len(pend[dir]) {
					t.Fatalf("consumed %d of %d", r.Consumed, len(pend[dir]))
				}
				pend[dir] = append(pend[dir][:0], pend[dir][r.Consumed:]...)
			}
			l.Ready(fl, dir)
			if fs := l.Frames(fl); fs != nil {
				for d := range 2 {
					if fs.Len(applayer.Dir(d)) > applayer.MaxFrames {
						t.Fatalf("%d frames", fs.Len(applayer.Dir(d)))
					}
					for i := range fs.Len(applayer.Dir(d)) {
						fr := fs.At(applayer.Dir(d), i)
						if fr.Offset > total[d] || fr.Len < -1 || fr.Len > int64(total[d]) {
							t.Fatalf("dir %d frame %+v beyond the %d bytes had", d, *fr, total[d])
						}
					}
					// Frames whose end is known go, as the pipeline drops them once inspected.
					fs.Remove(applayer.Dir(d), func(fr *applayer.Frame) bool { return fr.Len >= 0 })
				}
			}
			if r.Disable || r.Err != nil || r.Changing {
				break
			}
		}
		l.Release(fl)
	})
}

// TestWriteFrameFuzzSeeds keeps testdata/fuzz/FuzzFrames in step with FuzzConnection's seeds
// (MEERKAT_WRITE_SEEDS=1 writes them).
func TestWriteFrameFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzFrames")
	seeds := fuzzSeeds("FuzzConnection")
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seeds[name])
		if os.Getenv("MEERKAT_WRITE_SEEDS") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("seed %s missing or stale (run with MEERKAT_WRITE_SEEDS=1): %v", name, err)
		}
	}
}
