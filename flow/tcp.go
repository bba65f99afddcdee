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
}

// update advances the TCP state machine with one packet. It follows the transitions of
// Suricata's stream engine without its sequence-number validation.
func (f *Flow) updateTCP(p *decode.Packet, dir Direction, midstream bool) {
	t := &f.TCP
	fl := p.TCPFlags
	if !t.Session {
		switch {
		case fl&(decode.TCPFlagSYN|decode.TCPFlagACK|decode.TCPFlagRST) == decode.TCPFlagSYN:
			t.Session = true
			f.setTCPState(TCPSynSent)
		case midstream && fl&decode.TCPFlagRST == 0:
			t.Session = true
			if fl&(decode.TCPFlagSYN|decode.TCPFlagACK) == decode.TCPFlagSYN|decode.TCPFlagACK {
				f.setTCPState(TCPSynRecv)
			} else {
				f.setTCPState(TCPEstablished)
			}
		default:
			return
		}
	} else {
		f.tcpTransition(fl, dir)
	}
	t.Flags |= fl
	if dir == ToServer {
		t.ClientFlags |= fl
	} else {
		t.ServerFlags |= fl
	}
}

func (f *Flow) tcpTransition(fl uint8, dir Direction) {
	t := &f.TCP
	if fl&decode.TCPFlagRST != 0 {
		f.setTCPState(TCPClosed)
		return
	}
	syn := fl&decode.TCPFlagSYN != 0
	ack := fl&decode.TCPFlagACK != 0
	fin := fl&decode.TCPFlagFIN != 0
	switch t.State {
	case TCPSynSent:
		if syn && ack && dir == ToClient {
			t.SynAckSeen = true
			f.setTCPState(TCPSynRecv)
		}
	case TCPSynRecv:
		if ack && !syn && dir == ToServer {
			f.setTCPState(TCPEstablished)
			if fin {
				f.setTCPState(TCPFinWait1)
			}
		}
	case TCPEstablished:
		if fin {
			if dir == ToServer {
				f.setTCPState(TCPFinWait1)
			} else {
				f.setTCPState(TCPCloseWait)
			}
		}
	case TCPFinWait1:
		// The client sent FIN; the server answers with ACK, FIN or both.
		if dir == ToClient {
			switch {
			case fin && ack:
				f.setTCPState(TCPTimeWait)
			case fin:
				f.setTCPState(TCPClosing)
			case ack:
				f.setTCPState(TCPFinWait2)
			}
		}
	case TCPFinWait2:
		if dir == ToClient && fin {
			f.setTCPState(TCPTimeWait)
		}
	case TCPCloseWait:
		// The server sent FIN first; the client's FIN moves to LAST_ACK.
		if dir == ToServer && fin {
			f.setTCPState(TCPLastAck)
		}
	case TCPClosing:
		if ack {
			f.setTCPState(TCPTimeWait)
		}
	case TCPLastAck:
		if ack && dir == ToClient {
			f.setTCPState(TCPClosed)
		}
	case TCPTimeWait:
		if ack && dir == ToServer {
			f.setTCPState(TCPClosed)
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
