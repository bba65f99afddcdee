// Package stream is Meerkat's TCP stream engine, after Suricata 8.0.6's stream-tcp*.c: TCP
// session tracking with sequence and window validation and the stream events it raises,
// reassembly per direction with the OS overlap policies, depth and memcaps, the triggers of
// raw stream inspection, and the in-order byte stream the app layer reads.
//
// It sits between flow and detect on the data path and knows nothing of rules or protocols.
// Sessions are per worker (a Tracker is not safe for concurrent use) and kept by flow slot,
// so they are reused with the flow table's entries; segment records and data pages come from
// a per-worker Pool whose accounted bytes are bounded by stream.reassembly.memcap.
//
// Files: seq.go (sequence arithmetic), policy.go and reassembly.go (segment store, overlap
// policies), session.go and the state handlers (Suricata's StreamTcpPacketState*), raw.go
// (raw inspection), app.go (byte stream for the app layer).
package stream
