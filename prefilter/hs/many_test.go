package hs

import "testing"

// TestCompileSets: identical sets share one database, empty sets get none, and each
// database finds its own patterns only.
func TestCompileSets(t *testing.T) {
	a := []Pattern{{ID: 0, Bytes: []byte("alpha")}, {ID: 1, Bytes: []byte("beta"), Nocase: true}}
	a2 := []Pattern{{ID: 0, Bytes: []byte("alpha")}, {ID: 1, Bytes: []byte("beta"), Nocase: true}}
	b := []Pattern{{ID: 0, Bytes: []byte("gamma")}}
	dbs, distinct, err := CompileSets([][]Pattern{a, nil, b, a2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, d := range distinct {
			d.Close()
		}
	}()
	if len(dbs) != 4 || len(distinct) != 2 {
		t.Fatalf("%d databases, %d distinct; want 4 and 2", len(dbs), len(distinct))
	}
	if dbs[1] != nil || dbs[0] != dbs[3] || dbs[0] == dbs[2] || distinct[0] != dbs[0] || distinct[1] != dbs[2] {
		t.Fatalf("sharing: %p %p %p %p, distinct %p %p", dbs[0], dbs[1], dbs[2], dbs[3], distinct[0], distinct[1])
	}
	s, err := NewScanner(distinct...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hits := make([]uint32, 4)
	if n, err := s.Scan(dbs[0], []byte("xx BETA gamma"), hits); err != nil || n != 1 || hits[0] != 1 {
		t.Errorf("set a on \"xx BETA gamma\": %d hits %v, err %v", n, hits[:n], err)
	}
	if n, err := s.Scan(dbs[2], []byte("xx BETA gamma"), hits); err != nil || n != 1 || hits[0] != 0 {
		t.Errorf("set b on \"xx BETA gamma\": %d hits %v, err %v", n, hits[:n], err)
	}
	if _, _, err := CompileSets([][]Pattern{a, {{ID: 0}}}, Options{}); err == nil {
		t.Error("a set with an empty pattern compiled")
	}
}
