// Package ssh is the SSH app-layer parser (rust/src/ssh/ssh.rs, rust/src/ssh/parser.rs,
// src/app-layer-ssh.c): the "SSH-" detection pattern, one transaction per flow holding each
// side's banner (protocol and software version), its HASSH fingerprint from the KEXINIT
// record, and its progress up to NEWKEYS, when the encryption-handling setting applies.
package ssh

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/flow"
)

// The per-side connection states (SSHConnectionState), which are also the progress values.
const (
	StateInProgress    uint8 = 0
	StateBannerWaitEOL uint8 = 1
	StateBannerDone    uint8 = 2
	StateFinished      uint8 = 3
)

// The sizes of rust/src/ssh/ssh.rs: the banner length beyond which long_banner is raised,
// the record header (u32 length, padding length, message code), and the largest KEXINIT
// reassembled for HASSH.
const (
	MaxBannerLen            = 256
	recordHeaderLen         = 6
	maxReassembledRecordLen = 65535
	// maxField bounds what one side keeps of a banner field or a HASSH string: a banner line
	// or KEXINIT that arrives whole in one chunk may be longer than the reassembly bound
	// (Suricata keeps it all; Meerkat keeps this much).
	maxField = maxReassembledRecordLen
)

// SSH message codes (rust/src/ssh/parser.rs MessageCode) the parser acts on.
const (
	msgKexinit = 20
	msgNewKeys = 21
)

// The event ids, indexes of EventNames (SSHEvent).
const (
	EventInvalidBanner uint8 = iota
	EventLongBanner
	EventInvalidRecord
	EventLongKexRecord
)

// EventNames are the app-layer-event:ssh.<name> names by event id.
var EventNames = []string{"invalid_banner", "long_banner", "invalid_record", "long_kex_record"}

// Encryption is app-layer.protocols.ssh.encryption-handling (SshEncryptionHandling): what
// happens once both sides sent NEWKEYS.
type Encryption uint8

const (
	// TrackOnly (default) stops the flow's app-layer parsing and inspection
	// (APP_LAYER_PARSER_NO_INSPECTION).
	TrackOnly Encryption = iota
	// Bypass also stops reassembly and lets the flow be bypassed.
	Bypass
	// Full changes nothing: the encrypted records go on being parsed.
	Full
)

// Settings is app-layer.protocols.ssh as Configure reads it.
type Settings struct {
	// Hassh is app-layer.protocols.ssh.hassh: yes.
	Hassh bool
	// Encryption is encryption-handling.
	Encryption Encryption
}

// hasshOn is HASSH_ENABLED: set by a "hassh: yes" configuration or by a loaded hassh rule.
var hasshOn atomic.Bool

// EnableHassh turns HASSH computation on for every flow (SCSshEnableHassh): detection calls
// it when a rule uses an ssh.hassh* buffer, whatever app-layer.protocols.ssh.hassh says.
func EnableHassh() { hasshOn.Store(true) }

// HasshEnabled reports whether HASSH is computed (SCSshHasshIsEnabled).
func HasshEnabled() bool { return hasshOn.Load() }

// Configure reads app-layer.protocols.ssh (RegisterSSHParsers): hassh (yes enables it; no,
// auto and anything else leave the default, off) and encryption-handling (full, track-only,
// bypass; any other value is the default, track-only). It returns *Settings; a "hassh: yes"
// enables HASSH for the process as Suricata's SCSshEnableHassh does.
func Configure(conf *config.Node) (any, error) {
	s := &Settings{}
	if v, ok := conf.String("hassh"); ok && config.IsTrue(v) && !strings.EqualFold(v, "auto") {
		s.Hassh = true
		EnableHassh()
	}
	if v, ok := conf.String("encryption-handling"); ok {
		switch v {
		case "full":
			s.Encryption = Full
		case "bypass":
			s.Encryption = Bypass
		}
	}
	return s, nil
}

