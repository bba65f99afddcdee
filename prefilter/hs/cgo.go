package hs

/*
#cgo pkg-config: libhs
#cgo linux LDFLAGS: -lm -lstdc++
#cgo noescape mk_hs_scan
#cgo nocallback mk_hs_scan
#cgo noescape mk_hs_deserialize
#cgo nocallback mk_hs_deserialize

#include <stdlib.h>
#include <hs.h>

// mk_hs_ctx is the match context of one mk_hs_scan call. It lives on the C stack of that call,
// so no pointer to Go memory outlives the call.
typedef struct {
	unsigned int *out;
	unsigned int cap;
	unsigned int n;
} mk_hs_ctx;

// mk_hs_on_match appends the pattern id; a match that does not fit stops the scan.
static int mk_hs_on_match(unsigned int id, unsigned long long from, unsigned long long to,
                          unsigned int flags, void *ctx) {
	mk_hs_ctx *c = (mk_hs_ctx *)ctx;
	(void)from; (void)to; (void)flags;
	if (c->n == c->cap) {
		return 1;
	}
	c->out[c->n++] = id;
	return 0;
}

typedef struct {
	int err;
	unsigned int n;
} mk_hs_result;

static mk_hs_result mk_hs_scan(const hs_database_t *db, hs_scratch_t *scratch, const char *data,
                               unsigned int len, unsigned int *out, unsigned int cap) {
	mk_hs_ctx c = {out, cap, 0};
	mk_hs_result r;
	r.err = hs_scan(db, data, len, 0, scratch, mk_hs_on_match, &c);
	r.n = c.n;
	return r;
}

// mk_hs_deserialize returns the database or NULL with *err set.
static hs_database_t *mk_hs_deserialize(const char *bytes, size_t len, int *err) {
	hs_database_t *db = NULL;
	*err = hs_deserialize_database(bytes, len, &db);
	if (*err != HS_SUCCESS) {
		return NULL;
	}
	return db;
}

static size_t mk_hs_database_size(const hs_database_t *db) {
	size_t n = 0;
	if (hs_database_size(db, &n) != HS_SUCCESS) {
		return 0;
	}
	return n;
}

static size_t mk_hs_scratch_size(const hs_scratch_t *s) {
	size_t n = 0;
	if (s == NULL || hs_scratch_size(s, &n) != HS_SUCCESS) {
		return 0;
	}
	return n;
}

// mk_hs_platform reports the host platform that a database compiled with a NULL platform
// targets.
static int mk_hs_platform(unsigned int *tune, unsigned long long *features) {
	hs_platform_info_t p;
	int err = hs_populate_platform(&p);
	*tune = p.tune;
	*features = p.cpu_features;
	return err;
}
*/
import "C"

import (
	"runtime"
	"strconv"
	"unsafe"
)

// cdb is a Hyperscan database allocated by the C library.
type cdb = *C.hs_database_t

// cscratch is a Hyperscan scratch region allocated by the C library.
type cscratch = *C.hs_scratch_t

// Error is a Hyperscan error code (hs_error_t) returned by the C library.
type Error int

// Hyperscan error codes that callers may want to tell apart.
const (
	ErrInvalid          Error = C.HS_INVALID
	ErrNoMemory         Error = C.HS_NOMEM
	ErrScanTerminated   Error = C.HS_SCAN_TERMINATED
	ErrCompile          Error = C.HS_COMPILER_ERROR
	ErrDatabaseVersion  Error = C.HS_DB_VERSION_ERROR
	ErrDatabasePlatform Error = C.HS_DB_PLATFORM_ERROR
	ErrDatabaseMode     Error = C.HS_DB_MODE_ERROR
	ErrBadAlign         Error = C.HS_BAD_ALIGN
	ErrBadAlloc         Error = C.HS_BAD_ALLOC
	ErrScratchInUse     Error = C.HS_SCRATCH_IN_USE
	ErrArch             Error = C.HS_ARCH_ERROR
)

// Error implements error.
func (e Error) Error() string {
	switch e {
	case ErrInvalid:
		return "hs: invalid parameter"
	case ErrNoMemory:
		return "hs: out of memory"
	case ErrScanTerminated:
		return "hs: scan terminated"
	case ErrCompile:
		return "hs: compile error"
	case ErrDatabaseVersion:
		return "hs: database built for another Hyperscan version"
	case ErrDatabasePlatform:
		return "hs: database built for another platform"
	case ErrDatabaseMode:
		return "hs: database built for another mode"
	case ErrBadAlign:
		return "hs: bad alignment"
	case ErrBadAlloc:
		return "hs: allocator returned misaligned memory"
	case ErrScratchInUse:
		return "hs: scratch already in use"
	case ErrArch:
		return "hs: unsupported CPU architecture"
	}
	return "hs: error " + strconv.Itoa(int(e))
}

// scanResult is what one cgo scan call reports.
type scanResult struct {
	err int
	n   int
}

// cScan runs hs_scan over data, appending pattern ids into out. data and out are Go memory
// without Go pointers; C keeps no reference to them after the call (noescape).
func cScan(db cdb, s cscratch, data []byte, out []uint32) scanResult {
	var outp *C.uint
	if len(out) > 0 {
		outp = (*C.uint)(unsafe.Pointer(&out[0]))
	}
	r := C.mk_hs_scan(db, s, (*C.char)(unsafe.Pointer(&data[0])), C.uint(len(data)), outp, C.uint(len(out)))
	return scanResult{err: int(r.err), n: int(r.n)}
}

// cDeserialize rebuilds a database from hs_serialize_database output.
func cDeserialize(b []byte) (cdb, error) {
	if len(b) == 0 {
		return nil, ErrInvalid
	}
	var e C.int
	db := C.mk_hs_deserialize((*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b)), &e)
	runtime.KeepAlive(b)
	if db == nil {
		return nil, Error(e)
	}
	return db, nil
}

func cFreeDatabase(db cdb) {
	if db != nil {
		C.hs_free_database(db)
	}
}

func cDatabaseSize(db cdb) int { return int(C.mk_hs_database_size(db)) }

func cScratchSize(s cscratch) int { return int(C.mk_hs_scratch_size(s)) }

// cAllocScratch grows *s (which may be nil) to fit db. On failure Hyperscan may have freed the
// old region and set *s to nil.
func cAllocScratch(db cdb, s *cscratch) error {
	p := *s
	e := C.hs_alloc_scratch(db, &p)
	*s = p
	if e != C.HS_SUCCESS {
		return Error(e)
	}
	return nil
}

func cCloneScratch(s cscratch) (cscratch, error) {
	var p cscratch
	if e := C.hs_clone_scratch(s, &p); e != C.HS_SUCCESS {
		return nil, Error(e)
	}
	return p, nil
}

func cFreeScratch(s cscratch) {
	if s != nil {
		C.hs_free_scratch(s)
	}
}

// cVersion is hs_version(): the release and build date of the linked library.
func cVersion() string { return C.GoString(C.hs_version()) }

// cPlatform describes the host platform that compiled databases target.
func cPlatform() (tune uint32, features uint64, err error) {
	var t C.uint
	var f C.ulonglong
	if e := C.mk_hs_platform(&t, &f); e != C.HS_SUCCESS {
		return 0, 0, Error(e)
	}
	return uint32(t), uint64(f), nil
}
