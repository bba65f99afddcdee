package ssh

import (
	"net/netip"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestFrames: each binary packet after the banner gets record_hdr (6 bytes), record_data
// (length-2 bytes after the header) and record_pdu (length+4 bytes) frames at its stream
// offset (parse_record's Frame::new calls), here the banner's 11 bytes in.
func TestFrames(t *testing.T) {
	cfg, err := applayer.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	l := applayer.NewLayer(cfg)
	for _, ft := range []applayer.FrameType{FrameRecordHdr, FrameRecordData, FrameRecordPDU} {
		l.EnableFrames(applayer.ProtoSSH, ft)
	}
	f := &flow.Flow{SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"), SrcPort: 1234, DstPort: 22}
	data := append([]byte("SSH-2.0-c\r\n"), record(msgNewKeys, []byte{0, 0})...)
	l.Begin(f, flow.ToServer)
	l.Data(f, flow.ToServer, flow.ToServer, data, 0, false)
	l.Ready(f, flow.ToServer)
	fs := l.Frames(f)
	if fs == nil || fs.Len(flow.ToServer) != 3 {
		t.Fatalf("frames %v", fs)
	}
	want := []struct {
		off  uint64
		len  int64
		kind applayer.FrameType
	}{{11, 6, FrameRecordHdr}, {17, 2, FrameRecordData}, {11, 8, FrameRecordPDU}}
	for i, w := range want {
		fr := fs.At(flow.ToServer, i)
		if fr.Offset != w.off || fr.Len != w.len || fr.Type != w.kind {
			t.Errorf("frame %d: %+v, want %+v", i, *fr, w)
		}
	}
}
