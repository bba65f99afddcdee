package output

import (
	"strconv"
	"time"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// PacketHeader appends the common EVE header of a packet record (alert, drop) in Suricata's
// key order: timestamp, flow_id, pcap_cnt, event_type, vlan, the 5-tuple as seen in the packet,
// ip_v, icmp_type/icmp_code, pkt_src. f may be nil.
func PacketHeader(j *JSON, p *decode.Packet, f *flow.Flow, eventType string) {
	packetHeaderAddr(j, p, f, eventType, nil, nil)
}

// packetHeaderAddr is PacketHeader with src and dst, when not nil, in place of the packet's
// addresses (XFF overwrite).
func packetHeaderAddr(j *JSON, p *decode.Packet, f *flow.Flow, eventType string, src, dst []byte) {
	flowHeader(j, p, f, flow.ToServer, flow.ToServer, eventType, src, dst)
}

// FlowRecord writes a complete EVE `flow` record for a flow that ended. now is the record's
// timestamp: Suricata stamps flow records with the engine time when it logs them; Meerkat uses
// the time the flow ended (flow.Flow.Ended), which does not depend on thread scheduling.
//
// Flow records are the most frequent record of a replay (one per flow), so this writes its
// fixed structure with direct appends instead of the general member-by-member builder; the
// output is the same JSON the builder would produce.
func FlowRecord(j *JSON, f *flow.Flow, now time.Time) { FlowRecordApp(j, f, now, nil) }

// FlowRecordApp is FlowRecord with the flow's app-layer view app (nil: none), whose
// app_proto members go before the flow object (EveAddAppProto).
func FlowRecordApp(j *JSON, f *flow.Flow, now time.Time, app *applayer.FlowApp) {
	j.Reset()
	b := j.B
	b = append(b, `{"timestamp":"`...)
	b = j.clock.appendTime(b, now)
	b = append(b, `","flow_id":`...)
	b = strconv.AppendUint(b, f.ID(), 10)
	if f.ParentID != 0 {
		b = append(b, `,"parent_id":`...)
		b = strconv.AppendUint(b, f.ParentID, 10)
	}
	b = append(b, `,"event_type":"flow"`...)
	if f.VLANs > 0 {
		b = append(b, `,"vlan":[`...)
		for i := 0; i < int(f.VLANs) && i < decode.MaxVLANs; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, uint64(f.VLAN[i]), 10)
		}
		b = append(b, ']')
	}
	ports := f.Proto == decode.ProtoTCP || f.Proto == decode.ProtoUDP || f.Proto == decode.ProtoSCTP
	b = append(b, `,"src_ip":"`...)
	b = AppendIP(b, f.SrcIP)
	b = append(b, '"')
	if ports {
		b = append(b, `,"src_port":`...)
		b = strconv.AppendUint(b, uint64(f.SrcPort), 10)
	}
	b = append(b, `,"dest_ip":"`...)
	b = AppendIP(b, f.DstIP)
	b = append(b, '"')
	if ports {
		b = append(b, `,"dest_port":`...)
		b = strconv.AppendUint(b, uint64(f.DstPort), 10)
	}
	b = append(b, `,"ip_v":`...)
	b = strconv.AppendUint(b, uint64(f.IPv), 10)
	b = append(b, `,"proto":"`...)
	b = append(b, protoName(f.Proto)...)
	b = append(b, '"')
	if f.Proto == decode.ProtoICMP || f.Proto == decode.ProtoICMPv6 {
		b = append(b, `,"icmp_type":`...)
		b = strconv.AppendUint(b, uint64(f.ICMPType), 10)
		b = append(b, `,"icmp_code":`...)
		b = strconv.AppendUint(b, uint64(f.ICMPCode), 10)
		if f.PktsToClient > 0 {
			b = append(b, `,"response_icmp_type":`...)
			b = strconv.AppendUint(b, uint64(f.RespICMPType), 10)
			b = append(b, `,"response_icmp_code":`...)
			b = strconv.AppendUint(b, uint64(f.RespICMPCode), 10)
		}
	}
	if app != nil {
		b = appendAppProto(b, app)
	}
	b = append(b, `,"flow":{"pkts_toserver":`...)
	b = strconv.AppendUint(b, f.PktsToServer, 10)
	b = append(b, `,"pkts_toclient":`...)
	b = strconv.AppendUint(b, f.PktsToClient, 10)
	b = append(b, `,"bytes_toserver":`...)
	b = strconv.AppendUint(b, f.BytesToServer, 10)
	b = append(b, `,"bytes_toclient":`...)
	b = strconv.AppendUint(b, f.BytesToClient, 10)
	b = append(b, `,"start":"`...)
	b = j.clock.appendTime(b, f.Start)
	b = append(b, `","end":"`...)
	b = j.clock.appendTime(b, f.Last())
	b = append(b, `","age":`...)
	b = strconv.AppendInt(b, f.Age(), 10)
	b = append(b, `,"state":"`...)
	if f.Bypassed {
		// FLOW_STATE_LOCAL_BYPASSED (EveFlowLogJSON)
		b = append(b, `bypassed","bypass":"local`...)
	} else {
		b = append(b, f.State.String()...)
	}
	b = append(b, `","reason":"`...)
	b = append(b, f.EndReason.String()...)
	b = append(b, `","alerted":`...)
	b = strconv.AppendBool(b, f.Alerted)
	if a := f.ActionName(); a != "" {
		b = append(b, `,"action":"`...)
		b = append(b, a...)
		b = append(b, '"')
	}
	b = append(b, '}')
	if f.Proto == decode.ProtoTCP {
		t := &f.TCP
		b = append(b, `,"tcp":{"tcp_flags":"`...)
		b = append(b, hex2(t.Flags)...)
		b = append(b, `","tcp_flags_ts":"`...)
		b = append(b, hex2(t.ClientFlags)...)
		b = append(b, `","tcp_flags_tc":"`...)
		b = append(b, hex2(t.ServerFlags)...)
		b = append(b, '"')
		for _, n := range tcpFlagNames {
			if t.Flags&n.bit != 0 {
				b = append(b, n.member...)
			}
		}
		if t.Session {
			b = append(b, `,"state":"`...)
			b = append(b, t.State.String()...)
			b = append(b, '"')
			if t.TCGap {
				b = append(b, `,"tc_gap":true`...)
			}
			if t.TSGap {
				b = append(b, `,"ts_gap":true`...)
			}
			b = append(b, `,"ts_max_regions":1,"tc_max_regions":1`...)
		}
		b = append(b, '}')
	}
	j.B = append(b, '}')
}

