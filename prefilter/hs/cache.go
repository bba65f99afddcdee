package hs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The on-disk cache.
//
// File name: hex(SHA-256 of the cache key) + ".hsdb". The key covers a format version, the
// Hyperscan version string (release and build date), the host platform that databases compile
// for (tune family and CPU feature bits from hs_populate_platform), block mode, the compile API
// (literal or hex-escaped regex) and every normalized pattern: ID, compile flags, length, bytes.
//
// File content: an 8-byte magic, the 32-byte key, the payload length (uint64 little endian), the
// CRC-32C of the payload (uint32 little endian), then the payload: hs_serialize_database output
// (gohs Database.Marshal). A file whose header, length or checksum does not fit, or that
// Hyperscan refuses to deserialize, is ignored: the patterns are compiled and the file rewritten.
// Files are written to a temporary name in the same directory and renamed into place, so
// concurrent writers and readers (goroutines or processes) only ever see complete files.
//
// A hit sets the file's modification time to now, so a file's age is the time since it was last
// used; [PruneCache] removes files unused for longer than a maximum age (as Suricata's
// sgh-mpm-caching-max-age) and then the least recently used ones beyond a size bound.

const (
	cacheMagic     = "MKHSDB\x00\x01"
	cacheExt       = ".hsdb"
	cacheHeaderLen = len(cacheMagic) + sha256.Size + 8 + 4
	// cacheMaxFile bounds what a cache read accepts; real databases are a few MiB.
	cacheMaxFile = 1 << 30
	// staleTemp is how old an unfinished temporary file must be before PruneCache removes it.
	staleTemp = time.Hour
)

// DefaultCacheMaxAge is the maximum age (time since last use) that [PruneCache] callers should
// use when the configuration sets none: a week.
const DefaultCacheMaxAge = 7 * 24 * time.Hour

// DefaultCacheMaxBytes is the size bound that [PruneCache] callers should use when the
// configuration sets none: 1 GiB (a 20k-pattern database is 3-5 MiB).
const DefaultCacheMaxBytes = 1 << 30

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// CacheOutcome reports how the on-disk cache served one [CompileCached] call.
type CacheOutcome struct {
	// Path is the cache file of this pattern set ("" when caching was off).
	Path string
	// Hit: the database was loaded from Path; nothing was compiled.
	Hit bool
	// Stored: the database was compiled and written to Path.
	Stored bool
	// Err is the cache's first problem: a corrupt or unreadable file (which was then ignored
	// and recompiled) or a failed write. The Database is valid regardless.
	Err error
}

// CompileCached is [Compile] with the on-disk cache in dir (created if missing): on a hit the
// database is loaded without compiling (about a millisecond for 20k patterns instead of about a
// second); on a miss it is compiled and written to dir. Cache problems never fail the call;
// they are reported by [Database.Cache]. Safe for concurrent use, also by several processes
// sharing dir. dir must be trusted (see the package documentation). CompileCached does not
// prune dir: call [PruneCache] after building all databases.
func CompileCached(patterns []Pattern, dir string) (*Database, error) {
	return Compile(patterns, Options{CacheDir: dir})
}

func compileCached(ps []Pattern, ids int, dir string) (*Database, error) {
	key, err := cacheKey(ps)
	if err != nil {
		ser, cerr := compileSerialized(ps)
		if cerr != nil {
			return nil, cerr
		}
		d, cerr := newDatabase(ser, len(ps), ids)
		if cerr != nil {
			return nil, cerr
		}
		d.cache.Err = err
		return d, nil
	}
	name := hex.EncodeToString(key[:]) + cacheExt
	out := CacheOutcome{Path: filepath.Join(dir, name)}

	ser, rerr := readCacheFile(out.Path, key)
	if rerr == nil {
		d, derr := newDatabase(ser, len(ps), ids)
		if derr == nil {
			now := time.Now()
			_ = os.Chtimes(out.Path, now, now) // best effort: a read-only cache still serves
			out.Hit = true
			cacheHits.Add(1)
			d.cache = out
			return d, nil
		}
		rerr = fmt.Errorf("hs cache: %s: %w", out.Path, derr)
	}
	if !errors.Is(rerr, fs.ErrNotExist) {
		out.Err = rerr
	}

	ser, err = compileSerialized(ps)
	if err != nil {
		return nil, err
	}
	d, err := newDatabase(ser, len(ps), ids)
	if err != nil {
		return nil, err
	}
	if werr := writeCacheFile(dir, name, key, ser); werr != nil {
		if out.Err == nil {
			out.Err = werr
		}
	} else {
		out.Stored = true
	}
	d.cache = out
	return d, nil
}

// hostInfo is what the cache key needs to know about the library and the host; it does not
// change while the process runs.
var hostInfo = sync.OnceValues(func() (string, error) {
	tune, features, err := cPlatform()
	if err != nil {
		return "", fmt.Errorf("hs cache: hs_populate_platform: %w", err)
	}
	return fmt.Sprintf("hyperscan %s\x00tune %d\x00features %#x\x00block\x00", cVersion(), tune, features), nil
})

