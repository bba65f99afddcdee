package decode

// sctpHeaderLen is the SCTP common header: ports, verification tag, checksum.
const sctpHeaderLen = 12

// decodeSCTP reads the ports of the SCTP common header; chunks are left in Payload.
func (d *Decoder) decodeSCTP(p *Packet, data []byte) {
	if !p.IsFragment {
		d.Counters.SCTP++
	}
	if len(data) < sctpHeaderLen {
		p.invalid(EventSCTPPktTooSmall)
		return
	}
	p.SrcPort = be16(data[0:2])
	p.DstPort = be16(data[2:4])
	p.L4Header = data[:sctpHeaderLen]
	p.Payload = data[sctpHeaderLen:]
	p.HasL4 = true
}
