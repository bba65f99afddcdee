package decode

// Linux cooked capture headers.
const (
	sllHeaderLen  = 16 // v1: packet type, ARPHRD, address length, address (8), protocol
	sll2HeaderLen = 20 // v2: protocol, reserved, ifindex, ARPHRD, packet type, address length, address (8)
)

func (d *Decoder) decodeSLL(p *Packet, data []byte) {
	d.Counters.SLL++
	if len(data) < sllHeaderLen {
		p.invalid(EventSLLPktTooSmall)
		return
	}
	d.decodeNetwork(p, be16(data[14:16]), data[sllHeaderLen:])
}

func (d *Decoder) decodeSLL2(p *Packet, data []byte) {
	d.Counters.SLL2++
	if len(data) < sll2HeaderLen {
		p.invalid(EventSLLPktTooSmall)
		return
	}
	d.decodeNetwork(p, be16(data[0:2]), data[sll2HeaderLen:])
}