// Header is one side's part of the transaction (SshHeader).
type Header struct {
	// Flags is the side's connection state (StateInProgress ... StateFinished).
	Flags uint8
	// Proto and Software are the banner's protocol and software versions.
	Proto, Software []byte
	// Hassh is the lower-case hex MD5 of HasshString, the side's KEXINIT algorithm lists.
	Hassh, HasshString []byte
	// recordLeft is how much of the current record is still to be skipped; kexLeft says
	// that record is a KEXINIT being reassembled for HASSH.
	recordLeft uint32
	kexLeft    bool
}

func (h *Header) reset() {
	*h = Header{Proto: h.Proto[:0], Software: h.Software[:0], Hassh: h.Hassh[:0], HasshString: h.HasshString[:0]}
}

// Tx is the flow's single SSH transaction (SSHTransaction): Client is the to-server side.
type Tx struct {
	td             applayer.TxData
	Client, Server Header
}

// TxData returns the framework data.
func (t *Tx) TxData() *applayer.TxData { return &t.td }

// Side returns the header of direction dir (ToServer: the client's).
func (t *Tx) Side(dir applayer.Dir) *Header {
	if dir == flow.ToClient {
		return &t.Server
	}
	return &t.Client
}

// progress is SCSshTxGetAlStateProgress: finished only when both sides are, else banner
// done once the side's banner is, else in progress (banner_wait_eol is never reported).
func (t *Tx) progress(dir applayer.Dir) uint8 {
	if t.Client.Flags >= StateFinished && t.Server.Flags >= StateFinished {
		return StateFinished
	}
	if t.Side(dir).Flags >= StateBannerDone {
		return StateBannerDone
	}
	return StateInProgress
}

// LogReady is SCSshTxGetLogCondition: with HASSH on, both sides finished (NEWKEYS); without,
// both banners done and no further.
func (t *Tx) LogReady() bool {
	if HasshEnabled() {
		return t.Client.Flags == StateFinished && t.Server.Flags == StateFinished
	}
	return t.Client.Flags == StateBannerDone && t.Server.Flags == StateBannerDone
}

// State is a flow's SSH parser state (SSHState).
type State struct {
	tx    Tx
	freed bool
	cfg   *Settings
	pool  *Pool
	fs    *applayer.Frames
}

// The SSH frame types (SshFrameType): each binary packet's header, its data after the
// header, and the whole packet.
const (
	FrameRecordHdr applayer.FrameType = iota
	FrameRecordData
	FrameRecordPDU
)

// SetFrames implements applayer.FrameUser.
func (s *State) SetFrames(fs *applayer.Frames) { s.fs = fs }

// frames makes the three frames of a record whose header starts off bytes into the current
// data (parse_record's Frame::new calls, for whole records and for headers alone).
func (s *State) frames(dir applayer.Dir, off int, pktLen uint32) {
	if s.fs == nil {
		return
	}
	for _, f := range [...]struct {
		t        applayer.FrameType
		rel, len int64
	}{
		{FrameRecordHdr, 0, recordHeaderLen},
		{FrameRecordData, recordHeaderLen, int64(pktLen) - 2},
		{FrameRecordPDU, 0, int64(pktLen) + 4},
	} {
		if id := s.fs.New(dir, off+int(f.rel), f.t, 0); id != 0 {
			s.fs.SetLen(dir, id, f.len)
		}
	}
}

// Tx returns the flow's transaction (also after it was freed).
func (s *State) Tx() *Tx { return &s.tx }

// TxCount is 1 until the transaction is freed (ssh_state_get_tx_count).
func (s *State) TxCount() int {
	if s.freed {
		return 0
	}
	return 1
}

// TxAt returns the transaction.
func (s *State) TxAt(int) applayer.Tx { return &s.tx }

// FreeTxs frees the transaction once the framework is done with it.
func (s *State) FreeTxs(below uint64) {
	if below > 0 {
		s.freed = true
	}
}

// Reset empties the state for another flow.
func (s *State) Reset() {
	s.tx.Client.reset()
	s.tx.Server.reset()
	s.tx.td.Reset(0)
	s.freed = false
	s.fs = nil
}

