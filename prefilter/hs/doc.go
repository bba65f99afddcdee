// Package hs is the Hyperscan multi-pattern matcher (MPM) of the detection engine's prefilter.
//
// A [Database] holds literal byte patterns (the content fast patterns of one signature group and
// buffer), compiled in Hyperscan block mode with HS_FLAG_SINGLEMATCH, plus HS_FLAG_CASELESS for
// nocase patterns (ASCII letters only, as Suricata's nocase). Many rules may share a pattern ID;
// the caller maps IDs back to rules.
//
// Compilation and serialization go through github.com/flier/gohs. Scanning does not: gohs' Scan
// allocates per call (a cgo.Handle in a sync.Map) and calls back into Go for every match. A
// [Scanner] instead makes one cgo call per buffer into a small C function whose C match callback
// appends pattern IDs to a caller-provided []uint32, so Scan allocates nothing and a match costs
// a store, not a C-to-Go transition. gohs hands out no raw database pointer, so a compiled
// database is serialized by gohs (hs_serialize_database) and deserialized here into a database
// this package owns; for 20k patterns that adds a few milliseconds to a compile of about a
// second, and it is the same path a cache hit takes.
//
// Compiled databases can be cached on disk ([CompileCached], [PruneCache]), the counterpart of
// Suricata's detect.sgh-mpm-caching, sgh-mpm-caching-path and sgh-mpm-caching-max-age: the file
// name is a SHA-256 over the Hyperscan version, the host platform, the compile mode, API and
// flags and the canonically ordered pattern list, and the content is the serialized database
// behind a small checksummed header. A cache directory must be trusted: Hyperscan checks a
// database's own checksum but is not built to resist deliberately crafted ones.
//
// Build: cgo and Hyperscan 5.x (Debian libhyperscan-dev, found through pkg-config libhs). No build
// tag is needed. With -tags hyperscan_v54 (or hyperscan_v52) gohs also exposes Hyperscan's pure
// literal API, hs_compile_lit_multi, which [Compile] then uses: on 20k real ET Open patterns it
// compiles about 30% faster, yields a 20% smaller database and scans 64-byte payloads about 1.5x
// faster than hex-escaped regexes (hs_compile_ext_multi; equal on 1460-byte payloads), and it
// accepts patterns up to 16000 bytes (the regex form is limited to 16000 expression characters,
// four per escaped byte). See [CompileAPI].
package hs
