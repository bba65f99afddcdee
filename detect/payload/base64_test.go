package payload

import (
	"bytes"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/rules"
)

// ruleProgram compiles buffer name of a rule with CompileRule (its base64_data list wired).
func ruleProgram(t testing.TB, rule, name string) *Program {
	t.Helper()
	r, err := rules.Parse(rule)
	if err != nil {
		t.Fatalf("parse %q: %v", rule, err)
	}
	b := r.Buffer(name)
	if b == nil {
		t.Fatalf("%q has no buffer %s", rule, name)
	}
	p, err := CompileRule(r, b)
	if err != nil {
		t.Fatalf("compile %q: %v", rule, err)
	}
	return p
}

func tcpRule(opts string) string { return "alert tcp any any -> any any (" + opts + " sid:1;)" }

// TestParseBase64Decode: the cases of DetectBase64TestDecodeParse (detect-base64-decode.c),
// then what its pattern makes of other orders and spacing.
func TestParseBase64Decode(t *testing.T) {
	const max = Base64DecodeMax
	for _, c := range []struct {
		arg      string
		bytes    uint32
		offset   uint32
		relative bool
		err      bool
	}{
		{arg: "bytes 1", bytes: 1},
		{arg: "offset 9", bytes: max, offset: 9}, // bytes 0, then BASE64_DECODE_MAX in the setup
		{arg: "relative", bytes: max, relative: true},
		{arg: "bytes 1, offset 2", bytes: 1, offset: 2},
		{arg: "bytes 1, offset 2, relative", bytes: 1, offset: 2, relative: true},
		{arg: "offset 2, relative", bytes: max, offset: 2, relative: true},
		{arg: "bytes 1, offset 2, relatve", err: true}, // misspelled relative
		{arg: "byts 1, offset 2, relatve", err: true},  // misspelled bytes
		{arg: "bytes 1, offst 2, relatve", err: true},  // misspelled offset
		{arg: " ", err: true},                          // "misspelled empty string": nothing matched
		{arg: "", bytes: max},                          // no argument at all: the defaults
		{arg: "bytes 0", bytes: max},                   // StringParseUint16 takes 0; the setup makes it the max
		{arg: "bytes 65535", bytes: 65535},             //
		{arg: "bytes 65536", err: true},                // StringParseUint16
		{arg: "offset 4294967295", bytes: max, offset: 4294967295},
		{arg: "offset 4294967296", err: true},             // StringParseUint32
		{arg: "offset 2, bytes 4", err: true},             // "bytes" lands in the relative place
		{arg: "bytes 10 ,  offset 2,relative", bytes: 10}, // the pattern stops at " ,"
		{arg: "bytes 300, offset 0, relative", bytes: 300, relative: true},
		{arg: "offset 0,relative", bytes: max, relative: true},
		{arg: "relative, bytes 4", bytes: max, relative: true}, // the rest is not looked at
	} {
		b, o, r, err := ParseBase64Decode(c.arg)
		if c.err {
			if err == nil {
				t.Errorf("%q: no error (%d %d %v)", c.arg, b, o, r)
			}
			continue
		}
		if err != nil || b != c.bytes || o != c.offset || r != c.relative {
			t.Errorf("%q = %d, %d, %v, %v; want %d, %d, %v", c.arg, b, o, r, err, c.bytes, c.offset, c.relative)
		}
	}
}

