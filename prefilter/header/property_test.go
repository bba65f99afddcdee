package header

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/rules"
)

// Values rule conditions and packets are drawn from, so that they meet at boundaries.
var (
	pool8    = []uint64{0, 1, 2, 7, 8, 14, 15, 16, 63, 64, 65, 127, 128, 200, 254, 255}
	pool16   = []uint64{0, 1, 2, 10, 11, 20, 100, 536, 630, 631, 1000, 1460, 1461, 4095, 4096, 65534, 65535}
	pool32   = []uint64{0, 1, 5, 1 << 31, 4000000000, 1<<32 - 1}
	poolVLAN = []uint64{0, 1, 100, 101, 4000, 4001, 4094, 4095}
)

func pick(r *rand.Rand, pool []uint64) uint64 { return pool[r.IntN(len(pool))] }

// randInt returns an integer condition in Suricata's syntax over pool (some are invalid; the
// parser rejects those and the caller draws again).
func randInt(r *rand.Rand, pool []uint64) string {
	a, b := pick(r, pool), pick(r, pool)
	if a > b {
		a, b = b, a
	}
	switch r.IntN(10) {
	case 0:
		return fmt.Sprint(a)
	case 1:
		return fmt.Sprintf("!%d", a)
	case 2:
		return fmt.Sprintf(">%d", a)
	case 3:
		return fmt.Sprintf("<%d", b)
	case 4:
		return fmt.Sprintf(">=%d", a)
	case 5:
		return fmt.Sprintf("<=%d", a)
	case 6:
		return fmt.Sprintf("%d-%d", a, b)
	case 7:
		return fmt.Sprintf("!%d-%d", a, b)
	case 8:
		return fmt.Sprintf("%d<>%d", a, b)
	}
	m := pick(r, pool)
	v := m & pick(r, pool)
	if r.IntN(2) == 0 {
		return fmt.Sprintf("&%d!=%d", m, v)
	}
	return fmt.Sprintf("&0x%x=%d", m, v)
}

func randFlags(r *rand.Rand) string {
	const letters = "FSRPAUCE"
	var b strings.Builder
	b.WriteString([]string{"", "", "+", "*", "!"}[r.IntN(5)])
	if r.IntN(12) == 0 {
		b.WriteByte('0')
	} else {
		for b.Len() == 0 || r.IntN(3) == 0 {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
		if r.IntN(3) == 0 {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
	}
	if r.IntN(4) == 0 {
		b.WriteString(",")
		for i := 0; i == 0 || r.IntN(2) == 0; i++ {
			b.WriteByte("FSRPAUCE12"[r.IntN(10)])
		}
	}
	return b.String()
}

// randOption returns one random match keyword.
func randOption(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0:
		return "flags:" + randFlags(r)
	case 1:
		return "ttl:" + randInt(r, pool8)
	case 2:
		return "itype:" + randInt(r, pool8)
	case 3:
		return "icode:" + randInt(r, pool8)
	case 4:
		return "ip_proto:" + []string{"", "!", "<", ">"}[r.IntN(4)] + fmt.Sprint([]int{1, 6, 17, 58, 200}[r.IntN(5)])
	case 5:
		if r.IntN(2) == 0 {
			return fmt.Sprintf("tos:%s%d", []string{"", "!"}[r.IntN(2)], pick(r, pool8))
		}
		return fmt.Sprintf("tos:x%x", pick(r, pool8))
	case 6:
		b := []string{"M", "D", "R", "MD", "DR", "MR", "MDR"}[r.IntN(7)]
		return "fragbits:" + []string{"", "+", "*", "!"}[r.IntN(4)] + b
	case 7:
		return "tcp.wscale:" + randInt(r, pool8)
	case 8, 9:
		return "dsize:" + randInt(r, pool16)
	case 10:
		return fmt.Sprintf("window:%s%d", []string{"", "!"}[r.IntN(2)], pick(r, pool16))
	case 11:
		return "tcp.mss:" + randInt(r, pool16)
	case 12:
		return fmt.Sprintf("id:%d", pick(r, pool16))
	case 13:
		return fmt.Sprintf("%s:%d", []string{"icmp_id", "icmp_seq"}[r.IntN(2)], pick(r, pool16))
	case 14:
		return fmt.Sprintf("fragoffset:%s%d", []string{"", "!", "<", ">"}[r.IntN(4)], pick(r, pool16)%8192)
	case 15:
		s := "vlan.id:" + randInt(r, poolVLAN)
		if r.IntN(2) == 0 {
			s += "," + []string{"0", "1", "2", "-1", "-2", "all"}[r.IntN(6)]
		}
		return s
	case 16:
		return fmt.Sprintf("%s:%d", []string{"seq", "ack"}[r.IntN(2)], pick(r, pool32))
	case 17:
		return "sameip"
	case 18:
		return "ipopts:" + []string{"rr", "lsrr", "any"}[r.IntN(3)]
	}
	return "ttl:" + randInt(r, pool8)
}

// randRule returns a parsed rule of one to three match keywords.
func randRule(r *rand.Rand) *rules.Rule {
	for {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(randOption(r))
			b.WriteString("; ")
		}
		ru, err := rules.Parse("alert ip any any -> any any (" + b.String() + "sid:1;)")
		if err == nil {
			return ru
		}
	}
}

