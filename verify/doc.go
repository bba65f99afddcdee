// Package verify runs suricata-verify style conformance tests against the
// Meerkat engine.
//
// A test is a directory holding a test.yaml descriptor, a capture, rule files
// and optionally a suricata.yaml. The package discovers such directories,
// decides whether each test applies (requires, skip), builds the engine
// command line the way the upstream suricata-verify runner does, runs the
// engine with a per-test timeout, and evaluates the checks (filter, stats,
// shell, file-compare) against the files the engine wrote.
//
// The format is described in shared/reference/suricata-verify-format.md; this
// package is an independent implementation of that description.
//
// Value semantics follow the upstream runner, which is written in Python and
// reads test.yaml with a YAML 1.1 loader: plain scalars such as yes/no/on/off
// are booleans, 010 is octal, 8.0 is a float. Comparisons between expected and
// observed values are strict by type: the number 1 never equals the string
// "1", and (unlike Python) the boolean true never equals the number 1.
package verify