// TestDecodeRFC4648: the RFC 4648 vectors of SCBase64Mode's comment (rust/src/ffi/base64.rs,
// the unittest B64TestVectorsRFC4648 it names) and decode_rfc4648's padding and error paths.
func TestDecodeRFC4648(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"Zg==", "f"},
		{"Zm8=", "fo"},
		{"Zm9v", "foo"},
		{"Zm9vYg==", "foob"},
		{"Zm9vYmE=", "fooba"},
		{"Zm9vYmFy", "foobar"},
		{"Zm 9v Ym Fy", "f"}, // processing stops at the space
		{"Zm$9vYm.Fy", "f"},  // and at any byte outside the alphabet
		{"Zm9", "fo"},        // a partial quantum is padded
		{"Zm", "f"},          //
		{"Z", ""},            // "Z===": '=' in the second place fails the whole decode
		{"Zm9vY", ""},        // "Y===" fails, and so does what came before
		{"Zg==Zm9v", "ffoo"}, // padding does not end the data
		{"=Zm9", ""},         // '=' first
		{"Zm=v", "f"},        // '=' third: the fourth is not looked at
		{"np%2BA", "\x9e"},   // base64-issue-5223: "np" before the '%'
		{"SGVsbG8gV29ybGQ=", "Hello World"},
		{"dGhpc2lzYXRlc3QK", "thisisatest\n"},
		{"dGhpc2lzYX", "thisisa"}, // suricata-verify base64: bytes 10
	} {
		out := make([]byte, len(c.in))
		n := decodeRFC4648(out, []byte(c.in))
		if string(out[:n]) != c.want {
			t.Errorf("%q = %q, want %q", c.in, out[:n], c.want)
		}
	}
	// In place, output at or before the input in the same array (a base64_decode inside
	// base64_data decodes det_ctx->base64_decoded into itself).
	for _, shift := range []int{0, 1, 7} {
		buf := []byte(strings.Repeat("x", shift) + "Zm9vYmFyYmF6cXV4")
		n := decodeRFC4648(buf, buf[shift:])
		if string(buf[:n]) != "foobarbazqux" {
			t.Errorf("in place, input at %d: %q", shift, buf[:n])
		}
	}
}

// TestBase64DecodeBuffer: the decode tests of detect-base64-decode.c, reading the decoded
// buffer as they read det_ctx->base64_decoded. None of these rules has a base64_data list, so
// none matches (DETECT_BASE64_DECODE without the list falls to no_match).
func TestBase64DecodeBuffer(t *testing.T) {
	const hello = "SGVsbG8gV29ybGQ="
	for _, c := range []struct {
		name, opts, buf, want string
	}{
		{"DetectBase64DecodeTestDecode", `base64_decode;`, hello, "Hello World"},
		{"DetectBase64DecodeTestDecodeWithOffset", `base64_decode: offset 8;`, "aaaaaaaa" + hello, "Hello World"},
		{"DetectBase64DecodeTestDecodeLargeOffset", `base64_decode: bytes 16, offset 32;`, hello, ""},
		{"DetectBase64DecodeTestDecodeRelative", `content:"aaaaaaaa"; base64_decode: relative;`, "aaaaaaaa" + hello, "Hello World"},
		{"bytes limit", `base64_decode: bytes 8;`, hello, "Hello "},
		{"offset equal to the length", `base64_decode: offset 16;`, hello, ""},
	} {
		st := NewState()
		st.StartPacket()
		p := ruleProgram(t, tcpRule(c.opts), "pkt_data")
		if p.Inspect([]byte(c.buf), st) {
			t.Errorf("%s: matched without base64_data", c.name)
		}
		if got := string(st.Base64Decoded()); got != c.want {
			t.Errorf("%s: decoded %q, want %q", c.name, got, c.want)
		}
	}
}

