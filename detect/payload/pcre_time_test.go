package payload

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// catastrophic is the packet of issue #24: 1,459 'a' then '!', on which the nested
// quantifiers of the rules below backtrack exponentially and never match.
var catastrophic = []byte(strings.Repeat("a", 1459) + "!")

// alternation1300 is a catastrophic expression of 1,300 alternatives.
func alternation1300() string {
	alts := make([]string, 0, 1300)
	for i := range 1299 {
		alts = append(alts, fmt.Sprintf("x%d", i))
	}
	alts = append(alts, "a+")
	return `pcre:"/^(?:` + strings.Join(alts, "|") + `)+b(?=c)/";`
}

// budgetCases are the rule sets of issue #24 that each cost 200-206 ms per packet.
func budgetCases() map[string][]string {
	many := func(n int, opts string) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = opts
		}
		return s
	}
	var ten strings.Builder
	for i := range 10 {
		fmt.Fprintf(&ten, `pcre:"/^(a+)+b(?=c%d)/"; `, i)
	}
	return map[string][]string{
		"one rule":          {`pcre:"/^(a+)+b(?=c)/";`},
		"20 rules":          many(20, `pcre:"/^(a+)+b(?=c)/";`),
		"200 rules":         many(200, `pcre:"/^(a+)+b(?=c)/";`),
		"10 pcre in a rule": {ten.String()},
		"relative pcre":     {`content:"a"; pcre:"/(a+)+b(?=c)/R";`},
		"backreference":     {`pcre:"/^(a+)+\1b/";`},
		"1300 alternatives": {alternation1300()},
	}
}

// fastest returns the shortest of three runs of f. Timing tests take it so that a stall of the
// scheduler on a shared machine does not fail them; each run of the unbounded code they guard
// against took 130-300 ms.
func fastest(f func() time.Duration) time.Duration {
	d := f()
	for range 2 {
		d = min(d, f())
	}
	return d
}

// inspectPacket runs every program on buf as one packet and returns how long that took.
func inspectPacket(t *testing.T, progs []*Program, buf []byte, st *State) time.Duration {
	t.Helper()
	start := time.Now()
	st.StartPacket()
	for _, p := range progs {
		if p.Inspect(buf, st) {
			t.Fatal("a catastrophic expression matched")
		}
	}
	return time.Since(start)
}

// TestPCREPacketTimeBound: the README's promise of 100 ms of pcre per packet holds for every
// rule set of issue #24 (the issue asks for the packet to be inspected within 110 ms), and the
// evaluations cut short are counted as timeouts.
func TestPCREPacketTimeBound(t *testing.T) {
	for name, opts := range budgetCases() {
		t.Run(name, func(t *testing.T) {
			progs := make([]*Program, len(opts))
			for i, o := range opts {
				progs[i] = mustProgram(t, o)
				if !strings.Contains(strings.Join(progs[i].Engines(), ","), EngineRegexp2) {
					t.Fatalf("%s: not a regexp2 expression, it cannot backtrack", o)
				}
			}
			st := NewState()
			d := fastest(func() time.Duration { return inspectPacket(t, progs, catastrophic, st) })
			t.Logf("%v, %d timeouts, %d refused", d, st.PCRETimeouts, st.PCREBudgetHits)
			if d > 110*time.Millisecond {
				t.Errorf("packet inspected in %v, want within 110 ms", d)
			}
			if st.PCRETimeouts == 0 {
				t.Error("no pcre timeout counted")
			}
		})
	}
}

// TestPCRETwentyPackets: 20 catastrophic packets take at most 20 x 110 ms (issue #24: 4.02 s).
func TestPCRETwentyPackets(t *testing.T) {
	progs := []*Program{mustProgram(t, `pcre:"/^(a+)+b(?=c)/";`)}
	st := NewState()
	var total time.Duration
	for range 20 {
		total += inspectPacket(t, progs, catastrophic, st)
	}
	t.Logf("20 packets: %v", total)
	if total > 20*110*time.Millisecond {
		t.Errorf("20 packets inspected in %v, want within %v", total, 20*110*time.Millisecond)
	}
	if st.PCRETimeouts != 20 {
		t.Errorf("%d pcre timeouts counted, want 20 (one per packet)", st.PCRETimeouts)
	}
}

// TestPCREEvaluationTimeBound: one evaluation stops at about PCREMatchTimeout (the README's
// 50 ms; 10 ms are allowed for the clock and the scheduler), however much of the packet's
// budget is left.
func TestPCREEvaluationTimeBound(t *testing.T) {
	progs := []*Program{mustProgram(t, `pcre:"/^(a+)+b(?=c)/";`)}
	st := NewState()
	d := fastest(func() time.Duration { return inspectPacket(t, progs, catastrophic, st) })
	t.Logf("one evaluation: %v", d)
	if d > PCREMatchTimeout+10*time.Millisecond {
		t.Errorf("one evaluation took %v, want about %v", d, PCREMatchTimeout)
	}
	if st.PCRETimeouts != 3 {
		t.Errorf("%d timeouts counted in 3 packets, want 3", st.PCRETimeouts)
	}
}

// TestPCREEvaluationCappedByBudget: an evaluation may take only what is left of its packet's
// budget (10 ms are allowed for the clock and the scheduler).
func TestPCREEvaluationCappedByBudget(t *testing.T) {
	progs := []*Program{mustProgram(t, `pcre:"/^(a+)+b(?=c)/";`)}
	st := NewState()
	for _, left := range []time.Duration{5 * time.Millisecond, 20 * time.Millisecond, 35 * time.Millisecond} {
		took := fastest(func() time.Duration {
			st.StartPacket()
			st.rx.Spent = PCREPacketBudget - left
			return inspectOnce(t, progs, st)
		})
		t.Logf("%v left: %v", left, took)
		if took > left+10*time.Millisecond {
			t.Errorf("with %v of the budget left an evaluation took %v", left, took)
		}
	}
}

// TestPCRESharedAcrossBudgets: workers evaluating the same expression with different amounts
// of their packets' budgets left at once (so on different timeout copies of it) each get a
// timeout, no match and no data race (run with -race). Timing is not checked here: with more
// busy goroutines than CPUs, regexp2's clock goroutine waits for the scheduler.
func TestPCRESharedAcrossBudgets(t *testing.T) {
	progs := []*Program{mustProgram(t, `pcre:"/^(a+)+b(?=c)/";`)}
	var wg sync.WaitGroup
	states := make([]*State, 6)
	for i := range states {
		st := NewState()
		states[i] = st
		wg.Go(func() {
			for j := range 3 {
				st.StartPacket()
				st.rx.Spent = PCREPacketBudget - time.Duration(1+i*3+j)*time.Millisecond
				inspectOnce(t, progs, st)
			}
		})
	}
	wg.Wait()
	for i, st := range states {
		if st.PCRETimeouts != 3 {
			t.Errorf("worker %d: %d timeouts, want 3", i, st.PCRETimeouts)
		}
	}
}

// inspectOnce runs progs on the catastrophic packet without starting a new packet, and returns
// how long that took.
func inspectOnce(t *testing.T, progs []*Program, st *State) time.Duration {
	start := time.Now()
	for _, p := range progs {
		if p.Inspect(catastrophic, st) {
			t.Error("a catastrophic expression matched")
		}
	}
	return time.Since(start)
}
