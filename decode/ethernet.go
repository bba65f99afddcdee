package decode

// Ethernet II header: destination MAC, source MAC, ethertype.
const ethernetHeaderLen = 14

// vlanHeaderLen is an 802.1Q tag as it follows the tag's ethertype: TCI and inner ethertype.
const vlanHeaderLen = 4

func (d *Decoder) decodeEthernet(p *Packet, data []byte) {
	d.Counters.Ethernet++
	if len(data) < ethernetHeaderLen {
		p.invalid(EventEthernetPktTooSmall)
		return
	}
	p.HasEthernet = true
	copy(p.DstMAC[:], data[0:6])
	copy(p.SrcMAC[:], data[6:12])
	d.decodeNetwork(p, be16(data[12:14]), data[ethernetHeaderLen:])
}

// decodeVLAN decodes one 802.1Q / 802.1ad tag (data starts at the TCI). Up to MaxVLANs tags
// are kept; one more is vlan.too_many_layers and stops decoding, as in Suricata.
func (d *Decoder) decodeVLAN(p *Packet, data []byte) {
	switch p.VLANCount {
	case 0:
		d.Counters.VLAN++
	case 1:
		d.Counters.VLANQinQ++
	case 2:
		d.Counters.VLANQinQinQ++
	}
	if len(data) < vlanHeaderLen {
		p.invalid(EventVLANHeaderTooSmall)
		return
	}
	if p.VLANCount >= MaxVLANs {
		p.invalid(EventVLANTooManyLayers)
		return
	}
	p.VLAN[p.VLANCount] = be16(data[0:2]) & 0x0fff
	p.VLANCount++
	if !d.decodeNetwork(p, be16(data[2:4]), data[vlanHeaderLen:]) {
		p.invalid(EventVLANUnknownType) // ENGINE_SET_INVALID_EVENT in Suricata's DecodeVLAN
	}
}
