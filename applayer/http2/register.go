// Package http2 registers HTTP/2's protocol detection (src/app-layer-http2.c,
// rust/src/http2/http2.rs) with the app-layer framework: the connection preface pattern
// and the to-client SETTINGS probing parser. There is no HTTP/2 parser yet: a flow
// detected as HTTP/2 (directly, or after an HTTP/1 "Upgrade: h2c") gets app_proto
// "http2" and no transactions.
package http2

import (
	"encoding/binary"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// The sizes of rust/src/http2/http2.rs: a frame header, the client connection preface, and
// the default SETTINGS_MAX_FRAME_SIZE.
const (
	frameHeaderLen  = 9
	magicLen        = 24
	maxFrameSize    = 16384
	frameSettings   = 4
	settingsFlagAck = 0x01
)

// Probe is http2_probing_parser_tc: the first to-client bytes are a SETTINGS frame header
// (reserved bit clear, length within the default maximum frame size, no flag but ACK).
func Probe(data []byte) applayer.ProbeResult {
	if len(data) < frameHeaderLen {
		return applayer.ProbeNeedMore
	}
	length := uint32(data[0])<<16 | uint32(data[1])<<8 | uint32(data[2])
	typ, flags := data[3], data[4]
	reserved := binary.BigEndian.Uint32(data[5:9]) >> 31
	if reserved != 0 || length > maxFrameSize || flags&^settingsFlagAck != 0 || typ != frameSettings {
		return applayer.ProbeFail
	}
	return applayer.ProbeMatch
}

// Parser is HTTP/2's detection record: the preface "PRI * HTTP/2.0\r\n" at offset 0 to the
// server, case-insensitive (HTTP2RegisterPatternsForProtocolDetection), and the to-client
// prober on port 80 (SCRegisterHttp2Parser: default_port "[80]", min_depth 9, max_depth 24).
var Parser = &applayer.Parser{
	Proto:   applayer.ProtoHTTP2,
	IPProto: 6,
	Patterns: [2][]applayer.Pattern{
		flow.ToServer: {{Bytes: []byte("PRI * HTTP/2.0\r\n"), Offset: 0, Depth: 16, NoCase: true}},
	},
	Probe:    [2]applayer.ProbeFunc{flow.ToClient: Probe},
	ProbeMin: frameHeaderLen,
	ProbeMax: magicLen,
	Ports:    "[80]",
	Complete: [2]uint8{1, 1},
}

func init() { applayer.Register(Parser) }
