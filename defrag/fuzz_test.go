package defrag

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
)

// FuzzDefrag feeds a sequence of fragments described by the input and checks the result
// against a simple byte-by-byte model of the BSD policy.
//
// Input: one flags byte (bit 0: IPv6, bit 1: IPv6 hop-by-hop and destination options
// headers before the fragment header), then records of four bytes and data:
// ctrl, offset high, offset low, n, then n data bytes (fewer when the input ends).
// ctrl bit 0: More Fragments; bits 1-2: identification (0..3); bit 3: advance the clock past
// the timeout and call Expire before this fragment. The offset is rounded down to 8.
func FuzzDefrag(f *testing.F) {
	for _, s := range defragSeeds() {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		v6, ext := in[0]&1 != 0, in[0]&2 != 0
		in = in[1:]
		fd := newFeeder(DefaultConfig())
		m := newModel()
		now := t0
		unfrag := 20
		if v6 {
			unfrag = 40
			if ext {
				unfrag = 56
			}
		}
		for len(in) >= 4 {
			ctrl, off, n := in[0], int(in[1])<<8|int(in[2])&^7, int(in[3])
			in = in[4:]
			n = min(n, len(in))
			data := in[:n]
			in = in[n:]
			more, id := ctrl&1 != 0, int(ctrl>>1&3)
			if ctrl&8 != 0 {
				now = now.Add(2 * time.Minute)
				fd.r.Expire(now)
				m.clear()
			}
			var frame []byte
			if v6 {
				frame = ip6Frag(uint32(id), 200, ext, off, more, data)
			} else {
				frame = ip4Frag(uint16(id), 200, off, more, data)
			}
			dg, done := fd.add(frame, now)
			if fd.r.Counters.MaxFragsReached > 0 {
				return // past the per-datagram fragment limit the model no longer applies
			}
			if off == 0 && !more {
				if done || fd.p.IsFragment {
					t.Fatalf("a whole datagram was treated as a fragment")
				}
				continue
			}
			want, wantDone, wantTooLarge := m.add(id, off, data, more, unfrag, v6)
			tooLarge := fd.p.Events.Has(decode.EventIPv4FragPktTooLarge) || fd.p.Events.Has(decode.EventIPv6FragPktTooLarge)
			if tooLarge != wantTooLarge {
				t.Fatalf("too large: %v, model %v", tooLarge, wantTooLarge)
			}
			if done != wantDone {
				t.Fatalf("id %d off %d n %d more %v: done %v, model %v", id, off, n, more, done, wantDone)
			}
			if done {
				if len(dg) != unfrag+len(want) || !bytes.Equal(dg[unfrag:], want) {
					t.Fatalf("datagram payload differs from the model (%d vs %d bytes)", len(dg)-unfrag, len(want))
				}
				var d decode.Decoder
				var p decode.Packet
				d.Decode(&p, decode.LinkTypeRaw, dg)
				if p.IsFragment || p.IPLen != len(dg) || p.Invalid || (v6 && p.IPv6FragHdr) || p.IPProto != 200 {
					t.Fatalf("datagram does not decode whole: frag %v len %d/%d invalid %v", p.IsFragment, p.IPLen, len(dg), p.Invalid)
				}
			}
			if fd.r.MemUse() > fd.r.cfg.Memcap || fd.r.Trackers() > 4 {
				t.Fatalf("limits: mem %d trackers %d", fd.r.MemUse(), fd.r.Trackers())
			}
		}
		fd.r.Expire(now.Add(time.Hour))
		if fd.r.Trackers() != 0 || fd.r.MemUse() != 0 || fd.r.frags != 0 || fd.r.oldest != nil || fd.r.newest != nil {
			t.Fatalf("state left after expiry: trackers %d mem %d frags %d", fd.r.Trackers(), fd.r.MemUse(), fd.r.frags)
		}
	})
}

// model is the reference reassembler: per identification, the fragments in arrival order.
type model struct {
	dgs map[int][]mfrag
}

type mfrag struct {
	off  int
	data []byte
	more bool
}

func newModel() *model { return &model{dgs: map[int][]mfrag{}} }

func (m *model) clear() { clear(m.dgs) }

