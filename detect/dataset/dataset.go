// Package dataset holds Suricata's datasets (datasets.c): named sets of strings, hashes or
// addresses, optionally with a reputation value per entry, shared by every rule that names
// them (dataset and datarep keywords) and bounded by a memcap.
package dataset

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Type is a dataset's type (enum DatasetTypes).
type Type uint8

// Dataset types. NotSet is a rule that names a set without a type (the set must exist).
const (
	NotSet Type = iota
	String
	MD5
	SHA256
	IPv4
	IPv6
)

// ParseType parses a "type" value as DetectDatasetParse/DetectDatarepParse do: "ip" and
// "ipv6" are both IPv6.
func ParseType(s string) (Type, bool) {
	switch s {
	case "string":
		return String, true
	case "md5":
		return MD5, true
	case "sha256":
		return SHA256, true
	case "ipv4":
		return IPv4, true
	case "ip", "ipv6":
		return IPv6, true
	}
	return NotSet, false
}

func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case MD5:
		return "md5"
	case SHA256:
		return "sha256"
	case IPv4:
		return "ipv4"
	case IPv6:
		return "ipv6"
	}
	return "notset"
}

// DefaultMemcap is the memcap of a set when neither the rule nor datasets.defaults gives
// one (THashInit's default: 16 MiB).
const DefaultMemcap = 16 << 20

// entryOverhead is the bytes an entry is charged besides its key (the hash node and the
// reputation), so that a memcap bounds the entry count.
const entryOverhead = 64

// Set is one dataset. Lookup, Add and Remove are safe for concurrent use.
type Set struct {
	Name   string
	Type   Type
	Load   string
	Memcap uint64

	mu   sync.RWMutex
	m    map[string]uint16
	used uint64
	// full counts the adds refused because the memcap was reached.
	full uint64
}

// Len returns the number of entries.
func (s *Set) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.m)
}

// Full returns the number of adds refused because the set's memcap was reached.
func (s *Set) Full() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.full
}

// keyLen returns the fixed key length of the type, 0 for strings.
func (t Type) keyLen() int {
	switch t {
	case MD5:
		return 16
	case SHA256:
		return 32
	case IPv4:
		return 4
	case IPv6:
		return 16
	}
	return 0
}

// Lookup is DatasetLookupwRep: whether key is in the set and its reputation. It does not
// allocate. An empty key, or a key of the wrong length for a fixed-size type, is not found.
func (s *Set) Lookup(key []byte) (rep uint16, ok bool) {
	if len(key) == 0 || (s.Type.keyLen() != 0 && len(key) != s.Type.keyLen()) {
		return 0, false
	}
	s.mu.RLock()
	rep, ok = s.m[string(key)]
	s.mu.RUnlock()
	return rep, ok
}

// Add is DatasetAddwRep: 1 when key was added, 0 when it was already there, -1 when it could
// not be added (memcap reached, or a key of the wrong length).
func (s *Set) Add(key []byte, rep uint16) int {
	if len(key) == 0 || (s.Type.keyLen() != 0 && len(key) != s.Type.keyLen()) {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[string(key)]; ok {
		return 0
	}
	cost := uint64(len(key)) + entryOverhead
	if s.Memcap != 0 && s.used+cost > s.Memcap {
		s.full++
		return -1
	}
	s.m[string(key)] = rep
	s.used += cost
	return 1
}

// Remove is DatasetRemove: true when key was in the set.
func (s *Set) Remove(key []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[string(key)]; !ok {
		return false
	}
	delete(s.m, string(key))
	s.used -= uint64(len(key)) + entryOverhead
	return true
}

// Registry is the engine's datasets by name (Suricata's global list of sets).
type Registry struct {
	mu sync.Mutex
	// DefaultMemcap is datasets.defaults.memcap (0: DefaultMemcap).
	DefaultMemcap uint64
	sets          map[string]*Set
}

// Default is the registry the detection engine uses; rule compilation adds sets to it.
var Default = NewRegistry()

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{sets: map[string]*Set{}} }

// maxNameLen is DATASET_NAME_MAX_LEN.
const maxNameLen = 63