// Gap: the SSH parser does not accept gaps (no APP_LAYER_PARSER_OPT_ACCEPT_GAPS): a gap ends
// the flow's app layer as an error, after raw inspection of the direction is asked for
// (AppLayerParserParse's gap branch).
func (s *State) Gap(dir applayer.Dir, _ uint64) applayer.Result {
	r := applayer.Result{Err: errGap}
	r.TriggerRaw[dir] = true
	return r
}

var (
	errGap           = fmt.Errorf("ssh: stream gap")
	errInvalidBanner = fmt.Errorf("ssh: invalid banner")
	errInvalidRecord = fmt.Errorf("ssh: invalid record")
)

// Parse is ssh_parse_request / ssh_parse_response.
func (s *State) Parse(dir applayer.Dir, data []byte, _ applayer.Flags) applayer.Result {
	t := &s.tx
	t.td.Updated[dir] = true
	var r applayer.Result
	if t.Side(dir).Flags < StateBannerDone {
		r = s.parseBanner(dir, data)
	} else {
		r = s.parseRecords(dir, data, 0)
	}
	t.td.Progress[flow.ToServer] = t.progress(flow.ToServer)
	t.td.Progress[flow.ToClient] = t.progress(flow.ToClient)
	return r
}

// parseLine is ssh_parse_line: the bytes up to LF, CRLF or a lone CR (which must be followed
// by a byte), and the rest after the line end; ok is false while the line is incomplete.
func parseLine(b []byte) (line, rest []byte, ok bool) {
	for i, c := range b {
		switch c {
		case '\n':
			return b[:i], b[i+1:], true
		case '\r':
			if i+1 >= len(b) {
				return nil, nil, false
			}
			if b[i+1] == '\n' {
				return b[:i], b[i+2:], true
			}
			return b[:i], b[i+1:], true
		}
	}
	return nil, nil, false
}

// parseBanner is ssh_parse_banner: "SSH-", the protocol version (one or more bytes up to
// '-'), '-', then the software version up to a space, CR or LF, or all the rest when there
// is none (an empty software version at a space takes the rest, space included, as nom's
// alt falls back to rest).
func parseBanner(b []byte) (proto, sw []byte, ok bool) {
	if len(b) < 4 || string(b[:4]) != "SSH-" {
		return nil, nil, false
	}
	b = b[4:]
	i := 0
	for i < len(b) && b[i] != '-' {
		i++
	}
	if i == 0 || i == len(b) {
		return nil, nil, false
	}
	proto, b = b[:i], b[i+1:]
	j := 0
	for j < len(b) && b[j] != ' ' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	if j == 0 || j == len(b) {
		return proto, b, true
	}
	return proto, b[:j], true
}

func appendCapped(dst, src []byte) []byte {
	if n := maxField - len(dst); n < len(src) {
		src = src[:max(n, 0)]
	}
	return append(dst, src...)
}

// parseBanner is SSHState::parse_banner for direction dir.
func (s *State) parseBanner(dir applayer.Dir, data []byte) applayer.Result {
	h := s.tx.Side(dir)
	if h.Flags == StateBannerWaitEOL {
		_, rest, ok := parseLine(data)
		if !ok {
			return applayer.Result{Consumed: len(data)} // the long banner's rest is skipped
		}
		return s.afterBanner(dir, data, rest)
	}
	line, rest, ok := parseLine(data)
	if !ok {
		if len(data) < MaxBannerLen {
			return applayer.Result{Needed: len(data) + 1}
		}
		proto, sw, ok := parseBanner(data)
		if !ok {
			s.tx.td.Events.Set(EventInvalidBanner)
			return applayer.Result{Err: errInvalidBanner}
		}
		h.Proto = appendCapped(h.Proto, proto)
		h.Software = appendCapped(h.Software, sw)
		h.Flags = StateBannerWaitEOL
		s.tx.td.Events.Set(EventLongBanner)
		return applayer.Result{Consumed: len(data)}
	}
	proto, sw, ok := parseBanner(line)
	if !ok {
		s.tx.td.Events.Set(EventInvalidBanner)
		return applayer.Result{Err: errInvalidBanner}
	}
	h.Proto = appendCapped(h.Proto, proto)
	h.Software = appendCapped(h.Software, sw)
	h.Flags = StateBannerDone
	if len(line) >= MaxBannerLen {
		s.tx.td.Events.Set(EventLongBanner)
	}
	return s.afterBanner(dir, data, rest)
}

