package detect

import (
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestTCPHdr: tcp.hdr is the TCP header with its options (detect-tcphdr.c GetData: from the
// header's start for its data-offset length), a packet buffer (SIG_FLAG_REQUIRE_PACKET) that
// a packet without a decoded TCP header does not have; content, offset/depth and bsize apply
// to it as to any buffer.
func TestTCPHdr(t *testing.T) {
	rs := mustRules(t,
		`alert tcp any any -> any any (tcp.hdr; content:"|50 18|"; offset:12; depth:2; sid:1;)`,                  // data offset 5, PSH|ACK
		`alert tcp any any -> any any (tcp.hdr; content:"|50 02|"; offset:12; depth:2; sid:2;)`,                  // a SYN: not this packet
		`alert tcp any any -> any any (tcp.hdr; bsize:20; sid:3;)`,                                               // no options
		`alert tcp any any -> any any (tcp.hdr; content:"|9c 40|"; startswith; pkt_data; content:"GET"; sid:4;)`, // port 40000, and the payload
		`alert ip any any -> any any (tcp.hdr; content:"|00 50|"; offset:2; depth:2; sid:5;)`,                    // destination port 80
	)
	e, errs, err := Build(rs, Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	hdr := []byte{0x9c, 0x40, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0}
	sids := func(p *decode.Packet) string {
		e.Inspect(tc, p, nil, flow.ToServer)
		var out []uint32
		for _, en := range tc.Queue.Entries() {
			out = append(out, e.Rule(en.IID).Src.SID)
		}
		return fmt.Sprint(out)
	}
	p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 80, "GET /")
	p.L4Header = hdr
	if got := sids(p); got != "[1 3 4 5]" {
		t.Errorf("TCP packet: alerts %s, want [1 3 4 5]", got)
	}
	p.L4Header = nil // no decoded TCP header: no tcp.hdr buffer
	if got := sids(p); got != "[]" {
		t.Errorf("without a TCP header: alerts %s, want none", got)
	}
	u := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 80, "GET /")
	u.IPProto, u.L4Header = decode.ProtoUDP, hdr[:8]
	if got := sids(u); got != "[]" {
		t.Errorf("UDP packet: alerts %s, want none", got)
	}
}
