// Package ja computes the TLS client/server fingerprints Suricata 8.0.6 exposes to rules and EVE:
// JA3 and JA3S (src/util-ja3.c, the Ja3Buffer* calls of src/app-layer-ssl.c) and JA4
// (rust/src/ja4.rs: JA4::try_new over rust/src/handshake.rs: HandshakeParams). Every function
// appends to a caller buffer and allocates nothing.
package ja

import (
	"crypto/md5"
	"crypto/sha256"
	"slices"
	"strconv"
)

// Hello is what a ClientHello or ServerHello contributes to the fingerprints, lists in wire
// order with GREASE values still in (the functions remove them); the parser resets and fills it.
//
// Several ClientHellos in one flow (after a HelloRetryRequest, tests tls13-draft22 and
// tls-duplicate-hello): Suricata adds every later hello's ciphers, extensions, signature
// algorithms and ALPNs to the one JA4 handshake record (rust/src/handshake.rs HandshakeParams) and
// keeps the highest version it was given (set_tls_version), but JA3 is frozen at the first hello.
// So the parser feeds them this way:
//   - first ClientHello: Reset, fill, compute and keep the JA3 string (and hash) now;
//   - each later ClientHello: do NOT Reset; append its lists to the same Hello, and set
//     Version = max(Version, its legacy version) and SupportedVersion = max(SupportedVersion, its
//     first valid supported_versions entry). JA4 of the Hello is then Suricata's JA4 of the flow,
//     and its lists are the EVE client_handshake arrays.
//
// A ServerHello uses its own Hello (JA3S, server_handshake).
type Hello struct {
	Version          uint16   // the hello's legacy version
	SupportedVersion uint16   // first valid supported_versions entry (client) / selected (server), 0 none
	Ciphers          []uint16 // cipher suites (a ServerHello has one)
	Extensions       []uint16 // extension types up to where decoding stopped (§2.3)
	Groups           []uint16 // supported_groups (10), ClientHello
	ECPointFormats   []uint8  // ec_point_formats (11), ClientHello
	SigAlgs          []uint16 // signature_algorithms (13), ClientHello
	ALPNs            [][]byte // ALPN names in order (empty names left out by the parser)
	SNI              bool     // an SNI extension was present
	QUIC             bool     // JA4 'q' instead of 't'
}

// Reset empties h keeping its slices' storage (the ALPN byte slices are dropped, not reused:
// they point into the parser's buffers).
func (h *Hello) Reset() {
	h.Version, h.SupportedVersion = 0, 0
	h.Ciphers = h.Ciphers[:0]
	h.Extensions = h.Extensions[:0]
	h.Groups = h.Groups[:0]
	h.ECPointFormats = h.ECPointFormats[:0]
	h.SigAlgs = h.SigAlgs[:0]
	clear(h.ALPNs)
	h.ALPNs = h.ALPNs[:0]
	h.SNI, h.QUIC = false, false
}

// IsGREASE reports whether v is one of the 16 RFC 8701 GREASE values 0x?a?a
// (TLSDecodeValueIsGREASE, HandshakeParams::is_grease).
func IsGREASE(v uint16) bool {
	return v&0x0f0f == 0x0a0a && v>>12 == (v>>4)&0xf
}

func appendList16(dst []byte, l []uint16) []byte {
	first := true
	for _, v := range l {
		if IsGREASE(v) {
			continue
		}
		if !first {
			dst = append(dst, '-')
		}
		first = false
		dst = strconv.AppendUint(dst, uint64(v), 10)
	}
	return dst
}

// JA3 appends the JA3 string of a ClientHello: "version,ciphers,extensions,groups,ecpointformats",
// decimal values joined by '-', GREASE removed from ciphers, extensions and groups, an empty list
// leaving its field empty ("769,47-53,,," ; Ja3BufferAppendBuffer).
func JA3(dst []byte, h *Hello) []byte {
	dst = strconv.AppendUint(dst, uint64(h.Version), 10)
	dst = append(dst, ',')
	dst = appendList16(dst, h.Ciphers)
	dst = append(dst, ',')
	dst = appendList16(dst, h.Extensions)
	dst = append(dst, ',')
	dst = appendList16(dst, h.Groups)
	dst = append(dst, ',')
	for i, v := range h.ECPointFormats {
		if i > 0 {
			dst = append(dst, '-')
		}
		dst = strconv.AppendUint(dst, uint64(v), 10)
	}
	return dst
}

// JA3S appends the JA3S string of a ServerHello: "version,cipher,extensions"
// ("771,49199,65281-0-11-16-23", tests tls-ja3s / detect-bidir-ja3).
func JA3S(dst []byte, h *Hello) []byte {
	dst = strconv.AppendUint(dst, uint64(h.Version), 10)
	dst = append(dst, ',')
	dst = appendList16(dst, h.Ciphers)
	dst = append(dst, ',')
	dst = appendList16(dst, h.Extensions)
	return dst
}

const hexDigits = "0123456789abcdef"

// MD5Hex appends the lowercase hex MD5 of s (the ja3.hash / ja3s.hash form).
func MD5Hex(dst, s []byte) []byte {
	sum := md5.Sum(s)
	return appendHex(dst, sum[:])
}

