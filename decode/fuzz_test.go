package decode

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// fuzzLinkTypes maps the first byte of a FuzzDecode input (modulo the length) to a link type.
var fuzzLinkTypes = []LinkType{
	LinkTypeEthernet, LinkTypeSLL, LinkTypeSLL2, LinkTypeNull, LinkTypeLoop,
	LinkTypeRaw, LinkTypeIPv4, LinkTypeIPv6, LinkTypeRawAlt, LinkTypeRawAlt2,
}

func fuzzSelector(lt LinkType) byte {
	for i, l := range fuzzLinkTypes {
		if l == lt {
			return byte(i)
		}
	}
	panic("link type not fuzzed")
}

// FuzzDecode decodes arbitrary frames of every link type: the first input byte selects the
// link type (see fuzzLinkTypes), the rest is the frame. Decoding must not panic, must be
// deterministic and must keep the Packet's invariants.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		lt := fuzzLinkTypes[int(in[0])%len(fuzzLinkTypes)]
		frame := in[1:]
		d := Decoder{Checksums: ChecksumAll}
		var p, q Packet
		d.Decode(&p, lt, frame)
		d.Decode(&q, lt, frame)
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("decoding is not deterministic")
		}
		checkInvariants(t, &p, frame)
		checkChecksumMethods(t, &p)
		d.Checksums = ChecksumNone
		d.Decode(&q, lt, frame)
		if q.IPv4ChecksumBad || q.L4ChecksumBad {
			t.Fatalf("ChecksumNone reported a bad checksum")
		}
	})
}

// checkChecksumMethods checks that the on-demand checksum methods (used by the checksum
// keywords) agree with what the decoder validated under ChecksumAll.
func checkChecksumMethods(t *testing.T, p *Packet) {
	t.Helper()
	if p.IPVersion == 4 && p.IPv4ChecksumBad == p.IPv4ChecksumOK() {
		t.Fatalf("IPv4ChecksumOK %v but IPv4ChecksumBad %v", p.IPv4ChecksumOK(), p.IPv4ChecksumBad)
	}
	if !p.HasL4 || p.IsFragment {
		return
	}
	switch {
	case p.IPProto == ProtoTCP, p.IPProto == ProtoUDP && (p.IPVersion == 6 || be16(p.L4Header[6:8]) != 0),
		p.IPProto == ProtoICMP && p.IPVersion == 4, p.IPProto == ProtoICMPv6 && p.IPVersion == 6:
		if p.L4ChecksumBad == p.L4ChecksumOK() {
			t.Fatalf("L4ChecksumOK %v but L4ChecksumBad %v (proto %d)", p.L4ChecksumOK(), p.L4ChecksumBad, p.IPProto)
		}
	}
}

func checkInvariants(t *testing.T, p *Packet, frame []byte) {
	t.Helper()
	if p.HasL4 && p.IPVersion != 4 && p.IPVersion != 6 {
		t.Fatalf("transport without IP")
	}
	if (p.IsFragment || p.IPv6FragHdr) && p.IPVersion == 0 {
		t.Fatalf("fragment without IP")
	}
	if p.FragOffset != 0 && p.HasL4 {
		t.Fatalf("transport decoded in a fragment at offset %d", p.FragOffset)
	}
	if p.IPVersion != 0 {
		if !p.SrcIP.IsValid() || len(p.IPHeader) == 0 || len(p.IPHeader)+len(p.IPPayload) > len(frame) || p.IPLen > len(frame) {
			t.Fatalf("IP layer out of bounds: hdr %d payload %d iplen %d frame %d", len(p.IPHeader), len(p.IPPayload), p.IPLen, len(frame))
		}
		if p.IPVersion == 4 && len(p.IPHeader)+len(p.IPPayload) != p.IPLen {
			t.Fatalf("IPv4 header %d + payload %d != length %d", len(p.IPHeader), len(p.IPPayload), p.IPLen)
		}
	}
	if p.HasL4 {
		if len(p.L4Header) == 0 || len(p.L4Header)+len(p.Payload) > len(p.IPPayload)+len(p.IPHeader) {
			t.Fatalf("transport layer out of bounds")
		}
	} else if p.L4Header != nil || p.Payload != nil {
		t.Fatalf("transport slices set without HasL4")
	}
	if p.VLANCount > MaxVLANs {
		t.Fatalf("VLANCount %d", p.VLANCount)
	}
	p.Events.Each(func(e Event) {
		if e == EventNone || e >= EventCount || e.IsDefragEvent() {
			t.Fatalf("decoder raised event %d", e)
		}
	})
}

type fuzzSeed struct {
	name string // file name under testdata/fuzz/FuzzDecode; says what the seed exercises
	data []byte // selector byte + frame
}