// Get is DatasetGet: the set called name, created (and filled from load, when given) the
// first time. A set that exists must have the same type (unless typ is NotSet) and the same
// load file when load is given; a set that does not exist needs a type.
func (r *Registry) Get(name string, typ Type, load string, memcap uint64) (*Set, error) {
	if len(name) > maxNameLen {
		return nil, fmt.Errorf("dataset %s creation failed: name too long", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sets[name]; ok {
		if typ != NotSet && s.Type != typ {
			return nil, fmt.Errorf("dataset %s already exists and is of type %s", name, s.Type)
		}
		if load != "" && s.Load != load {
			return nil, fmt.Errorf("dataset %s load mismatch: %s != %s", name, s.Load, load)
		}
		return s, nil
	}
	if typ == NotSet {
		return nil, fmt.Errorf("dataset %s not defined", name)
	}
	if memcap == 0 {
		memcap = r.DefaultMemcap
	}
	if memcap == 0 {
		memcap = DefaultMemcap
	}
	s := &Set{Name: name, Type: typ, Load: load, Memcap: memcap, m: map[string]uint16{}}
	if load != "" {
		f, err := os.Open(load)
		if err != nil {
			return nil, fmt.Errorf("dataset %s creation failed: %v", name, err)
		}
		err = s.load(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("dataset %s could not be processed: %v", name, err)
		}
	}
	r.sets[name] = s
	return s, nil
}

// Lookup returns the set called name, nil when there is none.
func (r *Registry) Lookup(name string) *Set {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sets[name]
}

// errMixed is ParseDatasets' error for a file with lines with and without reputation.
var errMixed = errors.New("cannot mix dataset and datarep values")

// maxLine bounds one line of a load file.
const maxLine = 1 << 20

// load is ParseDatasets (rust/src/detect/datasets.rs): one value per line, "value" or
// "value,rep"; a line with more than two comma-separated fields is skipped; mixing the two
// forms is an error. Strings are base64 encoded, md5/sha256 are hex, addresses are text.
// A value that does not decode is skipped for hashes and an error for the other types (a
// fatal init error in Suricata), as is a reputation that is not a uint16.
func (s *Set) load(f io.Reader) error {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	noRep, withRep := false, false
	for sc.Scan() {
		v := strings.Split(sc.Text(), ",")
		if len(v) > 2 {
			continue
		}
		if len(v) == 1 {
			if withRep {
				return errMixed
			}
			noRep = true
		} else {
			if noRep {
				return errMixed
			}
			withRep = true
		}
		key, err := s.Type.decode(v[0])
		if err != nil {
			if s.Type == MD5 || s.Type == SHA256 {
				continue
			}
			return err
		}
		var rep uint16
		if len(v) == 2 {
			n, err := strconv.ParseUint(v[1], 10, 16)
			if err != nil {
				return fmt.Errorf("invalid datarep value %q", v[1])
			}
			rep = uint16(n)
		}
		s.Add(key, rep)
	}
	return sc.Err()
}

// decode converts a load file value to the set's key bytes.
func (t Type) decode(v string) ([]byte, error) {
	switch t {
	case String:
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return nil, fmt.Errorf("bad base64 encoding %q", v)
		}
		return b, nil
	case MD5, SHA256:
		b, err := hex.DecodeString(v)
		if err != nil || len(b) != t.keyLen() {
			return nil, fmt.Errorf("bad %s value %q", t, v)
		}
		return b, nil
	case IPv4:
		a, err := netip.ParseAddr(v)
		if err != nil || !a.Is4() {
			return nil, fmt.Errorf("invalid Ipv4 value %q", v)
		}
		b := a.As4()
		return b[:], nil
	case IPv6:
		a, err := netip.ParseAddr(v)
		if err != nil || a.Is4() {
			// process_ipv6_set parses with Rust's Ipv6Addr, which refuses dotted IPv4.
			return nil, fmt.Errorf("invalid Ipv6 value %q", v)
		}
		if a.Is4In6() {
			// An IPv4-mapped address is stored as Suricata keeps IPv4 addresses in 16
			// bytes: the 4 address bytes first, the rest zero (process_ipv6_set).
			var k [16]byte
			b := a.Unmap().As4()
			copy(k[:], b[:])
			return k[:], nil
		}
		b := a.As16()
		return b[:], nil
	}
	return nil, fmt.Errorf("dataset type not set")
}
