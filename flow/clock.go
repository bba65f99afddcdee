package flow

import "time"

// NextClock returns the table clock after a packet at ts (Unix nanoseconds) when the clock
// read now: time moves forward with the packets, and a packet far behind it (more than
// timeJumpBack) starts another capture, whose time the clock follows back. It is the rule
// Table.Packet applies; a reader that spreads packets over several tables computes with it
// the one clock that a single table fed every packet would have (see SetClock).
func NextClock(now, ts int64) int64 {
	if ts > now || now-ts > int64(timeJumpBack) {
		return ts
	}
	return now
}

// JumpsBack reports whether a packet at ts, read when the clock says now, moves the clock
// back (another capture of a directory starts earlier than the previous one ended).
func JumpsBack(now, ts int64) bool { return now-ts > int64(timeJumpBack) }

// SetClock sets the table's clock to now (Unix nanoseconds), forward or back, as NextClock
// computed it for the packet the table handles next. Suricata times a flow out by the packet
// clock of the thread that owns it (flow-manager.c FlowManagerFlowTimeout, flow-hash.c
// FlowIsTimedOut); with one packet thread that clock is every packet's. A worker that sees
// only its share of the packets is given that clock here, so the flows it keeps, times out
// and reuses are the single-threaded run's.
func (t *Table) SetClock(now int64) {
	if now < t.now && t.nextScan > now+int64(sweepInterval) {
		t.nextScan = now
	}
	t.now = now
}

// ExpireAll moves the clock to now (when later than what it has seen) and ends every flow
// whose timeout has passed, walking the whole table as Suricata's flow manager walks its
// hash. Sweeps stop at the first flow still in time in each timeout class, which finds every
// expired flow only while packet time runs forward; once a capture's clock has jumped back
// the classes are out of order, so a jump back and the end of a capture use this full walk.
func (t *Table) ExpireAll(now time.Time) {
	if ns := now.UnixNano(); ns > t.now {
		t.now = ns
	}
	t.flows.each(func(f *Flow) {
		if t.now > f.timeoutAt {
			t.expire(f)
		}
	})
}
