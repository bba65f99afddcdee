package config

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// problemSearch bounds how many lines after yaml.v3's reported line problemLine looks at.
const problemSearch = 200

// problemLine returns the line of a YAML syntax error. yaml.v3 reports the line of the
// enclosing construct (its context mark) when it has one, not the line of the offending
// token: for an unclosed "[" the line that opened the flow, for a mis-indented list item the
// mapping's first line. The offending line is the first one from there on whose inclusion
// makes the document fail with the same message: the document is cut after each line in turn
// and parsed again (only on error, at most problemSearch times). When no cut reproduces the
// message the reported line stands.
func problemLine(data []byte, reported int, msg string) int {
	if reported < 1 {
		return reported
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for n := reported; n <= len(lines) && n < reported+problemSearch; n++ {
		prefix := bytes.Join(lines[:n], nil)
		if err := parseAll(prefix); err != nil && strings.HasSuffix(err.Error(), msg) {
			return n
		}
	}
	return reported
}

// parseAll parses every document of data and returns the first error.
func parseAll(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("YAML parser failure")
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
