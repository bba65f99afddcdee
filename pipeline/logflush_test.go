package pipeline

import (
	"encoding/binary"
	"testing"
	"time"

	_ "github.com/meerkat-ids/meerkat/applayer/ssh" // registers SSH
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
)

// sshRecord is one unencrypted SSH binary packet (RFC 4253 §6) carrying message code msg:
// packet_length, padding_length 4, the code, four bytes of padding.
func sshRecord(msg byte) string {
	b := make([]byte, 4+1+1+4)
	binary.BigEndian.PutUint32(b, 1+1+4)
	b[4] = 4
	b[5] = msg
	return string(b)
}

// The detect/log flush pseudo packets. src/flow-worker.c: FlowWorkerStreamTCPUpdate calls
// StreamTcpDetectLogFlush (src/stream-tcp.c) on the first packet after which the parser state
// has APP_LAYER_PARSER_NO_INSPECTION (setting_nopayload: SSH once both sides sent NEWKEYS,
// with encryption-handling track-only, the default): one pseudo packet per direction,
// PKT_PSEUDO_DETECTLOG_FLUSH, goes through Detect. src/detect.c: DetectRulePacketRules skips
// packet rules on PKT_PSEUDO_STREAM_END only, so a packet rule alerts on both of them. SV
// ruletype-firewall-33-ssh: 322 packets, 324 alerts of its `tcp:all` packet rule.
//
// The same session with the server's NEWKEYS replaced by an IGNORE message (same sizes) never
// disables inspection: no flush, so exactly two alerts fewer.
func TestDetectLogFlushPseudoPackets(t *testing.T) {
	run := func(serverMsg byte) uint64 {
		w := appWorker(t, `alert tcp any any <> any 22 (flow:established; sid:1;)`)
		c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
		cb, sb := "SSH-2.0-client\r\n", "SSH-2.0-server\r\n"
		cn, sn := sshRecord(21), sshRecord(serverMsg) // 21: SSH_MSG_NEWKEYS, 2: SSH_MSG_IGNORE
		c1 := uint32(1001)
		s1 := uint32(9001)
		frames := [][]byte{
			seqFrame(c, s, 40000, 22, 1000, 0, decode.TCPFlagSYN, ""),
			seqFrame(s, c, 22, 40000, 9000, c1, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
			seqFrame(c, s, 40000, 22, c1, s1, decode.TCPFlagACK, ""),
			seqFrame(c, s, 40000, 22, c1, s1, decode.TCPFlagACK|decode.TCPFlagPSH, cb),
			seqFrame(s, c, 22, 40000, s1, c1+uint32(len(cb)), decode.TCPFlagACK|decode.TCPFlagPSH, sb),
			seqFrame(c, s, 40000, 22, c1+uint32(len(cb)), s1+uint32(len(sb)), decode.TCPFlagACK|decode.TCPFlagPSH, cn),
			seqFrame(s, c, 22, 40000, s1+uint32(len(sb)), c1+uint32(len(cb)+len(cn)), decode.TCPFlagACK|decode.TCPFlagPSH, sn),
			seqFrame(c, s, 40000, 22, c1+uint32(len(cb)+len(cn)), s1+uint32(len(sb)+len(sn)), decode.TCPFlagACK, ""),
			seqFrame(s, c, 22, 40000, s1+uint32(len(sb)+len(sn)), c1+uint32(len(cb)+len(cn)), decode.TCPFlagACK, ""),
		}
		ts := time.Unix(1700000000, 0)
		for i, b := range frames {
			fr := capture.Frame{Data: b, Timestamp: ts.Add(time.Duration(i) * time.Millisecond),
				LinkType: decode.LinkTypeEthernet, Cnt: uint64(i + 1)}
			w.process(&fr)
		}
		return w.tc.Queue.Counters.Alerts
	}
	plain, flushed := run(2), run(21)
	if flushed != plain+2 {
		t.Errorf("%d alerts with NEWKEYS both ways, %d without: want two more (the flush pseudo packets)", flushed, plain)
	}
}
