package verify

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Test is one discovered test folder.
type Test struct {
	// Name is unique among the discovered tests: the folder's basename, or
	// <parent>__<basename> when basenames collide.
	Name string
	// Base is the folder's basename; the "ips in the name" rule uses it.
	Base string
	// Dir is the absolute path of the folder.
	Dir string
}

// Discover finds test folders under root: every directory holding a
// test.yaml. Once a test.yaml is found its subdirectories are not searched.
// Tests are returned in sorted path order.
func Discover(root string) ([]Test, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", abs)
	}
	var dirs []string
	err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if _, err := os.Stat(filepath.Join(path, "test.yaml")); err == nil {
			dirs = append(dirs, path)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	count := map[string]int{}
	for _, d := range dirs {
		count[filepath.Base(d)]++
	}
	tests := make([]Test, 0, len(dirs))
	for _, d := range dirs {
		base := filepath.Base(d)
		name := base
		if count[base] > 1 && d != abs {
			name = filepath.Base(filepath.Dir(d)) + "__" + base
		}
		tests = append(tests, Test{Name: name, Base: base, Dir: d})
	}
	// A second pass guarantees uniqueness even for pathological layouts.
	seen := map[string]int{}
	for i := range tests {
		n := tests[i].Name
		if seen[n] > 0 {
			tests[i].Name = fmt.Sprintf("%s__%d", n, seen[n]+1)
		}
		seen[n]++
	}
	return tests, nil
}

// DiscoverAll finds the tests of several roots (see Discover), in the order the roots are
// given. Names must be unique across roots: a name found under two roots is an error, since
// results, output folders and the ratchet list know a test by its name alone.
func DiscoverAll(roots []string) ([]Test, error) {
	var all []Test
	where := map[string]string{}
	for _, root := range roots {
		tests, err := Discover(root)
		if err != nil {
			return nil, err
		}
		for _, t := range tests {
			if prev, dup := where[t.Name]; dup {
				return nil, fmt.Errorf("test name %s is in two folders: %s and %s", t.Name, prev, t.Dir)
			}
			where[t.Name] = t.Dir
			all = append(all, t)
		}
	}
	return all, nil
}
