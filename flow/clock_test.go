package flow

import (
	"testing"
	"time"
)

// TestNextClockIsPacketsRule: the clock NextClock computes for a run of packets is the one a
// table fed the same packets keeps (Table.Packet applies the rule itself).
func TestNextClockIsPacketsRule(t *testing.T) {
	times := []time.Duration{0, 5 * time.Second, 3 * time.Second, 10 * time.Hour, 10*time.Hour - 30*time.Second,
		2 * time.Second, 2*time.Second + 59*time.Second, time.Second}
	tb := NewTable(testConfig(), 1024, 16)
	var clock int64
	for i, at := range times {
		p := udpPkt("10.0.0.1", "10.0.0.2", uint16(1000+i), 53, at)
		tb.Packet(p)
		clock = NextClock(clock, p.Timestamp.UnixNano())
		if tb.Now().UnixNano() != clock {
			t.Fatalf("packet %d at +%v: table clock %v, NextClock %v", i, at, tb.Now(), time.Unix(0, clock))
		}
	}
}

// TestExpireAllAfterJumpBack: after the clock has jumped back, a flow queued behind a flow
// still in time is out of deadline order; a sweep stops at the flow in time, ExpireAll
// (Suricata's flow manager walks its whole hash) ends it all the same.
func TestExpireAllAfterJumpBack(t *testing.T) {
	var ended []uint16
	cfg := testConfig()
	cfg.OnEnd = func(f *Flow) { ended = append(ended, f.SrcPort) }
	tb := NewTable(cfg, 1024, 16)
	tb.Packet(udpPkt("10.0.0.1", "10.0.0.2", 1, 53, 10*time.Hour)) // a later capture first
	tb.Packet(udpPkt("10.0.0.1", "10.0.0.2", 2, 53, 0))            // the clock jumps back
	tb.SetClock(t0.Add(time.Hour).UnixNano())                      // what a reader's clock says
	tb.ExpireAt(t0.Add(time.Hour))
	if len(ended) != 0 {
		t.Fatalf("a sweep ended %v; the test needs the flow in time at the head", ended)
	}
	tb.ExpireAll(t0.Add(time.Hour))
	if len(ended) != 1 || ended[0] != 2 {
		t.Errorf("ExpireAll ended %v, want the flow of port 2 (timed out at +30s, clock +1h)", ended)
	}
	if tb.Len() != 1 {
		t.Errorf("%d flows left, want the one still in time", tb.Len())
	}
}