func appendHex(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

// ja4Version is JA4::version_to_ja4code.
func ja4Version(v uint16) string {
	switch v {
	case 0x0304:
		return "13"
	case 0x0303:
		return "12"
	case 0x0302:
		return "11"
	case 0x0301:
		return "10"
	case 0x0300:
		return "s3"
	}
	return "00"
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ja4Empty is the value Suricata logs without a ClientHello (sha256("") twice truncated, and of "_").
const ja4Empty = "t00i000000_e3b0c44298fc_d2e2adf7177b"

// JA4Len is the length of a JA4 string.
const JA4Len = 36

// JA4 appends the 36-char JA4 of a ClientHello handshake record (JA4::try_new). A nil h gives
// "t00i000000_e3b0c44298fc_d2e2adf7177b", the value of an empty record.
//
// Version: the highest of Version and SupportedVersion that is not GREASE
// (HandshakeParams::set_tls_version keeps the maximum of the values it is given: the legacy version
// and the FIRST valid supported_versions entry, not the highest one of the list); 0x0304 "13" ...
// 0x0300 "s3", anything else (drafts, none) "00".
func JA4(dst []byte, h *Hello) []byte {
	if h == nil {
		return append(dst, ja4Empty...)
	}
	var ver uint16
	for _, v := range [2]uint16{h.Version, h.SupportedVersion} {
		if v != 0 && !IsGREASE(v) && v > ver {
			ver = v
		}
	}
	if h.QUIC {
		dst = append(dst, 'q')
	} else {
		dst = append(dst, 't')
	}
	dst = append(dst, ja4Version(ver)...)

	// Stack scratch for the filtered lists and the hashed text; a hello longer than that (the
	// parser bounds a hello to 64 KiB) spills to the heap, the hashes still cover every value.
	var cbuf, ebuf [128]uint16
	ciphers := cbuf[:0]
	for _, c := range h.Ciphers {
		if !IsGREASE(c) {
			ciphers = append(ciphers, c)
		}
	}
	exts := ebuf[:0]
	nExt := 0
	sni := h.SNI
	for _, e := range h.Extensions {
		if IsGREASE(e) {
			continue
		}
		nExt++
		if e == 0 {
			sni = true // HandshakeParams::add_extension sets domain on ServerName
		}
		if e != 0 && e != 16 {
			exts = append(exts, e)
		}
	}
	if sni {
		dst = append(dst, 'd')
	} else {
		dst = append(dst, 'i')
	}
	dst = append2(dst, min(99, len(ciphers)))
	dst = append2(dst, min(99, nExt))
	dst = appendALPN(dst, h.ALPNs)
	dst = append(dst, '_')

	var rbuf [1024]byte
	slices.Sort(ciphers)
	raw := appendHexList(rbuf[:0], ciphers)
	sum := sha256.Sum256(raw)
	dst = appendHex(dst, sum[:6])
	dst = append(dst, '_')

	slices.Sort(exts)
	raw = appendHexList(rbuf[:0], exts)
	raw = append(raw, '_')
	first := true
	for _, s := range h.SigAlgs {
		if IsGREASE(s) { // HandshakeParams::add_signature_algorithm
			continue
		}
		if !first {
			raw = append(raw, ',')
		}
		first = false
		raw = hex4(raw, s)
	}
	sum = sha256.Sum256(raw)
	return appendHex(dst, sum[:6])
}

func appendHexList(dst []byte, l []uint16) []byte {
	for i, v := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = hex4(dst, v)
	}
	return dst
}

func hex4(dst []byte, v uint16) []byte {
	return append(dst, hexDigits[v>>12], hexDigits[v>>8&0xf], hexDigits[v>>4&0xf], hexDigits[v&0xf])
}

func append2(dst []byte, n int) []byte {
	return append(dst, byte('0'+n/10), byte('0'+n%10))
}

// appendALPN is JA4::format_alpn over the first ALPN name.
func appendALPN(dst []byte, alpns [][]byte) []byte {
	if len(alpns) == 0 || len(alpns[0]) == 0 {
		return append(dst, '0', '0')
	}
	a := alpns[0]
	first, last := a[0], a[len(a)-1]
	if len(a) == 2 && IsGREASE(uint16(first)<<8|uint16(last)) {
		return append(dst, '0', '0')
	}
	if !isAlnum(first) || !isAlnum(last) {
		return append(dst, hexDigits[first>>4], hexDigits[last&0xf])
	}
	return append(dst, first, last)
}

// VersionString appends Suricata's name of a TLS version (rust/src/tls_version.rs:
// SCTlsVersion::as_str): "SSLv2", "SSLv3", "TLSv1", "TLS 1.1", "TLS 1.2", "TLS 1.3",
// "TLS 1.3 draft-NN" (0x7f10..0x7f1c), "TLS 1.3 draft-<16" (0x7f01), "TLS 1.3 draft-NN-fb"
// (0xfb14..0xfb17, 0xfb1a), "UNDETERMINED" (0), else the decimal number.
func VersionString(dst []byte, v uint16) []byte {
	switch {
	case v == 0:
		return append(dst, "UNDETERMINED"...)
	case v == 0x0200:
		return append(dst, "SSLv2"...)
	case v == 0x0300:
		return append(dst, "SSLv3"...)
	case v == 0x0301:
		return append(dst, "TLSv1"...)
	case v == 0x0302:
		return append(dst, "TLS 1.1"...)
	case v == 0x0303:
		return append(dst, "TLS 1.2"...)
	case v == 0x0304:
		return append(dst, "TLS 1.3"...)
	case v == 0x7f01:
		return append(dst, "TLS 1.3 draft-<16"...)
	case v >= 0x7f10 && v <= 0x7f1c:
		dst = append(dst, "TLS 1.3 draft-"...)
		return strconv.AppendUint(dst, uint64(v&0xff), 10)
	case v >= 0xfb14 && v <= 0xfb17, v == 0xfb1a:
		dst = append(dst, "TLS 1.3 draft-"...)
		dst = strconv.AppendUint(dst, uint64(v&0xff), 10)
		return append(dst, "-fb"...)
	}
	return strconv.AppendUint(dst, uint64(v), 10)
}
