// Package config reads Suricata's configuration: suricata.yaml with Suricata's semantics, the
// --set and --dump-config command-line operations, and the classification.config and
// reference.config files.
//
// The YAML is decoded with go.yaml.in/yaml/v3 into a tree of Nodes that behaves like Suricata's
// ConfNode tree rather than like a generic YAML document:
//
//   - keys are case-sensitive ("HOME_NET" stays "HOME_NET");
//   - scalars are kept as written and read with YAML 1.1 words: yes/no, on/off, true/false and
//     1/0 in any case (Bool, IsTrue, IsFalse);
//   - sizes such as "64 MiB", "1mb" or "1.5 GiB" are powers of 1024 (Size, ParseSize);
//   - list entries are addressed by index in dotted keys ("outputs.1.eve-log.enabled"), and Set
//     changes one of them without touching the rest of the list;
//   - include: and !include are processed, with Suricata's override rules (see Load).
//
// Settings turns the tree into typed values with Suricata's defaults, and reports bad values
// with the file, line and key they come from.
package config