// add returns the datagram payload when the fragment completes it.
func (m *model) add(id, off int, data []byte, more bool, unfrag int, v6 bool) ([]byte, bool, bool) {
	limit := 65535 - unfrag
	if v6 {
		limit = 65535 - (unfrag - 40)
	}
	if off+len(data) > limit {
		delete(m.dgs, id)
		return nil, false, true
	}
	fs := append(m.dgs[id], mfrag{off, append([]byte(nil), data...), more})
	m.dgs[id] = fs
	end, last := 0, false
	for _, f := range fs {
		end = max(end, f.off+len(f.data))
		last = last || !f.more
	}
	if !last {
		return nil, false, false
	}
	// Complete when the sorted fragments leave no hole.
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b mfrag) int { return a.off - b.off })
	cover := 0
	for _, f := range sorted {
		if f.off > cover {
			return nil, false, false
		}
		cover = max(cover, f.off+len(f.data))
	}
	// Every byte to the fragment with the lowest offset, then the earliest.
	out := make([]byte, end)
	owner := make([]int, end)
	for i := range owner {
		owner[i] = -1
	}
	for i, f := range fs {
		for j := range f.data {
			b := f.off + j
			if o := owner[b]; o < 0 || fs[o].off > f.off {
				owner[b] = i
				out[b] = f.data[j]
			}
		}
	}
	delete(m.dgs, id)
	return out, true, false
}

type defragSeed struct {
	name string
	data []byte
}

// rec encodes one FuzzDefrag record.
func rec(more bool, id int, advance bool, off int, data []byte) []byte {
	ctrl := byte(id&3) << 1
	if more {
		ctrl |= 1
	}
	if advance {
		ctrl |= 8
	}
	return append([]byte{ctrl, byte(off >> 8), byte(off), byte(len(data))}, data...)
}

func defragSeeds() []defragSeed {
	a := bytes.Repeat([]byte("a"), 64)
	b := bytes.Repeat([]byte("b"), 64)
	c := bytes.Repeat([]byte("c"), 40)
	cat := func(flags byte, recs ...[]byte) []byte {
		out := []byte{flags}
		for _, r := range recs {
			out = append(out, r...)
		}
		return out
	}
	return []defragSeed{
		{"ipv4-in-order", cat(0, rec(true, 0, false, 0, a), rec(true, 0, false, 64, b), rec(false, 0, false, 128, c))},
		{"ipv4-reverse-order", cat(0, rec(false, 0, false, 128, c), rec(true, 0, false, 64, b), rec(true, 0, false, 0, a))},
		{"ipv4-duplicate", cat(0, rec(true, 1, false, 0, a), rec(true, 1, false, 0, a), rec(false, 1, false, 64, b))},
		{"ipv4-overlap-bsd", cat(0, rec(true, 0, false, 16, a), rec(true, 0, false, 0, b), rec(false, 0, false, 72, c))},
		{"ipv4-missing-piece", cat(0, rec(true, 0, false, 0, a), rec(false, 0, false, 128, c))},
		{"ipv4-interleaved-ids", cat(0, rec(true, 0, false, 0, a), rec(true, 1, false, 0, b), rec(false, 1, false, 64, c), rec(false, 0, false, 64, c))},
		{"ipv4-timeout-between", cat(0, rec(true, 0, false, 0, a), rec(false, 0, true, 64, b))},
		{"ipv4-too-large", cat(0, rec(true, 0, false, 0, a), rec(false, 0, false, 65528, b))},
		{"ipv4-last-before-end", cat(0, rec(false, 2, false, 8, a[:8]), rec(true, 2, false, 0, a), rec(true, 2, false, 0, a[:8]))},
		{"ipv6-in-order", cat(1, rec(true, 0, false, 0, a), rec(false, 0, false, 64, b))},
		{"ipv6-ext-headers", cat(3, rec(false, 3, false, 64, b), rec(true, 3, false, 0, a))},
		{"ipv6-too-large", cat(3, rec(true, 0, false, 0, a), rec(true, 0, false, 65520, b))},
		{"ipv6-zero-length-fragments", cat(1, rec(true, 0, false, 0, nil), rec(true, 0, false, 8, nil), rec(false, 0, false, 0, a))},
	}
}

// TestWriteDefragSeeds rewrites testdata/fuzz/FuzzDefrag when MEERKAT_WRITE_SEEDS is set;
// otherwise it checks that every seed file is present.
func TestWriteDefragSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDefrag")
	for _, s := range defragSeeds() {
		path := filepath.Join(dir, s.name)
		if os.Getenv("MEERKAT_WRITE_SEEDS") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s.data)), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("seed %s missing (run with MEERKAT_WRITE_SEEDS=1): %v", s.name, err)
		}
	}
}
