package tls

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/tls/cert"
	"github.com/meerkat-ids/meerkat/applayer/tls/ja"
	"github.com/meerkat-ids/meerkat/flow"
)

// Versions (src/app-layer-ssl.h).
const (
	VersionSSL2        uint16 = 0x0200
	VersionSSL3        uint16 = 0x0300
	VersionTLS10       uint16 = 0x0301
	VersionTLS11       uint16 = 0x0302
	VersionTLS12       uint16 = 0x0303
	VersionTLS13       uint16 = 0x0304
	VersionTLS13Draft  uint16 = 0x7f01 // TLS_VERSION_13_PRE_DRAFT16
	versionTLSUnknown  uint16 = 0
	recordHeaderLen           = 5
	recordMaxLen              = 1<<14 + 1024 // SSLV3_RECORD_MAX_LEN
	recordMinLen              = 6            // SSL_RECORD_MINIMUM_LENGTH
	contentCCS                = 20
	contentAlert              = 21
	contentHandshake          = 22
	contentApplication        = 23
	contentHeartbeat          = 24
)

// Client progress values (enum TlsStateClient).
const (
	ClientInProgress uint8 = iota
	ClientHelloDone
	ClientCertDone
	ClientHandshakeDone
	ClientFinished
)

// Server progress values (enum TlsStateServer).
const (
	ServerInProgress uint8 = iota
	ServerHello
	ServerCertDone
	ServerHelloDone
	ServerHandshakeDone
	ServerFinished
)

// The state flags (SSL_AL_FLAG_*) that matter here.
const (
	FlagServerCCS uint32 = 1 << iota
	FlagClientCCS
	FlagCCS
	FlagSSLClientHS
	FlagSSLServerHS
	FlagSSLClientMasterKey
	FlagSSLClientSsnEncrypted
	FlagSSLServerSsnEncrypted
	FlagSSLNoSessionID
	FlagStateClientHello
	FlagStateServerHello
	FlagStateClientKeyx
	FlagStateServerKeyx
	FlagStateUnknown
	flagUnused14
	FlagHBInflight
	FlagHBClientInit
	FlagHBServerInit
	flagUnused18
	flagUnused19
	FlagSessionResumed
	FlagCHVersionExtension
	FlagLogWithoutCert
	FlagEarlyData
	flagUnused24
	flagUnused25
	FlagNeedClientCert
	// FlagTSRandomSet and FlagTCRandomSet are TLS_TS_RANDOM_SET / TLS_TC_RANDOM_SET: set by
	// the ServerHello and the ClientHello respectively (Suricata's swapped naming, which the
	// tls.random buffers inherit).
	FlagTSRandomSet
	FlagTCRandomSet
)

// Conn is one side of the connection (SSLStateConnp): what its hello and certificate
// messages said.
type Conn struct {
	// Version is the side's version: the record header's until its hello, then the hello's
	// (with supported_versions applied).
	Version uint16
	// Random is the hello's random.
	Random [32]byte
	// SessionID is the hello's session id (the first non-empty one).
	SessionID    [255]byte
	SessionIDLen int
	// SNI is the ClientHello's server name (raw); nil when none.
	SNI    []byte
	sniBuf [255]byte
	// Hello is what the side's hellos contributed to the fingerprints and the EVE handshake
	// object (several ClientHellos add to it: JA4 sees them all).
	Hello ja.Hello
	// HSVersion is the handshake record's version (rust's HandshakeParams.tls_version): the
	// highest of the hellos' versions and, for a client, its supported_versions choice.
	HSVersion uint16
	hsEmpty   bool
	helloSet  bool
	// JA3 is the JA3 (client) or JA3S (server) string of the first hello, JA3Hash its md5;
	// valid when HasJA3 (JA3 was on at that hello).
	JA3, JA3Hash []byte
	ja3Done      bool
	// Certs is the certificate chain (raw DER, in order; certificates that failed to
	// decode before the first one that decoded are left out).
	Certs    [][]byte
	certBuf  []byte
	certSeen bool
	// Cert is the first certificate that decoded ("cert0"); HasCert says there is one.
	Cert    cert.Cert
	HasCert bool
	// StoreCerts is cert_log_flag's SSL_TLS_LOG_PEM: a tls.store rule matched on a packet
	// of this side (State.MarkCertStore), so the tls-store output writes the side's chain;
	// the output clears it once the files are written.
	StoreCerts bool

	// record layer state
	appLeft  int // bytes of an application-data record still to skip
	hs       []byte
	hsType   uint8
	hsLen    int
	hsActive bool
	alpnBuf  []byte
	alpnOff  []int
}

