package stream

// The segment store of one direction, after Suricata 8.0.6's src/stream-tcp-list.c (segment
// tree, overlap handling) and its streaming buffer (bytes by stream offset). Segment records
// come from a Pool and are kept in a list ordered by (start, length); the bytes live in
// fixed-size pages, also from the Pool, kept in a list ordered by page number, so that a
// far-ahead segment takes only the pages it touches. Records decide which bytes are present;
// a page's bytes outside every record are meaningless.
//
// A peer controls what is stored, so each direction is bounded: at most MaxRegions data
// regions (Suricata's stream.reassembly.max-regions; InsertLimit) and MaxSegments records
// (NoSegment). The list is walked from remembered places (the head, the tail, a finger at the
// last insert or walk, NextBlock's last block), so in-order data, descending segments,
// retransmissions of the oldest, newest or last data, and a consumer reading from its base
// cost O(1) per segment; a segment far from all of them is placed from checkpoints, records
// found by bisection that long walks leave behind them, so that its walk is short in
// amortized terms (where Suricata's segment tree is O(log n)). Each checkpoint also holds
// the furthest end of the records before it, so the coverage check (is every byte of the
// segment stored already?) does not walk back to a long record far behind the segment.
// Overlap resolution and the coverage check still walk the records after the segment that it
// overlaps, at most MaxSegments.
//
// Where this follows Suricata's source rather than suricata-stream-http.md: the segment that
// passes the depth is dropped whole, not truncated (checkDepth); overlaps are found through
// the ordered neighbours only and the backward walk stops early (Insert); inline mode always
// compares the overlapping bytes, as Suricata turns check-overlap-different-data on there
// (StreamTcpReassemblyConfig). Where it differs from the source, on purpose: the pages for a
// segment are taken before overlaps are resolved, so a memcap failure leaves an inline packet
// as it came (Suricata has rewritten it by then); and a segment wholly before the base is
// reported before a record is taken (Suricata takes one first when there is no depth).

// InsertOptions says how Insert resolves overlaps.
type InsertOptions struct {
	// Policy is the receiver's overlap policy (IDS mode).
	Policy Policy
	// CheckOverlapDiff compares overlapping bytes and reports OverlapDiff
	// (check-overlap-different-data).
	CheckOverlapDiff bool
	// Inline is stream.inline: stored (first) data always wins, and the overlapping bytes of
	// the caller's data slice are overwritten with the stored ones (the packet rewrite). The
	// bytes are always compared (OverlapDiff), whatever CheckOverlapDiff says.
	Inline bool
}

// InsertResult says what Insert did. Several flags may be set.
type InsertResult struct {
	Stored      bool // bytes not stored before were added
	Overlap     bool // the segment overlapped stored data (tcp.overlap)
	OverlapDiff bool // overlapping bytes differed (IDS: only with CheckOverlapDiff; inline: always checked)
	Rewritten   bool // inline: the caller's data was overwritten with stored bytes
	BeforeBase  bool // the segment lay wholly before the base (reassembly_segment_before_base_seq)
	// DepthReached: this insert reached the depth (reassembly_depth_reached). As in Suricata
	// 8.0.6 (StreamTcpReassembleCheckDepth) the segment whose end passes the depth is not
	// stored at all, and nothing is stored after it (PastDepth is set too).
	DepthReached bool
	PastDepth    bool // nothing stored because of the depth
	// NoSegment: no segment record could be had, under the pool's memcap or past the
	// direction's MaxSegments (reassembly_no_segment, as when Suricata's segment pool is
	// empty); nothing was stored.
	NoSegment bool
	Memcap    bool // no page could be had under the memcap (reassembly_insert_memcap)
	// InsertLimit: nothing was stored because the segment would have opened a data region
	// beyond the direction's MaxRegions (SetMaxRegions; Suricata's stream.reassembly.max-regions
	// and SC_ELIMIT). Suricata 8.0.6 raises reassembly_insert_limit only when the refused
	// segment overlapped stored data (DoHandleData); one that did not is dropped with a counter
	// and no event (StreamTcpReassembleInsertSegment). Here a segment that overlaps kept data
	// always lies in that data's region, so InsertLimit comes without Overlap, and following
	// Suricata the event is raised for Overlap && InsertLimit only, that is never.
	InsertLimit bool
}

// DefaultMaxRegions is Suricata's default stream.reassembly.max-regions.
const DefaultMaxRegions = 8

// RegionGap is the distance from a data region within which new data joins that region
// rather than opening another (Suricata's STREAMING_BUFFER_REGION_GAP_DEFAULT, 256 KiB).
const RegionGap = 262144

