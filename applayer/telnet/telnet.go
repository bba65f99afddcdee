// Package telnet registers Telnet's protocol detection (rust/src/telnet/telnet.rs
// SCRegisterTelnetParser): a probing parser on port 23 that accepts any two bytes in either
// direction. There is no Telnet parser yet: a flow detected as telnet gets app_proto
// "telnet" and no transactions.
package telnet

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// Probe is telnet_probing_parser: at least two bytes, and then anything is Telnet.
func Probe(data []byte) applayer.ProbeResult {
	if len(data) > 1 {
		return applayer.ProbeMatch
	}
	return applayer.ProbeNeedMore
}

// Parser is Telnet's detection record: default port [23], both directions probed, max
// depth 16.
var Parser = &applayer.Parser{
	Proto:    applayer.ProtoTelnet,
	IPProto:  6,
	Probe:    [2]applayer.ProbeFunc{flow.ToServer: Probe, flow.ToClient: Probe},
	ProbeMax: 16,
	Ports:    "[23]",
	Complete: [2]uint8{1, 1},
}

func init() { applayer.Register(Parser) }
