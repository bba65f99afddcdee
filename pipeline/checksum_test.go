package pipeline

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
)

// rawTCP returns a raw IPv4/TCP frame whose TCP checksum is correct or not.
func rawTCP(good bool) []byte {
	b := make([]byte, 40)
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], 40)
	b[8], b[9] = 64, decode.ProtoTCP
	copy(b[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	binary.BigEndian.PutUint16(b[10:], decode.Checksum(b[:20]))
	t := b[20:]
	binary.BigEndian.PutUint16(t[0:], 1234)
	binary.BigEndian.PutUint16(t[2:], 80)
	t[12], t[13] = 5<<4, 0x10
	c := decode.L4Checksum(b[12:16], b[16:20], decode.ProtoTCP, t)
	if !good {
		c ^= 0x5a5a
	}
	binary.BigEndian.PutUint16(t[16:], c)
	return b
}

// TestChecksumGate follows Suricata's pcap-file checksum-checks: "no" ignores every frame's
// checksums, "yes" none; "auto" decides at the 1000th frame from the bad TCP checksums of the
// frames before it (more than a tenth: pcap_cnt / bad < 10), counted only when stream
// checksum validation is on.
func TestChecksumGate(t *testing.T) {
	cases := []struct {
		mode       string
		validating bool
		bad        int // frames among the first 999 with a bad TCP checksum
		want       string
	}{
		{"no", true, 0, "first ignored 1"},
		{"yes", true, 999, "none ignored"},
		{"auto", true, 999, "first ignored 1000"},
		{"auto", true, 101, "first ignored 1000"},
		{"auto", true, 100, "none ignored"},
		{"auto", true, 0, "none ignored"},
		{"auto", false, 999, "none ignored"},
	}
	good, bad := rawTCP(true), rawTCP(false)
	for _, c := range cases {
		g := NewChecksumGate(c.mode, c.validating)
		first, ignored := 0, 0
		for i := 1; i <= 1500; i++ {
			fr := capture.Frame{LinkType: decode.LinkTypeRaw, Data: good, Cnt: uint64(i)}
			if i < 1000 && i <= c.bad || i >= 1000 {
				fr.Data = bad
			}
			g.Mark(&fr)
			if fr.IgnoreChecksum {
				ignored++
				if first == 0 {
					first = i
				}
			} else if first != 0 {
				t.Errorf("%+v: frame %d not ignored after frame %d was", c, i, first)
				break
			}
		}
		got := "none ignored"
		if first != 0 {
			got = fmt.Sprintf("first ignored %d", first)
		}
		if got != c.want {
			t.Errorf("%s validating=%v bad=%d: %s, want %s", c.mode, c.validating, c.bad, got, c.want)
		}
	}
}
