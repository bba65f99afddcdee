package dataset

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "set.lst")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadFormats follows ParseDatasets (rust/src/detect/datasets.rs): strings are base64,
// hashes hex, "value,rep" lines carry a uint16 reputation, mixing forms fails, lines with
// more than two fields are skipped. The dns_rep.rep lines are those of suricata-verify's
// datarep tests (Y2xpZW50LWNmLmRyb3Bib3guY29t is client-cf.dropbox.com).
func TestLoadFormats(t *testing.T) {
	md5 := "d41d8cd98f00b204e9800998ecf8427e"
	tests := []struct {
		name    string
		typ     Type
		body    string
		err     string
		key     []byte
		wantRep uint16
		found   bool
		n       int
	}{
		{name: "string rep", typ: String, body: "Y2xpZW50LWNmLmRyb3Bib3guY29t,255\nYmxvY2suZHJvcGJveC5jb20=,255\n",
			key: []byte("client-cf.dropbox.com"), wantRep: 255, found: true, n: 2},
		{name: "string plain", typ: String, body: base64.StdEncoding.EncodeToString([]byte("a b")) + "\n",
			key: []byte("a b"), found: true, n: 1},
		{name: "string not base64 decoded", typ: String, body: "YQ==\n", key: []byte("YQ=="), n: 1},
		{name: "bad base64", typ: String, body: "!!!\n", err: "bad base64"},
		{name: "bad rep", typ: String, body: "YQ==,70000\n", err: "invalid datarep value"},
		{name: "mixed", typ: String, body: "YQ==\nYg==,1\n", err: "cannot mix"},
		{name: "three fields skipped", typ: String, body: "YQ==,1,2\nYg==,3\n", key: []byte("b"), wantRep: 3, found: true, n: 1},
		{name: "md5", typ: MD5, body: md5 + ",7\n", key: hexKey(md5), wantRep: 7, found: true, n: 1},
		{name: "md5 bad line skipped", typ: MD5, body: "zz\n" + md5 + "\n", key: hexKey(md5), found: true, n: 1},
		{name: "ipv4", typ: IPv4, body: "10.0.0.1,3\n", key: []byte{10, 0, 0, 1}, wantRep: 3, found: true, n: 1},
		{name: "ipv4 bad", typ: IPv4, body: "::1\n", err: "invalid Ipv4"},
		{name: "ipv6 mapped", typ: IPv6, body: "::ffff:10.0.0.1\n", key: []byte{10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, found: true, n: 1},
		{name: "ipv6 dotted refused", typ: IPv6, body: "10.0.0.1\n", err: "invalid Ipv6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry()
			s, err := r.Get("s", tc.typ, writeFile(t, tc.body), 0)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if r.Lookup("s") != nil {
					t.Fatal("failed set registered")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Len() != tc.n {
				t.Errorf("len = %d, want %d", s.Len(), tc.n)
			}
			rep, ok := s.Lookup(tc.key)
			if ok != tc.found || rep != tc.wantRep {
				t.Errorf("lookup = %d,%v want %d,%v", rep, ok, tc.wantRep, tc.found)
			}
		})
	}
}

func hexKey(s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		b[i] = unhex(s[2*i])<<4 | unhex(s[2*i+1])
	}
	return b
}

func unhex(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}

// TestGet follows DatasetGetOrCreate: an unknown set needs a type, a known one must keep its
// type and load file, a missing load file fails.
func TestGet(t *testing.T) {
	r := NewRegistry()
	if _, err := r.Get("a", NotSet, "", 0); err == nil || !strings.Contains(err.Error(), "not defined") {
		t.Fatalf("err = %v", err)
	}
	a, err := r.Get("a", String, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := r.Get("a", NotSet, "", 0); err != nil || b != a {
		t.Fatalf("second get: %v %v", b, err)
	}
	if _, err := r.Get("a", MD5, "", 0); err == nil {
		t.Fatal("type mismatch accepted")
	}
	if _, err := r.Get("a", String, "/x", 0); err == nil || !strings.Contains(err.Error(), "load mismatch") {
		t.Fatalf("load mismatch: %v", err)
	}
	if _, err := r.Get("m", String, filepath.Join(t.TempDir(), "missing"), 0); err == nil {
		t.Fatal("missing load file accepted")
	}
	if _, err := r.Get(strings.Repeat("n", 64), String, "", 0); err == nil {
		t.Fatal("64-byte name accepted (DATASET_NAME_MAX_LEN is 63)")
	}
}

// TestMemcap: adds past the memcap are refused and counted; Add/Remove report as
// DatasetAdd/DatasetRemove do (1 added, 0 present).
func TestMemcap(t *testing.T) {
	r := NewRegistry()
	s, err := r.Get("c", String, "", 3*(entryOverhead+1))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 1, 1, -1, -1} {
		if got := s.Add([]byte{byte('a' + i)}, 0); got != want {
			t.Errorf("add %d = %d want %d", i, got, want)
		}
	}
	if s.Add([]byte("a"), 0) != 0 {
		t.Error("re-add not 0")
	}
	if s.Full() != 2 || s.Len() != 3 {
		t.Errorf("full %d len %d", s.Full(), s.Len())
	}
	if !s.Remove([]byte("a")) || s.Remove([]byte("a")) {
		t.Error("remove")
	}
	if s.Add([]byte("z"), 0) != 1 {
		t.Error("add after remove refused")
	}
	if s.Add(nil, 0) != -1 {
		t.Error("empty key added")
	}
}

// TestLookupNoAlloc: the per-packet lookup does not allocate.
func TestLookupNoAlloc(t *testing.T) {
	r := NewRegistry()
	s, _ := r.Get("x", String, "", 0)
	s.Add([]byte("key"), 1)
	buf := []byte("key")
	if n := testing.AllocsPerRun(100, func() { s.Lookup(buf) }); n != 0 {
		t.Fatalf("allocs = %v", n)
	}
}

// BenchmarkLookup: one datarep/isset lookup of a DNS name in a 10000-entry set.
func BenchmarkLookup(b *testing.B) {
	s, _ := NewRegistry().Get("b", String, "", 0)
	for i := 0; i < 10000; i++ {
		s.Add([]byte("host"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune(i))), 1)
	}
	s.Add([]byte("client-cf.dropbox.com"), 255)
	key := []byte("client-cf.dropbox.com")
	b.ReportAllocs()
	for b.Loop() {
		s.Lookup(key)
	}
}