// presize gives a new side's lists the capacity a browser's hello and a typical chain need
// (a ClientHello has some 16 ciphers and 16 extensions), carved from a few arrays, so that a
// new flow's first handshake fills them instead of growing each one step by step (the
// corpus replay made ~10 allocations per new TLS state that way); longer lists still grow.
func (c *Conn) presize() {
	u := make([]uint16, 256)
	h := &c.Hello
	h.Ciphers, h.Extensions = u[0:0:64], u[64:64:128]
	h.Groups, h.SigAlgs = u[128:128:192], u[192:192:256]
	b := make([]byte, 512)
	h.ECPointFormats, c.alpnBuf = b[0:0:16], b[16:16:128]
	c.JA3, c.JA3Hash = b[128:128:480], b[480:480:512]
	h.ALPNs = make([][]byte, 0, 8)
	c.alpnOff = make([]int, 0, 16)
	c.Certs = make([][]byte, 0, 8)
	c.certBuf = make([]byte, 0, 8192)
	c.Cert.Presize()
}

// HasJA3 reports whether the side's JA3/JA3S was computed.
func (c *Conn) HasJA3() bool { return c.ja3Done }

func (c *Conn) reset() {
	c.Version, c.Random, c.SessionIDLen, c.SNI = 0, [32]byte{}, 0, nil
	c.alpnOff = c.alpnOff[:0]
	c.Hello.Reset()
	c.HSVersion = 0
	c.hsEmpty, c.helloSet = true, false
	c.JA3, c.JA3Hash, c.ja3Done = c.JA3[:0], c.JA3Hash[:0], false
	c.Certs, c.certBuf, c.certSeen, c.HasCert = c.Certs[:0], c.certBuf[:0], false, false
	c.StoreCerts = false
	c.appLeft, c.hs, c.hsType, c.hsLen, c.hsActive = 0, c.hs[:0], 0, 0, false
	c.alpnBuf = c.alpnBuf[:0]
}

// State is a TLS flow's parser state, which is also its only transaction (SSLGetTx returns
// the state): every TLS keyword and the logger work on it for the whole flow.
type State struct {
	td  applayer.TxData
	cfg *Settings
	// Client and Server are the two sides (ToServer: the client).
	Client, Server Conn
	// Flags are the accumulated SSL_AL_FLAG_* bits, CurrentFlags those of the handshake
	// messages of the record(s) just parsed (ssl_state's current_flags, ssl_state keyword).
	Flags, CurrentFlags uint32
	hbRecordLen         int
	freed               bool
	// FromProto is set by the framework's user (EVE from_proto) - not used by the parser.
	ja3Scratch, ja4Buf []byte
	// encrypted/bypass say the encryption-handling action was asked (once per flow).
	encrypted, bypass bool
	stopped           bool
	eof               [2]bool
}

// TxData implements applayer.Tx.
func (s *State) TxData() *applayer.TxData { return &s.td }

// TxCount is 1 while the state lives (one tx per flow), 0 once freed.
func (s *State) TxCount() int {
	if s.freed {
		return 0
	}
	return 1
}

// TxAt returns the state itself.
func (s *State) TxAt(int) applayer.Tx { return s }

// FreeTxs frees the single tx (SSLStateTransactionFree does nothing; the framework stops
// offering it).
func (s *State) FreeTxs(below uint64) {
	if below > 0 {
		s.freed = true
	}
}

