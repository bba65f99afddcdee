package tls

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/tls/ja"
	"github.com/meerkat-ids/meerkat/flow"
)

// Extension types the parser decodes.
const (
	extSNI               = 0
	extGroups            = 10
	extECPointFormats    = 11
	extSigAlgs           = 13
	extALPN              = 16
	extSessionTicket     = 35
	extEarlyData         = 42
	extSupportedVersions = 43
)

// IsGREASE reports whether v is a GREASE value (TLSDecodeValueIsGREASE).
func IsGREASE(v uint16) bool { return v&0x0f0f == 0x0a0a && v>>8 == v&0xff }

func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }

// hello is TLSDecodeHandshakeHello: a ClientHello (CurrentFlags FlagStateClientHello) or
// ServerHello. A length error raises HANDSHAKE_INVALID_LENGTH and leaves the hello without
// its state change; parsing of the flow goes on either way.
func (s *State) hello(dir applayer.Dir, c *Conn, in []byte) {
	server := s.CurrentFlags&FlagStateServerHello != 0
	bad := func() { s.event(EvHandshakeInvalidLength) }
	// version
	if len(in) < 2 {
		bad()
		return
	}
	version := be16(in)
	c.Version = version
	h := &c.Hello
	firstHello := !c.helloSet
	if firstHello {
		h.Version = version
	} else if !IsGREASE(version) {
		h.Version = max(h.Version, version)
	}
	c.setHSVersion(version)
	c.helloSet, c.hsEmpty = true, false
	if server && (version == VersionTLS13 || version>>8 == 0x7f) {
		s.Flags |= FlagLogWithoutCert
	}
	if version >= 0x7f01 && version < 0x7f10 || version == VersionTLS13 {
		c.Version = VersionTLS13Draft
	}
	in = in[2:]
	// random
	if len(in) < 32 {
		bad()
		return
	}
	if server {
		copy(s.Server.Random[:], in)
		s.Flags |= FlagTSRandomSet
	} else {
		copy(s.Client.Random[:], in)
		s.Flags |= FlagTCRandomSet
	}
	in = in[32:]
	// session id: in ClientHellos, and ServerHellos but TLS 1.3 drafts before 22
	withSession := !server || s.Flags&FlagLogWithoutCert == 0
	if withSession {
		if len(in) < 1 || len(in)-1 < int(in[0]) {
			bad()
			return
		}
		n := int(in[0])
		if n != 0 && c.SessionIDLen == 0 {
			c.SessionIDLen = copy(c.SessionID[:], in[1:1+n])
			if server && s.Client.SessionIDLen == n && string(s.Client.SessionID[:n]) == string(c.SessionID[:n]) {
				s.Flags |= FlagSessionResumed
			}
		}
		in = in[1+n:]
	}
	// cipher suites
	if len(in) < 2 {
		bad()
		return
	}
	n := 2
	if !server {
		n = int(be16(in))
		in = in[2:]
	}
	if len(in) < n || n%2 != 0 {
		bad()
		return
	}
	for i := 0; i+1 < n; i += 2 {
		h.Ciphers = append(h.Ciphers, be16(in[i:]))
	}
	in = in[n:]
	// compression methods
	if withSession {
		if len(in) < 1 {
			bad()
			return
		}
		if server {
			in = in[1:]
		} else {
			n := int(in[0])
			if len(in)-1 < n {
				bad()
				return
			}
			in = in[1+n:]
		}
	}
	if !s.extensions(dir, c, in) {
		return
	}
	c.buildALPNs()
	if JA3Enabled() && !c.ja3Done {
		c.ja3Done = true
		if server {
			c.JA3 = ja.JA3S(c.JA3[:0], h)
		} else {
			c.JA3 = ja.JA3(c.JA3[:0], h)
		}
		c.JA3Hash = ja.MD5Hex(c.JA3Hash[:0], c.JA3)
	}
	if dir == flow.ToServer {
		s.setClient(ClientHelloDone)
	} else {
		s.setServer(ServerHello)
	}
}

// setHSVersion is HandshakeParams.set_tls_version: the highest non-GREASE version recorded
// (the EVE handshake object's version).
func (c *Conn) setHSVersion(v uint16) {
	if !IsGREASE(v) && v > c.HSVersion {
		c.HSVersion = v
	}
}

// buildALPNs points Hello.ALPNs into alpnBuf (after it stopped growing).
func (c *Conn) buildALPNs() {
	c.Hello.ALPNs = c.Hello.ALPNs[:0]
	for i := 0; i+1 < len(c.alpnOff); i += 2 {
		c.Hello.ALPNs = append(c.Hello.ALPNs, c.alpnBuf[c.alpnOff[i]:c.alpnOff[i+1]])
	}
}

// maxALPNBytes bounds the ALPN names kept per side.
const maxALPNBytes = 4096

