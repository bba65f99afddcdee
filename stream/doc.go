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
// Files: seq.go (sequence arithmetic), policy.go, reassembly.go, pool.go and overlap.go
// (segment store, overlap policies), tracker.go (the API), session.go (sessions, the packet
// path and the data path into the store), state_validate.go (ACK, RST, timestamp checks and
// StreamTcpPacket's pre-checks), state_none.go, state_handshake.go, state_established.go and
// state_closing.go (Suricata's StreamTcpPacketState*), raw.go (raw inspection), app.go (byte
// stream for the app layer), events.go (stream events).
//
// Sessions live in a flow.Slots by flow slot: every flow that had a session must be given
// to Tracker.Release before its slot takes another flow, or its storage stays charged.
package stream
