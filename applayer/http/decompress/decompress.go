package decompress

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/flate"
)

// Status reports what happened while decompressing; Write and Close return
// the bits raised since the previous call (each at most once per body).
type Status uint16

const (
	// StatusBomb: the output passed BombLimit and BombRatio times the input
	// (libhtp COMPRESSION_BOMB "decompressed N bytes out of M": event
	// compression_bomb). Decompression of this body stops. The caller counts
	// these per flow: at DefaultMaxBombs it raises
	// compression_bomb_limit_reached and decompresses nothing more.
	StatusBomb Status = 1 << iota
	// StatusTimeLimit: decompressing this body took longer than TimeLimit
	// (libhtp COMPRESSION_BOMB "spent N us decompressing": event
	// compression_bomb); the rest of the body is passed through as it comes.
	StatusTimeLimit
	// StatusTooManyLayers: Reset got more layers than LayerLimit (or
	// MaxLayers); the extra ones were dropped (too_many_encoding_layers).
	StatusTooManyLayers
	// StatusPassthrough: a layer's data decoded neither as its coding nor as
	// any other libhtp retries (gzip, raw deflate, zlib), so it was passed on
	// as-is, as libhtp does (SV http-encoding-gzip-uncompressed). libhtp 8
	// raises no event for this.
	StatusPassthrough
	// StatusCorrupt: a layer failed after it had produced output; the rest of
	// its input is dropped (libhtp loses the decoder at that point).
	StatusCorrupt
	// StatusTruncated: the body ended inside a compressed stream.
	StatusTruncated
	// StatusUnsupported: an lzma or br layer, which Meerkat cannot decode
	// (Suricata 8 can), was passed through.
	StatusUnsupported
	// StatusOutLimit: output reached OutLimit; nothing more is produced.
	StatusOutLimit
)

// Defaults of libhtp / Suricata 8 (decompressors.rs Options::default,
// app-layer-htp.c).
const (
	DefaultLayerLimit = 2
	DefaultBombLimit  = 1 << 20
	DefaultBombRatio  = 2048
	DefaultTimeLimit  = 100 * time.Millisecond
	// DefaultMaxBombs is libhtp's bomb_nb_limit: after this many bombs on a
	// connection its bodies are no longer decompressed.
	DefaultMaxBombs = 3
	// MaxLayers bounds the layers (and so the worker goroutines) of one body
	// whatever LayerLimit says.
	MaxLayers = 8
	// chunkSize is the output granularity (libhtp ENCODING_CHUNK_SIZE): the
	// bomb check runs after each chunk.
	chunkSize = 8192
	// histMax bounds the input a layer keeps to retry other formats before
	// it has produced output.
	histMax = 64 << 10
	// maxRestarts is libhtp's restart budget per layer.
	maxRestarts = 3
)

// Limits bounds one body's decompression. Zero fields take the defaults
// (LayerLimit 2, BombLimit 1 MiB, BombRatio 2048, TimeLimit 100 ms); OutLimit
// 0 means no limit; a negative LayerLimit means no limit (MaxLayers still
// applies).
type Limits struct {
	// LayerLimit is response-body-decompress-layer-limit.
	LayerLimit int
	// BombLimit is compression-bomb-limit: output size past which the ratio
	// check applies.
	BombLimit uint64
	// BombRatio is libhtp's bomb_ratio (output/input).
	BombRatio uint64
	// TimeLimit is decompression-time-limit, over the whole body.
	TimeLimit time.Duration
	// OutLimit stops producing output past this many bytes (the body limit).
	OutLimit uint64
}

type kind uint8

const (
	kindGzip kind = iota
	kindRaw
	kindZlib
)

// next is libhtp InnerDecompressor::restart's order: gzip -> deflate ->
// zlib -> gzip.
func (k kind) next() kind {
	switch k {
	case kindGzip:
		return kindRaw
	case kindRaw:
		return kindZlib
	}
	return kindGzip
}

