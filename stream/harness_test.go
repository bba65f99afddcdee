package stream

import (
	"net/netip"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// The feeder harness: a client/server conversation built packet by packet, as the flow
// table would hand it to the stream engine (direction by the flow's client address, so a
// SYN/ACK pickup's reversal carries over to later packets).

var (
	cliIP = netip.MustParseAddr("10.0.0.1")
	srvIP = netip.MustParseAddr("10.0.0.2")
)

const (
	fSYN = decode.TCPFlagSYN
	fACK = decode.TCPFlagACK
	fFIN = decode.TCPFlagFIN
	fRST = decode.TCPFlagRST
	fPSH = decode.TCPFlagPSH
	fSA  = fSYN | fACK
	fPA  = fPSH | fACK
	fFA  = fFIN | fACK
	fRA  = fRST | fACK
)

// conv is one conversation through one Tracker.
type conv struct {
	t   testing.TB
	tr  *Tracker
	f   *flow.Flow
	p   decode.Packet
	hdr [60]byte
	ts  time.Time
	// last is the result of the latest packet.
	last   PacketResult
	rawBuf RawBuffer
}

func defaultConfig() Config {
	return Config{Raw: true, AppLayer: true, ToServerChunk: 2560, ToClientChunk: 2560, ReassemblyMemcap: 64 << 20,
		Memcap: 64 << 20, SegmentPrealloc: 64}
}

func newConv(t testing.TB, cfg Config) *conv {
	return newConvOn(t, NewTracker(cfg))
}

func newConvOn(t testing.TB, tr *Tracker) *conv {
	f := flow.NewDetached()
	f.SrcIP, f.DstIP, f.SrcPort, f.DstPort, f.Proto = cliIP, srvIP, 40000, 80, decode.ProtoTCP
	return &conv{t: t, tr: tr, f: f, ts: time.Unix(1700000000, 0)}
}

// pkt describes one packet.
type pkt struct {
	fromServer bool
	flags      uint8
	seq, ack   uint32
	win        uint16
	data       string
	ts         *[2]uint32 // timestamp option (value, echo)
	wscale     int        // -1: none
	opts       []byte     // raw options appended to the header
	badCsum    bool
	payload    []byte // used instead of data when set (no allocation)
	urg        uint16 // urgent pointer
	zeroWin    bool   // send window 0 (otherwise a zero win means 65535, RST excepted)
}

// send runs one packet and returns the result.
func (c *conv) send(k pkt) PacketResult {
	p := &c.p
	p.Reset()
	p.IPVersion = 4
	p.IPProto = decode.ProtoTCP
	p.HasL4 = true
	if k.fromServer {
		p.SrcIP, p.DstIP, p.SrcPort, p.DstPort = srvIP, cliIP, 80, 40000
	} else {
		p.SrcIP, p.DstIP, p.SrcPort, p.DstPort = cliIP, srvIP, 40000, 80
	}
	p.TCPSeq, p.TCPAck, p.TCPFlags = k.seq, k.ack, k.flags
	p.TCPWindow = k.win
	p.TCPUrgent = k.urg
	if k.win == 0 && !k.zeroWin && k.flags&fRST == 0 {
		p.TCPWindow = 65535
	}
	if k.ts != nil {
		p.TCPHasTS, p.TCPTSVal, p.TCPTSEcr = true, k.ts[0], k.ts[1]
	}
	if k.wscale > 0 {
		p.HasWScale, p.TCPWScale = true, uint8(k.wscale)
	}
	hl := 20 + len(k.opts)
	for hl%4 != 0 {
		hl++
	}
	h := c.hdr[:hl]
	for i := range h {
		h[i] = 0
	}
	copy(h[20:], k.opts)
	p.L4Header = h
	p.TCPHasSACK, p.TCPHasMD5, p.TCPHasTFO = false, false, false
	scanOptions(p, k.opts)
	p.Payload = k.payload
	if p.Payload == nil && k.data != "" {
		p.Payload = []byte(k.data)
	}
	p.L4ChecksumBad = k.badCsum
	c.ts = c.ts.Add(time.Millisecond)
	p.Timestamp = c.ts
	dir := flow.ToServer
	if p.SrcIP != c.f.SrcIP {
		dir = flow.ToClient
	}
	c.last = c.tr.Packet(c.f, p, dir)
	return c.last
}

// handshake runs SYN, SYN/ACK, ACK with client ISN cisn and server ISN sisn.
func (c *conv) handshake(cisn, sisn uint32) {
	c.send(pkt{flags: fSYN, seq: cisn})
	c.send(pkt{fromServer: true, flags: fSA, seq: sisn, ack: cisn + 1})
	c.send(pkt{flags: fACK, seq: cisn + 1, ack: sisn + 1})
}

func (c *conv) state() flow.TCPSessionState { return c.tr.State(c.f) }

// events lists the stream events of the last packet.
func (c *conv) events() []string {
	var out []string
	c.p.Events.Each(func(e decode.Event) {
		if e.IsStream() {
			out = append(out, e.String())
		}
	})
	return out
}

func (c *conv) hasEvent(e decode.Event) bool { return c.p.Events.Has(e) }

// raw returns the chunks Raw hands out for dir (copied), and consumes them.
func (c *conv) raw(dir flow.Direction, pseudo bool) []string {
	var buf RawBuffer
	if !c.tr.Raw(c.f, dir, pseudo, &buf) {
		return nil
	}
	var out []string
	for _, ch := range buf.Chunks {
		out = append(out, string(ch))
	}
	c.tr.RawConsumed(c.f, dir, buf.End)
	return out
}

// app reads and consumes all app data of dir.
func (c *conv) app(dir flow.Direction) (string, uint64) {
	d, gap, _ := c.tr.AppData(c.f, dir)
	c.tr.ConsumeApp(c.f, dir, len(d))
	return string(d), gap
}

// sendURG sends k with urgent pointer urg.
func (c *conv) sendURG(k pkt, urg uint16) PacketResult {
	k.urg = urg
	return c.send(k)
}

// scanOptions sets the option flags the decoder sets (decode/tcp.go) for a packet the
// harness builds by hand: SACK blocks, TCP-MD5/TCP-AO, TCP Fast Open.
func scanOptions(p *decode.Packet, o []byte) {
	for len(o) > 0 {
		k := o[0]
		if k == 0 {
			return
		}
		if k == 1 {
			o = o[1:]
			continue
		}
		if len(o) < 2 || o[1] < 2 || int(o[1]) > len(o) {
			return
		}
		l := int(o[1])
		switch {
		case k == 5 && l >= 10 && l <= 34 && (l-2)%8 == 0:
			p.TCPHasSACK = true
		case k == 19 && l == 18, k == 29 && l >= 4:
			p.TCPHasMD5 = true
		case k == 34 && (l == 2 || l >= 4 && l <= 18 && (l-2)%2 == 0),
			(k == 253 || k == 254) && (l == 4 || l == 12) && o[2] == 0xf9 && o[3] == 0x89:
			p.TCPHasTFO = true
		}
		o = o[l:]
	}
}
