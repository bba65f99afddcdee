package flow

import (
	"time"
	"unsafe"

	"github.com/meerkat-ids/meerkat/decode"
)

// Timeouts are the per-state flow timeouts of one protocol (suricata.yaml `flow-timeouts`).
type Timeouts struct {
	New, Established, Closed                            time.Duration
	EmergencyNew, EmergencyEstablished, EmergencyClosed time.Duration
}

// Config sets up a Table.
type Config struct {
	// MaxFlows bounds the table (derived from flow.memcap by the caller; see FlowSize).
	MaxFlows int
	// TCP, UDP, ICMP and Default are the timeouts per protocol.
	TCP, UDP, ICMP, Default Timeouts
	// VLANTracking keys flows by VLAN ids too (vlan.use-for-tracking).
	VLANTracking bool
	// Midstream lets a TCP session start on any packet, not only on a SYN.
	Midstream bool
	// ExternalTCP leaves TCP session tracking to the stream engine: the table keeps counters,
	// direction and timeouts, and the stream engine sets the TCP state (SetTCPState), the
	// packet's established flag (SetPacketEstablished), then calls Refresh.
	ExternalTCP bool
	// OnEnd is called for every flow that ends (timeout, shutdown), before it is recycled.
	// The Flow must not be kept after the call returns.
	OnEnd func(f *Flow)
	// Defer, when set, is asked about every ending flow; true keeps the flow (out of the
	// index, with its slot) until FinishEnded, which calls OnEnd then recycles it. The stream
	// engine's flow-end pseudo packets run there, after the packet being handled, so they do
	// not run in the middle of it.
	Defer func(f *Flow) bool
	// Reuse, when set, is asked about a TCP packet that found its flow: true ends that flow
	// with reason tcp_reuse and starts a new one with the packet (Suricata's
	// TcpSessionPacketSsnReuse: a new SYN on a closed session).
	Reuse func(f *Flow, p *decode.Packet, dir Direction) bool
}

// FlowSize is the memory one flow accounts for against flow.memcap.
const FlowSize = int(unsafe.Sizeof(Flow{})) + 64

// Counters are the flow table's statistics, named as Suricata's `flow.*` counters.
type Counters struct {
	Total, TCP, UDP, ICMPv4, ICMPv6, Other uint64
	Memcap                                 uint64 // packets that found no room for a new flow
	TimedOut                               uint64
	Active                                 uint64
	TCPReuse                               uint64
}

// Add merges o into c.
func (c *Counters) Add(o *Counters) {
	c.Total += o.Total
	c.TCP += o.TCP
	c.UDP += o.UDP
	c.ICMPv4 += o.ICMPv4
	c.ICMPv6 += o.ICMPv6
	c.Other += o.Other
	c.Memcap += o.Memcap
	c.TimedOut += o.TimedOut
	c.Active += o.Active
	c.TCPReuse += o.TCPReuse
}

// Each yields the counters with Suricata's stats names.
func (c *Counters) Each(fn func(name string, v uint64)) {
	fn("flow.total", c.Total)
	fn("flow.active", c.Active)
	fn("flow.tcp", c.TCP)
	fn("flow.udp", c.UDP)
	fn("flow.icmpv4", c.ICMPv4)
	fn("flow.icmpv6", c.ICMPv6)
	fn("flow.tcp_reuse", c.TCPReuse)
	fn("flow.memcap", c.Memcap)
	fn("flow.end.timeout", c.TimedOut)
}

// Table is one worker's flow table.
type Table struct {
	cfg      Config
	flows    index
	free     []*Flow
	now      int64 // latest packet time seen, Unix nanoseconds
	nextScan int64
	lists    [12]flowList
	last     *Flow   // the flow of the previous packet
	ending   []*Flow // flows ended and kept by Config.Defer until FinishEnded
	// slots is how many Flows the table has allocated (the next slot); serial numbers the
	// flows it has started.
	slots    uint32
	serial   uint64
	Counters Counters
}

