package defrag

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
)

// wantUDP4 decodes a reassembled IPv4 datagram and checks it against the original payload.
func wantUDP4(t *testing.T, dg []byte, payload []byte) {
	t.Helper()
	var d decode.Decoder
	var p decode.Packet
	d.Decode(&p, decode.LinkTypeRaw, dg)
	if p.IPVersion != 4 || p.IsFragment || p.MoreFragments || p.FragOffset != 0 || !p.IsUDP() {
		t.Fatalf("datagram: v%d frag %v udp %v events %v", p.IPVersion, p.IsFragment, p.IsUDP(), p.Events)
	}
	if p.IPv4ChecksumBad || p.L4ChecksumBad {
		t.Errorf("checksums: ip bad %v udp bad %v", p.IPv4ChecksumBad, p.L4ChecksumBad)
	}
	if !bytes.Equal(p.IPPayload, payload) {
		t.Errorf("payload differs")
	}
	if p.IPLen != 20+len(payload) || p.IPID != 0x4242 {
		t.Errorf("IPLen %d id %#x", p.IPLen, p.IPID)
	}
}

func sendV4(f *feeder, payload []byte, pieces []piece) ([]byte, bool) {
	var dg []byte
	var done bool
	for i, pc := range pieces {
		dg, done = f.add(ip4Frag(0x4242, decode.ProtoUDP, pc.off, pc.more, payload[pc.off:pc.end]), t0.Add(time.Duration(i)*time.Millisecond))
		if done && i != len(pieces)-1 {
			return nil, false
		}
	}
	return dg, done
}

func TestIPv4InOrder(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 3000)
	f := newFeeder(DefaultConfig())
	dg, done := sendV4(f, payload, split(len(payload), 1480))
	if !done {
		t.Fatal("not reassembled")
	}
	wantUDP4(t, dg, payload)
	if f.r.Trackers() != 0 || f.r.MemUse() != 0 || f.r.Counters.IPv4Fragments != 3 || f.r.Counters.IPv4Reassembled != 1 {
		t.Errorf("after: trackers %d mem %d counters %+v", f.r.Trackers(), f.r.MemUse(), f.r.Counters)
	}
}

func TestIPv4OutOfOrder(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 2000)
	pieces := split(len(payload), 200)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
		f := newFeeder(DefaultConfig())
		dg, done := sendV4(f, payload, pieces)
		if !done {
			t.Fatalf("round %d: not reassembled", round)
		}
		wantUDP4(t, dg, payload)
		if !f.p.Events.Empty() {
			t.Errorf("events on an overlap-free datagram")
		}
	}
}

func TestIPv4Duplicate(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 100)
	f := newFeeder(DefaultConfig())
	first := ip4Frag(0x4242, decode.ProtoUDP, 0, true, payload[:64])
	if _, done := f.add(first, t0); done {
		t.Fatal("done too early")
	}
	if _, done := f.add(first, t0); done {
		t.Fatal("done too early")
	}
	if !f.p.Events.Has(decode.EventIPv4FragOverlap) {
		t.Errorf("duplicate fragment: no overlap event")
	}
	dg, done := f.add(ip4Frag(0x4242, decode.ProtoUDP, 64, false, payload[64:]), t0)
	if !done {
		t.Fatal("not reassembled")
	}
	wantUDP4(t, dg, payload)
	if f.r.Counters.IPv4Overlap != 1 {
		t.Errorf("overlap counter %d", f.r.Counters.IPv4Overlap)
	}
}

