// Package decode turns raw link-layer frames into a Packet: Ethernet, VLAN, Linux SLL/SLL2,
// BSD loopback, raw IP, IPv4 (options, fragments), IPv6 (extension headers, fragments), TCP,
// UDP, ICMPv4 and ICMPv6. Decoding is done in place: every slice in a Packet points into the
// frame that was decoded, and a Packet is reused from one frame to the next, so decoding
// allocates nothing.
//
// Malformed input never panics: the decoder stops at the first layer it cannot trust, records a
// decoder event (Suricata's names, see events.go) and keeps what it decoded so far.
package decode

import (
	"net/netip"
	"time"
)

// LinkType is a capture link-layer type, numbered as pcap's LINKTYPE_ values.
type LinkType uint16

// Link types Meerkat decodes.
const (
	LinkTypeNull     LinkType = 0   // BSD loopback: 4-byte host-order address family
	LinkTypeEthernet LinkType = 1   // Ethernet II / 802.3
	LinkTypeRaw      LinkType = 101 // raw IPv4 or IPv6, version from the first nibble
	LinkTypeRawAlt   LinkType = 12  // DLT_RAW as some systems number it
	LinkTypeRawAlt2  LinkType = 14  // DLT_RAW on OpenBSD-derived captures
	LinkTypeLoop     LinkType = 108 // OpenBSD loopback: 4-byte network-order address family
	LinkTypeSLL      LinkType = 113 // Linux cooked capture v1
	LinkTypeIPv4     LinkType = 228 // raw IPv4
	LinkTypeIPv6     LinkType = 229 // raw IPv6
	LinkTypeSLL2     LinkType = 276 // Linux cooked capture v2
)

// Source says where a packet came from, as Suricata's EVE `pkt_src` names it.
type Source uint8

// Packet sources.
const (
	SourceWire              Source = iota // read from the capture
	SourceDefrag                          // rebuilt from IP fragments
	SourceStreamFlowTimeout               // a flow-end pseudo packet of the stream engine
	// SourceStreamDetectLogFlush is a detect/log flush pseudo packet of the stream engine
	// (PKT_SRC_STREAM_TCP_DETECTLOG_FLUSH, StreamTcpDetectLogFlush): not a flow-end one, so
	// Pseudo is false for it.
	SourceStreamDetectLogFlush
)

// String returns the EVE `pkt_src` value.
func (s Source) String() string {
	switch s {
	case SourceDefrag:
		return "defrag"
	case SourceStreamFlowTimeout:
		return "stream (flow timeout)"
	case SourceStreamDetectLogFlush:
		return "stream (detect/log)"
	}
	return "wire/pcap"
}

// IP protocol numbers used by the decoders.
const (
	ProtoICMP   uint8 = 1
	ProtoIGMP   uint8 = 2
	ProtoTCP    uint8 = 6
	ProtoUDP    uint8 = 17
	ProtoIPv6   uint8 = 41
	ProtoGRE    uint8 = 47
	ProtoICMPv6 uint8 = 58
	ProtoSCTP   uint8 = 132
)

// TCP flag bits, as in the TCP header's flags byte (CWR and ECE included).
const (
	TCPFlagFIN uint8 = 0x01
	TCPFlagSYN uint8 = 0x02
	TCPFlagRST uint8 = 0x04
	TCPFlagPSH uint8 = 0x08
	TCPFlagACK uint8 = 0x10
	TCPFlagURG uint8 = 0x20
	TCPFlagECE uint8 = 0x40
	TCPFlagCWR uint8 = 0x80
)

// IPv4 flag bits as Packet.IPv4Flags holds them (the top three bits of the flags/offset word).
const (
	IPv4FlagMF uint8 = 0x1 // more fragments
	IPv4FlagDF uint8 = 0x2 // don't fragment
	IPv4FlagRF uint8 = 0x4 // reserved ("evil") bit
)

// IPv4 option kinds seen in the packet, one bit each in Packet.IPv4Options (ipopts keyword).
const (
	IPv4OptRR     uint16 = 1 << iota // record route
	IPv4OptEOL                       // end of list
	IPv4OptNOP                       // no operation
	IPv4OptTS                        // timestamp
	IPv4OptSec                       // security
	IPv4OptESec                      // extended security
	IPv4OptLSRR                      // loose source routing
	IPv4OptSSRR                      // strict source routing
	IPv4OptSatID                     // stream identifier
	IPv4OptAny                       // any option at all
	IPv4OptQS                        // quick-start
	IPv4OptRtrAlt                    // router alert
	IPv4OptCIPSO                     // commercial IP security option
)

// MaxVLANs is how many VLAN tags a packet keeps (Suricata keeps three).
const MaxVLANs = 3

