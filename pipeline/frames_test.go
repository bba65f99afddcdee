package pipeline

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
)

// TestFrameRulesAlertOnce: pipelined requests in one segment make one request frame each;
// a frame rule alerts once, on the first client packet after the server ACKed the requests
// (the to-server direction's app update, DetectRunFrames), and the frame bytes are those of
// its request only (SV eve-payload-07-http-gap's pipelined requests). A response frame rule
// alerts on the server packet after the client ACKed the response.
func TestFrameRulesAlertOnce(t *testing.T) {
	w := appWorker(t,
		`alert tcp any any -> any 80 (frame:http1.request; content:"GET /2"; startswith; sid:1;)`,
		`alert tcp any any -> any 80 (frame:http1.request; content:"GET /1"; content:"GET /2"; distance:0; sid:2;)`,
		`alert http any any -> any any (frame:http1.response; content:"hi"; endswith; sid:3;)`)
	c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	const cISN, sISN = 1000, 9000
	req := "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
	ca, sa := uint32(cISN+1+len(req)), uint32(sISN+1+len(resp))
	got := alertsPerPacket(w, [][]byte{
		seqFrame(c, s, 40000, 80, cISN, 0, decode.TCPFlagSYN, ""),
		seqFrame(s, c, 80, 40000, sISN, cISN+1, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
		seqFrame(c, s, 40000, 80, cISN+1, sISN+1, decode.TCPFlagACK, ""),
		seqFrame(c, s, 40000, 80, cISN+1, sISN+1, decode.TCPFlagACK|decode.TCPFlagPSH, req), // 4
		seqFrame(s, c, 80, 40000, sISN+1, ca, decode.TCPFlagACK, ""),                        // 5: requests parsed
		seqFrame(c, s, 40000, 80, ca, sISN+1, decode.TCPFlagACK, ""),                        // 6: sid 1
		seqFrame(c, s, 40000, 80, ca, sISN+1, decode.TCPFlagACK, ""),                        // 7: nothing again
		seqFrame(s, c, 80, 40000, sISN+1, ca, decode.TCPFlagACK|decode.TCPFlagPSH, resp),    // 8
		seqFrame(c, s, 40000, 80, ca, sa, decode.TCPFlagACK, ""),                            // 9: response parsed
		seqFrame(s, c, 80, 40000, sa, ca, decode.TCPFlagACK, ""),                            // 10: sid 3
	})
	want := make([][]uint32, len(got))
	want[5], want[9] = []uint32{1}, []uint32{3}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("alerts per packet %v, want %v", got, want)
	}
}

// TestFramesAllocateNothing: a warm keep-alive HTTP connection with frame rules tracks,
// inspects and drops its frames without allocating per packet.
func TestFramesAllocateNothing(t *testing.T) {
	w := appWorker(t,
		`alert tcp any any -> any 80 (frame:http1.request; content:"never-here"; sid:1;)`,
		`alert http any any -> any any (frame:http1.response; content:"never-here"; sid:2;)`)
	c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	ts := time.Unix(1700000000, 0)
	var n uint64
	send := func(b []byte) {
		n++
		fr := capture.Frame{Data: b, Timestamp: ts.Add(time.Duration(n) * time.Millisecond), LinkType: decode.LinkTypeEthernet, Cnt: n}
		w.process(&fr)
	}
	const cISN, sISN = 1000, 9000
	send(seqFrame(c, s, 40000, 80, cISN, 0, decode.TCPFlagSYN, ""))
	send(seqFrame(s, c, 80, 40000, sISN, cISN+1, decode.TCPFlagSYN|decode.TCPFlagACK, ""))
	send(seqFrame(c, s, 40000, 80, cISN+1, sISN+1, decode.TCPFlagACK, ""))
	req := "GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n"
	resp := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
	rq := seqFrame(c, s, 40000, 80, 0, 0, decode.TCPFlagACK|decode.TCPFlagPSH, req)
	rs := seqFrame(s, c, 80, 40000, 0, 0, decode.TCPFlagACK|decode.TCPFlagPSH, resp)
	cseq, sseq := uint32(cISN+1), uint32(sISN+1)
	set := func(b []byte, seq, ack uint32) []byte {
		binary.BigEndian.PutUint32(b[14+20+4:], seq)
		binary.BigEndian.PutUint32(b[14+20+8:], ack)
		return b
	}
	round := func() {
		send(set(rq, cseq, sseq))
		cseq += uint32(len(req))
		send(set(rs, sseq, cseq))
		sseq += uint32(len(resp))
	}
	for range 300 {
		round()
	}
	before := w.fr.inspected
	if allocs := testing.AllocsPerRun(2000, round); allocs != 0 {
		t.Errorf("%.3f allocations per request/response round with frame rules", allocs)
	}
	// Each round's request and response frames were inspected (AllocsPerRun runs it once
	// more to warm up).
	if got := w.fr.inspected - before; got != 2*2001 {
		t.Errorf("%d frames inspected in 2001 rounds, want %d", got, 2*2001)
	}
}