// TestOverlapPolicies sends three overlapping fragments carrying different bytes and checks
// which bytes each policy keeps.
func TestOverlapPolicies(t *testing.T) {
	fill := func(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }
	// A: [8,24) first; B: [0,16) second (starts before A); C: [16,32) third, last fragment
	// (starts inside A); D: [8,16) fourth, same offset as A.
	frags := []struct {
		off  int
		data []byte
		more bool
	}{
		{8, fill('A', 16), true},
		{0, fill('B', 16), true},
		{16, fill('C', 16), false},
		{8, fill('D', 8), true},
	}
	for _, tc := range []struct {
		policy Policy
		want   string
	}{
		// BSD: lowest offset wins, ties to the first arrival: B covers [0,16), A [16,24), C [24,32).
		{PolicyBSD, "BBBBBBBBBBBBBBBBAAAAAAAACCCCCCCC"},
		// First: A [8,24), then B fills [0,8), then C [24,32).
		{PolicyFirst, "BBBBBBBBAAAAAAAAAAAAAAAACCCCCCCC"},
		// Last: each later fragment overwrites.
		{PolicyLast, "BBBBBBBBDDDDDDDDCCCCCCCCCCCCCCCC"},
	} {
		cfg := DefaultConfig()
		cfg.Policy = tc.policy
		// A, B, D, then C (the last fragment) completes the datagram.
		f := newFeeder(cfg)
		var dg []byte
		var done bool
		order := []int{0, 1, 3, 2}
		overlaps := 0
		for _, i := range order {
			fr := frags[i]
			dg, done = f.add(ip4Frag(7, 200, fr.off, fr.more, fr.data), t0)
			if f.p.Events.Has(decode.EventIPv4FragOverlap) {
				overlaps++
			}
		}
		if !done {
			t.Fatalf("policy %d: not reassembled", tc.policy)
		}
		if got := string(dg[20:]); got != tc.want {
			t.Errorf("policy %d: got %s, want %s", tc.policy, got, tc.want)
		}
		if overlaps != 3 {
			t.Errorf("policy %d: %d overlap events, want 3", tc.policy, overlaps)
		}
	}
}

func TestMissingPiece(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 3000)
	pieces := split(len(payload), 512)
	f := newFeeder(DefaultConfig())
	for i, pc := range pieces {
		if i == 2 {
			continue
		}
		if _, done := f.add(ip4Frag(0x4242, decode.ProtoUDP, pc.off, pc.more, payload[pc.off:pc.end]), t0); done {
			t.Fatal("reassembled with a hole")
		}
	}
	if f.r.Trackers() != 1 {
		t.Errorf("trackers %d", f.r.Trackers())
	}
	// Without the last fragment nothing completes either.
	f = newFeeder(DefaultConfig())
	for _, pc := range pieces[:len(pieces)-1] {
		if _, done := f.add(ip4Frag(0x4242, decode.ProtoUDP, pc.off, pc.more, payload[pc.off:pc.end]), t0); done {
			t.Fatal("reassembled without the last fragment")
		}
	}
}

func TestTimeout(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 100)
	f := newFeeder(DefaultConfig())
	f.add(ip4Frag(0x4242, decode.ProtoUDP, 0, true, payload[:64]), t0)
	f.r.Expire(t0.Add(59 * time.Second))
	if f.r.Trackers() != 1 {
		t.Fatalf("expired too early")
	}
	f.r.Expire(t0.Add(61 * time.Second))
	if f.r.Trackers() != 0 || f.r.MemUse() != 0 || f.r.Counters.Timeouts != 1 {
		t.Fatalf("not expired: trackers %d mem %d", f.r.Trackers(), f.r.MemUse())
	}
	// The rest of the datagram alone does not complete it.
	if _, done := f.add(ip4Frag(0x4242, decode.ProtoUDP, 64, false, payload[64:]), t0.Add(62*time.Second)); done {
		t.Fatal("completed from an expired tracker")
	}

	// A stale tracker is also replaced when its next fragment arrives late, without Expire.
	f = newFeeder(DefaultConfig())
	f.add(ip4Frag(0x4242, decode.ProtoUDP, 0, true, payload[:64]), t0)
	if _, done := f.add(ip4Frag(0x4242, decode.ProtoUDP, 64, false, payload[64:]), t0.Add(2*time.Minute)); done {
		t.Fatal("completed with a stale fragment")
	}
	if f.r.Counters.Timeouts != 1 {
		t.Errorf("timeouts %d", f.r.Counters.Timeouts)
	}

	// Timeouts are measured from the last fragment.
	f = newFeeder(DefaultConfig())
	f.add(ip4Frag(0x4242, decode.ProtoUDP, 0, true, payload[:32]), t0)
	f.add(ip4Frag(0x4242, decode.ProtoUDP, 32, true, payload[32:64]), t0.Add(50*time.Second))
	f.r.Expire(t0.Add(100 * time.Second))
	if _, done := f.add(ip4Frag(0x4242, decode.ProtoUDP, 64, false, payload[64:]), t0.Add(100*time.Second)); !done {
		t.Fatal("a datagram with recent fragments expired")
	}
}

