package tls

import (
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// TestAllocs: a warm state (back from the pool) parsing another flow's ClientHello,
// ServerHello + Certificate + ServerHelloDone, CCS and application data, with JA3 on and the
// JA4 buffer computed, allocates nothing (dependency-measurements §4c: the certificate is
// decoded into the reused cert.Cert).
func TestAllocs(t *testing.T) {
	EnableJA3()
	defer ja3On.Store(false)
	cli, srv := handshake12(t)
	ccs := record(contentCCS, VersionTLS12, []byte{1})
	app := record(contentApplication, VersionTLS12, []byte("application data"))
	pool := NewPool(nil)
	run := func() {
		s := pool.NewState()
		s.Parse(flow.ToServer, cli, 0)
		s.Parse(flow.ToClient, srv, 0)
		s.Parse(flow.ToServer, ccs, 0)
		s.Parse(flow.ToClient, app, 0)
		if !s.Server.HasCert || s.td.Progress[1] != ServerHandshakeDone {
			t.Fatalf("handshake not parsed: %v", s.td.Progress)
		}
		_ = s.JA4()
		pool.Put(s)
	}
	run()
	if n := testing.AllocsPerRun(50, run); n != 0 {
		t.Errorf("%.1f allocations per flow, want 0", n)
	}
}