// Reset empties the state for another flow.
func (s *State) Reset() {
	s.td.Reset(0)
	s.Client.reset()
	s.Server.reset()
	s.Flags, s.CurrentFlags, s.hbRecordLen, s.freed = 0, 0, 0, false
	s.encrypted, s.bypass, s.stopped, s.eof = false, false, false, [2]bool{}
}

// MarkCertStore is the tls.store post-match (DetectTlsStorePostMatch): a rule with it
// matched on a packet of direction dir, so that side's chain is to be stored (to server:
// the client's, to client: the server's).
func (s *State) MarkCertStore(dir applayer.Dir) { s.conn(dir).StoreCerts = true }

func (s *State) conn(dir applayer.Dir) *Conn {
	if dir == flow.ToClient {
		return &s.Server
	}
	return &s.Client
}

func (s *State) setClient(p uint8) { s.td.Progress[flow.ToServer] = p }
func (s *State) setServer(p uint8) { s.td.Progress[flow.ToClient] = p }

func (s *State) event(e uint8) { s.td.Events.Set(e) }

// errStop is the parser's error: TLS parsing stops for the flow.
type parseError string

func (e parseError) Error() string { return string(e) }

var errParse = parseError("tls: parse error")

// Gap: TLS cannot resynchronise inside a record stream (Suricata's TLS parser has no gap
// support: the app layer is disabled for the flow).
func (s *State) Gap(dir applayer.Dir, n uint64) applayer.Result {
	return applayer.Result{Err: parseError("tls: gap")}
}

// Parse is SSLDecode for one direction.
func (s *State) Parse(dir applayer.Dir, data []byte, flags applayer.Flags) applayer.Result {
	s.td.Updated = [2]bool{true, true}
	if flags&applayer.EOF != 0 {
		s.eof[dir] = true
	}
	if len(data) == 0 {
		if flags&applayer.EOF != 0 {
			if dir == flow.ToServer {
				s.setClient(ClientFinished)
			} else {
				s.setServer(ServerFinished)
			}
		}
		return applayer.Result{}
	}
	if s.stopped {
		return applayer.Result{Consumed: len(data)}
	}
	c := s.conn(dir)
	if c.appLeft == 0 {
		s.CurrentFlags = 0 // a new record (SSLDecode's bytes_processed == 0)
	}
	res := s.decode(dir, c, data)
	if res.Err == nil {
		s.handshakeDoneCheck()
		if s.eof[0] && s.eof[1] {
			s.setClient(ClientFinished)
			s.setServer(ServerFinished)
		}
	}
	if s.encrypted {
		res.Flags |= applayer.NoInspectionPayload
	}
	if s.bypass {
		// SSLv3Decode with encryption-handling bypass: NO_REASSEMBLY, NO_INSPECTION and
		// BYPASS_READY on top of NO_INSPECTION_PAYLOAD
		res.Flags |= applayer.NoInspection | applayer.NoReassembly | applayer.BypassReady
		s.stopped = true
	}
	return res
}

// handshakeDoneCheck is SSLDecode's end: once the server certificate's subject and issuer
// are known (the client's when the server asked for one), both sides jump to
// handshake-done.
func (s *State) handshakeDoneCheck() {
	if s.Flags&FlagNeedClientCert != 0 {
		if s.Client.HasCert {
			s.setClient(ClientHandshakeDone)
			s.setServer(ServerHandshakeDone)
		}
	} else if s.Server.HasCert {
		s.setClient(ClientHandshakeDone)
		s.setServer(ServerHandshakeDone)
	}
}