type layerMode uint8

const (
	modeDecode layerMode = iota
	modePass
	modeFinished
	modeDead
)

type msgKind uint8

const (
	msgNeed msgKind = iota
	msgOut
	msgEnd
)

type message struct {
	kind msgKind
	n    int
	err  error
}

type input struct {
	data      []byte
	eof, kill bool
}

var (
	errKilled    = errors.New("decompress: worker stopped")
	errBadHeader = errors.New("decompress: bad header")
	errPanic     = errors.New("decompress: decoder panicked")
)

var liveWorkers atomic.Int64

// LiveWorkers is the number of decoder goroutines running in the process
// (one per compressed layer of a body being decompressed).
func LiveWorkers() int64 { return liveWorkers.Load() }

// layer is one decoder of the chain. Its goroutine pulls input through feed
// (a reader that, at the end of the chunk it was handed, asks the caller for
// more and blocks) and hands output back in lockstep, so the decoder's state
// survives any chunk split and everything runs during Write.
type layer struct {
	enc      Encoding
	mode     layerMode
	kind     kind
	restarts int
	started  bool
	live     bool
	produced bool
	sawEOF   bool
	histFull bool
	hist     []byte

	in  chan input
	out chan message
	ack chan bool
	wg  sync.WaitGroup

	// owned by the goroutine while live
	cur     []byte
	eof     bool
	killed  bool
	pend    int  // output held in buf, not yet handed over
	flushed bool // pend was handed over during the current Read
	fr      io.ReadCloser
	buf     [chunkSize]byte
}

// Decompressor undoes the content codings of one body at a time. It is
// reusable: Reset starts a body, Write feeds chunks, Close ends it. Each
// compressed layer runs a goroutine while its body is active; Close and Reset
// stop them, so a Decompressor must be Closed or Reset when its body is
// abandoned. The emit function given to Write/Close receives output valid
// only during the call; pass a long-lived func to avoid an allocation per call,
// and do not call the Decompressor from inside it.
//
// Goroutines: at most MaxLayers (and at most LayerLimit) per Decompressor,
// each alive only while its body is between Reset/first Write and
// Close/Reset; LiveWorkers counts them.
type Decompressor struct {
	layers   [MaxLayers]layer
	n        int
	lim      Limits
	emit     func([]byte)
	in, out  uint64
	spent    time.Duration
	chunks   int
	status   Status
	reported Status
	stopped  bool
	passAll  bool
}

// Reset starts a new body decoded through layers (in data order, as
// ParseContentEncoding returns them) under lim, stopping anything left of the
// previous body.
func (d *Decompressor) Reset(layers []Encoding, lim Limits) {
	d.stopAll()
	if lim.LayerLimit == 0 {
		lim.LayerLimit = DefaultLayerLimit
	}
	if lim.BombLimit == 0 {
		lim.BombLimit = DefaultBombLimit
	}
	if lim.BombRatio == 0 {
		lim.BombRatio = DefaultBombRatio
	}
	if lim.TimeLimit == 0 {
		lim.TimeLimit = DefaultTimeLimit
	}
	d.lim = lim
	d.in, d.out, d.spent, d.chunks = 0, 0, 0, 0
	d.status, d.reported = 0, 0
	d.stopped, d.passAll = false, false
	max := MaxLayers
	if lim.LayerLimit > 0 && lim.LayerLimit < max {
		max = lim.LayerLimit
	}
	if len(layers) > max {
		// libhtp keeps the first codings listed, which are the last ones
		// the data goes through.
		layers = layers[len(layers)-max:]
		d.status |= StatusTooManyLayers
	}
	d.n = 0
	for _, e := range layers {
		if e == None {
			continue
		}
		l := &d.layers[d.n]
		d.n++
		l.enc = e
		l.mode = modeDecode
		l.kind = kindGzip
		if e == Deflate {
			l.kind = kindRaw
		}
		if e == Lzma || e == Brotli {
			l.mode = modePass
			d.status |= StatusUnsupported
		}
		l.restarts = 0
		l.started, l.live, l.produced, l.sawEOF, l.histFull = false, false, false, false, false
		l.hist = l.hist[:0]
	}
}

