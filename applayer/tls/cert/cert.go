// Package cert decodes the X.509 certificates of a TLS Certificate message into the strings
// Suricata 8.0.6 matches and logs (rust/src/x509/mod.rs over x509-parser 0.16: SCX509Decode,
// SCX509GetSubject/Issuer/Serial/Validity/SubjectAltNameAt; src/app-layer-ssl.c:
// TlsDecodeHSCertificate for the SHA-1 fingerprint and the event of a certificate that fails).
//
// Decode walks the DER once with the same acceptance rules and error classes as x509-parser's
// X509Certificate::from_der (which Suricata uses with its default options: extensions deep-parsed,
// a failing extension body kept as ParseError, not an error) and formats the names straight into
// the Cert's reused buffers: a warm Cert decodes a certificate without allocating.
package cert

import (
	"crypto/sha1"
	"math/big"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Cert is one decoded certificate as detection and EVE use it; Decode reuses its storage.
type Cert struct {
	Subject, Issuer     []byte   // "C=US, O=Let's Encrypt, CN=R3" (§2.4), or "<X509Error: Invalid X.509 name>"
	Serial              []byte   // "00:97:E6:..." uppercase
	Fingerprint         []byte   // sha1 lowercase hex pairs with ':'
	NotBefore, NotAfter int64    // Unix seconds; 0 = absent (§2.4)
	SANs                [][]byte // §2.4 SAN text forms, in order

	sanBuf []byte
	sanOff []int
}

// DecodeError is the failure of Decode: Event is the Suricata event name
// (app-layer-event:tls.<Event>, case-insensitive) the failure raises.
type DecodeError struct{ Event string }

func (e *DecodeError) Error() string { return "tls certificate: " + e.Event }

// Event names (src/app-layer-ssl.c tls_decoder_event_table; the mapping from x509-parser errors is
// rust/src/x509/mod.rs: x509_parse_error_to_errcode and TlsDecodeHSCertificateErrSetEvent).
const (
	EventInvalidCertificate = "INVALID_CERTIFICATE"
	EventInvalidLength      = "CERTIFICATE_INVALID_LENGTH"
	EventInvalidVersion     = "CERTIFICATE_INVALID_VERSION"
	EventInvalidSerial      = "CERTIFICATE_INVALID_SERIAL"
	EventInvalidAlgorithm   = "CERTIFICATE_INVALID_ALGORITHMIDENTIFIER"
	EventInvalidX509Name    = "CERTIFICATE_INVALID_X509NAME"
	EventInvalidDate        = "CERTIFICATE_INVALID_DATE"
	EventInvalidExtensions  = "CERTIFICATE_INVALID_EXTENSIONS"
	EventInvalidDER         = "CERTIFICATE_INVALID_DER"
	EventInvalidSubject     = "CERTIFICATE_INVALID_SUBJECT"
	EventInvalidIssuer      = "CERTIFICATE_INVALID_ISSUER"
	EventInvalidValidity    = "CERTIFICATE_INVALID_VALIDITY"
)

// EventNames lists every event name Decode can return (the TLS parser registers them). The last
// three exist in Suricata's table (a subject/issuer/validity extraction failure after a successful
// parse) but x509-parser never makes those extractions fail, so Decode never returns them; they are
// listed so that rules naming them load.
var EventNames = []string{
	EventInvalidCertificate, EventInvalidLength, EventInvalidVersion, EventInvalidSerial,
	EventInvalidAlgorithm, EventInvalidX509Name, EventInvalidDate, EventInvalidExtensions,
	EventInvalidDER, EventInvalidSubject, EventInvalidIssuer, EventInvalidValidity,
}

var (
	errCert    = &DecodeError{EventInvalidCertificate}
	errLength  = &DecodeError{EventInvalidLength}
	errVersion = &DecodeError{EventInvalidVersion}
	errSerial  = &DecodeError{EventInvalidSerial}
	errAlg     = &DecodeError{EventInvalidAlgorithm}
	errDate    = &DecodeError{EventInvalidDate}
	errExt     = &DecodeError{EventInvalidExtensions}
	errDER     = &DecodeError{EventInvalidDER}
)

// hdrErr is the error of a container parsed with der-parser's parse_der_sequence_defined_g:
// Incomplete stays Incomplete (-> LENGTH), a header error becomes X509Error::Der (-> DER).
func hdrErr(e tlvErr) error {
	if e == tlvIncomplete {
		return errLength
	}
	return errDER
}

// seq reads a SEQUENCE the way parse_der_sequence_defined_g does (tag number checked, class not).
func seq(b []byte) (content, rest []byte, err error) {
	t, rest, e := readTLV(b)
	if e != tlvOK {
		return nil, nil, hdrErr(e)
	}
	if t.tag != tagSequence {
		return nil, nil, errDER
	}
	return t.data, rest, nil
}

// decodeState carries the raw pieces found by the walk.
type decodeState struct {
	serial          []byte
	issuer, subject []byte // Name content
	notBefore       int64
	notAfter        int64
	san             []byte // SubjectAltName extension value (OCTET STRING content), nil none
	sanCount        int
}

// Decode decodes one DER certificate into c. On failure it returns a *DecodeError whose Event is
// the Suricata event name x509-parser's failure maps to, and c's fields are emptied.
// Decode keeps no reference to der.
func Decode(der []byte, c *Cert) error {
	c.reset()
	var st decodeState
	if err := walk(der, &st); err != nil {
		return err
	}
	c.Subject = appendName(c.Subject, st.subject)
	c.Issuer = appendName(c.Issuer, st.issuer)
	c.Serial = appendHexSep(c.Serial, st.serial, "0123456789ABCDEF")
	sum := sha1.Sum(der)
	c.Fingerprint = appendHexSep(c.Fingerprint, sum[:], "0123456789abcdef")
	c.NotBefore, c.NotAfter = st.notBefore, st.notAfter
	if st.san != nil && st.sanCount == 1 {
		c.decodeSANs(st.san)
	}
	return nil
}

func (c *Cert) reset() {
	c.Subject = c.Subject[:0]
	c.Issuer = c.Issuer[:0]
	c.Serial = c.Serial[:0]
	c.Fingerprint = c.Fingerprint[:0]
	c.NotBefore, c.NotAfter = 0, 0
	c.SANs = c.SANs[:0]
	c.sanBuf = c.sanBuf[:0]
	c.sanOff = c.sanOff[:0]
}

// walk is X509CertificateParser::parse and TbsCertificateParser::parse.
func walk(der []byte, st *decodeState) error {
	certBody, _, err := seq(der) // trailing data after the certificate is ignored
	if err != nil {
		return err
	}
	tbs, afterTBS, err := seq(certBody)
	if err != nil {
		return err
	}
	if err := walkTBS(tbs, st); err != nil {
		return err
	}
	rest, err := algorithmIdentifier(afterTBS)
	if err != nil {
		return err
	}
	if _, err := bitString(rest); err != nil { // parse_signature_value: InvalidSignatureValue
		return errCert
	}
	return nil
}

func walkTBS(b []byte, st *decodeState) error {
	var err error
	// version [0] EXPLICIT INTEGER OPTIONAL (X509Version::from_der_tagged_0 over asn1-rs
	// OptTaggedParser::parse_der): the first element is read whole (Any::from_der: errors LENGTH /
	// DER); another tag number means no version; tag 0 of another class is an error (DER).
	if len(b) > 0 {
		t, rest, e := readTLV(b)
		if e != tlvOK {
			return hdrErr(e)
		}
		if t.tag == 0 {
			if t.class != classContext {
				return errDER
			}
			if !derUint32(t.data) {
				return errVersion
			}
			b = rest
		}
	}
	// serialNumber: parse_serial maps every failure to InvalidSerial.
	t, rest, e := readTLV(b)
	if e != tlvOK || t.tag != tagInteger {
		return errSerial
	}
	st.serial = t.data
	b = rest
	if b, err = algorithmIdentifier(b); err != nil {
		return err
	}
	if st.issuer, b, err = seq(b); err != nil { // X509Name::from_der
		return err
	}
	if b, err = validity(b, st); err != nil {
		return err
	}
	if st.subject, b, err = seq(b); err != nil {
		return err
	}
	// subjectPublicKeyInfo
	spki, rest, err := seq(b)
	if err != nil {
		return err
	}
	afterAlg, err := algorithmIdentifier(spki)
	if err != nil {
		return err
	}
	if _, err := bitString(afterAlg); err != nil { // InvalidSPKI
		return errCert
	}
	b = rest
	// issuerUniqueID [1] IMPLICIT, subjectUniqueID [2] IMPLICIT (errors: Invalid*UID)
	for _, tag := range [2]uint32{1, 2} {
		if len(b) == 0 {
			break
		}
		t, n, length, e := readHeader(b)
		if e != tlvOK {
			return errCert
		}
		if t.tag != tag { // Option<T>::from_der: another tag number is an absent field
			continue
		}
		if t.class != classContext { // TaggedValue: wrong class
			return errCert
		}
		if uint64(len(b)-n) < length || !validBitString(b[n:n+int(length)], t.constructed) {
			return errCert
		}
		b = b[n+int(length):]
	}
	return extensions(b, st)
}

// algorithmIdentifier is AlgorithmIdentifier::from_der (asn1-rs DerSequence derive): SEQUENCE
// { OID (failure: InvalidAlgorithmIdentifier), ANY OPTIONAL }; bytes after the parameters are
// ignored.
func algorithmIdentifier(b []byte) ([]byte, error) {
	body, rest, err := seq(b)
	if err != nil {
		return nil, err
	}
	t, after, e := readTLV(body)
	if e != tlvOK || t.tag != tagOID {
		return nil, errAlg
	}
	if len(after) > 0 { // parameters: Option<Any>
		if _, _, e := readTLV(after); e != tlvOK {
			return nil, hdrErr(e)
		}
	}
	return rest, nil
}

// bitString is BitString::from_der: primitive, at least the unused-bits byte, at most 7 unused.
func bitString(b []byte) ([]byte, error) {
	t, rest, e := readTLV(b)
	if e != tlvOK || t.tag != tagBitString || !validBitString(t.data, t.constructed) {
		return nil, errCert
	}
	return rest, nil
}

func validBitString(data []byte, constructed bool) bool {
	return !constructed && len(data) >= 1 && data[0] <= 7
}

// derUint32 is u32::from_der on an element: INTEGER, minimal encoding, non-negative, fits.
func derUint32(b []byte) bool {
	t, _, e := readTLV(b)
	if e != tlvOK || t.tag != tagInteger || t.constructed {
		return false
	}
	d := t.data
	if len(d) == 0 || d[0]&0x80 != 0 {
		return false
	}
	if len(d) > 1 && d[0] == 0 && d[1]&0x80 == 0 {
		return false // DER: leading zero
	}
	if d[0] == 0 {
		d = d[1:]
	}
	return len(d) <= 4
}

// validity is Validity::from_der: SEQUENCE { ASN1Time, ASN1Time }; any time failure is
// InvalidDate.
func validity(b []byte, st *decodeState) ([]byte, error) {
	body, rest, err := seq(b)
	if err != nil {
		return nil, err
	}
	var ok bool
	if st.notBefore, body, ok = parseTime(body); !ok {
		return nil, errDate
	}
	if st.notAfter, _, ok = parseTime(body); !ok {
		return nil, errDate
	}
	return rest, nil
}

// extensions is parse_extensions(i, Tag(3)): an [3] header (tag number only; failure:
// InvalidExtensions) then, all-consuming over the REST of the TBS (the [3] length is not used),
// SEQUENCE OF Extension, each SEQUENCE { OID, BOOLEAN OPTIONAL, OCTET STRING }. An extension that
// does not parse stops many0 and the all_consuming check fails with a nom error: X509Error::NomError,
// which Suricata reports as INVALID_CERTIFICATE. Extension bodies never fail the certificate.
func extensions(b []byte, st *decodeState) error {
	if len(b) == 0 {
		return nil
	}
	t, n, _, e := readHeader(b)
	if e != tlvOK || t.tag != 3 {
		return errExt
	}
	body, rest, err := seq(b[n:])
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return errCert
	}
	for len(body) > 0 {
		ext, after, e := readTLV(body)
		if e != tlvOK || ext.tag != tagSequence {
			return errCert
		}
		body = after
		oid, r, e := readTLV(ext.data)
		if e != tlvOK || oid.tag != tagOID {
			return errCert
		}
		// der_read_critical: an optional BOOLEAN (any one-byte value accepted)
		if len(r) > 0 {
			t, r2, e := readTLV(r)
			if e != tlvOK {
				return errCert
			}
			if t.tag == tagBoolean {
				if len(t.data) != 1 {
					return errCert
				}
				r = r2
			}
		}
		val, _, e := readTLV(r)
		if e != tlvOK || val.tag != tagOctetString {
			return errCert
		}
		if string(oid.data) == "\x55\x1d\x11" { // 2.5.29.17 subjectAltName
			st.sanCount++
			st.san = val.data
		}
	}
	return nil
}

