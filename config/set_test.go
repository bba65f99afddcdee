package config

import (
	"slices"
	"testing"
)

// TestSetListEntryName: a list entry that is a mapping has its first key as its value in
// Suricata's configuration tree (--dump-config prints "outputs.0 = fast"), and --set on the
// entry replaces that value: "types.0=flow" makes the first EVE type flow, with none of the
// old entry's options.
func TestSetListEntryName(t *testing.T) {
	c, err := Parse("t.yaml", []byte("outputs:\n  - eve-log:\n      types:\n        - alert:\n            metadata: yes\n        - drop\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set("outputs.0.eve-log.types.0=flow"); err != nil {
		t.Fatal(err)
	}
	dump := c.Dump()
	for _, want := range []string{"outputs.0.eve-log.types.0 = flow", "outputs.0.eve-log.types.1 = drop"} {
		if !slices.Contains(dump, want) {
			t.Errorf("dump lacks %q:\n%v", want, dump)
		}
	}
	if slices.Contains(dump, "outputs.0.eve-log.types.0.alert.metadata = yes") {
		t.Errorf("the old entry's options are still there:\n%v", dump)
	}
	if err := c.Set("outputs.0.eve-log=x"); err == nil {
		t.Error("replacing a mapping that is not a list entry with a value: no error")
	}
}
