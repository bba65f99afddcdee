package output

import (
	"strconv"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// Alert is what an alert record needs to know about the rule that matched.
type Alert struct {
	// Blocked is true when the EVE action is "blocked" (a reject, or a drop in IPS mode).
	Blocked bool
	// Drop marks a drop rule: fast.log prints [Drop] in IPS mode and [wDrop] in IDS mode.
	Drop     bool
	GID      uint32
	SID      uint32
	Rev      uint32
	Msg      string
	Category string // classtype description, "" when the rule has none
	Severity int    // rule priority
	// Metadata is the rule's metadata as an encoded JSON object ({"key":["v"]}), or nil.
	Metadata []byte
	// TxID is the transaction id to log, or -1.
	TxID int64
	// Engine is "fw" or "td" in firewall mode, "" otherwise.
	Engine string
	// FirewallHook and FirewallPolicy fill the firewall object of a firewall rule's alert
	// ("packet:filter", "accept:hook"); empty for threat-detection rules.
	FirewallHook   string
	FirewallPolicy string
	// Target is the rule's target keyword: "dest_ip", "src_ip" or "" (no source/target).
	Target string
	// References is the rule's references as an encoded JSON array of strings, or nil.
	References []byte
}

// AlertOptions are the eve-log alert type's options that change the record.
type AlertOptions struct {
	Metadata bool // rule metadata (metadata.rule.metadata, default on)
	Flow     bool // the flow object (metadata.flow, default on)
	Verdict  bool // the verdict object (verdict, default off)
	// References adds the rule's references (metadata.rule.reference, default off).
	References bool
	// TaggedPackets logs packets tagged by the tag keyword as `packet` records
	// (tagged-packets, default off).
	TaggedPackets bool
	// Payload, PayloadPrintable and PayloadLength log the payload in base64, as printable
	// text and its length (payload, payload-printable, payload-length); Packet logs the
	// frame (packet). PayloadBufferSize bounds a stream payload (payload-buffer-size).
	Payload, PayloadPrintable, PayloadLength, Packet bool
	PayloadBufferSize                                int
	// AppLayer adds, to tx alerts, the tx progress and the protocol's object
	// (metadata.app-layer, default on).
	AppLayer bool
	// HTTPBody and HTTPBodyPrintable add the HTTP bodies to the http object in base64 and
	// as printable text (http-body, http-body-printable; only with AppLayer).
	HTTPBody, HTTPBodyPrintable bool
	// XFF is the alert type's xff section, else eve-log's.
	XFF XFFConfig
	// FileHashes are the digests the files of a tx alert show (the files type's force-hash).
	FileHashes FileHashes
}

// AlertPayload is what an alert record logs as its payload besides the packet's own: for a
// match on the stream (PACKET_ALERT_FLAG_STREAM_MATCH or a state match) of a TCP packet, the
// reassembled stream of the packet's direction (Stream, possibly empty: then the packet
// payload is logged when it has one).
type AlertPayload struct {
	StreamMatch bool
	Stream      []byte
}

// PacketRecord writes a complete EVE `packet` record, as Suricata logs a tagged packet: the
// header, the captured frame in base64 and its link type (EvePacket).
func PacketRecord(j *JSON, p *decode.Packet, f *flow.Flow) {
	j.Reset()
	j.Begin()
	PacketHeader(j, p, f, "packet")
	packetObject(j, p.LinkType, p.Data)
	j.End()
}

// linkTypeInfo gives a capture link type as Suricata reports it: libpcap's DLT value (raw IP
// captures are DLT_RAW, 12) and Suricata's name for it ("n/a" when it has none).
func linkTypeInfo(t decode.LinkType) (uint16, string) {
	switch t {
	case decode.LinkTypeNull:
		return 0, "NULL"
	case decode.LinkTypeEthernet:
		return 1, "EN10MB"
	case decode.LinkTypeRaw, decode.LinkTypeRawAlt, decode.LinkTypeRawAlt2:
		return 12, "RAW"
	case decode.LinkTypeSLL:
		return 113, "LINUX_SLL"
	case decode.LinkTypeSLL2:
		return 276, "LINUX_SLL2"
	case decode.LinkTypeIPv4:
		return 228, "IPv4"
	case decode.LinkTypeIPv6:
		return 229, "IPv6"
	}
	return uint16(t), "n/a"
}

// Verdict is the packet's final verdict as EVE's `verdict` object gives it (EveAddVerdict):
// Action is "alert", "drop", "pass" or "accept"; RejectTarget and Reject are set for rejects.
type Verdict struct {
	Action       string
	RejectTarget string // "to_client", "to_server" or "both"
	Reject       string // "tcp-reset" or "icmp-prohib"
}

// AlertRecord writes a complete EVE `alert` record in Suricata's key order. v is written as the
// verdict object when opt.Verdict is set.
func AlertRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, a *Alert, opt AlertOptions, v *Verdict) {
	AlertRecordPayload(j, p, f, dir, a, opt, v, nil)
}

