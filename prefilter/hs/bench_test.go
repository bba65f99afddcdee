package hs

import (
	"fmt"
	"sync"
	"testing"

	"github.com/flier/gohs/hyperscan"
)

// benchSet is one pattern set compiled once per process, for both scanners.
type benchSet struct {
	ps       []Pattern
	db       *Database
	sc       *Scanner
	gohsDB   hyperscan.BlockDatabase
	gohsScr  *hyperscan.Scratch
	compiled string
}

type benchKey struct {
	n   int
	lit bool
}

var (
	benchMu   sync.Mutex
	benchSets = map[benchKey]*benchSet{}
)

// getBenchSet compiles n real ET fast patterns (synthetic ones when the corpus is missing) into
// our Database and, from the same serialized bytes, a gohs BlockDatabase.
func getBenchSet(b *testing.B, n int) *benchSet {
	return getBenchSetAPI(b, n, useLiteralAPI)
}

// getBenchSetAPI is getBenchSet with the compile API chosen (lit: hs_compile_lit_multi).
func getBenchSetAPI(b *testing.B, n int, lit bool) *benchSet {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if s, ok := benchSets[benchKey{n, lit}]; ok {
		return s
	}
	saved := useLiteralAPI
	useLiteralAPI = lit
	defer func() { useLiteralAPI = saved }()
	if etRulesDir() == "" {
		b.Logf("ET Open corpus missing (shared/corpus/rules/et-open-2024-04; set MEERKAT_SHARED): using synthetic patterns")
	}
	ps, _, err := normalize(etOrSynthetic(b, n))
	if err != nil {
		b.Fatal(err)
	}
	ser, err := compileSerialized(ps)
	if err != nil {
		b.Fatal(err)
	}
	ids := map[uint32]bool{}
	for _, p := range ps {
		ids[p.ID] = true
	}
	db, err := newDatabase(ser, len(ps), len(ids))
	if err != nil {
		b.Fatal(err)
	}
	sc, err := NewScanner(db)
	if err != nil {
		b.Fatal(err)
	}
	gdb, err := hyperscan.UnmarshalBlockDatabase(ser)
	if err != nil {
		b.Fatal(err)
	}
	gscr, err := hyperscan.NewScratch(gdb)
	if err != nil {
		b.Fatal(err)
	}
	s := &benchSet{ps: ps, db: db, sc: sc, gohsDB: gdb, gohsScr: gscr}
	benchSets[benchKey{n, lit}] = s
	return s
}

// BenchmarkScan compares gohs' Scan (Go match callback) with Scanner.Scan (C callback into a
// []uint32) on the same compiled database and payload.
func BenchmarkScan(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		for _, size := range []int{64, 1460} {
			data := []byte(httpPayload(size))
			name := fmt.Sprintf("patterns=%dk/payload=%dB", n/1000, size)
			b.Run(name+"/gohs", func(b *testing.B) {
				s := getBenchSet(b, n)
				out := make([]uint32, 0, s.db.MaxMatches())
				handler := func(id uint, from, to uint64, flags uint, ctx interface{}) error {
					out = append(out, uint32(id))
					return nil
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				b.ResetTimer()
				for range b.N {
					out = out[:0]
					if err := s.gohsDB.Scan(data, s.gohsScr, handler, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(out)), "matches/op")
			})
			b.Run(name+"/thin", func(b *testing.B) {
				s := getBenchSet(b, n)
				out := make([]uint32, s.db.MaxMatches())
				m := 0
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				b.ResetTimer()
				for range b.N {
					k, err := s.sc.Scan(s.db, data, out)
					if err != nil {
						b.Fatal(err)
					}
					m = k
				}
				b.ReportMetric(float64(m), "matches/op")
			})
		}
	}
}

// BenchmarkScanByCompileAPI compares Scanner.Scan on databases built from the same patterns with
// hs_compile_ext_multi (hex-escaped regexes) and hs_compile_lit_multi (needs -tags
// hyperscan_v54).
func BenchmarkScanByCompileAPI(b *testing.B) {
	if !literalAPIAvailable {
		b.Skip("the literal API needs -tags hyperscan_v54 (or hyperscan_v52)")
	}
	for _, n := range []int{1000, 20000} {
		for _, size := range []int{64, 1460} {
			data := []byte(httpPayload(size))
			for _, lit := range []bool{false, true} {
				api := "hexregex"
				if lit {
					api = "literal"
				}
				b.Run(fmt.Sprintf("patterns=%dk/payload=%dB/%s", n/1000, size, api), func(b *testing.B) {
					s := getBenchSetAPI(b, n, lit)
					out := make([]uint32, s.db.MaxMatches())
					b.SetBytes(int64(len(data)))
					b.ResetTimer()
					for range b.N {
						if _, err := s.sc.Scan(s.db, data, out); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkCompile20k compiles 20k real patterns from scratch (no cache), with each compile API
// available in this build, against loading the same database from the on-disk cache.
func BenchmarkCompile20k(b *testing.B) {
	ps := etOrSynthetic(b, 20000)
	apis := []bool{false}
	if literalAPIAvailable {
		apis = append(apis, true)
	}
	for _, lit := range apis {
		name := "compile/hexregex"
		if lit {
			name = "compile/literal"
		}
		b.Run(name, func(b *testing.B) {
			saved := useLiteralAPI
			useLiteralAPI = lit
			defer func() { useLiteralAPI = saved }()
			b.ReportAllocs()
			for range b.N {
				db, err := Compile(ps, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(db.Size()), "db-bytes")
				db.Close()
			}
		})
	}
	b.Run("cache-load", func(b *testing.B) {
		dir := b.TempDir()
		db, err := CompileCached(ps, dir)
		if err != nil || !db.Cache().Stored {
			b.Fatal(err, db.Cache().Err)
		}
		db.Close()
		c0 := compiles.Load()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			db, err := CompileCached(ps, dir)
			if err != nil {
				b.Fatal(err)
			}
			if !db.Cache().Hit {
				b.Fatalf("miss: %+v", db.Cache())
			}
			db.Close()
		}
		if compiles.Load() != c0 {
			b.Fatal("cache hits compiled")
		}
	})
}
