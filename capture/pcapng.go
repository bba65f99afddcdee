package capture

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

const (
	// ngBufSize is the buffer between the block filter and pcapgo's NgReader.
	ngBufSize = 64 << 10
	// maxNgBlock is the largest pcapng block accepted: libpcap's initial maximum block size.
	maxNgBlock = 16 << 20
	// maxNgInterfaces is the most interface description blocks one pcapng section may hold.
	// pcapgo keeps every interface of a section (close to a kilobyte each) for as long as the
	// section lasts, so without a cap a file of minimal 20-byte blocks costs 40 times its size
	// in memory. Reading stops with an error at the first interface past the cap, after the
	// packets before it.
	maxNgInterfaces = 65535
)

// pcapng block types the reader passes on, and the byte-order magic of a section header.
const (
	ngBlockSHB       = 0x0a0d0d0a // section header
	ngBlockIDB       = 1          // interface description
	ngBlockPB        = 2          // packet (obsolete)
	ngBlockSPB       = 3          // simple packet
	ngBlockEPB       = 6          // enhanced packet
	ngByteOrderMagic = 0x1a2b3c4d
)

// ngFilter sits between a pcapng byte stream and pcapgo's NgReader. It walks the block
// structure and checks every block's length (a multiple of 4, at least the block type's fixed
// part, at most maxNgBlock, a packet's captured length inside its block) before the reader
// sees a byte of it. It passes on only the blocks the reader needs (section headers, interface
// descriptions, packets) and skips the others.
//
// The checks bound the memory a hostile file can make pcapgo take: pcapgo trusts a packet's
// captured length (a 4 GiB one reads everything that follows into one growing buffer), and it
// keeps every name resolution and decryption secrets block of a section in memory. Skipping
// those blocks costs nothing: Meerkat uses neither, nor interface statistics. Interfaces are
// needed, so their number per section is capped instead (maxNgInterfaces).
type ngFilter struct {
	r     *bufio.Reader
	be    bool   // the current section is big-endian
	pass  int    // bytes of the current block still to pass on
	off   int64  // offset in the stream of the next block
	nIf   int    // interfaces described in the current section
	snap0 uint32 // snap length of interface 0 of the current section
	// err is sticky: io.EOF at a clean end (between blocks), io.ErrUnexpectedEOF when the
	// stream ends inside a block, or the error that stopped the walk.
	err error
}

func newNgFilter(r *bufio.Reader) *ngFilter {
	return &ngFilter{r: r}
}

// u32 reads a number in the byte order of the current section. (A binary.ByteOrder interface
// would make its argument escape: one allocation per block.)
func (f *ngFilter) u32(b []byte) uint32 {
	if f.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// Read passes on the bytes of the blocks the reader needs, as many as fit in p.
func (f *ngFilter) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if f.pass == 0 {
			if f.err != nil {
				break
			}
			if f.err = f.nextBlock(); f.err != nil {
				break
			}
		}
		m := min(len(p)-n, f.pass)
		m, err := f.r.Read(p[n : n+m])
		n += m
		f.pass -= m
		if err != nil {
			if err == io.EOF && f.pass == 0 {
				f.err = io.EOF // the stream ends with the block
			} else {
				f.err = eofIsUnexpected(err)
			}
			break
		}
	}
	if n > 0 {
		return n, nil // the error, if any, comes with the next call
	}
	return 0, f.err
}

// nextBlock checks the next block, skips it and the following ones unless the reader needs
// them, and sets f.pass to the length of the first one it needs.
func (f *ngFilter) nextBlock() error {
	for {
		start := f.off
		hdr, err := f.r.Peek(8)
		if len(hdr) < 8 {
			if len(hdr) == 0 && err == io.EOF {
				return io.EOF
			}
			return eofIsUnexpected(err)
		}
		typ := f.u32(hdr[0:4])
		lenField := [4]byte(hdr[4:8]) // a later Peek may move the buffer under hdr
		if binary.BigEndian.Uint32(hdr[0:4]) == ngBlockSHB {
			typ = ngBlockSHB
			h, err := f.r.Peek(12)
			if len(h) < 12 {
				return eofIsUnexpected(err)
			}
			switch {
			case binary.LittleEndian.Uint32(h[8:12]) == ngByteOrderMagic:
				f.be = false
			case binary.BigEndian.Uint32(h[8:12]) == ngByteOrderMagic:
				f.be = true
			default:
				return fmt.Errorf("pcapng section header at offset %d: bad byte-order magic 0x%08x",
					start, binary.BigEndian.Uint32(h[8:12]))
			}
			f.nIf, f.snap0 = 0, 0
		}
		length := f.u32(lenField[:])
		if length < 12 || length%4 != 0 {
			return fmt.Errorf("pcapng block type 0x%x at offset %d: bad block length %d", typ, start, length)
		}
		if length > maxNgBlock {
			return fmt.Errorf("pcapng block type 0x%x at offset %d: block length %d over the %d-byte limit",
				typ, start, length, maxNgBlock)
		}
		var fixed uint32 // block header, fixed fields and trailing length
		switch typ {
		case ngBlockSHB:
			fixed = 28
		case ngBlockIDB:
			fixed = 20
		case ngBlockEPB, ngBlockPB:
			fixed = 32
		case ngBlockSPB:
			fixed = 16
		default:
			if _, err := f.r.Discard(int(length)); err != nil {
				return eofIsUnexpected(err)
			}
			f.off += int64(length)
			continue
		}
		if length < fixed {
			return fmt.Errorf("pcapng block type 0x%x at offset %d: block length %d shorter than its fixed part (%d)",
				typ, start, length, fixed)
		}
		switch typ {
		case ngBlockIDB:
			if f.nIf >= maxNgInterfaces {
				return fmt.Errorf("pcapng interface description block at offset %d: the section declares more than %d interfaces",
					start, maxNgInterfaces)
			}
			if f.nIf == 0 {
				h, err := f.r.Peek(16)
				if len(h) < 16 {
					return eofIsUnexpected(err)
				}
				f.snap0 = f.u32(h[12:16])
			}
			f.nIf++
		case ngBlockEPB, ngBlockPB:
			h, err := f.r.Peek(28)
			if len(h) < 28 {
				return eofIsUnexpected(err)
			}
			if caplen := f.u32(h[20:24]); caplen > length-fixed {
				return fmt.Errorf("pcapng packet block at offset %d: captured length %d does not fit in its %d-byte block",
					start, caplen, length)
			}
		case ngBlockSPB:
			h, err := f.r.Peek(12)
			if len(h) < 12 {
				return eofIsUnexpected(err)
			}
			// pcapgo takes the packet length, cut to interface 0's snap length, as the
			// captured length.
			caplen := f.u32(h[8:12])
			if f.snap0 != 0 && caplen > f.snap0 {
				caplen = f.snap0
			}
			if caplen > length-fixed {
				return fmt.Errorf("pcapng simple packet block at offset %d: captured length %d does not fit in its %d-byte block",
					start, caplen, length)
			}
		}
		f.pass = int(length)
		f.off += int64(length)
		return nil
	}
}

// eofIsUnexpected turns io.EOF, met inside a block, into io.ErrUnexpectedEOF.
func eofIsUnexpected(err error) error {
	if err == io.EOF || err == nil {
		return io.ErrUnexpectedEOF
	}
	return err
}