// AlertRecordPayload is AlertRecord with the stream payload pl (nil: a packet match).
func AlertRecordPayload(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, a *Alert, opt AlertOptions, v *Verdict, pl *AlertPayload) {
	AlertRecordApp(j, p, f, dir, a, opt, v, pl, nil)
}

// AlertRecordApp is AlertRecordPayload with the app-layer part app of the alert (nil: none):
// tx_id and tx_guessed, the XFF address, ts_progress/tc_progress, the http object and the
// files of a tx match, the flow's app_proto members.
func AlertRecordApp(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, a *Alert, opt AlertOptions, v *Verdict, pl *AlertPayload, app *AlertApp) {
	j.Reset()
	j.Begin()
	ip, overwrite := app.xff(&opt)
	xff, src, dst := xffPlace(ip, overwrite, dir)
	packetHeaderAddr(j, p, f, "alert", src, dst)
	if app != nil && app.HasTx {
		j.Uint("tx_id", app.TxID)
		if app.Guessed {
			j.Bool("tx_guessed", true)
		}
	} else if a.TxID >= 0 {
		j.Uint("tx_id", uint64(a.TxID))
	}
	alertObjectXFF(j, p, a, opt, xff)
	if a.FirewallHook != "" || a.FirewallPolicy != "" {
		j.Object("firewall")
		if a.FirewallHook != "" {
			j.String("hook", a.FirewallHook)
		}
		if a.FirewallPolicy != "" {
			j.String("policy", a.FirewallPolicy)
		}
		j.Close('}')
	}
	if f != nil {
		app.appLayer(j, dir, &opt)
		if app != nil {
			AppProto(j, app.Flow)
		}
		j.String("direction", dir.String())
		if opt.Flow {
			client := src
			if dst != nil {
				client = dst
			}
			flowObjectAddr(j, f, client)
		}
	}
	if opt.Payload || opt.PayloadPrintable || opt.PayloadLength {
		alertPayload(j, p, f, opt, pl)
	}
	if opt.Packet {
		packetObject(j, p.LinkType, p.Data)
	}
	if opt.Verdict && v != nil {
		verdictObject(j, v)
	}
	j.End()
}

// alertPayload writes payload, payload_length, payload_printable and stream as AlertJson
// does: a stream match on TCP logs the stream data (AlertJsonStreamData), falling back to the
// packet payload when there is none; otherwise the packet payload.
func alertPayload(j *JSON, p *decode.Packet, f *flow.Flow, opt AlertOptions, pl *AlertPayload) {
	stream := p.IPProto == decode.ProtoTCP && pl != nil && pl.StreamMatch
	switch {
	case stream && f != nil && len(pl.Stream) > 0:
		data := pl.Stream
		if opt.PayloadBufferSize > 0 && len(data) > opt.PayloadBufferSize {
			data = data[:opt.PayloadBufferSize]
		}
		payloadMembers(j, data, opt)
	case stream && len(p.Payload) == 0:
	default:
		payloadMembers(j, p.Payload, opt)
	}
	if stream {
		j.Uint("stream", 1)
	} else {
		j.Uint("stream", 0)
	}
}