// extensions is TLSDecodeHSHelloExtensions. It reports false on a length error of the block
// (the hello is abandoned). An extension that fails to decode ends the walk: it and those
// after it are not recorded. As Suricata, an extension decoder's own length (not the
// extension's) moves the cursor.
func (s *State) extensions(dir applayer.Dir, c *Conn, in []byte) bool {
	server := s.CurrentFlags&FlagStateServerHello != 0
	h := &c.Hello
	if len(in) < 2 {
		return true // extensions are optional
	}
	total := int(be16(in))
	in = in[2:]
	if len(in) < total {
		s.event(EvHandshakeInvalidLength)
		return false
	}
	p, processed := 0, 0
	for processed < total {
		if len(in)-p < 4 {
			s.event(EvHandshakeInvalidLength)
			return false
		}
		typ := be16(in[p:])
		l := int(be16(in[p+2:]))
		p += 4
		if len(in)-p < l {
			s.event(EvHandshakeInvalidLength)
			return false
		}
		ext := in[p : p+l]
		var used int
		ok := true
		switch typ {
		case extSNI:
			used, ok = s.extSNI(c, ext)
		case extGroups:
			used, ok = s.extGroups(server, h, ext)
		case extECPointFormats:
			used, ok = s.extECPF(server, h, ext)
		case extSigAlgs:
			used, ok = s.extSigAlgs(server, h, ext)
		case extALPN:
			_, ok = s.extALPN(c, ext)
			used = l
		case extEarlyData:
			if !server {
				s.Flags |= FlagEarlyData
			}
			used = l
		case extSupportedVersions:
			used, ok = s.extSupportedVersions(server, c, ext)
		case extSessionTicket:
			if !server {
				s.Flags |= FlagSessionResumed
			}
			used = l
		default:
			used = l
		}
		if !ok {
			return true
		}
		p += used
		h.Extensions = append(h.Extensions, typ)
		if typ == extSNI {
			h.SNI = true
		}
		processed += l + 4
	}
	return true
}

func (s *State) extSNI(c *Conn, in []byte) (int, bool) {
	if len(in) == 0 {
		return 0, true
	}
	if len(in) < 3 {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	if in[2] != 0 {
		s.event(EvInvalidSNIType)
		return 0, false
	}
	if len(in) < 5 {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	n := int(be16(in[3:]))
	if len(in)-5 < n || n > 255 || n == 0 {
		s.event(EvInvalidSNILength)
		return 0, false
	}
	if c.SNI != nil {
		s.event(EvMultipleSNIExtensions)
		return 5 + n, true
	}
	c.SNI = c.sniBuf[:copy(c.sniBuf[:], in[5:5+n])]
	return 5 + n, true
}

func (s *State) extGroups(server bool, h *ja.Hello, in []byte) (int, bool) {
	if len(in) == 0 {
		return 0, true
	}
	if len(in) < 2 || len(in)-2 < int(be16(in)) {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	n := int(be16(in))
	if !server {
		for i := 0; i < n; i += 2 {
			if 2+i+2 > len(in) {
				s.event(EvHandshakeInvalidLength)
				return 0, false
			}
			h.Groups = append(h.Groups, be16(in[2+i:]))
		}
		return 2 + n + n%2, true
	}
	return 2 + n, true
}

func (s *State) extECPF(server bool, h *ja.Hello, in []byte) (int, bool) {
	if len(in) == 0 {
		return 0, true
	}
	if len(in) < 1 || len(in)-1 < int(in[0]) {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	n := int(in[0])
	if !server {
		h.ECPointFormats = append(h.ECPointFormats, in[1:1+n]...)
	}
	return 1 + n, true
}

func (s *State) extSigAlgs(server bool, h *ja.Hello, in []byte) (int, bool) {
	if len(in) == 0 {
		return 0, true
	}
	if len(in) < 2 {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	n := int(be16(in))
	if n%2 != 0 || len(in)-2 < n {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	if !server {
		for i := 0; i < n; i += 2 {
			h.SigAlgs = append(h.SigAlgs, be16(in[2+i:]))
		}
	}
	return 2 + n, true
}

func (s *State) extALPN(c *Conn, in []byte) (int, bool) {
	if len(in) == 0 {
		return 0, true
	}
	if len(in) < 2 || len(in)-2 < int(be16(in)) {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	n := int(be16(in))
	p := 2
	for done := 0; done < n; {
		l := int(in[p])
		p++
		done++
		if len(in)-p < l {
			s.event(EvHandshakeInvalidLength)
			return 0, false
		}
		if done+l > n {
			break
		}
		if l > 0 && len(c.alpnBuf)+l <= maxALPNBytes {
			c.alpnOff = append(c.alpnOff, len(c.alpnBuf))
			c.alpnBuf = append(c.alpnBuf, in[p:p+l]...)
			c.alpnOff = append(c.alpnOff, len(c.alpnBuf))
		}
		done += l
		p += l
	}
	return p, true
}

func (s *State) extSupportedVersions(server bool, c *Conn, in []byte) (int, bool) {
	if len(in) == 0 {
		return 0, true
	}
	if !server {
		n := int(in[0])
		if n < 2 || len(in)-1 < n {
			s.event(EvHandshakeInvalidLength)
			return 0, false
		}
		for i := 0; i+1 < n; i += 2 {
			if v := be16(in[1+i:]); versionValid(v) {
				c.Version = v
				c.setHSVersion(v)
				if c.Hello.SupportedVersion == 0 || v > c.Hello.SupportedVersion {
					c.Hello.SupportedVersion = v
				}
				break
			}
		}
		s.Flags |= FlagCHVersionExtension
		return 1 + n, true
	}
	if len(in) < 2 {
		s.event(EvHandshakeInvalidLength)
		return 0, false
	}
	v := be16(in)
	if s.Flags&FlagCHVersionExtension != 0 && v > VersionTLS12 {
		s.Flags |= FlagLogWithoutCert
	}
	c.Version = v
	c.Hello.SupportedVersion = v
	return 2, true
}
