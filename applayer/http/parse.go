package http

import (
	"errors"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// Input model: Parse consumes every byte it is given (Result.Consumed = len(data)) and keeps
// its own partial-line buffer per direction, as libhtp's connection parser does
// (request_buf / response_buf, handle_request_absent_lf); the buffer is bounded by
// meta-field-limit (check_request_buffer_limit: request_field_too_long and a parse error past
// it). The exceptions: a protocol change leaves the bytes after the HTTP part unconsumed,
// and a CONNECT request waiting for its response leaves the tunnelled bytes unconsumed
// (libhtp's DATA_OTHER) so they are handed again.

// maxWarnings is HTP_MAX_MESSAGES: log messages turned into events per flow.
const maxWarnings = 512

// errParse is the parse error a libhtp HTP_STATUS_ERROR becomes.
var errParse = errors.New("http: parse error")

type reqState uint8

const (
	rqIdle reqState = iota
	rqLine
	rqHeaders
	rqBodyCL
	rqChunkLen
	rqChunkData
	rqChunkDataEnd
	rqFinalize
	rqConnectWait
	rqConnectProbe
	rqTunnel
	rqIgnore
	rqStop
)

type resState uint8

const (
	rsIdle resState = iota
	rsLine
	rsHeaders
	rsBodyCL
	rsChunkLen
	rsChunkData
	rsChunkDataEnd
	rsBodyClose
	rsFinalize
	rsTunnel
	rsStop
)

// side is one direction's parser state.
type side struct {
	tx      *Tx
	line    []byte // partial line (no LF yet)
	hdr     []byte // pending logical header (folding), without line ending
	hasHdr  bool
	left    uint64 // body bytes left (C-L or chunk)
	trailer bool   // parsing the trailer block
	closed  bool   // EOF seen
	folded  bool   // the pending header was folded
	lfOnly  bool   // the last header-block line ended with a bare LF (no CR before it)
	join    []byte // scratch for a line joined from the buffer and new data
	dec     bodyDecoder
	// hdrTooLong etc. are raised once per tx
}

// State is one flow's HTTP/1 parser state (libhtp's ConnectionParser plus Suricata's
// HtpState). It implements applayer.State.
type State struct {
	cfg      *Config
	pool     *Pool
	txs      []*Tx
	nextID   uint64
	warnings int
	rq       side
	rs       side
	rqs      reqState
	rss      resState
	// respNext is the index in txs of the next tx to get a response.
	respNext int
	// failed: a parse error stopped the parser.
	failed  bool
	uriNorm uriNormalizer
	// rqOff is the offset in the data of the request call being parsed (for
	// DATA_OTHER unconsumption).
	reqConsumed  int
	changePend   *applayer.ProtocolChange
	connectOther bool // a CONNECT request waits for its response
	bombs        int  // compression bombs seen on the flow (libhtp ConnectionParser.bombs)
	// trigger is per direction a raw stream inspection request of this call (Suricata's
	// AppLayerParserTriggerRawStreamInspection from the HTP callbacks).
	trigger [2]bool
	// minInspect is the minimal inspection depth set per direction at a message start
	// (StreamTcpReassemblySetMinInspectDepth in HTPCallbackRequestStart/ResponseStart),
	// minInspectSet whether one is pending for the pipeline.
	minInspect    [2]uint64
	minInspectSet [2]bool
	// upgrade is the protocol a 101 response switched the connection to (h2c: HTTP/2,
	// websocket), with upgradePort and upgradeTx the tx: in the tunnel every new response
	// data asks for the change again, as HTPHandleResponseData does on each
	// HTP_STREAM_STATE_TUNNEL return, until the framework accepts it.
	upgrade     applayer.Proto
	upgradePort uint16
	upgradeTx   *Tx
	change      applayer.ProtocolChange
	// fr is the frame bookkeeping (frames.go).
	fr frameState
	// dirty bit for TxData.Updated
}

// Config returns the configuration the state uses.
func (s *State) Config() *Config { return s.cfg }

// TxCount returns the number of live transactions.
func (s *State) TxCount() int { return len(s.txs) }

// TxAt returns the i-th live transaction.
func (s *State) TxAt(i int) applayer.Tx { return s.txs[i] }

// Tx returns the i-th live transaction as *Tx.
func (s *State) Tx(i int) *Tx { return s.txs[i] }

// FreeTxs releases the transactions with ids below id.
func (s *State) FreeTxs(below uint64) {
	n := 0
	for n < len(s.txs) && s.txs[n].data.ID < below {
		if t := s.txs[n]; t == s.rq.tx || t == s.rs.tx {
			break // a tx being parsed stays (the framework frees complete ones)
		}
		n++
	}
	s.dropFront(n)
}

func (s *State) dropFront(n int) {
	if n == 0 {
		return
	}
	for i := 0; i < n; i++ {
		t := s.txs[i]
		if s.rq.tx == t {
			s.rq.tx = nil
		}
		if s.rs.tx == t {
			s.rs.tx = nil
		}
		if s.upgradeTx == t {
			s.upgradeTx = nil
		}
		if s.rq.dec.t == t {
			s.rq.dec.reset()
		}
		if s.rs.dec.t == t {
			s.rs.dec.reset()
		}
		s.pool.putTx(t)
	}
	copy(s.txs, s.txs[n:])
	for i := len(s.txs) - n; i < len(s.txs); i++ {
		s.txs[i] = nil
	}
	s.txs = s.txs[:len(s.txs)-n]
	s.respNext -= n
	if s.respNext < 0 {
		s.respNext = 0
	}
}

// Reset empties the state for reuse.
func (s *State) Reset() {
	s.rq.tx, s.rs.tx = nil, nil
	s.dropFront(len(s.txs))
	s.nextID, s.warnings, s.respNext = 0, 0, 0
	s.rq.reset()
	s.rs.reset()
	s.rqs, s.rss = rqIdle, rsIdle
	s.failed, s.changePend, s.connectOther, s.bombs = false, nil, false, 0
	s.trigger = [2]bool{}
	s.minInspect, s.minInspectSet = [2]uint64{}, [2]bool{}
	s.upgrade, s.upgradePort, s.upgradeTx = applayer.ProtoUnknown, 0, nil
	s.fr = frameState{}
}

// askChange returns the protocol change request of a result (the state's own storage: one
// request at a time).
func (s *State) askChange(expect applayer.Proto, port uint16) *applayer.ProtocolChange {
	s.change = applayer.ProtocolChange{Expect: expect, Port: port}
	return &s.change
}

// ProtocolChangeRefused is told that the framework refused the change the last Parse asked
// for (AppLayerRequestProtocolChange returned false: another change is pending): the event
// failed_protocol_change goes on the response tx (HTPSetEvent with no tx, to_client).
func (s *State) ProtocolChangeRefused(dir applayer.Dir) {
	t := s.upgradeTx
	if t == nil {
		if s.respNext > 0 && s.respNext <= len(s.txs) {
			t = s.txs[s.respNext-1]
		} else if len(s.txs) > 0 {
			t = s.txs[len(s.txs)-1]
		}
	}
	if t == nil {
		return
	}
	t.data.Events.Set(EvFailedProtocolChange)
	touch(t, 1)
}

func (sd *side) reset() {
	sd.tx = nil
	sd.line = sd.line[:0]
	sd.hdr = sd.hdr[:0]
	sd.hasHdr, sd.left, sd.trailer, sd.closed = false, 0, false, false
	sd.dec.reset()
}

// newTx starts a transaction (libhtp create_tx); nil when max-tx live txs exist.
func (s *State) newTx() *Tx {
	if len(s.txs) >= s.cfg.MaxTx {
		return nil
	}
	t := s.pool.getTx()
	t.reset(s.nextID)
	t.state = s
	s.nextID++
	s.txs = append(s.txs, t)
	return t
}

// event raises a libhtp log message as an event on tx (HTPHandleError): counted, and past
// maxWarnings only too_many_warnings is set.
func (s *State) event(t *Tx, e uint8) {
	if t == nil {
		if len(s.txs) == 0 {
			return
		}
		t = s.txs[len(s.txs)-1]
	}
	if s.warnings >= maxWarnings {
		t.data.Events.Set(EvTooManyWarnings)
		return
	}
	s.warnings++
	t.data.Events.Set(e)
}

// eventOnce is htp_warn_once: the message is logged once per tx.
func (s *State) eventOnce(t *Tx, e uint8) {
	if t != nil && t.data.Events.Has(e) {
		return
	}
	s.event(t, e)
}

// flagEvent sets an event that comes from a tx flag (HTPErrorCheckTxRequestFlags): not
// counted as a message.
func flagEvent(t *Tx, e uint8) { t.data.Events.Set(e) }

func touch(t *Tx, dir int) {
	if t != nil {
		t.data.Updated[dir] = true
	}
}

// Parse parses one direction's data (HTPHandleRequestData / HTPHandleResponseData).
func (s *State) Parse(dir applayer.Dir, data []byte, flags applayer.Flags) applayer.Result {
	if s.failed {
		return applayer.Result{Consumed: len(data), Err: errParse}
	}
	var r applayer.Result
	if dir == flow.ToServer {
		r = s.parseRequest(data, flags&applayer.EOF != 0)
	} else {
		r = s.parseResponse(data, flags&applayer.EOF != 0)
	}
	s.frameEnd(int(dir), r.Consumed)
	if r.Err != nil {
		s.failed = true
	}
	r.TriggerRaw, s.trigger = s.trigger, [2]bool{}
	return r
}

// Gap tells the parser n bytes are missing: inside a Content-Length or close-delimited body
// they are skipped (the file gets a gap), elsewhere libhtp raises invalid_gap and stops
// (htp_connp_req_data with a gap chunk).
func (s *State) Gap(dir applayer.Dir, n uint64) applayer.Result {
	r := s.gap(dir, n)
	s.frameEnd(int(dir), int(min(n, 1<<30)))
	r.TriggerRaw, s.trigger = s.trigger, [2]bool{}
	return r
}

func (s *State) gap(dir applayer.Dir, n uint64) applayer.Result {
	if s.failed {
		return applayer.Result{Err: errParse}
	}
	if dir == flow.ToServer {
		switch s.rqs {
		case rqIdle, rqIgnore, rqTunnel:
			return applayer.Result{}
		case rqBodyCL:
			t := s.rq.tx
			k := min(n, s.rq.left)
			s.rq.left -= k
			t.RequestLength += k
			markGap(t.RequestFiles, k)
			touch(t, 0)
			if s.rq.left == 0 {
				s.reqBodyEnd()
				s.rqs = rqFinalize
			}
			return applayer.Result{}
		}
		s.event(s.rq.tx, EvInvalidGap)
	} else {
		switch s.rss {
		case rsIdle, rsTunnel:
			return applayer.Result{}
		case rsBodyCL, rsBodyClose:
			t := s.rs.tx
			k := n
			if s.rss == rsBodyCL {
				k = min(n, s.rs.left)
				s.rs.left -= k
			}
			t.ResponseLength += k
			if t.resFileWait && k > 0 {
				// a gap as the first body data opens the file too (FileOpenFile with no data)
				t.resFileWait = false
				s.openFile(t, true)
			}
			markGap(t.ResponseFiles, k)
			touch(t, 1)
			if s.rss == rsBodyCL && s.rs.left == 0 {
				s.resComplete()
			}
			return applayer.Result{}
		}
		s.event(s.rs.tx, EvInvalidGap)
	}
	s.failed = true
	return applayer.Result{Err: errParse}
}

// markGap records n missing bytes in the open file: they count in its size and flag it
// (FileAppendDataDo with no data: size += len, FILE_HAS_GAPS).
func markGap(fs []File, n uint64) {
	if len(fs) > 0 {
		f := &fs[len(fs)-1]
		f.Gaps = true
		if f.State == FileOpen {
			f.Size += n
		}
	}
}

// takeLine returns the next complete line (LF included) of data starting at off, joined
// with the buffered partial line; ok false means the rest was buffered (or the limit hit:
// err). The line is valid until the next call.
func (s *State) takeLine(sd *side, data []byte, off *int, t *Tx, tooLong uint8) (line []byte, ok bool, err error) {
	rest := data[*off:]
	i := indexLF(rest)
	if i < 0 {
		if len(sd.line)+len(rest)+len(sd.hdr) > s.cfg.MetaFieldLimit {
			s.event(t, tooLong)
			return nil, false, errParse
		}
		sd.line = append(sd.line, rest...)
		*off = len(data)
		return nil, false, nil
	}
	*off += i + 1
	if len(sd.line) == 0 {
		line = rest[:i+1]
	} else {
		sd.line = append(sd.line, rest[:i+1]...)
		line = sd.line
		sd.line = sd.line[:0] // the bytes stay valid until the next append
	}
	if len(line)+len(sd.hdr) > s.cfg.MetaFieldLimit {
		s.event(t, tooLong)
		return nil, false, errParse
	}
	return line, true, nil
}

func indexLF(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// chomp removes the line ending (any trailing CR/LF), libhtp chomp.
func chomp(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// isSpace is libhtp's is_space: SP, HT, LF, VT, FF, CR.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func trim(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// isLineIgnorable is libhtp is_line_ignorable: a line of whitespace only.
func isLineIgnorable(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) && c != 0 {
			return false
		}
	}
	return true
}

// isToken is RFC 7230 tchar.
func isToken(c byte) bool {
	if c <= 32 || c >= 127 {
		return false
	}
	switch c {
	case '(', ')', '<', '>', '@', ',', ';', ':', '\\', '"', '/', '[', ']', '?', '=', '{', '}':
		return false
	}
	return true
}

func containsFold(h []byte, s string) bool {
	n := len(s)
	for i := 0; i+n <= len(h); i++ {
		if equalFoldBS(h[i:i+n], s) {
			return true
		}
	}
	return false
}

// parseContentLength is libhtp parse_content_length: digits with optional junk before
// (content_length_extra_data_start) or after (..._end); ok false when no digits.
func parseContentLength(v []byte) (n int64, ok bool, junkStart, junkEnd bool) {
	v = trim(v)
	i := 0
	for i < len(v) && (v[i] < '0' || v[i] > '9') {
		i++
	}
	j := i
	for j < len(v) && v[j] >= '0' && v[j] <= '9' {
		j++
	}
	if i == j {
		return 0, false, false, false
	}
	var x int64
	for _, c := range v[i:j] {
		if x > (1<<62)/10 {
			return 0, false, false, false
		}
		x = x*10 + int64(c-'0')
	}
	return x, true, i > 0, j < len(v)
}

// parseProtocol is libhtp parse_protocol: HTTP/0.9, 1.0, 1.1; surrounding whitespace or
// leading zeros give protocol_contains_extra_data.
func parseProtocol(p []byte) (num int, extra bool) {
	t := trim(p)
	extra = len(t) != len(p)
	if len(t) < 5 || !equalFoldBS(t[:4], "HTTP") {
		return ProtoInvalid, false
	}
	t = t[4:]
	k := 0
	for k < len(t) && (t[k] == ' ' || t[k] == '\t') {
		k++
	}
	if k > 0 {
		extra = true
	}
	t = t[k:]
	if len(t) == 0 || t[0] != '/' {
		return ProtoInvalid, false
	}
	t = t[1:]
	k = 0
	for k < len(t) && (t[k] == ' ' || t[k] == '\t') {
		k++
	}
	if k > 0 {
		extra = true
	}
	t = t[k:]
	z := 0
	for z < len(t)-1 && t[z] == '0' && t[z+1] >= '0' && t[z+1] <= '9' {
		z++
	}
	if z > 0 {
		extra = true
		t = t[z:]
	}
	switch string(t) {
	case "0.9":
		return Proto09, extra
	case "1.0":
		return Proto10, extra
	case "1.1":
		return Proto11, extra
	}
	return ProtoInvalid, false
}

// parseStatus is libhtp parse_status: 3 digits in 100..999, nothing else.
func parseStatus(b []byte) int {
	b = trim(b)
	if len(b) == 0 || len(b) > 6 {
		return 0
	}
	x := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0
		}
		x = x*10 + int(c-'0')
	}
	if x < 100 || x > 999 {
		return 0
	}
	return x
}

