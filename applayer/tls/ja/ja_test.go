package ja

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer/tls/ja/tlspcap"
	"golang.org/x/crypto/cryptobyte"
)

// foxioChrome is the wire-order ClientHello of the FoxIO JA4 python README example (FoxIO-LLC/ja4
// python/README.md, stream 0, JA4_ro.1), with GREASE added where Chrome puts it (first cipher,
// first and last extension, first group, first supported version) to check its removal.
func foxioChrome() *Hello {
	return &Hello{
		Version:          0x0303,
		SupportedVersion: 0x0304,
		Ciphers: []uint16{0x3a3a, 0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9,
			0xcca8, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035},
		Extensions: []uint16{0xdada, 0xff01, 0x0033, 0x002d, 0x0005, 0x4469, 0x000d, 0x0010, 0x0023,
			0x001b, 0x002b, 0x0000, 0x0012, 0x000a, 0x0017, 0x000b, 0x0015, 0x1a1a},
		Groups:         []uint16{0x8a8a, 0x001d, 0x0017, 0x0018},
		ECPointFormats: []uint8{0},
		SigAlgs:        []uint16{0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601},
		ALPNs:          [][]byte{[]byte("h2"), []byte("http/1.1")},
		SNI:            true,
	}
}

func TestJA4Vectors(t *testing.T) {
	tests := []struct {
		name string
		h    *Hello
		want string
	}{
		// FoxIO-LLC/ja4 python/README.md stream 0: JA4.1
		{"foxio-readme-chrome", foxioChrome(), "t13d1516h2_8daaf6152771_e5627efa2ab1"},
		// §2.8: no ClientHello
		{"nil", nil, "t00i000000_e3b0c44298fc_d2e2adf7177b"},
		{"empty", &Hello{}, "t00i000000_e3b0c44298fc_d2e2adf7177b"},
		// rust/src/ja4.rs tests: test_short_alpn
		{"alpn-b", &Hello{ALPNs: [][]byte{[]byte("b")}}, "t00i0000bb"},
		{"alpn-h2", &Hello{ALPNs: [][]byte{[]byte("h2")}}, "t00i0000h2"},
		{"alpn-ab", &Hello{ALPNs: [][]byte{{0xab}}}, "t00i0000ab"},
		// test_format_alpn_ascii / non-ascii / grease
		{"alpn-http11", &Hello{ALPNs: [][]byte{[]byte("http/1.1")}}, "t00i0000h1"},
		{"alpn-nonalnum", &Hello{ALPNs: [][]byte{{0x01, 'T', 'E', 0x7f}}}, "t00i00000f"},
		{"alpn-grease", &Hello{ALPNs: [][]byte{{0x2a, 0x2a}}}, "t00i000000"},
		// versions (§2.8): the maximum of the legacy version and the first valid supported one
		{"tls10", &Hello{Version: 0x0301}, "t10i"},
		{"ssl3", &Hello{Version: 0x0300}, "ts3i"},
		{"draft", &Hello{Version: 0x0303, SupportedVersion: 0x7f16}, "t00i"},
		{"grease-version", &Hello{Version: 0x0303, SupportedVersion: 0x0a0a}, "t12i"},
		{"quic", &Hello{QUIC: true, Version: 0x0303, SupportedVersion: 0x0304}, "q13i"},
		{"sni-from-ext", &Hello{Extensions: []uint16{0}}, "t00d0001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(JA4(nil, tc.h))
			if len(got) != JA4Len {
				t.Fatalf("len %d: %q", len(got), got)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("JA4 = %q, want prefix %q", got, tc.want)
			}
		})
	}
}

// rust/src/ja4.rs test_hash_limit_numbers: 199 ciphers and 199 extensions give counts of 99.
func TestJA4Limit(t *testing.T) {
	var h Hello
	for i := uint16(1); i < 200; i++ {
		h.Ciphers = append(h.Ciphers, i)
		h.Extensions = append(h.Extensions, i)
	}
	if got := string(JA4(nil, &h))[:10]; got != "t00i999900" {
		t.Errorf("got %q", got)
	}
}

