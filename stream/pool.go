package stream

import "unsafe"

// PageSize is the size of a reassembly data page.
const PageSize = 4096

// segRec is one stored segment: the range [start, start+n) in stream offsets (start may be
// negative for data before ISN+1) and its place in its Reassembly's list, ordered by (start,
// n) as Suricata's segment tree is ordered by (seq, payload_len) (src/stream-tcp-list.c:
// TcpSegmentCompare). Records are addressed by index into Pool.recs; 0 is "none".
type segRec struct {
	start      int64
	n          uint32
	prev, next int32
	ck         bool // in its Reassembly's checkpoints (fits in the padding: same cost)
}

// page is one data page of a Reassembly: the bytes of stream offsets [no*PageSize,
// (no+1)*PageSize), linked in page-number order. Bytes no segment covers are garbage.
type page struct {
	data       [PageSize]byte
	no         uint64
	prev, next int32
}

// Accounted sizes: what one record or one page costs against the memcap (the structure
// itself plus the pool's slot that refers to it).
const (
	recordCost = uint64(unsafe.Sizeof(segRec{}))
	pageCost   = uint64(unsafe.Sizeof(page{})) + uint64(unsafe.Sizeof((*page)(nil)))
)

// Pool's accounting: a record or page is charged when a Reassembly takes it and refunded
// when it is given back, so InUse is the storage Reassemblies hold and is 0 once all are
// freed. Free-list items are not charged; since every item was once charged (or was
// preallocated, which NewPool caps at the memcap), the pool's total size never exceeds
// max(memcap, what was preallocated).
type Pool struct {
	memcap uint64
	inUse  uint64

	recs     []segRec // recs[0] unused: index 0 means none
	freeRecs []int32
	pages    []*page // pages[0] unused
	freePgs  []int32

	scratch []byte // overlap resolution buffer (Suricata's DoHandleData buf)
}

// NewPool makes a worker's pool: memcap bounds the accounted bytes (segment records and
// pages; 0 means no limit), prealloc segment records are made up front (at most as many as
// the memcap could hold) and are charged only when a Reassembly takes them.
func NewPool(memcap uint64, prealloc int) *Pool {
	p := &Pool{memcap: memcap}
	if prealloc < 0 {
		prealloc = 0
	}
	if memcap != 0 && uint64(prealloc) > memcap/recordCost {
		prealloc = int(memcap / recordCost)
	}
	p.recs = make([]segRec, 1, prealloc+1)
	p.freeRecs = make([]int32, 0, prealloc)
	for i := 0; i < prealloc; i++ {
		p.recs = append(p.recs, segRec{})
		p.freeRecs = append(p.freeRecs, int32(prealloc-i))
	}
	p.pages = make([]*page, 1, 16)
	return p
}

// InUse returns the bytes the pool has charged against its memcap: the records and pages
// held by Reassemblies.
func (p *Pool) InUse() uint64 { return p.inUse }

// Memcap returns the pool's memcap (0: unlimited).
func (p *Pool) Memcap() uint64 { return p.memcap }

func (p *Pool) fits(cost uint64) bool {
	return p.memcap == 0 || (p.inUse <= p.memcap && cost <= p.memcap-p.inUse)
}

// getRec takes a record, or returns 0 when the memcap does not allow one.
func (p *Pool) getRec() int32 {
	if !p.fits(recordCost) {
		return 0
	}
	p.inUse += recordCost
	if n := len(p.freeRecs); n > 0 {
		i := p.freeRecs[n-1]
		p.freeRecs = p.freeRecs[:n-1]
		p.recs[i] = segRec{}
		return i
	}
	p.recs = append(p.recs, segRec{})
	return int32(len(p.recs) - 1)
}

func (p *Pool) putRec(i int32) {
	p.inUse -= recordCost
	p.freeRecs = append(p.freeRecs, i)
}

// canGetPages reports whether n more pages fit under the memcap.
func (p *Pool) canGetPages(n int) bool {
	return n == 0 || p.fits(uint64(n)*pageCost)
}

// getPage takes a page; the caller checked canGetPages.
func (p *Pool) getPage() int32 {
	p.inUse += pageCost
	if n := len(p.freePgs); n > 0 {
		i := p.freePgs[n-1]
		p.freePgs = p.freePgs[:n-1]
		return i
	}
	p.pages = append(p.pages, new(page))
	return int32(len(p.pages) - 1)
}

func (p *Pool) putPage(i int32) {
	p.inUse -= pageCost
	p.freePgs = append(p.freePgs, i)
}

// buf returns the pool's scratch buffer sized n.
func (p *Pool) buf(n int) []byte {
	if cap(p.scratch) < n {
		p.scratch = make([]byte, n)
	}
	return p.scratch[:n]
}
