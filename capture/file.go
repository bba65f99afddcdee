package capture

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/meerkat-ids/meerkat/decode"
)

const (
	// readBufSize is the read buffer under the pcap and pcapng readers (and under gzip's
	// output), for files of this size or more.
	readBufSize = 1 << 17
	// maxPcapRecord is the longest pcap record accepted: libpcap's MAXIMUM_SNAPLEN. pcapReader
	// (as pcapgo) takes records up to max(file snap length, 256 KiB); a file may declare a snap
	// length of 4 GiB, so the snap length is clamped to this before reading.
	maxPcapRecord = 262144
)

// Capture file magic numbers, as the first four bytes read big-endian.
const (
	magicPcapMicroBE = 0xa1b2c3d4 // written big-endian
	magicPcapMicroLE = 0xd4c3b2a1 // written little-endian
	magicPcapNanoBE  = 0xa1b23c4d
	magicPcapNanoLE  = 0x4d3cb2a1
	magicPcapKuzBE   = 0xa1b2cd34 // Kuznetsov's modified pcap (unsupported)
	magicPcapKuzLE   = 0x34cdb2a1
	magicPcapng      = 0x0a0d0d0a // pcapng section header block type (palindrome)
	magicGzip        = 0x1f8b
)

// format is the kind of capture file.
type format uint8

const (
	formatPcap format = iota + 1
	formatPcapng
)

// FileSource reads one offline capture file: pcap or pcapng, plain or gzip-compressed. It
// implements Source. A FileSource is not safe for concurrent use.
type FileSource struct {
	path string
	re   *reuse       // where the source and its buffers live (directory mode), or nil
	file io.Closer    // the open file (nil for in-memory readers)
	gz   *gzip.Reader // non-nil for a gzip-compressed file

	pcap     *pcapReader // non-nil for a pcap file: &pcapr
	pcapr    pcapReader
	pcapBuf  *bufio.Reader // what pcap reads from, when it is not a legacyPcap
	pcapBE   bool          // the pcap file is big-endian
	ng       *pcapgo.NgReader
	filter   *ngFilter       // pcapng block filter between the file and ng
	linkType decode.LinkType // pcap: the file's link type

	read   *atomic.Int64 // bytes read from the file so far (shared by a directory's files)
	size   int64         // the file's size (0: not a regular file)
	base   uint64        // Cnt of the record before this file's first (directory mode)
	n      uint64        // records delivered from this file
	done   bool          // EOF or an error was returned: later calls return io.EOF
	closed bool
}

// OpenFile opens a pcap or pcapng capture file, plain or gzip-compressed. The format is told
// by the file's magic bytes, never by its name. A file that is not a capture fails with an
// error that wraps ErrNotCapture, names the file and says why.
func OpenFile(path string) (*FileSource, error) {
	return openFile(path, new(atomic.Int64), nil, -1)
}

// openFile is OpenFile, counting the bytes read from the file in read. With re, the source
// is built in re and takes its buffers from there (see reuse); it is valid until the next
// call with the same re. A size of 0 or more is the file's, known to be a regular file: the
// file is not stat'ed again.
func openFile(path string, read *atomic.Int64, re *reuse, known int64) (*FileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	size, regular := int64(readBufSize), int64(0)
	if known >= 0 {
		size, regular = known, known
	} else if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size, regular = st.Size(), st.Size()
	}
	var r io.Reader
	if re != nil {
		re.cr = countingReader{f, read}
		r = &re.cr
	} else {
		r = countingReader{f, read}
	}
	s, err := newSourceReuse(path, r, size, re)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	s.file, s.read, s.size = f, read, regular
	return s, nil
}

// countingReader counts the bytes read through it: one atomic add per read of the file (the
// reads are buffered, 128 KiB at a time), for a progress display.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// BytesRead returns how many bytes of the file have been read so far (compressed bytes for a
// gzip file), and Size the file's size (0 when it is not a regular file). Both are safe to
// call from another goroutine while Next runs.
func (s *FileSource) BytesRead() int64 {
	if s.read == nil {
		return 0
	}
	return s.read.Load()
}

// Size returns the file's size in bytes (see BytesRead).
func (s *FileSource) Size() int64 { return s.size }

// newSource reads a capture from r; name is used in errors.
func newSource(name string, r io.Reader) (*FileSource, error) {
	return newSourceSize(name, r, readBufSize)
}

// newSourceSize is newSource for a stream of (about) size bytes: a small file gets a smaller
// read buffer, which matters in directory mode and under the fuzzer.
func newSourceSize(name string, r io.Reader, size int64) (*FileSource, error) {
	return newSourceReuse(name, r, size, nil)
}

// reuse holds what the files of a DirSource, read one after another, share: the FileSource
// itself, its read buffers, gzip reader, pcapng block filter and pcap record buffer. Opening
// a small file then allocates next to nothing beyond what the system and pcapgo's pcapng
// reader need.
type reuse struct {
	src    FileSource
	cr     countingReader
	br     *bufio.Reader // the file's bytes
	gzbr   *bufio.Reader // the decompressed bytes of a gzip file
	gz     *gzip.Reader
	ngbr   *bufio.Reader // between the pcapng block filter and pcapgo
	filter ngFilter
}

