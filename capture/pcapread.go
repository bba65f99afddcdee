package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// pcapReader reads the records of a pcap 2.4 stream (legacyPcap presents older versions as
// 2.4). It reads as pcapgo.Reader does, with the same checks and errors, but it lives inside
// its FileSource, and a directory's files share its record buffer: opening a file allocates
// nothing for it.
type pcapReader struct {
	r        io.Reader
	be       bool   // big-endian
	nanos    uint32 // nanoseconds per timestamp fraction unit: 1 or 1000
	snaplen  uint32
	linkType uint32
	hdr      [pcapHdrLen]byte
	buf      []byte // record data, reused from record to record (and from file to file)
}

// The pcap version pcapReader reads.
const (
	pcapVersionMajor = 2
	pcapVersionMinor = 4
)

func (p *pcapReader) u16(b []byte) uint16 {
	if p.be {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (p *pcapReader) u32(b []byte) uint32 {
	if p.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// open reads the file header from r, with pcapgo.NewReader's errors.
func (p *pcapReader) open(r io.Reader) error {
	p.r = r
	h := p.hdr[:pcapHdrLen]
	if _, err := io.ReadFull(r, h); err != nil {
		return err
	}
	switch magic := binary.LittleEndian.Uint32(h[0:4]); magic {
	case magicPcapNanoBE: // a1b23c4d read little-endian: written little-endian
		p.be, p.nanos = false, 1
	case magicPcapNanoLE:
		p.be, p.nanos = true, 1
	case magicPcapMicroBE:
		p.be, p.nanos = false, 1000
	case magicPcapMicroLE:
		p.be, p.nanos = true, 1000
	default:
		return fmt.Errorf("Unknown magic %x", magic)
	}
	if v := p.u16(h[4:6]); v != pcapVersionMajor {
		return fmt.Errorf("Unknown major version %d", v)
	}
	if v := p.u16(h[6:8]); v != pcapVersionMinor {
		return fmt.Errorf("Unknown minor version %d", v)
	}
	p.snaplen = p.u32(h[16:20])
	p.linkType = p.u32(h[20:24])
	return nil
}

// maxCaptureLength is pcapgo's: the snap length, or libpcap's MAXIMUM_SNAPLEN if more.
func (p *pcapReader) maxCaptureLength() int {
	return int(max(p.snaplen, maxPcapRecord))
}

// next reads the next record, as pcapgo's ZeroCopyReadPacketData does. data is valid until
// the next call.
func (p *pcapReader) next() (data []byte, ts time.Time, caplen, wirelen int, err error) {
	h := p.hdr[:pcapRecHdrLen]
	if _, err = io.ReadFull(p.r, h); err != nil {
		return
	}
	ts = time.Unix(int64(p.u32(h[0:4])), int64(p.u32(h[4:8])*p.nanos)).UTC()
	caplen, wirelen = int(p.u32(h[8:12])), int(p.u32(h[12:16]))
	if caplen > p.maxCaptureLength() {
		err = fmt.Errorf("capture length exceeds snap length: %d > %d", caplen, p.snaplen)
		return
	}
	if caplen > wirelen {
		err = fmt.Errorf("capture length exceeds original packet length: %d > %d", caplen, wirelen)
		return
	}
	if caplen > maxPcapRecord {
		// pcapgo reads such a record into a buffer that grows with what is read; the snap
		// length is clamped to maxPcapRecord before reading, so none comes here.
		err = errors.New("capture: pcap record over the maximum snap length")
		return
	}
	if cap(p.buf) < caplen {
		p.buf = make([]byte, max(int(min(p.snaplen, maxPcapRecord)), caplen))
	}
	data = p.buf[:caplen]
	_, err = io.ReadFull(p.r, data)
	return
}