// fuzzSeeds are the checked-in FuzzDecode corpus: valid frames of each link type and
// malformed ones, named after what they exercise.
func fuzzSeeds() []fuzzSeed {
	seg := tcp(v4a, v4b, 1234, 80, TCPFlagSYN, []byte{2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2}, []byte("GET / HTTP/1.1\r\n\r\n"))
	tcp4 := ip4(ip4Opts{proto: ProtoTCP}, seg)
	udp4 := ip4(ip4Opts{proto: ProtoUDP}, udp(v4a, v4b, 5353, 53, []byte("\x12\x34\x01\x00\x00\x01")))
	icmp4m := ip4(ip4Opts{proto: ProtoICMP}, icmp4(3, 3, 0, ip4(ip4Opts{proto: ProtoUDP}, make([]byte, 8))))
	tcp6 := ip6([]uint8{ProtoTCP}, nil, tcp(v6a, v6b, 1, 443, TCPFlagACK, nil, []byte("x")))
	ext6chain := ip6([]uint8{nhHopOpts, nhDstOpts, nhRouting, nhAH, nhDstOpts, ProtoUDP}, [][]byte{ext6(8), ext6(16), ext6(24), func() []byte {
		a := make([]byte, 24)
		a[1] = 4
		return a
	}(), ext6(8)}, udp(v6a, v6b, 1, 2, []byte("y")))
	frag6first := ip6([]uint8{nhHopOpts, nhFragment, ProtoTCP}, [][]byte{ext6(8), frag6(0, true, 99)}, tcp(v6a, v6b, 1, 2, 0, nil, make([]byte, 8)))
	frag6later := ip6([]uint8{nhFragment, ProtoTCP}, [][]byte{frag6(32, false, 99)}, make([]byte, 13))
	frag6nested := ip6([]uint8{nhFragment, nhFragment, ProtoICMPv6}, [][]byte{frag6(0, true, 1), frag6(0, true, 2)}, icmp6(128, 0, 1, nil))
	icmp6m := ip6([]uint8{ProtoICMPv6}, nil, icmp6(128, 0, 0x10001, []byte("ping")))
	frag4 := ip4(ip4Opts{proto: ProtoUDP, flags: IPv4FlagMF, id: 5}, udp(v4a, v4b, 1, 2, make([]byte, 64))[:32])
	le := make([]byte, 4)
	binary.NativeEndian.PutUint32(le, 2)
	be6 := []byte{0, 0, 0, 24}
	sll := make([]byte, 16)
	put16(sll[14:], 0x0800)
	sll2 := make([]byte, 20)
	put16(sll2, 0x86dd)
	mod := func(b []byte, f func(b []byte)) []byte {
		b = append([]byte(nil), b...)
		f(b)
		return b
	}
	sel := func(lt LinkType, frame []byte) []byte { return append([]byte{fuzzSelector(lt)}, frame...) }
	return []fuzzSeed{
		{"eth-ipv4-tcp-options", sel(LinkTypeEthernet, eth(0x0800, tcp4))},
		{"eth-vlan-ipv4-udp", sel(LinkTypeEthernet, eth(0x0800, udp4, 100))},
		{"eth-qinqinq-ipv6-tcp", sel(LinkTypeEthernet, eth(0x86dd, tcp6, 1, 2, 3))},
		{"eth-icmp4-unreachable", sel(LinkTypeEthernet, eth(0x0800, icmp4m))},
		{"eth-arp", sel(LinkTypeEthernet, eth(0x0806, make([]byte, 28)))},
		{"sll-ipv4-tcp", sel(LinkTypeSLL, cat(sll, tcp4))},
		{"sll2-ipv6-icmp6-echo", sel(LinkTypeSLL2, cat(sll2, icmp6m))},
		{"null-ipv4-udp", sel(LinkTypeNull, cat(le, udp4))},
		{"loop-ipv6-tcp", sel(LinkTypeLoop, cat(be6, tcp6))},
		{"raw-ipv6-ext-header-chain", sel(LinkTypeRaw, ext6chain)},
		{"raw-ipv6-first-fragment", sel(LinkTypeRaw, frag6first)},
		{"raw-ipv6-later-fragment", sel(LinkTypeRaw, frag6later)},
		{"ipv6-nested-fragment-headers", sel(LinkTypeIPv6, frag6nested)},
		{"ipv4-first-fragment-udp", sel(LinkTypeIPv4, frag4)},
		{"ipv4-options-rr-ts", sel(LinkTypeIPv4, ip4(ip4Opts{proto: ProtoTCP, options: []byte{7, 7, 4, 0, 0, 0, 0, 68, 8, 5, 0, 0, 0, 0, 0, 0, 0}[:16]}, seg))},
		// Malformed.
		{"malformed-eth-too-small", sel(LinkTypeEthernet, make([]byte, 10))},
		{"malformed-vlan-too-many-layers", sel(LinkTypeEthernet, eth(0x0800, tcp4, 1, 2, 3, 4))},
		{"malformed-ipv4-hlen-below-5", sel(LinkTypeIPv4, mod(tcp4, func(b []byte) { b[0] = 0x43 }))},
		{"malformed-ipv4-total-length-past-capture", sel(LinkTypeIPv4, mod(tcp4, func(b []byte) { put16(b[2:], 1500) }))},
		{"malformed-ipv4-option-length-past-header", sel(LinkTypeIPv4, ip4(ip4Opts{proto: ProtoTCP, options: []byte{7, 40, 4, 0}}, seg))},
		{"malformed-ipv4-option-length-zero", sel(LinkTypeIPv4, ip4(ip4Opts{proto: ProtoTCP, options: []byte{68, 0, 0, 0}}, seg))},
		{"malformed-tcp-data-offset-past-segment", sel(LinkTypeIPv4, mod(tcp4, func(b []byte) { b[32] = 0xf0 }))},
		{"malformed-tcp-option-length-zero", sel(LinkTypeIPv4, ip4(ip4Opts{proto: ProtoTCP}, tcp(v4a, v4b, 1, 2, 0, []byte{2, 0, 0, 0}, nil)))},
		{"malformed-udp-length-past-payload", sel(LinkTypeIPv4, mod(udp4, func(b []byte) { put16(b[24:], 200) }))},
		{"malformed-udp-length-below-8", sel(LinkTypeIPv4, mod(udp4, func(b []byte) { put16(b[24:], 3) }))},
		{"malformed-ipv6-payload-length-past-capture", sel(LinkTypeIPv6, mod(tcp6, func(b []byte) { put16(b[4:], 9000) }))},
		{"malformed-ipv6-ext-header-length-past-payload", sel(LinkTypeIPv6, mod(ext6chain, func(b []byte) { b[41] = 200 }))},
		{"malformed-ipv6-jumbo-payload-length-zero", sel(LinkTypeIPv6, mod(ext6chain, func(b []byte) { put16(b[4:], 0) }))},
		{"malformed-icmp4-truncated-quote", sel(LinkTypeIPv4, ip4(ip4Opts{proto: ProtoICMP}, icmp4(3, 1, 0, []byte{0x45, 0})))},
		{"malformed-null-unknown-family", sel(LinkTypeNull, cat([]byte{9, 9, 9, 9}, udp4))},
		{"malformed-raw-version-5", sel(LinkTypeRaw, mod(tcp4, func(b []byte) { b[0] = 0x55 }))},
	}
}