// sweepInterval is how often, in packet time, the table looks for timed-out flows.
const sweepInterval = time.Second

// timeJumpBack is how far back a packet's time may lie behind the latest one before the table
// takes it as the start of another capture rather than a late packet.
const timeJumpBack = time.Minute

// NewTable returns an empty table with room for hashSize flows before its map grows and
// prealloc flows allocated up front (suricata.yaml flow.hash-size and flow.prealloc), so that
// the first flows of a run do not allocate.
func NewTable(cfg Config, hashSize, prealloc int) *Table {
	if cfg.MaxFlows <= 0 {
		cfg.MaxFlows = 1 << 16
	}
	hashSize = min(max(hashSize, 1024), cfg.MaxFlows, 1<<20)
	prealloc = min(max(prealloc, 0), cfg.MaxFlows, 1<<20)
	t := &Table{cfg: cfg, flows: newIndex(hashSize)}
	if prealloc > 0 {
		block := make([]Flow, prealloc)
		t.free = make([]*Flow, prealloc, cfg.MaxFlows)
		for i := range block {
			block[i].slot = t.slots
			t.slots++
			t.free[i] = &block[i]
		}
	}
	return t
}

// Len returns the number of flows in the table.
func (t *Table) Len() int { return t.flows.n }

// Now returns the latest packet time the table has seen.
func (t *Table) Now() time.Time { return time.Unix(0, t.now) }

// KeyOf builds the direction-independent key of a decoded packet. ok is false for packets that
// do not belong to a flow (no IP header, fragments, ICMPv4 error messages, transport headers
// that failed to decode).
func (t *Table) KeyOf(p *decode.Packet) (k Key, ok bool) {
	if !t.wantsFlow(p) {
		return k, false
	}
	return t.key(p), true
}

// wantsFlow reports whether p gets a flow at all.
func (t *Table) wantsFlow(p *decode.Packet) bool {
	if p.IPVersion == 0 || p.IsFragment {
		return false
	}
	switch p.IPProto {
	case decode.ProtoTCP, decode.ProtoUDP, decode.ProtoSCTP, decode.ProtoICMPv6:
		// Like Suricata, these get a flow only once their header decoded cleanly.
		return p.HasL4
	case decode.ProtoICMP:
		return p.HasL4 && !isICMPv4Error(p.ICMPType)
	}
	return true
}

func (t *Table) key(p *decode.Packet) (k Key) {
	var sp, dp uint16
	if p.HasPorts() {
		sp, dp = p.SrcPort, p.DstPort
	}
	k.Proto = p.IPProto
	if t.cfg.VLANTracking {
		k.VLAN = p.VLAN
	}
	k.Family = p.IPVersion
	src, dst := p.SrcIP.As16(), p.DstIP.As16()
	if less(&src, sp, &dst, dp) {
		k.LoAddr, k.LoPort, k.HiAddr, k.HiPort = src, sp, dst, dp
	} else {
		k.LoAddr, k.LoPort, k.HiAddr, k.HiPort = dst, dp, src, sp
	}
	return k
}

func less(a *[16]byte, ap uint16, b *[16]byte, bp uint16) bool {
	for i := 0; i < 16; i += 8 {
		x, y := be64(a[i:]), be64(b[i:])
		if x != y {
			return x < y
		}
	}
	return ap < bp
}

func be64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[7]) | uint64(b[6])<<8 | uint64(b[5])<<16 | uint64(b[4])<<24 |
		uint64(b[3])<<32 | uint64(b[2])<<40 | uint64(b[1])<<48 | uint64(b[0])<<56
}

func isICMPv4Error(typ uint8) bool {
	switch typ {
	case 3, 4, 5, 11, 12:
		return true
	}
	return false
}

