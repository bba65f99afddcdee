package output

import (
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// PacketHeader appends the common EVE header of a packet record (alert, drop) in Suricata's
// key order: timestamp, flow_id, pcap_cnt, event_type, vlan, the 5-tuple as seen in the packet,
// ip_v, icmp_type/icmp_code, pkt_src. f may be nil.
func PacketHeader(j *JSON, p *decode.Packet, f *flow.Flow, eventType string) {
	j.Time("timestamp", p.Timestamp)
	if f != nil {
		j.Uint("flow_id", f.ID())
	}
	if p.PcapCnt != 0 {
		j.Uint("pcap_cnt", p.PcapCnt)
	}
	j.String("event_type", eventType)
	if p.VLANCount > 0 {
		j.Array("vlan")
		for i := 0; i < int(p.VLANCount) && i < decode.MaxVLANs; i++ {
			j.ElemUint(uint64(p.VLAN[i]))
		}
		j.Close(']')
	}
	if p.IPVersion != 0 {
		ports := p.IPProto == decode.ProtoTCP || p.IPProto == decode.ProtoUDP || p.IPProto == decode.ProtoSCTP
		j.IP("src_ip", p.SrcIP)
		if ports {
			j.Uint("src_port", uint64(p.SrcPort))
		}
		j.IP("dest_ip", p.DstIP)
		if ports {
			j.Uint("dest_port", uint64(p.DstPort))
		}
		j.String("proto", protoName(p.IPProto))
		j.Uint("ip_v", uint64(p.IPVersion))
		if p.HasL4 && (p.IPProto == decode.ProtoICMP || p.IPProto == decode.ProtoICMPv6) {
			j.Uint("icmp_type", uint64(p.ICMPType))
			j.Uint("icmp_code", uint64(p.ICMPCode))
		}
	}
	j.String("pkt_src", p.Source.String())
}

// FlowRecord writes a complete EVE `flow` record for a flow that ended. now is the record's
// timestamp: Suricata stamps flow records with the engine time when it logs them; Meerkat uses
// the time the flow ended (flow.Flow.Ended), which does not depend on thread scheduling.
func FlowRecord(j *JSON, f *flow.Flow, now time.Time) {
	j.Reset()
	j.Begin()
	j.Time("timestamp", now)
	j.Uint("flow_id", f.ID())
	j.String("event_type", "flow")
	if f.VLANs > 0 {
		j.Array("vlan")
		for i := 0; i < int(f.VLANs) && i < decode.MaxVLANs; i++ {
			j.ElemUint(uint64(f.VLAN[i]))
		}
		j.Close(']')
	}
	ports := f.Proto == decode.ProtoTCP || f.Proto == decode.ProtoUDP || f.Proto == decode.ProtoSCTP
	j.IP("src_ip", f.SrcIP)
	if ports {
		j.Uint("src_port", uint64(f.SrcPort))
	}
	j.IP("dest_ip", f.DstIP)
	if ports {
		j.Uint("dest_port", uint64(f.DstPort))
	}
	j.Uint("ip_v", uint64(f.IPv))
	j.String("proto", protoName(f.Proto))
	if f.Proto == decode.ProtoICMP || f.Proto == decode.ProtoICMPv6 {
		j.Uint("icmp_type", uint64(f.ICMPType))
		j.Uint("icmp_code", uint64(f.ICMPCode))
		if f.PktsToClient > 0 {
			j.Uint("response_icmp_type", uint64(f.RespICMPType))
			j.Uint("response_icmp_code", uint64(f.RespICMPCode))
		}
	}
	j.Object("flow")
	flowCounters(j, f)
	j.Time("end", f.Last)
	j.Int("age", f.Age())
	j.String("state", f.State.String())
	j.String("reason", f.EndReason.String())
	j.Bool("alerted", f.Alerted)
	if a := f.Action.String(); a != "" {
		j.String("action", a)
	}
	j.Close('}')
	if f.Proto == decode.ProtoTCP {
		t := &f.TCP
		j.Object("tcp")
		j.String("tcp_flags", hex2(t.Flags))
		j.String("tcp_flags_ts", hex2(t.ClientFlags))
		j.String("tcp_flags_tc", hex2(t.ServerFlags))
		tcpFlagBools(j, t.Flags)
		if t.Session {
			j.String("state", t.State.String())
			j.Uint("ts_max_regions", 1)
			j.Uint("tc_max_regions", 1)
		}
		j.Close('}')
	}
	j.End()
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
func FlowObject(j *JSON, f *flow.Flow) {
	j.Object("flow")
	flowCounters(j, f)
	j.IP("src_ip", f.SrcIP)
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

// tcpFlagBools writes one true member per flag set, as Suricata's EveTcpFlags.
func tcpFlagBools(j *JSON, fl uint8) {
	names := [...]struct {
		bit  uint8
		name string
	}{
		{decode.TCPFlagSYN, "syn"}, {decode.TCPFlagFIN, "fin"}, {decode.TCPFlagRST, "rst"},
		{decode.TCPFlagPSH, "psh"}, {decode.TCPFlagACK, "ack"}, {decode.TCPFlagURG, "urg"},
		{decode.TCPFlagECE, "ecn"}, {decode.TCPFlagCWR, "cwr"},
	}
	for _, n := range names {
		if fl&n.bit != 0 {
			j.Bool(n.name, true)
		}
	}
}
