package decode

// TCP header sizes.
const (
	tcpHeaderLen  = 20
	tcpOptLenMax  = 40
	tcpOptEOL     = 0
	tcpOptNOP     = 1
	tcpOptMSS     = 2
	tcpOptWS      = 3
	tcpOptSACKOK  = 4
	tcpOptSACK    = 5
	tcpOptTS      = 8
	tcpOptMD5     = 19
	tcpOptAO      = 29
	tcpOptTFO     = 34
	tcpOptMSSLen  = 4
	tcpOptWSLen   = 3
	tcpOptSACKOKL = 2
	tcpOptTSLen   = 10
)

func (d *Decoder) decodeTCP(p *Packet, data []byte) {
	if !p.IsFragment {
		d.Counters.TCP++
	}
	if len(data) < tcpHeaderLen {
		p.invalid(EventTCPPktTooSmall)
		return
	}
	hlen := int(data[12]>>4) * 4
	if len(data) < hlen {
		p.invalid(EventTCPHlenTooSmall)
		return
	}
	if hlen < tcpHeaderLen {
		// Suricata computes the options length as an unsigned byte, hlen-20, so a data offset
		// below 5 shows up as an options length over 40.
		p.invalid(EventTCPInvalidOptlen)
		return
	}
	p.SrcPort = be16(data[0:2])
	p.DstPort = be16(data[2:4])
	p.TCPSeq = be32(data[4:8])
	p.TCPAck = be32(data[8:12])
	p.TCPRes = data[12] & 0x0f
	p.TCPFlags = data[13]
	p.TCPWindow = be16(data[14:16])
	p.TCPUrgent = be16(data[18:20])
	if hlen > tcpHeaderLen {
		decodeTCPOptions(p, data[tcpHeaderLen:hlen])
	}
	p.L4Header = data[:hlen]
	p.Payload = data[hlen:]
	p.HasL4 = true
	if (d.Checksums == ChecksumAll || d.Checksums == ChecksumTCP) && !p.IsFragment {
		p.L4ChecksumBad = !l4ChecksumOK(p, ProtoTCP, data)
	}
}

// decodeTCPOptions reads MSS, window scale, SACK permitted and timestamps. A known option
// with the wrong size or a repeated one raises an event and is ignored; an option whose
// length byte is below 2 or runs past the header ends the walk (tcp.opt_invalid_len).
func decodeTCPOptions(p *Packet, opts []byte) {
	var sackSeen bool
	for len(opts) > 0 {
		t := opts[0]
		if t == tcpOptEOL {
			return
		}
		if t == tcpOptNOP {
			opts = opts[1:]
			continue
		}
		if len(opts) < 2 {
			return
		}
		l := int(opts[1])
		if l < 2 || l > len(opts) {
			p.Events.Add(EventTCPOptInvalidLen)
			return
		}
		o := opts[:l]
		opts = opts[l:]
		switch t {
		case tcpOptMSS:
			if l != tcpOptMSSLen {
				p.Events.Add(EventTCPOptInvalidLen)
			} else if p.HasTCPMSS {
				p.Events.Add(EventTCPOptDuplicate)
			} else {
				p.HasTCPMSS = true
				p.TCPMSS = be16(o[2:4])
			}
		case tcpOptWS:
			if l != tcpOptWSLen {
				p.Events.Add(EventTCPOptInvalidLen)
			} else if p.HasWScale {
				p.Events.Add(EventTCPOptDuplicate)
			} else {
				p.HasWScale = true
				p.TCPWScale = o[2]
			}
		case tcpOptSACKOK:
			if l != tcpOptSACKOKL {
				p.Events.Add(EventTCPOptInvalidLen)
			} else if p.TCPSackOK {
				p.Events.Add(EventTCPOptDuplicate)
			} else {
				p.TCPSackOK = true
			}
		case tcpOptTS:
			if l != tcpOptTSLen {
				p.Events.Add(EventTCPOptInvalidLen)
			} else if p.TCPHasTS {
				p.Events.Add(EventTCPOptDuplicate)
			} else {
				p.TCPHasTS = true
				p.TCPTSVal = be32(o[2:6])
				p.TCPTSEcr = be32(o[6:10])
			}
		case tcpOptSACK:
			if l < 10 || l > 34 || (l-2)%8 != 0 {
				p.Events.Add(EventTCPOptInvalidLen)
			} else if sackSeen {
				p.Events.Add(EventTCPOptDuplicate)
				p.TCPHasSACK = true
			} else {
				sackSeen = true
				p.TCPHasSACK = true
			}
		// The options the stream engine tests besides those above (Suricata's TCP option
		// decoding, decode-tcp.c DecodeTCPOptions): TCP-MD5, TCP-AO, and TCP Fast Open, as
		// option 34 or the experimental 253/254 with magic 0xF989.
		case tcpOptMD5:
			if l == 18 {
				p.TCPHasMD5 = true
			}
		case tcpOptAO:
			if l >= 4 {
				p.TCPHasMD5 = true
			}
		case tcpOptTFO:
			if l == 2 || l >= 4 && l <= 18 && (l-2)%2 == 0 {
				p.TCPHasTFO = true
			}
		case 253, 254:
			if (l == 4 || l == 12) && o[2] == 0xf9 && o[3] == 0x89 {
				p.TCPHasTFO = true
			}
		}
	}
}
