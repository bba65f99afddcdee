package broad

import (
	"encoding/binary"
	"math/bits"
	"net/netip"

	"github.com/meerkat-ids/meerkat/rules"
)

// u128 is an address as an unsigned 128-bit number (IPv4 in the low 32 bits).
type u128 struct{ hi, lo uint64 }

func toU128(a netip.Addr) u128 {
	if a.Is4() {
		b := a.As4()
		return u128{0, uint64(binary.BigEndian.Uint32(b[:]))}
	}
	b := a.As16()
	return u128{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

func (u u128) addr(v4 bool) netip.Addr {
	if v4 {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(u.lo))
		return netip.AddrFrom4(b)
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], u.hi)
	binary.BigEndian.PutUint64(b[8:], u.lo)
	return netip.AddrFrom16(b)
}

func (u u128) cmp(v u128) int {
	switch {
	case u.hi < v.hi || u.hi == v.hi && u.lo < v.lo:
		return -1
	case u == v:
		return 0
	}
	return 1
}

func (u u128) trailingZeros() int {
	if u.lo != 0 {
		return bits.TrailingZeros64(u.lo)
	}
	if u.hi != 0 {
		return 64 + bits.TrailingZeros64(u.hi)
	}
	return 128
}

// mask returns 2^k - 1 (k <= 128).
func mask(k int) u128 {
	switch {
	case k >= 128:
		return u128{^uint64(0), ^uint64(0)}
	case k >= 64:
		return u128{1<<(k-64) - 1, ^uint64(0)}
	}
	return u128{0, 1<<k - 1}
}

func (u u128) or(v u128) u128 { return u128{u.hi | v.hi, u.lo | v.lo} }

// next returns u + 1 (u is not the maximum).
func (u u128) next() u128 {
	lo, c := bits.Add64(u.lo, 1, 0)
	return u128{u.hi + c, lo}
}

// rangePrefixes appends the minimal CIDR cover of r (what rules.IPRange.Prefixes returns, in
// the same order) using integer arithmetic.
func rangePrefixes(out []netip.Prefix, r rules.IPRange) []netip.Prefix {
	v4 := r.First.Is4()
	width := 128
	if v4 {
		width = 32
	}
	cur, last := toU128(r.First), toU128(r.Last)
	for {
		k := min(cur.trailingZeros(), width) // largest aligned block at cur
		for k > 0 && cur.or(mask(k)).cmp(last) > 0 {
			k--
		}
		out = append(out, netip.PrefixFrom(cur.addr(v4), width-k))
		end := cur.or(mask(k))
		if end.cmp(last) >= 0 {
			return out
		}
		cur = end.next()
	}
}