// TestWriteFuzzSeeds rewrites testdata/fuzz/FuzzDecode from fuzzSeeds when
// MEERKAT_WRITE_SEEDS is set; otherwise it checks that every seed file is present.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	for _, s := range fuzzSeeds() {
		path := filepath.Join(dir, s.name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s.data)
		if os.Getenv("MEERKAT_WRITE_SEEDS") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("seed %s missing (run with MEERKAT_WRITE_SEEDS=1): %v", s.name, err)
		}
	}
}

// TestFuzzSeedEvents checks that each malformed seed raises the event its name stands for
// (the table in testdata/fuzz/README.md).
func TestFuzzSeedEvents(t *testing.T) {
	want := map[string]Event{
		"malformed-eth-too-small":                       EventEthernetPktTooSmall,
		"malformed-vlan-too-many-layers":                EventVLANTooManyLayers,
		"malformed-ipv4-hlen-below-5":                   EventIPv4HlenTooSmall,
		"malformed-ipv4-total-length-past-capture":      EventIPv4TruncPkt,
		"malformed-ipv4-option-length-past-header":      EventIPv4OptInvalidLen,
		"malformed-ipv4-option-length-zero":             EventIPv4OptInvalidLen,
		"malformed-tcp-data-offset-past-segment":        EventTCPHlenTooSmall,
		"malformed-tcp-option-length-zero":              EventTCPOptInvalidLen,
		"malformed-udp-length-past-payload":             EventUDPPktTooSmall,
		"malformed-udp-length-below-8":                  EventUDPLenInvalid,
		"malformed-ipv6-payload-length-past-capture":    EventIPv6TruncPkt,
		"malformed-ipv6-ext-header-length-past-payload": EventIPv6TruncExthdr,
		"malformed-ipv6-jumbo-payload-length-zero":      EventIPv6TruncExthdr,
		"malformed-icmp4-truncated-quote":               EventICMPv4IPv4TruncPkt,
		"malformed-null-unknown-family":                 EventLtnullUnsupportedType,
		"malformed-raw-version-5":                       EventIPRawInvalidIPVersion,
	}
	seen := 0
	for _, s := range fuzzSeeds() {
		e, ok := want[s.name]
		if !ok {
			continue
		}
		seen++
		var d Decoder
		var p Packet
		d.Decode(&p, fuzzLinkTypes[s.data[0]], s.data[1:])
		// 4-byte options also raise ipv4.opt_pad_required, as in Suricata.
		got := slices.DeleteFunc(eventsOf(&p), func(e Event) bool { return e == EventIPv4OptPadRequired })
		if len(got) != 1 || got[0] != e {
			t.Errorf("%s: events %v, want [%v]", s.name, names(got), e)
		}
	}
	if seen != len(want) {
		t.Errorf("%d malformed seeds found, %d expected", seen, len(want))
	}
}
