package transform

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/rules"
)

// opt builds a transform option as the rules package hands it over.
func opt(name, value string) *rules.Option { return &rules.Option{Name: name, Value: value} }

// parseOpts turns "name" / "name=value" into options.
func parseOpts(t testing.TB, spec ...string) []*rules.Option {
	var o []*rules.Option
	for _, s := range spec {
		n, v, _ := strings.Cut(s, "=")
		o = append(o, opt(n, v))
	}
	return o
}

func mustChain(t testing.TB, spec ...string) *Chain {
	t.Helper()
	c, err := Compile(parseOpts(t, spec...))
	if err != nil {
		t.Fatalf("Compile(%q): %v", spec, err)
	}
	return c
}

type tcase struct {
	name  string   // the Rust test, suricata-verify test or reference section it comes from
	chain []string // transforms, "name" or "name=value" (value as rules.Option.Value)
	in    string
	want  string
}

func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	s := NewScratch()
	for _, tc := range cases {
		c := mustChain(t, tc.chain...)
		in := []byte(tc.in)
		orig := append([]byte(nil), in...)
		got := c.Apply(in, s)
		if string(got) != tc.want {
			t.Errorf("%s: %q on %q = %q, want %q", tc.name, tc.chain, tc.in, got, tc.want)
		}
		if !bytes.Equal(in, orig) {
			t.Errorf("%s: Apply modified its input", tc.name)
		}
		s.Reset()
	}
}

func TestCaseChange(t *testing.T) {
	runCases(t, []tcase{
		{"casechange.rs test_tolower_transform", []string{"to_lowercase"}, " A b C D ", " a b c d "},
		{"casechange.rs test_toupper_transform", []string{"to_uppercase"}, " A b C D ", " A B C D "},
		{"ref 1.5: ASCII only", []string{"to_lowercase"}, "\xC0\xC9Z", "\xC0\xC9z"},
		{"ref 1.5: ASCII only", []string{"to_uppercase"}, "\xe0\xe9a", "\xe0\xe9A"},
	})
}

func TestDotprefix(t *testing.T) {
	runCases(t, []tcase{
		{"dotprefix.rs test_dot_prefix_transform", []string{"dotprefix"}, "example.com", ".example.com"},
		{"dotprefix.rs test_dot_prefix_transform", []string{"dotprefix"}, "hello.example.com", ".hello.example.com"},
		{"ref 1.5 google.com", []string{"dotprefix"}, "google.com", ".google.com"},
		{"detect-dotprefix-03: agoogle.com", []string{"dotprefix"}, "agoogle.com", ".agoogle.com"},
	})
}

func TestWhitespace(t *testing.T) {
	runCases(t, []tcase{
		{"strip_whitespace.rs test_strip_whitespace_transform", []string{"strip_whitespace"}, " A B C D ", "ABCD"},
		{"strip_whitespace.rs test_strip_whitespace_transform", []string{"strip_whitespace"}, "EFGH", "EFGH"},
		{"strip_whitespace.rs test_strip_whitespace_transform", []string{"strip_whitespace"}, "I  \t J", "IJ"},
		{"ref 1.5: all six", []string{"strip_whitespace"}, "a\tb\nc\vd\fe\rf g", "abcdefg"},
		{"ref 1.5: only white space", []string{"strip_whitespace"}, " \t\r\n", ""},
		{"compress_whitespace.rs test_compress_whitespace_transform", []string{"compress_whitespace"}, " A B C D ", " A B C D "},
		{"compress_whitespace.rs test_compress_whitespace_transform", []string{"compress_whitespace"}, "EFGH", "EFGH"},
		{"compress_whitespace.rs test_compress_whitespace_transform", []string{"compress_whitespace"}, "I  \t J", "I J"},
		{"ref 1.5: a run becomes its FIRST byte", []string{"compress_whitespace"}, "a\t \nb\r\r c", "a\tb\rc"},
	})
}

func TestURLDecode(t *testing.T) {
	runCases(t, []tcase{
		{"urldecode.rs test_url_decode_transform", []string{"url_decode"},
			"Suricata%20is+%27%61wesome%21%27%25%30%30%ZZ%4", "Suricata is 'awesome!'%00%ZZ%4"},
		{"ref 1.5: either hex case", []string{"url_decode"}, "%4a%4A%fF", "JJ\xff"},
		{"ref 1.5: offending char not re-examined", []string{"url_decode"}, "%%41", "%%41"},
		{"ref 1.5: offending char not re-examined", []string{"url_decode"}, "%4%41", "%4%41"},
		{"ref 1.5: truncated at end", []string{"url_decode"}, "a%", "a%"},
		{"ref 1.5: invalid second digit", []string{"url_decode"}, "%4G+", "%4G "},
		{"ref 1.5: '+' after a '%'", []string{"url_decode"}, "%+", "%+"},
	})
}