func (s *State) decode(dir applayer.Dir, c *Conn, data []byte) applayer.Result {
	off := 0
	maxRecords := max(len(data)/recordMinLen, 1)
	for n := 0; off < len(data); n++ {
		if n > maxRecords {
			s.event(EvTooManyRecordsInPacket)
			return applayer.Result{Consumed: len(data), Err: errParse}
		}
		if c.appLeft > 0 {
			k := min(c.appLeft, len(data)-off)
			c.appLeft -= k
			off += k
			continue
		}
		in := data[off:]
		if in[0]&0xc0 != 0 {
			c.Version = VersionSSL2
			k, need, err := s.sslv2(dir, c, in)
			if err != nil {
				s.event(EvInvalidSSLRecord)
				return applayer.Result{Consumed: len(data), Err: err}
			}
			if need > 0 {
				return applayer.Result{Consumed: off, Needed: need}
			}
			off += k
			continue
		}
		if c.Version == VersionSSL2 {
			c.Version = versionTLSUnknown
		}
		k, need, err := s.record(dir, c, in)
		if err != nil {
			return applayer.Result{Consumed: len(data), Err: err}
		}
		if need > 0 {
			return applayer.Result{Consumed: off, Needed: need}
		}
		off += k
	}
	return applayer.Result{Consumed: off}
}

// versionValid is TLSVersionValid.
func versionValid(v uint16) bool {
	switch {
	case v >= VersionSSL3 && v <= VersionTLS13:
		return true
	case v >= 0x7f01 && v <= 0x7f1c, v >= 0xfb14 && v <= 0xfb1a:
		return true
	}
	return false
}

// record is SSLv3Decode for the record at the start of in: the bytes used, or the bytes the
// whole record needs when it is not all there (application data excepted).
func (s *State) record(dir applayer.Dir, c *Conn, in []byte) (int, int, error) {
	if len(in) < recordHeaderLen {
		return 0, recordHeaderLen, nil
	}
	typ := in[0]
	recVer := uint16(in[1])<<8 | uint16(in[2])
	length := int(in[3])<<8 | int(in[4])
	prev := c.Version
	skipVersion := false
	if dir == flow.ToServer {
		skipVersion = s.Flags&FlagStateClientHello != 0 && c.Version != versionTLSUnknown
	} else {
		skipVersion = s.Flags&FlagStateServerHello != 0 && c.Version != versionTLSUnknown
	}
	switch typ {
	case contentCCS, contentAlert, contentHandshake, contentApplication, contentHeartbeat:
	default:
		s.event(EvInvalidRecordType)
		if prev == VersionTLS10 || prev == VersionTLS11 {
			// tolerated: the rest of the input is dropped
			return len(in), 0, nil
		}
		return 0, 0, errParse
	}
	ver := c.Version
	if !skipVersion {
		ver = recVer
	}
	if length == 0 {
		c.Version = ver
		s.event(EvInvalidRecordLength)
		return 0, 0, errParse
	}
	if !versionValid(ver) {
		c.Version = ver
		s.event(EvInvalidRecordVersion)
		return 0, 0, errParse
	}
	if length > recordMaxLen {
		c.Version = ver
		s.event(EvInvalidRecordLength)
		return 0, 0, errParse
	}
	if typ != contentApplication && recordHeaderLen+length > len(in) {
		return 0, recordHeaderLen + length, nil
	}
	c.Version = ver
	body := in[recordHeaderLen:min(len(in), recordHeaderLen+length)]
	switch typ {
	case contentCCS:
		s.Flags |= FlagCCS
		if dir == flow.ToClient {
			s.Flags |= FlagServerCCS
		} else {
			s.Flags |= FlagClientCCS
			s.setClient(ClientHandshakeDone)
		}
	case contentAlert:
		if len(body) < 2 {
			s.event(EvInvalidAlertMessage)
			return 0, 0, errParse
		}
		if len(body) == 2 && body[0] == 2 {
			s.setClient(ClientFinished)
			s.setServer(ServerFinished)
		}
	case contentApplication:
		s.appData(dir)
		if len(body) < length {
			c.appLeft = length - len(body)
		}
	case contentHandshake:
		if s.Flags&FlagCCS != 0 && !(s.Flags&FlagStateClientHello != 0 &&
			s.Client.Version > VersionTLS12 && s.Flags&FlagStateServerHello == 0) {
			break
		}
		if length < 4 {
			s.event(EvInvalidSSLRecord)
			return 0, 0, errParse
		}
		if err := s.handshake(dir, c, body); err != nil {
			s.event(EvInvalidHandshakeMessage)
			return 0, 0, err
		}
	case contentHeartbeat:
		if err := s.heartbeat(dir, body, length); err != nil {
			return 0, 0, err
		}
	}
	return recordHeaderLen + len(body), 0, nil
}

