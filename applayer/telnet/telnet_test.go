package telnet

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
)

// TestProbe: telnet_probing_parser needs more than one byte, then accepts anything.
func TestProbe(t *testing.T) {
	if Probe([]byte{0xff}) != applayer.ProbeNeedMore || Probe([]byte{0xff, 0xfd}) != applayer.ProbeMatch ||
		Probe([]byte("login: ")) != applayer.ProbeMatch {
		t.Error("probe")
	}
}
