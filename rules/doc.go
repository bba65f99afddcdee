// Package rules reads Suricata 8 rule files: the lexer (comments, line continuation, the 8 KiB
// rule limit, option splitting with Suricata's escaping), the rule header (actions with
// scopes, protocols and hooks, address and port sets with Suricata's negation algebra,
// directions), a registry of every rule keyword with full argument validation, and a loader
// that parses whole files, keeps going after bad rules and counts them the way Suricata does.
//
// A parsed rule (Rule) keeps its source position and raw text, the header with normalized
// address and port sets, every option in order, the inspection buffers with their ordered
// matches (contents with their modifiers folded in, pcre, byte_* ...), the packet and post-match
// keywords, and structured views of the meta data, flowbits and thresholds. Rule.String prints
// a rule canonically; parsing that text gives the same rule.
//
// The package only parses and validates syntax. Whether a keyword can be evaluated is decided
// later by the detection engine, through the Loader's Supported hook.
package rules