// randPacket returns a packet whose header values come from the pools.
func randPacket(r *rand.Rand) *decode.Packet {
	p := &decode.Packet{IPVersion: []uint8{4, 4, 4, 6, 0}[r.IntN(5)]}
	switch p.IPVersion {
	case 4:
		p.SrcIP, p.DstIP = netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	case 6:
		p.SrcIP, p.DstIP = netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2")
	}
	p.IPProto = []uint8{decode.ProtoTCP, decode.ProtoTCP, decode.ProtoUDP, decode.ProtoICMP, decode.ProtoICMPv6, 200}[r.IntN(6)]
	p.HasL4 = r.IntN(8) != 0
	p.TTL, p.TOS = uint8(pick(r, pool8)), uint8(pick(r, pool8))
	p.IPID = uint32(pick(r, pool16))
	p.IPv4Flags = uint8(r.IntN(8))
	p.FragOffset = uint16(pick(r, pool16))
	p.IPv6FragHdr = r.IntN(2) == 0
	p.TCPFlags = uint8(pick(r, pool8))
	if r.IntN(2) == 0 {
		p.TCPFlags = uint8(r.IntN(256))
	}
	p.TCPWindow = uint16(pick(r, pool16))
	p.HasTCPMSS, p.TCPMSS = r.IntN(2) == 0, uint16(pick(r, pool16))
	p.HasWScale, p.TCPWScale = r.IntN(2) == 0, uint8(pick(r, pool8))
	p.TCPSeq, p.TCPAck = uint32(pick(r, pool32)), uint32(pick(r, pool32))
	p.ICMPType, p.ICMPCode = uint8(pick(r, pool8)), uint8(pick(r, pool8))
	p.HasICMPID, p.ICMPID, p.ICMPSeq = r.IntN(2) == 0, uint16(pick(r, pool16)), uint16(pick(r, pool16))
	p.VLANCount = uint8(r.IntN(4))
	for i := range p.VLAN {
		p.VLAN[i] = uint16(pick(r, poolVLAN))
	}
	n := int(pick(r, pool16))
	if r.IntN(20) == 0 {
		n = 65536 + r.IntN(3)
	}
	p.Payload = make([]byte, n)
	return p
}

// TestWitnessMatchesBruteForce builds the index from random rules and compares it, on random
// packets, with detect/match evaluating each rule in full: a rule that matches always has its
// witness hold (the witness is a necessary condition), and the witness alone is exactly its
// keyword's matcher (except vlan.id with a layer, whose witness searches every layer).
func TestWitnessMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	for round := range 20 {
		var rs []Rule
		var full, single []*match.Matcher
		var layered []bool
		for range 300 {
			ru := randRule(r)
			m, err := match.Compile(ru, nil)
			if err != nil {
				t.Fatalf("compile %s: %v", ru.Raw, err)
			}
			rs = append(rs, Rule{Matches: ru.Matches})
			full = append(full, m)
		}
		x, err := Build(rs, Options{MaxAdmit: []float64{0, 1}[round%2]})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rs {
			ch := x.Choice(i)
			var sm *match.Matcher
			lay := false
			if ch.Witnessed() {
				var err error
				sm, err = match.Compile(&rules.Rule{Matches: []*rules.Option{ch.Option}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				_, layer, _ := strings.Cut(ch.Option.Value, ",")
				lay = ch.Keyword == "vlan.id" && layer != ""
			}
			single = append(single, sm)
			layered = append(layered, lay)
		}
		dst := make([]uint64, x.Words())
		for range 400 {
			p := randPacket(r)
			in := &match.Input{P: p}
			got := x.Lookup(dst, p)
			for i := range rs {
				bit := got[i>>6]&(1<<(i&63)) != 0
				if !x.Witnessed(i) {
					if bit {
						t.Fatalf("rule %d without witness is in the lookup", i)
					}
					continue
				}
				if full[i].Match(in) && !bit {
					t.Fatalf("rule %s (witness %s) matches %s but its witness does not hold", rs[i].Matches, x.Choice(i).Option, show(p))
				}
				// A bitmask dsize condition admits every payload longer than 65535 bytes.
				loose := layered[i] || len(p.Payload) > 65535 && strings.HasPrefix(x.Choice(i).Option.Value, "&")
				if s := single[i].Match(in); s != bit && !(loose && bit) {
					t.Fatalf("witness %s: lookup %v, matcher %v on %s", x.Choice(i).Option, bit, s, show(p))
				}
			}
		}
	}
}

// show prints the header fields of p that the engines read.
func show(p *decode.Packet) string {
	return fmt.Sprintf("{v%d proto %d l4 %v ttl %d tos %d id %d fl %d off %d v6frag %v tcp %#x win %d mss %v/%d ws %v/%d seq %d ack %d icmp %d/%d id %v/%d/%d vlan %d%v dsize %d}",
		p.IPVersion, p.IPProto, p.HasL4, p.TTL, p.TOS, p.IPID, p.IPv4Flags, p.FragOffset, p.IPv6FragHdr,
		p.TCPFlags, p.TCPWindow, p.HasTCPMSS, p.TCPMSS, p.HasWScale, p.TCPWScale, p.TCPSeq, p.TCPAck,
		p.ICMPType, p.ICMPCode, p.HasICMPID, p.ICMPID, p.ICMPSeq, p.VLANCount, p.VLAN, len(p.Payload))
}
