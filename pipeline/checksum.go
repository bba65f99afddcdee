package pipeline

import (
	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
)

// Checksum sampling of Suricata's pcap-file source (source-pcap-file-helper.c,
// util-checksum.c ChecksumAutoModeCheck).
const (
	checksumSampleCount  = 1000
	checksumInvalidRatio = 10
)

// ChecksumGate marks frames whose checksums are to be ignored, as Suricata's pcap-file source
// does with pcap-file.checksum-checks:
//
//   - "no": every frame.
//   - "yes": none.
//   - "auto" (the default): none at first; when the 1000th frame is read, if more than a
//     tenth of the frames before it (pcap_cnt / invalid < 10) were TCP segments with a bad
//     checksum, the capture is taken to come from a host with checksum offloading, and that
//     frame and every later one are marked. Suricata counts the bad checksums its stream
//     engine finds, so nothing is counted when stream checksum validation is off (-k none,
//     stream.checksum-validation: no).
//
// Suricata counts in its worker threads while the reader samples, so with several threads
// its decision depends on how far they got; the gate decodes the sampled frames itself, which
// is what Suricata's single runmode sees, whatever Meerkat's runmode.
type ChecksumGate struct {
	sampling bool // "auto" and not decided yet
	count    bool // stream checksum validation on: bad TCP checksums are counted
	disabled bool
	pkts     uint64
	invalid  uint64
	dec      decode.Decoder
	p        decode.Packet
}

// NewChecksumGate returns the gate for pcap-file.checksum-checks mode ("auto", "yes", "no");
// validating says whether TCP checksums are validated (the decoder's mode is not
// decode.ChecksumNone).
func NewChecksumGate(mode string, validating bool) *ChecksumGate {
	g := &ChecksumGate{sampling: mode == "auto", count: validating, disabled: mode == "no"}
	g.dec.Checksums = decode.ChecksumTCP
	return g
}

// Mark sets fr.IgnoreChecksum for the frame just read.
func (g *ChecksumGate) Mark(fr *capture.Frame) {
	fr.IgnoreChecksum = g.disabled
	if !g.sampling {
		return
	}
	g.pkts++
	switch {
	case g.pkts == checksumSampleCount:
		if g.invalid != 0 && fr.Cnt/g.invalid < checksumInvalidRatio {
			g.disabled = true
			fr.IgnoreChecksum = true
		}
		g.sampling = false // decided: Suricata checks only at the 1000th frame
	case g.pkts < checksumSampleCount && g.count:
		g.dec.Decode(&g.p, fr.LinkType, fr.Data)
		if g.p.IsTCP() && !g.p.IsFragment && g.p.L4ChecksumBad {
			g.invalid++
		}
	}
}

// Disabled reports whether checksum validation was turned off (by "no", or by the auto
// sample).
func (g *ChecksumGate) Disabled() bool { return g.disabled }