// cacheKey is the SHA-256 that names the cache file of ps (normalized).
func cacheKey(ps []Pattern) ([sha256.Size]byte, error) {
	host, err := hostInfo()
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	h := sha256.New()
	// Stage the small per-pattern writes: one Write per pattern costs more than the hashing.
	buf := make([]byte, 0, 64<<10)
	buf = append(buf, "meerkat prefilter/hs cache 1\x00"...)
	buf = append(buf, host...)
	if useLiteralAPI {
		buf = append(buf, "literal\x00"...)
	} else {
		buf = append(buf, "hexregex\x00"...)
	}
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(ps)))
	for _, p := range ps {
		if len(buf)+16+len(p.Bytes) > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = binary.LittleEndian.AppendUint32(buf, p.ID)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(flags(p)))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(p.Bytes)))
		if len(p.Bytes) > cap(buf)-len(buf) {
			h.Write(buf)
			h.Write(p.Bytes)
			buf = buf[:0]
			continue
		}
		buf = append(buf, p.Bytes...)
	}
	h.Write(buf)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key, nil
}

// readCacheFile returns the payload of a cache file after checking its header and checksum.
func readCacheFile(path string, key [sha256.Size]byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() < int64(cacheHeaderLen) || st.Size() > cacheMaxFile {
		return nil, fmt.Errorf("hs cache: %s: not a cache file (size %d)", path, st.Size())
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("hs cache: %s: %w", path, err)
	}
	h := b[:cacheHeaderLen]
	payload := b[cacheHeaderLen:]
	switch {
	case string(h[:len(cacheMagic)]) != cacheMagic:
		return nil, fmt.Errorf("hs cache: %s: bad magic", path)
	case !bytes.Equal(h[len(cacheMagic):len(cacheMagic)+sha256.Size], key[:]):
		return nil, fmt.Errorf("hs cache: %s: key mismatch", path)
	case binary.LittleEndian.Uint64(h[cacheHeaderLen-12:]) != uint64(len(payload)):
		return nil, fmt.Errorf("hs cache: %s: truncated (%d of %d payload bytes)", path,
			len(payload), binary.LittleEndian.Uint64(h[cacheHeaderLen-12:]))
	case binary.LittleEndian.Uint32(h[cacheHeaderLen-4:]) != crc32.Checksum(payload, crcTable):
		return nil, fmt.Errorf("hs cache: %s: checksum mismatch", path)
	}
	return payload, nil
}

// writeCacheFile writes the file atomically: temporary file, fsync, rename.
func writeCacheFile(dir, name string, key [sha256.Size]byte, payload []byte) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("hs cache: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return fmt.Errorf("hs cache: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("hs cache: %w", err)
		}
	}()
	h := make([]byte, cacheHeaderLen)
	copy(h, cacheMagic)
	copy(h[len(cacheMagic):], key[:])
	binary.LittleEndian.PutUint64(h[cacheHeaderLen-12:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(h[cacheHeaderLen-4:], crc32.Checksum(payload, crcTable))
	if _, err = f.Write(h); err != nil {
		return err
	}
	if _, err = f.Write(payload); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// isCacheName reports whether name is a cache file name: 64 lower-case hex digits + ".hsdb".
func isCacheName(name string) bool {
	base, ok := strings.CutSuffix(name, cacheExt)
	if !ok || len(base) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(base); i++ {
		c := base[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// PruneCache bounds a cache directory. It removes cache files not used (loaded or written) for
// longer than maxAge, then, while the remaining files total more than maxBytes, the least
// recently used ones; and temporary files that writers left behind over an hour ago. maxAge <= 0
// or maxBytes <= 0 disables that bound. Only files named like cache files are touched, so dir
// may be shared with other programs. A missing dir is not an error. It returns the number of
// files removed and the first error met (it carries on after errors).
func PruneCache(dir string, maxAge time.Duration, maxBytes int64) (removed int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	now := time.Now()
	var firstErr error
	remove := func(name string) {
		if e := os.Remove(filepath.Join(dir, name)); e == nil {
			removed++
		} else if !errors.Is(e, fs.ErrNotExist) && firstErr == nil {
			firstErr = e
		}
	}
	type file struct {
		name  string
		mtime time.Time
		size  int64
	}
	var files []file
	for _, e := range entries {
		name := e.Name()
		isTemp := strings.HasPrefix(name, ".") && strings.Contains(name, cacheExt+".tmp") &&
			isCacheName(name[1:strings.Index(name, cacheExt+".tmp")+len(cacheExt)])
		if !isTemp && !isCacheName(name) {
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		info, e := e.Info()
		if e != nil {
			continue // removed meanwhile
		}
		switch {
		case isTemp:
			if now.Sub(info.ModTime()) > staleTemp {
				remove(name)
			}
		case maxAge > 0 && now.Sub(info.ModTime()) > maxAge:
			remove(name)
		default:
			files = append(files, file{name, info.ModTime(), info.Size()})
		}
	}
	if maxBytes > 0 {
		slices.SortFunc(files, func(a, b file) int { return b.mtime.Compare(a.mtime) }) // newest first
		var total int64
		for _, f := range files {
			total += f.size
			if total > maxBytes {
				remove(f.name)
			}
		}
	}
	return removed, firstErr
}
