package decode

// icmpHeaderLen is the ICMPv4 and ICMPv6 header: type, code, checksum and 4 bytes whose
// meaning depends on the type (identifier and sequence number for echo messages).
const icmpHeaderLen = 8

// ICMPv4 types.
const (
	icmp4EchoReply      = 0
	icmp4DestUnreach    = 3
	icmp4SourceQuench   = 4
	icmp4Redirect       = 5
	icmp4Echo           = 8
	icmp4TimeExceeded   = 11
	icmp4ParamProblem   = 12
	icmp4Timestamp      = 13
	icmp4TimestampReply = 14
	icmp4InfoRequest    = 15
	icmp4InfoReply      = 16
	icmp4AddressMask    = 17
	icmp4AddressReply   = 18
)

func (d *Decoder) decodeICMPv4(p *Packet, data []byte) {
	if !p.IsFragment {
		d.Counters.ICMPv4++
	}
	if len(data) < icmpHeaderLen {
		p.invalid(EventICMPv4PktTooSmall)
		return
	}
	t, code := data[0], data[1]
	p.ICMPType = t
	p.ICMPCode = code
	p.L4Header = data[:icmpHeaderLen]
	p.Payload = data[icmpHeaderLen:]
	p.HasL4 = true

	var maxCode uint8
	embedded := false
	switch t {
	case icmp4EchoReply, icmp4Echo, icmp4Timestamp, icmp4TimestampReply,
		icmp4InfoRequest, icmp4InfoReply, icmp4AddressMask, icmp4AddressReply:
		p.HasICMPID = true
		p.ICMPID = be16(data[4:6])
		p.ICMPSeq = be16(data[6:8])
	case icmp4DestUnreach:
		maxCode, embedded = 15, true
	case icmp4SourceQuench:
		embedded = true
	case icmp4Redirect:
		maxCode, embedded = 3, true
	case icmp4TimeExceeded:
		maxCode, embedded = 1, true
	case icmp4ParamProblem:
		maxCode, embedded = 2, true
	default:
		p.Events.Add(EventICMPv4UnknownType)
		maxCode = 255
	}
	if code > maxCode {
		p.Events.Add(EventICMPv4UnknownCode)
	} else if embedded && len(data) > icmpHeaderLen {
		// The error quotes the offending IPv4 header; Suricata checks it.
		emb := data[icmpHeaderLen:]
		if len(emb) < ipv4HeaderLen {
			p.Events.Add(EventICMPv4IPv4TruncPkt)
		} else if emb[0]>>4 != 4 {
			p.Events.Add(EventICMPv4IPv4UnknownVer)
		}
	}
	if d.Checksums == ChecksumAll && !p.IsFragment {
		p.L4ChecksumBad = !l4ChecksumOK(p, ProtoICMP, data)
	}
}

// ICMPv6 types.
const (
	icmp6DestUnreach  = 1
	icmp6PacketTooBig = 2
	icmp6TimeExceeded = 3
	icmp6ParamProblem = 4
	icmp6EchoRequest  = 128
	icmp6EchoReply    = 129
	icmp6MLDQuery     = 130
	icmp6MLDReport    = 131
	icmp6MLDDone      = 132
	icmp6RouterSol    = 133
	icmp6Redirect     = 137
	icmp6RouterRenum  = 138
	icmp6NodeInfoQ    = 139
	icmp6NodeInfoR    = 140
	icmp6MLDv2Report  = 143
	icmp6LastKnown    = 161 // extended echo reply (RFC 8335)
)

func (d *Decoder) decodeICMPv6(p *Packet, data []byte) {
	if !p.IsFragment {
		d.Counters.ICMPv6++
	}
	if len(data) < icmpHeaderLen {
		p.invalid(EventICMPv6PktTooSmall)
		return
	}
	t, code := data[0], data[1]
	p.ICMPType = t
	p.ICMPCode = code
	p.L4Header = data[:icmpHeaderLen]
	p.Payload = data[icmpHeaderLen:]
	p.HasL4 = true

	var maxCode uint8
	embedded := false
	switch {
	case t == icmp6DestUnreach:
		maxCode, embedded = 7, true
	case t == icmp6PacketTooBig:
		embedded = true
	case t == icmp6TimeExceeded:
		maxCode, embedded = 1, true
	case t == icmp6ParamProblem:
		maxCode, embedded = 3, true
	case t == icmp6EchoRequest || t == icmp6EchoReply:
		p.HasICMPID = true
		p.ICMPID = be16(data[4:6])
		p.ICMPSeq = be16(data[6:8])
	case t >= icmp6MLDQuery && t <= icmp6MLDDone || t == icmp6MLDv2Report:
		if p.TTL != 1 {
			p.Events.Add(EventICMPv6MLDMessageWithInvalidHL)
		}
	case t >= icmp6RouterSol && t <= icmp6Redirect:
	case t == icmp6RouterRenum:
		if code > 1 && code != 255 {
			p.Events.Add(EventICMPv6UnknownCode)
		}
		maxCode = 255
	case t == icmp6NodeInfoQ || t == icmp6NodeInfoR:
		maxCode = 2
	case t > icmp6NodeInfoR && t <= icmp6LastKnown:
		maxCode = 255
	case t == 100 || t == 101 || t == 200 || t == 201:
		p.Events.Add(EventICMPv6ExperimentationType)
		maxCode = 255
	case t == 0 || t == 127 || t == 255:
		p.Events.Add(EventICMPv6UnknownType)
		maxCode = 255
	default:
		p.Events.Add(EventICMPv6UnassignedType)
		maxCode = 255
	}
	if code > maxCode {
		p.Events.Add(EventICMPv6UnknownCode)
	} else if embedded && len(data) > icmpHeaderLen {
		emb := data[icmpHeaderLen:]
		if len(emb) < ipv6HeaderLen {
			p.Events.Add(EventICMPv6IPv6TruncPkt)
		} else if emb[0]>>4 != 6 {
			p.Events.Add(EventICMPv6IPv6UnknownVersion)
		}
	}
	if d.Checksums == ChecksumAll && !p.IsFragment {
		p.L4ChecksumBad = !l4ChecksumOK(p, ProtoICMPv6, data)
	}
}
