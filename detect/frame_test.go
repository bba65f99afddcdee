package detect

import (
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestFrameRules: a frame rule matches on a packet whose frames of its type hold the content
// (SV tcp-urgp-01-oob: frame:http1.request; content:"malicious"; nocase), never without the
// frame, nor on a frame of the other type, nor in a flow of another protocol
// (DetectRunFrames inspects the frames of the flow's parser).
func TestFrameRules(t *testing.T) {
	rs := mustRules(t,
		`drop tcp any any -> any 9090 (frame:http1.request; content:"malicious"; nocase; sid:1;)`,
		`alert http any any -> any any (frame:http1.response; content:"AAAA"; sid:3;)`,
		`alert http any any -> any any (frame:http1.request; content:"GET"; frame:http1.response; content:"200"; sid:4;)`,
	)
	e, errs, err := Build(rs, Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	if got := fmt.Sprint(e.FrameTypes()); got != fmt.Sprint([]FrameType{{applayer.ProtoHTTP1, http.FrameRequest}, {applayer.ProtoHTTP1, http.FrameResponse}}) {
		t.Errorf("frame types %s", got)
	}
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	req := FrameView{Proto: applayer.ProtoHTTP1, Type: http.FrameRequest, Data: []byte("GET /MALICIOUS HTTP/1.1\r\n\r\n")}
	res := FrameView{Proto: applayer.ProtoHTTP1, Type: http.FrameResponse, Data: []byte("HTTP/1.1 200 OK\r\n\r\nAAAA")}
	for _, c := range []struct {
		name   string
		proto  applayer.Proto
		frames []FrameView
		want   string
	}{
		{"request frame", applayer.ProtoHTTP1, []FrameView{req}, "[1]"},
		{"no frame", applayer.ProtoHTTP1, nil, "[]"},
		{"response frame only", applayer.ProtoHTTP1, []FrameView{res}, "[3]"},
		{"both", applayer.ProtoHTTP1, []FrameView{res, req}, "[1 3 4]"},
		{"other protocol", applayer.ProtoTLS, []FrameView{req}, "[]"},
		{"request bytes as response", applayer.ProtoHTTP1, []FrameView{{Proto: applayer.ProtoHTTP1, Type: http.FrameResponse, Data: req.Data}}, "[]"},
	} {
		p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 9090, "")
		tc.SetApp(&applayer.FlowApp{Proto: c.proto}, applayer.GetCtx{})
		tc.SetFrames(c.frames)
		e.Inspect(tc, p, nil, flow.ToServer)
		var sids []uint32
		for _, en := range tc.Queue.Entries() {
			sids = append(sids, e.Rule(en.IID).Src.SID)
		}
		if got := fmt.Sprint(sids); got != c.want {
			t.Errorf("%s: alerts %s, want %s", c.name, got, c.want)
		}
		if tc.frames != nil {
			t.Errorf("%s: frames kept past Inspect", c.name)
		}
	}
	// Pipelined requests: one alert per matching frame, naming the frame's transaction
	// (DetectRunFrame appends per frame with frame->tx_id; AlertQueueSortHelper puts the higher
	// tx id first).
	req2 := req
	req2.TxID = 1
	p0 := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 9090, "")
	tc.SetApp(&applayer.FlowApp{Proto: applayer.ProtoHTTP1}, applayer.GetCtx{})
	tc.SetFrames([]FrameView{req, res, req2})
	e.Inspect(tc, p0, nil, flow.ToServer)
	var got []string
	for _, en := range tc.Queue.Entries() {
		got = append(got, fmt.Sprintf("%d/%d", e.Rule(en.IID).Src.SID, en.TxID))
	}
	if fmt.Sprint(got) != "[1/1 1/0 3/0 4/18446744073709551615]" {
		t.Errorf("pipelined frames: alerts %v", got)
	}
	// A flow-end pseudo packet inspects the frames left open (DetectRunFrames runs for it).
	p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 9090, "")
	p.Source = decode.SourceStreamFlowTimeout
	tc.SetApp(&applayer.FlowApp{Proto: applayer.ProtoHTTP1}, applayer.GetCtx{EOF: true})
	tc.SetFrames([]FrameView{req})
	e.Inspect(tc, p, nil, flow.ToServer)
	if tc.Queue.Len() != 1 || e.Rule(tc.Queue.Entries()[0].IID).Src.SID != 1 {
		t.Errorf("pseudo packet: %d alerts, want sid 1", tc.Queue.Len())
	}
}
