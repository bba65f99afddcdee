package candidates

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// collect returns the set's contents three ways (ForEach, All, Next) and fails if they differ.
func collect(t *testing.T, s *Set) []int {
	t.Helper()
	var a, b, c []int
	s.ForEach(func(iid int) bool { a = append(a, iid); return true })
	for iid := range s.All() {
		b = append(b, iid)
	}
	for i, ok := s.Next(0); ok; i, ok = s.Next(i + 1) {
		c = append(c, i)
	}
	if !slices.Equal(a, b) || !slices.Equal(a, c) {
		t.Fatalf("ForEach %v, All %v, Next %v differ", a, b, c)
	}
	if d := s.AppendTo(nil); !slices.Equal(a, d) {
		t.Fatalf("ForEach %v, AppendTo %v differ", a, d)
	}
	return a
}

func TestTable(t *testing.T) {
	tests := []struct {
		name string
		n    int
		adds []int
		want []int
	}{
		{"empty", 10, nil, nil},
		{"zero size", 0, nil, nil},
		{"one", 1, []int{0, 0}, []int{0}},
		{"dups and order", 200, []int{150, 3, 64, 3, 63, 150, 0, 199}, []int{0, 3, 63, 64, 150, 199}},
		{"word edges", 129, []int{128, 127, 64, 65, 63}, []int{63, 64, 65, 127, 128}},
		{"far apart", 100000, []int{99999, 0, 4096, 4095, 50000}, []int{0, 4095, 4096, 50000, 99999}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.n)
			for gen := 0; gen < 3; gen++ {
				s.Reset()
				if !s.Empty() || s.Len() != 0 {
					t.Fatalf("not empty after Reset")
				}
				for _, id := range tc.adds {
					s.Add(id)
				}
				got := collect(t, s)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
				if s.Len() != len(tc.want) || s.Empty() != (len(tc.want) == 0) {
					t.Fatalf("Len %d Empty %v, want %d", s.Len(), s.Empty(), len(tc.want))
				}
				for _, id := range tc.want {
					if !s.Has(id) {
						t.Fatalf("Has(%d) false", id)
					}
				}
				if s.Has(-1) || s.Has(tc.n) {
					t.Fatalf("Has out of range true")
				}
			}
		})
	}
}

func TestNext(t *testing.T) {
	s := New(300)
	for _, id := range []int{5, 64, 65, 299} {
		s.Add(id)
	}
	cases := []struct {
		from, want int
		ok         bool
	}{
		{-5, 5, true}, {0, 5, true}, {5, 5, true}, {6, 64, true}, {64, 64, true}, {65, 65, true},
		{66, 299, true}, {299, 299, true}, {300, 0, false}, {1 << 40, 0, false},
	}
	for _, c := range cases {
		got, ok := s.Next(c.from)
		if got != c.want || ok != c.ok {
			t.Errorf("Next(%d) = %d,%v, want %d,%v", c.from, got, ok, c.want, c.ok)
		}
	}
	// Next sees candidates added during the walk (flowbits post-match).
	var seen []int
	for i, ok := s.Next(0); ok; i, ok = s.Next(i + 1) {
		seen = append(seen, i)
		if i == 5 {
			s.Add(200)
			s.Add(3) // below the cursor: not visited in this walk
		}
	}
	if want := []int{5, 64, 65, 200, 299}; !slices.Equal(seen, want) {
		t.Fatalf("walk with adds = %v, want %v", seen, want)
	}
}

func TestAddWords(t *testing.T) {
	s := New(130) // 3 words, last has 2 valid bits
	s.Reset()
	s.Add(1)
	s.AddWords([]uint64{0b110, 0, math.MaxUint64}, 0)
	want := []int{1, 2, 128, 129}
	if got := collect(t, s); !slices.Equal(got, want) || s.Len() != 4 {
		t.Fatalf("got %v len %d, want %v", got, s.Len(), want)
	}
	s.AddWords([]uint64{1 << 63}, 64)
	if !s.Has(127) || s.Len() != 5 {
		t.Fatalf("AddWords at base 64 missed")
	}
	s.Reset()
	s.AddWords([]uint64{0, 0, 1 << 5}, 0) // only out-of-range bits: nothing
	if !s.Empty() {
		t.Fatalf("bits beyond n were added: %v", collect(t, s))
	}
	for _, bad := range []struct {
		w    []uint64
		base int
	}{{[]uint64{1}, 1}, {[]uint64{1}, -64}, {[]uint64{1, 1}, 128}, {[]uint64{1, 1, 1, 1}, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddWords(%v, %d) did not panic", bad.w, bad.base)
				}
			}()
			s.AddWords(bad.w, bad.base)
		}()
	}
}

func TestAddPanicsOutOfRange(t *testing.T) {
	for _, id := range []int{-1, 64} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%d) did not panic", id)
				}
			}()
			New(64).Add(id)
		}()
	}
}

