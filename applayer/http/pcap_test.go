package http

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/flow"
)

// A minimal classic-pcap TCP payload extractor for the conformance tests: the first TCP
// connection's payloads in packet order, each direction in sequence order (retransmitted
// or out-of-window bytes dropped). Enough for the suricata-verify HTTP pcaps.

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

func pcapSegments(t testing.TB, path string) []segment {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("pcap: %v", err)
	}
	if len(raw) < 24 {
		t.Fatal("short pcap")
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch binary.LittleEndian.Uint32(raw) {
	case 0xa1b2c3d4, 0xa1b23c4d:
	case 0xd4c3b2a1, 0x4d3cb2a1:
		bo = binary.BigEndian
	default:
		t.Skip("not a classic pcap")
	}
	link := bo.Uint32(raw[20:])
	var out []segment
	var conns []*pconn
	for p := raw[24:]; len(p) >= 16; {
		incl := int(bo.Uint32(p[8:]))
		if 16+incl > len(p) {
			break
		}
		pkt := p[16 : 16+incl]
		p = p[16+incl:]
		var l3 []byte
		switch link {
		case 1:
			if len(pkt) < 14 {
				continue
			}
			et := binary.BigEndian.Uint16(pkt[12:])
			off := 14
			for et == 0x8100 && len(pkt) >= off+4 {
				et = binary.BigEndian.Uint16(pkt[off+2:])
				off += 4
			}
			l3 = pkt[off:]
		case 101, 228, 229:
			l3 = pkt
		case 0:
			if len(pkt) < 4 {
				continue
			}
			l3 = pkt[4:]
		case 113:
			if len(pkt) < 16 {
				continue
			}
			l3 = pkt[16:]
		default:
			t.Skipf("link type %d", link)
		}
		if len(l3) < 20 {
			continue
		}
		var src, dst []byte
		var l4 []byte
		switch l3[0] >> 4 {
		case 4:
			ihl := int(l3[0]&15) * 4
			tot := int(binary.BigEndian.Uint16(l3[2:]))
			if l3[9] != 6 || tot > len(l3) || ihl > tot {
				continue
			}
			src, dst, l4 = l3[12:16], l3[16:20], l3[ihl:tot]
		case 6:
			if len(l3) < 40 || l3[6] != 6 {
				continue
			}
			pl := int(binary.BigEndian.Uint16(l3[4:]))
			if 40+pl > len(l3) {
				continue
			}
			src, dst, l4 = l3[8:24], l3[24:40], l3[40:40+pl]
		default:
			continue
		}
		if len(l4) < 20 {
			continue
		}
		doff := int(l4[12]>>4) * 4
		if doff > len(l4) {
			continue
		}
		flags := l4[13]
		seq := binary.BigEndian.Uint32(l4[4:])
		var key [18]byte
		copy(key[:], src)
		copy(key[16:], l4[0:2])
		var back [18]byte
		copy(back[:], dst)
		copy(back[16:], l4[2:4])
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
			sp, dp := binary.BigEndian.Uint16(l4[0:]), binary.BigEndian.Uint16(l4[2:])
			c := &pconn{client: key}
			if flags&0x12 == 0x12 || (flags&0x02 == 0 && sp < dp) {
				c.client = back
				dir = flow.ToClient
			}
			conns = append(conns, c)
			ci = len(conns) - 1
		}
		cn := conns[ci]
		next, started := &cn.next, &cn.started
		payload := l4[doff:]
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