// region is one data region of a direction, after Suricata's StreamingBufferRegion: the
// range [lo, hi) of stream offsets that its stored bytes span. regs[0] is the main region,
// which starts at the base. Unlike Suricata's, a region's extent is that of its bytes, not
// of its memory (which Suricata rounds up to 2 KiB multiples), so data a little past
// RegionGap beyond a region may open a region here where Suricata's would have joined it.
type region struct{ lo, hi int64 }

// Reassembly is one direction's segment store. Bytes are addressed by stream offset: the
// number of bytes from the base, the sequence number of the direction's first data byte
// (ISN+1). Offsets are 64-bit: a base (sequence number, offset) pair, moved by Release,
// maps sequence numbers to offsets across wrap-around and past 4 GiB. The zero value is a
// store with base sequence number 0 and no depth; Init sets them. A Reassembly uses one
// Pool for all its calls, and is not to be copied once used (it holds slices it reuses).
type Reassembly struct {
	baseSeq Seq
	baseOff int64 // offset of baseSeq; bytes before it are released
	depth   uint64
	end     int64 // just past the last stored byte

	depthReached bool

	head, tail int32 // segment records, ordered by (start, n)
	nsegs      int
	phead      int32 // pages, ordered by page number
	ptail      int32

	pool *Pool // the pool of the last Insert, for the readers

	regs []region // sorted, disjoint; regs[0] is the main region (at the base)
	// regsBuf holds regs up to Suricata's default limit, so a session's regions need no
	// allocation (a Reassembly lives in its session's slot and never moves).
	regsBuf    [DefaultMaxRegions + 1]region
	maxRegions int   // 0: DefaultMaxRegions; < 0: no limit
	regionGap  int64 // 0: RegionGap (tests set a small one)
	maxSegs    int   // 0: DefaultMaxSegments; < 0: no limit

	// Remembered positions, so that the common cases do not walk the records: finger is the
	// record of the last insert or of the last place findPrev walked to; maxLen the longest
	// record linked since Init or Free (a record that starts more than maxLen before an
	// offset cannot reach it). nb* is the last block
	// NextBlock found: every record ordered before nbFirst ends at or before nbFrom, and the
	// records nbFirst..nbLast cover [nbFirst's start, nbEnd) without a hole; records after
	// nbLast are merged in lazily (extendBlock). nbFirst 0: nothing remembered.
	finger          int32
	ck              []ckpt // checkpoints: some records, ordered as the list, found by bisection
	maxLen          uint32
	nbFirst, nbLast int32
	nbFrom, nbEnd   int64
}

// DefaultMaxSegments is the default of SetMaxSegments.
const DefaultMaxSegments = 16384

// SetMaxSegments bounds the segment records the direction holds: 0 is DefaultMaxSegments, a
// negative n means no limit. Suricata has no such per-direction bound (only the memcap on
// its segment pool), so a segment that needs a record past it is refused as when the pool is
// empty (NoSegment, reassembly_no_segment). An exact retransmission of a stored segment needs
// no record and is still handled. The bound keeps every walk of the records (overlap
// resolution, coverage) within a constant however a peer orders its segments.
func (r *Reassembly) SetMaxSegments(n int) { r.maxSegs = n }

func (r *Reassembly) segLimit() int {
	switch {
	case r.maxSegs == 0:
		return DefaultMaxSegments
	case r.maxSegs < 0:
		return int(^uint(0) >> 1)
	}
	return r.maxSegs
}

// Init empties r (without freeing: call Free first when it held data) and sets its base
// sequence number and depth (0: unlimited; bytes at offset >= depth are not stored). The
// limits set by SetMaxRegions and SetMaxSegments are kept.
func (r *Reassembly) Init(base Seq, depth uint64) {
	*r = Reassembly{baseSeq: base, depth: depth,
		regs: r.regs[:0], maxRegions: r.maxRegions, regionGap: r.regionGap, maxSegs: r.maxSegs,
		ck: r.ck[:0]}
}

// less reports whether record t is ordered at or before (start, n).
func (pool *Pool) atOrBefore(t int32, start int64, n uint32) bool {
	p := &pool.recs[t]
	return p.start < start || (p.start == start && p.n <= n)
}