// tcpFlagNames are the flags EveTcpFlags writes, in its order, with their JSON members.
var tcpFlagNames = [...]struct {
	bit    uint8
	member string
}{
	{decode.TCPFlagSYN, `,"syn":true`}, {decode.TCPFlagFIN, `,"fin":true`}, {decode.TCPFlagRST, `,"rst":true`},
	{decode.TCPFlagPSH, `,"psh":true`}, {decode.TCPFlagACK, `,"ack":true`}, {decode.TCPFlagURG, `,"urg":true`},
	{decode.TCPFlagECE, `,"ecn":true`}, {decode.TCPFlagCWR, `,"cwr":true`},
}

// flowCounters writes the members Suricata's EveAddFlow writes: counters and start time.
func flowCounters(j *JSON, f *flow.Flow) {
	j.Uint("pkts_toserver", f.PktsToServer)
	j.Uint("pkts_toclient", f.PktsToClient)
	j.Uint("bytes_toserver", f.BytesToServer)
	j.Uint("bytes_toclient", f.BytesToClient)
	j.Time("start", f.Start)
}

// FlowObject writes the `flow` object of an alert or drop record: counters, start, and the
// tuple in flow direction (client first).
func FlowObject(j *JSON, f *flow.Flow) { flowObjectAddr(j, f, nil) }

// flowObjectAddr is FlowObject with client, when not nil, in place of the client's address
// (XFF overwrite).
func flowObjectAddr(j *JSON, f *flow.Flow, client []byte) {
	j.Object("flow")
	flowCounters(j, f)
	addr(j, "src_ip", f.SrcIP, client)
	j.IP("dest_ip", f.DstIP)
	if f.Proto == decode.ProtoTCP || f.Proto == decode.ProtoUDP || f.Proto == decode.ProtoSCTP {
		j.Uint("src_port", uint64(f.SrcPort))
		j.Uint("dest_port", uint64(f.DstPort))
	}
	j.Close('}')
}

var hexBytes [256]string

func init() {
	for i := range hexBytes {
		hexBytes[i] = string([]byte{hexDigits[i>>4], hexDigits[i&15]})
	}
}

func hex2(v uint8) string { return hexBytes[v] }

// AppProto writes the app_proto members of a flow's app layer (EveAddAppProto): app_proto
// once the protocol is known (or detection failed), app_proto_ts and app_proto_tc where a
// direction's protocol is set and differs, app_proto_orig after a protocol change and
// app_proto_expected where a change expected another protocol. app may be nil.
func AppProto(j *JSON, app *applayer.FlowApp) {
	if app == nil {
		return
	}
	p := app.Proto
	if p != applayer.ProtoUnknown {
		j.String("app_proto", p.String())
	}
	for d, name := range [2]string{"app_proto_ts", "app_proto_tc"} {
		if q := app.ProtoDir[d]; q != applayer.ProtoUnknown && q != p {
			j.String(name, q.String())
		}
	}
	if app.ProtoOrig != p && app.ProtoOrig != applayer.ProtoUnknown {
		j.String("app_proto_orig", app.ProtoOrig.String())
	}
	if app.ProtoExpect != p && app.ProtoExpect != applayer.ProtoUnknown {
		j.String("app_proto_expected", app.ProtoExpect.String())
	}
}

// appendAppProto is AppProto for FlowRecordApp's direct appends.
func appendAppProto(b []byte, app *applayer.FlowApp) []byte {
	p := app.Proto
	if p != applayer.ProtoUnknown {
		b = appendMember(b, `,"app_proto":"`, p.String())
	}
	for d, name := range [2]string{`,"app_proto_ts":"`, `,"app_proto_tc":"`} {
		if q := app.ProtoDir[d]; q != applayer.ProtoUnknown && q != p {
			b = appendMember(b, name, q.String())
		}
	}
	if app.ProtoOrig != p && app.ProtoOrig != applayer.ProtoUnknown {
		b = appendMember(b, `,"app_proto_orig":"`, app.ProtoOrig.String())
	}
	if app.ProtoExpect != p && app.ProtoExpect != applayer.ProtoUnknown {
		b = appendMember(b, `,"app_proto_expected":"`, app.ProtoExpect.String())
	}
	return b
}

func appendMember(b []byte, key, v string) []byte {
	b = append(b, key...)
	b = append(b, v...)
	return append(b, '"')
}
