package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/output"
)

// TestOpenOutputsAnomaly: the eve-log anomaly type's options reach pipeline.Outputs; a
// disabled or absent anomaly type logs nothing.
func TestOpenOutputsAnomaly(t *testing.T) {
	for _, tc := range []struct {
		types string
		want  output.AnomalyOptions
	}{
		{"        - anomaly:\n            types:\n              decode: yes\n              stream: yes\n            packethdr: yes\n",
			output.AnomalyOptions{Decode: true, Stream: true, AppLayer: true, PacketHeader: true}},
		{"        - anomaly\n", output.AnomalyOptions{AppLayer: true}},
		{"        - anomaly:\n            enabled: no\n            types:\n              decode: yes\n", output.AnomalyOptions{}},
		{"        - alert\n", output.AnomalyOptions{}},
	} {
		dir := t.TempDir()
		yml := filepath.Join(dir, "suricata.yaml")
		body := "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      types:\n" + tc.types
		if err := os.WriteFile(yml, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(yml)
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Settings()
		if err != nil {
			t.Fatal(err)
		}
		outs, closeAll, err := openOutputs(st, dir)
		if err != nil {
			t.Fatal(err)
		}
		if outs.Anomaly != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.types, outs.Anomaly, tc.want)
		}
		if err := closeAll(); err != nil {
			t.Fatal(err)
		}
	}
}
