package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// A byte-array model of the segment store, written from the rules rather than from the
// implementation: segments as a plain sorted slice, bytes and presence in arrays.

const (
	modelLo   = -64 // lowest offset the fuzzer uses
	modelSize = 20000
)

type mseg struct{ start, end int64 }

type model struct {
	policy       Policy
	opt          InsertOptions
	depth        uint64
	depthReached bool
	base         int64
	end          int64
	segs         []mseg // ordered by (start, length)
	b            [modelSize]byte

	// Data regions (Suricata's streaming buffer regions): regs[0] is the main region, at the
	// base; bytes within gap of a region join it; at most maxRegions.
	regs       []mseg
	gap        int64
	maxRegions int
	maxSegs    int // segments held at most; an exact duplicate needs none
}

// regionInsert finds the regions that stored bytes [lo, hi) reach within the gap and merges
// them with it, or adds a region when none does and the limit allows; false: refused.
func (m *model) regionInsert(lo, hi int64) bool {
	if len(m.regs) == 0 {
		m.regs = []mseg{{m.base, m.base}}
	}
	var hit []int
	for i, g := range m.regs {
		if hi >= g.start-m.gap && g.end+m.gap >= lo {
			hit = append(hit, i)
		}
	}
	if len(hit) == 0 {
		if len(m.regs) >= m.maxRegions {
			return false
		}
		m.regs = append(m.regs, mseg{lo, hi})
		sort.Slice(m.regs, func(a, b int) bool { return m.regs[a].start < m.regs[b].start })
		return true
	}
	u := mseg{lo, hi}
	for _, i := range hit {
		u.start, u.end = min(u.start, m.regs[i].start), max(u.end, m.regs[i].end)
	}
	var out []mseg
	for i, g := range m.regs {
		switch {
		case i == hit[0]:
			out = append(out, u)
		case i > hit[0] && i <= hit[len(hit)-1]:
		default:
			out = append(out, g)
		}
	}
	m.regs = out
	return true
}

// regionRelease: the regions that start at or before the new base become the main region
// there, reaching as far as the farthest of them.
func (m *model) regionRelease(upTo int64) {
	if len(m.regs) == 0 {
		return
	}
	main := mseg{upTo, upTo}
	var rest []mseg
	for _, g := range m.regs {
		if g.start <= upTo {
			main.end = max(main.end, g.end)
		} else {
			rest = append(rest, g)
		}
	}
	m.regs = append([]mseg{main}, rest...)
}

// modelNewWins: the rules of suricata-stream-http.md §1.10, as written there.
func modelNewWins(p Policy, s, l mseg) bool {
	before, same, after := s.start < l.start, s.start == l.start, s.start > l.start
	switch p {
	case PolicyLast:
		return true
	case PolicyBSD, PolicyWindows, PolicyWindows2k3, PolicyMacOS, PolicyIRIX, PolicyHPUX10:
		return before
	case PolicyLinux:
		return before || (same && s.end > l.end)
	case PolicyOldLinux:
		return before || (same && s.end >= l.end)
	case PolicySolaris, PolicyHPUX11:
		return (before && s.end >= l.end) || (same && s.end >= l.end) || (after && s.end > l.end)
	}
	return false // first, vista
}

func (m *model) covered(lo, hi int64) []bool {
	c := make([]bool, hi-lo)
	for _, s := range m.segs {
		for o := max(s.start, lo, m.base); o < min(s.end, hi); o++ {
			c[o-lo] = true
		}
	}
	return c
}