func payloadMembers(j *JSON, data []byte, opt AlertOptions) {
	if opt.Payload {
		j.Base64("payload", data)
	}
	if opt.PayloadLength {
		j.Uint("payload_length", uint64(len(data)))
	}
	if opt.PayloadPrintable {
		j.PrintableASCII("payload_printable", data)
	}
}

// packetObject writes data, the frame or its first bytes, and the link type (EvePacket).
func packetObject(j *JSON, lt decode.LinkType, data []byte) {
	j.Base64("packet", data)
	j.Object("packet_info")
	n, name := linkTypeInfo(lt)
	j.Uint("linktype", uint64(n))
	j.String("linktype_name", name)
	j.Close('}')
}

func verdictObject(j *JSON, v *Verdict) {
	j.Object("verdict")
	j.String("action", v.Action)
	if v.RejectTarget != "" {
		j.String("reject-target", v.RejectTarget)
	}
	if v.Reject != "" {
		j.Array("reject")
		j.ElemString(v.Reject)
		j.Close(']')
	}
	j.Close('}')
}

func alertObject(j *JSON, a *Alert, opt AlertOptions) {
	if a.TxID >= 0 {
		j.Uint("tx_id", uint64(a.TxID))
	}
	alertObjectXFF(j, nil, a, opt, nil)
}

// alertObjectXFF writes the alert object; p (may be nil) supplies the source and target of a
// rule with the target keyword; xff, when not nil, is the XFF address of extra-data mode.
func alertObjectXFF(j *JSON, p *decode.Packet, a *Alert, opt AlertOptions, xff []byte) {
	j.Object("alert")
	if a.Blocked {
		j.String("action", "blocked")
	} else {
		j.String("action", "allowed")
	}
	if a.Engine != "" {
		j.String("engine", a.Engine)
	}
	j.Uint("gid", uint64(a.GID))
	j.Uint("signature_id", uint64(a.SID))
	j.Uint("rev", uint64(a.Rev))
	j.String("signature", a.Msg)
	j.String("category", a.Category)
	j.Uint("severity", uint64(a.Severity))
	if a.Target != "" && p != nil && p.IPVersion != 0 {
		srcIsTarget := a.Target == "src_ip"
		endpoint := func(name string, useSrc bool) {
			j.Object(name)
			ip, port := p.DstIP, p.DstPort
			if useSrc {
				ip, port = p.SrcIP, p.SrcPort
			}
			j.IP("ip", ip)
			if p.IPProto == decode.ProtoTCP || p.IPProto == decode.ProtoUDP || p.IPProto == decode.ProtoSCTP {
				j.Uint("port", uint64(port))
			}
			j.Close('}')
		}
		// As AlertJsonSourceTarget: with target:dest_ip the packet's source is the source.
		endpoint("source", !srcIsTarget)
		endpoint("target", srcIsTarget)
	}
	if opt.References && len(a.References) > 0 {
		j.Raw("references", a.References)
	}
	if opt.Metadata && len(a.Metadata) > 0 {
		j.Raw("metadata", a.Metadata)
	}
	if len(xff) > 0 {
		j.Bytes("xff", xff)
	}
	j.Close('}')
}

