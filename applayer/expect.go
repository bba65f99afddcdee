package applayer

import (
	"net/netip"
	"sync"

	"github.com/meerkat-ids/meerkat/flow"
)

// Expectations are announced connections (src/app-layer-expectation.c): a parser of one flow
// (FTP's PORT/PASV plus a transfer command) says that a connection between the same two
// addresses, to a port, is of a protocol; the first data of a new flow that fits is then
// detected as that protocol without patterns (AppLayerProtoDetectPEGetProto), and the
// expectation's data goes to the new flow's parser. The table is process-wide, as the data
// connection may be handled by another worker, and bounded: ExpectMaxPerPair per address
// pair (the oldest is dropped, EXPECTATION_MAX_LEVEL), ExpectMax in all, each expiring
// ExpectTimeout seconds after it was made (EXPECTATION_TIMEOUT).
type Expectations struct {
	mu    sync.Mutex
	pairs map[ipPair][]expectation
	n     int
}

// The bounds of the expectation table.
const (
	ExpectMaxPerPair = 10
	ExpectTimeout    = 30
	ExpectMax        = 65536
)

type ipPair struct{ a, b netip.Addr }

func pairOf(x, y netip.Addr) ipPair {
	if y.Less(x) {
		x, y = y, x
	}
	return ipPair{x, y}
}

type expectation struct {
	sp, dp uint16
	dir    Dir
	proto  Proto
	data   any
	ts     int64
	orig   *flow.Flow
}

// Expect is the process's expectation table.
var Expect = &Expectations{}

// Create is AppLayerExpectationCreate: a flow between f's addresses whose data of direction
// dir goes from port sp to port dp (0: any) is proto, with data for its parser. now is the
// creating packet's time (Unix seconds).
func (t *Expectations) Create(f *flow.Flow, dir Dir, sp, dp uint16, proto Proto, data any, now int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pairs == nil {
		t.pairs = map[ipPair][]expectation{}
	}
	k := pairOf(f.SrcIP, f.DstIP)
	l := t.pairs[k]
	e := expectation{sp: sp, dp: dp, dir: dir, proto: proto, data: data, ts: now, orig: f}
	if len(l) >= ExpectMaxPerPair {
		// The newest goes first and the oldest is dropped (CIRCLEQ_INSERT_HEAD, CIRCLEQ_LAST).
		copy(l[1:], l[:len(l)-1])
		l[0] = e
		return
	}
	if t.n >= ExpectMax {
		return
	}
	l = append(l, expectation{})
	copy(l[1:], l)
	l[0] = e
	t.pairs[k] = l
	t.n++
}

// Handle is AppLayerExpectationHandle for the first data of direction dir of flow f: the
// protocol of the first fitting expectation (and its data), which is removed; expired ones
// met on the way are removed too. ProtoUnknown when none fits.
func (t *Expectations) Handle(f *flow.Flow, dir Dir, now int64) (Proto, any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		return ProtoUnknown, nil
	}
	k := pairOf(f.SrcIP, f.DstIP)
	l := t.pairs[k]
	proto := ProtoUnknown
	var data any
	out := l[:0]
	for _, e := range l {
		if e.dir == dir && (e.sp == 0 || e.sp == f.SrcPort) && (e.dp == 0 || e.dp == f.DstPort) {
			if proto == ProtoUnknown || data == nil {
				data = e.data // the first one's data stays with the flow
			}
			proto = e.proto
			t.n--
			continue
		}
		if now > e.ts+ExpectTimeout {
			t.n--
			continue
		}
		out = append(out, e)
	}
	clear(l[len(out):])
	if len(out) == 0 {
		delete(t.pairs, k)
	} else {
		t.pairs[k] = out
	}
	return proto, data
}

// Clean is AppLayerExpectationClean: the expectations flow f made go with it.
func (t *Expectations) Clean(f *flow.Flow) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		return
	}
	k := pairOf(f.SrcIP, f.DstIP)
	l := t.pairs[k]
	out := l[:0]
	for _, e := range l {
		if e.orig == f {
			t.n--
			continue
		}
		out = append(out, e)
	}
	clear(l[len(out):])
	if len(out) == 0 {
		delete(t.pairs, k)
	} else {
		t.pairs[k] = out
	}
}

// Len is the number of pending expectations.
func (t *Expectations) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// expected is AppLayerProtoDetectPEGetProto, tried once per direction after the patterns and
// probing parsers found nothing: a fitting expectation gives the protocol to both directions
// (AppLayerExpectationHandle sets alproto_ts and alproto_tc) and its data to the parser.
func (l *Layer) expected(f *flow.Flow, fa *flowApp, d Dir) Proto {
	if fa.peDone[d] || f == nil {
		return ProtoUnknown
	}
	fa.peDone[d] = true
	p, data := Expect.Handle(f, d, f.LastUnixNano/1e9)
	if p == ProtoUnknown || !l.cfg.Protocols[p].Enabled {
		return ProtoUnknown
	}
	fa.expected = data
	if fa.ProtoDir[1-d] == ProtoUnknown {
		fa.ProtoDir[1-d] = p
		fa.detected[1-d] = true
	}
	return p
}
