package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestYAMLErrorLine checks that a syntax error names the line that is wrong, not the line of
// the block around it (what yaml.v3 reports).
func TestYAMLErrorLine(t *testing.T) {
	tests := []struct {
		name, text string
		line       int
	}{
		{"unclosed flow sequence", "%YAML 1.1\n---\nvars:\n  a: 1\n  b: [1, 2\n  c: 3\n", 5},
		{"list item indented less than its siblings", "outputs:\n  - eve-log:\n      enabled: yes\n      types:\n        - alert\n       - flow\n", 6},
		{"tab in indentation", "vars:\n  a: 1\n\tb: 2\n", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %v, want a *config.Error", err)
			}
			if ce.Line != tc.line {
				t.Errorf("error at line %d, want %d: %v", ce.Line, tc.line, err)
			}
		})
	}
}
