package decode

// Counters are the decoder statistics of one Decoder (Suricata's decoder.* counters). The
// fields are plain integers: each worker owns its Decoder; merge them with Add for totals.
type Counters struct {
	Pkts             uint64 // decoder.pkts: frames decoded
	Bytes            uint64 // decoder.bytes: captured bytes of those frames
	Invalid          uint64 // decoder.invalid: packets with a layer that failed to decode
	IPv4             uint64 // decoder.ipv4
	IPv6             uint64 // decoder.ipv6
	Ethernet         uint64 // decoder.ethernet
	Raw              uint64 // decoder.raw
	Null             uint64 // decoder.null (BSD null and loop)
	SLL              uint64 // decoder.sll
	SLL2             uint64 // decoder.sll2
	TCP              uint64 // decoder.tcp
	UDP              uint64 // decoder.udp
	SCTP             uint64 // decoder.sctp
	ICMPv4           uint64 // decoder.icmpv4
	ICMPv6           uint64 // decoder.icmpv6
	GRE              uint64 // decoder.gre (counted, not decoded)
	VLAN             uint64 // decoder.vlan: packets with one or more tags
	VLANQinQ         uint64 // decoder.vlan_qinq: with a second tag
	VLANQinQinQ      uint64 // decoder.vlan_qinqinq: with a third tag
	ARP              uint64 // decoder.arp
	UnknownEtherType uint64 // decoder.unknown_ethertype
	UnknownLinkType  uint64 // decoder.unknown_linktype: frames of a link type not decoded
	IPv4InIPv6       uint64 // decoder.ipv4_in_ipv6 (counted, not decoded)
	IPv6InIPv6       uint64 // decoder.ipv6_in_ipv6 (counted, not decoded)
	MaxPktSize       uint64 // decoder.max_pkt_size: largest frame

	// Events counts each decoder event, indexed by Event (decoder.event.<name>).
	Events [EventCount]uint64
}

// AvgPktSize is decoder.avg_pkt_size: Bytes / Pkts, 0 before the first packet.
func (c *Counters) AvgPktSize() uint64 {
	if c.Pkts == 0 {
		return 0
	}
	return c.Bytes / c.Pkts
}

// Add adds o into c (MaxPktSize takes the larger value).
func (c *Counters) Add(o *Counters) {
	c.Pkts += o.Pkts
	c.Bytes += o.Bytes
	c.Invalid += o.Invalid
	c.IPv4 += o.IPv4
	c.IPv6 += o.IPv6
	c.Ethernet += o.Ethernet
	c.Raw += o.Raw
	c.Null += o.Null
	c.SLL += o.SLL
	c.SLL2 += o.SLL2
	c.TCP += o.TCP
	c.UDP += o.UDP
	c.SCTP += o.SCTP
	c.ICMPv4 += o.ICMPv4
	c.ICMPv6 += o.ICMPv6
	c.GRE += o.GRE
	c.VLAN += o.VLAN
	c.VLANQinQ += o.VLANQinQ
	c.VLANQinQinQ += o.VLANQinQinQ
	c.ARP += o.ARP
	c.UnknownEtherType += o.UnknownEtherType
	c.UnknownLinkType += o.UnknownLinkType
	c.IPv4InIPv6 += o.IPv4InIPv6
	c.IPv6InIPv6 += o.IPv6InIPv6
	c.MaxPktSize = max(c.MaxPktSize, o.MaxPktSize)
	for i := range c.Events {
		c.Events[i] += o.Events[i]
	}
}

// eventStatNames holds "decoder.event.<name>" per event, built once so Each never allocates.
var eventStatNames [EventCount]string

func init() {
	AllEvents(func(e Event) {
		if !e.IsStream() {
			eventStatNames[e] = "decoder.event." + e.String()
		}
	})
}

// Each calls fn with every counter under its Suricata stats name: decoder.pkts,
// decoder.bytes, ..., decoder.avg_pkt_size, decoder.max_pkt_size, then
// decoder.event.<event name> for every decoder event. The IP reassembly events
// (ipv4/ipv6.frag_overlap, frag_pkt_too_large) are left to defrag's counters, which own them,
// and the stream events (Event.IsStream) to the stream engine's.
func (c *Counters) Each(fn func(name string, v uint64)) {
	fn("decoder.pkts", c.Pkts)
	fn("decoder.bytes", c.Bytes)
	fn("decoder.invalid", c.Invalid)
	fn("decoder.ipv4", c.IPv4)
	fn("decoder.ipv6", c.IPv6)
	fn("decoder.ethernet", c.Ethernet)
	fn("decoder.arp", c.ARP)
	fn("decoder.unknown_ethertype", c.UnknownEtherType)
	fn("decoder.unknown_linktype", c.UnknownLinkType)
	fn("decoder.raw", c.Raw)
	fn("decoder.null", c.Null)
	fn("decoder.sll", c.SLL)
	fn("decoder.sll2", c.SLL2)
	fn("decoder.tcp", c.TCP)
	fn("decoder.udp", c.UDP)
	fn("decoder.sctp", c.SCTP)
	fn("decoder.icmpv4", c.ICMPv4)
	fn("decoder.icmpv6", c.ICMPv6)
	fn("decoder.gre", c.GRE)
	fn("decoder.vlan", c.VLAN)
	fn("decoder.vlan_qinq", c.VLANQinQ)
	fn("decoder.vlan_qinqinq", c.VLANQinQinQ)
	fn("decoder.ipv4_in_ipv6", c.IPv4InIPv6)
	fn("decoder.ipv6_in_ipv6", c.IPv6InIPv6)
	fn("decoder.avg_pkt_size", c.AvgPktSize())
	fn("decoder.max_pkt_size", c.MaxPktSize)
	for e := Event(1); e < EventCount; e++ {
		if e.IsDefragEvent() || e.IsStream() {
			continue
		}
		fn(eventStatNames[e], c.Events[e])
	}
}
