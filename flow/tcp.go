package flow

import "github.com/meerkat-ids/meerkat/decode"

// TCPSessionState is the TCP connection state as Suricata's stream engine names it.
type TCPSessionState uint8

// TCP session states, in Suricata's order (comparisons such as >= TCPEstablished rely on it).
const (
	TCPNone TCPSessionState = iota
	TCPSynSent
	TCPSynRecv
	TCPEstablished
	TCPFinWait1
	TCPFinWait2
	TCPTimeWait
	TCPLastAck
	TCPCloseWait
	TCPClosing
	TCPClosed
)

var tcpStateNames = [...]string{"none", "syn_sent", "syn_recv", "established", "fin_wait1",
	"fin_wait2", "time_wait", "last_ack", "close_wait", "closing", "closed"}

// String returns the EVE name of the state (`tcp.state`).
func (s TCPSessionState) String() string {
	if int(s) < len(tcpStateNames) {
		return tcpStateNames[s]
	}
	return "none"
}

// TCPState is what the flow keeps about a TCP session: the state machine and the flags seen.
// Session is false until a session exists: like Suricata without midstream pick-up, a session
// starts only with a SYN (or with any packet when Midstream is set on the table).
type TCPState struct {
	Session     bool
	State       TCPSessionState
	Flags       uint8 // every flag seen in the session
	ClientFlags uint8 // flags seen to the server
	ServerFlags uint8 // flags seen to the client
	SynAckSeen  bool
	// TSGap and TCGap record that the stream engine met a gap in the client's or the
	// server's stream (EVE flow tcp.ts_gap / tcp.tc_gap).
	TSGap, TCGap bool
}

// The seam for the stream engine: the flow table calls trackTCP, and only it, for every TCP
// packet of a flow that reaches the stream stage (not for a dropped flow, nor for a packet
// with a bad checksum). The state machine below works on TCPState alone and hands back the
// flow state its timeouts use (setTCPState). The stream package (issue #16) replaces it with
// Suricata's sequence-tracking machine, keeping its sessions in flow.Slots by flow slot.

// trackTCP advances the flow's TCP session with one packet.
func (f *Flow) trackTCP(p *decode.Packet, dir Direction, midstream bool) {
	f.TCP.track(p.TCPFlags, dir, midstream, f.setTCPState)
}

// track advances the TCP state machine with one packet's flags, calling set for each state
// it enters. It follows the transitions of Suricata's stream engine without its
// sequence-number validation.
func (t *TCPState) track(fl uint8, dir Direction, midstream bool, set func(TCPSessionState)) {
	if !t.Session {
		switch {
		case fl&(decode.TCPFlagSYN|decode.TCPFlagACK|decode.TCPFlagRST) == decode.TCPFlagSYN:
			t.Session = true
			set(TCPSynSent)
		case midstream && fl&decode.TCPFlagRST == 0:
			t.Session = true
			if fl&(decode.TCPFlagSYN|decode.TCPFlagACK) == decode.TCPFlagSYN|decode.TCPFlagACK {
				set(TCPSynRecv)
			} else {
				set(TCPEstablished)
			}
		default:
			return
		}
	} else {
		t.transition(fl, dir, set)
	}
	t.Flags |= fl
	if dir == ToServer {
		t.ClientFlags |= fl
	} else {
		t.ServerFlags |= fl
	}
}

func (t *TCPState) transition(fl uint8, dir Direction, set func(TCPSessionState)) {
	if fl&decode.TCPFlagRST != 0 {
		set(TCPClosed)
		return
	}
	syn := fl&decode.TCPFlagSYN != 0
	ack := fl&decode.TCPFlagACK != 0
	fin := fl&decode.TCPFlagFIN != 0
	switch t.State {
	case TCPSynSent:
		if syn && ack && dir == ToClient {
			t.SynAckSeen = true
			set(TCPSynRecv)
		}
	case TCPSynRecv:
		if ack && !syn && dir == ToServer {
			set(TCPEstablished)
			if fin {
				set(TCPFinWait1)
			}
		}
	case TCPEstablished:
		if fin {
			if dir == ToServer {
				set(TCPFinWait1)
			} else {
				set(TCPCloseWait)
			}
		}
	case TCPFinWait1:
		// The client sent FIN; the server answers with ACK, FIN or both.
		if dir == ToClient {
			switch {
			case fin && ack:
				set(TCPTimeWait)
			case fin:
				set(TCPClosing)
			case ack:
				set(TCPFinWait2)
			}
		}
	case TCPFinWait2:
		if dir == ToClient && fin {
			set(TCPTimeWait)
		}
	case TCPCloseWait:
		// The server sent FIN first; the client's FIN moves to LAST_ACK.
		if dir == ToServer && fin {
			set(TCPLastAck)
		}
	case TCPClosing:
		if ack {
			set(TCPTimeWait)
		}
	case TCPLastAck:
		if ack && dir == ToClient {
			set(TCPClosed)
		}
	case TCPTimeWait:
		if ack && dir == ToServer {
			set(TCPClosed)
		}
	}
}

func (f *Flow) setTCPState(s TCPSessionState) {
	if f.TCP.State == s {
		return
	}
	f.TCP.State = s
	switch s {
	case TCPEstablished, TCPFinWait1, TCPFinWait2, TCPClosing, TCPCloseWait:
		f.State = StateEstablished
	case TCPLastAck, TCPTimeWait, TCPClosed:
		f.State = StateClosed
	}
}

// SetTCPState is how the stream engine (flow.Config.ExternalTCP) records the session state:
// it sets f.TCP.State and the flow state its timeouts and EVE use (Suricata's
// StreamTcpPacketSetState: established for ESTABLISHED, FIN_WAIT1/2, CLOSING, CLOSE_WAIT;
// closed for LAST_ACK, TIME_WAIT, CLOSED).
func (f *Flow) SetTCPState(s TCPSessionState) {
	f.TCP.Session = s != TCPNone
	f.setTCPState(s)
}

// SetPacketEstablished sets what PacketEstablished reports for the current packet
// (FLOW_PKT_ESTABLISHED, decided by the stream engine).
func (f *Flow) SetPacketEstablished(est bool) { f.pktEstablished = est }

// Reverse swaps the flow's client and server, and the counters of the packet just
// accounted, as Suricata does when the stream engine picks a session up from a SYN/ACK (the
// SYN/ACK's sender is the server): the packet that created the flow becomes a to_client
// packet.
func (f *Flow) Reverse() {
	f.SrcIP, f.DstIP = f.DstIP, f.SrcIP
	f.SrcPort, f.DstPort = f.DstPort, f.SrcPort
	f.PktsToServer, f.PktsToClient = f.PktsToClient, f.PktsToServer
	f.BytesToServer, f.BytesToClient = f.BytesToClient, f.BytesToServer
	f.SeenToServer, f.SeenToClient = f.SeenToClient, f.SeenToServer
	f.TCP.ClientFlags, f.TCP.ServerFlags = f.TCP.ServerFlags, f.TCP.ClientFlags
	f.ICMPType, f.RespICMPType = f.RespICMPType, f.ICMPType
	f.ICMPCode, f.RespICMPCode = f.RespICMPCode, f.ICMPCode
}
