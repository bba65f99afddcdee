package dataset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meerkat-ids/meerkat/config"
)

// TestConfigure follows DatasetsInit: defaults.memcap is the default, a named set with a type
// is created and loaded (relative load files from the data directory), one without type is
// skipped. Underscores in yaml keys become dashes (conf-yaml-loader.c Mangle), so a set
// written dns_rep is called dns-rep.
func TestConfigure(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ua.lst"), []byte("Y3VybA==\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "%YAML 1.1\n---\ndatasets:\n  defaults:\n    memcap: 1mb\n  ua_seen:\n    type: string\n    load: ua.lst\n  notype:\n    load: x\n"
	cfg, err := config.Parse("t.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	if err := r.Configure(cfg.Root(), dir); err != nil {
		t.Fatal(err)
	}
	if r.DefaultMemcap != 1<<20 {
		t.Errorf("default memcap %d", r.DefaultMemcap)
	}
	s := r.Lookup("ua-seen")
	if s == nil {
		t.Fatal("ua-seen not created")
	}
	if _, ok := s.Lookup([]byte("curl")); !ok || s.Memcap != 1<<20 {
		t.Errorf("curl not loaded or memcap %d", s.Memcap)
	}
	if r.Lookup("notype") != nil {
		t.Error("set without type created")
	}
	bad, _ := config.Parse("b.yaml", []byte("datasets:\n  a:\n    type: bogus\n"))
	if err := NewRegistry().Configure(bad.Root(), ""); err == nil {
		t.Error("bad type accepted")
	}
}
