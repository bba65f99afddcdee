package payload

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/meerkat-ids/meerkat/detect/dataset"
	"github.com/meerkat-ids/meerkat/rules"
)

// datasetProgram compiles the dns.query list of a rule read from file (so that load paths
// resolve against its directory, as SetupLoadPath does).
func datasetProgram(t *testing.T, file, opts string) (*Program, error) {
	t.Helper()
	r, err := rules.Parse(`alert dns any any -> any any (dns.query; ` + opts + ` sid:1;)`)
	if err != nil {
		t.Fatalf("parse %q: %v", opts, err)
	}
	r.File = file
	return CompileRule(r, r.Buffer("dns.query"))
}

// TestDatasetOps follows DetectDatasetBufferMatch and DetectDatarepBufferMatch: the whole
// buffer is the key, an empty buffer never matches (isnotset included), set matches only
// when it adds, unset only when it removes. The .rep lines are suricata-verify's
// ruletype-firewall-57-dns-datarep dns_rep.rep.
func TestDatasetOps(t *testing.T) {
	old := Datasets
	Datasets = dataset.NewRegistry()
	defer func() { Datasets = old }()
	dir := t.TempDir()
	rep := "Y2xpZW50LWNmLmRyb3Bib3guY29t,255\nYmxvY2suZHJvcGJveC5jb20=,255\n"
	if err := os.WriteFile(filepath.Join(dir, "dns_rep.rep"), []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "x.rules")
	st := NewState()
	steps := []struct {
		opts, buf string
		want      bool
	}{
		{`datarep:dns_rep,>,0,load dns_rep.rep,type string;`, "client-cf.dropbox.com", true},
		{`datarep:dns_rep,>,0,load dns_rep.rep,type string;`, "block.dropbox.com", true},
		{`datarep:dns_rep,>,0,load dns_rep.rep,type string;`, "codemonkey.net", false},
		{`datarep:dns_rep,>,0,load dns_rep.rep,type string;`, "client-cf.dropbox.co", false},
		{`datarep:dns_rep,==,255;`, "block.dropbox.com", true},
		{`datarep:dns_rep,<,255;`, "block.dropbox.com", false},
		{`datarep:dns_rep,>,255;`, "block.dropbox.com", false},
		{`dataset:isset,dns_rep;`, "block.dropbox.com", true},
		{`dataset:isnotset,dns_rep;`, "block.dropbox.com", false},
		{`dataset:isnotset,dns_rep;`, "other", true},
		{`dataset:isnotset,dns_rep;`, "", false},
		{`dataset:set,seen,type string;`, "a.example", true},
		{`dataset:set,seen,type string;`, "a.example", false},
		{`dataset:isset,seen;`, "a.example", true},
		{`dataset:unset,seen;`, "a.example", true},
		{`dataset:unset,seen;`, "a.example", false},
		{`dataset:isset,seen;`, "a.example", false},
		{`content:"dropbox"; datarep:dns_rep,>,0;`, "block.dropbox.com", true},
		{`datarep:dns_rep,>,0; content:"block";`, "block.dropbox.com", true},
		{`datarep:dns_rep,>,0; content:"nope";`, "block.dropbox.com", false},
	}
	for _, s := range steps {
		p, err := datasetProgram(t, file, s.opts)
		if err != nil {
			t.Fatalf("%s: %v", s.opts, err)
		}
		if got := p.Inspect([]byte(s.buf), st); got != s.want {
			t.Errorf("%s on %q = %v, want %v", s.opts, s.buf, got, s.want)
		}
	}
	p, _ := datasetProgram(t, file, `datarep:dns_rep,>,0;`)
	key := []byte("block.dropbox.com")
	if n := testing.AllocsPerRun(100, func() { p.Inspect(key, st) }); n != 0 {
		t.Errorf("datarep inspect allocates %v", n)
	}
}

// TestDatasetSetupErrors: a set that cannot be set up fails the rule (DatasetGet returns
// NULL: "failed to set up datarep set"), json formats and save are not supported yet.
func TestDatasetSetupErrors(t *testing.T) {
	old := Datasets
	Datasets = dataset.NewRegistry()
	defer func() { Datasets = old }()
	file := filepath.Join(t.TempDir(), "x.rules")
	var de *DatasetError
	for _, opts := range []string{
		`datarep:r,>,0,load missing.rep,type string;`,
		`datarep:undefined,>,0;`,
		`dataset:isset,undefined;`,
	} {
		if _, err := datasetProgram(t, file, opts); !errors.As(err, &de) {
			t.Errorf("%s: err = %v, want a DatasetError", opts, err)
		}
	}
	var ue *UnsupportedError
	for _, opts := range []string{
		`dataset:isset,j,type string,format json,value_key v;`,
		`dataset:set,s,type string,save s.lst;`,
	} {
		if _, err := datasetProgram(t, file, opts); !errors.As(err, &ue) {
			t.Errorf("%s: err = %v, want unsupported", opts, err)
		}
	}
}
