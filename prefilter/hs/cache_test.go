package hs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func cachePatterns() []Pattern {
	return []Pattern{p(1, "GET /"), pi(2, "user-agent: evil"), p(3, "\x00\x01\x02"), p(3, "\xff\xfe"), pi(4, "cmd.exe")}
}

const cacheProbe = "GET /x HTTP/1.1\r\nUser-Agent: EVIL\r\n\r\n\x00\x01\x02 CMD.EXE"

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func compileCachedOK(t *testing.T, ps []Pattern, dir string) *Database {
	t.Helper()
	db, err := CompileCached(ps, dir)
	if err != nil {
		t.Fatalf("CompileCached: %v", err)
	}
	s, err := NewScanner(db)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := scanIDs(t, s, db, []byte(cacheProbe)), reference(ps, []byte(cacheProbe)); !slices.Equal(got, want) {
		t.Fatalf("cached database scans %v, want %v", got, want)
	}
	return db
}

func TestCacheMissThenHit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sgh") // created on demand
	ps := cachePatterns()

	c0 := compiles.Load()
	db := compileCachedOK(t, ps, dir)
	if o := db.Cache(); o.Hit || !o.Stored || o.Err != nil || o.Path == "" {
		t.Fatalf("first call: %+v", o)
	}
	if compiles.Load() != c0+1 {
		t.Fatalf("first call compiled %d times", compiles.Load()-c0)
	}
	if names := cacheFiles(t, dir); len(names) != 1 || !isCacheName(names[0]) {
		t.Fatalf("cache dir holds %v", names)
	}

	// Shuffled order and duplicates: same set, same file, no compile.
	shuffled := append(slices.Clone(ps), ps[0])
	slices.Reverse(shuffled)
	db2 := compileCachedOK(t, shuffled, dir)
	if o := db2.Cache(); !o.Hit || o.Stored || o.Err != nil || o.Path != db.Cache().Path {
		t.Fatalf("second call: %+v", o)
	}
	if compiles.Load() != c0+1 {
		t.Fatalf("a cache hit compiled")
	}
	if db2.Len() != db.Len() || db2.MaxMatches() != db.MaxMatches() || db2.Size() != db.Size() {
		t.Fatalf("loaded database differs: %d/%d/%d vs %d/%d/%d", db2.Len(), db2.MaxMatches(), db2.Size(),
			db.Len(), db.MaxMatches(), db.Size())
	}
	// Plain Compile with CacheDir is the same thing.
	db3, err := Compile(ps, Options{CacheDir: dir})
	if err != nil || !db3.Cache().Hit {
		t.Fatalf("Compile with CacheDir: %v %+v", err, db3.Cache())
	}
	// Empty pattern lists touch nothing.
	if db, err := CompileCached(nil, filepath.Join(dir, "none")); db != nil || err != nil {
		t.Fatalf("empty list: %v %v", db, err)
	}
}