func TestXor(t *testing.T) {
	runCases(t, []tcase{
		{"xor.rs test_xor_transform", []string{`xor="0a0DC8ff"`}, "example.com", "ou\xa9\x92za\xad\xd1ib\xa5"},
		{"ref 1.5: one-byte key", []string{`xor="20"`}, "aBc", "AbC"},
	})
	for _, bad := range []string{`"nohexa"`, `"abc"`, `""`, `"` + strings.Repeat("00", 256) + `"`} {
		if _, err := Compile([]*rules.Option{opt("xor", bad)}); err == nil {
			t.Errorf("xor:%s compiled (xor.rs test_xor_parse / xor_parse_do refuse it)", bad)
		}
	}
	if _, err := Compile([]*rules.Option{opt("xor", `"`+strings.Repeat("ab", 255)+`"`)}); err != nil {
		t.Errorf("255-byte key: %v", err)
	}
}

func TestHeaders(t *testing.T) {
	runCases(t, []tcase{
		{"http_headers.rs test_header_lowertransform", []string{"header_lowercase"},
			"Header1: Value1\nheader2:Value2\n", "header1: Value1\nheader2:Value2\n"},
		{"ref 1.5: value verbatim up to \\n", []string{"header_lowercase"}, "A: B: C\nD:E", "a: B: C\nd:E"},
		{"http_headers.rs test_strip_pseudo_transform", []string{"strip_pseudo_headers"},
			"Header1: Value1\n:method:get\nheader2:Value2\n", "Header1: Value1\nheader2:Value2\n"},
		{"http_headers.rs test_strip_pseudo_transform", []string{"strip_pseudo_headers"}, ":method:get", ""},
		{"http_headers.rs test_strip_pseudo_transform", []string{"strip_pseudo_headers"}, "Header1: Value1\n:method:get", "Header1: Value1\n"},
		{"http_headers.rs test_strip_pseudo_transform", []string{"strip_pseudo_headers"}, ":method:get\nheader2:Value2", "header2:Value2"},
		{"http_headers.rs test_strip_pseudo_transform", []string{"strip_pseudo_headers"},
			"Header1: Value1\n:method:get\nheader2:Value2\n:scheme:https\nheader3:Value3\n", "Header1: Value1\nheader2:Value2\nheader3:Value3\n"},
		{"ref 1.5: empty lines kept", []string{"strip_pseudo_headers"}, "\n\n:a\n", "\n\n"},
	})
}

func TestHash(t *testing.T) {
	runCases(t, []tcase{
		{"hash.rs test_md5_transform", []string{"to_md5"}, " A B C D ", "\xe0\x59\xf8\x30\x43\x69\x58\xb6\x45\x82\x8c\xc2\x33\xc2\x47\x13"},
		{"hash.rs test_sha1_transform", []string{"to_sha1"}, " A B C D ", "\xc8\xdc\x44\x97\xf7\xe0\x55\xf8\x6b\x88\x90\x52\x08\x2c\x0c\x7b\xdc\xc9\xc8\x89"},
		{"hash.rs test_sha256_transform", []string{"to_sha256"}, " A B C D ", "\xd6\xbf\x7d\x8d\x69\x53\x02\x4d\x0d\x84\x5c\x99\x9b\xae\x93\xcc\xac\x68\xea\xab\x9a\xc9\x77\xd0\xfd\x30\x6a\xf5\x9a\x3d\xe4\x3a"},
		{"ref 1.5: to_sha256 of an empty buffer stays empty", []string{"to_sha256"}, "", ""},
		{"ref 1.5: to_md5 of an empty buffer stays empty", []string{"to_md5"}, "", ""},
	})
}