func (m *model) insert(start int64, data []byte) InsertResult {
	var res InsertResult
	end := start + int64(len(data))
	if end <= m.base {
		res.BeforeBase = true
		return res
	}
	if m.depth != 0 {
		switch {
		case m.depthReached:
			res.PastDepth = true
			return res
		case end > int64(m.depth):
			m.depthReached, res.DepthReached, res.PastDepth = true, true, true
			return res
		case start < -1 || start+1 >= int64(m.depth):
			res.PastDepth = true
			return res
		}
	}
	s := mseg{start, end}
	lo := max(start, m.base)
	cov := m.covered(lo, end)
	for _, c := range cov {
		if !c {
			res.Stored = true
		}
	}
	// position and neighbours
	i := 0
	for i < len(m.segs) && (m.segs[i].start < start || (m.segs[i].start == start && m.segs[i].end <= end)) {
		i++
	}
	var consult []mseg
	if !(i > 0 && m.segs[i-1] == s) && len(m.segs) >= m.maxSegs {
		return InsertResult{NoSegment: true}
	}
	if i > 0 && m.segs[i-1] == s { // duplicate: handled at the stored record
		res.Overlap = true
		i--
		consult = append(consult, m.segs[i])
	} else {
		m.segs = append(m.segs, mseg{})
		copy(m.segs[i+1:], m.segs[i:])
		m.segs[i] = s
		if i+1 < len(m.segs) && (m.segs[i+1].start == start || end > m.segs[i+1].start) {
			res.Overlap = true
		}
		if i > 0 && (m.segs[i-1].start == start || m.segs[i-1].end > start) {
			res.Overlap = true
		}
	}
	if !m.regionInsert(lo, end) {
		if len(consult) == 0 { // not a duplicate: take the segment out again
			m.segs = append(m.segs[:i], m.segs[i+1:]...)
		}
		return InsertResult{Overlap: res.Overlap, InsertLimit: true}
	}
	if res.Overlap {
		for j := i - 1; j >= 0; j-- {
			if m.segs[j].end <= m.base {
				continue
			}
			if m.segs[j].end <= start {
				break
			}
			consult = append(consult, m.segs[j])
		}
		for j := i + 1; j < len(m.segs) && end > m.segs[j].start; j++ {
			consult = append(consult, m.segs[j])
		}
	}
	out := bytes.Clone(data)
	for _, l := range consult {
		for o := max(start, l.start, m.base); o < min(end, l.end); o++ {
			old := m.b[o-modelLo]
			if old != data[o-start] && (m.opt.CheckOverlapDiff || m.opt.Inline) {
				res.OverlapDiff = true
			}
			if m.opt.Inline {
				if data[o-start] != old {
					res.Rewritten = true
					data[o-start] = old
				}
				out[o-start] = old
			} else if !modelNewWins(m.policy, s, l) {
				out[o-start] = old
			}
		}
	}
	for o := lo; o < end; o++ {
		m.b[o-modelLo] = out[o-start]
	}
	m.end = max(m.end, end)
	return res
}

func (m *model) release(upTo int64) {
	if upTo <= m.base {
		return
	}
	m.base = upTo
	m.regionRelease(upTo)
	kept := m.segs[:0]
	for _, s := range m.segs {
		if s.end > upTo {
			kept = append(kept, s)
		}
	}
	m.segs = kept
}

// nextBlock is NextBlock over the model's coverage.
func (m *model) nextBlock(from int64) (s, e int64, ok bool) {
	hi := int64(modelLo + modelSize)
	from = max(from, m.base, 0)
	if from >= hi {
		return 0, 0, false
	}
	cov := m.covered(from, hi)
	i := 0
	for i < len(cov) && !cov[i] {
		i++
	}
	if i == len(cov) {
		return 0, 0, false
	}
	j := i
	for j < len(cov) && cov[j] {
		j++
	}
	return from + int64(i), from + int64(j), true
}

// check compares r with the model over every offset the fuzzer can reach.
func (m *model) check(t *testing.T, r *Reassembly) {
	t.Helper()
	if r.Segments() != len(m.segs) {
		t.Fatalf("%d segments, model %d", r.Segments(), len(m.segs))
	}
	if int64(r.End()) != max(m.end, 0) {
		t.Fatalf("End %d, model %d", r.End(), m.end)
	}
	// the main region may be made present before anything is stored
	rregs, mregs := r.regs, m.regs
	if len(rregs) == 0 {
		rregs = []region{{r.baseOff, r.baseOff}}
	}
	if len(mregs) == 0 {
		mregs = []mseg{{m.base, m.base}}
	}
	if len(rregs) != len(mregs) {
		t.Fatalf("regions %v, model %v", rregs, mregs)
	}
	for i, g := range mregs {
		if rregs[i].lo != g.start || rregs[i].hi != g.end {
			t.Fatalf("regions %v, model %v", rregs, mregs)
		}
	}
	hi := int64(modelLo + modelSize)
	cov := m.covered(0, hi)
	var scratch []byte // kept apart from Bytes' results, which may be page memory
	for off := int64(0); off < hi; {
		s, e, ok := r.NextBlock(uint64(off))
		if !ok {
			for o := off; o < hi; o++ {
				if cov[o] {
					t.Fatalf("offset %d present in the model, NextBlock(%d) finds nothing", o, off)
				}
			}
			return
		}
		for o := off; o < int64(s); o++ {
			if cov[o] {
				t.Fatalf("offset %d present in the model, NextBlock(%d) starts at %d", o, off, s)
			}
		}
		if int64(e) > hi || !cov[s] || (int64(e) < hi && cov[e]) {
			t.Fatalf("block [%d, %d) disagrees with the model", s, e)
		}
		if c := r.Contiguous(s); c != e {
			t.Fatalf("Contiguous(%d) = %d, block ends at %d", s, c, e)
		}
		got := r.Bytes(s, e, scratch[:0])
		if len(got) > len(scratch) && int64(e-s) > PageSize {
			scratch = got
		}
		for o := s; o < e; o++ {
			if !cov[o] {
				t.Fatalf("offset %d in block [%d, %d) missing in the model", o, s, e)
			}
			if got[o-s] != m.b[int64(o)-modelLo] {
				t.Fatalf("offset %d: byte %#x, model %#x", o, got[o-s], m.b[int64(o)-modelLo])
			}
		}
		off = int64(e)
	}
}

