package threshold

import (
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func pkt(src, dst string, sec float64) *decode.Packet {
	p := &decode.Packet{Timestamp: t0.Add(time.Duration(sec * float64(time.Second)))}
	if src != "" {
		p.SrcIP = netip.MustParseAddr(src)
		p.DstIP = netip.MustParseAddr(dst)
		p.IPVersion = 4
		if p.SrcIP.Is6() {
			p.IPVersion = 6
		}
	}
	return p
}

func mustRule(t testing.TB, text string) *rules.Rule {
	t.Helper()
	r, err := rules.Parse(text)
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return r
}

func mustEntries(t testing.TB, text string) []rules.ThresholdEntry {
	t.Helper()
	es, errs := rules.ParseThresholdConfig("threshold.config", strings.NewReader(text), nil)
	if len(errs) > 0 {
		t.Fatalf("threshold.config: %v", errs)
	}
	return es
}

// step is one full match of the rule: a packet (src, dst, time in seconds), the flow it belongs
// to (index into the test's flows, -1 for none) and the expected outcome.
type step struct {
	src, dst string
	sec      float64
	flow     int
	want     Decision
	action   string
}

func s(src, dst string, sec float64, want Decision) step {
	return step{src: src, dst: dst, sec: sec, flow: 0, want: want}
}

func sf(fl int, sec float64, want Decision) step {
	return step{src: "10.0.0.1", dst: "10.0.0.2", sec: sec, flow: fl, want: want}
}

func rate(sec float64, action string) step {
	return step{src: "10.0.0.1", dst: "10.0.0.2", sec: sec, want: Alert | RateFilterModified, action: action}
}

const (
	A = "10.0.0.1"
	B = "10.0.0.2"
	C = "10.0.0.3"
	D = "10.0.0.4"
)

const (
	N  = NoMatch
	AL = Alert
	S  = Suppress
)

func rule(opts string) string {
	return `alert tcp any any -> any any (msg:"x"; ` + opts + ` sid:1;)`
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name  string
		rule  string
		conf  string
		steps []step
	}{
		{"no rate settings", rule(""), "", []step{s(A, B, 0, AL), s(A, B, 0, AL)}},
		{"limit by_src", rule("threshold: type limit, track by_src, count 1, seconds 60;"), "", []step{
			s(A, B, 0, AL), s(A, C, 1, S), s(B, A, 2, AL), s(A, B, 60, S),
			s(A, B, 60.5, AL), s(A, B, 61, S), s(A, B, 120.5, S), s(A, B, 120.6, AL),
		}},
		{"limit by_src count 2", rule("threshold: type limit, track by_src, count 2, seconds 10;"), "", []step{
			s(A, B, 0, AL), s(A, B, 1, AL), s(A, B, 2, S), s(A, B, 3, S), s(A, B, 11, AL), s(A, B, 12, AL), s(A, B, 13, S),
		}},
		{"limit by_dst", rule("threshold: type limit, track by_dst, count 1, seconds 60;"), "", []step{
			s(A, B, 0, AL), s(C, B, 1, S), s(B, A, 2, AL), s(C, D, 3, AL), s(A, D, 4, S),
		}},
		{"limit by_rule", rule("threshold: type limit, track by_rule, count 2, seconds 10;"), "", []step{
			s(A, B, 0, AL), s(C, D, 1, AL), s(B, A, 2, S), s(D, C, 10, S), s(D, C, 10.5, AL), s(A, C, 11, AL), s(A, C, 12, S),
		}},
		{"limit by_both", rule("threshold: type limit, track by_both, count 1, seconds 60;"), "", []step{
			s(A, B, 0, AL), s(B, A, 1, S), s(A, C, 2, AL), s(C, A, 3, S), s(B, C, 4, AL),
		}},
		{"limit by_both ipv6", rule("threshold: type limit, track by_both, count 1, seconds 60;"), "", []step{
			s("2001:db8::2", "2001:db8::1", 0, AL), s("2001:db8::1", "2001:db8::2", 1, S),
		}},
		{"threshold by_src", rule("threshold: type threshold, track by_src, count 3, seconds 60;"), "", []step{
			s(A, B, 0, N), s(A, B, 1, N), s(B, A, 1, N), s(A, B, 2, AL), s(A, B, 3, N), s(A, B, 4, N), s(A, B, 5, AL),
			s(A, B, 100, N), s(A, B, 101, N), s(A, B, 102, AL),
		}},
		{"threshold count 1", rule("threshold: type threshold, track by_src, count 1, seconds 60;"), "", []step{
			s(A, B, 0, AL), s(A, B, 1, AL), s(A, B, 2, AL),
		}},
		{"threshold window", rule("threshold: type threshold, track by_dst, count 2, seconds 10;"), "", []step{
			// a match after the window starts a new count: the count is not carried over
			s(A, B, 0, N), s(A, B, 11, N), s(A, B, 12, AL),
		}},
		{"both by_dst", rule("threshold: type both, track by_dst, count 2, seconds 60;"), "", []step{
			s(A, B, 0, N), s(C, B, 1, AL), s(A, B, 2, S), s(A, B, 3, S), s(A, C, 3, N),
			s(A, B, 70, N), s(A, B, 71, AL), s(A, B, 72, S),
		}},
		{"both count 1", rule("threshold: type both, track by_src, count 1, seconds 10;"), "", []step{
			s(A, B, 0, AL), s(A, B, 1, S), s(A, B, 11, AL), s(A, B, 12, S),
		}},
		{"limit by_flow", rule("threshold: type limit, track by_flow, count 1, seconds 60;"), "", []step{
			sf(0, 0, AL), sf(0, 1, S), sf(1, 2, AL), sf(1, 3, S), sf(-1, 4, N), sf(0, 61, AL),
		}},
		{"backoff count 1 multiplier 2", rule("threshold: type backoff, track by_flow, count 1, multiplier 2;"), "", []step{
			sf(0, 0, AL), sf(0, 1, AL), sf(0, 2, S), sf(0, 3, AL), sf(0, 4, S), sf(0, 5, S), sf(0, 6, S),
			sf(0, 7, AL), sf(0, 8, S), sf(1, 9, AL),
		}},
		{"backoff count 3 multiplier 10", rule("threshold: type backoff, track by_flow, count 3, multiplier 10;"), "", []step{
			// before the count: the first match is no match, the next ones silent (ThresholdCheckUpdate)
			sf(0, 0, N), sf(0, 1, S), sf(0, 2, AL), sf(0, 3, S), sf(0, 1000, S),
		}},
		{"detection_filter by_src", rule("detection_filter: track by_src, count 2, seconds 60;"), "", []step{
			s(A, B, 0, N), s(A, B, 1, N), s(B, A, 1, N), s(A, C, 2, AL), s(A, B, 3, AL),
			s(A, B, 100, N), s(A, B, 101, N), s(A, B, 102, AL),
		}},
		{"detection_filter by_dst", rule("detection_filter: track by_dst, count 1, seconds 10;"), "", []step{
			s(A, B, 0, N), s(C, B, 1, AL), s(A, C, 1, N), s(A, B, 20, N), s(A, B, 21, AL),
		}},
		{"detection_filter by_flow", rule("detection_filter: track by_flow, count 1, seconds 10;"), "", []step{
			sf(0, 0, N), sf(1, 0, N), sf(0, 1, AL), sf(-1, 1, N),
		}},
		{"suppress by_src", rule(""), "suppress gen_id 1, sig_id 1, track by_src, ip 10.0.0.1\n", []step{
			s(A, B, 0, S), s(B, A, 0, AL), s(C, D, 0, AL),
		}},
		{"suppress by_dst list", rule(""), "suppress gen_id 1, sig_id 1, track by_dst, ip [10.0.0.1,10.0.0.3]\n", []step{
			s(B, A, 0, S), s(B, C, 0, S), s(A, B, 0, AL),
		}},
		{"suppress by_either", rule(""), "suppress gen_id 1, sig_id 1, track by_either, ip 10.0.0.0/31\n", []step{
			s(A, C, 0, S), s(C, A, 0, S), s(B, C, 0, AL),
		}},
		{"suppress other sid", rule(""), "suppress gen_id 1, sig_id 2\nsuppress gen_id 2, sig_id 0\n", []step{
			s(A, B, 0, AL),
		}},
		{"suppress whole rule", rule(""), "suppress gen_id 1, sig_id 1\n", []step{
			s(A, B, 0, S), s(B, A, 1, S), s("", "", 2, S),
		}},
		{"suppress gid 0 sid 0", rule(""), "suppress gen_id 0, sig_id 0, track by_src, ip 10.0.0.2\n", []step{
			s(B, A, 0, S), s(A, B, 0, AL),
		}},
		{"suppress gid", rule(""), "suppress gen_id 1, sig_id 0\n", []step{s(A, B, 0, S)}},
		{"suppress before threshold", rule("threshold: type limit, track by_rule, count 1, seconds 60;"),
			"suppress gen_id 1, sig_id 1, track by_src, ip 10.0.0.1\n", []step{
				// a suppressed match does not touch the threshold state
				s(A, B, 0, S), s(B, A, 1, AL), s(A, B, 2, S), s(B, A, 3, S),
			}},
		{"suppress whole rule with threshold", rule("threshold: type threshold, track by_src, count 2, seconds 60;"),
			"suppress gen_id 1, sig_id 1\n", []step{
				// thresholding still runs: no match stays no match, a match is not logged
				s(A, B, 0, N), s(A, B, 1, S), s(A, B, 2, N),
			}},
		{"non-IP packet", rule("threshold: type limit, track by_src, count 1, seconds 60;"), "", []step{
			s("", "", 0, AL), s("", "", 1, AL), s(A, B, 2, AL), s(A, B, 3, S),
		}},
		{"rate_filter", rule(""), "rate_filter gen_id 1, sig_id 1, track by_src, count 2, seconds 10, new_action drop, timeout 5\n", []step{
			s(A, B, 0, AL), s(A, B, 1, AL), rate(2, "drop"), rate(3, "drop"), s(B, A, 3, AL),
			rate(7.9, "drop"), // 7 - 2 = 5 is not past the timeout (whole seconds)
			s(A, B, 8, AL),    // 8 - 2 > 5: back to the rule's action
			s(A, B, 20, AL), s(A, B, 21, AL), rate(22, "drop"),
		}},
		{"rate_filter by_rule reject", rule(""), "rate_filter gen_id 1, sig_id 0, track by_rule, count 1, seconds 60, new_action reject, timeout 30\n", []step{
			s(A, B, 0, AL), {src: C, dst: D, sec: 1, want: AL | RateFilterModified, action: "reject"},
		}},
		{"rate_filter with whole-rule suppress", rule(""),
			"rate_filter gen_id 1, sig_id 1, track by_rule, count 1, seconds 60, new_action pass, timeout 30\nsuppress gen_id 1, sig_id 1\n", []step{
				s(A, B, 0, S), {src: A, dst: B, sec: 1, want: S | RateFilterModified, action: "pass"},
			}},
		{"config threshold replaces keyword", rule("threshold: type limit, track by_src, count 1, seconds 60;"),
			"threshold gen_id 1, sig_id 1, type threshold, track by_src, count 2, seconds 60\n", []step{
				s(A, B, 0, N), s(A, B, 1, AL), s(A, B, 2, N), s(A, B, 3, AL),
			}},
		{"event_filter replaces detection_filter", rule("detection_filter: track by_src, count 5, seconds 60;"),
			"event_filter gen_id 1, sig_id 1, type limit, track by_dst, count 1, seconds 60\n", []step{
				s(A, B, 0, AL), s(C, B, 1, S), s(A, C, 2, AL),
			}},
		{"later config threshold wins", rule(""),
			"threshold gen_id 1, sig_id 1, type limit, track by_src, count 1, seconds 60\nthreshold gen_id 1, sig_id 1, type limit, track by_src, count 3, seconds 60\n", []step{
				s(A, B, 0, AL), s(A, B, 1, AL), s(A, B, 2, AL), s(A, B, 3, S),
			}},
		{"keyword wins over global threshold", rule("threshold: type limit, track by_src, count 1, seconds 60;"),
			"threshold gen_id 0, sig_id 0, type threshold, track by_src, count 5, seconds 60\nthreshold gen_id 1, sig_id 0, type threshold, track by_src, count 5, seconds 60\n", []step{
				s(A, B, 0, AL), s(A, B, 1, S),
			}},
		{"global threshold applies", rule(""),
			"threshold gen_id 0, sig_id 0, type limit, track by_rule, count 1, seconds 60\n", []step{
				s(A, B, 0, AL), s(C, D, 1, S),
			}},
		{"keyword wins over rate_filter", rule("threshold: type limit, track by_src, count 1, seconds 60;"),
			"rate_filter gen_id 1, sig_id 1, track by_src, count 1, seconds 10, new_action drop, timeout 5\n", []step{
				s(A, B, 0, AL), s(A, B, 1, S), s(A, B, 2, S),
			}},
		{"detection_filter wins over rate_filter", rule("detection_filter: track by_src, count 1, seconds 60;"),
			"rate_filter gen_id 1, sig_id 1, track by_src, count 1, seconds 10, new_action drop, timeout 5\n", []step{
				s(A, B, 0, N), s(A, B, 1, AL), s(A, B, 2, AL),
			}},
		{"threshold after rate_filter replaces it", rule(""),
			"rate_filter gen_id 1, sig_id 1, track by_src, count 1, seconds 10, new_action drop, timeout 5\nthreshold gen_id 1, sig_id 1, type limit, track by_src, count 1, seconds 60\n", []step{
				s(A, B, 0, AL), s(A, B, 1, S),
			}},
		{"rate_filter after threshold ignored", rule(""),
			"threshold gen_id 1, sig_id 1, type limit, track by_src, count 2, seconds 60\nrate_filter gen_id 1, sig_id 1, track by_src, count 1, seconds 10, new_action drop, timeout 5\n", []step{
				s(A, B, 0, AL), s(A, B, 1, AL), s(A, B, 2, S),
			}},
		{"sid with gid 0 ignored", rule(""),
			"threshold gen_id 0, sig_id 1, type limit, track by_src, count 1, seconds 60\n", []step{
				s(A, B, 0, AL), s(A, B, 1, AL),
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var entries []rules.ThresholdEntry
			if tc.conf != "" {
				entries = mustEntries(t, tc.conf)
			}
			set := NewSet(Config{}, entries)
			if err := set.Add(0, mustRule(t, tc.rule)); err != nil {
				t.Fatal(err)
			}
			flows := []*flow.Flow{
				{Hash: 11, Start: t0},
				{Hash: 22, Start: t0.Add(time.Millisecond)},
			}
			for i, st := range tc.steps {
				var f *flow.Flow
				if st.flow >= 0 {
					f = flows[st.flow]
				}
				got, action := set.Decide(0, pkt(st.src, st.dst, st.sec), f)
				if got != st.want || action != st.action {
					t.Errorf("step %d (%s->%s at %gs): got %v %q, want %v %q", i, st.src, st.dst, st.sec, got, action, st.want, st.action)
				}
			}
		})
	}
}

