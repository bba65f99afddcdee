package main

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/stream"
)

// TestHostOSPolicies: host-os-policy picks the OS policy of a destination by longest prefix
// (bsd when none matches, as Suricata's default), reads single addresses as host routes and
// IPv4-mapped addresses as IPv4, and a bad name or address stops start-up with a message.
func TestHostOSPolicies(t *testing.T) {
	pf, err := hostOSPolicies([]config.HostOSPolicy{
		{Policy: "windows", Nets: []string{"0.0.0.0/0"}},
		{Policy: "linux", Nets: []string{"10.0.0.0/8", "2001:db8::/32"}},
		{Policy: "old-linux", Nets: []string{"10.1.2.3"}},
		{Policy: "bsd-right", Nets: []string{"192.168.0.0/16"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr string
		want stream.Policy
	}{
		{"8.8.8.8", stream.PolicyWindows},
		{"10.9.9.9", stream.PolicyLinux},
		{"10.1.2.3", stream.PolicyOldLinux},
		{"::ffff:10.1.2.3", stream.PolicyOldLinux},
		{"192.168.1.1", stream.PolicyBSD},
		{"2001:db8::1", stream.PolicyLinux},
		{"2001:db9::1", stream.PolicyBSD}, // the shipped entry is IPv4 only: IPv6 hosts use bsd
	} {
		if got := pf(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.addr, got, tc.want)
		}
	}
	for _, bad := range []config.HostOSPolicy{{Policy: "amiga", Nets: []string{"0.0.0.0/0"}}, {Policy: "linux", Nets: []string{"10.0.0/8x"}}} {
		if _, err := hostOSPolicies([]config.HostOSPolicy{bad}); err == nil || !strings.Contains(err.Error(), "host-os-policy") {
			t.Errorf("%+v: err %v, want a host-os-policy error", bad, err)
		}
	}
}

// TestChunkSize: randomize-chunk-size moves the chunk size by at most half the range either
// way (StreamTcpReassemblyConfig), and not at all without randomization.
func TestChunkSize(t *testing.T) {
	if got := chunkSize(2560, false, 10); got != 2560 {
		t.Errorf("no randomization: %d", got)
	}
	for range 200 {
		if got := chunkSize(2560, true, 10); got < 2432 || got > 2688 {
			t.Fatalf("randomized chunk %d outside 2560 ± 5%%", got)
		}
	}
}