// findPrev returns the last record ordered at or before (start, n) (0: none). The tail and
// the head are tried first, then the walk is from the finger, which it leaves at the place
// found: in-order appends, retransmissions of the oldest or newest data, and inserts near the
// last one that needed a walk (descending segments, local retransmissions) take O(1), and a
// place found at the ends leaves the finger where it was.
func (r *Reassembly) findPrev(pool *Pool, start int64, n uint32) int32 {
	if r.tail == 0 || pool.atOrBefore(r.tail, start, n) {
		return r.tail
	}
	if !pool.atOrBefore(r.head, start, n) {
		return 0
	}
	// head <= key < tail, so head != tail
	if !pool.atOrBefore(pool.recs[r.head].next, start, n) {
		return r.head
	}
	// Near the finger: a short walk either way.
	if t := r.finger; t != 0 {
		if pool.atOrBefore(t, start, n) {
			for i := 0; i < ckSpacing; i++ {
				nx := pool.recs[t].next
				if !pool.atOrBefore(nx, start, n) { // nx != 0: the tail is after the key
					r.finger = t
					return t
				}
				t = nx
			}
		} else {
			for i := 0; i < ckSpacing; i++ {
				t = pool.recs[t].prev
				if pool.atOrBefore(t, start, n) { // t != 0: the head is at or before the key
					r.finger = t
					return t
				}
			}
		}
	}
	t, _ := r.ckWalk(pool, start, n)
	r.finger = t
	return t
}

// ckWalk returns the last record ordered at or before (start, n), where the head is, and
// the furthest end of the records ordered before that one (exact where it lies after the
// base; see ckpt). It walks forward from the last checkpoint at or before the key (else the
// head), leaving a checkpoint every ckSpacing records walked, so that a later walk over the
// same records is short: a walk's length is paid for by the checkpoints it leaves and by the
// records inserted since. It leaves the finger where it was.
func (r *Reassembly) ckWalk(pool *Pool, start int64, n uint32) (int32, int64) {
	a, b := 0, len(r.ck)
	for a < b {
		m := int(uint(a+b) >> 1)
		if pool.atOrBefore(r.ck[m].rec, start, n) {
			a = m + 1
		} else {
			b = m
		}
	}
	t, at, before := r.head, 0, int64(0) // at: where in ck the next checkpoint goes
	if a > 0 {
		t, at, before = r.ck[a-1].rec, a, r.ck[a-1].before
	}
	for steps := 1; ; steps++ {
		nx := pool.recs[t].next
		if !pool.atOrBefore(nx, start, n) {
			break
		}
		before = max(before, pool.recs[t].end())
		t = nx
		if steps%ckSpacing == 0 && !pool.recs[t].ck {
			r.addCheckpoint(pool, t, at, before)
			at++
		}
	}
	return t, before
}

// ckSpacing is how many records a walk passes before it leaves a checkpoint.
const ckSpacing = 32

// ckpt is one checkpoint: a record and the furthest end of the records ordered before it
// (0: none). The furthest end is kept exact where it lies after the base: a record linked
// raises it at the checkpoints after it (raiseCheckpoints), and the records Release unlinks
// end at or before the new base, so a value it leaves too high is still at or before the base,
// where no question about stored bytes looks (they are all asked from the base on).
type ckpt struct {
	rec    int32
	before int64
}

// addCheckpoint puts record t, with the furthest end before it, in the checkpoints at index
// at (their order is the list's).
func (r *Reassembly) addCheckpoint(pool *Pool, t int32, at int, before int64) {
	r.ck = append(r.ck, ckpt{})
	copy(r.ck[at+1:], r.ck[at:])
	r.ck[at] = ckpt{t, before}
	pool.recs[t].ck = true
}

// ckIndex returns the index in the checkpoints of record t, a checkpoint.
func (r *Reassembly) ckIndex(pool *Pool, t int32) int {
	s := &pool.recs[t]
	a, b := 0, len(r.ck)
	for a < b { // the first checkpoint not before t; keys are distinct
		m := int(uint(a+b) >> 1)
		c := &pool.recs[r.ck[m].rec]
		if c.start < s.start || (c.start == s.start && c.n < s.n) {
			a = m + 1
		} else {
			b = m
		}
	}
	return a
}

// raiseCheckpoints keeps the checkpoints' furthest ends after rec was linked: those after
// rec that end before it are raised to its end. The furthest ends grow along the
// checkpoints, so these are the first ones after rec, and every one of them but the last
// lies inside rec (it starts at or after rec and ends before it): they are records that
// rec's overlap handling walks anyway.
func (r *Reassembly) raiseCheckpoints(pool *Pool, rec int32) {
	s := &pool.recs[rec]
	e := s.end()
	a, b := 0, len(r.ck)
	for a < b { // the first checkpoint after rec
		m := int(uint(a+b) >> 1)
		if pool.atOrBefore(r.ck[m].rec, s.start, s.n) {
			a = m + 1
		} else {
			b = m
		}
	}
	for ; a < len(r.ck) && r.ck[a].before < e; a++ {
		r.ck[a].before = e
	}
}

// dropCheckpoint takes record t, a checkpoint, out of the checkpoints.
func (r *Reassembly) dropCheckpoint(pool *Pool, t int32) {
	a := r.ckIndex(pool, t)
	pool.recs[t].ck = false
	r.ck = append(r.ck[:a], r.ck[a+1:]...)
}