// appendHexSep appends b as hex pairs joined by ':' (SCX509GetSerial, SCToHex_sep).
func appendHexSep(dst, b []byte, digits string) []byte {
	for i, c := range b {
		if i > 0 {
			dst = append(dst, ':')
		}
		dst = append(dst, digits[c>>4], digits[c&0xf])
	}
	return dst
}

// FormatTime appends t as EVE writes notbefore/notafter ("1969-12-31T00:00:00", UTC, no zone).
func FormatTime(dst []byte, t int64) []byte {
	days, secs := t/86400, t%86400
	if secs < 0 {
		days, secs = days-1, secs+86400
	}
	y, m, d := civilFromDays(days)
	if y < 0 || y > 9999 { // outside what x509 times can hold; keep the layout of time.Format
		return time.Unix(t, 0).UTC().AppendFormat(dst, "2006-01-02T15:04:05")
	}
	dst = append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	dst = append(dst, byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10), 'T')
	h, mi, s := int(secs/3600), int(secs/60%60), int(secs%60)
	return append(dst, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10))
}

// civilFromDays is the proleptic Gregorian date of a day number from 1970-01-01.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

// --- names -----------------------------------------------------------------------------------

const invalidName = "<X509Error: Invalid X.509 name>"

// appendName formats a Name's content (the RDNSequence) as X509Name's Display does
// (x509-parser x509.rs: x509name_to_string): RDNs joined by ", ", the attributes of a
// multi-valued RDN by " + ", each ABBR=value; a value that cannot be shown as text makes the
// whole string "<X509Error: Invalid X.509 name>". The parse is many0/many1 over complete
// elements: the first RDN or attribute that does not parse ends the list silently.
func appendName(dst, name []byte) []byte {
	start := len(dst)
	firstRDN := true
	for len(name) > 0 {
		rdn, rest, e := readTLV(name)
		if e != tlvOK || rdn.tag != tagSet {
			break
		}
		name = rest
		set := rdn.data
		n := 0
		mark := len(dst)
		for len(set) > 0 {
			oidT, val, ok := readATV(set, &set)
			if !ok {
				break
			}
			if n == 0 {
				if !firstRDN {
					dst = append(dst, ", "...)
				}
			} else {
				dst = append(dst, " + "...)
			}
			n++
			dst = appendAttrType(dst, oidT)
			dst = append(dst, '=')
			var good bool
			if dst, good = appendAttrValue(dst, val); !good {
				return append(dst[:start], invalidName...)
			}
		}
		if n == 0 { // many1 failed: the RDN does not parse, many0 stops
			dst = dst[:mark]
			break
		}
		firstRDN = false
	}
	return dst
}

