package detect

import (
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
)

// headerCases are rule headers with what they give on tcpPacket("10.1.2.3", "192.168.0.9", 40000, 80, "").
var headerCases = []struct {
	name, rule string
	match      bool
}{
	{"any to any", `alert ip any any -> any any (sid:1;)`, true},
	{"tcp any to any", `alert tcp any any -> any any (sid:1;)`, true},
	{"source net", `alert tcp 10.0.0.0/8 any -> any 80 (sid:1;)`, true},
	{"other source net", `alert tcp 11.0.0.0/8 any -> any 80 (sid:1;)`, false},
	{"negated any source", `alert tcp !10.0.0.0/8 any -> any any (sid:1;)`, false},
	{"ipv6 only any", `alert tcp [::/0] any -> any any (sid:1;)`, false},
	{"destination list", `alert tcp any any -> [1.2.3.4,192.168.0.0/16] any (sid:1;)`, true},
	{"v4 and v6 everything", `alert tcp [0.0.0.0/0,::/0] any -> any any (sid:1;)`, true},
}

// TestHeaderMatchAddresses: the shortcut for an address field holding every address (srcAll,
// dstAll) and the numeric IPv4 search give what searching the field's netip ranges gives.
func TestHeaderMatchAddresses(t *testing.T) {
	p := tcpPacket("10.1.2.3", "192.168.0.9", 40000, 80, "")
	for _, c := range headerCases {
		e, errs, err := Build(mustRules(t, c.rule), Config{})
		if err != nil || len(errs) > 0 {
			t.Fatalf("%s: build: %v %v", c.name, err, errs)
		}
		r := e.Rules()[0]
		if got := r.headerMatch(p); got != c.match {
			t.Errorf("%s: headerMatch %v, want %v", c.name, got, c.match)
		}
		// Against rules.Address.Contains, on IPv4 and IPv6 packets inside and outside the
		// fields' ranges.
		p6 := tcpPacket("2001:db8::1", "2001:db8::2", 40000, 80, "")
		p6.IPVersion = 6
		for _, q := range []*decode.Packet{p, p6, tcpPacket("11.0.0.1", "1.2.3.4", 40000, 80, ""),
			tcpPacket("9.255.255.255", "192.167.255.255", 40000, 80, ""), tcpPacket("10.0.0.0", "1.2.3.5", 40000, 80, "")} {
			searched := r.dst.Contains(q.DstIP) && r.src.Contains(q.SrcIP)
			if r.headerMatch(q) != searched {
				t.Errorf("%s: %v -> %v: headerMatch %v, the address search %v", c.name, q.SrcIP, q.DstIP, r.headerMatch(q), searched)
			}
		}
		wantAll := r.src.Contains(p.SrcIP) && len(r.src.V4) == 1 && len(r.src.V6) == 1 &&
			r.src.Contains(tcpPacket("255.255.255.255", "::1", 1, 1, "").SrcIP) &&
			r.src.Contains(tcpPacket("::", "::1", 1, 1, "").SrcIP) &&
			r.src.Contains(tcpPacket("0.0.0.0", "::1", 1, 1, "").SrcIP) &&
			r.src.Contains(tcpPacket("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::1", 1, 1, "").SrcIP)
		if r.srcAll != wantAll {
			t.Errorf("%s: srcAll %v, want %v", c.name, r.srcAll, wantAll)
		}
		e.Close()
	}
	// A packet without IP never matches an address field, "any" included.
	e, _, err := Build(mustRules(t, `alert ip any any -> any any (sid:1;)`), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if r := e.Rules()[0]; !r.srcAll || !r.dstAll || r.headerMatch(&decode.Packet{}) {
		t.Errorf("any: srcAll %v dstAll %v, matches a packet without IP: %v", r.srcAll, r.dstAll, r.headerMatch(&decode.Packet{}))
	}
}

// BenchmarkHeaderMatch times the header check of a rule with any/any addresses and of one
// with a source network.
func BenchmarkHeaderMatch(b *testing.B) {
	p := tcpPacket("10.1.2.3", "192.168.0.9", 40000, 80, "")
	for _, c := range headerCases[:3] {
		b.Run(c.name, func(b *testing.B) {
			e, _, err := Build(mustRules(b, c.rule), Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			r := e.Rules()[0]
			n := 0
			for b.Loop() {
				if r.headerMatch(p) {
					n++
				}
			}
			if n == 0 {
				b.Fatal("no match")
			}
		})
	}
}