// SetMaxRegions sets the most data regions the direction may hold, the main region (at the
// base) included, as Suricata's stream.reassembly.max-regions: 0 is Suricata's default
// (DefaultMaxRegions), a negative n means no limit (Suricata's 0), and as in Suricata no
// more than 65535 are held. Data within RegionGap of a region joins it; a segment that would
// open a region beyond the limit is not stored (InsertLimit).
func (r *Reassembly) SetMaxRegions(n int) { r.maxRegions = n }

func (r *Reassembly) regionLimit() int {
	switch {
	case r.maxRegions == 0:
		return DefaultMaxRegions
	case r.maxRegions < 0 || r.maxRegions > 65535:
		return 65535
	}
	return r.maxRegions
}

func (r *Reassembly) gap() int64 {
	if r.regionGap == 0 {
		return RegionGap
	}
	return r.regionGap
}

// regionPlan finds where stored bytes [lo, hi) go, after Suricata's BufferInsertAtRegion:
// the regions [i, j) that the range reaches within the gap (RegionsIntersect) are merged with
// it; when there is none (i == j) a new region goes at i, and ok is false when that would
// pass the limit (InitBufferRegion's SC_ELIMIT). It changes nothing but making the main
// region present.
func (r *Reassembly) regionPlan(lo, hi int64) (i, j int, ok bool) {
	if len(r.regs) == 0 {
		if cap(r.regs) == 0 {
			r.regs = r.regsBuf[:0]
		}
		r.regs = append(r.regs, region{r.baseOff, r.baseOff})
	}
	g := r.gap()
	// first region whose extent, widened by the gap, reaches lo (regions are sorted, so
	// their ends are increasing)
	n := len(r.regs)
	a, b := 0, n
	for a < b {
		m := int(uint(a+b) >> 1)
		if r.regs[m].hi+g < lo {
			a = m + 1
		} else {
			b = m
		}
	}
	i, j = a, a
	for j < n && r.regs[j].lo-g <= hi {
		j++
	}
	if i == j && n >= r.regionLimit() {
		return i, j, false
	}
	return i, j, true
}

// applyRegion stores [lo, hi) in the regions as regionPlan said.
func (r *Reassembly) applyRegion(lo, hi int64, i, j int) {
	if i == j {
		r.regs = append(r.regs, region{})
		copy(r.regs[i+1:], r.regs[i:])
		r.regs[i] = region{lo, hi}
		return
	}
	g := &r.regs[i]
	g.lo, g.hi = min(g.lo, lo), max(r.regs[j-1].hi, hi, g.hi)
	r.regs = append(r.regs[:i+1], r.regs[j:]...)
}

// releaseRegions moves the main region to the new base u, after Suricata's
// StreamingBufferSlideToOffsetWithRegions: regions wholly before u go, the main region and
// a region that holds u (or starts at it) become the new main region [u, ...), and the
// regions after u stay as they are.
func (r *Reassembly) releaseRegions(u int64) {
	if len(r.regs) == 0 {
		return
	}
	hi, k := u, 0
	for k < len(r.regs) && r.regs[k].lo <= u {
		hi = max(hi, r.regs[k].hi)
		k++
	}
	r.regs[0] = region{u, hi}
	if k > 1 {
		r.regs = append(r.regs[:1], r.regs[k:]...)
	}
}

// SetDepth changes the depth (per-flow change at protocol detection). Once the depth was
// reached the store stays closed, as Suricata's DEPTH_REACHED flag stays set.
func (r *Reassembly) SetDepth(depth uint64) { r.depth = depth }

// DepthReached reports whether an insert reached the depth.
func (r *Reassembly) DepthReached() bool { return r.depthReached }

// Base returns the offset before which data was released.
func (r *Reassembly) Base() uint64 { return uint64(r.baseOff) }

func (r *Reassembly) soff(seq Seq) int64 { return r.baseOff + int64(seq.Diff(r.baseSeq)) }

// Offset returns the stream offset of seq. seq must lie within 2 GiB of the base; a seq
// before offset 0 (before ISN+1) gives 0.
func (r *Reassembly) Offset(seq Seq) uint64 {
	if o := r.soff(seq); o > 0 {
		return uint64(o)
	}
	return 0
}

// SeqAt returns the sequence number of stream offset off.
func (r *Reassembly) SeqAt(off uint64) Seq {
	return r.baseSeq + Seq(uint32(int64(off)-r.baseOff))
}