// Write feeds the next chunk of the (de-chunked) body; emit gets the decoded
// bytes, in order.
func (d *Decompressor) Write(in []byte, emit func(out []byte)) Status {
	d.emit = emit
	d.in += uint64(len(in))
	start := time.Now()
	switch {
	case d.stopped || len(in) == 0:
	case d.passAll || d.n == 0:
		d.final(in)
	default:
		d.pass(0, in)
	}
	d.spent += time.Since(start)
	d.checkTime()
	if d.stopped || d.passAll {
		d.stopAll()
	}
	d.emit = nil
	return d.take()
}

// Close ends the body: what the decoders still hold is emitted.
func (d *Decompressor) Close(emit func([]byte)) Status {
	d.emit = emit
	if !d.stopped && !d.passAll {
		for i := 0; i < d.n && !d.stopped; i++ {
			d.layers[i].finish(d, i)
		}
	}
	d.stopAll()
	d.emit = nil
	return d.take()
}

func (d *Decompressor) take() Status {
	s := d.status &^ d.reported
	d.reported |= s
	return s
}

func (d *Decompressor) checkTime() {
	if !d.stopped && !d.passAll && d.n > 0 && d.spent > d.lim.TimeLimit {
		d.status |= StatusTimeLimit
		d.passAll = true
	}
}

// pass hands p to layer idx, or to the output after the last layer.
func (d *Decompressor) pass(idx int, p []byte) {
	if d.stopped {
		return
	}
	if idx >= d.n || d.passAll {
		d.final(p)
		return
	}
	d.layers[idx].write(d, idx, p)
}

// final emits decoded output and applies the output and bomb limits
// (libhtp response_decompressor_callback).
func (d *Decompressor) final(p []byte) {
	if d.stopped || len(p) == 0 {
		return
	}
	full := false
	if d.lim.OutLimit > 0 {
		rem := d.lim.OutLimit - d.out
		if uint64(len(p)) >= rem {
			p, full = p[:rem], true
		}
	}
	d.out += uint64(len(p))
	if len(p) > 0 && d.emit != nil {
		d.emit(p)
	}
	if full {
		d.status |= StatusOutLimit
		d.stopped = true
		return
	}
	if d.n > 0 && !d.passAll && d.out > d.lim.BombLimit {
		lim := d.in * d.lim.BombRatio
		if (d.in != 0 && lim/d.in != d.lim.BombRatio) || d.out > lim {
			d.status |= StatusBomb
			d.stopped = true
			return
		}
	}
	d.chunks++
	if d.chunks%256 == 0 {
		// libhtp also checks the time every time_test_freq callbacks.
		d.checkTime()
	}
}

// stopAll stops every worker goroutine (all are idle between calls, or
// answer an output message on the way back up).
func (d *Decompressor) stopAll() {
	for i := range d.layers[:d.n] {
		d.layers[i].kill()
	}
}

func (l *layer) kill() {
	if !l.live {
		return
	}
	l.in <- input{kill: true}
	l.wg.Wait()
	l.live = false
}

func (l *layer) write(d *Decompressor, idx int, p []byte) {
	if len(p) == 0 {
		return
	}
	switch l.mode {
	case modeFinished, modeDead:
		return
	case modePass:
		d.pass(idx+1, p)
		return
	}
	if !l.produced && !l.histFull {
		if len(l.hist)+len(p) <= histMax {
			l.hist = append(l.hist, p...)
		} else {
			l.histFull = true
		}
	}
	if !l.live {
		l.start()
	}
	l.feed(d, idx, p, false, p)
}