func TestCacheKeys(t *testing.T) {
	base := cachePatterns()
	key := func(ps []Pattern) [32]byte {
		n, _, err := normalize(ps)
		if err != nil {
			t.Fatal(err)
		}
		k, err := cacheKey(n)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key(base)
	mod := func(f func([]Pattern) []Pattern) [32]byte {
		ps := slices.Clone(base)
		for i := range ps {
			ps[i].Bytes = slices.Clone(ps[i].Bytes)
		}
		return key(f(ps))
	}
	variants := map[string][32]byte{
		"id":      mod(func(ps []Pattern) []Pattern { ps[0].ID = 99; return ps }),
		"nocase":  mod(func(ps []Pattern) []Pattern { ps[0].Nocase = true; return ps }),
		"byte":    mod(func(ps []Pattern) []Pattern { ps[2].Bytes[1] = 9; return ps }),
		"longer":  mod(func(ps []Pattern) []Pattern { ps[2].Bytes = append(ps[2].Bytes, 0); return ps }),
		"added":   mod(func(ps []Pattern) []Pattern { return append(ps, p(5, "x")) }),
		"removed": mod(func(ps []Pattern) []Pattern { return ps[1:] }),
		// Length-prefixing: moving a byte from one pattern to the next changes the key.
		"split": key([]Pattern{p(1, "ab"), p(1, "c")}),
	}
	seen := map[[32]byte]string{k0: "base"}
	if key([]Pattern{p(1, "a"), p(1, "bc")}) == variants["split"] {
		t.Error("ab|c and a|bc share a key")
	}
	for name, k := range variants {
		if other, dup := seen[k]; dup {
			t.Errorf("variant %q has the key of %q", name, other)
		}
		seen[k] = name
	}
	if mod(func(ps []Pattern) []Pattern { slices.Reverse(ps); return ps }) != k0 {
		t.Error("order changes the key")
	}
	if mod(func(ps []Pattern) []Pattern { return append(ps, ps[1]) }) != k0 {
		t.Error("a duplicate changes the key")
	}
}

func TestCacheCorruptFileRecovers(t *testing.T) {
	ps := cachePatterns()
	corruptions := map[string]func([]byte) []byte{
		"empty":           func(b []byte) []byte { return nil },
		"header only":     func(b []byte) []byte { return b[:cacheHeaderLen] },
		"truncated":       func(b []byte) []byte { return b[:len(b)-100] },
		"short header":    func(b []byte) []byte { return b[:10] },
		"flipped payload": func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b },
		"bad magic":       func(b []byte) []byte { b[0] = 'X'; return b },
		"other key":       func(b []byte) []byte { b[len(cacheMagic)+3] ^= 1; return b },
		"appended":        func(b []byte) []byte { return append(b, 1, 2, 3) },
		"garbage":         func(b []byte) []byte { return bytes.Repeat([]byte{0xa5}, len(b)) },
		// Header and checksum valid, payload not a Hyperscan database: Hyperscan must refuse it.
		"valid checksum, junk payload": func(b []byte) []byte {
			payload := b[cacheHeaderLen:]
			for i := range payload {
				payload[i] = byte(i * 7)
			}
			binary.LittleEndian.PutUint32(b[cacheHeaderLen-4:], crc32.Checksum(payload, crcTable))
			return b
		},
		"valid checksum, truncated hs database": func(b []byte) []byte {
			b = b[:cacheHeaderLen+(len(b)-cacheHeaderLen)/2]
			payload := b[cacheHeaderLen:]
			binary.LittleEndian.PutUint64(b[cacheHeaderLen-12:], uint64(len(payload)))
			binary.LittleEndian.PutUint32(b[cacheHeaderLen-4:], crc32.Checksum(payload, crcTable))
			return b
		},
	}
	for name, corrupt := range corruptions {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := compileCachedOK(t, ps, dir).Cache().Path
			good, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, corrupt(slices.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			c0 := compiles.Load()
			o := compileCachedOK(t, ps, dir).Cache()
			if o.Hit || !o.Stored || o.Err == nil {
				t.Fatalf("corrupt file: %+v", o)
			}
			t.Logf("reported: %v", o.Err)
			if compiles.Load() != c0+1 {
				t.Fatal("corrupt file was not recompiled")
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, good) {
				t.Fatal("the file was not rewritten")
			}
			if o := compileCachedOK(t, ps, dir).Cache(); !o.Hit || o.Err != nil {
				t.Fatalf("after rewrite: %+v", o)
			}
		})
	}
	t.Run("directory in the way", func(t *testing.T) {
		dir := t.TempDir()
		path := compileCachedOK(t, ps, dir).Cache().Path
		os.Remove(path)
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		o := compileCachedOK(t, ps, dir).Cache()
		if o.Hit || o.Stored || o.Err == nil {
			t.Fatalf("%+v", o)
		}
		if names := cacheFiles(t, dir); len(names) != 1 {
			t.Fatalf("temporary file left behind: %v", names)
		}
	})
	t.Run("unwritable cache dir", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "not-a-dir")
		os.WriteFile(file, []byte("x"), 0o644)
		o := compileCachedOK(t, ps, file).Cache()
		if o.Hit || o.Stored || o.Err == nil {
			t.Fatalf("%+v", o)
		}
	})
}

func TestCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	sets := [][]Pattern{cachePatterns(), append(cachePatterns(), p(9, "other")), {pi(1, "third")}}
	var wg sync.WaitGroup
	for g := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps := sets[g%len(sets)]
			db, err := CompileCached(ps, dir)
			if err != nil {
				t.Error(err)
				return
			}
			if o := db.Cache(); o.Err != nil {
				t.Error(o.Err)
			}
			s, err := NewScanner(db)
			if err != nil {
				t.Error(err)
				return
			}
			out := make([]uint32, db.MaxMatches())
			n, err := s.Scan(db, []byte(cacheProbe+" other third"), out)
			got := slices.Clone(out[:n])
			slices.Sort(got)
			if want := reference(ps, []byte(cacheProbe+" other third")); err != nil || !slices.Equal(got, want) {
				t.Errorf("set %d: %v %v want %v", g%len(sets), got, err, want)
			}
		}()
	}
	wg.Wait()
	names := cacheFiles(t, dir)
	if len(names) != len(sets) {
		t.Fatalf("cache dir holds %v", names)
	}
	for _, n := range names {
		if !isCacheName(n) {
			t.Errorf("unexpected file %q", n)
		}
	}
}

func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	name := func(c byte) string { return strings.Repeat(string(c), 64) + cacheExt }
	write := func(n string, size int, age time.Duration) {
		t.Helper()
		path := filepath.Join(dir, n)
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	write(name('a'), 100, time.Minute)
	write(name('b'), 100, 2*time.Hour)
	write(name('c'), 100, 3*time.Hour)
	write(name('d'), 100, 30*24*time.Hour)            // too old
	write("."+name('e')+".tmp12345", 10, 2*time.Hour) // abandoned write
	write("."+name('f')+".tmp999", 10, time.Second)   // write in progress
	write("foreign.hs", 100, 90*24*time.Hour)         // not ours
	write(strings.Repeat("A", 64)+cacheExt, 100, 90*24*time.Hour)
	write("README", 1, 90*24*time.Hour)

	removed, err := PruneCache(dir, DefaultCacheMaxAge, 250)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"." + name('f') + ".tmp999", strings.Repeat("A", 64) + cacheExt, "README", name('a'), name('b'), "foreign.hs"}
	got := cacheFiles(t, dir)
	slices.Sort(want)
	slices.Sort(got)
	if removed != 3 || !slices.Equal(got, want) {
		t.Fatalf("removed %d, left %v; want 3, %v", removed, got, want)
	}
	if n, err := PruneCache(filepath.Join(dir, "missing"), time.Hour, 1); n != 0 || err != nil {
		t.Fatalf("missing dir: %d %v", n, err)
	}
	if n, err := PruneCache(dir, 0, 0); n != 0 || err != nil {
		t.Fatalf("no bounds: %d %v", n, err)
	}

	// A hit refreshes the file's age, so pruning by age keeps databases in use.
	cdir := t.TempDir()
	path := compileCachedOK(t, cachePatterns(), cdir).Cache().Path
	old := now.Add(-10 * 24 * time.Hour)
	os.Chtimes(path, old, old)
	if o := compileCachedOK(t, cachePatterns(), cdir).Cache(); !o.Hit {
		t.Fatalf("%+v", o)
	}
	if n, _ := PruneCache(cdir, DefaultCacheMaxAge, DefaultCacheMaxBytes); n != 0 {
		t.Fatal("a database just used was pruned")
	}
	os.Chtimes(path, old, old)
	if n, _ := PruneCache(cdir, DefaultCacheMaxAge, DefaultCacheMaxBytes); n != 1 {
		t.Fatal("an unused database was kept")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