// Insert stores data, the payload of a segment starting at seq, resolving overlaps with
// opt. With opt.Inline, data may be overwritten in place.
//
// The steps are Suricata's (src/stream-tcp-list.c): a segment wholly before the base is
// dropped; the depth is checked (StreamTcpReassembleCheckDepth); a record is taken (no
// record, or MaxSegments held and the segment is no exact duplicate: NoSegment) and put in
// order; an exact (seq, length) duplicate keeps the stored
// record; the segment overlaps when its neighbours in that order touch it (CheckOverlap);
// then the overlap policy is applied per stored segment found by walking back from the
// segment while the previous record still reaches it, and forward while the next record
// starts before its end (DoHandleDataCheckBackwards/Forward). Like Suricata, the backward
// walk stops at the first record that ends before the segment, so a longer record further
// back is not consulted, and a segment whose neighbours do not touch it is written as is.
// Memory for the bytes is taken for the whole segment or not at all (Memcap).
func (r *Reassembly) Insert(pool *Pool, seq Seq, data []byte, opt InsertOptions) InsertResult {
	var res InsertResult
	if len(data) == 0 {
		return res
	}
	r.pool = pool
	start := r.soff(seq)
	end := start + int64(len(data))
	if end <= r.baseOff {
		res.BeforeBase = true
		return res
	}
	if !r.checkDepth(start, end, &res) {
		return res
	}

	rec := pool.getRec()
	if rec == 0 {
		res.NoSegment = true
		return res
	}
	pool.recs[rec].start, pool.recs[rec].n = start, uint32(len(data))

	// Find the place: after every record ordered before (start, n).
	prev := r.findPrev(pool, start, uint32(len(data)))
	dup := int32(0)
	if prev != 0 && pool.recs[prev].start == start && pool.recs[prev].n == uint32(len(data)) {
		dup = prev
	}

	if dup == 0 && r.nsegs >= r.segLimit() {
		pool.putRec(rec)
		res.NoSegment = true
		return res
	}

	lo := max(start, r.baseOff) // bytes before the base are not stored
	if dup != 0 {
		pool.putRec(rec)
		rec = dup
		res.Overlap = true
		res.Stored = false // the stored record holds every byte of it that is kept
	} else {
		r.link(pool, rec, prev)
		next := pool.recs[rec].next
		if next != 0 && (pool.recs[next].start == start || end > pool.recs[next].start) {
			res.Overlap = true
		}
		if prev != 0 && (pool.recs[prev].start == start || pool.recs[prev].end() > start) {
			res.Overlap = true
		}
		if !res.Overlap && next == 0 && lo >= r.end {
			res.Stored = true // appended
		} else {
			res.Stored = !r.covered(pool, rec, lo, end)
		}
	}

	// The region, then the pages, before anything is written, so that a failure leaves
	// everything as it was (Suricata rewrites an inline packet before its insert can fail;
	// here the packet stays as it came). As in StreamingBufferInsertAt, the region limit is
	// checked before memory is taken.
	ri, rj, rok := r.regionPlan(lo, end)
	if !rok || !r.ensurePages(pool, lo, end) {
		if dup == 0 {
			r.unlink(pool, rec)
			pool.putRec(rec)
		}
		if !rok {
			return InsertResult{Overlap: res.Overlap, InsertLimit: true}
		}
		return InsertResult{Overlap: res.Overlap, Memcap: true}
	}
	r.applyRegion(lo, end, ri, rj)

	buf := data
	if res.Overlap {
		if !opt.Inline {
			buf = pool.buf(len(data))
			copy(buf, data)
		}
		if dup != 0 {
			r.resolve(pool, dup, start, end, data, buf, opt, &res)
		}
		for t := pool.recs[rec].prev; t != 0; t = pool.recs[t].prev {
			te := pool.recs[t].end()
			if te <= r.baseOff {
				continue
			}
			if te <= start {
				break
			}
			r.resolve(pool, t, start, end, data, buf, opt, &res)
		}
		for t := pool.recs[rec].next; t != 0; t = pool.recs[t].next {
			if end <= pool.recs[t].start {
				break
			}
			r.resolve(pool, t, start, end, data, buf, opt, &res)
		}
	}

	r.write(pool, lo, buf[lo-start:])
	if end > r.end {
		r.end = end
	}
	if dup == 0 {
		r.finger = rec
		r.noteBlock(pool, rec)
		r.raiseCheckpoints(pool, rec)
	}
	return res
}

// noteBlock keeps NextBlock's remembered block true after rec was linked.
func (r *Reassembly) noteBlock(pool *Pool, rec int32) {
	if r.nbFirst == 0 {
		return
	}
	s := &pool.recs[rec]
	first := &pool.recs[r.nbFirst]
	switch {
	case s.start > first.start || (s.start == first.start && s.n > first.n):
		// after nbFirst: inside the block when at or before nbLast, else merged in lazily
		last := &pool.recs[r.nbLast]
		if s.start < last.start || (s.start == last.start && s.n < last.n) {
			r.nbEnd = max(r.nbEnd, s.end())
		}
	case s.end() <= r.nbFrom:
		// before the block and before every offset it answers for
	case s.end() >= first.start:
		// joins the block at its start
		r.nbFirst = rec
		r.nbEnd = max(r.nbEnd, s.end())
	default:
		// a block of its own before the remembered one, reaching past nbFrom
		r.nbFirst, r.nbLast, r.nbEnd = rec, rec, s.end()
	}
}