// afterBanner parses the records after the banner line and, when that went well, asks for
// raw inspection of the direction (sc_app_layer_parser_trigger_raw_stream_inspection).
func (s *State) afterBanner(dir applayer.Dir, data, rest []byte) applayer.Result {
	r := s.parseRecords(dir, rest, len(data)-len(rest))
	switch {
	case r.Err != nil:
	case r.Needed > 0:
		r.Consumed += len(data) - len(rest)
	default:
		r.Consumed = len(data)
		r.TriggerRaw[dir] = true
	}
	return r
}

// parseRecords is SSHState::parse_record: skip the rest of a record begun earlier (a
// reassembled KEXINIT gives the HASSH), then each binary packet (u32 length > 1, padding
// length, message code, length-2 more bytes). NEWKEYS finishes the side; once both sides
// are finished the encryption-handling applies.
func (s *State) parseRecords(dir applayer.Dir, in []byte, base int) applayer.Result {
	h := s.tx.Side(dir)
	other := s.tx.Side(1 - dir)
	il := len(in)
	if h.recordLeft > 0 {
		if uint64(h.recordLeft) > uint64(len(in)) {
			h.recordLeft -= uint32(len(in))
			return applayer.Result{Consumed: il}
		}
		start := int(h.recordLeft)
		if h.kexLeft && s.hassh() {
			s.kexinit(h, dir, in[:start])
		}
		h.kexLeft = false
		in = in[start:]
		h.recordLeft = 0
	}
	var flags applayer.ParserFlags
	for len(in) > 0 {
		if len(in) >= 4 && binary.BigEndian.Uint32(in) <= 1 {
			s.tx.td.Events.Set(EventInvalidRecord)
			return applayer.Result{Err: errInvalidRecord, Flags: flags}
		}
		if len(in) < recordHeaderLen {
			return applayer.Result{Consumed: il - len(in), Needed: recordHeaderLen, Flags: flags}
		}
		pktLen := binary.BigEndian.Uint32(in)
		code := in[5]
		body := uint64(pktLen) - 2
		s.frames(dir, base+il-len(in), pktLen)
		if uint64(len(in)-recordHeaderLen) >= body {
			// A whole record.
			end := recordHeaderLen + int(body)
			switch code {
			case msgKexinit:
				if s.hassh() {
					s.kexinit(h, dir, in[recordHeaderLen:end])
				}
			case msgNewKeys:
				h.Flags = StateFinished
				if other.Flags >= StateFinished {
					flags |= s.encryptionFlags()
				}
			}
			in = in[end:]
			continue
		}
		// Only the header (and part of the body) is here.
		rem := uint32(len(in) - recordHeaderLen)
		h.recordLeft = pktLen - 2 - rem
		switch code {
		case msgNewKeys:
			h.Flags = StateFinished
		case msgKexinit:
			if s.hassh() {
				h.recordLeft = pktLen - 2
				if h.recordLeft < maxReassembledRecordLen {
					h.kexLeft = true
					return applayer.Result{Consumed: il - len(in) + recordHeaderLen, Needed: int(pktLen - 2), Flags: flags}
				}
				s.tx.td.Events.Set(EventLongKexRecord)
				// Suricata leaves record_left at the whole body although the partial body
				// was consumed: the same bytes are skipped here.
			}
		}
		return applayer.Result{Consumed: il, Flags: flags}
	}
	return applayer.Result{Consumed: il, Flags: flags}
}