func TestDomain(t *testing.T) {
	runCases(t, []tcase{
		{"domain-keyword sid 1", []string{"domain"}, "www.suricata.io", "suricata.io"},
		{"domain-keyword sid 2", []string{"domain"}, "www.bbc.co.uk", "bbc.co.uk"},
		{"domain-keyword sid 3", []string{"tld"}, "www.suricata.io", "io"},
		{"domain-keyword sid 4", []string{"tld"}, "www.bbc.co.uk", "co.uk"},
		{"ref 1.5: registrable domain itself", []string{"domain"}, "bbc.co.uk", "bbc.co.uk"},
		{"ref 1.5: a public suffix gives empty", []string{"domain"}, "co.uk", ""},
		{"ref 1.5: a public suffix gives empty", []string{"tld"}, "co.uk", ""},
		{"ref 1.5: single unknown label gives empty", []string{"domain"}, "localhost", ""},
		{"ref 1.5: single unknown label gives empty", []string{"tld"}, "localhost", ""},
		{"ref 1.5: trailing dot kept", []string{"domain"}, "www.google.com.", "google.com."},
		{"ref 1.5: trailing dot kept", []string{"tld"}, "www.google.com.", "com."},
		{"ref 1.5: unknown upper-case label is a one-label suffix", []string{"domain"}, "WWW.BBC.CO.UK", "CO.UK"},
		{"ref 1.5: unknown upper-case label is a one-label suffix", []string{"tld"}, "WWW.BBC.CO.UK", "UK"},
		{"ref 1.5: private section (psl with private)", []string{"domain"}, "foo.bar.blogspot.com", "bar.blogspot.com"},
		{"ref 1.5: private section (psl with private)", []string{"tld"}, "foo.bar.blogspot.com", "blogspot.com"},
		{"psl_types domain(): empty root label", []string{"domain"}, "a..com", ".com"},
		{"psl_types domain(): too short", []string{"domain"}, ".com", ""},
		{"psl_types root", []string{"domain"}, ".", ""},
		{"unknown TLD: last label", []string{"domain"}, "a.b.example", "b.example"},
		{"psl: an IPv4 address is labels", []string{"domain"}, "1.2.3.4", "3.4"},
		{"psl: an IPv4 address is labels", []string{"tld"}, "1.2.3.4", "4"},
		{"psl: an IPv6 address is one label", []string{"domain"}, "::1", ""},
		{"psl: hex-looking labels", []string{"domain"}, "ab.cd.be", "cd.be"},
	})
}

