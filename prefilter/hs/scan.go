package hs

import (
	"errors"
	"runtime"
)

// maxBlock is the longest buffer (and match buffer) one hs_scan call takes: its length is a C
// unsigned int. A variable, so that slicing with it compiles on 32-bit platforms too.
var maxBlock uint64 = 1<<32 - 1

// ErrOverflow is returned by [Scanner.Scan] when more matches occurred than out can hold: out is
// full and the scan stopped at the first match that did not fit. Size out to
// [Database.MaxMatches] to rule it out.
var ErrOverflow = errors.New("hs: match buffer full, scan stopped")

// ErrNoScratch is returned by [Scanner.Scan] on a Scanner that holds no scratch space (a nil or
// closed Scanner, or one created for empty databases only) when the database is not empty.
var ErrNoScratch = errors.New("hs: scanner has no scratch space")

// ErrTooLarge is returned by [Scanner.Scan] for data longer than Hyperscan's block limit
// (4 GiB - 1 bytes).
var ErrTooLarge = errors.New("hs: data larger than 4 GiB")

// Scanner is one worker's Hyperscan scratch space. It is not safe for concurrent use: give each
// worker its own ([Scanner.Clone]). Its scratch must be large enough for every database it scans
// ([NewScanner], [Scanner.Grow]); Hyperscan refuses (ErrInvalid) a database that does not fit.
type Scanner struct {
	s       cscratch
	cleanup runtime.Cleanup
}

// NewScanner allocates scratch space large enough for every given database (nil databases are
// skipped).
func NewScanner(dbs ...*Database) (*Scanner, error) {
	s := &Scanner{}
	for _, db := range dbs {
		if err := s.Grow(db); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Grow enlarges the scratch space, if needed, so that it can also scan db. It must not be
// called while s is scanning.
func (s *Scanner) Grow(db *Database) error {
	if db == nil || db.db == nil {
		return nil
	}
	old := s.s
	err := cAllocScratch(db.db, &s.s)
	runtime.KeepAlive(db)
	if s.s != old {
		s.cleanup.Stop()
		s.cleanup = runtime.Cleanup{}
		if s.s != nil {
			s.cleanup = runtime.AddCleanup(s, cFreeScratch, s.s)
		}
	}
	return err
}

// Clone returns a new Scanner with scratch space for the same databases, for another worker.
func (s *Scanner) Clone() (*Scanner, error) {
	c := &Scanner{}
	if s == nil || s.s == nil {
		return c, nil
	}
	p, err := cCloneScratch(s.s)
	runtime.KeepAlive(s)
	if err != nil {
		return nil, err
	}
	c.s = p
	c.cleanup = runtime.AddCleanup(c, cFreeScratch, p)
	return c, nil
}

// Size is the size of the scratch space in bytes.
func (s *Scanner) Size() int {
	if s == nil || s.s == nil {
		return 0
	}
	n := cScratchSize(s.s)
	runtime.KeepAlive(s)
	return n
}

// Close frees the scratch space now instead of when s becomes unreachable. Idempotent.
func (s *Scanner) Close() {
	if s == nil || s.s == nil {
		return
	}
	s.cleanup.Stop()
	cFreeScratch(s.s)
	s.s = nil
}

// Scan scans data with db and writes the IDs of the patterns found into out, each ID at most
// once, in the order Hyperscan reports them (by match end offset; not sorted by ID). It returns
// the number of IDs written. It never allocates. A nil db or empty data finds nothing. If more
// IDs match than out can hold, Scan stops with n == len(out) and [ErrOverflow]. Other errors
// come from Hyperscan ([Error]), e.g. ErrInvalid when the scratch space was not grown for db.
func (s *Scanner) Scan(db *Database, data []byte, out []uint32) (n int, err error) {
	if db == nil || db.db == nil || len(data) == 0 {
		return 0, nil
	}
	if s == nil || s.s == nil {
		return 0, ErrNoScratch
	}
	if uint64(len(data)) > maxBlock {
		return 0, ErrTooLarge
	}
	if uint64(len(out)) > maxBlock {
		out = out[:maxBlock]
	}
	r := cScan(db.db, s.s, data, out)
	runtime.KeepAlive(db)
	runtime.KeepAlive(s)
	switch r.err {
	case 0:
		return r.n, nil
	case int(ErrScanTerminated):
		return r.n, ErrOverflow
	}
	return r.n, Error(r.err)
}