// readATV parses AttributeTypeAndValue ::= SEQUENCE { OID, ANY } from *set.
func readATV(b []byte, set *[]byte) (oid []byte, val tlv, ok bool) {
	atv, rest, e := readTLV(b)
	if e != tlvOK || atv.tag != tagSequence {
		return nil, val, false
	}
	o, r, e := readTLV(atv.data)
	if e != tlvOK || o.tag != tagOID {
		return nil, val, false
	}
	val, _, e = readTLV(r)
	if e != tlvOK {
		return nil, val, false
	}
	*set = rest
	return o.data, val, true
}

// appendAttrType appends the ABBREV_MAP abbreviation, else the oid-registry short name, else
// "OID(1.2.3)" (the Debug form of asn1-rs Oid).
func appendAttrType(dst, oid []byte) []byte {
	switch string(oid) {
	case "\x55\x04\x03":
		return append(dst, "CN"...)
	case "\x55\x04\x06":
		return append(dst, 'C')
	case "\x55\x04\x07":
		return append(dst, 'L')
	case "\x55\x04\x08":
		return append(dst, "ST"...)
	case "\x55\x04\x0a":
		return append(dst, 'O')
	case "\x55\x04\x0b":
		return append(dst, "OU"...)
	case "\x09\x92\x26\x89\x93\xf2\x2c\x64\x01\x19": // 0.9.2342.19200300.100.1.25
		return append(dst, "DC"...)
	case "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x01": // 1.2.840.113549.1.9.1
		return append(dst, "Email"...)
	}
	var buf [64]byte
	dotted := appendOID(buf[:0], oid)
	if sn, ok := oidShortNames[string(dotted)]; ok {
		return append(dst, sn...)
	}
	dst = append(dst, "OID("...)
	dst = appendOID(dst, oid)
	return append(dst, ')')
}

