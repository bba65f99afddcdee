package pipeline

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/rules"
	"github.com/meerkat-ids/meerkat/stream"
)

// seqFrame is frame with sequence and acknowledgement numbers (checksums left zero).
func seqFrame(src, dst [4]byte, sport, dport uint16, seq, ack uint32, flags uint8, payload string) []byte {
	b := frame(src, dst, sport, dport, flags, payload)
	tcp := b[14+20:]
	binary.BigEndian.PutUint32(tcp[4:], seq)
	binary.BigEndian.PutUint32(tcp[8:], ack)
	binary.BigEndian.PutUint16(tcp[14:], 65535)
	return b
}

// TestStreamWorkerAllocatesNothing: a warm TCP session through a worker with the stream
// engine and detection (raw stream inspection every 2,560 bytes, segments stored and
// released) allocates nothing per packet.
func TestStreamWorkerAllocatesNothing(t *testing.T) {
	r, err := rules.Parse(`alert tcp any any -> any any (content:"never-in-this-stream"; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := detect.Build([]*rules.Rule{r}, detect.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := testConfig(RunmodeSingle)
	cfg.Engine = e
	cfg.Stream = benchStreamConfig()
	w, err := newWorker(0, 1, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
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
	payload := string(make([]byte, 700))
	// Two frames per round, rebuilt in place so the loop itself allocates nothing.
	data := seqFrame(c, s, 40000, 80, 0, sISN+1, decode.TCPFlagACK|decode.TCPFlagPSH, payload)
	ack := seqFrame(s, c, 80, 40000, sISN+1, 0, decode.TCPFlagACK, "")
	next := cISN + 1
	round := func() {
		binary.BigEndian.PutUint32(data[14+20+4:], uint32(next))
		next += len(payload)
		binary.BigEndian.PutUint32(ack[14+20+8:], uint32(next))
		send(data)
		send(ack)
	}
	for range 200 { // warm: pages, records and raw buffers in place
		round()
	}
	if allocs := testing.AllocsPerRun(2000, round); allocs != 0 {
		t.Errorf("%.3f allocations per round of two packets with the stream engine and detection", allocs)
	}
	if got := w.stream.t.Counters.Sessions; got != 1 {
		t.Errorf("%d sessions, want 1", got)
	}
	if w.stream.t.Pool().InUse() > 64<<10 {
		t.Errorf("%d bytes held for one in-order session: raw inspection is not releasing", w.stream.t.Pool().InUse())
	}
}

// TestMidstreamPolicyDrops: in IPS mode without midstream pickup, stream.midstream-policy's
// drop-flow (what auto gives there) drops the first packet of a flow seen without its
// handshake (reason "stream midstream") and the rest of the flow with it ("flow drop"), as
// Suricata's ExceptionPolicyApply does; a flow with a handshake is untouched.
func TestMidstreamPolicyDrops(t *testing.T) {
	r, err := rules.Parse(`alert tcp any any -> any any (content:"nothing-here"; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := detect.Build([]*rules.Rule{r}, detect.Config{IPS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := testConfig(RunmodeSingle)
	cfg.Engine, cfg.IPS = e, true
	cfg.Stream = benchStreamConfig()
	cfg.Stream.MidstreamPolicy = stream.ExceptionDropFlow
	c, s, c2 := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}, [4]byte{10, 0, 0, 3}
	ts := time.Unix(1700000000, 0)
	var frames []capture.Frame
	add := func(b []byte) {
		frames = append(frames, capture.Frame{Data: b, Timestamp: ts.Add(time.Duration(len(frames)) * time.Millisecond),
			LinkType: decode.LinkTypeEthernet, Cnt: uint64(len(frames) + 1)})
	}
	// Midstream: data and its ACK, no handshake.
	add(seqFrame(c, s, 40000, 80, 100, 500, decode.TCPFlagACK|decode.TCPFlagPSH, "hello"))
	add(seqFrame(s, c, 80, 40000, 500, 105, decode.TCPFlagACK, ""))
	// With a handshake.
	add(seqFrame(c2, s, 40001, 80, 1000, 0, decode.TCPFlagSYN, ""))
	add(seqFrame(s, c2, 80, 40001, 9000, 1001, decode.TCPFlagSYN|decode.TCPFlagACK, ""))
	add(seqFrame(c2, s, 40001, 80, 1001, 9001, decode.TCPFlagACK, ""))
	res, err := Run(context.Background(), &memSource{frames: frames}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The midstream packet drops as "stream midstream", the flow's next one as "exception
	// policy flow drop" (FlowHandlePacketUpdate with FLOW_AUX_ACTION_BY_EXCEPTION_POLICY; SV
	// firewall-04-tls-sni-enforce expects that reason on the packet after the drop).
	for name, want := range map[string]uint64{"ips.drop_reason.stream_midstream": 1, "ips.drop_reason.exception_policy_flow_drop": 1,
		"ips.drop_reason.flow_drop": 0, "ips.blocked": 2, "ips.accepted": 3} {
		if got := res.Stats.Value(name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}

// TestRawStreamPerGroup: a flow direction whose first rule group has no rule inspecting the
// raw stream stops raw reassembly (DetectRunPostGetFirstRuleGroup), so once the app layer (here
// the tracker standing in for it) took the ACKed data, nothing keeps it; a direction whose
// group has a raw stream rule keeps it until raw inspection consumed it.
func TestRawStreamPerGroup(t *testing.T) {
	r, err := rules.Parse(`alert tcp any any -> any 80 (content:"only-port-80"; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := detect.Build([]*rules.Rule{r}, detect.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	inUse := map[uint16]uint64{}
	for _, tc := range []struct {
		port uint16
	}{{80}, {8080}} {
		cfg := testConfig(RunmodeSingle)
		cfg.Engine = e
		cfg.Stream = benchStreamConfig()
		w, err := newWorker(0, 1, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
		ts := time.Unix(1700000000, 0)
		for i, b := range [][]byte{
			seqFrame(c, s, 40000, tc.port, 1000, 0, decode.TCPFlagSYN, ""),
			seqFrame(s, c, tc.port, 40000, 9000, 1001, decode.TCPFlagSYN|decode.TCPFlagACK, ""),
			seqFrame(c, s, 40000, tc.port, 1001, 9001, decode.TCPFlagACK, ""),
			seqFrame(c, s, 40000, tc.port, 1001, 9001, decode.TCPFlagACK|decode.TCPFlagPSH, "some request bytes"),
			seqFrame(s, c, tc.port, 40000, 9001, 1019, decode.TCPFlagACK, ""),
			seqFrame(c, s, 40000, tc.port, 1019, 9001, decode.TCPFlagACK, ""),
		} {
			fr := capture.Frame{Data: b, Timestamp: ts.Add(time.Duration(i) * time.Millisecond), LinkType: decode.LinkTypeEthernet, Cnt: uint64(i + 1)}
			w.process(&fr)
		}
		inUse[tc.port] = w.stream.t.Pool().InUse()
		w.close()
	}
	// The same 18 bytes in both: port 80 still holds their segment record for raw
	// inspection, port 8080 released it (only the partly used page stays, as the store keeps
	// pages until they are wholly consumed).
	if inUse[8080] >= inUse[80] || inUse[8080] > stream.PageSize+64 {
		t.Errorf("bytes held: port 80 %d, port 8080 %d; want less on 8080, at most one page", inUse[80], inUse[8080])
	}
}
