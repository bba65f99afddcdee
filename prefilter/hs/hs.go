package hs

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/flier/gohs/hyperscan"
)

// Pattern is one literal fast pattern. Bytes may hold any byte value (NUL, 0x80-0xff, regex
// metacharacters): they are matched literally. Nocase matches ASCII letters case-insensitively.
// Several patterns may share an ID; a scan reports each ID at most once.
type Pattern struct {
	ID     uint32
	Bytes  []byte
	Nocase bool
}

// Options tune [Compile].
type Options struct {
	// CacheDir, when not empty, enables the on-disk cache of compiled databases in that
	// directory (Suricata's sgh-mpm-caching-path); see [CompileCached].
	CacheDir string
}

// Database is a compiled, immutable Hyperscan block-mode database. It is safe for concurrent
// scans by different [Scanner]s. A nil *Database is the database of an empty pattern list: it
// matches nothing.
type Database struct {
	db         cdb
	patterns   int
	maxMatches int
	size       int
	cache      CacheOutcome
	cleanup    runtime.Cleanup
}

// CompileError reports a pattern that Hyperscan rejected (or that is empty).
type CompileError struct {
	// ID is the rejected pattern's ID.
	ID uint32
	// Bytes and Nocase are the rejected pattern.
	Bytes  []byte
	Nocase bool
	// Reason is Hyperscan's message.
	Reason string
}

// Error implements error.
func (e *CompileError) Error() string {
	p := e.Bytes
	more := ""
	if len(p) > 64 {
		p, more = p[:64], "..."
	}
	nc := ""
	if e.Nocase {
		nc = " nocase"
	}
	return fmt.Sprintf("hs: pattern id %d %s%s%s: %s", e.ID, strconv.Quote(string(p)), more, nc, e.Reason)
}

// compiles counts Hyperscan compilations (tests use it to prove that a cache hit compiles
// nothing).
var compiles atomic.Int64

// Compile compiles patterns into a block-mode database with HS_FLAG_SINGLEMATCH (and
// HS_FLAG_CASELESS for nocase patterns). Exact duplicates (same ID, bytes and case) are merged;
// the order of patterns does not matter. An empty list yields a nil *Database and no error. A
// pattern that Hyperscan rejects yields a *[CompileError] naming its ID. With opts.CacheDir set,
// Compile behaves as [CompileCached].
func Compile(patterns []Pattern, opts Options) (*Database, error) {
	ps, ids, err := normalize(patterns)
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	if opts.CacheDir != "" {
		return compileCached(ps, ids, opts.CacheDir)
	}
	ser, err := compileSerialized(ps)
	if err != nil {
		return nil, err
	}
	return newDatabase(ser, len(ps), ids)
}

// Len is the number of distinct patterns compiled into d.
func (d *Database) Len() int {
	if d == nil {
		return 0
	}
	return d.patterns
}

// MaxMatches is the number of distinct pattern IDs in d: the most matches one scan can report
// (HS_FLAG_SINGLEMATCH reports each ID at most once per scan). An output buffer of this length
// never overflows.
func (d *Database) MaxMatches() int {
	if d == nil {
		return 0
	}
	return d.maxMatches
}

// Size is the size of the compiled database in bytes.
func (d *Database) Size() int {
	if d == nil {
		return 0
	}
	return d.size
}

// Cache reports how the on-disk cache served this database (zero when caching was off).
func (d *Database) Cache() CacheOutcome {
	if d == nil {
		return CacheOutcome{}
	}
	return d.cache
}

// Close frees the database now instead of when it becomes unreachable. The caller must make
// sure that no scan uses it any more; Close is idempotent.
func (d *Database) Close() error {
	if d == nil || d.db == nil {
		return nil
	}
	d.cleanup.Stop()
	cFreeDatabase(d.db)
	d.db = nil
	return nil
}

// newDatabase deserializes ser into a C database owned by a new Database.
func newDatabase(ser []byte, patterns, ids int) (*Database, error) {
	db, err := cDeserialize(ser)
	if err != nil {
		return nil, err
	}
	d := &Database{db: db, patterns: patterns, maxMatches: ids, size: cDatabaseSize(db)}
	d.cleanup = runtime.AddCleanup(d, cFreeDatabase, db)
	return d, nil
}

// normalize validates, deduplicates and canonically orders patterns, so that the same set
// yields the same database and cache key whatever its order; it also counts the distinct IDs.
// The canonical order is by a 64-bit FNV-1a hash of each pattern, then by content: sorting
// 20k real patterns lexicographically costs ~10 ms (many share long prefixes such as
// "User-Agent: "), sorting by hash ~1.5 ms.
func normalize(patterns []Pattern) ([]Pattern, int, error) {
	if len(patterns) > math.MaxInt32 {
		return nil, 0, fmt.Errorf("hs: %d patterns are too many", len(patterns))
	}
	type sortKey struct {
		h uint64
		i int32
	}
	keys := make([]sortKey, len(patterns))
	for i, p := range patterns {
		if len(p.Bytes) == 0 {
			return nil, 0, &CompileError{ID: p.ID, Nocase: p.Nocase, Reason: "empty pattern"}
		}
		keys[i] = sortKey{patternHash(p), int32(i)}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if a.h != b.h {
			return cmp.Compare(a.h, b.h)
		}
		return comparePatterns(patterns[a.i], patterns[b.i])
	})
	ps := make([]Pattern, 0, len(keys))
	var maxID uint32
	for k, key := range keys {
		p := patterns[key.i]
		if k > 0 && keys[k-1].h == key.h && comparePatterns(patterns[keys[k-1].i], p) == 0 {
			continue
		}
		ps = append(ps, p)
		maxID = max(maxID, p.ID)
	}
	return ps, distinctIDs(ps, maxID), nil
}