// appendOID appends the dotted form asn1-rs Oid::to_id_string writes (with the bigint feature
// x509-parser builds it with): the first byte gives the first two arcs (b/40, b%40), then base-128
// groups, a trailing unterminated group still counting as an arc; arcs of any size in decimal.
func appendOID(dst, oid []byte) []byte {
	if len(oid) == 0 {
		return dst
	}
	dst = strconv.AppendUint(dst, uint64(oid[0]/40), 10)
	if oid[0] == 0 && len(oid) == 1 {
		return dst
	}
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, uint64(oid[0]%40), 10)
	rest := oid[1:]
	for len(rest) > 0 {
		n := 0
		for n < len(rest) && rest[n]&0x80 != 0 {
			n++
		}
		if n < len(rest) {
			n++ // the terminating byte
		}
		group := rest[:n]
		rest = rest[n:]
		dst = append(dst, '.')
		if len(group) <= 9 { // at most 63 bits
			var v uint64
			for _, c := range group {
				v = v<<7 | uint64(c&0x7f)
			}
			dst = strconv.AppendUint(dst, v, 10)
			continue
		}
		v := new(big.Int) // rare: an arc beyond 63 bits
		for _, c := range group {
			v.Lsh(v, 7).Or(v, big.NewInt(int64(c&0x7f)))
		}
		dst = v.Append(dst, 10)
	}
	return dst
}

