package cert

// A minimal DER/BER TLV reader with the leniency of asn1-rs 0.6 (Header::from_der): high tag
// numbers, non-minimal long-form lengths up to 8 bytes, no indefinite length. A declared length
// beyond the input is errIncomplete (nom's streaming take: x509-parser then reports
// Err::Incomplete, which Suricata maps to CERTIFICATE_INVALID_LENGTH unless the field's parser
// replaces the error by its own).

type tlvErr uint8

const (
	tlvOK tlvErr = iota
	tlvIncomplete
	tlvBad // a DER header error (BerError): X509Error::Der
)

// Universal tag numbers used here.
const (
	tagBoolean     = 1
	tagInteger     = 2
	tagBitString   = 3
	tagOctetString = 4
	tagOID         = 6
	tagSequence    = 16
	tagSet         = 17
	tagUTCTime     = 23
	tagGenTime     = 24
)

const (
	classUniversal = 0
	classContext   = 2
)

type tlv struct {
	class       uint8
	constructed bool
	tag         uint32
	data        []byte // content
	full        []byte // header + content
}

// readTLV reads one element from b; rest is what follows it.
func readTLV(b []byte) (t tlv, rest []byte, err tlvErr) {
	hdr, n, length, err := readHeader(b)
	if err != tlvOK {
		return t, nil, err
	}
	b2 := b[n:]
	if uint64(len(b2)) < length {
		return t, nil, tlvIncomplete
	}
	t = hdr
	t.data = b2[:length]
	t.full = b[:n+int(length)]
	return t, b2[length:], tlvOK
}

// readHeader parses an identifier and a definite length (asn1-rs Header::from_der).
func readHeader(b []byte) (t tlv, n int, length uint64, err tlvErr) {
	if len(b) < 1 {
		return t, 0, 0, tlvIncomplete
	}
	c := b[0]
	t.class = c >> 6
	t.constructed = c&0x20 != 0
	t.tag = uint32(c & 0x1f)
	n = 1
	if t.tag == 0x1f { // high tag number form
		t.tag = 0
		for i := 0; ; i++ {
			if n >= len(b) {
				return t, 0, 0, tlvIncomplete
			}
			d := b[n]
			n++
			if i >= 4 { // asn1-rs rejects tags over u32
				return t, 0, 0, tlvBad
			}
			t.tag = t.tag<<7 | uint32(d&0x7f)
			if d&0x80 == 0 {
				break
			}
		}
	}
	if n >= len(b) {
		return t, 0, 0, tlvIncomplete
	}
	l := b[n]
	n++
	if l < 0x80 {
		return t, n, uint64(l), tlvOK
	}
	k := int(l & 0x7f)
	if k == 0 || k == 0x7f { // indefinite (not DER) or the reserved 0xff
		return t, 0, 0, tlvBad
	}
	if len(b)-n < k {
		return t, 0, 0, tlvIncomplete
	}
	if k > 8 {
		return t, 0, 0, tlvBad
	}
	for _, d := range b[n : n+k] {
		length = length<<8 | uint64(d)
	}
	n += k
	if length > 1<<31 { // usize conversion and any real input bound
		return t, 0, 0, tlvBad
	}
	return t, n, length, tlvOK
}