func TestMemcap(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 4000)
	cfg := DefaultConfig()
	cfg.Memcap = 3000
	f := newFeeder(cfg)
	_, done := sendV4(f, payload, split(len(payload), 1000))
	if done {
		t.Fatal("reassembled past the memcap")
	}
	if f.r.Counters.MemcapExceeded == 0 || f.r.MemUse() > cfg.Memcap {
		t.Errorf("memcap: exceeded %d, memuse %d", f.r.Counters.MemcapExceeded, f.r.MemUse())
	}
	// Memory comes back when the tracker expires, and a small datagram fits again.
	f.r.Expire(t0.Add(time.Hour))
	if f.r.MemUse() != 0 {
		t.Fatalf("memuse %d after expiry", f.r.MemUse())
	}
	small := udpDatagram(srcV4, dstV4, 500)
	if _, done := sendV4(f, small, split(len(small), 256)); !done {
		t.Errorf("small datagram not reassembled under the memcap")
	}
}

func TestTrackerAndFragmentLimits(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Trackers = 2
	f := newFeeder(cfg)
	for id := uint16(1); id <= 3; id++ {
		f.add(ip4Frag(id, decode.ProtoUDP, 0, true, make([]byte, 8)), t0)
	}
	if f.r.Trackers() != 2 || f.r.Counters.MaxTrackersReached != 1 {
		t.Errorf("trackers %d, max reached %d", f.r.Trackers(), f.r.Counters.MaxTrackersReached)
	}
	// An expired tracker makes room.
	f.add(ip4Frag(4, decode.ProtoUDP, 0, true, make([]byte, 8)), t0.Add(2*time.Minute))
	if f.r.Counters.MaxTrackersReached != 1 || f.r.Trackers() != 2 {
		t.Errorf("expired tracker not reused: trackers %d max reached %d", f.r.Trackers(), f.r.Counters.MaxTrackersReached)
	}

	cfg = DefaultConfig()
	cfg.MaxFrags = 3
	f = newFeeder(cfg)
	for i := 0; i < 5; i++ {
		f.add(ip4Frag(9, decode.ProtoUDP, i*8, true, make([]byte, 8)), t0)
	}
	if f.r.Counters.MaxFragsReached != 2 {
		t.Errorf("max frags reached %d", f.r.Counters.MaxFragsReached)
	}
}

func TestTooLarge(t *testing.T) {
	f := newFeeder(DefaultConfig())
	f.add(ip4Frag(1, decode.ProtoUDP, 0, true, make([]byte, 64)), t0)
	f.add(ip4Frag(1, decode.ProtoUDP, 65512, false, make([]byte, 100)), t0)
	if !f.p.Events.Has(decode.EventIPv4FragPktTooLarge) || f.r.Trackers() != 0 || f.r.Counters.IPv4TooLarge != 1 {
		t.Errorf("ipv4: event %v trackers %d", f.p.Events.Has(decode.EventIPv4FragPktTooLarge), f.r.Trackers())
	}
	f.add(ip6Frag(1, decode.ProtoUDP, true, 0, true, make([]byte, 64)), t0)
	f.add(ip6Frag(1, decode.ProtoUDP, true, 65512, true, make([]byte, 16)), t0)
	if !f.p.Events.Has(decode.EventIPv6FragPktTooLarge) || f.r.Trackers() != 0 || f.r.Counters.IPv6TooLarge != 1 {
		t.Errorf("ipv6: event %v trackers %d", f.p.Events.Has(decode.EventIPv6FragPktTooLarge), f.r.Trackers())
	}
	// The largest datagram that fits.
	payload := make([]byte, 65535-20)
	if _, done := sendV4(f, payload, split(len(payload), 1480)); !done {
		t.Errorf("65535-byte datagram not reassembled")
	}
}

