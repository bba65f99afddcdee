package decode

// decodeRaw decodes raw IP, choosing IPv4 or IPv6 by the version nibble.
func (d *Decoder) decodeRaw(p *Packet, data []byte) {
	d.Counters.Raw++
	if len(data) < ipv4HeaderLen {
		p.invalid(EventIPv4PktTooSmall)
		return
	}
	switch data[0] >> 4 {
	case 4:
		p.EtherType = etherTypeIPv4
		d.decodeIPv4(p, data)
	case 6:
		p.EtherType = etherTypeIPv6
		d.decodeIPv6(p, data)
	default:
		p.invalid(EventIPRawInvalidIPVersion)
	}
}
