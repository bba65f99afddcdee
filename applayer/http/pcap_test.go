package http

import (
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The conformance tests' TCP payload extractor: the pcap's records read by package capture
// and decoded by package decode, then per TCP connection (in order of first packet) the
// payloads in packet order, each direction in sequence order (retransmitted or out-of-window
// bytes dropped). Enough for the suricata-verify HTTP pcaps.

type segment struct {
	conn int
	dir  applayer.Dir
	data []byte
}

type pconn struct {
	client  [18]byte
	next    [2]uint32
	started [2]bool
}

func endpoint(a netip.Addr, port uint16) (k [18]byte) {
	b := a.As16()
	copy(k[:], b[:])
	binary.BigEndian.PutUint16(k[16:], port)
	return k
}

func pcapSegments(t testing.TB, path string) []segment {
	t.Helper()
	src, err := capture.OpenPath(path)
	if err != nil {
		t.Skipf("pcap: %v", err)
	}
	defer src.Close()
	dec := decode.Decoder{Checksums: decode.ChecksumNone}
	var fr capture.Frame
	var p decode.Packet
	var out []segment
	var conns []*pconn
	for {
		if err := src.Next(&fr); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		dec.Decode(&p, fr.LinkType, fr.Data)
		if !p.IsTCP() || p.IsFragment {
			continue
		}
		flags := p.TCPFlags
		seq := p.TCPSeq
		key := endpoint(p.SrcIP, p.SrcPort)
		back := endpoint(p.DstIP, p.DstPort)
		ci := -1
		dir := flow.ToServer
		for i, c := range conns {
			if c.client == key {
				ci = i
				break
			}
			if c.client == back {
				ci, dir = i, flow.ToClient
				break
			}
		}
		if ci < 0 {
			// a new connection: the client is a SYN's sender, else the side with the
			// higher port
			c := &pconn{client: key}
			if flags&0x12 == 0x12 || (flags&0x02 == 0 && p.SrcPort < p.DstPort) {
				c.client = back
				dir = flow.ToClient
			}
			conns = append(conns, c)
			ci = len(conns) - 1
		}
		cn := conns[ci]
		next, started := &cn.next, &cn.started
		payload := p.Payload
		if flags&0x02 != 0 {
			next[dir], started[dir] = seq+1, true
			continue
		}
		if !started[dir] {
			next[dir], started[dir] = seq, true
		}
		if len(payload) == 0 {
			continue
		}
		d := int32(seq - next[dir])
		if d > 0 {
			continue // a hole: not handled, the tests' pcaps have none
		}
		if int(-d) >= len(payload) {
			continue
		}
		payload = payload[-d:]
		next[dir] += uint32(len(payload))
		out = append(out, segment{ci, dir, append([]byte(nil), payload...)})
	}
	return out
}

// runPcap feeds a pcap's segments to one state per connection, then EOF both ways.
func runPcap(t testing.TB, mk func() *State, path string) []*State {
	t.Helper()
	var states []*State
	var pend [][2][]byte
	var dead []bool
	for _, sg := range pcapSegments(t, path) {
		for len(states) <= sg.conn {
			states = append(states, mk())
			pend = append(pend, [2][]byte{})
			dead = append(dead, false)
		}
		if dead[sg.conn] {
			continue
		}
		s := states[sg.conn]
		p := &pend[sg.conn][sg.dir]
		*p = append(*p, sg.data...)
		r := s.Parse(sg.dir, *p, 0)
		if r.Err != nil || r.Change != nil {
			dead[sg.conn] = true
			continue
		}
		*p = append((*p)[:0], (*p)[r.Consumed:]...)
	}
	for i, s := range states {
		if !dead[i] {
			s.Parse(flow.ToServer, pend[i][0], applayer.EOF)
			s.Parse(flow.ToClient, pend[i][1], applayer.EOF)
		}
	}
	return states
}

func svPcap(name string) string {
	for _, d := range []string{"tests", "tests-next"} {
		p := "/work/shared/conformance/" + d + "/" + name + "/input.pcap"
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if m, _ := globPcap("/work/shared/conformance/" + d + "/" + name); m != "" {
			return m
		}
	}
	return ""
}

func globPcap(dir string) (string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range es {
		if n := e.Name(); len(n) > 5 && n[len(n)-5:] == ".pcap" {
			return dir + "/" + n, nil
		}
	}
	return "", nil
}

func TestDumpPcaps(t *testing.T) {
	if os.Getenv("HTTP_DUMP") == "" {
		t.Skip("set HTTP_DUMP=name to dump a pcap's txs")
	}
	for ci, s := range runPcap(t, func() *State { return testState(t, nil) }, svPcap(os.Getenv("HTTP_DUMP"))) {
		t.Logf("connection %d", ci)
		for i := 0; i < s.TxCount(); i++ {
			tx := s.Tx(i)
			t.Logf("tx %d prog %v line %q uri %q norm %q host %q port %d", i, tx.data.Progress, tx.RequestLine, tx.URIRaw, tx.URINorm, tx.Hostname, tx.Port)
			for j := 0; j < tx.RequestHeaders.Len(); j++ {
				n, v := tx.RequestHeaders.At(j)
				t.Logf("   > %q: %q", n, v)
			}
			for _, f := range tx.RequestFiles {
				t.Logf("   reqfile %q %d %v %q", f.Name, f.Size, f.State, f.Data.Data)
			}
			t.Logf("   resp %q status %d body %d/%d len %d files %+v", tx.ResponseLine, tx.Status, len(tx.ResponseBody.Data), tx.ResponseBody.Len, tx.ResponseLength, tx.ResponseFiles)
			for j := 0; j < tx.ResponseHeaders.Len(); j++ {
				n, v := tx.ResponseHeaders.At(j)
				t.Logf("   < %q: %q", n, v)
			}
			t.Logf("   events %v body %q", eventList(tx), tx.ResponseBody.Data[:min(80, len(tx.ResponseBody.Data))])
		}
	}
}

// svStateMaker returns the state factory of a suricata-verify test: its suricata.yaml's
// app-layer.protocols.http when it has one, else the shipped-like defaults of testState.
func svStateMaker(t *testing.T, name string) func() *State {
	p := svPcap(name)
	dir := p[:len(p)-len("/input.pcap")]
	if i := lastSlash(p); i >= 0 {
		dir = p[:i]
	}
	yaml := dir + "/suricata.yaml"
	if _, err := os.Stat(yaml); err != nil {
		return func() *State { return testState(t, nil) }
	}
	c, err := config.Load(yaml)
	if err != nil {
		t.Fatalf("%s: %v", yaml, err)
	}
	n, _ := c.Get("app-layer.protocols.http")
	st, err := configure(n)
	if err != nil {
		t.Fatalf("%s: %v", yaml, err)
	}
	pool := NewPool(st)
	return func() *State { return pool.NewState(applayer.FlowInfo{}) }
}

func lastSlash(p string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return i
		}
	}
	return -1
}
