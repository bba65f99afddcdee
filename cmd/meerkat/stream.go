package main

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"

	"github.com/gaissmai/bart"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/stream"
)

// streamConfig builds the stream engine's configuration from suricata.yaml (stream.*,
// host-os-policy), given whether the engine runs inline (IPS or firewall mode) and whether
// detection inspects raw stream data. It returns nil with stream.enabled off.
func streamConfig(st *config.Settings, ips, raw bool) (*stream.Config, error) {
	s := &st.Stream
	if !s.Enabled {
		return nil, nil
	}
	r := &s.Reassembly
	inline := s.InlineFor(ips)
	cfg := &stream.Config{
		Midstream:        s.Midstream,
		AsyncOneside:     s.AsyncOneside,
		Inline:           inline,
		DropInvalid:      s.DropInvalid,
		Memcap:           s.Memcap,
		ReassemblyMemcap: r.Memcap,
		SegmentPrealloc:  r.SegmentPrealloc,
		Depth:            r.Depth,
		ToServerChunk:    chunkSize(r.ToServerChunkSize, r.RandomizeChunkSize, r.RandomizeChunkRange),
		ToClientChunk:    chunkSize(r.ToClientChunkSize, r.RandomizeChunkSize, r.RandomizeChunkRange),
		Raw:              r.Raw && raw,
		AppLayer:         false, // no app-layer parser reads the byte stream yet
		CheckOverlapDiff: r.CheckOverlapDifferentData || inline,
		MaxRegions:       maxRegions(r.MaxRegions),
		MaxSynQueued:     10,
		MaxSynAckQueued:  5,
	}
	for _, u := range []struct {
		key, v string
		dst    *stream.UrgentPolicy
	}{{"urgent.policy", r.UrgentPolicy, &cfg.Urgent}, {"urgent.oob-limit-policy", r.UrgentOOBLimitPolicy, &cfg.UrgentOOBLimit}} {
		if u.v == "" {
			continue
		}
		p, ok := stream.ParseUrgentPolicy(u.v)
		if !ok {
			return nil, fmt.Errorf("stream.reassembly.%s: unknown policy %q (inline, oob, gap or drop)", u.key, u.v)
		}
		*u.dst = p
	}
	mp, err := stream.MidstreamPolicy(s.MidstreamPolicy, st.ExceptionPolicy, s.Midstream, ips)
	if err != nil {
		return nil, err
	}
	cfg.MidstreamPolicy = mp
	if cfg.MemcapPolicy, err = stream.MemcapPolicy("stream.memcap-policy", s.MemcapPolicy, st.ExceptionPolicy, ips); err != nil {
		return nil, err
	}
	if cfg.ReassemblyMemcapPolicy, err = stream.MemcapPolicy("stream.reassembly.memcap-policy", r.MemcapPolicy, st.ExceptionPolicy, ips); err != nil {
		return nil, err
	}
	pf, err := hostOSPolicies(s.HostOSPolicy)
	if err != nil {
		return nil, err
	}
	cfg.PolicyFor = pf
	return cfg, nil
}

// chunkSize applies randomize-chunk-size as StreamTcpReassemblyConfig does: the size moves by
// a random fraction in [-range/2, +range/2] percent, drawn once at start-up.
func chunkSize(size uint64, randomize bool, rangePct int) uint32 {
	n := float64(size)
	if randomize {
		n += n * (rand.Float64() - 0.5) * float64(rangePct) / 100
	}
	return uint32(n)
}

// hostOSPolicies turns host-os-policy into the lookup the stream engine asks for the policy of
// a destination address (longest prefix wins; bsd without a match). An unknown OS name or a
// bad address stops start-up.
func hostOSPolicies(entries []config.HostOSPolicy) (func(netip.Addr) stream.Policy, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	t := &bart.Table[stream.Policy]{}
	for _, e := range entries {
		pol, ok := stream.ParsePolicy(e.Policy)
		if !ok {
			return nil, fmt.Errorf("host-os-policy: unknown OS policy %q", e.Policy)
		}
		for _, n := range e.Nets {
			n = strings.TrimSpace(n)
			pfx, err := netip.ParsePrefix(n)
			if err != nil {
				a, aerr := netip.ParseAddr(n)
				if aerr != nil {
					return nil, fmt.Errorf("host-os-policy.%s: bad address %q", e.Policy, n)
				}
				pfx = netip.PrefixFrom(a, a.BitLen())
			}
			t.Insert(pfx.Masked(), pol)
		}
	}
	return func(a netip.Addr) stream.Policy {
		if p, ok := t.Lookup(a.Unmap()); ok {
			return p
		}
		return stream.PolicyBSD
	}, nil
}

// maxRegions maps stream.reassembly.max-regions to Reassembly.SetMaxRegions: 0 in the
// configuration means no limit.
func maxRegions(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
