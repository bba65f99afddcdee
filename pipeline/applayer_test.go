package pipeline

import (
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer"
	_ "github.com/meerkat-ids/meerkat/applayer/http" // registers HTTP/1
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/rules"
)

// appWorker is a single worker with the stream engine, the app layer (every registered
// parser with its defaults) and the rules texts.
func appWorker(t *testing.T, texts ...string) *worker {
	t.Helper()
	return appWorkerMode(t, false, texts...)
}

// appWorkerMode is appWorker in IPS mode when ips.
func appWorkerMode(t *testing.T, ips bool, texts ...string) *worker {
	t.Helper()
	var rs []*rules.Rule
	for _, s := range texts {
		r, err := rules.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	e, errs, err := detect.Build(rs, detect.Config{IPS: ips})
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	t.Cleanup(e.Close)
	ac, err := applayer.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(RunmodeSingle)
	sc := benchStreamConfig()
	sc.AppLayer = true
	cfg.Engine, cfg.Stream, cfg.AppLayer, cfg.IPS = e, sc, ac, ips
	w, err := newWorker(0, 1, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)
	return w
}

// alertsPerPacket sends frames through w and returns, per frame, the sids that alerted on
// it.
func alertsPerPacket(w *worker, frames [][]byte) [][]uint32 {
	ts := time.Unix(1700000000, 0)
	out := make([][]uint32, len(frames))
	for i, b := range frames {
		fr := capture.Frame{Data: b, Timestamp: ts.Add(time.Duration(i) * time.Millisecond), LinkType: decode.LinkTypeEthernet, Cnt: uint64(i + 1)}
		w.process(&fr)
		for _, en := range w.tc.Queue.Entries() {
			out[i] = append(out[i], uint32(w.cfg.Engine.Rule(en.IID).Src.SID))
		}
	}
	return out
}

// A completed HTTP request triggers raw inspection of the client stream
// (HTPCallbackRequestComplete -> AppLayerParserTriggerRawStreamInspection), so a stream
// rule on the request bytes alerts on the next client packet after the server ACKed the
// request (§2.2, §2.7; SV bug-78-uricontent's shape), not only when the chunk size is
// reached or the flow ends. A completed response does the same for the server stream.
func TestHTTPCompleteTriggersRawInspection(t *testing.T) {
	w := appWorker(t,
		`alert http any any -> any any (flow:to_server; content:"GET /index"; sid:1;)`,
		`alert http any any -> any any (flow:to_client; content:"200 OK"; sid:2;)`)
	c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	const cISN, sISN = 1000, 9000
	req := "GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
	ca, sa := uint32(cISN+1+len(req)), uint32(sISN+1+len(resp))
	got := alertsPerPacket(w, [][]byte{
		seqFrame(c, s, 40000, 80, cISN, 0, decode.TCPFlagSYN, ""),
		seqFrame(s, c, 80, 40000, sISN, cISN+1, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
		seqFrame(c, s, 40000, 80, cISN+1, sISN+1, decode.TCPFlagACK, ""),
		seqFrame(c, s, 40000, 80, cISN+1, sISN+1, decode.TCPFlagACK|decode.TCPFlagPSH, req), // 4
		seqFrame(s, c, 80, 40000, sISN+1, ca, decode.TCPFlagACK, ""),                        // 5: request parsed
		seqFrame(c, s, 40000, 80, ca, sISN+1, decode.TCPFlagACK, ""),                        // 6: sid 1
		seqFrame(s, c, 80, 40000, sISN+1, ca, decode.TCPFlagACK|decode.TCPFlagPSH, resp),    // 7
		seqFrame(c, s, 40000, 80, ca, sa, decode.TCPFlagACK, ""),                            // 8: response parsed
		seqFrame(s, c, 80, 40000, sa, ca, decode.TCPFlagACK, ""),                            // 9: sid 2
	})
	for i, want := range [][]uint32{5: {1}, 8: {2}} {
		if len(got[i]) != len(want) || len(want) > 0 && got[i][0] != want[0] {
			t.Errorf("packet %d alerted %v, want %v (all: %v)", i+1, got[i], want, got)
		}
	}
}

// In IDS mode a dropped flow still goes through the stream engine and the app layer (only
// IPS stops it: StreamTcpCheckFlowDrops tests EngineModeIsIPS); detection skips it either
// way (DetectFlow). SV drop-protocol-change: after the IDS drop the h2c upgrade still
// reaches HTTP/2 detection.
func TestDroppedFlowStreamIDSOnly(t *testing.T) {
	for _, ips := range []bool{false, true} {
		w := appWorkerMode(t, ips, `drop ip 10.0.0.1 any -> any any (sid:1;)`)
		c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
		const cISN, sISN = 1000, 9000
		req := "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
		ca := uint32(cISN + 1 + len(req))
		alertsPerPacket(w, [][]byte{
			seqFrame(c, s, 40000, 80, cISN, 0, decode.TCPFlagSYN, ""),
			seqFrame(s, c, 80, 40000, sISN, cISN+1, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
			seqFrame(c, s, 40000, 80, cISN+1, sISN+1, decode.TCPFlagACK, ""),
			seqFrame(c, s, 40000, 80, cISN+1, sISN+1, decode.TCPFlagACK|decode.TCPFlagPSH, req),
			seqFrame(s, c, 80, 40000, sISN+1, ca, decode.TCPFlagACK, ""),
		})
		want := uint64(1)
		if ips {
			want = 0
		}
		if got := w.app.l.Counters.Txs[applayer.ProtoHTTP1]; got != want {
			t.Errorf("ips %v: %d http txs, want %d", ips, got, want)
		}
	}
}
