package stream

// CONTRACT STUB: the signatures below are the API the session code programs against. The
// implementation (segment store, pages, overlap policies, depth, memcap) replaces the bodies;
// nothing in this file is final until then.

// Pool is one worker's storage for reassembly: segment records and data pages, reused, with
// the accounted bytes bounded by stream.reassembly.memcap. Not safe for concurrent use.
type Pool struct{}

// NewPool makes a worker's pool: memcap bounds the accounted bytes (segment records and
// pages), prealloc segment records are made up front.
func NewPool(memcap uint64, prealloc int) *Pool { return &Pool{} }

// InUse returns the bytes the pool has charged against its memcap.
func (p *Pool) InUse() uint64 { return 0 }

// InsertOptions says how Insert resolves overlaps.
type InsertOptions struct {
	// Policy is the receiver's overlap policy (IDS mode).
	Policy Policy
	// CheckOverlapDiff compares overlapping bytes and reports OverlapDiff
	// (check-overlap-different-data).
	CheckOverlapDiff bool
	// Inline is stream.inline: stored (first) data always wins, and the overlapping bytes of
	// the caller's data slice are overwritten with the stored ones (the packet rewrite).
	Inline bool
}

// InsertResult says what Insert did. Several flags may be set.
type InsertResult struct {
	Stored       bool // bytes not stored before were added
	Overlap      bool // the segment overlapped stored data (tcp.overlap)
	OverlapDiff  bool // overlapping bytes differed (only with CheckOverlapDiff or Inline)
	Rewritten    bool // inline: the caller's data was overwritten with stored bytes
	BeforeBase   bool // the segment lay wholly before the base (reassembly_segment_before_base_seq)
	DepthReached bool // this insert reached the depth: data past it was cut (reassembly_depth_reached)
	PastDepth    bool // the segment lay wholly past the depth: nothing stored
	NoSegment    bool // no segment record could be had under the memcap (reassembly_no_segment)
	Memcap       bool // no page could be had under the memcap (reassembly_insert_memcap)
}

// Reassembly is one direction's segment store. Bytes are addressed by stream offset: the
// number of bytes from the base, the sequence number of the direction's first data byte
// (ISN+1). The zero value is not usable: call Init.
type Reassembly struct{}

// Init empties r (without freeing: call Free first when it held data) and sets its base
// sequence number and depth (0: unlimited; bytes at offset >= depth are not stored).
func (r *Reassembly) Init(base Seq, depth uint64) {}

// SetDepth changes the depth (per-flow change at protocol detection).
func (r *Reassembly) SetDepth(depth uint64) {}

// Offset returns the stream offset of seq. seq must lie within 2 GiB of the data kept.
func (r *Reassembly) Offset(seq Seq) uint64 { return 0 }

// SeqAt returns the sequence number of stream offset off.
func (r *Reassembly) SeqAt(off uint64) Seq { return 0 }

// Insert stores data, the payload of a segment starting at seq, resolving overlaps with
// opt. With opt.Inline, data may be overwritten in place.
func (r *Reassembly) Insert(pool *Pool, seq Seq, data []byte, opt InsertOptions) InsertResult {
	return InsertResult{}
}

// Contiguous returns the end offset of the data present without a hole from offset from
// (from itself when the byte at from is missing).
func (r *Reassembly) Contiguous(from uint64) uint64 { return from }

// NextBlock returns the first run of present bytes [start, end) that ends after from, with
// start >= from clipped; ok is false when no byte at or after from is stored.
func (r *Reassembly) NextBlock(from uint64) (start, end uint64, ok bool) { return 0, 0, false }

// Bytes returns the bytes [from, to), which must all be present. When they lie in one page
// the result is a subslice of it (valid until the next Insert or Release); otherwise they are
// copied into scratch (appended from scratch[:0]) and that is returned.
func (r *Reassembly) Bytes(from, to uint64, scratch []byte) []byte { return nil }

// End returns the offset just past the last stored byte (0 when nothing was stored).
func (r *Reassembly) End() uint64 { return 0 }

// Release frees the storage of every byte before offset upTo; those bytes can no longer be
// read and a segment that lies wholly before upTo is BeforeBase.
func (r *Reassembly) Release(pool *Pool, upTo uint64) {}

// Free returns all of r's storage to pool.
func (r *Reassembly) Free(pool *Pool) {}

// Segments returns the number of segment records r holds.
func (r *Reassembly) Segments() int { return 0 }