// checkDepth applies Suricata's StreamTcpReassembleCheckDepth: with a depth, nothing is
// stored once the depth was reached; a segment whose end lies past the depth reaches it and
// is not stored (the source's "partial fit" branch cannot be reached, so there is no
// truncation, where the reference says the crossing segment is truncated); and a segment
// must start before ISN+depth, that is at an offset below depth-1 (the source compares with
// isn+depth, not isn+1+depth), and at or after the ISN.
func (r *Reassembly) checkDepth(start, end int64, res *InsertResult) bool {
	if r.depth == 0 {
		return true
	}
	if r.depthReached {
		res.PastDepth = true
		return false
	}
	if uint64(end) > r.depth {
		r.depthReached = true
		res.DepthReached = true
		res.PastDepth = true
		return false
	}
	if start < -1 || start >= int64(r.depth)-1 {
		res.PastDepth = true
		return false
	}
	return true
}

func (s *segRec) end() int64 { return s.start + int64(s.n) }

// resolve applies the overlap handling of one stored record t to the new segment [start,
// end) with bytes data; buf holds the bytes that will be written (Suricata's
// DoHandleDataOverlap).
func (r *Reassembly) resolve(pool *Pool, t int32, start, end int64, data, buf []byte, opt InsertOptions, res *InsertResult) {
	ts, te := pool.recs[t].start, pool.recs[t].end()
	lo, hi := max(start, ts, r.baseOff), min(end, te)
	if lo >= hi {
		return
	}
	seg := data[lo-start : hi-start]
	if opt.Inline {
		// First data wins: the packet is rewritten to the accepted bytes
		// (StreamTcpInlineSegmentCompare, StreamTcpInlineSegmentReplacePacket).
		if !r.equal(pool, lo, seg) {
			r.read(pool, lo, seg)
			res.Rewritten = true
			res.OverlapDiff = true
		}
		return
	}
	if opt.CheckOverlapDiff && !r.equal(pool, lo, seg) {
		res.OverlapDiff = true
	}
	if !newDataWins(opt.Policy, start, end, ts, te) {
		r.read(pool, lo, buf[lo-start:hi-start])
	}
}

// link puts rec after prev (0: at the head).
func (r *Reassembly) link(pool *Pool, rec, prev int32) {
	s := &pool.recs[rec]
	s.prev = prev
	if prev == 0 {
		s.next = r.head
		r.head = rec
	} else {
		s.next = pool.recs[prev].next
		pool.recs[prev].next = rec
	}
	if s.next == 0 {
		r.tail = rec
	} else {
		pool.recs[s.next].prev = rec
	}
	r.nsegs++
	r.maxLen = max(r.maxLen, s.n)
}

func (r *Reassembly) unlink(pool *Pool, rec int32) {
	s := &pool.recs[rec]
	if s.prev == 0 {
		r.head = s.next
	} else {
		pool.recs[s.prev].next = s.next
	}
	if s.next == 0 {
		r.tail = s.prev
	} else {
		pool.recs[s.next].prev = s.prev
	}
	r.nsegs--
	if r.finger == rec {
		r.finger = 0
	}
	if s.ck {
		r.dropCheckpoint(pool, rec)
	}
	if r.nbFirst == rec || r.nbLast == rec {
		r.nbFirst = 0
	}
}

// covered reports whether records other than rec, a record linked since the last
// NextBlock, cover all of [lo, hi), where lo is at or after rec's start and the base. The
// records before rec all start at or before lo, so they take the coverage from lo as far as
// the furthest of their ends, and the records after rec continue it. When NextBlock's
// remembered block holds the range the answer is at hand. The furthest end before rec is found
// walking back at most ckSpacing records, to a checkpoint (which holds the furthest end before
// it), the head, a record that covers the range, or one that starts more than maxLen before lo
// (so no record before it reaches lo); failing that, from the checkpoints (ckWalk), which the
// walk leaves along the way. A long record far back is not walked to: this is O(ckSpacing)
// amortized, besides the records after rec that the range overlaps.
func (r *Reassembly) covered(pool *Pool, rec int32, lo, hi int64) bool {
	if r.nbFirst != 0 && lo >= pool.recs[r.nbFirst].start && hi <= r.nbEnd {
		return true
	}
	far := int64(0) // the furthest end of the records before rec, once found
	t := pool.recs[rec].prev
	for i := 0; t != 0; i++ {
		if i == ckSpacing {
			p := &pool.recs[pool.recs[rec].prev]
			_, before := r.ckWalk(pool, p.start, p.n) // returns rec's prev
			far = max(far, before)
			break
		}
		s := &pool.recs[t]
		far = max(far, s.end())
		if s.ck {
			far = max(far, r.ck[r.ckIndex(pool, t)].before)
			break
		}
		if far >= hi || s.start+int64(r.maxLen) <= lo {
			break
		}
		t = s.prev
	}
	pos := max(lo, far)
	for t := pool.recs[rec].next; t != 0 && pos < hi; t = pool.recs[t].next {
		s := &pool.recs[t]
		if s.start > pos {
			return false
		}
		pos = max(pos, s.end())
	}
	return pos >= hi
}

