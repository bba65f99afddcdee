package pipeline

import (
	"net/netip"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The flow-end pseudo packet's TCP header as src/flow-timeout.c: FlowPseudoPacketSetup
// writes it: th_flags 0 (so flags:A, or any flags keyword wanting a set flag, does not match
// on it), th_win 10, th_seq the next_seq of the sending side, th_ack 0; the tuple as seen in
// the packet's direction; no payload; the engine time, not before the flow's last packet.
func TestPseudoPacketHeader(t *testing.T) {
	f := flow.NewDetached()
	f.SrcIP, f.DstIP = netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	f.SrcPort, f.DstPort, f.Proto, f.IPv = 40000, 80, decode.ProtoTCP, 4
	last := time.Unix(1700000000, 0)
	f.LastUnixNano = last.UnixNano()
	for _, tc := range []struct {
		dir          flow.Direction
		now          time.Time
		src, dst     string
		sport, dport uint16
		nextSeq      uint32
		wantTime     time.Time
	}{
		{flow.ToServer, last.Add(time.Second), "10.0.0.1", "10.0.0.2", 40000, 80, 1001, last.Add(time.Second)},
		{flow.ToClient, last.Add(-time.Second), "10.0.0.2", "10.0.0.1", 80, 40000, 5001, last},
	} {
		var p decode.Packet
		setPseudoPacket(&p, f, tc.dir, tc.now, tc.nextSeq)
		if p.TCPFlags != 0 || p.TCPWindow != 10 || p.TCPSeq != tc.nextSeq || p.TCPAck != 0 || len(p.Payload) != 0 {
			t.Errorf("%v: flags %#x window %d seq %d ack %d payload %d", tc.dir, p.TCPFlags, p.TCPWindow,
				p.TCPSeq, p.TCPAck, len(p.Payload))
		}
		if p.SrcIP.String() != tc.src || p.DstIP.String() != tc.dst || p.SrcPort != tc.sport || p.DstPort != tc.dport {
			t.Errorf("%v: tuple %v:%d -> %v:%d", tc.dir, p.SrcIP, p.SrcPort, p.DstIP, p.DstPort)
		}
		if !p.Pseudo() || p.Source != decode.SourceStreamFlowTimeout || !p.Timestamp.Equal(tc.wantTime) {
			t.Errorf("%v: pseudo %v source %v time %v", tc.dir, p.Pseudo(), p.Source, p.Timestamp)
		}
	}
}