// TestBase64Data: base64_data inspection, with buffers and rules of the suricata-verify tests
// named (their pcaps' buffers copied here) and the content-inspection rules of the
// DETECT_BASE64_DECODE case.
func TestBase64Data(t *testing.T) {
	body7842 := "test='AAEAAAD/////AQAAAAAAAAAMAgAAAF9TeXN0ZW0uTWFuYWdlbWVudC5BdXRvbWF0aW9uLCBWZXJzaW9uPTMuMC4wLjAsIEN1bHR1cmU9bmV1dHJhbCwgUHVibGljS2V5VG9rZW49MzFiZjM4NTZhZDM2NGUzNQUBAAAAJVN5c3RlbS5NYW5hZ2VtZW50LkF1dG9tYXRpb24uUFNPYmplY3QBAAAABkNsaVhtbAECAAAABgMAAACDFQ0KPE9ianMgVmVyc2lvbj0iMS4xLjAuMSIgeG1sbnM9Imh0dHA6Ly9zY2hlbWFzLm1pY3Jvc29mdC5jb20vcG93ZXJzaGVsbC8yMDA0LzA0Ij4mI3hEOw0KPE9iaiBSZWZJZD0iMCI+JiN4RDsNCiAgICA8VE4gUmVmSWQ9IjAiPiYjeEQ7DQogICAgICA8VD5NaWNyb3NvZnQuTWFuYWdlbWVudC5JbmZyYXN0cnVjdHVyZS5DaW1JbnN0YW5jZSNTeXN0ZW0uTWFuYWdlbWVudC5BdXRvbWF0aW9uL1J1bnNwYWNlSW52b2tlNTwvVD4mI3hEOw0K'"
	const cookie5223 = "foobar=np%2BA%2BbSdU3SD33cQXeLxh9gXqjV4t2Q0cOWQ20vCv74%3D"
	const cookie5223url = "foobar=np+A+bSdU3SD33cQXeLxh9gXqjV4t2Q0cOWQ20vCv74="
	cases := []struct {
		name, rule, buffer, data string
		want                     bool
	}{
		// suricata-verify base64: uri "/?arg=dGhpc2lzYXRlc3QK", sids 1, 3, 4.
		{"sv base64 sid 1", `alert http any any -> any any (content:"arg"; http_uri; base64_decode:bytes 17, offset 1, relative; base64_data; content:"thisisatest"; sid:1;)`,
			"http.uri", "/?arg=dGhpc2lzYXRlc3QK", true},
		{"sv base64 sid 3", `alert http any any -> any any (content:"arg"; http_uri; base64_decode:bytes 10, offset 1, relative; base64_data; content:"test"; sid:3;)`,
			"http.uri", "/?arg=dGhpc2lzYXRlc3QK", false},
		{"sv base64 sid 4", `alert http any any -> any any (content:"arg"; http_uri; base64_decode:bytes 17, offset 1, relative; base64_data; content:"toast"; sid:4;)`,
			"http.uri", "/?arg=dGhpc2lzYXRlc3QK", false},
		// suricata-verify base64-issue-5223: RFC 4648 stops at the '%'; all four alert.
		{"sv 5223 sid 1", `alert http any any -> any any (http.cookie; content:"foobar="; base64_decode:relative; base64_data; content:"|9e|"; startswith; sid:1;)`,
			"http.cookie", cookie5223, true},
		{"sv 5223 sid 2 (url_decoded buffer)", `alert http any any -> any any (http.cookie; content:"foobar="; base64_decode:relative; base64_data; content:"|9e|"; sid:2;)`,
			"http.cookie", cookie5223url, true},
		{"sv 5223 sid 3", `alert http any any -> any any (http.cookie; content:"foobar="; base64_decode:relative; base64_data; pcre:"/./"; sid:3;)`,
			"http.cookie", cookie5223, true},
		{"sv 5223 sid 4", `alert http any any -> any any (http.cookie; content:"foobar="; base64_decode:bytes 2,relative; base64_data; content:"|9e|"; startswith; sid:4;)`,
			"http.cookie", cookie5223, true},
		{"sv 5223 only one byte decoded", `alert http any any -> any any (http.cookie; content:"foobar="; base64_decode:relative; base64_data; isdataat:1; sid:5;)`,
			"http.cookie", cookie5223, false},
		// suricata-verify bug-7842-01 (request body): the decoded buffer starts at offset 0,
		// whatever the offset of the match before base64_decode: sids 2, 11, 12 alert, 3 not.
		{"sv 7842 sid 2", `alert http any any -> any any (http.request_body; content:"|27|"; base64_decode:relative; base64_data; content:"|ff ff ff ff|"; within:16; content:".PSObject"; distance:0; content:"|2f|RunspaceInvoke"; sid:2;)`,
			"http.request_body", body7842, true},
		{"sv 7842 sid 3", `alert http any any -> any any (http.request_body; content:"|27|"; base64_decode:relative; base64_data; content:"|ff 01|"; within:2; content:".PSObject"; distance:0; content:"|2f|RunspaceInvoke"; sid:3;)`,
			"http.request_body", body7842, false},
		{"sv 7842 sid 11", `alert http any any -> any any (http.request_body; content:"|27|"; base64_decode:relative; base64_data; content:"|00 01 00 00 00 ff ff ff ff|"; depth:9; content:".PSObject"; distance:0; content:"|2f|RunspaceInvoke"; sid:11;)`,
			"http.request_body", body7842, true},
		{"sv 7842 sid 12", `alert http any any -> any any (http.request_body; content:"|27|"; base64_decode:relative; base64_data; content:"|00 01 00 00 00 ff ff ff ff|"; within:9; content:".PSObject"; distance:0; content:"|2f|RunspaceInvoke"; sid:12;)`,
			"http.request_body", body7842, true},
		// base64-keywords.rst example: "somestring&dGVzdAo=&not_base64".
		{"userguide example", `alert http any any -> any any (http.uri; content:"somestring"; base64_decode:bytes 8, offset 1, relative; base64_data; content:"test"; sid:10001;)`,
			"http.uri", "/en/somestring&dGVzdAo=&not_base64", true},
		// No retry of the content before base64_decode: it sets no RELATIVE_NEXT flag, so the
		// first "k=" is the only one tried (the doc's "must be the first occurrence").
		{"first occurrence only", tcpRule(`content:"k="; base64_decode:relative; base64_data; content:"foo";`),
			"pkt_data", "k=YmFy k=Zm9v", false},
		{"first occurrence decodes", tcpRule(`content:"k="; base64_decode:relative; base64_data; content:"bar";`),
			"pkt_data", "k=YmFy k=Zm9v", true},
		// base64_data is terminal: what follows base64_decode in the buffer is not evaluated.
		{"terminal list", tcpRule(`base64_decode; content:"nothere"; base64_data; content:"foo";`),
			"pkt_data", "Zm9v", true},
		{"without base64_data no match", tcpRule(`base64_decode; content:"Zm9v";`), "pkt_data", "Zm9v", false},
		{"nothing decoded", tcpRule(`base64_decode; base64_data; content:!"x";`), "pkt_data", "!!!!", false},
		{"negated in list", tcpRule(`base64_decode; base64_data; content:!"x";`), "pkt_data", "Zm9v", true},
		{"list no match", tcpRule(`base64_decode; base64_data; content:"bar";`), "pkt_data", "Zm9v", false},
		{"bsize of decoded", tcpRule(`base64_decode; base64_data; bsize:3;`), "pkt_data", "Zm9v", true},
		{"byte_extract shared", tcpRule(`byte_extract:1,0,n,string; base64_decode:offset 1; base64_data; content:"b"; offset:n; depth:1;`),
			"pkt_data", "3Zm9vYmFy", true},
		{"byte_extract shared miss", tcpRule(`byte_extract:1,0,n,string; base64_decode:offset 1; base64_data; content:"b"; offset:n; depth:1;`),
			"pkt_data", "2Zm9vYmFy", false},
		{"relative at the end", tcpRule(`content:"Zm9v"; base64_decode:relative; base64_data; content:"foo";`), "pkt_data", "Zm9v", false},
		// A base64_decode inside base64_data decodes the decoded data in place and inspects
		// the list again from its start, so the content after it never sees the second
		// level: "WW1GeQ==" -> "YmFy" -> "bar" -> "m\xaa" -> nothing (the recursion ends).
		{"nested decode", tcpRule(`base64_decode; base64_data; base64_decode; content:"bar";`), "pkt_data", "WW1GeQ==", false},
		{"nested decode after content", tcpRule(`base64_decode; base64_data; content:"Ym"; base64_decode;`), "pkt_data", "WW1GeQ==", false},
	}
	for _, c := range cases {
		p := ruleProgram(t, c.rule, c.buffer)
		st := NewState()
		st.StartPacket()
		if got := p.Inspect([]byte(c.data), st); got != c.want {
			t.Errorf("%s: %v, want %v (decoded %q)", c.name, got, c.want, st.Base64Decoded())
		}
	}
}

