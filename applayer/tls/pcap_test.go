package tls

import (
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The conformance tests' TCP payload extractor: the pcap's records read by package capture
// and decoded by package decode, then per TCP connection (in order of first packet) the
// payloads in packet order, each direction in sequence order (retransmitted or out-of-window
// bytes dropped). Enough for the suricata-verify TLS pcaps (the same extractor as applayer/http tests).

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

// conformanceDir is the suricata-verify copy.
const conformanceDir = "../../../shared/conformance"

// testPcap finds a conformance test's pcap (tests, then tests-next), skipping when absent.
func testPcap(t testing.TB, test string) string {
	t.Helper()
	for _, d := range []string{"tests", "tests-next"} {
		m, _ := filepath.Glob(filepath.Join(conformanceDir, d, test, "*.pcap"))
		if len(m) > 0 {
			return m[0]
		}
	}
	t.Skipf("conformance test %s not found under %s", test, conformanceDir)
	return ""
}

// runPcap feeds a pcap's TCP segments to one state per connection, honouring Consumed and
// Needed as the framework does, then EOF both ways.
func runPcap(t testing.TB, cfg *Settings, path string) []*State {
	t.Helper()
	pool := NewPool(cfg)
	var states []*State
	var pend [][2][]byte
	var dead []bool
	for _, sg := range pcapSegments(t, path) {
		for len(states) <= sg.conn {
			states = append(states, pool.NewState())
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
		if r.Err != nil {
			dead[sg.conn] = true
			continue
		}
		*p = append((*p)[:0], (*p)[r.Consumed:]...)
	}
	for i, s := range states {
		if dead[i] {
			continue
		}
		s.Parse(flow.ToServer, nil, applayer.EOF)
		s.Parse(flow.ToClient, nil, applayer.EOF)
	}
	return states
}

var _ = os.Open
