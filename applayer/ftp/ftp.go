// Package ftp is the FTP control-channel parser (src/app-layer-ftp.c, rust/src/ftp/): one
// transaction per recognised command, the replies paired with the oldest open command,
// the dynamic port of PORT/EPRT/PASV/EPSV, and the transfer commands that announce a data
// connection (an expectation for ftp-data).
package ftp

import (
	"errors"
	"net/netip"
	"strconv"
	"unicode/utf8"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/flow"
)

// Command codes (rust/src/ftp/constant.rs FtpRequestCommand).
const (
	CmdUnknown uint8 = iota
	CmdABOR
	CmdACCT
	CmdALLO
	CmdAPPE
	CmdAUTHTLS
	CmdCDUP
	CmdCHMOD
	CmdCWD
	CmdDELE
	CmdEPSV
	CmdHELP
	CmdIDLE
	CmdLIST
	CmdMAIL
	CmdMDTM
	CmdMKD
	CmdMLFL
	CmdMODE
	CmdMRCP
	CmdMRSQ
	CmdMSAM
	CmdMSND
	CmdMSOM
	CmdNLST
	CmdNOOP
	CmdPASS
	CmdPASV
	CmdPORT
	CmdPWD
	CmdQUIT
	CmdREIN
	CmdREST
	CmdRETR
	CmdRMD
	CmdRNFR
	CmdRNTO
	CmdSITE
	CmdSIZE
	CmdSMNT
	CmdSTAT
	CmdSTOR
	CmdSTOU
	CmdSTRU
	CmdSYST
	CmdTYPE
	CmdUMASK
	CmdUSER
	CmdEPRT
	CmdMLSD
)

// command is one entry of Suricata's FTP command table (FTP_COMMANDS in rust/src/ftp/ftp.rs):
// its canonical name and code. The table's order is the order of the patterns.
type command struct {
	name string
	code uint8
}

var commands = [...]command{
	{"PORT", CmdPORT}, {"EPRT", CmdEPRT}, {"AUTH_TLS", CmdAUTHTLS}, {"PASV", CmdPASV},
	{"EPSV", CmdEPSV}, {"RETR", CmdRETR}, {"STOR", CmdSTOR}, {"ABOR", CmdABOR},
	{"ACCT", CmdACCT}, {"ALLO", CmdALLO}, {"APPE", CmdAPPE}, {"CDUP", CmdCDUP},
	{"CHMOD", CmdCHMOD}, {"CWD", CmdCWD}, {"DELE", CmdDELE}, {"HELP", CmdHELP},
	{"IDLE", CmdIDLE}, {"LIST", CmdLIST}, {"MAIL", CmdMAIL}, {"MDTM", CmdMDTM},
	{"MKD", CmdMKD}, {"MLFL", CmdMLFL}, {"MLSD", CmdMLSD}, {"MODE", CmdMODE},
	{"MRCP", CmdMRCP}, {"MRSQ", CmdMRSQ}, {"MSAM", CmdMSAM}, {"MSND", CmdMSND},
	{"MSOM", CmdMSOM}, {"NLST", CmdNLST}, {"NOOP", CmdNOOP}, {"PASS", CmdPASS},
	{"PWD", CmdPWD}, {"QUIT", CmdQUIT}, {"REIN", CmdREIN}, {"REST", CmdREST},
	{"RMD", CmdRMD}, {"RNFR", CmdRNFR}, {"RNTO", CmdRNTO}, {"SITE", CmdSITE},
	{"SIZE", CmdSIZE}, {"SMNT", CmdSMNT}, {"STAT", CmdSTAT}, {"STOU", CmdSTOU},
	{"STRU", CmdSTRU}, {"SYST", CmdSYST}, {"TYPE", CmdTYPE}, {"UMASK", CmdUMASK},
	{"USER", CmdUSER}, {"UNKNOWN", CmdUnknown},
}

// CommandName returns the canonical name of a command code ("" for unknown).
func CommandName(code uint8) string {
	if code == CmdUnknown {
		return ""
	}
	for _, c := range commands {
		if c.code == code {
			return c.name
		}
	}
	return ""
}

// matchCommand is FTPParseRequestCommand: the table's patterns are searched case-insensitively
// anywhere in the line by the multi-pattern matcher and its first report wins: the match that
// ends first (then the earlier table entry). ok is false when no pattern occurs.
func matchCommand(line []byte) (idx int, ok bool) {
	for end := 1; end <= len(line); end++ {
		for _, i := range byLast[line[end-1]] {
			n := len(commands[i].name)
			if n <= end && equalFoldASCII(line[end-n:end], commands[i].name) {
				return int(i), true
			}
		}
	}
	return 0, false
}

