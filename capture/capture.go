// Package capture provides Meerkat's packet sources. Offline sources read pcap files (both
// byte orders, microsecond and nanosecond timestamps, old versions 2.0-2.3 too) and pcapng
// files, plain or gzip-compressed, one file (OpenFile) or a directory of them (OpenDir);
// OpenPath picks one or the other.
//
// A source delivers raw frames and decodes nothing beyond what the capture format needs: the
// link type says how the frame starts, and package decode takes it from there.
//
// Reading a capture allocates nothing per packet in steady state: Frame.Data points into the
// reader's buffer and is valid until the next call to Next.
package capture

import (
	"errors"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
)

// Frame is one captured record as a Source delivers it. A caller reuses one Frame for every
// call to Next.
type Frame struct {
	// Data is the captured bytes of the frame. It may point into the source's buffer (zero
	// copy) and is valid only until the next call to Next on the same source.
	Data []byte
	// Timestamp is the capture time of the record, in UTC.
	Timestamp time.Time
	// CaptureLen is the number of bytes captured (len(Data)).
	CaptureLen int
	// WireLen is the length of the frame on the wire; it exceeds CaptureLen when the capture
	// was cut to a snap length.
	WireLen int
	// LinkType says how Data starts, numbered as pcap's LINKTYPE_ values (in pcapng, the link
	// type of the interface the packet was captured on).
	LinkType decode.LinkType
	// Cnt numbers the records of the source from 1 (Suricata's pcap_cnt). In directory mode it
	// keeps counting across files, as Suricata's does.
	Cnt uint64
	// IgnoreChecksum is Suricata's PKT_IGNORE_CHECKSUM as its capture source sets it: checksums
	// of this frame are not validated, and the checksum keywords take them as valid (set by
	// the pipeline from pcap-file.checksum-checks, see pipeline.ChecksumGate).
	IgnoreChecksum bool
}

// Source delivers frames one at a time.
//
// Next fills f with the next frame and returns nil, or returns io.EOF when the source is
// exhausted. Any other error concerns one capture file and is returned once: a FileSource
// returns io.EOF after it, a directory source goes on with its next file. An error for which
// errors.Is(err, ErrTruncated) holds means the file ended inside a record after all its
// complete records were delivered; callers log it as a warning and keep what was processed.
//
// Close releases the source's files; Next must not be called after it.
type Source interface {
	Next(f *Frame) error
	Close() error
}

// ErrTruncated is wrapped by the error Next returns when a capture file ends in the middle of
// a record (inside its header or its data). Every complete record before it was delivered.
var ErrTruncated = errors.New("truncated capture file")

// ErrNotCapture is wrapped by the error OpenFile returns for a file that is neither pcap nor
// pcapng (plain or gzip-compressed).
var ErrNotCapture = errors.New("not a pcap or pcapng file")
