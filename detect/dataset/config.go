package dataset

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/meerkat-ids/meerkat/config"
)

// Configure is DatasetsInit: datasets.defaults.memcap becomes the default memcap, and every
// named set under datasets: with a type is created (its load or state file read, a relative
// path taken from dataDir when the file is there, else as written: DatasetGetPath without
// g_system). A set without type is skipped, as Suricata does. root may be nil.
func (r *Registry) Configure(root *config.Node, dataDir string) error {
	if root == nil {
		return nil
	}
	ds := root.Child("datasets")
	if ds == nil {
		return nil
	}
	if d := ds.Child("defaults"); d != nil {
		if s, ok := d.String("memcap"); ok {
			// DatasetGetDefaultMemcap: an invalid value is a warning and the default stays.
			if n, err := config.ParseSize(s); err == nil {
				r.DefaultMemcap = n
			}
		}
	}
	for _, n := range ds.Children {
		if n.Name == "defaults" || n.Name == "limits" {
			continue
		}
		ts, ok := n.String("type")
		if !ok {
			continue
		}
		typ, ok := ParseType(ts)
		if !ok {
			return fmt.Errorf("dataset %s: bad type %s", n.Name, ts)
		}
		load, _ := n.String("state")
		if load == "" {
			load, _ = n.String("load")
		}
		if load != "" && !filepath.IsAbs(load) && dataDir != "" {
			if p := filepath.Join(dataDir, load); fileExists(p) {
				load = p
			}
		}
		var memcap uint64
		if s, ok := n.String("memcap"); ok {
			if v, err := config.ParseSize(s); err == nil {
				memcap = v
			}
		}
		if _, err := r.Get(n.Name, typ, load, memcap); err != nil {
			return err
		}
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