// Packet is one decoded frame. Slices point into the frame; they are valid until the next
// call to Decode with the same Packet.
type Packet struct {
	// Capture.
	Data      []byte    // the whole frame as captured
	Timestamp time.Time // capture time
	WireLen   int       // original length on the wire (may exceed len(Data))
	PcapCnt   uint64    // 1-based number of the record in the capture (0: not from a file)
	LinkType  LinkType
	Source    Source

	// Layer 2.
	HasEthernet bool
	SrcMAC      [6]byte
	DstMAC      [6]byte
	VLAN        [MaxVLANs]uint16 // VLAN ids, outermost first
	VLANCount   uint8
	EtherType   uint16 // of the network layer

	// Layer 3. IPVersion is 0 when no IP header was decoded.
	IPVersion uint8
	SrcIP     netip.Addr
	DstIP     netip.Addr
	IPHeader  []byte // the IPv4 header with options, or the IPv6 fixed header plus extension headers
	IPPayload []byte // what follows IPHeader, cut to the IP length (for fragments: the fragment data)
	IPLen     int    // total IP length claimed by the header (IPv4 total length, IPv6 40+payload length)
	TTL       uint8  // IPv4 TTL or IPv6 hop limit
	TOS       uint8  // IPv4 TOS or IPv6 traffic class
	IPID      uint32 // IPv4 identification, or the IPv6 fragment header's identification

	IPv4Flags   uint8  // IPv4Flag* bits
	IPv4Options uint16 // IPv4Opt* bits for the options present
	FlowLabel   uint32 // IPv6 flow label

	// Fragments. FragOffset is in bytes. A packet is a fragment when MoreFragments is set or
	// FragOffset is not zero; then no transport header is decoded unless FragOffset is 0.
	IsFragment    bool
	FragOffset    uint16
	MoreFragments bool
	IPv6FragHdr   bool // an IPv6 fragment header was present (even an atomic one)

	// IPv6 fragment header location, set when IPv6FragHdr is true (used by defrag to rebuild
	// the datagram). Offsets are from the start of IPHeader.
	IPv6FragHdrOff uint16 // offset of the (first) fragment header
	IPv6FragPrevNH uint16 // offset of the Next Header byte that names the fragment header
	IPv6FragNH     uint8  // the fragment header's Next Header field

	// Transport. IPProto is the protocol after IPv6 extension headers. L4Header and Payload are
	// nil when the transport header could not be decoded (HasL4 false).
	IPProto  uint8
	HasL4    bool
	SrcPort  uint16 // TCP/UDP/SCTP source port
	DstPort  uint16 // TCP/UDP/SCTP destination port
	L4Header []byte
	Payload  []byte // application payload after the transport header

	TCPSeq    uint32
	TCPAck    uint32
	TCPFlags  uint8
	TCPWindow uint16
	TCPUrgent uint16
	TCPRes    uint8  // the 4 reserved bits between data offset and flags (Suricata's tcpres)
	TCPMSS    uint16 // 0 when the option is absent
	HasTCPMSS bool
	TCPWScale uint8
	HasWScale bool
	TCPSackOK bool
	TCPHasTS  bool
	TCPTSVal  uint32
	TCPTSEcr  uint32
	// TCPHasSACK, TCPHasMD5 (TCP-MD5 or TCP-AO) and TCPHasTFO say those options are present
	// (for the stream engine).
	TCPHasSACK, TCPHasMD5, TCPHasTFO bool
	UDPLen                           uint16 // the UDP length field

	ICMPType  uint8
	ICMPCode  uint8
	ICMPID    uint16 // echo / timestamp / info messages only (HasICMPID)
	ICMPSeq   uint16
	HasICMPID bool

	// Checksums. Computed only when Decoder.Checksums says so; false otherwise.
	IPv4ChecksumBad bool
	L4ChecksumBad   bool
	// ChecksumIgnored is Suricata's PKT_IGNORE_CHECKSUM, set by the caller for frames its
	// capture source marks (pcap-file.checksum-checks): the checksum keywords then take every
	// checksum as valid. Decode leaves it false (`-k none` does not set it, as in Suricata).
	ChecksumIgnored bool

	// Events records the decoder events raised for this packet.
	Events EventSet
	// StreamAdded is Suricata's PKT_STREAM_ADD: the stream engine added the payload to the
	// session's stream. StreamData is PKT_DETECT_HAS_STREAMDATA: raw stream data is inspected
	// with this packet. Both are set after decoding, by the stream stage.
	StreamAdded, StreamData bool
	// NoPayloadInspection is PKT_NOPAYLOAD_INSPECTION: the packet's flow carries encrypted
	// data (TLS encryption-handling track-only/bypass), so its payload counts as none for
	// detection. Set after decoding, by the worker.
	NoPayloadInspection bool
	// Invalid is set when a layer failed to decode (Suricata's PKT_IS_INVALID): the fields of
	// that layer and of the layers above it are left empty.
	Invalid bool
}

// Reset clears every decoded field so the Packet can take the next frame. It does not allocate.
func (p *Packet) Reset() {
	*p = Packet{}
}

// IsTCP reports whether a TCP header was decoded.
func (p *Packet) IsTCP() bool { return p.HasL4 && p.IPProto == ProtoTCP }

// IsUDP reports whether a UDP header was decoded.
func (p *Packet) IsUDP() bool { return p.HasL4 && p.IPProto == ProtoUDP }

// IsICMP reports whether an ICMPv4 or ICMPv6 header was decoded.
func (p *Packet) IsICMP() bool {
	return p.HasL4 && (p.IPProto == ProtoICMP || p.IPProto == ProtoICMPv6)
}

// HasPorts reports whether the packet carries transport ports (TCP, UDP, SCTP).
func (p *Packet) HasPorts() bool {
	return p.HasL4 && (p.IPProto == ProtoTCP || p.IPProto == ProtoUDP || p.IPProto == ProtoSCTP)
}

// Pseudo reports whether p is a pseudo packet the stream engine made at flow end
// (Suricata's PKT_PSEUDO_STREAM_END): it has no payload and no pcap_cnt.
func (p *Packet) Pseudo() bool { return p.Source == SourceStreamFlowTimeout }