// bufReader returns a buffered reader of r of at least size bytes: *slot reset onto r when
// it is big enough, else a new one left in *slot. Without re (slot nil) it is a new one.
func bufReader(slot **bufio.Reader, r io.Reader, size int) *bufio.Reader {
	if slot == nil {
		return bufio.NewReaderSize(r, size)
	}
	if b := *slot; b != nil && b.Size() >= size {
		b.Reset(r)
		return b
	}
	*slot = bufio.NewReaderSize(r, size)
	return *slot
}

// newSourceReuse is newSourceSize, building the source in re when re is not nil.
func newSourceReuse(name string, r io.Reader, size int64, re *reuse) (*FileSource, error) {
	var s *FileSource
	if re != nil {
		s = &re.src
		buf := s.pcapr.buf
		*s = FileSource{path: name, re: re}
		s.pcapr.buf = buf
	} else {
		s = &FileSource{path: name}
	}
	var br *bufio.Reader
	head, compressed, err := s.sniff(r, size, &br)
	if err != nil {
		return nil, err
	}
	fm, err := classify(name, head, compressed)
	if err != nil {
		s.closeGzip()
		return nil, err
	}
	switch fm {
	case formatPcap:
		var src io.Reader = br // pcapReader reads from it directly
		s.pcapBuf = br
		if h, _ := br.Peek(pcapHdrLen); len(h) == pcapHdrLen {
			var order binary.ByteOrder = binary.LittleEndian
			if m := binary.BigEndian.Uint32(h); m == magicPcapMicroBE || m == magicPcapNanoBE {
				order = binary.BigEndian
				s.pcapBE = true
			}
			if mode, legacy := pcapSwapMode(order.Uint16(h[4:6]), order.Uint16(h[6:8])); legacy {
				src = newLegacyPcap(br, order, mode)
				s.pcapBuf = nil
			}
		}
		pr := &s.pcapr
		if err := pr.open(src); err != nil {
			s.closeGzip()
			return nil, fmt.Errorf("capture: %s: bad pcap file header: %s", name, headerErr(err))
		}
		pr.snaplen = min(pr.snaplen, maxPcapRecord)
		s.pcap = pr
		s.linkType = decode.LinkType(pr.linkType)
	case formatPcapng:
		var ngbr **bufio.Reader
		if re != nil {
			re.filter = ngFilter{r: br}
			s.filter, ngbr = &re.filter, &re.ngbr
		} else {
			s.filter = newNgFilter(br)
		}
		ng, err := pcapgo.NewNgReader(bufReader(ngbr, s.filter, bufSize(min(size, ngBufSize))),
			pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil {
			s.closeGzip()
			if ferr := s.filter.err; ferr != nil && ferr != io.EOF {
				err = ferr
			}
			return nil, fmt.Errorf("capture: %s: bad pcapng section header: %s", name, headerErr(err))
		}
		s.ng = ng
	}
	return s, nil
}

// sniff sets *br to a buffered reader of the capture's bytes (decompressed when r is gzip)
// and returns up to its first four bytes.
func (s *FileSource) sniff(r io.Reader, size int64, br **bufio.Reader) ([]byte, bool, error) {
	var brSlot, gzSlot **bufio.Reader
	if s.re != nil {
		brSlot, gzSlot = &s.re.br, &s.re.gzbr
	}
	b := bufReader(brSlot, r, bufSize(size))
	head, err := b.Peek(2)
	if err != nil && err != io.EOF {
		return nil, false, fmt.Errorf("capture: %s: %w", s.path, err)
	}
	compressed := len(head) == 2 && binary.BigEndian.Uint16(head) == magicGzip
	if compressed {
		// The decompressed bytes get their own big buffer: pcapgo reads from it.
		var gz *gzip.Reader
		if s.re != nil && s.re.gz != nil {
			gz = s.re.gz
			err = gz.Reset(b)
		} else {
			gz, err = gzip.NewReader(b)
			if s.re != nil && err == nil {
				s.re.gz = gz
			}
		}
		if err != nil {
			return nil, true, fmt.Errorf("capture: %s: bad gzip stream: %s", s.path, headerErr(err))
		}
		s.gz = gz
		b = bufReader(gzSlot, gz, bufSize(16*size))
	}
	head, err = b.Peek(4)
	if err != nil && err != io.EOF {
		s.closeGzip()
		if compressed && err == io.ErrUnexpectedEOF {
			return nil, true, fmt.Errorf("capture: %s: gzip stream cut short before the capture header", s.path)
		}
		return nil, compressed, fmt.Errorf("capture: %s: %w", s.path, err)
	}
	*br = b
	return head, compressed, nil
}

// bufSize is the read buffer for a stream of size bytes: readBufSize, or less for a small
// stream, but at least 4 KiB (pcapgo wraps a smaller bufio.Reader in one more).
func bufSize(size int64) int {
	return int(max(min(size, readBufSize), 4096))
}

// classify tells the capture format from the first bytes of a (decompressed) file.
func classify(name string, head []byte, compressed bool) (format, error) {
	what := ""
	if compressed {
		what = "gzip-compressed, "
	}
	if len(head) < 4 {
		if len(head) == 0 {
			return 0, fmt.Errorf("capture: %s: %w (%sempty)", name, ErrNotCapture, what)
		}
		return 0, fmt.Errorf("capture: %s: %w (%sonly %d bytes)", name, ErrNotCapture, what, len(head))
	}
	magic := binary.BigEndian.Uint32(head)
	switch magic {
	case magicPcapMicroBE, magicPcapMicroLE, magicPcapNanoBE, magicPcapNanoLE:
		return formatPcap, nil
	case magicPcapng:
		return formatPcapng, nil
	case magicPcapKuzBE, magicPcapKuzLE:
		return 0, fmt.Errorf("capture: %s: unsupported pcap variant (Kuznetsov's modified pcap, magic 0x%08x)", name, magic)
	}
	return 0, fmt.Errorf("capture: %s: %w (%smagic 0x%08x)", name, ErrNotCapture, what, magic)
}

// headerErr describes an error met while reading a file header.
func headerErr(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "file cut short (" + io.ErrUnexpectedEOF.Error() + ")"
	}
	return err.Error()
}