func TestHasRate(t *testing.T) {
	set := NewSet(Config{}, mustEntries(t, "suppress gen_id 1, sig_id 3, track by_src, ip 1.2.3.4\nrate_filter gen_id 1, sig_id 4, track by_rule, count 1, seconds 1, new_action drop, timeout 1\n"))
	for i, r := range []string{
		`alert tcp any any -> any any (sid:1;)`,
		`alert tcp any any -> any any (threshold: type limit, track by_src, count 1, seconds 60; sid:2;)`,
		`alert tcp any any -> any any (sid:3;)`,
		`alert tcp any any -> any any (sid:4;)`,
		`alert tcp any any -> any any (detection_filter: track by_dst, count 1, seconds 6; sid:5;)`,
	} {
		if err := set.Add(uint32(i), mustRule(t, r)); err != nil {
			t.Fatal(err)
		}
	}
	want := []bool{false, true, true, true, true, false}
	for i, w := range want {
		if got := set.HasRate(uint32(i)); got != w {
			t.Errorf("HasRate(%d) = %v, want %v", i, got, w)
		}
	}
	if d, a := set.Decide(0, pkt(A, B, 0), nil); d != Alert || a != "" {
		t.Errorf("rule without rate: %v %q", d, a)
	}
	if d, _ := set.Decide(99, pkt(A, B, 0), nil); d != Alert {
		t.Errorf("unknown iid: %v", d)
	}
}