func (l *layer) finish(d *Decompressor, idx int) {
	if l.mode != modeDecode || !l.started {
		return
	}
	l.sawEOF = true
	if !l.live {
		return
	}
	l.feed(d, idx, nil, true, nil)
}

func (l *layer) start() {
	if l.in == nil {
		l.in = make(chan input)
		l.out = make(chan message)
		l.ack = make(chan bool)
	}
	l.started, l.live = true, true
	l.wg.Add(1)
	liveWorkers.Add(1)
	go l.run(l.kind)
}

// feed gives data to the live worker and serves its messages until it wants
// more input or ends. cur is the caller's chunk (for passthrough when the
// retry history overflowed).
func (l *layer) feed(d *Decompressor, idx int, data []byte, eof bool, cur []byte) {
	l.in <- input{data: data, eof: eof}
	for {
		m := <-l.out
		switch m.kind {
		case msgNeed:
			return
		case msgOut:
			l.produced = true
			l.hist = l.hist[:0]
			d.pass(idx+1, l.buf[:m.n])
			if d.stopped || d.passAll {
				l.ack <- false
				l.wg.Wait()
				l.live = false
				return
			}
			l.ack <- true
		case msgEnd:
			l.wg.Wait()
			l.live = false
			l.ended(d, idx, m.err, m.n, eof, cur)
			return
		}
	}
}

// ended handles the end of a worker, whose last pend bytes of output are
// still in buf (libhtp's temporary buffer). A clean end of stream hands them
// over and ignores the rest of the input (libhtp: data after the first stream
// is consumed silently); the body ending inside the stream hands them over
// too (libhtp finish). Otherwise, as InnerDecompressor::write: a first
// decoder that had output pending hands it over and stops (try_finish); a
// retried one loses it and the next format is tried on what was buffered
// (restart: gzip -> deflate -> zlib -> gzip), and when the retries are spent
// the data is passed through as-is. A decoder whose output was already
// handed over on an earlier chunk stops there.
func (l *layer) ended(d *Decompressor, idx int, err error, pend int, eof bool, cur []byte) {
	deliver := func() {
		if pend > 0 {
			l.produced = true
			d.pass(idx+1, l.buf[:pend])
		}
	}
	switch {
	case err == io.EOF:
		deliver()
		l.mode = modeFinished
	case eof && errors.Is(err, io.ErrUnexpectedEOF):
		deliver()
		d.status |= StatusTruncated
		l.mode = modeFinished
	case l.produced || (pend > 0 && l.restarts == 0):
		deliver()
		d.status |= StatusCorrupt
		l.mode = modeDead
	case l.restarts < maxRestarts && !l.histFull:
		l.restarts++
		l.kind = l.kind.next()
		l.start()
		l.feed(d, idx, l.hist, l.sawEOF || eof, cur)
	default:
		d.status |= StatusPassthrough
		l.mode = modePass
		if l.histFull {
			d.pass(idx+1, cur)
		} else {
			d.pass(idx+1, l.hist)
		}
		l.hist = l.hist[:0]
	}
}

// Read and ReadByte are the worker's input: the current chunk, then a
// request for more.
func (l *layer) more() bool {
	for len(l.cur) == 0 {
		if l.eof || l.killed {
			return false
		}
		// The chunk is used up: hand over what it produced (libhtp flushes
		// its decoder at the end of each decompress call).
		if l.pend > 0 {
			l.out <- message{kind: msgOut, n: l.pend}
			if !<-l.ack {
				l.killed = true
				return false
			}
			l.pend, l.flushed = 0, true
		}
		l.out <- message{kind: msgNeed}
		x := <-l.in
		if x.kill {
			l.killed = true
			return false
		}
		l.cur, l.eof = x.data, x.eof
	}
	return true
}

type feeder struct{ l *layer }

