package detect

import (
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// fuzzInspectRules exercise the keywords that read what the decoder left in a packet: decoder
// events (through the event index and the decoder-event-only group), the checksum keywords,
// and header, payload and flag keywords beside them.
var fuzzInspectRules = []string{
	`alert pkthdr any any -> any any (decode-event:ipv4.trunc_pkt; sid:1;)`,
	`alert pkthdr any any -> any any (decode-event:ethernet.pkt_too_small; sid:2;)`,
	`alert pkthdr any any -> any any (decode-event:ipv4.opt_pad_required; sid:3;)`,
	`alert pkthdr any any -> any any (decode-event:tcp.opt_invalid_len; sid:4;)`,
	`alert pkthdr any any -> any any (decode-event:ipv6.trunc_exthdr; sid:5;)`,
	`alert udp any any -> any 53 (decode-event:udp.len_invalid; sid:6;)`,
	`alert ip any any -> any any (ipv4-csum:invalid; sid:10;)`,
	`alert tcp any any -> any any (tcpv4-csum:valid; sid:11;)`,
	`alert tcp any any -> any any (tcpv6-csum:invalid; sid:12;)`,
	`alert udp any any -> any any (udpv4-csum:invalid; sid:13;)`,
	`alert udp any any -> any any (udpv6-csum:valid; sid:14;)`,
	`alert icmp any any -> any any (icmpv4-csum:invalid; sid:15;)`,
	`alert icmp any any -> any any (icmpv6-csum:valid; sid:16;)`,
	`alert tcp any any -> any any (content:"GET"; decode-event:tcp.opt_invalid_len; sid:20;)`,
	`alert tcp any any -> any any (flags:S; tcpv4-csum:invalid; sid:21;)`,
}

var fuzzLinkTypes = []decode.LinkType{decode.LinkTypeEthernet, decode.LinkTypeRaw, decode.LinkTypeIPv4, decode.LinkTypeIPv6}

// FuzzInspectDecoded decodes an arbitrary frame (the first byte picks the link type and
// whether its checksums are ignored) and inspects it: it must not panic, and every queued
// alert must name a rule of the engine.
func FuzzInspectDecoded(f *testing.F) {
	routerAlert := []byte{148, 4, 0, 0}
	for _, seed := range [][]byte{
		append([]byte{1}, rawIPv4UDP(nil, "hello", 0)...),
		append([]byte{1}, rawIPv4UDP(routerAlert, "hello", 0)...),
		append([]byte{5}, rawIPv4UDP(nil, "cut", 300)...),
		append([]byte{0}, make([]byte, 10)...),
		append([]byte{2}, rawIPv4UDP(append(routerAlert, 1, 1, 1, 0), "x", 0)...),
	} {
		f.Add(seed)
	}
	e, errs, err := Build(mustRules(f, fuzzInspectRules...), Config{})
	if err != nil || len(errs) > 0 {
		f.Fatalf("build: %v %v", err, errs)
	}
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { tc.Close(); e.Close() })
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		d := decode.Decoder{Checksums: decode.ChecksumTCP}
		var p decode.Packet
		d.Decode(&p, fuzzLinkTypes[int(in[0]&3)], in[1:])
		p.ChecksumIgnored = in[0]&4 != 0
		e.Inspect(tc, &p, nil, flow.ToServer)
		for _, en := range tc.Queue.Entries() {
			if int(en.IID) >= e.Len() {
				t.Fatalf("alert for iid %d of %d rules", en.IID, e.Len())
			}
		}
	})
}
