// Package dcerpc registers DCERPC's protocol detection over TCP (rust/src/dcerpc/dcerpc.rs:
// register_pattern_probe, probe_tcp) with the app-layer framework. There is no DCERPC
// parser yet: a flow detected as DCERPC gets app_proto "dcerpc" and no transactions. The
// UDP prober (dcerpc_udp.rs) waits for the framework's UDP detection.
package dcerpc

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// headerLen is the size of the DCERPC connection-oriented header (parse_dcerpc_header).
const headerLen = 16

// Probe is probe() of dcerpc.rs on a TCP direction's first bytes: a whole 16-byte header
// with version 5.0 and a valid data representation (packed_drep[0] & 0xee == 0,
// packed_drep[1] <= 3). A short header fails (parse_dcerpc_header is incomplete and
// probe_tcp answers ALPROTO_FAILED). request says the PDU is a request (type 0 or 0x0e:
// REQUEST, ALTER_CONTEXT), which probe_tcp uses for the direction.
func Probe(data []byte) (dcerpc, request bool) {
	if len(data) < headerLen {
		return false, false
	}
	typ := data[2]
	drep := data[4:8]
	ok := data[0] == 0x05 && data[1] == 0x00 && drep[0]&0xee == 0 && drep[1] <= 3
	return ok, typ == 0x00 || typ == 0x0e
}

func confirm(data []byte) bool {
	ok, _ := Probe(data)
	return ok
}

// Parser is DCERPC's detection record: "|05 00|" at offset 0 in either direction, confirmed
// by the prober (SCAppLayerProtoDetectPMRegisterPatternCSwPP with probe_tcp); no default
// port prober (default_port NULL); progress 1/1.
var Parser = &applayer.Parser{
	Proto:   applayer.ProtoDCERPC,
	IPProto: 6,
	Patterns: [2][]applayer.Pattern{
		flow.ToServer: {{Bytes: []byte{0x05, 0x00}, Offset: 0, Depth: 2, Confirm: confirm}},
		flow.ToClient: {{Bytes: []byte{0x05, 0x00}, Offset: 0, Depth: 2, Confirm: confirm}},
	},
	Complete: [2]uint8{1, 1},
}

func init() { applayer.Register(Parser) }