// appData is the application-data case of SSLv3Decode: handshake done on that side (not
// while 0-RTT data may precede the ServerHello) and the encryption-handling action.
func (s *State) appData(dir applayer.Dir) {
	if s.Flags&FlagEarlyData != 0 && s.Flags&FlagStateServerHello == 0 {
		return
	}
	if dir == flow.ToServer {
		s.setClient(ClientHandshakeDone)
	} else {
		s.setServer(ServerHandshakeDone)
	}
	s.encryptionAction()
}

func (s *State) encryptionAction() {
	switch s.cfg.Enc {
	case EncTrackOnly:
		s.encrypted = true
	case EncBypass:
		s.encrypted, s.bypass = true, true
	}
}

// heartbeat is SSLv3ParseHeartbeatProtocol on a whole record body.
func (s *State) heartbeat(dir applayer.Dir, in []byte, recLen int) error {
	if len(in) < 3 {
		return nil
	}
	hbType := in[0]
	if s.Flags&FlagCCS == 0 && hbType != 1 && hbType != 2 {
		s.event(EvInvalidHeartbeatMessage)
		return errParse
	}
	switch {
	case s.Flags&FlagHBInflight == 0:
		s.Flags |= FlagHBInflight
		if dir == flow.ToClient {
			s.Flags |= FlagHBServerInit
		} else {
			s.Flags |= FlagHBClientInit
		}
		if s.Flags&FlagCCS != 0 {
			s.hbRecordLen = recLen
			return nil
		}
		payload := int(in[1])<<8 | int(in[2])
		if payload+3 > recLen {
			s.event(EvOverflowHeartbeatMessage)
			return errParse
		}
		if recLen-payload-3 < 16 {
			s.event(EvInvalidHeartbeatMessage)
			return errParse
		}
	case dir == flow.ToClient && s.Flags&FlagHBServerInit != 0,
		dir == flow.ToServer && s.Flags&FlagHBClientInit != 0:
		s.event(EvInvalidHeartbeatMessage)
		return errParse
	default:
		s.Flags &^= FlagHBInflight | FlagHBServerInit | FlagHBClientInit
		if s.Flags&FlagCCS != 0 && s.hbRecordLen > 0 && s.hbRecordLen < recLen {
			s.event(EvDataleakHeartbeatMismatch)
			s.hbRecordLen = 0
			return errParse
		}
		s.hbRecordLen = 0
	}
	return nil
}

// Handshake message types.
const (
	hsHelloRequest       = 0
	hsClientHello        = 1
	hsServerHello        = 2
	hsNewSessionTicket   = 4
	hsCertificate        = 11
	hsServerKeyExchange  = 12
	hsCertificateRequest = 13
	hsServerHelloDone    = 14
	hsCertificateVerify  = 15
	hsClientKeyExchange  = 16
	hsFinished           = 20
	hsCertificateURL     = 21
	hsCertificateStatus  = 22
)

func supportedHandshake(t uint8) bool {
	switch t {
	case hsClientHello, hsServerHello, hsServerKeyExchange, hsClientKeyExchange, hsCertificate,
		hsHelloRequest, hsCertificateRequest, hsCertificateVerify, hsFinished, hsCertificateURL,
		hsCertificateStatus, hsNewSessionTicket, hsServerHelloDone:
		return true
	}
	return false
}

