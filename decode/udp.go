package decode

const udpHeaderLen = 8

// decodeUDP decodes a UDP header. The payload is cut to the UDP length when that is shorter
// than the IP payload (trailing bytes are ignored, as in Suricata); a UDP length beyond the
// IP payload or below 8 is an error.
func (d *Decoder) decodeUDP(p *Packet, data []byte) {
	if !p.IsFragment {
		d.Counters.UDP++
	}
	if len(data) < udpHeaderLen {
		p.invalid(EventUDPHlenTooSmall)
		return
	}
	ulen := int(be16(data[4:6]))
	end := ulen
	if p.IsFragment {
		// First fragment: the UDP length covers the whole datagram.
		if end < udpHeaderLen || end > len(data) {
			end = len(data)
		}
	} else {
		if ulen > len(data) {
			p.invalid(EventUDPPktTooSmall)
			return
		}
		if ulen < udpHeaderLen {
			p.invalid(EventUDPLenInvalid)
			return
		}
	}
	p.SrcPort = be16(data[0:2])
	p.DstPort = be16(data[2:4])
	p.UDPLen = uint16(ulen)
	p.L4Header = data[:udpHeaderLen]
	p.Payload = data[udpHeaderLen:end]
	p.HasL4 = true
	if d.Checksums == ChecksumAll && !p.IsFragment {
		sum := be16(data[6:8])
		if sum == 0 && p.IPVersion == 4 {
			return // no checksum
		}
		p.L4ChecksumBad = !l4ChecksumOK(p, ProtoUDP, data[:ulen])
	}
}