// byLast lists the table's entries, in table order, by the last byte of their name in
// either case: a match can only end on one of them.
var byLast = func() (t [256][]uint8) {
	for i, c := range commands {
		b := c.name[len(c.name)-1]
		t[b] = append(t[b], uint8(i))
		if 'A' <= b && b <= 'Z' {
			t[b+'a'-'A'] = append(t[b+'a'-'A'], uint8(i))
		}
	}
	return t
}()

func equalFoldASCII(b []byte, s string) bool {
	for i := range len(s) {
		c := b[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// The event ids, indexes of EventNames (rust/src/ftp/event.rs FtpEvent).
const (
	EventRequestCommandTooLong uint8 = iota
	EventResponseCommandTooLong
	EventTooManyTransactions
	EventFileBeforePort
	EventFileWithoutName
)

// EventNames are the app-layer-event:ftp.<name> names by event id.
var EventNames = []string{"request_command_too_long", "response_command_too_long",
	"too_many_transactions", "file_before_port", "file_without_name"}

// Settings is app-layer.protocols.ftp (SCFTPGetConfigValues).
type Settings struct {
	// MemCap bounds the bytes one worker's FTP states keep (memcap; 0: no limit, the
	// default).
	MemCap uint64
	// MaxTx is max-tx (1024): beyond it the oldest open tx is closed with
	// too_many_transactions and parsing fails.
	MaxTx uint32
	// MaxLineLen is max-line-length (4096): longer lines are truncated.
	MaxLineLen uint32
}

// Configure reads app-layer.protocols.ftp: memcap and max-line-length as sizes, max-tx as an
// integer; an invalid value keeps the default, as Suricata warns and does. It returns
// *Settings.
func Configure(conf *config.Node) (any, error) {
	s := &Settings{MaxTx: 1024, MaxLineLen: 4096}
	if v, err := conf.Size("memcap", 0); err == nil {
		s.MemCap = v
	}
	if v, ok := conf.String("max-tx"); ok {
		if n, err := strconv.ParseUint(v, 10, 32); err == nil {
			s.MaxTx = uint32(n)
		}
	}
	if v, err := conf.Size("max-line-length", 4096); err == nil && v <= 1<<31 {
		s.MaxLineLen = uint32(v)
	}
	if s.MaxLineLen == 0 {
		s.MaxLineLen = 1 // a line always has room for its first byte
	}
	return s, nil
}

// reply is one response line of a tx (FTPResponseLine): the 3-digit code (may be empty) and
// the text, as offsets into the tx's arena.
type reply struct {
	codeOff, codeLen, textOff, textLen int
	truncated                          bool
}

// Tx is one FTP command and its reply (FTPTransaction).
type Tx struct {
	td applayer.TxData
	// cmdIdx is the command's table index, code its code (CmdUnknown: no command).
	cmdIdx int
	code   uint8
	// request is the command line, trailing white space removed; truncated says it was
	// cut at max-line-length.
	request          []byte
	hasRequest       bool
	requestTruncated bool
	arena            []byte
	replies          []reply
	// DynPort and Active are the data connection port and mode its reply (or command)
	// set; Done says the reply is complete.
	DynPort uint16
	Active  bool
	Done    bool
	mem     uint64
	st      *State
}

// TxData returns the framework data.
func (t *Tx) TxData() *applayer.TxData { return &t.td }

// Command returns the canonical command name, ok false for an unknown command.
func (t *Tx) Command() (string, bool) {
	if t.code == CmdUnknown {
		return "", false
	}
	return commands[t.cmdIdx].name, true
}

// Code returns the command code.
func (t *Tx) Code() uint8 { return t.code }

// Request returns the stored command line and whether it was truncated.
func (t *Tx) Request() ([]byte, bool) {
	if !t.hasRequest {
		return nil, t.requestTruncated
	}
	return t.request[:len(t.request)-1], t.requestTruncated
}

// CommandData is the ftp.command_data buffer (DetectFTPCommandDataGetData): the request
// from one byte past the command name's length, through the request's terminating NUL
// (request_length counts it), when that is not empty.
func (t *Tx) CommandData() ([]byte, bool) {
	name, ok := t.Command()
	if !ok || !t.hasRequest {
		return nil, false
	}
	if n := len(t.request) - 1; n > len(name) {
		return t.request[len(name)+1:], true
	}
	return nil, false
}

// EVECommandData is the EVE command_data (EveFTPLogCommand): the same bytes without the NUL,
// present when the request is longer than the command name and a space.
func (t *Tx) EVECommandData() ([]byte, bool) {
	name, ok := t.Command()
	if !ok || !t.hasRequest || len(t.request) <= len(name)+1 {
		return nil, false
	}
	return t.request[len(name)+1 : len(t.request)-1], true
}

// Replies is the number of response lines.
func (t *Tx) Replies() int { return len(t.replies) }

// Reply returns the i-th response line's code and text and whether it was truncated.
func (t *Tx) Reply(i int) (code, text []byte, truncated bool) {
	r := &t.replies[i]
	return t.arena[r.codeOff : r.codeOff+r.codeLen], t.arena[r.textOff : r.textOff+r.textLen], r.truncated
}

func (t *Tx) reset(id uint64) {
	*t = Tx{request: t.request[:0], arena: t.arena[:0], replies: t.replies[:0]}
	t.td.Reset(id)
}

// txOverhead is what a tx counts against the memcap besides its bytes (sizeof FTPTransaction).
const txOverhead = 128

// charge counts n more bytes of t against the memcap (FTPCalloc's FTPCheckMemcap); false
// when they do not fit.
func (s *State) charge(t *Tx, n int) bool {
	p := s.pool
	if s.cfg.MemCap != 0 && p.used+uint64(n) > s.cfg.MemCap {
		return false
	}
	p.used += uint64(n)
	t.mem += uint64(n)
	return true
}

func (s *State) release(t *Tx) {
	s.pool.used -= min(s.pool.used, t.mem)
	t.mem = 0
	if t == s.curTx {
		s.curTx = nil
	}
	s.pool.putTx(t)
}

// TransferCmd is what a transfer command hands the data connection it announces
// (FtpTransferCmd): the control flow, the command, the data direction and the file name.
type TransferCmd struct {
	FlowID   uint64
	Cmd      uint8
	Dir      applayer.Dir
	FileName []byte
}

// ExpectFunc registers the expectation of a data connection: from the control flow's
// addresses, to port dport, for data of direction dir (AppLayerExpectationCreate).
type ExpectFunc func(f *flow.Flow, dir applayer.Dir, dport uint16, cmd *TransferCmd) error

// Expect is called for every transfer command with a negotiated port; the ftp-data part of
// the app layer sets it. Nil: no expectation is made.
var Expect ExpectFunc

// State is a flow's FTP state (FtpState).
type State struct {
	cfg     *Settings
	pool    *Pool
	f       *flow.Flow
	txs     []*Tx
	nextID  uint64
	command uint8 // the last request's command
	curTx   *Tx
	// PortLine is the last PORT/EPRT line (ftpbounce reads it), Cmd the last command.
	portLine   []byte
	dynPort    uint16
	active     bool
	trunc      [2]bool
	tlsUpgrade bool
	srcIP      netip.Addr
}

var errFTP = errors.New("ftp: parse error")

// TxCount returns the live transactions.
func (s *State) TxCount() int { return len(s.txs) }

// TxAt returns the i-th live transaction.
func (s *State) TxAt(i int) applayer.Tx { return s.txs[i] }

// FreeTxs frees the transactions below id.
func (s *State) FreeTxs(below uint64) {
	n := 0
	for n < len(s.txs) && s.txs[n].td.ID < below {
		s.release(s.txs[n])
		n++
	}
	if n > 0 {
		k := copy(s.txs, s.txs[n:])
		clear(s.txs[k:])
		s.txs = s.txs[:k]
	}
}

// Reset empties the state for another flow.
func (s *State) Reset() {
	for _, t := range s.txs {
		s.release(t)
	}
	clear(s.txs)
	*s = State{cfg: s.cfg, pool: s.pool, txs: s.txs[:0], portLine: s.portLine[:0]}
}

// Gap: the FTP parser does not accept gaps (no APP_LAYER_PARSER_OPT_ACCEPT_GAPS): the gap is
// an error, after raw inspection of the direction is asked for.
func (s *State) Gap(dir applayer.Dir, _ uint64) applayer.Result {
	r := applayer.Result{Err: errFTP}
	r.TriggerRaw[dir] = true
	return r
}

// PortLine returns the last PORT or EPRT line and whether the last command was PORT (the
// ftpbounce keyword's inputs: ftp_state->port_line and ftp_state->command).
func (s *State) PortLine() ([]byte, bool) { return s.portLine, s.command == CmdPORT }

// ClientIP is the flow's source address (ftpbounce compares the PORT address with it).
func (s *State) ClientIP() netip.Addr { return s.srcIP }

// newTx is FTPTransactionCreate: nil when max-tx is exceeded (the oldest open tx is closed
// with too_many_transactions) or the memcap is reached.
func (s *State) newTx() *Tx {
	if len(s.txs) > 0 && s.nextID-s.txs[0].td.ID > uint64(s.cfg.MaxTx) {
		for _, t := range s.txs {
			if !t.Done {
				t.Done = true
				t.td.Updated = [2]bool{true, true}
				t.td.Events.Set(EventTooManyTransactions)
				t.td.Progress[flow.ToClient] = 1
				break
			}
		}
		return nil
	}
	if s.cfg.MemCap != 0 && s.pool.used+txOverhead > s.cfg.MemCap {
		return nil
	}
	t := s.pool.getTx()
	t.reset(s.nextID)
	t.st = s
	s.charge(t, txOverhead)
	s.nextID++
	t.td.Progress[flow.ToServer] = 1 // having a tx implies the request is done
	s.txs = append(s.txs, t)
	return t
}

// line is FtpLineState.
type line struct {
	b       []byte
	lfFound bool
}

// getLine is FTPGetLineForDirection on data[consumed:]. st: 0 a line, 1 incomplete (need
// more: result r), -1 nothing more.
func (s *State) getLine(data []byte, off *int, end *int, dir applayer.Dir, l *line) (st int, r applayer.Result) {
	max := int(s.cfg.MaxLineLen)
	in := data[*off:*end]
	if len(in) == 0 {
		return -1, r
	}
	lf := -1
	for i, c := range in {
		if c == '\n' {
			lf = i
			break
		}
	}
	if lf < 0 {
		if !s.trunc[dir] && len(in) >= max {
			s.trunc[dir] = true
			// Suricata takes the line from the start of the whole input here.
			*l = line{b: data[:min(max, len(data))]}
			*end = *off // input->len = 0: nothing more after this line
			return 0, r
		}
		if s.trunc[dir] && len(in) >= max {
			// A truncated line still without its end: Suricata keeps asking for more; the
			// bytes are dropped here so the buffer stays bounded.
			*off = *end
			return -1, r
		}
		return 1, applayer.Result{Consumed: *off, Needed: len(in) + 1}
	}
	if s.trunc[dir] {
		// The rest of a truncated line and whatever came with it are discarded.
		s.trunc[dir] = false
		*end = *off
		return -1, r
	}
	b := in[:lf+1]
	*off += lf + 1
	l.lfFound = true
	if len(b) >= max {
		s.trunc[dir] = true
		l.b = b[:max]
		return 0, r
	}
	if len(b) >= 2 && b[len(b)-2] == '\r' {
		l.b = b[:len(b)-2]
	} else {
		l.b = b[:len(b)-1]
	}
	return 0, r
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// Parse is FTPParseRequest / FTPParseResponse.
func (s *State) Parse(dir applayer.Dir, data []byte, flags applayer.Flags) applayer.Result {
	if dir == flow.ToServer {
		return s.parseRequest(data, flags)
	}
	return s.parseResponse(data)
}

func (s *State) parseRequest(data []byte, flags applayer.Flags) applayer.Result {
	if len(data) == 0 {
		if flags&applayer.EOF != 0 {
			return applayer.Result{}
		}
		return applayer.Result{Err: errFTP}
	}
	off, end := 0, len(data)
	xferDir := applayer.Dir(flow.ToServer)
	for {
		var l line
		st, r := s.getLine(data, &off, &end, flow.ToServer, &l)
		if st == 1 {
			return r
		}
		if st < 0 {
			break
		}
		idx, ok := matchCommand(l.b)
		if !ok {
			s.command = CmdUnknown
			continue
		}
		s.command = commands[idx].code
		t := s.newTx()
		if t == nil {
			return applayer.Result{Err: errFTP}
		}
		t.td.Updated[flow.ToServer] = true
		s.curTx = t
		t.cmdIdx, t.code = idx, commands[idx].code
		// CopyCommandLine: the line without trailing white space.
		n := len(l.b)
		for n > 0 && isSpace(l.b[n-1]) {
			n--
		}
		lb := l.b[:n]
		if n > 0 && s.charge(t, n+1) {
			t.request = append(append(t.request[:0], lb...), 0) // NUL-terminated as CopyCommandLine's copy
			t.hasRequest = true
		}
		t.requestTruncated = s.trunc[flow.ToServer]
		if l.lfFound {
			s.trunc[flow.ToServer] = false
		}
		if t.requestTruncated {
			t.td.Events.Set(EventRequestCommandTooLong)
		}
		c := s.command
		if s.active && (c == CmdSTOR || c == CmdAPPE || c == CmdSTOU) ||
			!s.active && (c == CmdRETR || c == CmdNLST || c == CmdLIST || c == CmdMLSD) {
			xferDir = flow.ToClient
		}
		s.transfer(t, c, lb, xferDir)
		if len(l.b) >= int(s.cfg.MaxLineLen) {
			break
		}
	}
	return applayer.Result{Consumed: len(data)}
}

// transfer is the command switch of FTPParseRequest: PORT/EPRT keep their line, the transfer
// commands announce the data connection once a port was negotiated.
func (s *State) transfer(t *Tx, c uint8, lb []byte, xferDir applayer.Dir) {
	hasFile := false
	switch c {
	case CmdEPRT, CmdPORT:
		s.portLine = append(s.portLine[:0], lb[:min(len(lb), int(s.cfg.MaxLineLen))]...)
		return
	case CmdRETR, CmdSTOR, CmdAPPE:
		if len(lb) < 6 {
			t.td.Events.Set(EventFileWithoutName)
			return
		}
		hasFile = true
	case CmdSTOU:
		hasFile = len(lb) >= 6
	case CmdNLST, CmdLIST, CmdMLSD:
	default:
		return
	}
	if s.dynPort == 0 {
		t.td.Events.Set(EventFileBeforePort)
		return
	}
	cmd := &TransferCmd{Cmd: c, Dir: xferDir}
	if s.f != nil {
		cmd.FlowID = s.f.ID()
	}
	switch {
	case hasFile:
		cmd.FileName = append([]byte(nil), lb[5:5+min(len(lb)-5, 4095)]...) // SC_FILENAME_MAX
	case c == CmdSTOU:
		cmd.FileName = []byte("<stou>")
	}
	if Expect != nil && s.f != nil {
		_ = Expect(s.f, xferDir, s.dynPort, cmd)
	}
	s.dynPort = 0
	s.active = false
}

// oldestTx is FTPGetOldestTx: the first open tx from start on, else the last one.
func (s *State) oldestTx(start int) (int, *Tx) {
	for i := start; i < len(s.txs); i++ {
		if !s.txs[i].Done {
			return i, s.txs[i]
		}
	}
	if len(s.txs) > 0 && start < len(s.txs) {
		return len(s.txs) - 1, s.txs[len(s.txs)-1]
	}
	return -1, nil
}

func (s *State) parseResponse(data []byte) applayer.Result {
	if len(data) == 0 {
		return applayer.Result{}
	}
	off, end := 0, len(data)
	last := 0
	for {
		var l line
		st, r := s.getLine(data, &off, &end, flow.ToClient, &l)
		if st == 1 {
			return s.tlsChange(r)
		}
		if st < 0 {
			break
		}
		i, t := s.oldestTx(last)
		if t == nil {
			t = s.newTx() // a to-client only tx
			i = len(s.txs) - 1
		}
		if t == nil {
			return applayer.Result{Err: errFTP}
		}
		last = i
		t.td.Updated[flow.ToClient] = true
		if s.command == CmdUnknown {
			t.code = CmdUnknown
		}
		s.curTx = t
		lb := l.b
		complete := false
		switch s.command {
		case CmdAUTHTLS:
			if len(lb) >= 4 && string(lb[:4]) == "234 " {
				s.tlsUpgrade = true
			}
		case CmdEPRT:
			p := parseEPRT(s.portLine)
			if p == 0 {
				complete = true
				break
			}
			s.dynPort, s.active, t.DynPort, t.Active = p, true, p, true
		case CmdPORT:
			p := parsePORT(s.portLine)
			if p == 0 {
				complete = true
				break
			}
			s.dynPort, s.active, t.DynPort, t.Active = p, true, p, true
		case CmdPASV:
			if len(lb) >= 4 && string(lb[:4]) == "227 " {
				if p := parsePASV(lb); p != 0 {
					s.dynPort, s.active, t.DynPort, t.Active = p, false, p, false
				}
			}
		case CmdEPSV:
			if len(lb) >= 4 && string(lb[:4]) == "229 " {
				if p := parseEPSV(lb); p != 0 {
					s.dynPort, s.active, t.DynPort, t.Active = p, false, p, false
				}
			}
		}
		if !complete {
			if len(lb) > 0 {
				s.addReply(t, lb)
				if l.lfFound {
					s.trunc[flow.ToClient] = false
				}
			}
			if isPPR(lb) { // a preliminary reply keeps the tx open
				continue
			}
		}
		t.Done = true
		t.td.Progress[flow.ToClient] = 1
		if len(lb) >= int(s.cfg.MaxLineLen) {
			break
		}
	}
	return s.tlsChange(applayer.Result{Consumed: len(data)})
}

// tlsChange adds the TLS upgrade an AUTH TLS reply asked for (SCAppLayerRequestProtocolTLSUpgrade).
func (s *State) tlsChange(r applayer.Result) applayer.Result {
	if s.tlsUpgrade && r.Err == nil {
		s.tlsUpgrade = false
		r.Change = &applayer.ProtocolChange{Expect: applayer.ProtoTLS}
	}
	return r
}

// isPPR is FTPIsPPR: a 1xx preliminary reply ("1dd ").
func isPPR(b []byte) bool {
	return len(b) >= 4 && b[0] == '1' && isDigit(b[1]) && isDigit(b[2]) && isSpace(b[3])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// addReply is SCFTPParseResponseLine: the line as UTF-8 (invalid bytes replaced, as
// String::from_utf8_lossy), trailing white space removed; a first word of three digits
// followed by a space is the code, the rest the text; an empty line is not kept.
func (s *State) addReply(t *Tx, lb []byte) {
	if !s.charge(t, len(lb)+48) { // FTPResponseWrapperAlloc and the line's bytes
		return
	}
	start := len(t.arena)
	for len(lb) > 0 {
		r, n := utf8.DecodeRune(lb)
		if r == utf8.RuneError && n <= 1 {
			t.arena = append(t.arena, "\uFFFD"...)
		} else {
			t.arena = append(t.arena, lb[:n]...)
		}
		lb = lb[n:]
	}
	ln := t.arena[start:]
	// trim_end: Unicode white space; the ASCII ones are what FTP lines end with.
	n := len(ln)
	for n > 0 && (isSpace(ln[n-1]) || ln[n-1] == 0x1c || ln[n-1] == 0x1d || ln[n-1] == 0x1e || ln[n-1] == 0x1f) {
		n--
	}
	if n == 0 {
		t.arena = t.arena[:start]
		return
	}
	rp := reply{textOff: start, textLen: n, truncated: s.trunc[flow.ToClient]}
	if sp := indexByte(ln[:n], ' '); sp == 3 && isDigit(ln[0]) && isDigit(ln[1]) && isDigit(ln[2]) {
		rp.codeOff, rp.codeLen = start, 3
		rp.textOff, rp.textLen = start+4, n-4
	}
	if rp.truncated {
		t.td.Events.Set(EventResponseCommandTooLong)
	}
	t.replies = append(t.replies, rp)
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// Pool is one worker's pool of FTP states and transactions.
type Pool struct {
	cfg    *Settings
	states []*State
	txs    []*Tx
	// used is the bytes this worker's FTP states hold (ftp_memuse), against the memcap.
	used uint64
}

// NewPool makes a pool for cfg (nil: defaults).
func NewPool(cfg *Settings) *Pool {
	if cfg == nil {
		c, _ := Configure(nil)
		cfg = c.(*Settings)
	}
	return &Pool{cfg: cfg}
}

// Get returns a state for a new flow.
func (p *Pool) Get(info applayer.FlowInfo) applayer.State { return p.NewState(info.F) }

// NewState is Get returning *State.
func (p *Pool) NewState(f *flow.Flow) *State {
	var s *State
	if n := len(p.states); n > 0 {
		s = p.states[n-1]
		p.states = p.states[:n-1]
	} else {
		s = &State{cfg: p.cfg, pool: p}
	}
	s.f = f
	if f != nil {
		s.srcIP = f.SrcIP
	}
	return s
}

// Put takes a state back.
func (p *Pool) Put(st applayer.State) {
	if s, ok := st.(*State); ok && s.pool == p {
		s.Reset()
		p.states = append(p.states, s)
	}
}

func (p *Pool) getTx() *Tx {
	if n := len(p.txs); n > 0 {
		t := p.txs[n-1]
		p.txs = p.txs[:n-1]
		return t
	}
	return &Tx{}
}

func (p *Pool) putTx(t *Tx) { p.txs = append(p.txs, t) }
