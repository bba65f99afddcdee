package config

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// FuzzLoad checks that no configuration file makes Load, Settings or Dump panic or hang.
// Seeds are in testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(header + "a: yes\n"))
	f.Add([]byte(outputsYAML))
	f.Add([]byte(header + "include: suricata.yaml\n"))
	f.Add([]byte(header + "x: !include other.yaml\nstream.midstream: true\n"))
	if data, err := os.ReadFile(filepath.Join(repoRoot, "suricata.yaml")); err == nil {
		f.Add(data)
	}
	dir := f.TempDir()
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte(header+"- a\n- b: {c: 1}\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(dir, "suricata.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(path)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		c.Dump()
		if s, err := c.Settings(); err == nil {
			for name := range s.Vars.AddressGroups {
				_, _ = s.Vars.ResolveAddress(name)
			}
		}
	})
}

// FuzzSet checks that no --set argument makes Set, Dump or Settings panic, and that a failed
// Set leaves the configuration loadable.
func FuzzSet(f *testing.F) {
	for _, s := range []string{
		"outputs.1.eve-log.enabled=no",
		"outputs.9.x=1",
		"stream.midstream=true",
		"a.b.c.d=",
		"=",
		"...=1",
		"vars.address-groups.HOME_NET=[1.2.3.4]",
		"outputs.0=1",
		"rule-files.01=x",
		"outputs.1.eve-log.types.2.flow.x=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kv string) {
		c, err := Parse("fuzz.yaml", []byte(outputsYAML+"rule-files: [a]\nstream: {midstream: false}\nempty:\n"))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Set(kv)
		c.Dump()
		_, _ = c.Settings()
		_ = c.Set(kv)
	})
}

// FuzzParseDuration: ParseDuration never panics, never returns a negative duration, and reads
// a plain number as seconds.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"10", "0", "2H", "1 day", "1h 30m", "7d", "1y", "2 months", "", "d", "-5s", "9999999999y", "1h30m10s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if d != 0 || err.Error() == "" {
				t.Fatalf("ParseDuration(%q) = %v, %v", s, d, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %v, negative", s, d)
		}
		if n, err := strconv.ParseUint(s, 10, 32); err == nil && d != time.Duration(n)*time.Second {
			t.Fatalf("ParseDuration(%q) = %v, want %d seconds", s, d, n)
		}
	})
}