// Packet finds or creates the flow of p, updates its counters and state, and returns it with the
// packet's direction. It returns nil for packets without a flow (no IP, ICMP errors, or the
// table is full even after evicting timed-out flows).
func (t *Table) Packet(p *decode.Packet) (*Flow, Direction) {
	ts := p.Timestamp.UnixNano()
	if ts > t.now || t.now-ts > int64(timeJumpBack) {
		// Time moves forward with the packets. A jump far back means another capture started
		// (a directory of captures): follow it, or every new flow would look timed out.
		t.now = ts
		if t.nextScan > ts+int64(sweepInterval) {
			t.nextScan = ts
		}
	}
	if t.now >= t.nextScan {
		t.sweep(false)
		t.nextScan = t.now + int64(sweepInterval)
	}
	if !t.wantsFlow(p) {
		return nil, ToServer
	}
	// Packets of one flow often come in runs: check the previous packet's flow before
	// building and hashing the key.
	if f := t.last; f != nil && t.now <= f.timeoutAt && t.samePacketFlow(f, p) && !t.reused(f, p) {
		dir := f.direction(p)
		f.update(p, ts, dir, &t.cfg)
		f.timeoutAt = f.LastUnixNano + int64(t.timeout(f, false))
		t.touch(f)
		return f, dir
	}
	k := t.key(p)
	h := hashKey(&k)
	f := t.flows.find(h, &k)
	if f != nil && t.now > f.timeoutAt {
		// The flow timed out before this packet; a sweep just has not run yet. End it here so
		// the result does not depend on when sweeps happen.
		t.expire(f)
		f = nil
	}
	if f != nil && t.reused(f, p) {
		f.EndReason = EndTCPReuse
		f.Ended = time.Unix(0, t.now)
		t.Counters.TCPReuse++
		t.end(f)
		f = nil
	}
	if f == nil {
		if t.flows.n >= t.cfg.MaxFlows {
			t.sweep(true)
			if t.flows.n >= t.cfg.MaxFlows {
				t.Counters.Memcap++
				return nil, ToServer
			}
		}
		f = t.newFlow(k, h, p)
		t.flows.insert(f)
	}
	dir := f.direction(p)
	f.update(p, ts, dir, &t.cfg)
	f.timeoutAt = f.LastUnixNano + int64(t.timeout(f, false))
	t.touch(f)
	t.last = f
	return f, dir
}

// reused reports whether the TCP packet p starts a new session on f's tuple (Config.Reuse);
// only a SYN can.
func (t *Table) reused(f *Flow, p *decode.Packet) bool {
	return t.cfg.Reuse != nil && p.TCPFlags&decode.TCPFlagSYN != 0 && f.Proto == decode.ProtoTCP &&
		p.IsTCP() && t.cfg.Reuse(f, p, f.direction(p))
}

// samePacketFlow reports whether p belongs to f, comparing the packet's tuple with the flow's
// in either direction: what comparing keys decides, without building the key.
func (t *Table) samePacketFlow(f *Flow, p *decode.Packet) bool {
	if p.IPProto != f.Proto || t.cfg.VLANTracking && p.VLAN != f.VLAN {
		return false
	}
	var sp, dp uint16
	if p.HasPorts() {
		sp, dp = p.SrcPort, p.DstPort
	}
	return p.SrcIP == f.SrcIP && p.DstIP == f.DstIP && sp == f.SrcPort && dp == f.DstPort ||
		p.SrcIP == f.DstIP && p.DstIP == f.SrcIP && sp == f.DstPort && dp == f.SrcPort
}

