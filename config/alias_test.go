package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// loadCost loads body from a file and returns the error, the wall time and the memory used:
// the bytes allocated on the heap, or the growth of the memory taken from the system when that
// is larger (a deep recursion grows goroutine stacks, which TotalAlloc does not count).
func loadCost(t *testing.T, body string) (error, time.Duration, uint64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "suricata.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Load(path)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	used := after.TotalAlloc - before.TotalAlloc
	if grown := after.Sys - before.Sys; after.Sys > before.Sys && grown > used {
		used = grown
	}
	return err, elapsed, used
}

// TestAliasCycles: the alias cycles of issue #24 (each once cost about 850 MB and 1.2 s before
// the node limit refused them) are refused in under 100 ms and 50 MB of allocation.
func TestAliasCycles(t *testing.T) {
	for name, body := range map[string]string{
		"list":         "a: &a [*a]\n",
		"mapping":      "a: &a {b: *a}\n",
		"merge key":    "a: &a {<<: *a}\n",
		"nested lists": "a: &a [[[*a]]]\n",
		"outputs":      "outputs: &o\n  - eve-log:\n      enabled: yes\n      types: *o\n",
		"two anchors":  "a: &a {b: &b [1, {c: *a}]}\n",
		"block style":  "a: &a\n  b:\n    - c: *a\n",
	} {
		t.Run(name, func(t *testing.T) {
			err, elapsed, alloc := loadCost(t, header+body)
			if err == nil {
				t.Fatal("alias cycle loaded")
			}
			if !strings.Contains(err.Error(), "alias cycle") {
				t.Errorf("error = %v, want an alias cycle", err)
			}
			if elapsed >= 100*time.Millisecond {
				t.Errorf("refused after %v, want under 100 ms", elapsed)
			}
			if alloc >= 50<<20 {
				t.Errorf("allocated %d bytes, want under 50 MB", alloc)
			}
		})
	}
}

// TestAliasExpansionBySize: aliases that expand into a huge tree without a cycle are refused by
// the size of what they expand to, even when the number of nodes stays small (a long scalar
// repeated by aliases), within the same time and memory bounds.
func TestAliasExpansionBySize(t *testing.T) {
	var b strings.Builder
	b.WriteString(header + "s: &s \"" + strings.Repeat("x", 64<<10) + "\"\n")
	b.WriteString("l1: &l1 [" + strings.Repeat("*s, ", 31) + "*s]\n")
	b.WriteString("l2: &l2 [" + strings.Repeat("*l1, ", 31) + "*l1]\n") // 1,024 scalars of 64 KiB
	b.WriteString("l3: [" + strings.Repeat("*l2, ", 31) + "*l2]\n")     // 32,768: 2 GiB of text
	err, elapsed, alloc := loadCost(t, b.String())
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("error = %v, want configuration too large", err)
	}
	if elapsed >= 100*time.Millisecond || alloc >= 50<<20 {
		t.Errorf("refused after %v and %d bytes, want under 100 ms and 50 MB", elapsed, alloc)
	}
}

// TestAliasesNotCycles: ordinary aliases, including one anchor used many times, an alias used
// inside a later anchored node and an alias next to (not inside) its anchor, still load.
func TestAliasesNotCycles(t *testing.T) {
	c := load(t, header+`
base: &b
  memcap: 1mb
  hash-size: 65536
flow: *b
stream: &s
  reassembly: *b
  memcap: 2mb
defrag:
  a: *s
  b: *s
list: &l [1, 2, *b]
again: [*l, *l]
vars:
  address-groups:
    HOME_NET: &home "[10.0.0.0/8]"
    EXTERNAL_NET: *home
`)
	for key, want := range map[string]string{
		"flow.memcap":                      "1mb",
		"stream.reassembly.hash-size":      "65536",
		"defrag.b.reassembly.memcap":       "1mb",
		"defrag.a.memcap":                  "2mb",
		"again.1.2.memcap":                 "1mb",
		"vars.address-groups.EXTERNAL_NET": "[10.0.0.0/8]",
	} {
		if v, ok := c.String(key); !ok || v != want {
			t.Errorf("%s = %q, %v; want %q", key, v, ok, want)
		}
	}
}