func TestIPv6ExtHeaders(t *testing.T) {
	payload := udpDatagram(srcV6, dstV6, 3000)
	for _, ext := range []bool{false, true} {
		f := newFeeder(DefaultConfig())
		pieces := split(len(payload), 1232)
		var dg []byte
		var done bool
		for i := len(pieces) - 1; i >= 0; i-- { // last first
			pc := pieces[i]
			dg, done = f.add(ip6Frag(0xabcdef01, decode.ProtoUDP, ext, pc.off, pc.more, payload[pc.off:pc.end]), t0)
		}
		if !done {
			t.Fatalf("ext %v: not reassembled", ext)
		}
		var d decode.Decoder
		var p decode.Packet
		d.Decode(&p, decode.LinkTypeRaw, dg)
		hdr := 40
		if ext {
			hdr = 56
		}
		if p.IPVersion != 6 || p.IsFragment || p.IPv6FragHdr || !p.IsUDP() || p.L4ChecksumBad || !p.Events.Empty() {
			t.Fatalf("ext %v: datagram v%d frag %v fh %v udp %v bad sum %v events %v", ext, p.IPVersion, p.IsFragment, p.IPv6FragHdr, p.IsUDP(), p.L4ChecksumBad, p.Events)
		}
		if len(p.IPHeader) != hdr || !bytes.Equal(p.IPPayload, payload) || p.IPLen != hdr+len(payload) {
			t.Errorf("ext %v: header %d payload equal %v", ext, len(p.IPHeader), bytes.Equal(p.IPPayload, payload))
		}
		if ext && (dg[6] != 0 || dg[40] != 60 || dg[48] != decode.ProtoUDP) {
			t.Errorf("next header chain %d %d %d", dg[6], dg[40], dg[48])
		}
		if f.r.Counters.IPv6Fragments != 3 || f.r.Counters.IPv6Reassembled != 1 {
			t.Errorf("counters %+v", f.r.Counters)
		}
	}
}

func TestKeys(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 100)
	f := newFeeder(DefaultConfig())
	// Same id, different VLAN: two datagrams.
	frame := func(vlan uint16, off int, more bool, data []byte) {
		f.d.Decode(&f.p, decode.LinkTypeRaw, ip4Frag(0x4242, decode.ProtoUDP, off, more, data))
		f.p.VLAN[0], f.p.VLANCount = vlan, 1
		f.p.Timestamp = t0
	}
	frame(10, 0, true, payload[:64])
	f.r.Add(&f.p)
	frame(20, 64, false, payload[64:])
	if _, done := f.r.Add(&f.p); done {
		t.Fatal("fragments of different VLANs reassembled together")
	}
	frame(10, 64, false, payload[64:])
	if dg, done := f.r.Add(&f.p); !done {
		t.Fatal("not reassembled")
	} else {
		wantUDP4(t, dg, payload)
	}
	// Different protocol: not the same datagram.
	f = newFeeder(DefaultConfig())
	f.add(ip4Frag(1, decode.ProtoUDP, 0, true, payload[:64]), t0)
	if _, done := f.add(ip4Frag(1, decode.ProtoTCP, 64, false, payload[64:]), t0); done {
		t.Fatal("fragments of different protocols reassembled together")
	}
}

// TestNested reassembles a datagram whose payload is itself the first fragment of another
// datagram (nested IPv6 fragment headers): the returned slice is decoded and added again.
func TestNested(t *testing.T) {
	inner := udpDatagram(srcV6, dstV6, 200)
	// Inner datagram 2: fragment header + first 104 bytes, and a second fragment.
	innerFH := make([]byte, 8)
	innerFH[0] = decode.ProtoUDP
	binary.BigEndian.PutUint16(innerFH[2:], 1) // offset 0, M
	binary.BigEndian.PutUint32(innerFH[4:], 2)
	outerPayload := append(innerFH, inner[:104]...)

	f := newFeeder(DefaultConfig())
	f.add(ip6Frag(1, 44, false, 0, true, outerPayload[:56]), t0)
	dg, done := f.add(ip6Frag(1, 44, false, 56, false, outerPayload[56:]), t0)
	if !done {
		t.Fatal("outer datagram not reassembled")
	}
	var d decode.Decoder
	var p2 decode.Packet
	d.Decode(&p2, decode.LinkTypeRaw, dg)
	if !p2.IsFragment || p2.IPID != 2 {
		t.Fatalf("outer datagram is not the inner first fragment: %v id %d", p2.IsFragment, p2.IPID)
	}
	p2.Timestamp = t0
	if _, done := f.r.Add(&p2); done {
		t.Fatal("inner done too early")
	}
	dg, done = f.add(ip6Frag(2, decode.ProtoUDP, false, 104, false, inner[104:]), t0)
	if !done {
		t.Fatal("inner datagram not reassembled")
	}
	d.Decode(&p2, decode.LinkTypeRaw, dg)
	if !p2.IsUDP() || !bytes.Equal(p2.IPPayload, inner) || p2.L4ChecksumBad {
		t.Errorf("inner datagram: udp %v", p2.IsUDP())
	}
}