// handshake is SSLv3ParseHandshakeProtocol on one record's body: messages are reassembled
// across records (bounded by Settings.MaxHandshake).
func (s *State) handshake(dir applayer.Dir, c *Conn, in []byte) error {
	for len(in) > 0 {
		if c.hsActive {
			add := min(c.hsLen-len(c.hs), len(in))
			c.hs = append(c.hs, in[:add]...)
			in = in[add:]
			if len(c.hs) >= c.hsLen {
				c.hsActive = false
				err := s.handshakeMessage(dir, c, c.hsType, c.hs)
				c.hs = c.hs[:0]
				if err != nil {
					return err
				}
			}
			continue
		}
		if len(in) < 4 {
			s.event(EvInvalidSSLRecord)
			return errParse
		}
		typ := in[0]
		mlen := int(in[1])<<16 | int(in[2])<<8 | int(in[3])
		in = in[4:]
		if !supportedHandshake(typ) {
			in = in[min(mlen, len(in)):]
			ccs := FlagClientCCS
			if dir == flow.ToClient {
				ccs = FlagServerCCS
			}
			if s.Flags&ccs == 0 {
				s.event(EvInvalidHandshakeMessage)
			}
			continue
		}
		if mlen > len(in) {
			if mlen > s.cfg.MaxHandshake {
				s.event(EvHandshakeInvalidLength)
				return errParse
			}
			c.hsActive, c.hsType, c.hsLen = true, typ, mlen
			c.hs = append(c.hs[:0], in...)
			return nil
		}
		if err := s.handshakeMessage(dir, c, typ, in[:mlen]); err != nil {
			return err
		}
		in = in[mlen:]
	}
	return nil
}

// handshakeMessage is SSLv3ParseHandshakeType for one whole message.
func (s *State) handshakeMessage(dir applayer.Dir, c *Conn, typ uint8, msg []byte) error {
	switch typ {
	case hsClientHello:
		s.CurrentFlags = FlagStateClientHello
		s.hello(dir, c, msg)
	case hsServerHello:
		s.CurrentFlags = FlagStateServerHello
		s.hello(dir, c, msg)
	case hsServerKeyExchange:
		s.CurrentFlags = FlagStateServerKeyx
	case hsClientKeyExchange:
		s.CurrentFlags = FlagStateClientKeyx
	case hsCertificate:
		s.certificates(c, msg)
		if dir == flow.ToServer {
			s.setClient(ClientCertDone)
		} else {
			s.setServer(ServerCertDone)
		}
	case hsCertificateRequest:
		if dir == flow.ToClient {
			s.CurrentFlags = FlagNeedClientCert
		}
	case hsServerHelloDone:
		if dir == flow.ToClient {
			s.setServer(ServerHelloDone)
		}
	}
	s.Flags |= s.CurrentFlags
	return nil
}

// certificates is TlsDecodeHSCertificates: the chain is kept raw; the first certificate that
// decodes gives the cert0 fields; one that fails before it raises its event and is left out.
// A second Certificate message of the side is ignored.
func (s *State) certificates(c *Conn, msg []byte) {
	if len(msg) < 3 {
		return
	}
	chainLen := int(msg[0])<<16 | int(msg[1])<<8 | int(msg[2])
	msg = msg[3:]
	if chainLen > len(msg) || c.certSeen {
		return
	}
	c.certSeen = true
	c.certBuf = append(c.certBuf[:0], msg[:chainLen]...)
	b := c.certBuf
	// the slices into certBuf are taken once it no longer grows
	for len(b) > 0 {
		if len(b) < 3 {
			s.event(EvInvalidCertificate)
			return
		}
		l := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		if l > len(b)-3 {
			s.event(EvInvalidCertificate)
			return
		}
		der := b[3 : 3+l]
		b = b[3+l:]
		if !c.HasCert {
			if err := cert.Decode(der, &c.Cert); err != nil {
				name := ""
				if de, ok := err.(*cert.DecodeError); ok {
					name = de.Event
				}
				s.event(certEvent(name))
				continue
			}
			c.HasCert = true
		}
		if len(c.Certs) < s.cfg.MaxCerts {
			c.Certs = append(c.Certs, der)
		}
	}
}