// FuzzReassembly drives a Reassembly with segments and releases decoded from the input and
// compares it with the model after every step. Input: a header (policy, options, memcap,
// depth, base sequence number, and with option bit 32 a small region gap, a limit of 1 to 4
// regions and of 3 to 18 segments), then 5-byte operations.
func FuzzReassembly(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(fuzzReassembly)
}

func fuzzReassembly(t *testing.T, in []byte) {
	if len(in) < 8 {
		return
	}
	policy := Policy(in[0] % uint8(len(policyNames)))
	opt := InsertOptions{Policy: policy, CheckOverlapDiff: in[1]&1 != 0, Inline: in[1]&2 != 0}
	var memcap uint64
	if in[1]&4 != 0 {
		memcap = uint64(in[2]) * 64 // tight: a few records, maybe a page or two
	}
	var depth uint64
	if in[1]&8 != 0 {
		depth = uint64(binary.LittleEndian.Uint16(in[2:4])) % 12000
	}
	base := Seq(binary.LittleEndian.Uint32(in[4:8]))
	if in[1]&16 != 0 {
		base = 0xffffffff - base%8192 // wrap inside the stream
	}
	pool := NewPool(memcap, int(in[3]%8))
	var r Reassembly
	r.Init(base, depth)
	m := &model{policy: policy, opt: opt, depth: depth, gap: RegionGap, maxRegions: DefaultMaxRegions,
		maxSegs: DefaultMaxSegments}
	if in[1]&32 != 0 {
		m.gap, m.maxRegions, m.maxSegs = 200, 1+int(in[1]>>6), 3+int(in[3]>>4)
		r.regionGap = m.gap
		r.SetMaxRegions(m.maxRegions)
		r.SetMaxSegments(m.maxSegs)
	}
	for ops := in[8:]; len(ops) >= 5; ops = ops[5:] {
		off := int64(binary.LittleEndian.Uint16(ops[0:2]))%(modelSize-2*PageSize) + modelLo
		n := int(ops[2]&63) + 1
		if ops[2]&64 != 0 {
			n *= 97 // multi-page segments
		}
		if ops[3]&0xf0 == 0xf0 {
			// release up to a point (the store's own offsets are >= 0)
			up := max(off, 0)
			r.Release(pool, uint64(up))
			m.release(up)
			m.check(t, &r)
			continue
		}
		data := make([]byte, n)
		for i := range data {
			data[i] = ops[4] + byte(i*int(ops[3]|1)) // content varies with the op
			if ops[3]&8 != 0 {
				data[i] = ops[4] // uniform, so retransmissions often agree
			}
		}
		mdata := bytes.Clone(data)
		before := pool.InUse()
		// A consumer's query before and after the insert, so that the block NextBlock
		// remembers is carried across it.
		qf := r.Base()
		if ops[4]&1 != 0 {
			qf = uint64(max(off-int64(ops[4]&63), 0))
		}
		r.NextBlock(qf)
		res := r.Insert(pool, base+Seq(uint32(off)), data, opt)
		if memcap != 0 && pool.InUse() > memcap {
			t.Fatalf("InUse %d over memcap %d", pool.InUse(), memcap)
		}
		if res.NoSegment || res.Memcap || res.InsertLimit {
			if pool.InUse() != before || !bytes.Equal(data, mdata) || res.Stored {
				t.Fatalf("failure changed state: %+v", res)
			}
		}
		if (res.NoSegment || res.Memcap) && memcap != 0 {
			// the pool's memcap is not modelled (a NoSegment may also be MaxSegments')
			m.check(t, &r)
			continue
		}
		want := m.insert(off, mdata)
		if res != want {
			t.Fatalf("insert [%d, %d): got %+v, model %+v", off, off+int64(n), res, want)
		}
		gs, ge, gok := r.NextBlock(qf)
		if ws, we, wok := m.nextBlock(int64(qf)); gok != wok || (wok && (int64(gs) != ws || int64(ge) != we)) {
			t.Fatalf("after insert [%d, %d), NextBlock(%d) = %d %d %v, model %d %d %v", off, off+int64(n), qf, gs, ge, gok, ws, we, wok)
		}
		if !bytes.Equal(data, mdata) {
			t.Fatalf("caller's data %x, model %x", data, mdata)
		}
		m.check(t, &r)
	}
	r.Free(pool)
	if pool.InUse() != 0 {
		t.Fatalf("InUse %d after Free", pool.InUse())
	}
}