func TestNotFragments(t *testing.T) {
	f := newFeeder(DefaultConfig())
	payload := udpDatagram(srcV4, dstV4, 10)
	if _, done := f.add(ip4Frag(1, decode.ProtoUDP, 0, false, payload), t0); done || f.r.Trackers() != 0 || f.r.Counters.IPv4Fragments != 0 {
		t.Errorf("a whole datagram was tracked")
	}
	var p decode.Packet
	if _, done := f.r.Add(&p); done {
		t.Errorf("empty packet")
	}
}

func TestCounters(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 300)
	f := newFeeder(DefaultConfig())
	sendV4(f, payload, split(len(payload), 160))
	var c Counters
	c.Add(&f.r.Counters)
	c.Add(&f.r.Counters)
	got := map[string]uint64{}
	c.Each(func(name string, v uint64) { got[name] = v })
	if got["defrag.ipv4.fragments"] != 4 || got["defrag.ipv4.reassembled"] != 2 || len(got) != 13 {
		t.Errorf("counters %v", got)
	}
	for _, name := range []string{"defrag.ipv6.fragments", "defrag.ipv6.reassembled", "defrag.max_trackers_reached",
		"defrag.memcap_exceeded", "decoder.event.ipv4.frag_overlap", "decoder.event.ipv6.frag_pkt_too_large"} {
		if _, ok := got[name]; !ok {
			t.Errorf("missing %s", name)
		}
	}
}

// TestSteadyStateAllocs checks that reassembling datagram after datagram reuses the
// trackers and buffers: no allocation per fragment once warm.
func TestSteadyStateAllocs(t *testing.T) {
	payload := udpDatagram(srcV4, dstV4, 4000)
	pieces := split(len(payload), 1480)
	var frames [][]byte
	for _, pc := range pieces {
		frames = append(frames, ip4Frag(0x4242, decode.ProtoUDP, pc.off, pc.more, payload[pc.off:pc.end]))
	}
	payload6 := udpDatagram(srcV6, dstV6, 4000)
	for _, pc := range split(len(payload6), 1232) {
		frames = append(frames, ip6Frag(7, decode.ProtoUDP, true, pc.off, pc.more, payload6[pc.off:pc.end]))
	}
	f := newFeeder(DefaultConfig())
	run := func() {
		for _, fr := range frames {
			f.add(fr, t0)
		}
	}
	run()
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per pair of datagrams", n)
	}
	if f.r.Counters.IPv4Reassembled < 100 || f.r.Counters.IPv6Reassembled < 100 {
		t.Errorf("counters %+v", f.r.Counters)
	}
}

// BenchmarkReassembleIPv4 reassembles a 4000-byte UDP datagram sent in 3 fragments.
func BenchmarkReassembleIPv4(b *testing.B) {
	payload := udpDatagram(srcV4, dstV4, 4000)
	var frames [][]byte
	for _, pc := range split(len(payload), 1480) {
		frames = append(frames, ip4Frag(0x4242, decode.ProtoUDP, pc.off, pc.more, payload[pc.off:pc.end]))
	}
	f := newFeeder(DefaultConfig())
	b.ReportAllocs()
	for b.Loop() {
		for _, fr := range frames {
			f.add(fr, t0)
		}
	}
}