func (t *Table) newFlow(k Key, h uint32, p *decode.Packet) *Flow {
	if len(t.free) == 0 {
		t.refill()
	}
	n := len(t.free)
	f := t.free[n-1]
	t.free = t.free[:n-1]
	slot := f.slot
	*f = Flow{}
	t.serial++
	f.slot, f.serial = slot, t.serial
	f.Key = k
	f.Hash = h
	f.SrcIP, f.DstIP = p.SrcIP, p.DstIP
	if p.HasPorts() {
		f.SrcPort, f.DstPort = p.SrcPort, p.DstPort
	}
	f.Proto = p.IPProto
	f.IPv = p.IPVersion
	f.VLAN = p.VLAN
	f.VLANs = p.VLANCount
	f.Start = p.Timestamp
	f.LastUnixNano = p.Timestamp.UnixNano()
	if p.HasL4 && (p.IPProto == decode.ProtoICMP || p.IPProto == decode.ProtoICMPv6) {
		f.ICMPType, f.ICMPCode = p.ICMPType, p.ICMPCode
	}
	t.Counters.Total++
	t.Counters.Active++
	switch p.IPProto {
	case decode.ProtoTCP:
		t.Counters.TCP++
	case decode.ProtoUDP:
		t.Counters.UDP++
	case decode.ProtoICMP:
		t.Counters.ICMPv4++
	case decode.ProtoICMPv6:
		t.Counters.ICMPv6++
	default:
		t.Counters.Other++
	}
	return f
}

// flowBlock is how many flows the table allocates at once when its free list runs dry, so a
// growing table costs one allocation per block rather than one per flow.
const flowBlock = 256

func (t *Table) refill() {
	n := min(flowBlock, max(t.cfg.MaxFlows-t.flows.n, 1))
	block := make([]Flow, n)
	for i := range block {
		block[i].slot = t.slots
		t.slots++
		t.free = append(t.free, &block[i])
	}
}

// direction follows Suricata's FlowGetPacketDirection: ports decide when they differ,
// addresses otherwise.
func (f *Flow) direction(p *decode.Packet) Direction {
	if p.HasPorts() && f.Proto != decode.ProtoICMP && f.Proto != decode.ProtoICMPv6 {
		if p.SrcPort != p.DstPort {
			if p.SrcPort == f.SrcPort {
				return ToServer
			}
			return ToClient
		}
	}
	if p.SrcIP == f.SrcIP {
		return ToServer
	}
	return ToClient
}

func (f *Flow) update(p *decode.Packet, ts int64, dir Direction, cfg *Config) {
	if ts > f.LastUnixNano {
		f.LastUnixNano = ts
	}
	n := uint64(len(p.Data))
	icmpErr := p.IPProto == decode.ProtoICMP && p.HasL4 && isICMPv4Error(p.ICMPType)
	f.pktFlowStart = false
	if dir == ToServer {
		f.PktsToServer++
		f.BytesToServer += n
		if !icmpErr && !f.SeenToServer {
			f.SeenToServer = true
			f.pktFlowStart = true
		}
	} else {
		if f.PktsToClient == 0 && p.HasL4 && (p.IPProto == decode.ProtoICMP || p.IPProto == decode.ProtoICMPv6) {
			f.RespICMPType, f.RespICMPCode = p.ICMPType, p.ICMPCode
		}
		f.PktsToClient++
		f.BytesToClient += n
		if !icmpErr && !f.SeenToClient {
			f.SeenToClient = true
			f.pktFlowStart = true
		}
	}
	if f.Proto == decode.ProtoTCP {
		if cfg.ExternalTCP {
			return // the stream engine decides the TCP state and the established flag
		}
		// As in Suricata, "established" is decided before the stream engine sees the packet:
		// the ACK that completes the handshake is not established yet, unless it carries data.
		f.pktEstablished = f.State == StateEstablished || f.TCP.Session && f.TCP.State >= TCPEstablished
		// A packet of a dropped flow never reaches the stream engine (FlowWorker skips it).
		if p.IsTCP() && !p.L4ChecksumBad && f.Action != ActionDrop {
			before := f.TCP.State
			f.trackTCP(p, dir, cfg.Midstream)
			if before == TCPSynRecv && f.TCP.State >= TCPEstablished && len(p.Payload) > 0 {
				f.pktEstablished = true
			}
		}
		return
	}
	if f.State == StateNew && f.SeenToServer && f.SeenToClient {
		f.State = StateEstablished
	}
	f.pktEstablished = f.State == StateEstablished
}