func TestAddErrors(t *testing.T) {
	set := NewSet(Config{}, nil)
	r := mustRule(t, `alert tcp any any -> any any (threshold: type backoff, track by_flow, count 1, multiplier 1; sid:1;)`)
	if err := set.Add(0, r); err == nil {
		t.Error("backoff multiplier 1 accepted")
	}
	r = mustRule(t, `alert tcp any any -> any any (sid:1;)`)
	r.Threshold = &rules.Threshold{Type: "limit", Track: "by_src", Count: 1, Seconds: 1}
	r.DetectionFilter = &rules.Threshold{Track: "by_src", Count: 1, Seconds: 1}
	if err := set.Add(0, r); err == nil {
		t.Error("threshold with detection_filter accepted")
	}
	r.DetectionFilter = nil
	r.Threshold.Type = "bogus"
	if err := set.Add(0, r); err == nil {
		t.Error("bad type accepted")
	}
}

func TestDecisionString(t *testing.T) {
	if got := (Suppress | RateFilterModified).String(); got != "suppress+rate_filter" {
		t.Error(got)
	}
	if (Alert|RateFilterModified).Result() != Alert || !(Alert | RateFilterModified).Modified() {
		t.Error("Result/Modified")
	}
}

func TestBoundedEviction(t *testing.T) {
	set := NewSet(Config{MaxEntries: 2}, nil)
	if err := set.Add(0, mustRule(t, rule("threshold: type limit, track by_src, count 1, seconds 60;"))); err != nil {
		t.Fatal(err)
	}
	steps := []step{
		s(A, D, 0, AL), s(B, D, 1, AL), s(A, D, 1.5, S), // A is now the most recent
		s(C, D, 2, AL), // table full, nothing expired: B (least recently used) is evicted
		s(A, D, 3, S),  // A kept
		s(B, D, 4, AL), // B forgotten: alerts again (evicts C)
	}
	for i, st := range steps {
		if got, _ := set.Decide(0, pkt(st.src, st.dst, st.sec), nil); got != st.want {
			t.Errorf("step %d: got %v want %v", i, got, st.want)
		}
	}
	st := set.Stats()
	if st.Entries != 2 || st.Evicted != 2 || st.Expired != 0 {
		t.Errorf("stats %+v", st)
	}
	// Past the windows a full table expires by time instead of evicting.
	if got, _ := set.Decide(0, pkt(D, A, 100), nil); got != AL {
		t.Errorf("after expiry: %v", got)
	}
	st = set.Stats()
	if st.Entries != 1 || st.Evicted != 2 || st.Expired != 2 {
		t.Errorf("stats %+v", st)
	}
	if n := set.Expire(t0.Add(1000 * time.Second)); n != 1 {
		t.Errorf("Expire = %d", n)
	}
	if st = set.Stats(); st.Entries != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestBoundedManyKeys(t *testing.T) {
	set := NewSet(Config{MaxEntries: 1000}, nil)
	if err := set.Add(0, mustRule(t, rule("threshold: type limit, track by_both, count 1, seconds 3600;"))); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20000; i++ {
		p := pkt("10.1.0.0", "10.2.0.0", float64(i)/100)
		p.SrcIP = netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		set.Decide(0, p, nil)
	}
	st := set.Stats()
	if st.Entries > 1000 || st.Entries < 900 {
		t.Errorf("entries %d not bounded near 1000", st.Entries)
	}
	if st.Evicted == 0 {
		t.Errorf("no eviction counted: %+v", st)
	}
}

func TestForgetFlowAndReuse(t *testing.T) {
	set := NewSet(Config{}, nil)
	if err := set.Add(0, mustRule(t, rule("threshold: type limit, track by_flow, count 1, seconds 600;"))); err != nil {
		t.Fatal(err)
	}
	f := &flow.Flow{Hash: 5, Start: t0}
	if d, _ := set.Decide(0, pkt(A, B, 0), f); d != AL {
		t.Fatal(d)
	}
	if d, _ := set.Decide(0, pkt(A, B, 1), f); d != S {
		t.Fatal(d)
	}
	set.ForgetFlow(f)
	if st := set.Stats(); st.Entries != 0 {
		t.Fatalf("after ForgetFlow: %+v", st)
	}
	if d, _ := set.Decide(0, pkt(A, B, 2), f); d != AL {
		t.Fatal(d)
	}
	// The same flow slot reused for another flow (no ForgetFlow): a fresh entry.
	*f = flow.Flow{Hash: 5, Start: t0.Add(3 * time.Second)}
	if d, _ := set.Decide(0, pkt(A, B, 3), f); d != AL {
		t.Fatal(d)
	}
	if d, _ := set.Decide(0, pkt(A, B, 4), f); d != S {
		t.Fatal(d)
	}
}

func TestConcurrent(t *testing.T) {
	const bound = 20000
	set := NewSet(Config{MaxEntries: bound}, mustEntries(t, "suppress gen_id 1, sig_id 3, track by_src, ip 10.9.0.0/16\n"))
	texts := []string{
		rule("threshold: type limit, track by_rule, count 10, seconds 1000;"),
		`alert tcp any any -> any any (threshold: type limit, track by_src, count 1, seconds 1; sid:2;)`,
		`alert tcp any any -> any any (detection_filter: track by_dst, count 3, seconds 5; sid:3;)`,
		`alert tcp any any -> any any (threshold: type backoff, track by_flow, count 1, multiplier 2; sid:4;)`,
	}
	for i, r := range texts {
		if err := set.Add(uint32(i), mustRule(t, r)); err != nil {
			t.Fatal(err)
		}
	}
	var alerts atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			f := &flow.Flow{Hash: uint32(w), Start: t0}
			for i := 0; i < 2000; i++ {
				p := pkt(A, B, float64(i)/10)
				p.SrcIP = netip.AddrFrom4([4]byte{10, byte(w), byte(i >> 8), byte(i)})
				if d, _ := set.Decide(0, p, f); d == Alert {
					alerts.Add(1)
				}
				for iid := uint32(1); iid < 4; iid++ {
					set.Decide(iid, p, f)
				}
				if i%500 == 0 {
					set.Expire(p.Timestamp)
				}
			}
			set.ForgetFlow(f)
		}(w)
	}
	wg.Wait()
	if n := alerts.Load(); n != 10 {
		t.Errorf("by_rule limit 10 gave %d alerts", n)
	}
	if st := set.Stats(); st.Entries > bound {
		t.Errorf("table over bound: %+v", st)
	}
}