func (f feeder) Read(p []byte) (int, error) {
	l := f.l
	if !l.more() {
		if l.killed {
			return 0, errKilled
		}
		return 0, io.EOF
	}
	n := copy(p, l.cur)
	l.cur = l.cur[n:]
	return n, nil
}

func (f feeder) ReadByte() (byte, error) {
	l := f.l
	if !l.more() {
		if l.killed {
			return 0, errKilled
		}
		return 0, io.EOF
	}
	c := l.cur[0]
	l.cur = l.cur[1:]
	return c, nil
}

func readN(f feeder, n int) error {
	for ; n > 0; n-- {
		if _, err := f.ReadByte(); err != nil {
			return err
		}
	}
	return nil
}

// gzipHeader parses a gzip member header as libhtp's tolerant GzipBufWriter:
// magic 1f 8b 08, then the optional extra, name, comment and header CRC;
// reserved flags and the trailer are ignored.
func gzipHeader(f feeder) error {
	var h [10]byte
	for i := range h {
		c, err := f.ReadByte()
		if err != nil {
			return err
		}
		h[i] = c
		if i < 3 && c != "\x1f\x8b\x08"[i] {
			return errBadHeader
		}
	}
	flg := h[3]
	if flg&4 != 0 { // FEXTRA
		a, err := f.ReadByte()
		if err != nil {
			return err
		}
		b, err := f.ReadByte()
		if err != nil {
			return err
		}
		if err := readN(f, int(a)|int(b)<<8); err != nil {
			return err
		}
	}
	for _, bit := range [2]byte{8, 16} { // FNAME, FCOMMENT
		if flg&bit == 0 {
			continue
		}
		for {
			c, err := f.ReadByte()
			if err != nil {
				return err
			}
			if c == 0 {
				break
			}
		}
	}
	if flg&2 != 0 { // FHCRC
		return readN(f, 2)
	}
	return nil
}

// zlibHeader checks a zlib header as flate2/miniz does: method 8, window
// size at most 32 KiB, check bits, no preset dictionary.
func zlibHeader(f feeder) error {
	cmf, err := f.ReadByte()
	if err != nil {
		return err
	}
	flg, err := f.ReadByte()
	if err != nil {
		return err
	}
	if cmf&0x0f != 8 || cmf>>4 > 7 || (uint16(cmf)<<8|uint16(flg))%31 != 0 || flg&0x20 != 0 {
		return errBadHeader
	}
	return nil
}

func (l *layer) run(k kind) {
	defer liveWorkers.Add(-1)
	defer l.wg.Done()
	l.cur, l.eof, l.killed, l.pend, l.flushed = nil, false, false, 0, false
	first := <-l.in
	if first.kill {
		return
	}
	l.cur, l.eof = first.data, first.eof
	end := func(err error) {
		if !l.killed {
			l.out <- message{kind: msgEnd, n: l.pend, err: err}
		}
	}
	defer func() {
		if r := recover(); r != nil {
			end(errPanic)
		}
	}()
	f := feeder{l}
	var err error
	switch k {
	case kindGzip:
		err = gzipHeader(f)
	case kindZlib:
		err = zlibHeader(f)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		end(err)
		return
	}
	if l.fr == nil {
		l.fr = flate.NewReader(f)
	} else if err := l.fr.(flate.Resetter).Reset(f, nil); err != nil {
		end(err)
		return
	}
	for {
		at := l.pend
		l.flushed = false
		n, err := l.fr.Read(l.buf[at:])
		if l.killed {
			return
		}
		if l.flushed && n > 0 {
			// What was pending went out while Read waited for input; its
			// result sits after it.
			copy(l.buf[:], l.buf[at:at+n])
		}
		l.pend += n
		if l.pend == chunkSize {
			l.out <- message{kind: msgOut, n: l.pend}
			l.pend = 0
			if !<-l.ack {
				return
			}
		}
		if err != nil {
			end(err)
			return
		}
	}
}