func TestBase64(t *testing.T) {
	runCases(t, []tcase{
		{"base64.rs test_base64_transform: simple", []string{"from_base64"}, "VGhpcyBpcyBTdXJpY2F0YQ==", "This is Suricata"},
		{"base64.rs test_base64_transform: rfc2045", []string{"from_base64=mode rfc2045"}, "Zm 9v Ym Fy", "foobar"},
		{"base64.rs test_base64_transform: strict failure unchanged", []string{"from_base64=mode strict"}, "This is Suricata\n", "This is Suricata\n"},
		{"base64.rs test_base64_transform: bytes > len", []string{"from_base64=bytes 25"}, "VGhpcyBpcyBTdXJpY2F0YQ==", "VGhpcyBpcyBTdXJpY2F0YQ=="},
		{"base64.rs test_base64_transform: offset > len", []string{"from_base64=offset 25"}, "VGhpcyBpcyBTdXJpY2F0YQ==", "VGhpcyBpcyBTdXJpY2F0YQ=="},
		{"base64.rs test_base64_transform: partial", []string{"from_base64=bytes 12"}, "VGhpcyBpcyBTdXJpY2F0YQ==", "This is S"},
		{"base64.rs test_base64_transform: offset", []string{"from_base64=offset 4"}, "VGhpcyBpcyBTdXJpY2F0YQ==", "s is Suricata"},
		{"base64.rs test_base64_transform: partial rfc2045", []string{"from_base64=mode rfc2045, bytes 15"}, "SGVs bG8 gV29y bGQ=", "Hello Wor"},
		{"base64.rs test_base64_transform: not base64", []string{"from_base64=mode rfc2045"}, "This is not base64-encoded",
			"\x4e\x18\xac\x8a\xc9\xe8\xb5\xb6\xac\x7b\xae\x1e\x9d\xca\x1d"},
		{"ref 1.5: bytes == remaining length: undecoded", []string{"from_base64=bytes 24"}, "VGhpcyBpcyBTdXJpY2F0YQ==", "VGhpcyBpcyBTdXJpY2F0YQ=="},
		{"ref 1.5: offset == length: undecoded", []string{"from_base64=offset 24"}, "VGhpcyBpcyBTdXJpY2F0YQ==", "VGhpcyBpcyBTdXJpY2F0YQ=="},
		{"ref 1.5: rfc4648 stops at a non-alphabet byte", []string{"from_base64"}, "Zm9v YmFy", "foo"},
		{"ref 1.5: rfc4648 pads a partial quantum", []string{"from_base64"}, "Zm9vYg", "foob"},
		{"decode_rfc4648: one leftover char fails the decode", []string{"from_base64"}, "Zm9vY", "Zm9vY"},
		{"decode_rfc4648: '=' first fails the decode", []string{"from_base64"}, "=m9v", "=m9v"},
		{"decode_rfc4648: nothing decodable keeps the buffer", []string{"from_base64"}, "!abc", "!abc"},
		{"decode_rfc2045: partial last quantum dropped", []string{"from_base64=mode rfc2045"}, "Zm9vYg", "foo"},
		{"ref 1.5: strict all-or-nothing", []string{"from_base64=mode strict"}, "Zm9vYmFy", "foobar"},
		{"ref 1.5: strict all-or-nothing", []string{"from_base64=mode strict"}, "Zm9vYg", "Zm9vYg"},
		{"base64 crate STANDARD: no newline skipping", []string{"from_base64=mode strict"}, "Zm9v\nYmFy", "Zm9v\nYmFy"},
		{"base64 crate STANDARD: trailing bits", []string{"from_base64=mode strict"}, "Zh==", "Zh=="},
	})
	for _, bad := range []string{
		"bytes 4, offset 3933, mode unknown",              // base64.rs test_parser_invalid
		"bytes 4, offset 70000, mode strict",              // base64.rs test_parser_invalid
		"bytes 4, offset 3933, mode strict, mode rfc2045", // base64.rs test_parser_invalid
		"bytes 4, offset var, mode rfc4648",               // base64.rs test_parser_parse_valid
		"bytes var, offset 3933, mode rfc4648",            // base64.rs test_parser_parse_valid
		"mode RFC4648", "bytes 70000", "foo 1", "bytes",
	} {
		if _, err := Compile([]*rules.Option{opt("from_base64", bad)}); err == nil {
			t.Errorf("from_base64:%s compiled", bad)
		}
	}
	for _, good := range []string{"", "bytes 4", "bytes 4, offset 3933", "offset 3933, bytes 4", "mode rfc2045",
		"bytes 4, offset 3933, mode strict", "bytes 4, offset 3933, mode rfc2045", "bytes 4, offset 3933, mode rfc4648"} {
		if _, err := Compile([]*rules.Option{opt("from_base64", good)}); err != nil {
			t.Errorf("from_base64:%s: %v (base64.rs test_parser_parse_valid/partial_valid)", good, err)
		}
	}
	// Same arguments in another order: same key.
	a, b := mustChain(t, "from_base64=bytes 4, offset 3933"), mustChain(t, "from_base64=offset 3933, bytes 4")
	if a.Key() != b.Key() {
		t.Errorf("keys differ: %q %q", a.Key(), b.Key())
	}
}