func TestAllocs(t *testing.T) {
	set := NewSet(Config{}, nil)
	for i, r := range []string{
		`alert tcp any any -> any any (sid:1;)`,
		`alert tcp any any -> any any (threshold: type limit, track by_both, count 1, seconds 60; sid:2;)`,
		`alert tcp any any -> any any (threshold: type backoff, track by_flow, count 1, multiplier 2; sid:3;)`,
	} {
		if err := set.Add(uint32(i), mustRule(t, r)); err != nil {
			t.Fatal(err)
		}
	}
	p := pkt("2001:db8::1", "2001:db8::2", 0)
	f := &flow.Flow{Hash: 1, Start: t0}
	set.Decide(1, p, f)
	set.Decide(2, p, f)
	for iid := uint32(0); iid < 3; iid++ {
		if n := testing.AllocsPerRun(100, func() { set.Decide(iid, p, f) }); n != 0 {
			t.Errorf("rule %d: %v allocations per Decide", iid, n)
		}
	}
}

func BenchmarkDecideTracked(b *testing.B) {
	set := NewSet(Config{}, nil)
	if err := set.Add(0, mustRule(b, rule("threshold: type limit, track by_src, count 1, seconds 60;"))); err != nil {
		b.Fatal(err)
	}
	p := pkt(A, B, 0)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			set.Decide(0, p, nil)
		}
	})
}
