package output

import (
	"encoding/base64"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/applayer/tls/cert"
	"github.com/meerkat-ids/meerkat/applayer/tls/ja"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// TLS record fields (LOG_TLS_FIELD_* of src/output-json-tls.c).
const (
	TLSVersion uint64 = 1 << iota
	TLSSubject
	TLSIssuer
	TLSSerial
	TLSFingerprint
	TLSNotBefore
	TLSNotAfter
	TLSSNI
	TLSCertificate
	TLSChain
	TLSSessionResumed
	TLSJA3
	TLSJA3S
	TLSClient
	TLSClientCert
	TLSClientChain
	TLSJA4
	TLSSubjectAltName
	TLSClientALPNs
	TLSServerALPNs
	TLSClientHandshake
	TLSServerHandshake
)

// TLSBasic and TLSExtended are the field sets of a plain tls type and of extended: yes
// (BASIC_FIELDS, EXTENDED_FIELDS).
const (
	TLSBasic    = TLSSubject | TLSIssuer | TLSSubjectAltName
	TLSExtended = TLSBasic | TLSVersion | TLSSerial | TLSFingerprint | TLSNotBefore | TLSNotAfter |
		TLSJA3 | TLSJA3S | TLSJA4 | TLSClient | TLSClientALPNs | TLSServerALPNs | TLSSNI
)

// tlsFieldNames are the custom: names (tls_fields).
var tlsFieldNames = []struct {
	name string
	bit  uint64
}{
	{"version", TLSVersion}, {"subject", TLSSubject}, {"issuer", TLSIssuer}, {"serial", TLSSerial},
	{"fingerprint", TLSFingerprint}, {"not_before", TLSNotBefore}, {"not_after", TLSNotAfter},
	{"sni", TLSSNI}, {"certificate", TLSCertificate}, {"chain", TLSChain},
	{"session_resumed", TLSSessionResumed}, {"ja3", TLSJA3}, {"ja3s", TLSJA3S}, {"client", TLSClient},
	{"client_certificate", TLSClientCert}, {"client_chain", TLSClientChain}, {"ja4", TLSJA4},
	{"subjectaltname", TLSSubjectAltName}, {"client_alpns", TLSClientALPNs},
	{"server_alpns", TLSServerALPNs}, {"client_handshake", TLSClientHandshake},
	{"server_handshake", TLSServerHandshake},
}

// TLSOptions are the eve-log tls type's settings (OutputTlsInitCtx).
type TLSOptions struct {
	// Fields is the set of TLS* fields written.
	Fields uint64
	// SessionResumption: a resumed session is logged without a certificate.
	SessionResumption bool
}

// TLSOptionsFrom is OutputTlsInitCtx: hasNode says the type has an options node (a plain
// "- tls" has none: basic fields, no session resumption); extended selects the extended set,
// custom (when not nil) replaces it; sessionResumption is the option's value ("" absent,
// which means yes). Unknown custom names are returned for a warning.
func TLSOptionsFrom(hasNode, extended bool, custom []string, sessionResumption string) (TLSOptions, []string) {
	o := TLSOptions{Fields: TLSBasic}
	if !hasNode {
		return o, nil
	}
	if extended {
		o.Fields = TLSExtended
	}
	var unknown []string
	if custom != nil {
		o.Fields = 0
		for _, c := range custom {
			ok := false
			for _, f := range tlsFieldNames {
				if strings.EqualFold(c, f.name) {
					o.Fields |= f.bit
					ok = true
					break
				}
			}
			if !ok {
				unknown = append(unknown, c)
			}
		}
	}
	if sessionResumption == "" || isTrueWord(sessionResumption) {
		o.Fields |= TLSSessionResumed
		o.SessionResumption = true
	}
	if o.Fields&(TLSClientCert|TLSClientChain) != 0 {
		o.Fields |= TLSClient
	}
	return o, unknown
}

func isTrueWord(s string) bool {
	switch strings.ToLower(s) {
	case "1", "yes", "true", "on":
		return true
	}
	return false
}

// TLSWanted is JsonTlsLogger's condition: a record is written when the server certificate's
// subject and issuer are known, or the session was resumed and session-resumption is on, or
// the session is TLS 1.3 ("log without cert"); otherwise the tx is logged without output.
func TLSWanted(s *tls.State, opt *TLSOptions) bool {
	return s.Server.HasCert || s.Flags&tls.FlagSessionResumed != 0 && opt.SessionResumption ||
		s.Flags&tls.FlagLogWithoutCert != 0
}

// TLSReady says whether the tls record may be written on this packet: server progress at
// handshake done and client at handshake done (JsonTlsLogRegister's progress), or at the
// flow's end (eof).
func TLSReady(s *tls.State, eof bool) bool {
	p := s.TxData().Progress
	return eof || p[flow.ToServer] >= tls.ClientHandshakeDone && p[flow.ToClient] >= tls.ServerHandshakeDone
}

// TLSRecord writes a flow's EVE tls record (JsonTlsLogger): the header in the flow's
// direction, the tls object with opt's fields, and from_proto when the flow changed protocol
// (STARTTLS and the like).
func TLSRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, s *tls.State, opt *TLSOptions, fromProto applayer.Proto) {
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, dir, flow.ToServer, "tls", nil, nil)
	j.Object("tls")
	tlsFields(j, s, opt.Fields)
	if fromProto != applayer.ProtoUnknown {
		j.String("from_proto", fromProto.String())
	}
	j.Close('}')
	j.End()
}