// appendAttrValue is attribute_value_to_string: string types (by tag number) as their UTF-8
// text (invalid UTF-8 is an error), BMPString decoded from UTF-16BE, anything else the content
// bytes in uppercase hex.
func appendAttrValue(dst []byte, v tlv) ([]byte, bool) {
	switch v.tag {
	case 18, 26, 19, 27, 7, 25, 20, 21, 12, 22:
		if !utf8.Valid(v.data) {
			return dst, false
		}
		return append(dst, v.data...), true
	case 30: // BMPString
		return appendBMP(dst, v.data)
	}
	const digits = "0123456789ABCDEF"
	for _, c := range v.data {
		dst = append(dst, digits[c>>4], digits[c&0xf])
	}
	return dst, true
}

// appendBMP decodes UTF-16BE as asn1-rs BmpString (String::from_utf16: unpaired surrogates are an
// error; an odd final byte is a code unit of its own).
func appendBMP(dst, b []byte) ([]byte, bool) {
	for i := 0; i < len(b); {
		var u uint16
		if i+1 < len(b) {
			u = uint16(b[i])<<8 | uint16(b[i+1])
			i += 2
		} else {
			u = uint16(b[i])
			i++
		}
		r := rune(u)
		if utf16.IsSurrogate(r) {
			if u >= 0xdc00 || i+1 >= len(b) {
				return dst, false
			}
			u2 := uint16(b[i])<<8 | uint16(b[i+1])
			r = utf16.DecodeRune(r, rune(u2))
			if r == utf8.RuneError {
				return dst, false
			}
			i += 2
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, true
}

// --- subjectAltName --------------------------------------------------------------------------

// decodeSANs is parse_subjectalternativename_ext + SCGeneralName's Display: all names or none
// (a name that does not parse makes the extension a ParseError and the certificate has no SAN).
func (c *Cert) decodeSANs(v []byte) {
	body, _, err := seq(v)
	if err != nil {
		return
	}
	for len(body) > 0 {
		t, rest, e := readTLV(body)
		if e != tlvOK || t.class != classContext {
			c.sanBuf, c.sanOff = c.sanBuf[:0], c.sanOff[:0]
			return
		}
		body = rest
		var ok bool
		if c.sanBuf, ok = appendGeneralName(c.sanBuf, t); !ok {
			c.sanBuf, c.sanOff = c.sanBuf[:0], c.sanOff[:0]
			return
		}
		c.sanOff = append(c.sanOff, len(c.sanBuf))
	}
	prev := 0
	for _, off := range c.sanOff {
		c.SANs = append(c.SANs, c.sanBuf[prev:off:off])
		prev = off
	}
}

// appendGeneralName formats one GeneralName (x509-parser GeneralName TryFrom<Any> and Display,
// with Suricata's SCGeneralName override: DNS names and URIs raw, IP addresses as Rust's Debug of a
// byte slice "[10, 0, 0, 1]").
func appendGeneralName(dst []byte, t tlv) ([]byte, bool) {
	switch t.tag {
	case 0: // otherName: OID then anything
		o, _, e := readTLV(t.data)
		if e != tlvOK || o.tag != tagOID {
			return dst, false
		}
		dst = append(dst, "OtherName("...)
		dst = appendOID(dst, o.data)
		return append(dst, ", [...])"...), true
	case 1:
		if !utf8.Valid(t.data) {
			return dst, false
		}
		dst = append(dst, "RFC822Name("...)
		dst = append(dst, t.data...)
		return append(dst, ')'), true
	case 2, 6:
		if !utf8.Valid(t.data) {
			return dst, false
		}
		return append(dst, t.data...), true
	case 3:
		return append(dst, "X400Address(<unparsed>)"...), true
	case 4: // directoryName: all_consuming(X509Name::from_der)
		name, rest, err := seq(t.data)
		if err != nil || len(rest) != 0 {
			return dst, false
		}
		dst = append(dst, "DirectoryName("...)
		dst = appendName(dst, name)
		return append(dst, ')'), true
	case 5:
		return append(dst, "EDIPartyName(<unparsed>)"...), true
	case 7:
		dst = append(dst, '[')
		for i, b := range t.data {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = strconv.AppendUint(dst, uint64(b), 10)
		}
		return append(dst, ']'), true
	case 8:
		dst = append(dst, "RegisteredID("...)
		dst = appendOID(dst, t.data)
		return append(dst, ')'), true
	}
	return dst, false
}

// Presize gives c's buffers the capacity a typical certificate needs, carved from one
// array, so that a new flow's first certificate fills them without growing each one step
// by step; a larger certificate still grows them.
func (c *Cert) Presize() {
	b := make([]byte, 1024)
	c.Subject, c.Issuer = b[0:0:256], b[256:256:512]
	c.Serial, c.Fingerprint = b[512:512:576], b[576:576:640]
	c.sanBuf = b[640:640:1024]
	c.SANs = make([][]byte, 0, 8)
	c.sanOff = make([]int, 0, 16)
}