// distinctIDs counts the distinct IDs of ps: with a bitmap when the IDs are dense enough (the
// usual case), else by sorting.
func distinctIDs(ps []Pattern, maxID uint32) int {
	if uint64(maxID) < 64*uint64(len(ps)) {
		seen := make([]uint64, maxID/64+1)
		n := 0
		for _, p := range ps {
			w, bit := p.ID/64, uint64(1)<<(p.ID%64)
			if seen[w]&bit == 0 {
				seen[w] |= bit
				n++
			}
		}
		return n
	}
	ids := make([]uint32, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	slices.Sort(ids)
	return len(slices.Compact(ids))
}

// patternHash is FNV-1a (64 bit) over the ID, the case flag and the bytes.
func patternHash(p Pattern) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for _, c := range [5]byte{byte(p.ID), byte(p.ID >> 8), byte(p.ID >> 16), byte(p.ID >> 24), b2u8(p.Nocase)} {
		h = (h ^ uint64(c)) * prime
	}
	for _, c := range p.Bytes {
		h = (h ^ uint64(c)) * prime
	}
	return h
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func comparePatterns(a, b Pattern) int {
	if c := bytes.Compare(a.Bytes, b.Bytes); c != 0 {
		return c
	}
	if a.Nocase != b.Nocase {
		if a.Nocase {
			return 1
		}
		return -1
	}
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// flags are the Hyperscan compile flags of p.
func flags(p Pattern) hyperscan.CompileFlag {
	f := hyperscan.SingleMatch
	if p.Nocase {
		f |= hyperscan.Caseless
	}
	return f
}

// compileSerialized compiles ps (normalized) with the selected API and returns
// hs_serialize_database's output.
func compileSerialized(ps []Pattern) ([]byte, error) {
	compiles.Add(1)
	var db hyperscan.Database
	var err error
	if useLiteralAPI {
		db, err = compileLiteral(ps)
	} else {
		db, err = compileRegex(ps)
	}
	if err != nil {
		return nil, compileError(ps, err)
	}
	defer db.Close()
	return db.Marshal()
}

// compileError names the pattern that Hyperscan's error points at.
func compileError(ps []Pattern, err error) error {
	var ce *hyperscan.CompileError
	if errors.As(err, &ce) {
		if ce.Expression >= 0 && ce.Expression < len(ps) {
			p := ps[ce.Expression]
			return &CompileError{ID: p.ID, Bytes: p.Bytes, Nocase: p.Nocase, Reason: ce.Message}
		}
		return fmt.Errorf("hs: compiling %d patterns: %s", len(ps), ce.Message)
	}
	return fmt.Errorf("hs: compiling %d patterns: %w", len(ps), err)
}

// hexRegex renders b as a regex that matches exactly these bytes: ASCII letters and digits as
// they are, every other byte \xHH-escaped (Suricata escapes every byte; keeping alphanumerics
// shortens the expression, whose length Hyperscan limits to 16000 characters).
func hexRegex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 4*len(b))
	for _, c := range b {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			out = append(out, c)
			continue
		}
		out = append(out, '\\', 'x', digits[c>>4], digits[c&15])
	}
	return string(out)
}

// compileRegex compiles ps as hex-escaped regexes (hs_compile_ext_multi).
func compileRegex(ps []Pattern) (hyperscan.Database, error) {
	hp := make(hyperscan.Patterns, len(ps))
	for i, p := range ps {
		hp[i] = &hyperscan.Pattern{Expression: hexRegex(p.Bytes), Flags: flags(p), Id: int(p.ID)}
	}
	return hp.Build(hyperscan.BlockMode)
}

// useLiteralAPI selects hs_compile_lit_multi over hex-escaped regexes (only where gohs offers
// it; tests and benchmarks flip it to compare). It is off: with Hyperscan 5.4 (Debian's
// libhyperscan5 5.4.0-2) a literal database holding a short literal (1 or 2 bytes) beside one
// of 37 bytes or more fails every scan of 34 bytes or less with HS_UNKNOWN_ERROR (found by
// FuzzScan; seeds in testdata/fuzz/FuzzScan, TestShortWithLongLiteral). The same sets compiled
// as regexes scan correctly, and on 20k ET patterns both APIs build a database of the same
// size in the same time (BenchmarkCompile20k).
var useLiteralAPI = false

// CompileAPI names the Hyperscan compile call that [Compile] uses: "hs_compile_ext_multi" (each
// pattern rendered as a regex with \xHH escapes), or "hs_compile_lit_multi" (pure literals;
// needs -tags hyperscan_v54 or hyperscan_v52) where a test has selected it.
func CompileAPI() string {
	if useLiteralAPI {
		return "hs_compile_lit_multi"
	}
	return "hs_compile_ext_multi"
}
