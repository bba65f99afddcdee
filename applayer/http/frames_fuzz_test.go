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
	for _, s := range frameFuzzSeeds() {
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

// frameFuzzSeeds are FuzzFrames' seeds: pipelined requests and responses split at several
// points, with and without a gap in a body (SV eve-payload-07-http-gap's shape).
func frameFuzzSeeds() map[string][]byte {
	reqs := "GET /1 HTTP/1.0\r\nUser-Agent: Mozilla\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n" +
		"POST /3 HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nabcd"
	resps := "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello People" +
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n" +
		"HTTP/1.0 200 OK\r\n\r\nclose-delimited"
	seeds := map[string][]byte{}
	for i, split := range []int{1, 7, 40, 126} {
		var b []byte
		b = append(b, connRecord(0, reqs, split)...)
		if i%2 == 1 {
			b = append(b, 0x7f|0x80) // a gap to the client
		}
		b = append(b, connRecord(1, resps, split+3)...)
		seeds[fmt.Sprintf("frames-%d", i)] = b
	}
	return seeds
}

// TestWriteFrameFuzzSeeds keeps testdata/fuzz/FuzzFrames in step with frameFuzzSeeds
// (MEERKAT_WRITE_SEEDS=1 writes them).
func TestWriteFrameFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzFrames")
	seeds := frameFuzzSeeds()
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
