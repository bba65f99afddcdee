package tls

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// SSLv2 message types.
const (
	v2Error             = 0
	v2ClientHello       = 1
	v2ClientMasterKey   = 2
	v2ClientFinished    = 3
	v2ServerHello       = 4
	v2ServerVerify      = 5
	v2ServerFinished    = 6
	v2RequestCert       = 7
	v2ClientCertificate = 8
)

// sslv2 is SSLv2Decode for the record at the start of in (its first byte has bit 0x80 or 0x40
// set): a 2-byte length header (bit 0x80) or a 3-byte one, then the message type. It returns
// the bytes used, or the bytes needed for the whole record.
func (s *State) sslv2(dir applayer.Dir, c *Conn, in []byte) (int, int, error) {
	hdr, length := 2, 0
	if in[0]&0x80 != 0 {
		if len(in) < 3 {
			return 0, 3, nil
		}
		length = int(in[0]&0x7f)<<8 | int(in[1])
	} else {
		hdr = 3
		if len(in) < 4 {
			return 0, 4, nil
		}
		length = int(in[0]&0x3f)<<8 | int(in[1])
	}
	if hdr+length > len(in) {
		return 0, hdr + length, nil
	}
	if length == 0 {
		s.event(EvInvalidSSLv2Header)
		return 0, 0, errParse
	}
	typ := in[hdr]
	body := in[hdr+1 : hdr+length]
	switch typ {
	case v2Error:
		s.event(EvErrorMessageEncountered)
	case v2ClientHello:
		if len(body) < 6 {
			return 0, 0, errParse // INVALID_SSL_RECORD (set by the caller)
		}
		s.CurrentFlags = FlagStateClientHello | FlagSSLClientHS
		s.setClient(ClientHelloDone)
		c.Version = be16(body)
		if be16(body[4:]) == 0 {
			s.CurrentFlags |= FlagSSLNoSessionID
		}
	case v2ClientMasterKey:
		s.CurrentFlags = FlagSSLClientMasterKey
	case v2ClientCertificate, v2ServerVerify, v2ServerFinished, v2ClientFinished, v2RequestCert:
		if typ == v2ClientCertificate {
			if dir == flow.ToServer {
				s.CurrentFlags = FlagStateClientKeyx
			}
			s.setServer(ServerCertDone)
		}
		if s.Flags&FlagSSLClientHS != 0 && s.Flags&FlagSSLServerHS != 0 {
			if dir == flow.ToServer {
				if s.Flags&FlagSSLNoSessionID != 0 {
					s.CurrentFlags |= FlagSSLClientSsnEncrypted
				} else if s.Flags&FlagSSLClientMasterKey != 0 {
					s.CurrentFlags = FlagSSLClientSsnEncrypted
				}
			} else {
				s.CurrentFlags = FlagSSLServerSsnEncrypted
			}
			if s.Flags&FlagSSLClientSsnEncrypted != 0 && s.Flags&FlagSSLServerSsnEncrypted != 0 {
				s.encryptionAction()
			}
		}
	case v2ServerHello:
		s.CurrentFlags = FlagStateServerHello | FlagSSLServerHS
		s.setServer(ServerHello)
	}
	s.Flags |= s.CurrentFlags
	return hdr + length, 0, nil
}