// findPage returns the page numbered no, or 0 and the page after which it would go (0: at
// the head). It walks from the nearer end of the page list.
func (r *Reassembly) findPage(pool *Pool, no uint64) (found, after int32) {
	if r.phead == 0 {
		return 0, 0
	}
	h, t := pool.pages[r.phead], pool.pages[r.ptail]
	switch {
	case no == t.no:
		return r.ptail, 0
	case no > t.no:
		return 0, r.ptail
	case no < h.no:
		return 0, 0
	}
	if no-h.no < t.no-no {
		var last int32
		for i := r.phead; i != 0; i = pool.pages[i].next {
			pg := pool.pages[i]
			if pg.no == no {
				return i, 0
			}
			if pg.no > no {
				break
			}
			last = i
		}
		return 0, last
	}
	for i := r.ptail; i != 0; i = pool.pages[i].prev {
		pg := pool.pages[i]
		if pg.no == no {
			return i, 0
		}
		if pg.no < no {
			return 0, i
		}
	}
	return 0, 0
}

// ensurePages makes the pages for [lo, hi) present, all of them or (memcap) none.
func (r *Reassembly) ensurePages(pool *Pool, lo, hi int64) bool {
	if lo >= hi {
		return true
	}
	first, last := uint64(lo)/PageSize, uint64(hi-1)/PageSize
	missing := 0
	for no := first; no <= last; no++ {
		if found, _ := r.findPage(pool, no); found == 0 {
			missing++
		}
	}
	if missing == 0 {
		return true
	}
	if !pool.canGetPages(missing) {
		return false
	}
	for no := first; no <= last; no++ {
		found, after := r.findPage(pool, no)
		if found != 0 {
			continue
		}
		pi := pool.getPage()
		pg := pool.pages[pi]
		pg.no, pg.prev = no, after
		if after == 0 {
			pg.next = r.phead
			r.phead = pi
		} else {
			pg.next = pool.pages[after].next
			pool.pages[after].next = pi
		}
		if pg.next == 0 {
			r.ptail = pi
		} else {
			pool.pages[pg.next].prev = pi
		}
	}
	return true
}

// pageFor returns the page holding offset off, which must exist.
func (r *Reassembly) pageFor(pool *Pool, off int64) *page {
	i, _ := r.findPage(pool, uint64(off)/PageSize)
	return pool.pages[i]
}

// write copies b to offsets [off, off+len(b)), whose pages exist.
func (r *Reassembly) write(pool *Pool, off int64, b []byte) {
	for len(b) > 0 {
		pg := r.pageFor(pool, off)
		n := copy(pg.data[off%PageSize:], b)
		b = b[n:]
		off += int64(n)
	}
}

// read copies the stored bytes at [off, off+len(b)) into b.
func (r *Reassembly) read(pool *Pool, off int64, b []byte) {
	for len(b) > 0 {
		pg := r.pageFor(pool, off)
		n := copy(b, pg.data[off%PageSize:])
		b = b[n:]
		off += int64(n)
	}
}

// equal reports whether the stored bytes at [off, off+len(b)) equal b.
func (r *Reassembly) equal(pool *Pool, off int64, b []byte) bool {
	for len(b) > 0 {
		pg := r.pageFor(pool, off)
		o := off % PageSize
		n := min(len(b), PageSize-int(o))
		if string(pg.data[o:int(o)+n]) != string(b[:n]) {
			return false
		}
		b = b[n:]
		off += int64(n)
	}
	return true
}

// Contiguous returns the end offset of the data present without a hole from offset from
// (from itself when the byte at from is missing).
func (r *Reassembly) Contiguous(from uint64) uint64 {
	if s, e, ok := r.NextBlock(from); ok && s == from {
		return e
	}
	return from
}

