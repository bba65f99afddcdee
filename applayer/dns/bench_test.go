package dns

import (
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// BenchmarkUDPExchange parses a request and its response (two compressed names, a CNAME and an
// A) on a warm state and frees the txs, as one UDP exchange costs in steady state.
func BenchmarkUDPExchange(b *testing.B) {
	s := NewState(false)
	q, r := googleQuery(), googleResponse()
	b.SetBytes(int64(len(q) + len(r)))
	b.ReportAllocs()
	for b.Loop() {
		s.Parse(flow.ToServer, q, 0)
		s.Parse(flow.ToClient, r, 0)
		s.FreeTxs(^uint64(0))
	}
}

// BenchmarkProbeUDP is the UDP prober on a response (a dry parse).
func BenchmarkProbeUDP(b *testing.B) {
	r := googleResponse()
	b.ReportAllocs()
	for b.Loop() {
		ProbeUDP(r, flow.ToClient)
	}
}