// Path returns the name of the file being read.
func (s *FileSource) Path() string { return s.path }

// Next fills f with the next record of the file. See Source for the errors it returns.
func (s *FileSource) Next(f *Frame) error {
	if s.done {
		if s.closed {
			return fmt.Errorf("capture: %s: %w", s.path, os.ErrClosed)
		}
		return io.EOF
	}
	var (
		data []byte
		ci   gopacket.CaptureInfo
		err  error
		lt   = s.linkType
	)
	if s.pcap != nil {
		if s.pcapBuf != nil {
			if h, _ := s.pcapBuf.Peek(pcapRecHdrLen); len(h) == pcapRecHdrLen {
				fixPcapLengths(h, s.pcapBE)
			}
		}
		data, ci.Timestamp, ci.CaptureLength, ci.Length, err = s.pcap.next()
		if err == io.EOF && ci.CaptureLength > 0 {
			// The record header was read but none of its data: io.ReadFull says io.EOF.
			err = io.ErrUnexpectedEOF
		}
	} else {
		data, ci, err = s.ng.ZeroCopyReadPacketData()
		if err == nil && len(ci.AncillaryData) > 0 {
			// WantMixedLinkType: the link type of the packet's interface, as read from its
			// interface description block (a LINKTYPE_ value, not translated).
			if v, ok := ci.AncillaryData[0].(layers.LinkType); ok {
				lt = decode.LinkType(v)
			}
		}
	}
	if err != nil {
		s.done = true
		return s.readErr(err)
	}
	s.n++
	f.Data = data
	f.Timestamp = ci.Timestamp
	f.CaptureLen = ci.CaptureLength
	f.WireLen = max(ci.Length, ci.CaptureLength) // pcapng does not check; pcap: fixPcapLengths
	f.LinkType = lt
	f.Cnt = s.base + s.n
	return nil
}

// fixPcapLengths raises the wire length of the pcap record header h to its captured length
// when it is smaller. libpcap, and so Suricata, reads such a record; pcapReader (as pcapgo)
// refuses it and stops. h is the header as peeked in the buffer pcapReader reads next, so the
// fix is made in place, before pcapReader sees it.
func fixPcapLengths(h []byte, bigEndian bool) {
	if bigEndian {
		if caplen := binary.BigEndian.Uint32(h[8:12]); caplen > binary.BigEndian.Uint32(h[12:16]) {
			binary.BigEndian.PutUint32(h[12:16], caplen)
		}
		return
	}
	if caplen := binary.LittleEndian.Uint32(h[8:12]); caplen > binary.LittleEndian.Uint32(h[12:16]) {
		binary.LittleEndian.PutUint32(h[12:16], caplen)
	}
}

// readErr turns an error from pcapReader or pcapgo into the error Next returns.
func (s *FileSource) readErr(err error) error {
	if f := s.filter; f != nil && f.err != nil && f.err != io.EOF &&
		(err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), f.err.Error())) {
		// The block filter saw the real cause; pcapgo may have wrapped it in text, or read a
		// stream cut inside a block header as a clean end.
		err = f.err
	}
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("capture: %s: %w: file ends inside record %d (%d complete records read)",
			s.path, ErrTruncated, s.n+1, s.n)
	}
	return fmt.Errorf("capture: %s: record %d: %w", s.path, s.n+1, err)
}

// Close closes the file. It is safe to call more than once.
func (s *FileSource) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.done = true
	s.closeGzip()
	s.pcap, s.pcapBuf, s.ng, s.filter = nil, nil, nil, nil
	if s.file != nil {
		return s.file.Close()
	}
	return nil
}

func (s *FileSource) closeGzip() {
	if s.gz != nil {
		_ = s.gz.Close()
	}
}
