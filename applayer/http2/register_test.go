package http2

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
)

// http2_probing_parser_tc: a SETTINGS frame header matches; another frame type, a flag
// other than ACK, the reserved bit or a length past 16384 fail; under 9 bytes waits.
func TestProbe(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want applayer.ProbeResult
	}{
		{"settings", []byte{0, 0, 0x12, 4, 0, 0, 0, 0, 0}, applayer.ProbeMatch},
		{"settings ack", []byte{0, 0, 0, 4, 1, 0, 0, 0, 0}, applayer.ProbeMatch},
		{"short", []byte{0, 0, 0x12, 4}, applayer.ProbeNeedMore},
		{"headers frame", []byte{0, 0, 0x12, 1, 4, 0, 0, 0, 1}, applayer.ProbeFail},
		{"bad flag", []byte{0, 0, 0x12, 4, 2, 0, 0, 0, 0}, applayer.ProbeFail},
		{"reserved bit", []byte{0, 0, 0x12, 4, 0, 0x80, 0, 0, 0}, applayer.ProbeFail},
		{"too long", []byte{0, 0x40, 0x01, 4, 0, 0, 0, 0, 0}, applayer.ProbeFail},
		{"http", []byte("HTTP/1.1 200 OK\r\n"), applayer.ProbeFail},
	} {
		if got := Probe(c.data); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// FuzzProbe: the prober never panics.
func FuzzProbe(f *testing.F) {
	f.Add([]byte{0, 0, 0x12, 4, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) { Probe(b) })
}
