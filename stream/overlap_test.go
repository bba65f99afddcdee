package stream

import (
	"strings"
	"testing"
)

// overlapShapes: a new segment against a stored one at [10, 20).
var overlapShapes = []struct {
	name       string
	start, end int64
}{
	{"before-ends-inside", 5, 15},
	{"before-ends-same", 5, 20},
	{"before-ends-after", 5, 25},
	{"same-ends-inside", 10, 15},
	{"same-ends-same", 10, 20}, // exact duplicate
	{"same-ends-after", 10, 25},
	{"after-ends-inside", 12, 18},
	{"after-ends-same", 12, 20},
	{"after-ends-after", 12, 25},
}

// newWinsByPolicy: for each shape above, whether the new bytes win, written from the rules
// of suricata-stream-http.md §1.10 (and checked against DoHandleDataOverlap).
var newWinsByPolicy = map[Policy]string{
	PolicyLast:       "111111111",
	PolicyFirst:      "000000000",
	PolicyVista:      "000000000",
	PolicyBSD:        "111000000",
	PolicyHPUX10:     "111000000",
	PolicyIRIX:       "111000000",
	PolicyMacOS:      "111000000",
	PolicyWindows:    "111000000",
	PolicyWindows2k3: "111000000",
	PolicyLinux:      "111001000",
	PolicyOldLinux:   "111011000",
	PolicySolaris:    "011011001",
	PolicyHPUX11:     "011011001",
}

func TestNewDataWins(t *testing.T) {
	if len(newWinsByPolicy) != len(policyNames) {
		t.Fatalf("table covers %d policies, want %d", len(newWinsByPolicy), len(policyNames))
	}
	for p, want := range newWinsByPolicy {
		for i, sh := range overlapShapes {
			if got := newDataWins(p, sh.start, sh.end, 10, 20); got != (want[i] == '1') {
				t.Errorf("%v %s: new wins = %v, want %v", p, sh.name, got, !got)
			}
		}
	}
	if newDataWins(Policy(200), 5, 25, 10, 20) {
		t.Error("an unknown policy must keep the stored data (Suricata's default: old wins)")
	}
}

// TestInsertOverlapShapes stores "A"*10 at offset 10, then a segment of 'B's per shape, and
// checks the overlap bytes per policy; bytes of the new segment outside the stored one are
// always new.
func TestInsertOverlapShapes(t *testing.T) {
	for p, want := range newWinsByPolicy {
		for i, sh := range overlapShapes {
			pool := NewPool(0, 0)
			var r Reassembly
			r.Init(1000, 0)
			r.Insert(pool, 1010, []byte(strings.Repeat("A", 10)), InsertOptions{Policy: p})
			res := r.Insert(pool, Seq(1000+sh.start), []byte(strings.Repeat("B", int(sh.end-sh.start))), InsertOptions{Policy: p})
			if !res.Overlap {
				t.Errorf("%v %s: Overlap not set", p, sh.name)
			}
			if res.OverlapDiff {
				t.Errorf("%v %s: OverlapDiff without CheckOverlapDiff", p, sh.name)
			}
			got := string(view(&r, 25))
			wb := make([]byte, 25)
			for o := int64(0); o < 25; o++ {
				switch {
				case o >= sh.start && o < sh.end && (o < 10 || o >= 20 || want[i] == '1'):
					wb[o] = 'B'
				case o >= 10 && o < 20:
					wb[o] = 'A'
				}
			}
			if got != string(wb) {
				t.Errorf("%v %s: got %q, want %q", p, sh.name, got, wb)
			}
			wantSegs := 2
			if sh.name == "same-ends-same" {
				wantSegs = 1 // the duplicate keeps the stored record
			}
			if r.Segments() != wantSegs {
				t.Errorf("%v %s: %d segments, want %d", p, sh.name, r.Segments(), wantSegs)
			}
			r.Free(pool)
		}
	}
}

// TestOverlapSV: the reference's SV cases (eve-overlap-payload-01: shipped yaml, windows,
// keeps the old data; eve-overlap-payload-02-policy-oldlinux takes the new data) for a
// retransmission at the same sequence number with other bytes.
func TestOverlapSV(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want string
	}{{PolicyWindows, "GET /old"}, {PolicyOldLinux, "GET /new"}} {
		pool := NewPool(0, 0)
		var r Reassembly
		r.Init(1, 0)
		r.Insert(pool, 1, []byte("GET /old"), InsertOptions{Policy: tc.p})
		res := r.Insert(pool, 1, []byte("GET /new"), InsertOptions{Policy: tc.p, CheckOverlapDiff: true})
		if !res.Overlap || !res.OverlapDiff || res.Stored {
			t.Errorf("%v: %+v", tc.p, res)
		}
		if got := string(r.Bytes(0, 8, nil)); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.p, got, tc.want)
		}
	}
}
