package dns

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// Parser is DNS's registration (SCRegisterDnsTcpParser and SCRegisterDnsUdpParser): no
// patterns, probing parsers on port 53 for both transports (TCP: at least a length prefix and
// a header; UDP: at least a header), the direction following QR; progress is complete (1)
// in both directions, no state names.
var Parser = &applayer.Parser{
	Proto:   applayer.ProtoDNS,
	IPProto: 6,
	Probe: [2]applayer.ProbeFunc{
		flow.ToServer: func(b []byte) applayer.ProbeResult { return ProbeTCP(b, flow.ToServer) },
		flow.ToClient: func(b []byte) applayer.ProbeResult { return ProbeTCP(b, flow.ToClient) },
	},
	ProbeMin: headerLen + 2,
	// The probers see the whole data (they parse the message when it is all there).
	ProbeMax: 2 + 65535,
	Ports:    "53",
	UDP: &applayer.UDPDetect{
		Probe: [2]applayer.ProbeFunc{
			flow.ToServer: func(b []byte) applayer.ProbeResult { return ProbeUDP(b, flow.ToServer) },
			flow.ToClient: func(b []byte) applayer.ProbeResult { return ProbeUDP(b, flow.ToClient) },
		},
		ProbeMin: headerLen,
		ProbeMax: 65535,
		Ports:    "[53]",
	},
	NewPool:  func(any) applayer.Pool { return &pool{} },
	Complete: [2]uint8{1, 1},
	Events:   EventNames,
}

func init() {
	applayer.Register(Parser)
	registerBuffers()
}