func gz(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func zl(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func TestDecompress(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789"), 300) // 3000 bytes
	g, z := gz(t, big), zl(t, big)
	gs, zs := gz(t, []byte("hello world")), zl(t, []byte("hello world"))
	badCRC := append([]byte(nil), gs...)
	badCRC[len(badCRC)-8] ^= 0xff
	badAdler := append([]byte(nil), zs...)
	badAdler[len(badAdler)-1] ^= 0xff
	corrupt := append([]byte(nil), zs[:2]...)
	corrupt = append(corrupt, 0xff, 0xff, 0xff, 0xff)
	runCases(t, []tcase{
		{"decompress.rs: gunzip", []string{"gunzip"}, string(gs), "hello world"},
		{"decompress.rs: zlib_deflate", []string{"zlib_deflate"}, string(zs), "hello world"},
		{"decompress.rs: DEFAULT_MAX_SIZE 1024", []string{"gunzip"}, string(g), string(big[:1024])},
		{"decompress.rs: DEFAULT_MAX_SIZE 1024", []string{"zlib_deflate"}, string(z), string(big[:1024])},
		{"decompress.rs: max-size", []string{"gunzip=max-size 10"}, string(g), string(big[:10])},
		{"decompress.rs: max-size with unit", []string{"zlib_deflate=max-size 1kb"}, string(z), string(big[:1024])},
		{"decompress.rs: max-size above the content", []string{"gunzip=max-size 4000"}, string(g), string(big)},
		{"decompress.rs: not compressed: empty", []string{"gunzip"}, "hello", ""},
		{"decompress.rs: not compressed: empty", []string{"zlib_deflate"}, "hello", ""},
		{"decompress.rs: gzip trailer not read", []string{"gunzip"}, string(badCRC), "hello world"},
		{"decompress.rs: zlib Adler-32 checked", []string{"zlib_deflate"}, string(badAdler), ""},
		{"decompress.rs: corrupt deflate data: empty", []string{"zlib_deflate"}, string(corrupt), ""},
		{"decompress.rs: truncated stream keeps its output", []string{"gunzip=max-size 4000"}, string(g[:len(g)-8]), string(big)},
		{"decompress.rs: zlib header only: empty", []string{"zlib_deflate"}, string(zs[:2]), ""},
		{"decompress.rs: gzip trailing garbage ignored", []string{"gunzip"}, string(gs) + "garbage", "hello world"},
	})
	for _, bad := range []string{"keywithoutvalue", "unknown 1", "max-size 0", "max-size 1,max-size 1", "max-size toto", // decompress.rs test_decompress_parse
		"max-size 17mb", "max-size 4294967296"} {
		if _, err := Compile([]*rules.Option{opt("gunzip", bad)}); err == nil {
			t.Errorf("gunzip:%s compiled", bad)
		}
	}
	c := mustChain(t, "gunzip=max-size 1MiB") // decompress.rs test_decompress_parse
	if c.steps[0].(decompressX).maxSize != 1<<20 {
		t.Errorf("max-size 1MiB = %d", c.steps[0].(decompressX).maxSize)
	}
}

func TestPcrexform(t *testing.T) {
	reqLine := "GET /z4d4kWk.jpg HTTP/1.1"
	runCases(t, []tcase{
		{"detect-pcrexform-01", []string{`pcrexform="[a-zA-Z]+\s+(.*)\s+HTTP"`}, reqLine, "/z4d4kWk.jpg"},
		{"detect-xor: leading '/' is a literal", []string{`pcrexform="/get\?data=(.*)"`}, "/get?data=abc", "abc"},
		{"ref 1.5: no match leaves the buffer", []string{`pcrexform="x(y)"`}, "abc", "abc"},
		{"pcrexform.c: first match", []string{`pcrexform="(\d+)"`}, "a12b345", "12"},
		{"pcrexform.c: unset group leaves the buffer", []string{`pcrexform="(x)?b"`}, "abc", "abc"},
		{"pcrexform.c: empty group empties the buffer", []string{`pcrexform="a(x*)b"`}, "abc", ""},
		{"non-UTF: bytes >= 0x80 are characters", []string{`pcrexform="\xff(.)"`}, "a\xff\xe9z", "\xe9"},
		{"non-UTF: \\w is ASCII", []string{`pcrexform="(\w+)"`}, "\xe9ab\xe9", "ab"},
		{"regexp2 path: lookahead", []string{`pcrexform="(\d+)(?=px)"`}, "12em 34px", "34"},
		{"regexp2 path: backreference", []string{`pcrexform="(a)\1"`}, "xaay", "a"},
		{"regexp2 path: $ before a final newline", []string{`pcrexform="(\w+)$"`}, "foo bar\n", "bar"},
		{"regexp2 path, non-UTF", []string{`pcrexform="(?=.)([\x80-\xff]+)"`}, "ab\xe9\xffz", "\xe9\xff"},
		// pcre2pattern: (?P=name) and \g{n} are backreferences, (?#...) a comment, \012 octal.
		{"detect/pcre: (?P=name)", []string{`pcrexform="(?P<q>[\x22\x27])x(?P=q)"`}, `a'x'`, "'"},
		{"detect/pcre: \\g{1}", []string{`pcrexform="(b)\g{1}"`}, "abbc", "b"},
		{"detect/pcre: comment and octal", []string{`pcrexform="(?#skip)a\012(.)"`}, "xa\nyz", "y"},
		{"detect/pcre: lazy group before $ is PCRE's", []string{`pcrexform="([a-z\n]*?)$"`}, "ab\n", "ab"},
	})
	for _, bad := range []string{`"abc"`, `"(a)(b)"`, `"(?<n>a)(b)"`, `"(a"`, `""`, `"\x{100}(a)"`} {
		if _, err := Compile([]*rules.Option{opt("pcrexform", bad)}); err == nil {
			t.Errorf("pcrexform:%s compiled (needs exactly one capture)", bad)
		}
	}
}

func TestChains(t *testing.T) {
	runCases(t, []tcase{
		{"detect-xor: pcrexform then xor", []string{`pcrexform="/get\?data=(.*)"`, `xor="0d0ac8ff"`},
			"/get?data=" + string(xorBytes([]byte("password=123"), []byte{0x0d, 0x0a, 0xc8, 0xff})), "password=123"},
		{"chain: lower, strip, dotprefix", []string{"to_lowercase", "strip_whitespace", "dotprefix"}, "A b\tC", ".abc"},
		{"chain: url_decode then from_base64", []string{"url_decode", "from_base64"}, "Zm9vYg%3D%3D", "foob"},
		{"decode_rfc4648: a lone '=' quantum fails the whole decode", []string{"url_decode", "from_base64"}, "Zm9v%3D", "Zm9v="},
		{"chain: domain then dotprefix", []string{"domain", "dotprefix"}, "a.b.google.com", ".google.com"},
		{"chain: unchanged steps pass the input on", []string{`pcrexform="x(y)"`, "from_base64=mode strict", "to_uppercase"}, "abc", "ABC"},
		{"chain: empty result stops the chain", []string{"domain", "dotprefix", "to_md5"}, "localhost", ""},
		{"chain: hash of hash", []string{"to_md5", "to_md5"}, "a", "\xb6\xff\x9a\x06\xb7\xe2\x0b\xcb\x28\x58\xc5\xb8\xff\x74\x4a\xea"},
		{"chain: gunzip then base64", []string{"gunzip", "from_base64"}, string(gz(t, []byte("Zm9v"))), "foo"},
	})
}

func xorBytes(b, k []byte) []byte {
	o := make([]byte, len(b))
	for i := range b {
		o[i] = b[i] ^ k[i%len(k)]
	}
	return o
}

// TestEmptyBuffer: every transform leaves an empty buffer empty (reference 1.5; each
// transform returns early on inspect_len 0).
func TestEmptyBuffer(t *testing.T) {
	s := NewScratch()
	for _, spec := range allSpecs {
		c := mustChain(t, spec)
		in := []byte{}
		if got := c.Apply(in, s); len(got) != 0 {
			t.Errorf("%s on empty = %q", spec, got)
		}
		if got := c.Apply(nil, s); got != nil {
			t.Errorf("%s on nil = %q", spec, got)
		}
	}
	if got := (&Chain{}).Apply([]byte("x"), s); string(got) != "x" {
		t.Errorf("empty chain = %q", got)
	}
}

var allSpecs = []string{"to_lowercase", "to_uppercase", "dotprefix", "strip_whitespace", "compress_whitespace",
	"url_decode", "header_lowercase", "strip_pseudo_headers", "to_md5", "to_sha1", "to_sha256", "domain", "tld",
	`xor="0a0DC8ff"`, `pcrexform="a(.)"`, `pcrexform="(?=a)(.)"`, "from_base64", "from_base64=mode rfc2045",
	"from_base64=mode strict", "gunzip", "zlib_deflate"}

func TestCompileErrors(t *testing.T) {
	_, err := Compile([]*rules.Option{opt("luaxform", `"x.lua"`)})
	if err == nil || err.Error() != "luaxform is not supported (no Lua)" {
		t.Errorf("luaxform: %v", err)
	}
	if _, err := Compile([]*rules.Option{opt("nosuch", "")}); err == nil {
		t.Error("unknown transform compiled")
	}
	if _, err := Compile([]*rules.Option{opt("to_md5", "x")}); err == nil {
		t.Error("to_md5 with an argument compiled")
	}
}

func TestKey(t *testing.T) {
	k := func(spec ...string) string { return mustChain(t, spec...).Key() }
	if k(`xor="0a0DC8ff"`) != k(`xor="0a0dc8ff"`) {
		t.Error("xor keys differ by hex case")
	}
	distinct := [][]string{{"to_md5"}, {"to_sha1"}, {"domain"}, {"tld"}, {"gunzip"}, {"gunzip=max-size 10"},
		{"zlib_deflate"}, {`xor="00"`}, {`xor="01"`}, {"to_lowercase", "dotprefix"}, {"dotprefix", "to_lowercase"},
		{`pcrexform="(a)"`}, {`pcrexform="(b)"`}, {"from_base64"}, {"from_base64=mode strict"}, {}}
	seen := map[string]int{}
	for i, d := range distinct {
		kk := k(d...)
		if j, ok := seen[kk]; ok {
			t.Errorf("%q and %q share key %q", d, distinct[j], kk)
		}
		seen[kk] = i
	}
	if k("gunzip") != k("gunzip=max-size 1024") {
		t.Error("default max-size key differs")
	}
}

// TestResultsLiveUntilReset: results of several chains stay intact until Reset, even when the
// arena grows.
func TestResultsLiveUntilReset(t *testing.T) {
	s := NewScratch()
	c := mustChain(t, "to_uppercase")
	var outs [][]byte
	var wants []string
	for i := 0; i < 200; i++ {
		in := bytes.Repeat([]byte{byte('a' + i%26)}, 100+i*7)
		outs = append(outs, c.Apply(in, s))
		wants = append(wants, strings.ToUpper(string(in)))
	}
	for i := range outs {
		if string(outs[i]) != wants[i] {
			t.Fatalf("result %d clobbered", i)
		}
	}
	s.Reset()
	if len(s.old) != 0 || cap(s.chunk) == 0 {
		t.Fatalf("Reset did not consolidate the arena")
	}
}

// TestRulesParse: the transform values as the rules package produces them compile (the
// suricata-verify rules detect-pcrexform-01 and detect-xor).
func TestRulesParse(t *testing.T) {
	for _, tc := range []struct{ rule, in, want string }{
		{`alert http any any -> any any (msg:"HTTP with pcrexform"; http.request_line; pcrexform:"[a-zA-Z]+\s+(.*)\s+HTTP"; content:"/z4d4kWk.jpg"; sid:1;)`,
			"GET /z4d4kWk.jpg HTTP/1.1", "/z4d4kWk.jpg"},
		{`alert http any any -> any any (msg:"HTTP with xor"; http.uri; content: "/get?data="; startswith; http.uri; pcrexform:"/get\?data=(.*)"; xor:"0d0ac8ff"; content:"password="; sid:1;)`,
			"/get?data=" + string(xorBytes([]byte("password="), []byte{0x0d, 0x0a, 0xc8, 0xff})), "password="},
		{`alert http any any -> any any (http.uri; from_base64:bytes 4, offset 1, mode strict; content:"foo"; sid:1;)`, "xZm9vYmFy", "foo"},
		{`alert http any any -> any any (http.uri; gunzip:max-size 3; content:"foo"; sid:1;)`, string(gz(t, []byte("foobar"))), "foo"},
	} {
		r, err := rules.Parse(tc.rule)
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		var got []byte
		for _, b := range r.Buffers {
			if len(b.Transforms) == 0 {
				continue
			}
			c, err := Compile(b.Transforms)
			if err != nil {
				t.Fatalf("%s: %v", tc.rule, err)
			}
			got = c.Apply([]byte(tc.in), NewScratch())
		}
		if string(got) != tc.want {
			t.Errorf("%s: %q, want %q", tc.rule, got, tc.want)
		}
	}
}

// TestRulesLoadErrors: the load-time checks in rules/keywords_buffers.go setupTransform that
// follow Suricata's transform setup functions.
func TestRulesLoadErrors(t *testing.T) {
	hdr := `alert http any any -> any any (http.uri; `
	for _, tc := range []struct {
		opts string
		ok   bool
	}{
		{`xor:"` + strings.Repeat("ab", 255) + `"; content:"a";`, true},
		{`xor:"` + strings.Repeat("ab", 256) + `"; content:"a";`, false}, // xor_parse_do: key too long
		{`from_base64:offset 65535; content:"a";`, true},
		{`from_base64:offset 65536; content:"a";`, false}, // base64.rs test_parser_invalid (70000)
		{`from_base64:bytes 65536; content:"a";`, false},
		{`from_base64:mode RFC4648; content:"a";`, false}, // get_mode_value is case-sensitive
		{`pcrexform:"(a)"; content:"a";`, true},
		{`pcrexform:"/(a)/"; content:"a";`, true}, // a bare pattern: the slashes are literals
	} {
		_, err := rules.Parse(hdr + tc.opts + ` sid:1;)`)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.opts, err, tc.ok)
		}
	}
}