// The raw JA4 strings of the FoxIO example hash to its b and c parts; and only GREASE changes
// nothing: removing it from the input gives the same value.
func TestJA4GreaseRemoved(t *testing.T) {
	h := foxioChrome()
	with := string(JA4(nil, h))
	strip := func(l []uint16) []uint16 {
		var o []uint16
		for _, v := range l {
			if !IsGREASE(v) {
				o = append(o, v)
			}
		}
		return o
	}
	h.Ciphers, h.Extensions, h.Groups = strip(h.Ciphers), strip(h.Extensions), strip(h.Groups)
	if without := string(JA4(nil, h)); without != with {
		t.Errorf("GREASE changed JA4: %s vs %s", with, without)
	}
	n := 0
	for v := 0; v < 1<<16; v++ {
		if IsGREASE(uint16(v)) {
			n++
			if v&0xff != v>>8 || v&0x0f != 0x0a {
				t.Errorf("%#04x is not GREASE", v)
			}
		}
	}
	if n != 16 {
		t.Errorf("%d GREASE values, want 16", n)
	}
}

func TestJA3(t *testing.T) {
	tests := []struct {
		name string
		h    Hello
		want string
	}{
		// §2.7: empty lists leave their fields empty
		{"no-exts", Hello{Version: 769, Ciphers: []uint16{47, 53}}, "769,47-53,,,"},
		{"grease", Hello{Version: 771, Ciphers: []uint16{0x0a0a, 4865}, Extensions: []uint16{0xfafa, 0, 0x1a1a},
			Groups: []uint16{0x2a2a, 29}, ECPointFormats: []uint8{0, 1}}, "771,4865,0,29,0-1"},
		{"empty", Hello{}, "0,,,,"},
	}
	for _, tc := range tests {
		if got := string(JA3(nil, &tc.h)); got != tc.want {
			t.Errorf("%s: JA3 = %q, want %q", tc.name, got, tc.want)
		}
	}
	h := Hello{Version: 771, Ciphers: []uint16{49199}, Extensions: []uint16{65281, 0, 11, 16, 23}}
	// tls-ja3s test.yaml
	if got := string(JA3S(nil, &h)); got != "771,49199,65281-0-11-16-23" {
		t.Errorf("JA3S = %q", got)
	}
	if got := string(MD5Hex(nil, JA3S(nil, &h))); got != "5d79edf64e03689ff559a54e9d9487bc" {
		t.Errorf("JA3S hash = %q", got)
	}
	// tls13-draft22 test.yaml
	if got := string(MD5Hex(nil, []byte("771,4865-4867,0-43-13-10-40,23,"))); got != "786468211b4d23f9b725987b0de9d090" {
		t.Errorf("md5 = %q", got)
	}
}

func TestVersionString(t *testing.T) {
	tests := map[uint16]string{
		0: "UNDETERMINED", 0x0200: "SSLv2", 0x0300: "SSLv3", 0x0301: "TLSv1", 0x0302: "TLS 1.1",
		0x0303: "TLS 1.2", 0x0304: "TLS 1.3", 0x7f16: "TLS 1.3 draft-22", 0x7f01: "TLS 1.3 draft-<16",
		0x7f10: "TLS 1.3 draft-16", 0x7f1c: "TLS 1.3 draft-28", 0xfb1a: "TLS 1.3 draft-26-fb",
		0xfb14: "TLS 1.3 draft-20-fb", 0x7f02: "32514", 0x7f1d: "32541", 0xfb18: "64280", 0x0100: "256",
	}
	for v, want := range tests {
		if got := string(VersionString(nil, v)); got != want {
			t.Errorf("VersionString(%#04x) = %q, want %q", v, got, want)
		}
	}
}