// parseChunkLen is libhtp parse_chunked_length: leading control chars/spaces skipped, hex
// digits, any trailing data (';' means an extension); ok false for an invalid length.
func parseChunkLen(line []byte) (n uint64, ok, ext bool) {
	b := chomp(line)
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n' || b[i] == 0x0b || b[i] == 0x0c) {
		i++
	}
	j := i
	for j < len(b) && isHex(b[j]) {
		j++
	}
	if j == i {
		return 0, false, false
	}
	if j-i > 16 {
		return 0, false, false
	}
	for _, c := range b[i:j] {
		n = n<<4 | uint64(hexVal(c))
	}
	if n > 1<<31-1 {
		return 0, false, false
	}
	for _, c := range b[j:] {
		if c == ';' {
			ext = true
		}
	}
	return n, true, ext
}

// isChunkedCtlLine is libhtp is_chunked_ctl_line: a line of only CR/LF/SP/HT/VT/FF.
func isChunkedCtlLine(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\r', '\n', ' ', '\t', 0x0b, 0x0c:
		default:
			return false
		}
	}
	return true
}

// isValidChunkedLengthData is libhtp is_valid_chunked_length_data: a partial chunk-length
// line that may still become valid.
func isValidChunkedLengthData(b []byte) bool {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == 0x0b || b[i] == 0x0c) {
		i++
	}
	j := i
	for j < len(b) && isHex(b[j]) {
		j++
	}
	return j < len(b) || j-i <= 16
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// TakeMinInspect is applayer.MinInspecter: the stream's minimal inspection depth set for
// dir at the last request or response start.
func (s *State) TakeMinInspect(dir applayer.Dir) (uint64, bool) {
	d, set := s.minInspect[dir], s.minInspectSet[dir]
	s.minInspectSet[dir] = false
	return d, set
}

// messageStarts notes a request (dir 0) or response (dir 1) start for the stream's minimal
// inspection depth: request- / response-body-minimal-inspect-size.
func (s *State) messageStarts(dir int) {
	d := s.cfg.RequestMinInspect
	if dir == 1 {
		d = s.cfg.ResponseMinInspect
	}
	s.minInspect[dir], s.minInspectSet[dir] = d, true
}