// encryptionFlags are the parser-state flags of the encryption-handling setting.
func (s *State) encryptionFlags() applayer.ParserFlags {
	switch s.cfg.Encryption {
	case Bypass:
		return applayer.NoInspection | applayer.NoReassembly | applayer.BypassReady
	case TrackOnly:
		return applayer.NoInspection
	}
	return 0
}

func (s *State) hassh() bool { return s.cfg.Hassh || HasshEnabled() }

// kexinit is ssh_parse_key_exchange + generate_hassh on a KEXINIT body (after the message
// code): the 16-byte cookie and ten name-lists; the HASSH string is kex algorithms;
// encryption;mac;compression of the side's own direction (client: client-to-server lists,
// server: server-to-client). A KEXINIT too short for its lists gives no HASSH.
func (s *State) kexinit(h *Header, dir applayer.Dir, b []byte) {
	if len(b) < 16 {
		return
	}
	b = b[16:]
	var lists [10][]byte
	for i := range lists {
		if len(b) < 4 {
			return
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(n) > uint64(len(b)-4) {
			return
		}
		lists[i], b = b[4:4+n], b[4+n:]
	}
	if len(b) < 5 { // first_kex_packet_follows, reserved
		return
	}
	enc, mac, comp := lists[2], lists[4], lists[6]
	if dir == flow.ToClient {
		enc, mac, comp = lists[3], lists[5], lists[7]
	}
	for i, l := range [][]byte{lists[0], enc, mac, comp} {
		if i > 0 {
			h.HasshString = appendCapped(h.HasshString, []byte{';'})
		}
		h.HasshString = appendCapped(h.HasshString, l)
	}
	sum := md5.Sum(h.HasshString)
	var hx [2 * md5.Size]byte
	hex.Encode(hx[:], sum[:])
	h.Hassh = appendCapped(h.Hassh, hx[:])
}

// Pool is one worker's pool of SSH states.
type Pool struct {
	cfg    *Settings
	states []*State
}

// NewPool makes a pool for cfg (nil: defaults).
func NewPool(cfg *Settings) *Pool {
	if cfg == nil {
		cfg = &Settings{}
	}
	return &Pool{cfg: cfg}
}

// Get returns a state for a new flow.
func (p *Pool) Get(applayer.FlowInfo) applayer.State { return p.NewState() }

// NewState is Get returning *State.
func (p *Pool) NewState() *State {
	if n := len(p.states); n > 0 {
		s := p.states[n-1]
		p.states = p.states[:n-1]
		return s
	}
	return &State{cfg: p.cfg, pool: p}
}

// Put takes a state back.
func (p *Pool) Put(st applayer.State) {
	if s, ok := st.(*State); ok && s.pool == p {
		s.Reset()
		p.states = append(p.states, s)
	}
}

// Parser is SSH's registration (SCRegisterSshParser, SSHRegisterPatternsForProtocolDetection):
// "SSH-" case-insensitive at offset 0 in both directions, no probing parser.
var Parser = &applayer.Parser{
	Proto:   applayer.ProtoSSH,
	IPProto: 6,
	Patterns: [2][]applayer.Pattern{
		flow.ToServer: {{Bytes: []byte("SSH-"), Depth: 4, NoCase: true}},
		flow.ToClient: {{Bytes: []byte("SSH-"), Depth: 4, NoCase: true}},
	},
	Configure: Configure,
	NewPool: func(cfg any) applayer.Pool {
		c, _ := cfg.(*Settings)
		return NewPool(c)
	},
	Complete: [2]uint8{StateFinished, StateFinished},
	ProgressNames: [2][]string{
		{"request_in_progress", "request_banner_wait_eol", "request_banner_done", "request_finished"},
		{"response_in_progress", "response_banner_wait_eol", "response_banner_done", "response_finished"},
	},
	Events:     EventNames,
	FrameTypes: []string{"record_hdr", "record_data", "record_pdu"},
}

func init() {
	applayer.Register(Parser)
	registerBuffers()
}