// ActionName is the flow record's flow.action: "drop", else "accept" for a firewall
// accept:flow, else "pass", else "".
func (f *Flow) ActionName() string {
	switch {
	case f.Action == ActionDrop:
		return "drop"
	case f.Accept:
		return "accept"
	}
	return f.Action.String()
}

// PacketFlowStart reports whether the packet just accounted to f is the first one seen in its
// direction (Suricata's flow_start packet hook; ICMP errors do not count).
func (f *Flow) PacketFlowStart() bool { return f.pktFlowStart }

// PacketEstablished reports whether the packet just accounted to f counts as established for
// the `flow` keyword (Suricata's FLOW_PKT_ESTABLISHED).
func (f *Flow) PacketEstablished() bool { return f.pktEstablished }

func (t *Table) timeout(f *Flow, emergency bool) time.Duration {
	var to *Timeouts
	switch f.Proto {
	case decode.ProtoTCP:
		to = &t.cfg.TCP
	case decode.ProtoUDP:
		to = &t.cfg.UDP
	case decode.ProtoICMP, decode.ProtoICMPv6:
		to = &t.cfg.ICMP
	default:
		to = &t.cfg.Default
	}
	switch f.State {
	case StateEstablished:
		if emergency {
			return to.EmergencyEstablished
		}
		return to.Established
	case StateClosed:
		if emergency {
			return to.EmergencyClosed
		}
		return to.Closed
	}
	if emergency {
		return to.EmergencyNew
	}
	return to.New
}

// sweep ends the flows whose timeout passed. In an emergency (table full) the shorter
// emergency timeouts apply.
//
// Flows sit in one list per (protocol, state) class, in the order they were queued, and a
// packet does not move its flow in the list (that would touch two neighbours' memory on every
// packet). Within a class the timeout is the same for every flow, so a flow's deadline only
// moves later; the sweep therefore looks at the head: expired flows end, flows whose deadline
// moved since they were queued go to the tail with their new deadline, and the first flow
// still in time, queued with its current deadline, stops the walk.
func (t *Table) sweep(emergency bool) {
	for c := range t.lists {
		l := &t.lists[c]
		for f := l.head; f != nil; f = l.head {
			deadline := f.timeoutAt
			if emergency {
				deadline = f.LastUnixNano + int64(t.timeout(f, true))
			}
			if t.now > deadline {
				if emergency {
					f.timeoutAt = deadline
				}
				t.expire(f)
				continue
			}
			if f.queuedDeadline == f.timeoutAt {
				break
			}
			l.remove(f)
			f.queuedDeadline = f.timeoutAt
			l.pushBack(f)
		}
	}
}

// flowList is an intrusive doubly linked list of flows, oldest activity first.
type flowList struct{ head, tail *Flow }

func (l *flowList) remove(f *Flow) {
	if f.prev != nil {
		f.prev.next = f.next
	} else {
		l.head = f.next
	}
	if f.next != nil {
		f.next.prev = f.prev
	} else {
		l.tail = f.prev
	}
	f.prev, f.next = nil, nil
}

func (l *flowList) pushBack(f *Flow) {
	f.prev, f.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = f
	} else {
		l.head = f
	}
	l.tail = f
}

// timeoutClass numbers the (protocol group, state) pairs that share one timeout.
func timeoutClass(f *Flow) uint8 {
	var g uint8
	switch f.Proto {
	case decode.ProtoTCP:
		g = 0
	case decode.ProtoUDP:
		g = 1
	case decode.ProtoICMP, decode.ProtoICMPv6:
		g = 2
	default:
		g = 3
	}
	return g*3 + uint8(f.State)
}