// TestBase64StaleWithinPacket: base64_decoded_len is reset once per packet (DetectRunSetup),
// and DetectBase64DecodeDoMatch leaves it alone when there is nothing to decode, so such a
// base64_decode sees what an earlier one of the packet decoded; StartPacket forgets it.
func TestBase64StaleWithinPacket(t *testing.T) {
	first := ruleProgram(t, tcpRule(`base64_decode; base64_data; content:"foo";`), "pkt_data")
	empty := ruleProgram(t, tcpRule(`content:"Zm9v"; base64_decode:relative; base64_data; content:"foo";`), "pkt_data")
	st := NewState()
	st.StartPacket()
	buf := []byte("Zm9v")
	if !first.Inspect(buf, st) {
		t.Fatal("first rule: no match")
	}
	if !empty.Inspect(buf, st) {
		t.Fatal("second rule does not see the packet's earlier decode")
	}
	st.StartPacket()
	if empty.Inspect(buf, st) {
		t.Fatal("decode survived StartPacket")
	}
}

// TestBase64Compile: option errors refuse the rule; a rule without base64_data compiles.
func TestBase64Compile(t *testing.T) {
	r, err := rules.Parse(tcpRule(`base64_decode:offset 2, bytes 4; base64_data; content:"x";`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CompileRule(r, r.Buffer("pkt_data")); err == nil {
		t.Error("options out of Suricata's order compiled")
	}
	if !Supports("base64_decode") || !Supports("base64_data") {
		t.Error("Supports")
	}
}

// TestBase64RecursionShared: the base64_data list counts against the same recursion limit.
func TestBase64RecursionShared(t *testing.T) {
	p := ruleProgram(t, tcpRule(`base64_decode; base64_data; content:"a"; content:"b"; distance:0; within:1;`), "pkt_data")
	st := NewState()
	st.StartPacket()
	// 4000 decoded "a" and no "ab": every "a" is retried until the limit.
	enc := strings.Repeat("YWFh", 4000/3+1)
	if p.Inspect([]byte(enc), st) {
		t.Fatal("match")
	}
	if st.Recursions != RecursionLimit {
		t.Fatalf("recursions %d, want the limit %d", st.Recursions, RecursionLimit)
	}
}

func TestBase64ZeroAlloc(t *testing.T) {
	p := ruleProgram(t, tcpRule(`content:"k="; base64_decode:bytes 400, relative; base64_data; content:"needle"; content:"x"; distance:0;`), "pkt_data")
	buf := []byte("k=" + strings.Repeat("aGF5c3RhY2sg", 30) + "bmVlZGxlIHg=")
	st := NewState()
	st.StartPacket()
	if !p.Inspect(buf, st) {
		t.Fatalf("no match (decoded %q)", st.Base64Decoded())
	}
	if n := testing.AllocsPerRun(100, func() { st.StartPacket(); p.Inspect(buf, st) }); n != 0 {
		t.Errorf("%v allocs", n)
	}
	if !bytes.HasSuffix(st.Base64Decoded(), []byte("needle x")) {
		t.Errorf("decoded %q", st.Base64Decoded())
	}
}

// BenchmarkBase64Data: a relative base64_decode of 1,000 bytes in a 1,460-byte payload and
// two contents in the decoded data (ET Open's shape: sid 2031507).
func BenchmarkBase64Data(b *testing.B) {
	enc := strings.Repeat("PGZvbz5iYXI8L2Zvbz4g", 50)
	payload := []byte(strings.Repeat("x", 400) + "<m:Data>" + enc + strings.Repeat("y", 52))[:1460]
	p := ruleProgram(b, tcpRule(`content:"<m:Data>"; base64_decode:bytes 1000, offset 0, relative; base64_data; content:"<!DOCTYPE"; content:"SYSTEM"; distance:0;`), "pkt_data")
	st := NewState()
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		st.StartPacket()
		p.Inspect(payload, st)
	}
	if len(st.Base64Decoded()) != 750 {
		b.Fatalf("decoded %d bytes", len(st.Base64Decoded()))
	}
}