// fuzzSeeds are the checked-in seeds (testdata/fuzz/FuzzReassembly, written by
// TestWriteFuzzSeeds): the Suricata overlap scenarios for every policy, inline and
// overlap-diff variants, a tight memcap, a depth, and a base just before the wrap.
func fuzzSeeds() map[string][]byte {
	op := func(off int, n, flags, fill byte) []byte {
		u := uint16(off - modelLo)
		return []byte{byte(u), byte(u >> 8), n, flags, fill}
	}
	scenario := func(hdr []byte) []byte {
		s := append([]byte{}, hdr...)
		// OverlapBSD's shape: stored AAA, BB, CCC, D, EE...; then JJJJ, KKK, LLL, MMM over them.
		for _, o := range [][2]int{{1, 2}, {5, 1}, {7, 2}, {11, 0}, {14, 1}, {16, 2}, {19, 1}, {21, 1}, {23, 0},
			{2, 3}, {7, 2}, {10, 2}, {13, 2}, {17, 0}, {20, 0}, {21, 0}, {23, 1}, {0, 0}} {
			s = append(s, op(o[0], byte(o[1]), 0x08, byte('A'+len(s)%26))...)
		}
		s = append(s, op(0, 40, 0x08, 'x')...)         // covers all
		s = append(s, op(4000, 0x40|50, 0x03, 'p')...) // across a page boundary
		s = append(s, op(12, 0, 0xf0, 0)...)           // release
		s = append(s, op(10, 5, 0x08, 'q')...)         // partly before the base
		return s
	}
	seeds := map[string][]byte{}
	for p := range policyNames {
		seeds["policy-"+policyNames[p]] = scenario([]byte{byte(p), 0, 0, 0, 1, 0, 0, 0})
	}
	seeds["inline"] = scenario([]byte{0, 2, 0, 0, 1, 0, 0, 0})
	seeds["overlap-diff-linux"] = scenario([]byte{3, 1, 0, 0, 1, 0, 0, 0})
	seeds["memcap"] = scenario([]byte{0, 4, 80, 2, 1, 0, 0, 0})
	seeds["depth"] = scenario([]byte{5, 8, 20, 0, 1, 0, 0, 0})
	seeds["wrap-solaris"] = scenario([]byte{5, 16 | 1, 0, 0, 10, 0, 0, 0})
	seeds["max-segments"] = scenario([]byte{3, 32, 0, 0x10, 1, 0, 0, 0}) // 4 segments, 1 region
	regions := scenario([]byte{2, 32 | 128, 0, 0xf0, 1, 0, 0, 0})        // gap 200, 3 regions, 18 segments
	for _, o := range []int{1000, 3000, 5000, 7000, 2000, 3100, 5000, 9000, 8800} {
		regions = append(regions, op(o, 9, 0x08, 'r')...)
	}
	regions = append(regions, op(3050, 0, 0xf0, 0)...) // release into a region
	for _, o := range []int{7000, 9000, 12000, 15000} {
		regions = append(regions, op(o, 9, 0x08, 's')...)
	}
	seeds["regions"] = regions
	// One-byte segments under a long one, with the consumer stalled at a hole before it: more
	// than a checkpoint spacing of them, so that the coverage check goes by the checkpoints.
	under := []byte{0, 1, 0, 0, 1, 0, 0, 0}
	under = append(under, op(0, 0, 0x08, 'a')...)
	for o := 3; o < 3+2*80; o += 2 {
		under = append(under, op(o, 0, 0x08, 'b')...)
	}
	under = append(under, op(2, 0x40|2, 0x08, 'c')...) // [2, 293)
	for o := 3 + 2*80 - 1; o > 2; o -= 2 {
		under = append(under, op(o, 0, 0x08, 'd')...)
	}
	under = append(under, op(2, 0x40|63, 0x08, 'e')...) // a longer one at the same start
	for o := 3 + 2*80; o < 3+2*120; o += 2 {
		under = append(under, op(o, 0, 0x08, 'f')...)
	}
	seeds["under-long"] = under
	return seeds
}

// TestWriteFuzzSeeds checks that every seed is checked in under testdata/fuzz/FuzzReassembly
// (Go's corpus format); MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReassembly")
	seeds := fuzzSeeds()
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
