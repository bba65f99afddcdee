package payload

import (
	"os"
	"path/filepath"

	"github.com/meerkat-ids/meerkat/detect/dataset"
	"github.com/meerkat-ids/meerkat/rules"
)

// Datasets is the registry dataset and datarep keywords take their sets from (Suricata's
// datasets are global to the engine).
var Datasets = dataset.Default

// DefaultRulePath is default-rule-path: the second place a relative dataset load file is
// looked for (SetupLoadPath), after the directory of the rule's file.
var DefaultRulePath string

// datasetLoadPath is SetupLoadPath: an absolute path is kept; a relative one is taken from
// the rule file's directory when the file is there, else from default-rule-path when it is
// there, else it is left as written.
func datasetLoadPath(r *rules.Rule, load string) string {
	if load == "" || filepath.IsAbs(load) {
		return load
	}
	if r != nil && r.File != "" {
		p := filepath.Join(filepath.Dir(r.File), load)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p := load
	if DefaultRulePath != "" {
		p = filepath.Join(DefaultRulePath, load)
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return load
}

// Dataset commands of a kDataset op.
const (
	dsIsset byte = iota + 1
	dsIsnotset
	dsSet
	dsUnset
	dsRepGT
	dsRepLT
	dsRepEQ
)

// compileDataset is DetectDatasetSetup/DetectDatarepSetup after parsing: the set is found
// or created (its load file read) now, so a missing or bad load file fails the rule.
func compileDataset(o *op, r *rules.Rule, d *rules.Dataset) error {
	kw := "dataset"
	if d.Rep {
		kw = "datarep"
	}
	if d.JSON || d.Format == "json" || d.Format == "ndjson" {
		return unsupported(kw, "json formats")
	}
	if d.Save != "" {
		return unsupported(kw, "save and state")
	}
	typ := dataset.NotSet
	if d.Type != "" {
		typ, _ = dataset.ParseType(d.Type)
	}
	set, err := Datasets.Get(d.Name, typ, datasetLoadPath(r, d.Load), d.Memcap)
	if err != nil {
		if d.Rep {
			return &DatasetError{Keyword: kw, Msg: "failed to set up datarep set '" + d.Name + "': " + err.Error()}
		}
		return &DatasetError{Keyword: kw, Msg: "failed to set up dataset '" + d.Name + "': " + err.Error()}
	}
	o.kind = kDataset
	o.set = set
	o.rep = d.Value
	switch d.Cmd {
	case "isset":
		o.dsCmd = dsIsset
	case "isnotset":
		o.dsCmd = dsIsnotset
	case "set":
		o.dsCmd = dsSet
	case "unset":
		o.dsCmd = dsUnset
	case ">":
		o.dsCmd = dsRepGT
	case "<":
		o.dsCmd = dsRepLT
	case "==":
		o.dsCmd = dsRepEQ
	}
	return nil
}

// DatasetError is a dataset or datarep whose set could not be set up (a rule error in
// Suricata: the rule is not loaded).
type DatasetError struct {
	Keyword string
	Msg     string
}

func (e *DatasetError) Error() string { return e.Msg }

// datasetMatch is DetectDatasetBufferMatch / DetectDatarepBufferMatch over the whole buffer.
func (o *op) datasetMatch(buf []byte) bool {
	if len(buf) == 0 {
		return false
	}
	switch o.dsCmd {
	case dsIsset:
		_, ok := o.set.Lookup(buf)
		return ok
	case dsIsnotset:
		_, ok := o.set.Lookup(buf)
		return !ok
	case dsSet:
		return o.set.Add(buf, 0) == 1
	case dsUnset:
		return o.set.Remove(buf)
	}
	rep, ok := o.set.Lookup(buf)
	if !ok {
		return false
	}
	switch o.dsCmd {
	case dsRepGT:
		return rep > o.rep
	case dsRepLT:
		return rep < o.rep
	}
	return rep == o.rep
}
