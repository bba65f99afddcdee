package ja

import (
	"errors"

	"golang.org/x/crypto/cryptobyte"
)

// validVersion is TLSVersionValid / SCTlsVersion::is_valid (rust/src/tls_version.rs): a version
// Suricata accepts as a supported_versions entry.
func validVersion(v uint16) bool {
	switch {
	case v >= 0x0300 && v <= 0x0304, v == 0x7f01, v >= 0x7f10 && v <= 0x7f1c,
		v >= 0xfb14 && v <= 0xfb17, v == 0xfb1a:
		return true
	}
	return false
}

var errHello = errors.New("malformed hello")

// parseHello fills h from a ClientHello (client) or ServerHello body with cryptobyte, as a second
// implementation independent of the TLS parser: Suricata's field rules (TLSDecodeHSHello*) for
// what JA3/JA3S/JA4 see, without its error events. An extension whose body does not parse stops the
// extension list there (the failing one is not recorded), as Suricata does.
func parseHello(body []byte, client bool, h *Hello) error {
	h.Reset()
	s := cryptobyte.String(body)
	var random []byte
	if !s.ReadUint16(&h.Version) || !s.ReadBytes(&random, 32) {
		return errHello
	}
	var sid cryptobyte.String
	if !s.ReadUint8LengthPrefixed(&sid) {
		return errHello
	}
	if client {
		var cs cryptobyte.String
		if !s.ReadUint16LengthPrefixed(&cs) || len(cs)%2 != 0 {
			return errHello
		}
		for !cs.Empty() {
			var c uint16
			cs.ReadUint16(&c)
			h.Ciphers = append(h.Ciphers, c)
		}
		var comp cryptobyte.String
		if !s.ReadUint8LengthPrefixed(&comp) {
			return errHello
		}
	} else {
		var c uint16
		var comp uint8
		if !s.ReadUint16(&c) || !s.ReadUint8(&comp) {
			return errHello
		}
		h.Ciphers = append(h.Ciphers, c)
	}
	if s.Empty() {
		return nil
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) {
		return errHello
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return nil
		}
		if !client {
			if typ == 43 {
				var v uint16
				if data.ReadUint16(&v) {
					h.SupportedVersion = v
				}
			}
			h.Extensions = append(h.Extensions, typ)
			continue
		}
		ok := true
		switch typ {
		case 0: // server_name (TLSDecodeHSHelloExtensionSni: an empty extension is accepted)
			if data.Empty() {
				break
			}
			var list, name cryptobyte.String
			var nt uint8
			ok = data.ReadUint16LengthPrefixed(&list) && list.ReadUint8(&nt) && nt == 0 &&
				list.ReadUint16LengthPrefixed(&name) && len(name) >= 1 && len(name) <= 255
			if ok {
				h.SNI = true
			}
		case 10: // supported_groups
			var l cryptobyte.String
			ok = data.ReadUint16LengthPrefixed(&l)
			for ok && len(l) >= 2 {
				var g uint16
				l.ReadUint16(&g)
				h.Groups = append(h.Groups, g)
			}
		case 11: // ec_point_formats
			var l cryptobyte.String
			ok = data.ReadUint8LengthPrefixed(&l)
			h.ECPointFormats = append(h.ECPointFormats, l...)
		case 13: // signature_algorithms
			var l cryptobyte.String
			ok = data.ReadUint16LengthPrefixed(&l)
			for ok && len(l) >= 2 {
				var a uint16
				l.ReadUint16(&a)
				h.SigAlgs = append(h.SigAlgs, a)
			}
		case 16: // ALPN
			var l cryptobyte.String
			ok = data.ReadUint16LengthPrefixed(&l)
			for ok && !l.Empty() {
				var p cryptobyte.String
				if !l.ReadUint8LengthPrefixed(&p) {
					ok = false
					break
				}
				if len(p) > 0 {
					h.ALPNs = append(h.ALPNs, p)
				}
			}
		case 43: // supported_versions: the first valid one
			if data.Empty() {
				break
			}
			var l cryptobyte.String
			ok = data.ReadUint8LengthPrefixed(&l) && len(l) >= 2
			for ok && len(l) >= 2 {
				var v uint16
				l.ReadUint16(&v)
				if validVersion(v) {
					h.SupportedVersion = v
					break
				}
			}
		}
		if !ok {
			return nil
		}
		h.Extensions = append(h.Extensions, typ)
	}
	return nil
}