// TLSObject writes the tls object of an alert (JsonTlsLogJSONExtended): the extended fields.
func TLSObject(j *JSON, s *tls.State) {
	if s == nil {
		return
	}
	j.Object("tls")
	tlsFields(j, s, TLSExtended)
	j.Close('}')
}

func (j *JSON) elemBase64(v []byte) {
	j.sep()
	j.B = append(j.B, '"')
	j.B = base64.StdEncoding.AppendEncode(j.B, v)
	j.B = append(j.B, '"')
}

func (j *JSON) timeMember(k string, t int64) {
	j.key(k)
	j.B = append(j.B, '"')
	j.B = cert.FormatTime(j.B, t)
	j.B = append(j.B, '"')
}

func (j *JSON) versionMember(k string, v uint16) {
	j.key(k)
	var b [32]byte
	j.B = appendJSONBytes(j.B, ja.VersionString(b[:0], v))
}

// JsonTlsLogFields in its order.
func tlsFields(j *JSON, s *tls.State, fields uint64) {
	sv, cl := &s.Server, &s.Client
	if fields&TLSSubject != 0 && sv.HasCert {
		j.Bytes("subject", sv.Cert.Subject)
	}
	if fields&TLSIssuer != 0 && sv.HasCert {
		j.Bytes("issuerdn", sv.Cert.Issuer)
	}
	if fields&TLSSubjectAltName != 0 && sv.HasCert && len(sv.Cert.SANs) > 0 {
		j.Array("subjectaltname")
		for _, n := range sv.Cert.SANs {
			j.elemBytes(n)
		}
		j.Close(']')
	}
	if fields&TLSSessionResumed != 0 && s.Flags&tls.FlagSessionResumed != 0 && !sv.HasCert &&
		s.Flags&tls.FlagStateServerHello != 0 && s.Flags&tls.FlagLogWithoutCert == 0 {
		j.Bool("session_resumed", true)
	}
	if fields&TLSSerial != 0 && sv.HasCert {
		j.Bytes("serial", sv.Cert.Serial)
	}
	if fields&TLSFingerprint != 0 && sv.HasCert {
		j.Bytes("fingerprint", sv.Cert.Fingerprint)
	}
	if fields&TLSSNI != 0 && cl.SNI != nil {
		j.Bytes("sni", cl.SNI)
	}
	if fields&TLSVersion != 0 {
		v := sv.Version
		if v == 0 {
			v = cl.Version
		}
		j.versionMember("version", v)
	}
	if fields&TLSNotBefore != 0 && sv.HasCert && sv.Cert.NotBefore != 0 {
		j.timeMember("notbefore", sv.Cert.NotBefore)
	}
	if fields&TLSNotAfter != 0 && sv.HasCert && sv.Cert.NotAfter != 0 {
		j.timeMember("notafter", sv.Cert.NotAfter)
	}
	if fields&TLSCertificate != 0 && len(sv.Certs) > 0 {
		j.Base64("certificate", sv.Certs[0])
	}
	if fields&TLSChain != 0 && len(sv.Certs) > 0 {
		tlsChain(j, sv.Certs)
	}
	if fields&TLSJA3 != 0 && cl.HasJA3() {
		j.Object("ja3")
		j.Bytes("hash", cl.JA3Hash)
		j.Bytes("string", cl.JA3)
		j.Close('}')
	}
	if fields&TLSJA3S != 0 && sv.HasJA3() {
		j.Object("ja3s")
		j.Bytes("hash", sv.JA3Hash)
		j.Bytes("string", sv.JA3)
		j.Close('}')
	}
	if fields&TLSJA4 != 0 {
		j.Bytes("ja4", s.JA4())
	}
	if fields&TLSClientALPNs != 0 {
		tlsALPNs(j, "client_alpns", cl)
	}
	if fields&TLSServerALPNs != 0 {
		tlsALPNs(j, "server_alpns", sv)
	}
	if fields&TLSClientHandshake != 0 && !handshakeEmpty(cl) {
		j.Object("client_handshake")
		j.versionMember("version", cl.HSVersion)
		uintList(j, "ciphers", cl.Hello.Ciphers)
		uintList(j, "exts", cl.Hello.Extensions)
		uintList(j, "sig_algs", cl.Hello.SigAlgs)
		j.Close('}')
	}
	if fields&TLSServerHandshake != 0 && !handshakeEmpty(sv) {
		j.Object("server_handshake")
		j.versionMember("version", sv.HSVersion)
		first := uint64(0)
		for _, c := range sv.Hello.Ciphers {
			if !tls.IsGREASE(c) {
				first = uint64(c)
				break
			}
		}
		j.Uint("cipher", first)
		uintList(j, "exts", sv.Hello.Extensions)
		j.Close('}')
	}
	if fields&TLSClient != 0 && cl.HasCert {
		j.Object("client")
		c := &cl.Cert
		j.Bytes("subject", c.Subject)
		j.Bytes("issuerdn", c.Issuer)
		j.Bytes("fingerprint", c.Fingerprint)
		j.Bytes("serial", c.Serial)
		if c.NotBefore != 0 {
			j.timeMember("notbefore", c.NotBefore)
		}
		if c.NotAfter != 0 {
			j.timeMember("notafter", c.NotAfter)
		}
		if fields&TLSClientCert != 0 && len(cl.Certs) > 0 {
			j.Base64("certificate", cl.Certs[0])
		}
		if fields&TLSClientChain != 0 && len(cl.Certs) > 0 {
			tlsChain(j, cl.Certs)
		}
		j.Close('}')
	}
}

