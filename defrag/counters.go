package defrag

// Counters are the reassembly statistics of one Reassembler (Suricata's defrag.* counters,
// plus the decoder events raised by reassembly). Merge workers with Add.
type Counters struct {
	IPv4Fragments      uint64 // defrag.ipv4.fragments: IPv4 fragments seen
	IPv4Reassembled    uint64 // defrag.ipv4.reassembled: IPv4 datagrams rebuilt
	IPv6Fragments      uint64 // defrag.ipv6.fragments
	IPv6Reassembled    uint64 // defrag.ipv6.reassembled
	MaxTrackersReached uint64 // defrag.max_trackers_reached: fragments dropped, no tracker free
	MaxFragsReached    uint64 // defrag.max_frags_reached: fragments dropped, fragment limit
	MemcapExceeded     uint64 // defrag.memcap_exceeded: fragments dropped, memcap reached
	Timeouts           uint64 // defrag.mgr.tracker_timeout: datagrams dropped incomplete
	MemUse             uint64 // defrag.memuse: bytes held now (a gauge; Add sums workers)

	IPv4Overlap  uint64 // decoder.event.ipv4.frag_overlap
	IPv4TooLarge uint64 // decoder.event.ipv4.frag_pkt_too_large
	IPv6Overlap  uint64 // decoder.event.ipv6.frag_overlap
	IPv6TooLarge uint64 // decoder.event.ipv6.frag_pkt_too_large
}

// Add adds o into c.
func (c *Counters) Add(o *Counters) {
	c.IPv4Fragments += o.IPv4Fragments
	c.IPv4Reassembled += o.IPv4Reassembled
	c.IPv6Fragments += o.IPv6Fragments
	c.IPv6Reassembled += o.IPv6Reassembled
	c.MaxTrackersReached += o.MaxTrackersReached
	c.MaxFragsReached += o.MaxFragsReached
	c.MemcapExceeded += o.MemcapExceeded
	c.Timeouts += o.Timeouts
	c.MemUse += o.MemUse
	c.IPv4Overlap += o.IPv4Overlap
	c.IPv4TooLarge += o.IPv4TooLarge
	c.IPv6Overlap += o.IPv6Overlap
	c.IPv6TooLarge += o.IPv6TooLarge
}

// Each calls fn with every counter under its Suricata stats name. The four reassembly
// decoder events are reported here, under decoder.event.*, and not by decode.Counters.
func (c *Counters) Each(fn func(name string, v uint64)) {
	fn("defrag.ipv4.fragments", c.IPv4Fragments)
	fn("defrag.ipv4.reassembled", c.IPv4Reassembled)
	fn("defrag.ipv6.fragments", c.IPv6Fragments)
	fn("defrag.ipv6.reassembled", c.IPv6Reassembled)
	fn("defrag.max_trackers_reached", c.MaxTrackersReached)
	fn("defrag.max_frags_reached", c.MaxFragsReached)
	fn("defrag.memcap_exceeded", c.MemcapExceeded)
	fn("defrag.mgr.tracker_timeout", c.Timeouts)
	fn("defrag.memuse", c.MemUse)
	fn("decoder.event.ipv4.frag_overlap", c.IPv4Overlap)
	fn("decoder.event.ipv4.frag_pkt_too_large", c.IPv4TooLarge)
	fn("decoder.event.ipv6.frag_overlap", c.IPv6Overlap)
	fn("decoder.event.ipv6.frag_pkt_too_large", c.IPv6TooLarge)
}