func TestAllocs(t *testing.T) {
	h := foxioChrome()
	buf := make([]byte, 0, 512)
	n := testing.AllocsPerRun(100, func() {
		b := JA3(buf[:0], h)
		b = MD5Hex(b, b)
		b = JA3S(b, h)
		b = JA4(b, h)
		_ = VersionString(b, 0x7f16)
	})
	if n != 0 {
		t.Errorf("%v allocs per run, want 0", n)
	}
}

// clientHelloBody builds a ClientHello body carrying h's lists (cryptobyte.Builder).
func clientHelloBody(h *Hello) []byte {
	var b cryptobyte.Builder
	b.AddUint16(h.Version)
	b.AddBytes(make([]byte, 32))
	b.AddUint8(0)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, c := range h.Ciphers {
			b.AddUint16(c)
		}
	})
	b.AddUint8(1)
	b.AddUint8(0)
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, e := range h.Extensions {
			b.AddUint16(e)
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				switch e {
				case 0:
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddUint8(0)
						b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte("example.com")) })
					})
				case 10, 13:
					l := h.Groups
					if e == 13 {
						l = h.SigAlgs
					}
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						for _, v := range l {
							b.AddUint16(v)
						}
					})
				case 11:
					b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(h.ECPointFormats) })
				case 16:
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						for _, a := range h.ALPNs {
							b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(a) })
						}
					})
				case 43:
					b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddUint16(0x6a6a)
						b.AddUint16(h.SupportedVersion)
						b.AddUint16(0x0303)
					})
				}
			})
		}
	})
	return b.BytesOrPanic()
}

// The test's cryptobyte hello parser reads back what the builder wrote (so the conformance and
// reference tests that rely on it start from the right lists).
func TestParseHelloRoundTrip(t *testing.T) {
	h := foxioChrome()
	var got Hello
	if err := parseHello(clientHelloBody(h), true, &got); err != nil {
		t.Fatal(err)
	}
	if a, b := string(JA4(nil, h)), string(JA4(nil, &got)); a != b {
		t.Errorf("JA4 %s after parse, want %s", b, a)
	}
	if a, b := string(JA3(nil, h)), string(JA3(nil, &got)); a != b {
		t.Errorf("JA3 %s after parse, want %s", b, a)
	}
}

