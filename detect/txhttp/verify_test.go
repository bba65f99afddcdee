package txhttp_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
)

// replay runs a suricata-verify pcap through the HTTP/1 parser and tx detection without the
// stream engine: each flow's TCP payloads are handed to the parser in sequence order per
// direction (retransmissions dropped), the server being the lower port, and every data
// packet is inspected. It returns the alerts per sid. It stands in for the pipeline for
// captures whose alerts do not depend on the stream engine's timing.
func replay(t *testing.T, dir string, texts ...string) map[uint32]int {
	t.Helper()
	src, err := capture.OpenPath(filepath.Join("..", "..", "..", "shared", "conformance", "tests", dir, "input.pcap"))
	if err != nil {
		t.Skipf("no capture: %v", err)
	}
	defer src.Close()
	type side struct {
		next  uint32
		init  bool
		carry []byte
	}
	type flowState struct {
		c     *conn
		sides [2]side
	}
	base := newConn(t, detect.Config{}, texts...)
	flows := map[[4]uint64]*flowState{}
	counts := map[uint32]int{}
	var dec decode.Decoder
	var fr capture.Frame
	for {
		if err := src.Next(&fr); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		p := &decode.Packet{}
		dec.Decode(p, fr.LinkType, fr.Data)
		if !p.IsTCP() {
			continue
		}
		dir := flow.ToServer
		if p.SrcPort < p.DstPort {
			dir = flow.ToClient
		}
		a, b := p.SrcIP.As16(), p.DstIP.As16()
		sp, dp := p.SrcPort, p.DstPort
		if dir == flow.ToClient {
			a, b, sp, dp = b, a, dp, sp
		}
		key := [4]uint64{be(a[:8]) ^ be(a[8:]), be(b[:8]) ^ be(b[8:]), uint64(sp), uint64(dp)}
		fs := flows[key]
		if fs == nil {
			c := &conn{t: t, e: base.e, tc: base.tc, f: flow.NewDetached()}
			c.f.SetPacketEstablished(true)
			c.f.Proto = decode.ProtoTCP
			c.fa = applayer.FlowApp{Proto: applayer.ProtoHTTP1, ProtoDir: [2]applayer.Proto{applayer.ProtoHTTP1, applayer.ProtoHTTP1},
				Parser: http.Parser, State: http.NewPool(nil).NewState(applayer.FlowInfo{})}
			fs = &flowState{c: c}
			flows[key] = fs
		}
		sd := &fs.sides[dir]
		data := p.Payload
		if len(data) == 0 {
			continue
		}
		if sd.init && int32(p.TCPSeq-sd.next) < 0 {
			continue // retransmission
		}
		sd.init, sd.next = true, p.TCPSeq+uint32(len(data))
		sd.carry = append(sd.carry, data...)
		c := fs.c
		res := c.fa.State.Parse(dir, sd.carry, 0)
		if res.Err != nil {
			t.Fatalf("parse: %v", res.Err)
		}
		sd.carry = append(sd.carry[:0], sd.carry[res.Consumed:]...)
		c.fa.Updated[dir] = true
		c.tc.SetApp(&c.fa, applayer.GetCtx{})
		c.e.Inspect(c.tc, p, c.f, dir)
		st := c.fa.State
		for i := 0; i < st.TxCount(); i++ {
			st.TxAt(i).TxData().Updated[dir] = false
		}
		c.fa.Updated = [2]bool{}
		for _, en := range c.tc.Queue.Entries() {
			counts[c.e.Rule(en.IID).Src.SID]++
		}
	}
	return counts
}

func be(b []byte) uint64 {
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return v
}

// TestVerifyURIContent: suricata-verify detect-uricontent-02 and -03 (whose rules 1 and 2 mix
// http_uri with payload content: tx rules with a stream engine, §2.5).
func TestVerifyURIContent(t *testing.T) {
	for _, c := range []struct {
		dir   string
		rules []string
		want  map[uint32]int // test.yaml's alert counts per sid
	}{
		{"detect-uricontent-02", []string{
			`alert tcp any any -> any any (msg:"Test uricontent"; content:"foo"; http_uri; sid:1;)`,
			`alert tcp any any -> any any (msg:"Test uricontent"; content:"one"; http_uri; sid:2;)`,
			`alert tcp any any -> any any (msg:"Test uricontent"; content:"self"; http_uri; sid:3;)`,
		}, map[uint32]int{1: 0, 2: 2, 3: 1}},
		{"detect-uricontent-03", []string{
			`alert tcp any any -> any any (msg:"Test uricontent"; content:"foo"; http_uri; content:"bar"; sid:1;)`,
			`alert tcp any any -> any any (msg:"Test uricontent"; content:"one"; http_uri; offset:1; depth:10; content:"one"; offset:1; depth:10; content:"two"; http_uri; distance:3; within: 4; content:"two"; distance:1; within: 4; content:"three"; http_uri; distance:1; within: 6; content:"/three"; distance:0; within: 7; sid:2;)`,
			`alert tcp any any -> any any (msg:"Test uricontent"; content:"one"; http_uri; offset:1; depth:10; content:"two"; http_uri; distance:1; within: 4; content:"three"; http_uri; distance:1; within: 6; sid:3;)`,
			`alert tcp any any -> any any (msg:"test"; content:"one"; http_uri; sid:4;)`,
		}, map[uint32]int{1: 0, 2: 0, 3: 1, 4: 1}},
	} {
		got := replay(t, c.dir, c.rules...)
		for sid, n := range c.want {
			if got[sid] != n {
				t.Errorf("%s: sid %d alerted %d times, want %d (all: %v)", c.dir, sid, got[sid], n, got)
			}
		}
	}
}
