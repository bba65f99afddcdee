package smtp

import (
	"bytes"
	"errors"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// lineLimit is SMTP_LINE_BUFFER_LIMIT: a command or reply line is cut at 4096 bytes.
const lineLimit = 4096

// The parser_state flags (SMTP_PARSER_STATE_*).
const (
	psDataMode      uint8 = 0x01
	psFirstReply    uint8 = 0x04
	psMultiline     uint8 = 0x08
	psPipeliningSrv uint8 = 0x10
)

// The commands the reply matcher tells apart (SMTP_COMMAND_*).
const (
	cmdNone     uint8 = 0
	cmdStartTLS uint8 = 1
	cmdData     uint8 = 2
	cmdBDAT     uint8 = 3
	cmdDataMode uint8 = 4
	cmdOther    uint8 = 5
	cmdRSET     uint8 = 6
)

// The app-layer events, by id: smtp_decoder_event_table.
const (
	EvInvalidReply uint8 = iota
	EvUnableToMatchReplyWithRequest
	EvMaxCommandLineLenExceeded
	EvMaxReplyLineLenExceeded
	EvInvalidPipelinedSequence
	EvBDATChunkLenExceeded
	EvNoServerWelcomeMessage
	EvTLSRejected
	EvDataCommandRejected
	EvFailedProtocolChange
	EvMimeParseFailed
	EvMimeInvalidBase64
	EvMimeInvalidQP
	EvMimeLongLine
	EvMimeLongEncLine
	EvMimeLongHeaderName
	EvMimeLongHeaderValue
	EvMimeLongBoundary
	EvMimeLongFilename
	EvDuplicateFields
	EvUnparsableContent
	EvTruncatedLine
)

// EventNames are the names app-layer-event:smtp.<name> uses (smtp_decoder_event_table; the
// table has no MIME_MALFORMED_MSG entry, so the ids follow the table, not the enum).
var EventNames = []string{
	"INVALID_REPLY", "UNABLE_TO_MATCH_REPLY_WITH_REQUEST", "MAX_COMMAND_LINE_LEN_EXCEEDED",
	"MAX_REPLY_LINE_LEN_EXCEEDED", "INVALID_PIPELINED_SEQUENCE", "BDAT_CHUNK_LEN_EXCEEDED",
	"NO_SERVER_WELCOME_MESSAGE", "TLS_REJECTED", "DATA_COMMAND_REJECTED", "FAILED_PROTOCOL_CHANGE",
	"MIME_PARSE_FAILED", "MIME_INVALID_BASE64", "MIME_INVALID_QP", "MIME_LONG_LINE",
	"MIME_LONG_ENC_LINE", "MIME_LONG_HEADER_NAME", "MIME_LONG_HEADER_VALUE", "MIME_LONG_BOUNDARY",
	"MIME_LONG_FILENAME", "DUPLICATE_FIELDS", "UNPARSABLE_CONTENT", "TRUNCATED_LINE",
}

var (
	errTxLimit = errors.New("smtp: too many transactions (max-tx)")
	errReply   = errors.New("smtp: invalid reply")
	errBDAT    = errors.New("smtp: invalid BDAT")
	errCmds    = errors.New("smtp: command buffer overflow")
	errGap     = errors.New("smtp: parser does not accept gaps")
)

// replyCodes are the reply codes Suricata knows (smtp_reply_map); a reply with another code
// is INVALID_REPLY and a parse error.
var replyCodes = []string{"211", "214", "220", "221", "235", "250", "251", "252", "334", "354",
	"401", "402", "421", "435", "450", "451", "452", "454", "455", "500", "501", "502", "503",
	"504", "511", "521", "522", "525", "530", "534", "535", "541", "543", "550", "551", "552",
	"553", "554", "555"}

func knownReply(b []byte) bool {
	for _, c := range replyCodes {
		if string(b[:3]) == c {
			return true
		}
	}
	return false
}

// State is a flow's SMTP state (SMTPState).
type State struct {
	pool *Pool
	cfg  *Config
	// txs are the live transactions in id order; curr the one commands go to (curr_tx).
	txs   []*Tx
	curr  *Tx
	txCnt uint64
	// dataCount counts the to-server bytes parsed; lastDataStamp is its value at the
	// current tx's start (toserver_data_count, toserver_last_data_stamp).
	dataCount, lastDataStamp uint64
	discard                  [2]bool
	// noLF is per direction how many bytes at the start of the next call's data are known
	// to hold no LF (the incomplete line the last call left).
	noLF             [2]int
	parserState      uint8
	currentCommand   uint8
	bdatLen, bdatIdx uint32
	// cmds are the commands waiting for their replies, cmdsIdx the one replies match now.
	cmds    []uint8
	cmdsIdx int
	helo    []byte
	hasHelo bool
	// the per-call results: raw inspection triggers, the minimal inspect depth, the change
	minDepth    uint64
	minSet      bool
	trigger     [2]bool
	change      applayer.ProtocolChange
	wantChange  bool
	fileTrackID uint32
}

// Pool is one worker's pool of SMTP states and transactions.
type Pool struct {
	cfg    *Config
	states []*State
	txs    []*Tx
}

// NewPool makes a worker's pool for cfg (nil: the defaults).
func NewPool(cfg *Config) *Pool {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	return &Pool{cfg: cfg}
}

// Get implements applayer.Pool.
func (p *Pool) Get(applayer.FlowInfo) applayer.State { return p.NewState() }

// NewState returns an empty state.
func (p *Pool) NewState() *State {
	if n := len(p.states); n > 0 {
		s := p.states[n-1]
		p.states = p.states[:n-1]
		return s
	}
	return &State{pool: p, cfg: p.cfg}
}

// Put implements applayer.Pool.
func (p *Pool) Put(s applayer.State) {
	st, ok := s.(*State)
	if !ok || st.pool != p {
		return
	}
	st.Reset()
	p.states = append(p.states, st)
}

func (p *Pool) getTx() *Tx {
	if n := len(p.txs); n > 0 {
		t := p.txs[n-1]
		p.txs = p.txs[:n-1]
		return t
	}
	return &Tx{}
}

// Reset implements applayer.State.
func (s *State) Reset() {
	for _, t := range s.txs {
		t.state = nil
		s.pool.txs = append(s.pool.txs, t)
	}
	clear(s.txs)
	*s = State{pool: s.pool, cfg: s.cfg, txs: s.txs[:0], cmds: s.cmds[:0], helo: s.helo[:0]}
}

// TxCount implements applayer.State.
func (s *State) TxCount() int { return len(s.txs) }

// TxAt implements applayer.State.
func (s *State) TxAt(i int) applayer.Tx { return s.txs[i] }

// Tx returns the i-th live transaction.
func (s *State) Tx(i int) *Tx { return s.txs[i] }

// Helo returns the flow's HELO/EHLO argument.
func (s *State) Helo() ([]byte, bool) { return s.helo, s.hasHelo }

// FreeTxs implements applayer.State (SMTPStateTransactionFree): a freed current tx is
// forgotten, so the next command starts a new one (the 8.0.6 trailing QUIT tx).
func (s *State) FreeTxs(below uint64) {
	n := 0
	for _, t := range s.txs {
		if t.data.ID < below {
			if t == s.curr {
				s.curr = nil
			}
			t.state = nil
			s.pool.txs = append(s.pool.txs, t)
			continue
		}
		s.txs[n] = t
		n++
	}
	clear(s.txs[n:])
	s.txs = s.txs[:n]
}

// TakeMinInspect implements applayer.MinInspecter (StreamTcpReassemblySetMinInspectDepth
// to server at each tx start and while attachments are decoded).
func (s *State) TakeMinInspect(dir applayer.Dir) (uint64, bool) {
	if dir != flow.ToServer || !s.minSet {
		return 0, false
	}
	s.minSet = false
	return s.minDepth, true
}

// ProtocolChangeRefused implements applayer.ChangeRefuser: the STARTTLS upgrade could not
// be requested (SCAppLayerRequestProtocolTLSUpgrade false).
func (s *State) ProtocolChangeRefused(applayer.Dir) { s.setEvent(EvFailedProtocolChange) }

// Gap implements applayer.State: SMTP does not accept gaps (no
// APP_LAYER_PARSER_OPT_ACCEPT_GAPS), so the app layer stops for the flow.
func (s *State) Gap(applayer.Dir, uint64) applayer.Result { return applayer.Result{Err: errGap} }

func (s *State) setEvent(e uint8) {
	if s.curr != nil {
		s.curr.data.Events.Set(e)
	}
}

func (s *State) setMinDepth(d uint64) { s.minDepth, s.minSet = d, true }

// line is SMTPLine: buf is the line without its delimiter.
type line struct {
	buf     []byte
	delim   int
	lfFound bool
	// full is the line with its delimiter.
	full []byte
}

// input is SMTPInput over one call's data.
type input struct {
	buf      []byte
	consumed int
}

func (in *input) rem() int { return len(in.buf) - in.consumed }

type lineStatus uint8

const (
	lineOK lineStatus = iota
	lineIncomplete
	lineEnd
)

// getLine is SMTPGetLine: the next LF-terminated line, cut at lineLimit; a line whose LF has
// not come yet is incomplete (Needed: one more byte than is there). A cut line sets
// discard-till-LF when its LF was not seen.
func (s *State) getLine(in *input, ln *line, dir applayer.Dir) (lineStatus, int) {
	if in.rem() <= 0 {
		return lineEnd, 0
	}
	rest := in.buf[in.consumed:]
	// the first bytes of a call's data are the rest the last call left incomplete: they
	// hold no LF (noLF), so a line dripping in is not scanned again from its start
	from := 0
	if in.consumed == 0 && s.noLF[dir] <= len(rest) {
		from = s.noLF[dir]
	}
	s.noLF[dir] = 0
	idx := bytes.IndexByte(rest[from:], '\n')
	if idx >= 0 {
		idx += from
	}
	if idx < 0 {
		if !s.discard[dir] && len(rest) >= lineLimit {
			// SMTPGetLine points the cut line at the input's start, not the current line
			ln.buf, ln.delim, ln.lfFound = in.buf[:lineLimit], 0, false
			ln.full = ln.buf
			return lineOK, 0
		}
		if s.discard[dir] {
			// Meerkat drops the rest of an over-long line as it comes instead of
			// buffering it until its LF (Suricata returns incomplete here): bounded memory.
			in.consumed = len(in.buf)
			return lineEnd, 0
		}
		s.noLF[dir] = len(rest)
		return lineIncomplete, len(rest) + 1
	}
	o := in.consumed
	in.consumed = o + idx + 1
	n := idx + 1
	ln.lfFound = true
	if n >= lineLimit {
		ln.buf, ln.delim = in.buf[o:o+lineLimit], 0
		ln.full = ln.buf
		return lineOK, 0
	}
	if s.discard[dir] {
		s.discard[dir] = false
		ln.buf, ln.delim, ln.full = in.buf[o:o], 0, in.buf[o:o]
		return lineOK, 0
	}
	ln.full = in.buf[o:in.consumed]
	if n >= 2 && in.buf[in.consumed-2] == '\r' {
		ln.delim = 2
	} else {
		ln.delim = 1
	}
	ln.buf = in.buf[o : in.consumed-ln.delim]
	return lineOK, 0
}

// Parse implements applayer.State (SMTPParse).
func (s *State) Parse(dir applayer.Dir, data []byte, flags applayer.Flags) applayer.Result {
	s.trigger = [2]bool{}
	s.wantChange = false
	if len(data) == 0 {
		return applayer.Result{}
	}
	in := input{buf: data}
	var ln line
	var err error
	res := applayer.Result{Consumed: len(data)}
	if dir == flow.ToServer {
		if (s.currentCommand == cmdData || s.currentCommand == cmdBDAT) && s.parserState&psDataMode != 0 {
			ret := s.preProcess(&in, &ln)
			if ret < 0 {
				return s.result(res, errBDAT)
			}
			if ret == 0 && in.consumed == len(data) {
				return s.result(res, nil)
			}
		}
		st, need := s.getLine(&in, &ln, dir)
		for st == lineOK {
			if err = s.processRequest(&in, &ln); err != nil {
				return s.result(res, err)
			}
			if ln.delim == 0 && len(ln.buf) == lineLimit {
				if !ln.lfFound {
					s.discard[dir] = true
				}
				s.setEvent(EvTruncatedLine)
				return s.result(res, nil) // the rest of the input goes too
			}
			ln = line{}
			if in.rem() > 0 && s.currentCommand == cmdData && s.parserState&psDataMode != 0 {
				ret := s.preProcess(&in, &ln)
				if ret < 0 {
					return s.result(res, errBDAT)
				}
				if ret == 0 && in.consumed == len(data) {
					return s.result(res, nil)
				}
			}
			st, need = s.getLine(&in, &ln, dir)
		}
		if st == lineIncomplete {
			res.Consumed, res.Needed = in.consumed, need
		}
		return s.result(res, nil)
	}
	st, need := s.getLine(&in, &ln, dir)
	for st == lineOK {
		if err = s.processReply(&in, &ln); err != nil {
			return s.result(res, err)
		}
		if ln.delim == 0 && len(ln.buf) == lineLimit {
			if !ln.lfFound {
				s.discard[dir] = true
			}
			s.setEvent(EvTruncatedLine)
			return s.result(res, nil)
		}
		ln = line{}
		st, need = s.getLine(&in, &ln, dir)
	}
	if st == lineIncomplete {
		res.Consumed, res.Needed = in.consumed, need
	}
	return s.result(res, nil)
}

func (s *State) result(r applayer.Result, err error) applayer.Result {
	r.Err = err
	r.TriggerRaw = s.trigger
	if s.wantChange {
		r.Change = &s.change // read by the framework at once; no allocation per change
	}
	return r
}

// preProcess is SMTPPreProcessCommands: in DATA mode, once the MIME headers are done, lines
// end at CR, LF or CRLF without a length limit, and the input's last bytes are handed on as
// a line fragment; a line starting with "-" (a possible boundary) goes back to getLine.
// It returns 1 to yield to getLine, 0 when done, -1 on error.
func (s *State) preProcess(in *input, ln *line) int {
	if s.curr != nil && s.curr.Mime != nil && s.curr.Mime.state < mimeBody {
		return 1
	}
	complete := false
	n := in.rem()
	off := in.consumed
	ln.delim = 0
	for i := 0; i < n; i++ {
		if c := in.buf[off+i]; c != '\r' && c != '\n' && i < n-1 {
			// skip to the next line end (or the fragment's last byte)
			rest := in.buf[off+i : off+n-1]
			j := len(rest)
			if k := bytes.IndexByte(rest, '\n'); k >= 0 {
				j = k
			}
			if k := bytes.IndexByte(rest[:j], '\r'); k >= 0 {
				j = k
			}
			i += j
		}
		switch in.buf[off+i] {
		case '\r':
			if i < n-1 && in.buf[off+i+1] == '\n' {
				i++
				ln.delim++
			}
			ln.delim++
			complete = true
		case '\n':
			ln.delim++
			complete = true
		}
		if complete || i == n-1 {
			rest := in.buf[in.consumed:]
			if len(rest) >= 1 && rest[0] == '-' && (len(rest) == 1 || rest[1] == '-') {
				return 1
			}
			total := off + i + 1
			ln.full = in.buf[in.consumed:total]
			ln.buf = in.buf[in.consumed : total-ln.delim]
			ln.lfFound = false
			in.consumed = total
			if err := s.processRequest(in, ln); err != nil {
				return -1
			}
			complete = false
			*ln = line{}
			if s.parserState&psDataMode == 0 {
				break
			}
		}
	}
	return 0
}

func hasPrefixFold(b []byte, lower string) bool {
	return len(b) >= len(lower) && equalLower(b[:len(lower)], lower)
}

// noNewTx: RSET and QUIT outside DATA mode belong to the current (done) tx.
func (s *State) noNewTx(ln *line) bool {
	if s.parserState&psDataMode == 0 {
		return hasPrefixFold(ln.buf, "rset") || hasPrefixFold(ln.buf, "quit")
	}
	return false
}

// processRequest is SMTPProcessRequest.
func (s *State) processRequest(in *input, ln *line) error {
	if len(ln.buf) == 0 && ln.delim == 0 {
		return nil // the end of a discarded long line
	}
	cfg := s.cfg
	if s.curr == nil || (s.curr.Done && !s.noNewTx(ln)) {
		if s.txCnt > cfg.MaxTx {
			return errTxLimit
		}
		t := s.pool.getTx()
		t.reset(s, s.txCnt)
		s.txCnt++
		s.txs = append(s.txs, t)
		s.curr = t
		s.lastDataStamp = s.dataCount
		s.setMinDepth(uint64(cfg.ContentInspectMinSize))
	}
	tx := s.curr
	tx.data.Updated[flow.ToServer] = true
	s.dataCount += uint64(len(ln.buf) + ln.delim)
	if s.parserState&psFirstReply == 0 {
		s.setEvent(EvNoServerWelcomeMessage)
	}
	if s.parserState&psDataMode == 0 {
		s.trigger[flow.ToServer] = true
		b := ln.buf
		switch {
		case hasPrefixFold(b, "starttls"):
			s.currentCommand = cmdStartTLS
		case hasPrefixFold(b, "data"):
			s.currentCommand = cmdData
			if tx.isData {
				// no reply to the first DATA yet and another one comes
				s.setEvent(EvUnparsableContent)
				return nil
			} else if cfg.RawExtraction {
				tx.openFile([]byte("rawmsg"))
				s.fileTrackID++
			} else if cfg.DecodeMIME {
				tx.mimeBuf.reset(cfg)
				tx.Mime = &tx.mimeBuf
			}
			tx.isData = true
			if s.parserState&psPipeliningSrv != 0 {
				s.parserState |= psDataMode // data mode at once, without the 354
			}
		case hasPrefixFold(b, "bdat"):
			if !s.parseBDAT(b) {
				return errBDAT
			}
			s.currentCommand = cmdBDAT
			s.parserState |= psDataMode
		case hasPrefixFold(b, "helo") || hasPrefixFold(b, "ehlo"):
			if s.hasHelo {
				s.setEvent(EvDuplicateFields)
			} else {
				s.helo = append(s.helo[:0], s.param(b, 4)...)
				s.hasHelo = true
			}
			s.currentCommand = cmdOther
		case hasPrefixFold(b, "mail from"):
			if tx.HasMailFrom {
				s.setEvent(EvDuplicateFields)
			} else {
				tx.MailFrom = append(tx.MailFrom[:0], s.param(b, 9)...)
				tx.HasMailFrom = true
			}
			s.currentCommand = cmdOther
		case hasPrefixFold(b, "rcpt to"):
			tx.addRcpt(s.param(b, 7))
			s.currentCommand = cmdOther
		case hasPrefixFold(b, "rset"):
			s.bdatIdx = 0
			s.currentCommand = cmdRSET
		default:
			s.currentCommand = cmdOther
		}
		return s.insertCommand(s.currentCommand)
	}
	switch s.currentCommand {
	case cmdData:
		s.processData(tx, ln)
	case cmdBDAT:
		return s.processBDAT(ln)
	}
	return nil
}

// param is SMTPParseCommandWithParam: after the prefix and one more byte, spaces skipped,
// up to the next space (brackets kept; "SIZE=" options cut off).
func (s *State) param(b []byte, prefix int) []byte {
	i := prefix + 1
	for i < len(b) && b[i] == ' ' {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' {
		j++
	}
	if i >= len(b) {
		return nil
	}
	v := b[i:j]
	if len(v) > 65535 {
		s.setEvent(EvMaxCommandLineLenExceeded)
		v = v[:65535]
	}
	return v
}

// parseBDAT is SMTPParseCommandBDAT: "BDAT" spaces and a decimal chunk length.
func (s *State) parseBDAT(b []byte) bool {
	i := 4
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i == 4 || i == len(b) {
		return false
	}
	v := b[i:min(len(b), i+23)]
	// ByteExtractStringUint32: digits, then nothing else
	var n uint64
	k := 0
	for k < len(v) && v[k] >= '0' && v[k] <= '9' {
		n = n*10 + uint64(v[k]-'0')
		if n > 1<<32-1 {
			return false
		}
		k++
	}
	if k == 0 || k != len(v) {
		return false
	}
	s.bdatLen = uint32(n)
	return true
}

// processBDAT is SMTPProcessCommandBDAT.
func (s *State) processBDAT(ln *line) error {
	s.bdatIdx += uint32(len(ln.buf) + ln.delim)
	if s.bdatIdx > s.bdatLen {
		s.parserState &^= psDataMode
		s.setEvent(EvBDATChunkLenExceeded)
		return errBDAT
	} else if s.bdatIdx == s.bdatLen {
		s.parserState &^= psDataMode
	}
	return nil
}

// insertCommand is SMTPInsertCommandIntoCommandBuffer.
func (s *State) insertCommand(c uint8) error {
	if n := len(s.cmds); n >= 1 && (s.cmds[n-1] == cmdStartTLS || s.cmds[n-1] == cmdData) {
		s.setEvent(EvInvalidPipelinedSequence)
	}
	if len(s.cmds)+1 > maxCmds {
		return errCmds
	}
	s.cmds = append(s.cmds, c)
	return nil
}

func (s *State) txComplete() {
	if t := s.curr; t != nil {
		t.Done = true
		t.data.Progress = [2]uint8{1, 1}
	}
}

// processData is SMTPProcessCommandDATA for one line of the message.
func (s *State) processData(tx *Tx, ln *line) {
	cfg := s.cfg
	if s.parserState&psDataMode == 0 {
		return // the 354 has not come yet
	}
	if len(ln.buf) == 1 && ln.buf[0] == '.' {
		s.parserState &^= psDataMode
		// the reply to the message's end is matched to a pseudo command
		_ = s.insertCommand(cmdDataMode)
		if cfg.RawExtraction {
			tx.closeFile()
		} else if cfg.DecodeMIME && tx.Mime != nil {
			tx.Mime.complete()
			tx.closeFile()
		}
		s.txComplete()
	} else if cfg.RawExtraction {
		tx.appendFile(ln.full, cfg.ContentLimit)
	}
	if s.currentCommand != cmdData || s.parserState&psDataMode == 0 || !cfg.DecodeMIME || tx.Mime == nil {
		return
	}
	m := tx.Mime
	ret, w := m.parseLine(ln.buf, ln.full)
	if len(ln.buf) > mimeMaxLineLen {
		w |= anomLongLine
	}
	s.mimeEvents(w)
	depthBase := uint64(cfg.ContentInspectMinSize) + (s.dataCount - s.lastDataStamp)
	switch ret {
	case mimeFileOpen:
		name := m.Filename()
		if len(name) == 0 {
			break // not an attachment
		}
		s.setMinDepth(depthBase)
		tx.openFile(name)
		s.fileTrackID++
	case mimeFileChunk:
		tx.appendFile(m.out, cfg.ContentLimit)
		if f := tx.curFile(); f != nil && f.inspected == 0 && f.Size >= uint64(cfg.ContentInspectMinSize) {
			s.trigger[flow.ToServer] = true
			s.setMinDepth(depthBase)
		} else if f != nil && f.inspected > 0 {
			s.setMinDepth(0)
		} else {
			s.setMinDepth(depthBase)
		}
	case mimeFileClose:
		tx.appendFile(m.out, cfg.ContentLimit)
		tx.closeFile()
		s.trigger[flow.ToServer] = true
		s.setMinDepth(s.dataCount - s.lastDataStamp)
	default:
		tx.appendFile(m.out, cfg.ContentLimit)
	}
}

// mimeEvents is SetMimeEvents.
func (s *State) mimeEvents(w uint32) {
	if w == 0 {
		return
	}
	for _, e := range [...]struct {
		flag uint32
		ev   uint8
	}{
		{anomInvalidBase64, EvMimeInvalidBase64}, {anomInvalidQP, EvMimeInvalidQP},
		{anomLongLine, EvMimeLongLine}, {anomLongEncLine, EvMimeLongEncLine},
		{anomLongHeaderName, EvMimeLongHeaderName}, {anomLongHeaderValue, EvMimeLongHeaderValue},
		{anomLongBoundary, EvMimeLongBoundary}, {anomLongFilename, EvMimeLongFilename},
	} {
		if w&e.flag != 0 {
			s.setEvent(e.ev)
		}
	}
}

func (s *State) isReplyTo(c uint8) bool {
	return s.cmdsIdx < len(s.cmds) && s.cmds[s.cmdsIdx] == c
}

// processReply is SMTPProcessReply: multi-line replies, the banner, and the replies that
// move the state: 220 to STARTTLS (the TLS upgrade), 354 to DATA, 250 to RSET.
func (s *State) processReply(in *input, ln *line) error {
	b := ln.buf
	if len(b) == 0 && in.consumed == 1 && ln.delim == 1 {
		return nil // a lone LF first
	}
	if s.curr != nil {
		s.curr.data.Updated[flow.ToClient] = true
	}
	if len(b) < 3 {
		s.setEvent(EvInvalidReply)
		return errReply
	}
	if len(b) >= 4 {
		if s.parserState&psMultiline != 0 {
			if b[3] != '-' {
				s.parserState &^= psMultiline
			}
		} else if b[3] == '-' {
			s.parserState |= psMultiline
		}
	} else {
		s.parserState &^= psMultiline
	}
	if !knownReply(b) {
		s.setEvent(EvInvalidReply)
		return errReply
	}
	code220 := string(b[:3]) == "220"
	if s.cmdsIdx == len(s.cmds) {
		if s.parserState&psFirstReply == 0 {
			// the banner (its last line for a multi-line one)
			if s.parserState&psMultiline == 0 {
				s.parserState |= psFirstReply
			}
			if !code220 {
				s.setEvent(EvInvalidReply)
			}
		}
		return nil // else: a reply to no command
	}
	switch {
	case s.isReplyTo(cmdStartTLS):
		if code220 {
			s.parserState |= psDataMode
			s.change = applayer.ProtocolChange{Expect: applayer.ProtoTLS}
			s.wantChange = true
			if s.curr != nil {
				s.txComplete()
			}
		} else {
			s.setEvent(EvTLSRejected)
		}
	case s.isReplyTo(cmdData):
		if string(b[:3]) == "354" {
			s.parserState |= psDataMode
		} else {
			if s.parserState&psPipeliningSrv != 0 {
				s.parserState &^= psDataMode
			}
			s.setEvent(EvDataCommandRejected)
		}
	case s.isReplyTo(cmdRSET):
		if string(b[:3]) == "250" && s.curr != nil && s.parserState&psMultiline == 0 {
			s.txComplete()
		}
	}
	if s.parserState&psMultiline == 0 {
		s.cmdsIdx++
	} else if s.parserState&psFirstReply != 0 {
		if string(b[:3]) == "250" && len(b) == 14 && equalLower(b[4:14], "pipelining") {
			s.parserState |= psPipeliningSrv
		}
	}
	if s.cmdsIdx == len(s.cmds) {
		s.cmds = s.cmds[:0]
		s.cmdsIdx = 0
	}
	s.trigger[flow.ToClient] = true
	return nil
}