// TestProperty compares the set with a map+sort reference over random sizes, random adds (single
// and by words) and many generations.
func TestProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 63, 64, 65, 127, 128, 4095, 4096, 4097, 100000} {
		s := New(n)
		gens := 200
		if n >= 4096 {
			gens = 60
		}
		for gen := 0; gen < gens; gen++ {
			s.Reset()
			ref := map[int]bool{}
			if n > 0 {
				// Clustered, sparse or dense: vary the id range and the number of adds.
				span := 1 + rng.IntN(n)
				lo := rng.IntN(n - span + 1)
				adds := rng.IntN(3 * min(span, 2000))
				for range adds {
					id := lo + rng.IntN(span)
					s.Add(id)
					ref[id] = true
				}
				if rng.IntN(3) == 0 {
					nw := (n + 63) / 64
					base := rng.IntN(nw)
					words := make([]uint64, rng.IntN(nw-base)+1)
					for i := range words {
						if rng.IntN(2) == 0 {
							words[i] = rng.Uint64() & rng.Uint64()
						}
						for b := range 64 {
							if id := (base+i)*64 + b; id < n && words[i]&(1<<b) != 0 {
								ref[id] = true
							}
						}
					}
					s.AddWords(words, base*64)
				}
			}
			want := make([]int, 0, len(ref))
			for id := range ref {
				want = append(want, id)
			}
			slices.Sort(want)
			got := collect(t, s)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d gen=%d: got %d ids, want %d", n, gen, len(got), len(want))
			}
			if s.Len() != len(want) {
				t.Fatalf("n=%d gen=%d: Len %d, want %d", n, gen, s.Len(), len(want))
			}
			for range 20 {
				if n == 0 {
					break
				}
				from := rng.IntN(n)
				i, _ := slices.BinarySearch(want, from)
				got, ok := s.Next(from)
				if i < len(want) {
					if !ok || got != want[i] {
						t.Fatalf("n=%d Next(%d)=%d,%v want %d", n, from, got, ok, want[i])
					}
				} else if ok {
					t.Fatalf("n=%d Next(%d)=%d, want none", n, from, got)
				}
				if s.Has(from) != ref[from] {
					t.Fatalf("n=%d Has(%d)=%v", n, from, s.Has(from))
				}
			}
		}
	}
}

// TestGenerationWrap checks that the generation counter wrapping around neither loses nor
// resurrects candidates.
func TestGenerationWrap(t *testing.T) {
	s := New(5000)
	s.Reset()
	s.Add(7)    // word 0 stamped with an early generation
	s.Add(4100) // second summary word
	oldGen := s.gen
	// Jump close to the wrap without touching word 0 again.
	s.gen = math.MaxUint32 - 2
	for i := 0; i < 6; i++ {
		s.Reset()
		if !s.Empty() {
			t.Fatalf("reset %d: not empty", i)
		}
		// After the wrap the generation passes oldGen again: word 0's old stamp must not count.
		if s.gen == oldGen && s.Has(7) {
			t.Fatalf("stale iid 7 came back after wrap")
		}
		if got := collect(t, s); len(got) != 0 {
			t.Fatalf("reset %d (gen %d): stale candidates %v", i, s.gen, got)
		}
		s.Add(4999)
		s.Add(i)
		want := []int{i, 4999}
		if got := collect(t, s); !slices.Equal(got, want) {
			t.Fatalf("reset %d (gen %d): got %v want %v", i, s.gen, got, want)
		}
	}
	if s.gen == 0 || s.gen > 10 {
		t.Fatalf("generation did not wrap: %d", s.gen)
	}
	// Exercise the exact case: a word written at generation g, the counter wrapping and reaching
	// g again.
	s2 := New(64)
	s2.Reset() // gen 2
	s2.Add(9)
	g := s2.gen
	s2.gen = math.MaxUint32
	s2.Reset() // wraps: clears stamps, gen 1
	for s2.gen != g {
		s2.Reset()
	}
	if s2.Has(9) || !s2.Empty() || len(collect(t, s2)) != 0 {
		t.Fatalf("iid 9 from before the wrap is visible")
	}
}

func TestZeroAllocs(t *testing.T) {
	s := New(50000)
	ids := rand.New(rand.NewPCG(3, 4)).Perm(50000)[:2000]
	words := make([]uint64, 100)
	for i := range words {
		words[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	var sum int
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset()
		for _, id := range ids {
			s.Add(id)
		}
		s.AddWords(words, 64*64)
		s.ForEach(func(iid int) bool { sum += iid; return true })
		for iid := range s.All() {
			sum += iid
		}
		for i, ok := s.Next(0); ok; i, ok = s.Next(i + 1) {
			sum += i
		}
		sum += s.Len()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per packet, want 0", allocs)
	}
	_ = sum
}
