package tls

import (
	"bytes"
	"crypto/ed25519"
	crand "crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// Builders of TLS messages for the tests.

func u16(v int) []byte { return []byte{byte(v >> 8), byte(v)} }
func u24(v int) []byte { return []byte{byte(v >> 16), byte(v >> 8), byte(v)} }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// record is a TLS record of content type typ.
func record(typ byte, ver uint16, body []byte) []byte {
	return cat([]byte{typ}, u16(int(ver)), u16(len(body)), body)
}

// hsMsg is a handshake message.
func hsMsg(typ byte, body []byte) []byte { return cat([]byte{typ}, u24(len(body)), body) }

func ext(typ int, body []byte) []byte { return cat(u16(typ), u16(len(body)), body) }

func sniExt(name string) []byte {
	entry := cat([]byte{0}, u16(len(name)), []byte(name))
	return ext(extSNI, cat(u16(len(entry)), entry))
}

func alpnExt(names ...string) []byte {
	var l []byte
	for _, n := range names {
		l = append(l, byte(len(n)))
		l = append(l, n...)
	}
	return ext(extALPN, cat(u16(len(l)), l))
}

func list16(vals ...int) []byte {
	var b []byte
	for _, v := range vals {
		b = append(b, u16(v)...)
	}
	return cat(u16(len(b)), b)
}

// clientHello is a ClientHello body: version, a random of 0x11 bytes, a session id, ciphers
// and the extensions given.
func clientHello(ver uint16, sid []byte, ciphers []int, exts ...[]byte) []byte {
	random := make([]byte, 32)
	for i := range random {
		random[i] = 0x11
	}
	return cat(u16(int(ver)), random, []byte{byte(len(sid))}, sid, list16(ciphers...), []byte{1, 0},
		u16(len(cat(exts...))), cat(exts...))
}

// serverHello is a ServerHello body.
func serverHello(ver uint16, sid []byte, cipher int, exts ...[]byte) []byte {
	random := make([]byte, 32)
	for i := range random {
		random[i] = 0x22
	}
	return cat(u16(int(ver)), random, []byte{byte(len(sid))}, sid, u16(cipher), []byte{0},
		u16(len(cat(exts...))), cat(exts...))
}

// certMsg is a Certificate message body of the DER certificates.
func certMsg(ders ...[]byte) []byte {
	var l []byte
	for _, d := range ders {
		l = append(l, u24(len(d))...)
		l = append(l, d...)
	}
	return cat(u24(len(l)), l)
}

var (
	testCertOnce sync.Once
	testCertDER  []byte
)

// testCert is a self-signed certificate made once (subject CN=meerkat.test, O=Meerkat).
func testCert(t testing.TB) []byte {
	testCertOnce.Do(func() {
		// ed25519 from a fixed seed signs deterministically: the same DER every run (the
		// fuzz seeds contain it)
		key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
		var err error
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(0x0097e647),
			Subject:      pkix.Name{CommonName: "meerkat.test", Organization: []string{"Meerkat"}},
			NotBefore:    time.Unix(1423764447, 0),
			NotAfter:     time.Unix(1739124447, 0),
			DNSNames:     []string{"meerkat.test", "www.meerkat.test"},
		}
		testCertDER, err = x509.CreateCertificate(crand.Reader, tmpl, tmpl, key.Public(), key)
		if err != nil {
			t.Fatal(err)
		}
	})
	return testCertDER
}

// handshake12 is a TLS 1.2 exchange: the client's bytes and the server's (ServerHello,
// Certificate, ServerHelloDone in one record).
func handshake12(t testing.TB) (client, server []byte) {
	ch := clientHello(VersionTLS12, nil, []int{0x0a0a, 49195, 49199, 47},
		ext(0x1a1a, nil), sniExt("meerkat.test"), ext(extGroups, list16(0x2a2a, 29, 23)),
		ext(extECPointFormats, []byte{1, 0}), ext(extSigAlgs, list16(1027, 2052)), alpnExt("h2", "http/1.1"))
	client = record(contentHandshake, VersionTLS10, hsMsg(hsClientHello, ch))
	sh := serverHello(VersionTLS12, nil, 49199, ext(65281, []byte{0}), alpnExt("h2"))
	server = record(contentHandshake, VersionTLS12, cat(hsMsg(hsServerHello, sh),
		hsMsg(hsCertificate, certMsg(testCert(t))), hsMsg(hsServerHelloDone, nil)))
	return client, server
}

// feed gives data to s in chunks of the given sizes as the framework does: the unconsumed
// rest is handed again with what follows, and the parser is not called while less than
// Needed is there. It returns the first error.
func feed(s *State, dir applayer.Dir, data []byte, sizes []int) error {
	var pend []byte
	needed := 0
	for len(data) > 0 {
		n := len(data)
		if len(sizes) > 0 {
			n = min(max(sizes[0], 1), len(data))
			sizes = sizes[1:]
		}
		pend = append(pend, data[:n]...)
		data = data[n:]
		if len(pend) < needed {
			continue
		}
		r := s.Parse(dir, pend, 0)
		if r.Err != nil {
			return r.Err
		}
		if r.Consumed > len(pend) || r.Consumed < 0 {
			panic("consumed out of range")
		}
		pend = pend[r.Consumed:]
		needed = r.Needed
	}
	return nil
}

var _ = flow.ToServer
