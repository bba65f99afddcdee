package decode

import "strconv"

// protoNames maps an IP protocol number to its EVE `proto` name.
var protoNames [256]string

func init() {
	for i := range protoNames {
		protoNames[i] = strconv.Itoa(i)
	}
	protoNames[ProtoICMP] = "ICMP"
	protoNames[ProtoIGMP] = "IGMP"
	protoNames[ProtoTCP] = "TCP"
	protoNames[ProtoUDP] = "UDP"
	protoNames[ProtoGRE] = "GRE"
	protoNames[ProtoICMPv6] = "IPv6-ICMP"
	protoNames[ProtoSCTP] = "SCTP"
}

// ProtoName returns the EVE `proto` value of an IP protocol number: "TCP", "UDP", "ICMP",
// "IPv6-ICMP", "SCTP", "IGMP", "GRE", or the number in decimal. It never allocates.
func ProtoName(proto uint8) string { return protoNames[proto] }

// ProtoName returns the EVE `proto` value of the packet's IPProto (see the function
// ProtoName). It never allocates.
func (p *Packet) ProtoName() string { return protoNames[p.IPProto] }