// DropRecord writes a complete EVE `drop` record: header, direction, the drop object with the
// packet's IP and transport fields and the reason, and, when a is not nil, the alert that
// caused the drop.
func DropRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, reason string, a *Alert) {
	j.Reset()
	j.Begin()
	PacketHeader(j, p, f, "drop")
	if f != nil {
		j.String("direction", dir.String())
	}
	j.Object("drop")
	switch p.IPVersion {
	case 4:
		j.Uint("len", uint64(p.IPLen))
		j.Uint("tos", uint64(p.TOS))
		j.Uint("ttl", uint64(p.TTL))
		j.Uint("ipid", uint64(p.IPID))
	case 6:
		pl := p.IPLen - 40
		if pl < 0 {
			pl = 0
		}
		j.Uint("len", uint64(pl))
		j.Uint("tc", uint64(p.TOS))
		j.Uint("hoplimit", uint64(p.TTL))
		j.Uint("flowlbl", uint64(p.FlowLabel))
	}
	switch {
	case p.IsTCP():
		j.Uint("tcpseq", uint64(p.TCPSeq))
		j.Uint("tcpack", uint64(p.TCPAck))
		j.Uint("tcpwin", uint64(p.TCPWindow))
		j.Bool("syn", p.TCPFlags&decode.TCPFlagSYN != 0)
		j.Bool("ack", p.TCPFlags&decode.TCPFlagACK != 0)
		j.Bool("psh", p.TCPFlags&decode.TCPFlagPSH != 0)
		j.Bool("rst", p.TCPFlags&decode.TCPFlagRST != 0)
		j.Bool("urg", p.TCPFlags&decode.TCPFlagURG != 0)
		j.Bool("fin", p.TCPFlags&decode.TCPFlagFIN != 0)
		j.Uint("tcpres", uint64(p.TCPRes))
		j.Uint("tcpurgp", uint64(p.TCPUrgent))
	case p.IsUDP():
		j.Uint("udplen", uint64(p.UDPLen))
	case p.IsICMP() && p.HasICMPID:
		j.Uint("icmp_id", uint64(p.ICMPID))
		j.Uint("icmp_seq", uint64(p.ICMPSeq))
	}
	if reason != "" {
		j.String("reason", reason)
	}
	j.Close('}')
	if a != nil {
		alertObject(j, a, AlertOptions{})
	}
	j.End()
}

// FastLine appends one fast.log line (with its newline) for alert a on packet p, in Suricata's
// format. ips selects [Drop] over [wDrop] for drop rules.
func FastLine(b []byte, p *decode.Packet, a *Alert, ips bool) []byte {
	b = AppendFastTime(b, p.Timestamp)
	b = append(b, ' ', ' ')
	if a.Drop {
		if ips {
			b = append(b, "[Drop] "...)
		} else {
			b = append(b, "[wDrop] "...)
		}
	}
	b = append(b, "[**] ["...)
	b = strconv.AppendUint(b, uint64(a.GID), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(a.SID), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(a.Rev), 10)
	b = append(b, "] "...)
	b = append(b, a.Msg...)
	b = append(b, " [**] [Classification: "...)
	if a.Category == "" {
		b = append(b, "(null)"...)
	} else {
		b = append(b, a.Category...)
	}
	b = append(b, "] [Priority: "...)
	b = strconv.AppendInt(b, int64(a.Severity), 10)
	b = append(b, "] "...)
	if p.IPVersion == 0 {
		b = append(b, "[**] [Raw pkt: "...)
		for i, c := range p.Data {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, hexDigits[c>>4]-('a'-'A')*boolByte(c>>4 > 9), hexDigits[c&15]-('a'-'A')*boolByte(c&15 > 9))
		}
		return append(b, "]\n"...)
	}
	b = append(b, '{')
	if p.IPProto == decode.ProtoICMPv6 || p.IPProto == decode.ProtoICMP || protoNames[p.IPProto][0] > '9' {
		b = append(b, protoNames[p.IPProto]...)
	} else {
		b = append(b, "PROTO:"...)
		b = appendPadded3(b, p.IPProto)
	}
	b = append(b, "} "...)
	sp, dp := p.SrcPort, p.DstPort
	if p.IsICMP() {
		sp, dp = uint16(p.ICMPType), uint16(p.ICMPCode)
	}
	b = AppendIP(b, p.SrcIP)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(sp), 10)
	b = append(b, " -> "...)
	b = AppendIP(b, p.DstIP)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(dp), 10)
	return append(b, '\n')
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendPadded3(b []byte, v uint8) []byte {
	return append(b, '0'+v/100, '0'+v/10%10, '0'+v%10)
}
