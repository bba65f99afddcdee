package stream

// Seq is a TCP sequence number. Comparisons are modulo 2^32 (RFC 793 / RFC 1982): a raw `<`
// on sequence numbers breaks at wrap-around, so every comparison in this package goes through
// these methods.
type Seq uint32

// LT reports whether s comes before t.
func (s Seq) LT(t Seq) bool { return int32(s-t) < 0 }

// LEQ reports whether s comes before t or equals it.
func (s Seq) LEQ(t Seq) bool { return int32(s-t) <= 0 }

// GT reports whether s comes after t.
func (s Seq) GT(t Seq) bool { return int32(s-t) > 0 }

// GEQ reports whether s comes after t or equals it.
func (s Seq) GEQ(t Seq) bool { return int32(s-t) >= 0 }

// Add returns s advanced by n bytes.
func (s Seq) Add(n uint32) Seq { return s + Seq(n) }

// Diff returns the signed distance from t to s (s - t).
func (s Seq) Diff(t Seq) int32 { return int32(s - t) }

// InRange reports whether s lies in [lo, hi) modulo 2^32.
func (s Seq) InRange(lo, hi Seq) bool { return s.GEQ(lo) && s.LT(hi) }

// SeqMax returns the later of a and b.
func SeqMax(a, b Seq) Seq {
	if a.GT(b) {
		return a
	}
	return b
}

// SeqMin returns the earlier of a and b.
func SeqMin(a, b Seq) Seq {
	if a.LT(b) {
		return a
	}
	return b
}
