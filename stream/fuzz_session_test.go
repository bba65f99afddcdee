package stream

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// FuzzSession drives random packet sequences (flags, sequence and ACK numbers near the
// session's or anywhere, payloads, both directions, several flows) through one Tracker,
// with the app layer and raw inspection reading in between. Invariants: no panic, the
// segment pool's accounted bytes stay within the reassembly memcap and the sessions'
// within stream.memcap, the raw and app data handed out are within what was stored, and
// releasing every flow returns all of it.

const fuzzFlows = 3

func fuzzConfig(b byte) Config {
	cfg := defaultConfig()
	cfg.ReassemblyMemcap = 64 << 10
	cfg.Memcap = 2 * sessionCost
	cfg.ToServerChunk, cfg.ToClientChunk = 64, 100
	cfg.Midstream = b&1 != 0
	cfg.AsyncOneside = b&2 != 0
	cfg.Inline = b&4 != 0
	cfg.CheckOverlapDiff = b&8 != 0
	if b&16 != 0 {
		cfg.Depth = 300
	}
	cfg.Raw = b&32 == 0
	pols := []Policy{PolicyBSD, PolicyLinux, PolicyWindows, PolicyHPUX11, PolicySolaris, PolicyFirst, PolicyLast}
	pol := pols[int(b>>6)%len(pols)]
	cfg.PolicyFor = func(netip.Addr) Policy { return pol }
	return cfg
}

func runFuzzSession(t testing.TB, data []byte) {
	if len(data) < 1 {
		return
	}
	cfg := fuzzConfig(data[0])
	data = data[1:]
	tr := NewTracker(cfg)
	var convs [fuzzFlows]*conv
	for i := range convs {
		convs[i] = newConvOn(t, tr)
	}
	payload := make([]byte, 1500)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	var buf RawBuffer
	// base sequence numbers per flow and direction, to stay near the session
	var seqs [fuzzFlows][2]uint32
	for i := range seqs {
		seqs[i] = [2]uint32{1000 + uint32(i)*7, 0xfffff000 + uint32(i)}
	}
	for len(data) >= 6 {
		b := data[:6]
		data = data[6:]
		fi := int(b[0]&0x7f) % fuzzFlows
		c := convs[fi]
		fromServer := b[0]&0x80 != 0
		d := 0
		if fromServer {
			d = 1
		}
		flags := b[1]
		delta := uint32(binary.LittleEndian.Uint16(b[2:4]))
		n := int(b[4]) * 6
		if n > len(payload) {
			n = len(payload)
		}
		mode := b[5]
		seq := seqs[fi][d]
		ack := seqs[fi][1-d]
		switch mode & 3 {
		case 0:
			seq += delta % 64
		case 1:
			seq -= delta % 512
		case 2:
			seq = delta<<16 | uint32(b[4])
		}
		switch (mode >> 2) & 3 {
		case 3:
			ack++
		case 1:
			ack += delta
		case 2:
			ack = uint32(delta) << 8
		}
		k := pkt{fromServer: fromServer, flags: flags, seq: seq, ack: ack, win: 0xffff ^ uint16(delta),
			payload: payload[:n], zeroWin: mode&0x40 != 0, badCsum: mode == 0xff}
		if mode&0x80 != 0 {
			k.ts = &[2]uint32{uint32(delta), uint32(b[4])}
		}
		if mode&0x20 != 0 {
			k.wscale = int(b[4] & 15)
		}
		r := c.send(k)
		if mode&3 != 2 && n > 0 {
			seqs[fi][d] = seq + uint32(n)
		}
		if flags&fSYN != 0 {
			seqs[fi][d] = seq + 1
		}
		dir := r.Dir
		if tr.Raw(c.f, dir, mode&0x10 != 0 && mode&0x8 != 0, &buf) {
			if len(buf.Chunks) != len(buf.Offsets) {
				t.Fatalf("chunks %d offsets %d", len(buf.Chunks), len(buf.Offsets))
			}
			if mode&1 == 0 {
				tr.RawConsumed(c.f, dir, buf.End)
			} else {
				tr.RawConsumed(c.f, dir, 0)
			}
		}
		for _, ad := range [2]flow.Direction{flow.ToServer, flow.ToClient} {
			got, _, _ := tr.AppData(c.f, ad)
			if len(got) > 1<<20 {
				t.Fatalf("app data %d bytes", len(got))
			}
			tr.ConsumeApp(c.f, ad, len(got)/(1+int(mode&1)))
		}
		if mode&0x30 == 0x30 {
			tr.Prune(c.f, dir)
		}
		tr.StreamSize(c.f, Client)
		tr.NeedsFlush(c.f)
		if cfg.ReassemblyMemcap != 0 && tr.Pool().InUse() > cfg.ReassemblyMemcap {
			t.Fatalf("pool in use %d > memcap %d", tr.Pool().InUse(), cfg.ReassemblyMemcap)
		}
		if tr.SessionMemuse() > cfg.Memcap {
			t.Fatalf("sessions %d > memcap %d", tr.SessionMemuse(), cfg.Memcap)
		}
		if b[3] == 0xee {
			// flow end: flush and release, the slot takes a new flow
			tr.Raw(c.f, flow.ToServer, true, &buf)
			tr.AppDataFlush(c.f, flow.ToServer)
			tr.Release(c.f)
			convs[fi] = newConvOn(t, tr)
		}
	}
	for _, c := range convs {
		tr.Raw(c.f, flow.ToServer, true, &buf)
		tr.Raw(c.f, flow.ToClient, true, &buf)
		tr.Release(c.f)
	}
	if tr.Pool().InUse() != 0 || tr.SessionMemuse() != 0 || tr.Counters.ActiveSessions != 0 {
		t.Fatalf("after release: pool %d sessions %d active %d", tr.Pool().InUse(), tr.SessionMemuse(),
			tr.Counters.ActiveSessions)
	}
}

func FuzzSession(f *testing.F) {
	for _, s := range sessionFuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { runFuzzSession(t, data) })
}

// sessionFuzzSeeds are handshakes, data both ways, closes and resets, for each mode byte.
func sessionFuzzSeeds() [][]byte {
	conv := [][6]byte{
		{0x00, fSYN, 0, 0, 0, 0x03},
		{0x80, fSA, 0, 0, 0, 0x00},
		{0x00, fACK, 0, 0, 0, 0x00},
		{0x00, fPA, 0, 0, 20, 0x00},
		{0x80, fPA, 0, 0, 40, 0x00},
		{0x00, fPA, 30, 0, 20, 0x00},
		{0x00, fPA, 0, 0, 20, 0x01},
		{0x80, fACK, 0, 0, 0, 0x30},
		{0x00, fFA, 0, 0, 0, 0x00},
		{0x80, fFA, 0, 0, 0, 0x00},
		{0x00, fACK, 0, 0, 0, 0x18},
		{0x81, fRA, 5, 0, 0, 0x02},
		{0x01, fPA, 9, 0xee, 3, 0x85},
	}
	var seeds [][]byte
	for _, m := range []byte{0, 1, 2, 3, 4, 8, 16, 0x20, 0x45, 0x9f} {
		s := []byte{m}
		for _, p := range conv {
			s = append(s, p[:]...)
		}
		seeds = append(seeds, s)
	}
	return seeds
}

// TestFuzzSessionSeeds runs the seeds as a plain test.
func TestFuzzSessionSeeds(t *testing.T) {
	for _, s := range sessionFuzzSeeds() {
		runFuzzSession(t, s)
	}
}