// NextBlock returns the first run of present bytes [start, end) that ends after from, with
// start >= from clipped; ok is false when no byte at or after from is stored.
//
// The block found is remembered: a later call from an offset at or after this one's, as a
// consumer's Contiguous from its base is, starts from it and merges in only the records
// added after it.
func (r *Reassembly) NextBlock(from uint64) (start, end uint64, ok bool) {
	pool := r.pool
	if r.head == 0 {
		return 0, 0, false
	}
	f := max(int64(from), r.baseOff)
	t := r.head
	if r.nbFirst != 0 && f >= r.nbFrom {
		r.extendBlock(pool)
		if f < r.nbEnd {
			return uint64(max(pool.recs[r.nbFirst].start, f)), uint64(r.nbEnd), true
		}
		t = pool.recs[r.nbLast].next // every record up to nbLast ends by nbEnd <= f
	}
	for t != 0 && pool.recs[t].end() <= f {
		t = pool.recs[t].next
	}
	if t == 0 {
		return 0, 0, false
	}
	r.nbFirst, r.nbLast, r.nbFrom, r.nbEnd = t, t, f, pool.recs[t].end()
	r.extendBlock(pool)
	return uint64(max(pool.recs[t].start, f)), uint64(r.nbEnd), true
}

// extendBlock merges the records after nbLast that the remembered block reaches.
func (r *Reassembly) extendBlock(pool *Pool) {
	for t := pool.recs[r.nbLast].next; t != 0; t = pool.recs[t].next {
		s := &pool.recs[t]
		if s.start > r.nbEnd {
			break
		}
		r.nbEnd = max(r.nbEnd, s.end())
		r.nbLast = t
	}
}

// Bytes returns the bytes [from, to), which must all be present (when a page is missing, or
// from lies before the base, it returns nil rather than panic; bytes in a page but outside
// every segment are not detected). When they lie in one page
// the result is a subslice of it (valid until the next Insert or Release); otherwise they are
// copied into scratch (appended from scratch[:0]) and that is returned. Never pass a result
// that may be page memory back as scratch: the copy would write into the store.
func (r *Reassembly) Bytes(from, to uint64, scratch []byte) []byte {
	pool := r.pool
	if to <= from {
		return scratch[:0]
	}
	if pool == nil || int64(from) < r.baseOff {
		return nil
	}
	pi, _ := r.findPage(pool, from/PageSize)
	if from/PageSize == (to-1)/PageSize {
		if pi == 0 {
			return nil
		}
		o := from % PageSize
		return pool.pages[pi].data[o : o+(to-from)]
	}
	out := scratch[:0]
	for off := from; off < to; {
		if pi == 0 || pool.pages[pi].no != off/PageSize {
			return nil // not present: a caller's error
		}
		pg := pool.pages[pi]
		o := off % PageSize
		n := min(to-off, PageSize-o)
		out = append(out, pg.data[o:o+n]...)
		off += n
		pi = pg.next
	}
	return out
}

// End returns the offset just past the last stored byte (0 when nothing was stored).
func (r *Reassembly) End() uint64 { return uint64(max(r.end, 0)) }

// Release frees the storage of every byte before offset upTo; those bytes can no longer be
// read and a segment that lies wholly before upTo is BeforeBase. Records that reach past
// upTo are kept (their bytes before upTo are gone), as Suricata keeps a segment until it is
// wholly consumed (StreamTcpPruneSession).
func (r *Reassembly) Release(pool *Pool, upTo uint64) {
	u := int64(upTo)
	if u <= r.baseOff {
		return
	}
	r.baseSeq = r.SeqAt(upTo)
	r.baseOff = u
	r.releaseRegions(u)
	for t := r.head; t != 0; {
		s := &pool.recs[t]
		next := s.next
		if s.start >= u {
			break
		}
		if s.end() <= u {
			r.unlink(pool, t)
			pool.putRec(t)
		}
		t = next
	}
	for r.phead != 0 {
		pg := pool.pages[r.phead]
		if (pg.no+1)*PageSize > upTo {
			break
		}
		pi := r.phead
		r.phead = pg.next
		if r.phead == 0 {
			r.ptail = 0
		} else {
			pool.pages[r.phead].prev = 0
		}
		pool.putPage(pi)
	}
}

// Free returns all of r's storage to pool. The base and depth stay.
func (r *Reassembly) Free(pool *Pool) {
	for t := r.head; t != 0; {
		next := pool.recs[t].next
		pool.putRec(t)
		t = next
	}
	for pi := r.phead; pi != 0; {
		next := pool.pages[pi].next
		pool.putPage(pi)
		pi = next
	}
	r.head, r.tail, r.nsegs, r.phead, r.ptail = 0, 0, 0, 0, 0
	r.regs = r.regs[:0]
	r.finger, r.maxLen, r.nbFirst, r.nbLast = 0, 0, 0, 0
	r.ck = r.ck[:0]
}

// Segments returns the number of segment records r holds.
func (r *Reassembly) Segments() int { return r.nsegs }