// hellosOf returns the parsed ClientHellos and ServerHellos of a conformance test's pcap.
func hellosOf(t *testing.T, test string) (clients, servers []*Hello) {
	t.Helper()
	dir := tlspcap.ConformanceTest(test)
	if dir == "" {
		t.Skipf("conformance test %s not found (set MEERKAT_SHARED)", test)
	}
	pcaps, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	if len(pcaps) != 1 {
		t.Fatalf("%s: %d pcaps", dir, len(pcaps))
	}
	msgs, err := tlspcap.Read(pcaps[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		switch m.Type {
		case tlspcap.ClientHello, tlspcap.ServerHello:
			h := new(Hello)
			if err := parseHello(m.Body, m.Type == tlspcap.ClientHello, h); err != nil {
				t.Fatalf("frame %d: %v", m.Frame, err)
			}
			if m.Type == tlspcap.ClientHello {
				clients = append(clients, h)
			} else {
				servers = append(servers, h)
			}
		}
	}
	return clients, servers
}

// Expected values from the tests' test.yaml / test.rules (suricata-verify).
func TestConformancePcaps(t *testing.T) {
	t.Run("ja4-tls", func(t *testing.T) {
		c, _ := hellosOf(t, "ja4-tls")
		if len(c) != 1 || string(JA4(nil, c[0])) != "t12i1810s1_27d4652c4487_06a4338d0495" {
			t.Errorf("JA4 = %s", ja4s(c))
		}
	})
	t.Run("bug-5713-02-ja4", func(t *testing.T) {
		c, _ := hellosOf(t, "bug-5713-02-ja4")
		if len(c) != 1 || string(JA4(nil, c[0])) != "t10i070600_c50f5591e341_ce66f3b797c1" {
			t.Errorf("JA4 = %s", ja4s(c))
		}
		if got := string(VersionString(nil, c[0].Version)); got != "TLSv1" {
			t.Errorf("version %q", got)
		}
	})
	t.Run("tls13-draft22", func(t *testing.T) {
		c, s := hellosOf(t, "tls13-draft22")
		// a HelloRetryRequest makes the client send a second ClientHello; JA3 is the first's
		if len(c) != 2 || string(JA3(nil, c[0])) != "771,4865-4867,0-43-13-10-40,23," {
			t.Fatalf("JA3 of %d hellos", len(c))
		}
		if got := string(MD5Hex(nil, JA3(nil, c[0]))); got != "786468211b4d23f9b725987b0de9d090" {
			t.Errorf("hash %s", got)
		}
		// the EVE version is the server's: supported_versions selected draft-22
		if len(s) != 2 || string(VersionString(nil, s[1].SupportedVersion)) != "TLS 1.3 draft-22" {
			t.Errorf("server version: %d hellos %+v", len(s), s)
		}
	})
	for _, name := range []string{"tls-ja3s", "detect-bidir-ja3"} {
		t.Run(name, func(t *testing.T) {
			c, s := hellosOf(t, name)
			if len(s) != 1 || string(MD5Hex(nil, JA3S(nil, s[0]))) != "5d79edf64e03689ff559a54e9d9487bc" {
				t.Errorf("JA3S")
			}
			if name == "detect-bidir-ja3" && (len(c) != 1 || !bytes.HasPrefix(JA3(nil, c[0]), []byte("771,49196-49200"))) {
				t.Errorf("JA3 %q", JA3(nil, c[0]))
			}
		})
	}
	t.Run("tls-duplicate-hello", func(t *testing.T) {
		c, _ := hellosOf(t, "tls-duplicate-hello")
		if len(c) < 2 {
			t.Fatalf("%d ClientHellos, want 2", len(c))
		}
		// JA3 is frozen at the first hello (§2.3)
		want := "771,4866-4867-4865-4868-49196-52393-49325-49162-49195-49324-49161-49200-52392-49172-49199-49171-157-49309-53-156-49308-47-159-52394-49311-57-158-49310-51,5-10-11-13-22-23-35-51-43-65281-0-45,23,0"
		if got := string(JA3(nil, c[0])); got != want {
			t.Errorf("JA3 = %q", got)
		}
	})
	t.Run("ja4-cl-handshake", func(t *testing.T) {
		c, _ := hellosOf(t, "ja4-cl-handshake")
		if len(c) != 1 {
			t.Fatalf("%d hellos", len(c))
		}
		// EVE client_handshake lists are the JA4 record: GREASE removed (test.yaml)
		want := "49196,49200,159,52393,52392,52394,49195,49199,158,49188,49192,107,49187,49191,103,49162,49172,57,49161,49171,51,157,156,61,60,53,47,255|0,11,10,35,22,23,13|1027,1283,1539,2055,2056,2057,2058,2059,2052,2053,2054,1025,1281,1537,771,515,769,513,770,514,1026,1282,1538"
		got := string(appendList(appendList(appendList(nil, c[0].Ciphers), c[0].Extensions, '|'), c[0].SigAlgs, '|'))
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if string(VersionString(nil, max(c[0].Version, c[0].SupportedVersion))) != "TLS 1.2" {
			t.Errorf("version")
		}
	})
}

func appendList(dst []byte, l []uint16, sep ...byte) []byte {
	dst = append(dst, sep...)
	b := appendList16(nil, l)
	return append(dst, bytes.ReplaceAll(b, []byte("-"), []byte(","))...)
}

func ja4s(hs []*Hello) string {
	var s []string
	for _, h := range hs {
		s = append(s, string(JA4(nil, h)))
	}
	return strings.Join(s, " ")
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }

// BenchmarkFingerprints: JA3 string + MD5, JA3S, JA4 of the FoxIO Chrome hello.
func BenchmarkFingerprints(b *testing.B) {
	h := foxioChrome()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		s := JA3(buf[:0], h)
		s = MD5Hex(s, s)
		s = JA4(s, h)
		_ = s
	}
}