// Refresh recomputes f's timeout after the stream engine changed its state (ExternalTCP):
// the flow table computed it before the stream engine saw the packet.
func (t *Table) Refresh(f *Flow) {
	f.timeoutAt = f.LastUnixNano + int64(t.timeout(f, false))
	t.touch(f)
}

// touch keeps f in the list of its timeout class after a packet: a new flow, or one whose
// state changed class, is queued at the tail; otherwise nothing moves (see sweep).
func (t *Table) touch(f *Flow) {
	c := timeoutClass(f)
	if f.listed && c == f.class {
		return
	}
	if f.listed {
		t.lists[f.class].remove(f)
	}
	f.class = c
	f.listed = true
	f.queuedDeadline = f.timeoutAt
	t.lists[c].pushBack(f)
}

func (t *Table) expire(f *Flow) {
	f.EndReason = EndTimeout
	f.Ended = time.Unix(0, f.timeoutAt)
	t.Counters.TimedOut++
	t.end(f)
}

// ExpireAt moves the table's clock to now (when later than what it has seen) and ends every
// flow whose timeout has passed. The pipeline calls it at the end of a capture with the time
// of the last packet of the whole capture, so every worker ends its flows at the same time.
func (t *Table) ExpireAt(now time.Time) {
	if ns := now.UnixNano(); ns > t.now {
		t.now = ns
	}
	t.sweep(false)
}

func (t *Table) end(f *Flow) {
	if t.last == f {
		t.last = nil
	}
	if f.listed {
		t.lists[f.class].remove(f)
		f.listed = false
	}
	t.flows.remove(f)
	t.Counters.Active--
	if t.cfg.Defer != nil && t.cfg.Defer(f) {
		t.ending = append(t.ending, f)
		return
	}
	if t.cfg.OnEnd != nil {
		t.cfg.OnEnd(f)
	}
	t.free = append(t.free, f)
}

// Ending reports whether flows ended and wait for FinishEnded (Config.Defer).
func (t *Table) Ending() bool { return len(t.ending) > 0 }

// FinishEnded ends the flows Config.Defer kept: OnEnd, then recycling, in the order they ended.
func (t *Table) FinishEnded() {
	for i := 0; i < len(t.ending); i++ {
		f := t.ending[i]
		t.ending[i] = nil
		if t.cfg.OnEnd != nil {
			t.cfg.OnEnd(f)
		}
		t.free = append(t.free, f)
	}
	t.ending = t.ending[:0]
}

// Shutdown ends every flow left in the table with reason "shutdown", as Suricata does at the
// end of a capture.
func (t *Table) Shutdown() {
	t.flows.each(func(f *Flow) {
		f.EndReason = EndShutdown
		f.Ended = time.Unix(0, t.now)
		t.end(f)
	})
}

// hashKey hashes the key (already direction-independent, so both directions hash alike). It
// feeds the index and the flow_id, and is deterministic so runs are reproducible. The words
// are multiplied by independent odd constants and combined before one final mix, so the
// multiplications run in parallel instead of in a chain.
func hashKey(k *Key) uint32 {
	a, b := &k.LoAddr, &k.HiAddr
	h := le64(a[0:])*0x9e3779b97f4a7c15 ^ le64(a[8:])*0xc2b2ae3d27d4eb4f ^
		le64(b[0:])*0x165667b19e3779f9 ^ le64(b[8:])*0xd6e8feb86659fd93 ^
		(uint64(k.LoPort)<<40|uint64(k.HiPort)<<24|uint64(k.Proto)<<8|uint64(k.Family))*0xff51afd7ed558ccd ^
		(uint64(k.VLAN[0])<<32|uint64(k.VLAN[1])<<16|uint64(k.VLAN[2]))*0xc4ceb9fe1a85ec53
	h ^= h >> 32
	h *= 0x9e3779b97f4a7c15
	return uint32(h >> 32)
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
