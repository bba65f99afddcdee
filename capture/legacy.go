package capture

import (
	"bufio"
	"encoding/binary"
	"io"
)

// Old pcap versions, which libpcap reads and pcapReader refuses (it takes 2.4 only, as
// pcapgo does). Up to 2.2, and in DG/UX tcpdump's 543.0, a record header holds the wire length
// before the captured length; in 2.3 files the two are in either order, and libpcap swaps them
// when the first is the larger.
const (
	pcapNotSwapped = iota
	pcapSwapped
	pcapMaybeSwapped
)

// pcapSwapMode says how an old pcap version orders its record lengths, and whether pcapReader
// needs legacyPcap to read it at all.
func pcapSwapMode(major, minor uint16) (mode int, legacy bool) {
	switch {
	case major == 2 && minor < 3, major == 543 && minor == 0:
		return pcapSwapped, true
	case major == 2 && minor == 3:
		return pcapMaybeSwapped, true
	}
	return pcapNotSwapped, false
}

// legacyPcap presents an old-version pcap stream as version 2.4 to pcapReader: it rewrites the
// version in the file header and puts the lengths of every record header in 2.4's order.
type legacyPcap struct {
	r     *bufio.Reader
	order binary.ByteOrder
	mode  int
	hdr   [pcapHdrLen]byte
	pend  []byte // header bytes still to hand out
	pass  int    // record data bytes still to pass through
	err   error  // sticky: io.EOF at the end of the stream, or a read error
}

const (
	pcapHdrLen    = 24 // pcap file header
	pcapRecHdrLen = 16 // pcap record header
)

// newLegacyPcap reads the file header from r.
func newLegacyPcap(r *bufio.Reader, order binary.ByteOrder, mode int) *legacyPcap {
	l := &legacyPcap{r: r, order: order, mode: mode}
	n, _ := io.ReadFull(r, l.hdr[:])
	l.order.PutUint16(l.hdr[4:6], 2)
	l.order.PutUint16(l.hdr[6:8], 4)
	l.pend = l.hdr[:n]
	return l
}

// Read hands out the rewritten stream.
func (l *legacyPcap) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case len(l.pend) > 0:
			c := copy(p[n:], l.pend)
			l.pend = l.pend[c:]
			n += c
		case l.pass > 0:
			m, err := l.r.Read(p[n : n+min(len(p)-n, l.pass)])
			n += m
			l.pass -= m
			if err != nil {
				l.err, l.pass = err, 0 // pcapReader sees the record cut short
			}
		case l.err != nil:
			if n > 0 {
				return n, nil
			}
			return 0, l.err
		default:
			l.nextRecord()
		}
	}
	return n, nil
}

// nextRecord reads a record header and sets it up to be handed out.
func (l *legacyPcap) nextRecord() {
	h := l.hdr[:pcapRecHdrLen]
	n, err := io.ReadFull(l.r, h)
	if err != nil {
		// Hand out what there is: pcapReader tells a cut header from a clean end.
		l.pend = h[:n]
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		l.err = err
		return
	}
	first, second := l.order.Uint32(h[8:12]), l.order.Uint32(h[12:16])
	if l.mode == pcapSwapped || l.mode == pcapMaybeSwapped && first > second {
		first, second = second, first
	}
	l.order.PutUint32(h[8:12], first)
	l.order.PutUint32(h[12:16], max(first, second)) // see fixPcapLengths
	l.pend = h
	l.pass = int(first)
}
