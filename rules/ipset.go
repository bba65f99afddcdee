package rules

import (
	"net/netip"
	"slices"
)

// IPRange is an inclusive range of addresses of one family.
type IPRange struct {
	First netip.Addr
	Last  netip.Addr
}

// Contains reports whether a is in the range (a must be of the range's family).
func (r IPRange) Contains(a netip.Addr) bool {
	return r.First.Compare(a) <= 0 && a.Compare(r.Last) <= 0
}

// String returns "first-last", or the single address.
func (r IPRange) String() string {
	if r.First == r.Last {
		return r.First.String()
	}
	return r.First.String() + "-" + r.Last.String()
}

// Prefixes returns the smallest list of CIDR prefixes covering exactly the range.
func (r IPRange) Prefixes() []netip.Prefix {
	var out []netip.Prefix
	cur := r.First
	bits := cur.BitLen()
	for {
		// Largest prefix starting at cur that stays within the range.
		n := bits
		for n > 0 {
			p, err := cur.Prefix(n - 1)
			if err != nil || p.Addr() != cur || lastOf(p).Compare(r.Last) > 0 {
				break
			}
			n--
		}
		p := netip.PrefixFrom(cur, n)
		out = append(out, p)
		last := lastOf(p)
		if last.Compare(r.Last) >= 0 {
			return out
		}
		cur = last.Next()
	}
}

// lastOf returns the last address of a prefix.
func lastOf(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr()
	if a.Is4() {
		b := a.As4()
		for i := p.Bits(); i < 32; i++ {
			b[i/8] |= 0x80 >> (i % 8)
		}
		return netip.AddrFrom4(b)
	}
	b := a.As16()
	for i := p.Bits(); i < 128; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	return netip.AddrFrom16(b)
}

// AllIPv4 and AllIPv6 are the ranges of every IPv4 and every IPv6 address.
var (
	AllIPv4 = IPRange{netip.AddrFrom4([4]byte{}), netip.AddrFrom4([4]byte{255, 255, 255, 255})}
	AllIPv6 = IPRange{netip.AddrFrom16([16]byte{}), netip.AddrFrom16([16]byte{
		255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255})}
)

// normalizeRanges sorts ranges and merges overlapping and adjacent ones.
func normalizeRanges(rs []IPRange) []IPRange {
	if len(rs) < 2 {
		return rs
	}
	slices.SortFunc(rs, func(a, b IPRange) int { return a.First.Compare(b.First) })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		next := last.Last.Next()
		if r.First.Compare(last.Last) <= 0 || (next.IsValid() && next == r.First) {
			if r.Last.Compare(last.Last) > 0 {
				last.Last = r.Last
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// subtractRanges returns a minus b; both must be normalized.
func subtractRanges(a, b []IPRange) []IPRange {
	var out []IPRange
	j := 0
	for _, r := range a {
		cur := r
		alive := true
		for j < len(b) && b[j].Last.Compare(cur.First) < 0 {
			j++
		}
		for k := j; k < len(b) && alive; k++ {
			n := b[k]
			if n.First.Compare(cur.Last) > 0 {
				break
			}
			if n.First.Compare(cur.First) > 0 {
				out = append(out, IPRange{cur.First, n.First.Prev()})
			}
			if n.Last.Compare(cur.Last) >= 0 {
				alive = false
				break
			}
			cur.First = n.Last.Next()
		}
		if alive {
			out = append(out, cur)
		}
	}
	return out
}

// coversAll reports whether normalized ranges cover the whole family.
func coversAll(rs []IPRange, full IPRange) bool {
	return len(rs) == 1 && rs[0] == full
}
