package pipeline

import (
	"context"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
	"github.com/meerkat-ids/meerkat/stream"
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

// tcpFrame is frame with sequence and acknowledgement numbers and an open window.
func pseudoTestFrame(src, dst [4]byte, sport, dport uint16, flags uint8, seq, ack uint32, payload string) []byte {
	b := frame(src, dst, sport, dport, flags, payload)
	tcp := b[14+20:]
	binary.BigEndian.PutUint32(tcp[4:], seq)
	binary.BigEndian.PutUint32(tcp[8:], ack)
	binary.BigEndian.PutUint16(tcp[14:], 65535)
	return b
}

// Flow-end pseudo packets of a passed or dropped flow. src/flow-worker.c: CheckWorkQueue
// runs FlowFinish (the pseudo packets) only for a flow without FLOW_ACTION_DROP, and
// src/detect.c: DetectFlow runs no detection on a packet of a FLOW_ACTION_PASS flow, pseudo
// packets included. So the unACKed "hello" left at the end is inspected (and alerts on the
// to_server pseudo packet) only in a flow neither passed nor dropped.
func TestPseudoPacketsOfPassedAndDroppedFlows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		first  string // a rule deciding the flow on its first packet
		ips    bool
		alerts uint64
	}{
		{"plain", `alert tcp any any -> any any (content:"nothing"; sid:1;)`, false, 1},
		{"passed", `pass ip 10.0.0.1 any -> any any (sid:1;)`, false, 0},
		// The drop rule's own alert only.
		{"dropped", `drop ip 10.0.0.1 any -> any any (sid:1;)`, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rs []*rules.Rule
			for _, s := range []string{tc.first, `alert tcp any any -> any any (content:"hello"; sid:2;)`} {
				r, err := rules.Parse(s)
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			e, errs, err := detect.Build(rs, detect.Config{})
			if err != nil || len(errs) > 0 {
				t.Fatal(err, errs)
			}
			defer e.Close()
			cfg := testConfig(RunmodeSingle)
			cfg.Workers = 1
			cfg.Engine = e
			scfg := stream.Config{Raw: true, ToServerChunk: 2560, ToClientChunk: 2560, ReassemblyMemcap: 64 << 20,
				Memcap: 64 << 20, SegmentPrealloc: 64, Inline: tc.ips}
			cfg.Stream = &scfg
			if tc.ips {
				cfg.IPS = true
			}
			c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
			ts := time.Unix(1700000000, 0)
			var frames []capture.Frame
			for i, f := range [][]byte{
				pseudoTestFrame(c, s, 40000, 80, decode.TCPFlagSYN, 100, 0, ""),
				pseudoTestFrame(s, c, 80, 40000, decode.TCPFlagSYN|decode.TCPFlagACK, 500, 101, ""),
				pseudoTestFrame(c, s, 40000, 80, decode.TCPFlagACK, 101, 501, ""),
				pseudoTestFrame(c, s, 40000, 80, decode.TCPFlagACK|decode.TCPFlagPSH, 101, 501, "hello"),
			} {
				frames = append(frames, capture.Frame{Data: f, Timestamp: ts.Add(time.Duration(i) * time.Millisecond),
					LinkType: decode.LinkTypeEthernet, Cnt: uint64(i + 1)})
			}
			res, err := Run(context.Background(), &memSource{frames: frames}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Alerts != tc.alerts {
				t.Errorf("%d alerts, want %d", res.Alerts, tc.alerts)
			}
		})
	}
}
