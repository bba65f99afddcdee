package hs

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
)

// MaxCompileWorkers bounds the databases CompileSets compiles at once: a Hyperscan compile of
// a few thousand literals peaks at 100-300 MB.
const MaxCompileWorkers = 4

// CompileSets compiles one database per pattern set, as a rule engine needs for its groups:
// sets with the same patterns (same IDs, bytes and case, in the same order) share one
// database, and the distinct ones compile in parallel (at most MaxCompileWorkers at once,
// and no more than GOMAXPROCS), through the on-disk cache when opts.CacheDir is set. dbs[i]
// is the database of sets[i] (nil for an empty set); distinct lists each database once, in
// the order of the sets that first used it. On error every database compiled is closed.
func CompileSets(sets [][]Pattern, opts Options) (dbs, distinct []*Database, err error) {
	type job struct {
		pats []Pattern
		db   *Database
		err  error
	}
	var jobs []*job
	seed := maphash.MakeSeed()
	byHash := map[uint64][]*job{}
	jobOf := make([]*job, len(sets))
	for i, pats := range sets {
		if len(pats) == 0 {
			continue
		}
		h := patternsHash(pats, seed)
		var j *job
		for _, o := range byHash[h] {
			if slices.EqualFunc(o.pats, pats, samePattern) {
				j = o
				break
			}
		}
		if j == nil {
			j = &job{pats: pats}
			byHash[h] = append(byHash[h], j)
			jobs = append(jobs, j)
		}
		jobOf[i] = j
	}
	work := make(chan *job)
	var wg sync.WaitGroup
	for range min(len(jobs), runtime.GOMAXPROCS(0), MaxCompileWorkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.db, j.err = Compile(j.pats, opts)
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	for _, j := range jobs {
		if j.err != nil {
			for _, o := range jobs {
				o.db.Close()
			}
			return nil, nil, fmt.Errorf("compiling %d patterns: %w", len(j.pats), j.err)
		}
	}
	dbs = make([]*Database, len(sets))
	for i, j := range jobOf {
		if j != nil {
			dbs[i] = j.db
		}
	}
	distinct = make([]*Database, len(jobs))
	for i, j := range jobs {
		distinct[i] = j.db
	}
	return dbs, distinct, nil
}

func samePattern(a, b Pattern) bool {
	return a.ID == b.ID && a.Nocase == b.Nocase && string(a.Bytes) == string(b.Bytes)
}

func patternsHash(ps []Pattern, seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, p := range ps {
		h.Write(p.Bytes)
		h.WriteByte(0)
		if p.Nocase {
			h.WriteByte(1)
		}
	}
	return h.Sum64()
}
