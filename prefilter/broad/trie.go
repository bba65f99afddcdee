package broad

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/gaissmai/bart"
	"github.com/yl2chen/cidranger"
)

// Trie implementations selectable in Options.Trie.
const (
	TrieBart      = "bart"      // github.com/gaissmai/bart v0.30.0 (default)
	TrieCidranger = "cidranger" // github.com/yl2chen/cidranger v1.0.2 (allocates per lookup)
)

// lpm is the small interface the index needs of a CIDR trie: insert a prefix with a value,
// then longest-prefix match. One lpm holds one address family and one side.
type lpm interface {
	insert(p netip.Prefix, v uint32) error
	// lookup returns the value of the longest inserted prefix containing a.
	lookup(a netip.Addr) (uint32, bool)
}

func newLPM(kind string) (lpm, error) {
	switch kind {
	case "", TrieBart:
		return &bartLPM{}, nil
	case TrieCidranger:
		return &cidrLPM{r: cidranger.NewPCTrieRanger()}, nil
	}
	return nil, fmt.Errorf("broad: unknown trie %q (want %q or %q)", kind, TrieBart, TrieCidranger)
}

// bartLPM wraps bart.Table: allocation-free lookups on netip.Addr.
type bartLPM struct{ t bart.Table[uint32] }

func (b *bartLPM) insert(p netip.Prefix, v uint32) error { b.t.Insert(p, v); return nil }
func (b *bartLPM) lookup(a netip.Addr) (uint32, bool)    { return b.t.Lookup(a) }

// cidrLPM wraps cidranger's path-compressed trie. Its API takes net.IP and returns every
// containing network in a fresh slice, so each lookup allocates.
type cidrLPM struct{ r cidranger.Ranger }

type cidrEntry struct {
	n    net.IPNet
	bits int
	v    uint32
}

func (e *cidrEntry) Network() net.IPNet { return e.n }

func (c *cidrLPM) insert(p netip.Prefix, v uint32) error {
	ip := net.IP(p.Addr().AsSlice())
	n := net.IPNet{IP: ip, Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
	return c.r.Insert(&cidrEntry{n: n, bits: p.Bits(), v: v})
}

func (c *cidrLPM) lookup(a netip.Addr) (uint32, bool) {
	var ip net.IP
	if a.Is4() {
		b := a.As4()
		ip = net.IP(b[:])
	} else {
		b := a.As16()
		ip = net.IP(b[:])
	}
	es, err := c.r.ContainingNetworks(ip)
	if err != nil || len(es) == 0 {
		return 0, false
	}
	best := -1
	var v uint32
	for _, e := range es {
		if ce, ok := e.(*cidrEntry); ok && ce.bits > best {
			best, v = ce.bits, ce.v
		}
	}
	return v, best >= 0
}