func tlsChain(j *JSON, certs [][]byte) {
	j.Array("chain")
	for _, c := range certs {
		j.elemBase64(c)
	}
	j.Close(']')
}

// handshakeEmpty is SCTLSHandshakeIsEmpty: nothing was recorded for the side.
func handshakeEmpty(c *tls.Conn) bool {
	h := &c.Hello
	return c.HSVersion == 0 && len(h.Ciphers) == 0 && len(h.Extensions) == 0 && len(h.SigAlgs) == 0 &&
		len(h.ALPNs) == 0 && !h.SNI
}

func tlsALPNs(j *JSON, k string, c *tls.Conn) {
	if handshakeEmpty(c) || len(c.Hello.ALPNs) == 0 {
		return
	}
	j.Array(k)
	for _, a := range c.Hello.ALPNs {
		j.elemBytes(a)
	}
	j.Close(']')
}

// uintList writes a decimal array of the non-GREASE values of l, nothing when there is none.
func uintList(j *JSON, k string, l []uint16) {
	n := 0
	for _, v := range l {
		if tls.IsGREASE(v) {
			continue
		}
		if n == 0 {
			j.Array(k)
		}
		j.ElemUint(uint64(v))
		n++
	}
	if n > 0 {
		j.Close(']')
	}
}
