package uri

import (
	"bytes"
	"testing"
)

func libhtpDefault() Config {
	// libhtp's own Config::default (what its unit tests run with): Minimal, and
	// unlike Suricata plus-to-space on.
	c := Default()
	c.PlusSpaceDecode = true
	return c
}

func runURL(c Config, in string) (string, Flags) {
	b := []byte(in)
	var f Flags
	n := c.decodeURL(b, &f)
	return string(b[:n]), f
}

func runPath(c Config, in string) (string, Flags) {
	b := []byte(in)
	var f Flags
	n := c.decodePath(b, &f)
	return string(b[:n]), f
}

var handlings = [3]InvalidHandling{DecodeInvalid, PreservePercent, RemovePercent}

// libhtp urlencoded.rs test_decode_uri (u-decoding off) and
// test_decode_uri_decode (on): expected for decode_invalid, preserve_percent,
// remove_percent.
func TestDecodeURLLibhtp(t *testing.T) {
	for _, tc := range []struct {
		udecode bool
		in      string
		want    [3]string
	}{
		{false, "/dest", [3]string{"/dest", "/dest", "/dest"}},
		{false, "/%64est", [3]string{"/dest", "/dest", "/dest"}},
		{false, "/%xxest", [3]string{"/1est", "/%xxest", "/xxest"}},
		{false, "/%a", [3]string{"/%a", "/%a", "/a"}},
		{false, "/%00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}},
		{false, "/%u0064", [3]string{"/%u0064", "/%u0064", "/%u0064"}},
		{false, "/%u006", [3]string{"/%u006", "/%u006", "/%u006"}},
		{false, "/%uXXXX", [3]string{"/%uXXXX", "/%uXXXX", "/%uXXXX"}},
		{false, "/%u0000ABC", [3]string{"/%u0000ABC", "/%u0000ABC", "/%u0000ABC"}},
		{false, "/\x00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}},
		{false, "/one%2ftwo", [3]string{"/one/two", "/one/two", "/one/two"}},
		{true, "/dest", [3]string{"/dest", "/dest", "/dest"}},
		{true, "/%64est", [3]string{"/dest", "/dest", "/dest"}},
		{true, "/%xxest", [3]string{"/1est", "/%xxest", "/xxest"}},
		{true, "/%a", [3]string{"/%a", "/%a", "/a"}},
		{true, "/%00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}},
		{true, "/%u0064", [3]string{"/d", "/d", "/d"}},
		{true, "/%U0064", [3]string{"/d", "/d", "/d"}},
		{true, "/%u006", [3]string{"/%u006", "/%u006", "/u006"}},
		{true, "/%uXXXX", [3]string{"/?", "/%uXXXX", "/uXXXX"}},
		{true, "/%u0000ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}},
		{true, "/\x00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}},
		{true, "/one%2ftwo", [3]string{"/one/two", "/one/two", "/one/two"}},
		// test_decode_uri_inplace
		{true, "/one/tw%u006f/three/%u123", [3]string{"/one/two/three/%u123", "/one/two/three/%u123", "/one/two/three/u123"}},
		{true, "/one/tw%u006f/three/%3", [3]string{"/one/two/three/%3", "/one/two/three/%3", "/one/two/three/3"}},
		{true, "/one/tw%u006f/three/%uXXXX", [3]string{"/one/two/three/?", "/one/two/three/%uXXXX", "/one/two/three/uXXXX"}},
	} {
		for i, h := range handlings {
			c := libhtpDefault()
			c.UEncodingDecode = tc.udecode
			c.InvalidHandling = h
			if got, _ := runURL(c, tc.in); got != tc.want[i] {
				t.Errorf("decodeURL(%q, u=%v, handling %d) = %q, want %q", tc.in, tc.udecode, h, got, tc.want[i])
			}
		}
	}
}

// libhtp test_decode_uri_nul_terminates.
func TestDecodeURLNulTerminates(t *testing.T) {
	c := libhtpDefault()
	c.UEncodingDecode, c.NulEncodedTerminates, c.NulRawTerminates = true, true, true
	for _, in := range []string{"/%u0000ABC", "/%00ABC", "/\x00ABC"} {
		if got, _ := runURL(c, in); got != "/" {
			t.Errorf("%q -> %q, want /", in, got)
		}
	}
}

// libhtp test_path_decode_uri_inplace (u off) and
// test_path_decode_uri_inplace_decode (u on): output per handling and flags.
func TestDecodePathLibhtp(t *testing.T) {
	for _, tc := range []struct {
		udecode bool
		in      string
		want    [3]string
		flags   Flags
	}{
		{false, "/dest", [3]string{"/dest", "/dest", "/dest"}, 0},
		{false, "/%64est", [3]string{"/dest", "/dest", "/dest"}, 0},
		{false, "/%xxest", [3]string{"/1est", "/%xxest", "/xxest"}, FlagInvalidEncoding},
		{false, "/%a", [3]string{"/%a", "/%a", "/a"}, FlagInvalidEncoding},
		{false, "/%00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}, FlagEncodedNul},
		{false, "/%u0064", [3]string{"/%u0064", "/%u0064", "/%u0064"}, 0},
		{false, "/%u006", [3]string{"/%u006", "/%u006", "/%u006"}, 0},
		{false, "/%uXXXX", [3]string{"/%uXXXX", "/%uXXXX", "/%uXXXX"}, 0},
		{false, "/%u0000ABC", [3]string{"/%u0000ABC", "/%u0000ABC", "/%u0000ABC"}, 0},
		{false, "/\x00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}, 0},
		{false, "/one%2ftwo", [3]string{"/one%2ftwo", "/one%2ftwo", "/one%2ftwo"}, FlagEncodedSeparator},
		{true, "/dest", [3]string{"/dest", "/dest", "/dest"}, 0},
		{true, "/%64est", [3]string{"/dest", "/dest", "/dest"}, 0},
		{true, "/%xxest", [3]string{"/1est", "/%xxest", "/xxest"}, FlagInvalidEncoding},
		{true, "/%a", [3]string{"/%a", "/%a", "/a"}, FlagInvalidEncoding},
		{true, "/%00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}, FlagEncodedNul},
		{true, "/%u0064", [3]string{"/d", "/d", "/d"}, FlagOverlongU},
		{true, "/%U0064", [3]string{"/d", "/d", "/d"}, FlagOverlongU},
		{true, "/%u006", [3]string{"/%u006", "/%u006", "/u006"}, FlagInvalidEncoding},
		{true, "/%uXXXX", [3]string{"/?", "/%uXXXX", "/uXXXX"}, FlagInvalidEncoding},
		{true, "/%u0000ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}, FlagEncodedNul | FlagOverlongU},
		{true, "/\x00ABC", [3]string{"/\x00ABC", "/\x00ABC", "/\x00ABC"}, 0},
		{true, "/one%2ftwo", [3]string{"/one%2ftwo", "/one%2ftwo", "/one%2ftwo"}, FlagEncodedSeparator},
	} {
		for i, h := range handlings {
			c := libhtpDefault()
			c.UEncodingDecode = tc.udecode
			c.InvalidHandling = h
			got, f := runPath(c, tc.in)
			if got != tc.want[i] || f != tc.flags {
				t.Errorf("decodePath(%q, u=%v, handling %d) = %q %#x, want %q %#x", tc.in, tc.udecode, h, got, f, tc.want[i], tc.flags)
			}
		}
	}
}

// libhtp test_path_decode_inplace_nul_terminates and
// test_path_decode_inplace_seps.
func TestDecodePathNulAndSeparators(t *testing.T) {
	c := libhtpDefault()
	c.UEncodingDecode, c.NulEncodedTerminates, c.NulRawTerminates = true, true, true
	for _, tc := range []struct {
		in    string
		flags Flags
	}{
		{"/%u0000ABC", FlagEncodedNul | FlagOverlongU},
		{"/%00ABC", FlagEncodedNul},
		{"/\x00ABC", 0},
	} {
		if got, f := runPath(c, tc.in); got != "/" || f != tc.flags {
			t.Errorf("%q -> %q %#x, want / %#x", tc.in, got, f, tc.flags)
		}
	}
	c = libhtpDefault()
	c.ConvertBackslash, c.DecodeSeparators, c.CompressSeparators = true, true, true
	for _, in := range []string{"/one%2ftwo", "/one\\two", "/one//two"} {
		if got, _ := runPath(c, in); got != "/one/two" {
			t.Errorf("%q -> %q, want /one/two", in, got)
		}
	}
}

// libhtp uri.rs test_normalize_uri_path.
func TestRemoveDotSegments(t *testing.T) {
	for _, tc := range [][2]string{
		{"/a/b/c/./../../g", "/a/g"},
		{"mid/content=5/../6", "mid/6"},
		{"./one", "one"},
		{"../one", "one"},
		{".", ""},
		{"..", ""},
		{"one/.", "one"},
		{"one/..", ""},
		{"/", "/"},
		{"one/../", ""},
		{"/../../../images.gif", "/images.gif"},
	} {
		b := []byte(tc[0])
		if got := string(b[:removeDotSegments(b)]); got != tc[1] {
			t.Errorf("%q -> %q, want %q", tc[0], got, tc[1])
		}
	}
}

// libhtp utf8_decoder.rs test_decode_and_validate_inplace.
func TestUTF8Bestfit(t *testing.T) {
	c := libhtpDefault()
	c.UTF8ConvertBestfit = true
	for _, tc := range [][2]string{
		{"\xf1.\xf1\xef\xbd\x9dabcd", "?.?}abcd"},
		{"\xf0\x90\x8d\xff", "??"},
		{"\xe2\x82", "?"},
		{"\xc2\xff\xf0", "??"},
		{"\xf0\x90\x28\xbc", "?(?"},
	} {
		var f Flags
		if got := string(c.NormalizePath(nil, []byte(tc[0]), &f)); got != tc[1] {
			t.Errorf("%q -> %q, want %q", tc[0], got, tc[1])
		}
		// libhtp flags an invalid byte, not a sequence cut short by the end.
		if wantInvalid := tc[0] != "\xe2\x82"; (f&FlagInvalidUTF8 != 0) != wantInvalid {
			t.Errorf("%q: flags %#x", tc[0], f)
		}
	}
	// Valid UTF-8: U+FF41 FULLWIDTH LATIN SMALL LETTER A best-fits to 'a'
	// (bestfit1252 0xff41 -> 0x61) and raises valid + half/full-width flags;
	// without conversion the bytes stay but the flags are the same.
	for _, conv := range []bool{true, false} {
		c.UTF8ConvertBestfit = conv
		var f Flags
		got := string(c.NormalizePath(nil, []byte("/\xef\xbd\x81"), &f))
		want := "/a"
		if !conv {
			want = "/\xef\xbd\x81"
		}
		if got != want || f != FlagUTF8Valid|FlagHalfFullRange {
			t.Errorf("convert=%v: %q %#x, want %q %#x", conv, got, f, want, FlagUTF8Valid|FlagHalfFullRange)
		}
	}
	// Overlong 2-byte '/' (C0 AF): libhtp's overlong-allowing classes decode
	// it to '/' with the overlong flag (and the sequence counts as valid).
	var f Flags
	c.UTF8ConvertBestfit = true
	if got := string(c.NormalizePath(nil, []byte("/\xc0\xafx"), &f)); got != "//x" || f != FlagUTF8Valid|FlagUTF8Overlong {
		t.Errorf("C0 AF: %q %#x", got, f)
	}
}

// libhtp uri.rs test_parse_uri: the parts, and the partial and complete
// forms (complete without the port, which normalize_parsed_uri drops).
func TestParseLibhtp(t *testing.T) {
	type parts struct{ scheme, user, pass, host, port, path, query, frag string }
	for _, tc := range []struct {
		in                string
		want              parts
		partial, complete string
	}{
		{"http://user:pass@www.example.com:1234/path1/path2?a=b&c=d#frag",
			parts{"http", "user", "pass", "www.example.com", "1234", "/path1/path2", "a=b&c=d", "frag"},
			"/path1/path2?a=b&c=d#frag", "http://user:pass@www.example.com/path1/path2?a=b&c=d#frag"},
		{"http://host.com/path", parts{scheme: "http", host: "host.com", path: "/path"}, "/path", "http://host.com/path"},
		{"http://host.com", parts{scheme: "http", host: "host.com"}, "", "http://host.com"},
		{"http://", parts{scheme: "http", path: "//"}, "//", "http:////"},
		{"/path", parts{path: "/path"}, "/path", "/path"},
		{"://", parts{path: "//"}, "//", ":////"},
		{"", parts{}, "", ""},
		{"http://user@host.com", parts{scheme: "http", user: "user", host: "host.com"}, "", "http://user:@host.com"},
	} {
		var u URI
		Parse([]byte(tc.in), &u)
		got := parts{string(u.Scheme), string(u.Username), string(u.Password), string(u.Hostname), string(u.Port), string(u.Path), string(u.Query), string(u.Fragment)}
		if got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		c := libhtpDefault()
		var f Flags
		if p := string(c.Normalize(nil, &u, &f)); p != tc.partial {
			t.Errorf("partial(%q) = %q, want %q", tc.in, p, tc.partial)
		}
		c.IncludeAll = true
		if p := string(c.Normalize(nil, &u, &f)); p != tc.complete {
			t.Errorf("complete(%q) = %q, want %q", tc.in, p, tc.complete)
		}
	}
	var u URI
	Parse([]byte("://"), &u)
	if !u.HasScheme || u.Scheme == nil || len(u.Scheme) != 0 {
		t.Errorf("empty scheme not reported present: %+v", u)
	}
}

// More request-target shapes, reading libhtp's parsers.rs combinators.
func TestParseShapes(t *testing.T) {
	for _, tc := range []struct{ in, host, port, path, query, frag string }{
		{"*", "", "", "*", "", ""},
		{"/a?b?c#d#e", "", "", "/a", "b?c", "d#e"},
		{"/?", "", "", "/", "", ""},
		{"http://[::1]:8080/x", "[::1]", "8080", "/x", "", ""},
		{"http://h: 80 /x", "h", "80", "/x", "", ""},
		{"http://h:/x", "h", "", ":/x", "", ""},
		{"http:///x", "", "", "///x", "", ""},
		{"http://  h  /x", "h", "", "/x", "", ""},
		{"/uri afterspace", "", "", "/uri afterspace", "", ""}, // SV http-uri-spaces
	} {
		var u URI
		Parse([]byte(tc.in), &u)
		if string(u.Hostname) != tc.host || string(u.Port) != tc.port || string(u.Path) != tc.path || string(u.Query) != tc.query || string(u.Fragment) != tc.frag {
			t.Errorf("Parse(%q) = host %q port %q path %q query %q frag %q", tc.in, u.Hostname, u.Port, u.Path, u.Query, u.Fragment)
		}
	}
}

func ids(t *testing.T) Config {
	c, err := Personality("IDS")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func norm(c Config, raw string) (string, Flags) {
	var u URI
	Parse([]byte(raw), &u)
	var f Flags
	return string(c.Normalize(nil, &u, &f)), f
}

// The suricata-verify tests named in the task, and the §5.3 rules with the
// shipped IDS personality.
func TestNormalizeSuricataVerify(t *testing.T) {
	c := ids(t)
	// bug-78-http-uri: content:"blah"; http_uri on GET /blah/ (eve url /blah/).
	if got, _ := norm(c, "/blah/"); got != "/blah/" {
		t.Errorf("bug-78: %q", got)
	}
	// http-uri-spaces: content:" afterspace"; http_uri.
	if got, _ := norm(c, "/uri afterspace"); got != "/uri afterspace" {
		t.Errorf("uri-spaces: %q", got)
	}
	// http-double-encoded-uri: GET /evil%2527sqli with double-decode-path and
	// -query yes raises double_encoded_uri.
	c.DoubleDecodePath, c.DoubleDecodeQuery = true, true
	got, f := norm(c, "/evil%2527sqli")
	if got != "/evil'sqli" || f&FlagDoubleEncoded == 0 {
		t.Errorf("double-encoded: %q %#x", got, f)
	}
	// Without double decoding the flag is not raised and one level remains.
	c.DoubleDecodePath, c.DoubleDecodeQuery = false, false
	if got, f := norm(c, "/evil%2527sqli"); got != "/evil%27sqli" || f&FlagDoubleEncoded != 0 {
		t.Errorf("single decode: %q %#x", got, f)
	}
}

func TestNormalizeIDS(t *testing.T) {
	c := ids(t)
	for _, tc := range []struct {
		raw, want string
		flags     Flags // flags that must be set
	}{
		{"/a%2fb", "/a/b", FlagEncodedSeparator},
		{"/a%5cb", "/a/b", FlagEncodedSeparator},
		{"/a\\b\\c", "/a/b/c", 0},
		{"//a///b", "/a/b", 0},
		{"/a/./b/../c", "/a/c", 0},
		{"/../../etc/passwd", "/etc/passwd", 0},
		{"/A/B", "/A/B", 0}, // Suricata turns lowercase off
		{"/%u0041", "/A", FlagOverlongU},
		{"/%uff0e%uff0e/x", "/x", FlagHalfFullRange}, // fullwidth dots best-fit to ".." then removed
		{"/%zz", "/%zz", FlagInvalidEncoding},
		{"/a%00b", "/a\x00b", FlagEncodedNul},
		{"/q?a=%41+b%2b", "/q?a=A+b+", 0}, // query decoded once, '+' kept
		{"/q?x#fr%41g", "/q?x#frAg", 0},
		{"/\xc3\xa9", "/\xe9", FlagUTF8Valid}, // U+00E9 single byte
		{"/q?%2541", "/q?%41", 0},
		{"http://User:P%41ss@WWW.Example.COM.:81/p", "/p", 0},
	} {
		got, f := norm(c, tc.raw)
		if got != tc.want || f&tc.flags != tc.flags {
			t.Errorf("IDS %q = %q %#x, want %q with %#x", tc.raw, got, f, tc.want, tc.flags)
		}
	}
	c.IncludeAll = true
	if got, _ := norm(c, "HTTP://User:P%41ss@WWW.Example.COM.:81/p?q"); got != "http://User:PAss@www.example.com/p?q" {
		t.Errorf("include-all: %q", got)
	}
	// An invalid port raises request_uri_host_invalid's flag.
	if _, f := norm(c, "http://h:99999/"); f&FlagHostInvalid == 0 {
		t.Errorf("bad port not flagged")
	}
	if _, f := norm(c, "http://a..b/"); f&FlagHostInvalid == 0 {
		t.Errorf("bad host not flagged")
	}
	if _, f := norm(c, "http://a.b:80/"); f&FlagHostInvalid != 0 {
		t.Errorf("good host flagged")
	}
}

// Each personality's flags (libhtp config.rs set_server_personality).
func TestPersonalities(t *testing.T) {
	type p struct{ bs, sepdec, sepcomp, udec, bestfit bool }
	for name, want := range map[string]p{
		"minimal":    {},
		"Generic":    {true, true, true, false, false},
		"IDS":        {true, true, true, true, true},
		"apache_2":   {false, false, true, false, false},
		"Apache":     {false, false, true, false, false},
		"APACHE_2_2": {false, false, true, false, false},
		"iis_5_1":    {true, true, true, false, false},
		"iis_6_0":    {true, true, true, true, false},
		"IIS_7_0":    {true, true, true, true, false},
		"iis_7_5":    {true, true, true, true, false},
	} {
		c, err := Personality(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := p{c.ConvertBackslash, c.DecodeSeparators, c.CompressSeparators, c.UEncodingDecode, c.UTF8ConvertBestfit}
		if got != want || c.ConvertLowercase || c.PlusSpaceDecode || c.BestfitReplacement != '?' {
			t.Errorf("%s = %+v %+v, want %+v", name, got, c, want)
		}
	}
	for _, name := range []string{"iis_4_0", "IIS_5_0"} {
		if c, err := Personality(name); err != ErrPersonalityIgnored || c != Default() {
			t.Errorf("%s: %v %+v", name, err, c)
		}
	}
	for _, name := range []string{"tomcat_6_0", "nginx", ""} {
		if _, err := Personality(name); err != ErrUnknownPersonality {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Every decoding flag toggled on its own against the same input.
func TestConfigFlags(t *testing.T) {
	in := "/A%2fB\\C//D%u0045%zz%00x"
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"none", func(*Config) {}, "/A%2fB\\C//D%u0045%zz\x00x"},
		{"backslash", func(c *Config) { c.ConvertBackslash = true }, "/A%2fB/C//D%u0045%zz\x00x"},
		{"sepdecode", func(c *Config) { c.DecodeSeparators = true }, "/A/B\\C//D%u0045%zz\x00x"},
		{"compress", func(c *Config) { c.CompressSeparators = true }, "/A%2fB\\C/D%u0045%zz\x00x"},
		{"udecode", func(c *Config) { c.UEncodingDecode = true }, "/A%2fB\\C//DE%zz\x00x"},
		{"lowercase", func(c *Config) { c.ConvertLowercase = true }, "/a%2fb\\c//d%u0045%zz\x00x"},
		{"nulencoded", func(c *Config) { c.NulEncodedTerminates = true }, "/A%2fB\\C//D%u0045%zz"},
		{"remove", func(c *Config) { c.InvalidHandling = RemovePercent }, "/A%2fB\\C//D%u0045zz\x00x"},
		{"decodeinvalid", func(c *Config) { c.InvalidHandling = DecodeInvalid }, "/A%2fB\\C//D%u0045S\x00x"}, // x2c("zz") wraps to 0x53
	} {
		c := Default()
		tc.set(&c)
		got, _ := norm(c, in)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	c := Default()
	c.NulRawTerminates = true
	if got, _ := norm(c, "/a\x00b?q"); got != "/a?q" {
		t.Errorf("nulraw: %q", got)
	}
	c = Default()
	c.PlusSpaceDecode = true
	if got, _ := norm(c, "/a+b?c+d"); got != "/a+b?c d" {
		t.Errorf("plusspace: %q", got)
	}
	c = Default()
	c.UEncodingDecode = true
	c.BestfitReplacement = '#'
	if got, _ := norm(c, "/%u1234"); got != "/#" {
		t.Errorf("replacement: %q", got)
	}
}

func TestHostPort(t *testing.T) {
	for _, tc := range []struct {
		in, host, port string
		valid          bool
	}{
		{"www.example.com:8080", "www.example.com", "8080", true},
		{"www.example.com", "www.example.com", "", true},
		{"[::1]:443", "[::1]", "443", true},
		{"[::1]xxx", "[::1]", "", false},
		{"host:0", "host", "0", false},
		{"host:+80", "host", "+80", true},
		{"host:abc", "host", "abc", false},
		{"bad..host:80", "bad..host", "80", false},
	} {
		var u URI
		v := ParseHostPort([]byte(tc.in), &u)
		if string(u.Hostname) != tc.host || string(u.Port) != tc.port || v != tc.valid {
			t.Errorf("ParseHostPort(%q) = %q %q %v", tc.in, u.Hostname, u.Port, v)
		}
	}
	if got := string(NormalizeHostname(nil, []byte("WWW.Example.COM.."))); got != "www.example.com" {
		t.Errorf("NormalizeHostname: %q", got)
	}
	for _, tc := range []struct {
		in string
		n  int
		ok bool
	}{{"80", 80, true}, {"65535", 65535, true}, {"65536", 0, false}, {"0", 0, false}, {"", 0, false}, {"+", 0, false}, {"-1", 0, false}, {"8a", 0, false}} {
		n, ok := ParsePort([]byte(tc.in))
		if n != tc.n || ok != tc.ok {
			t.Errorf("ParsePort(%q) = %d %v", tc.in, n, ok)
		}
	}
}

func TestNormalizeAllocs(t *testing.T) {
	c := ids(t)
	var u URI
	raw := []byte("http://user:pw@Host.example:8080/a/%2e%2e/b%20c//d?x=%41&y=+#f")
	dst := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		Parse(raw, &u)
		var f Flags
		dst = c.Normalize(dst[:0], &u, &f)
	})
	if allocs != 0 {
		t.Errorf("allocs per Normalize: %v", allocs)
	}
	if !bytes.Equal(dst, []byte("/b c/d?x=A&y=+#f")) {
		t.Errorf("got %q", dst)
	}
}

// libhtp test/main.rs PathUtf8_* (request lines of files 53-59) with
// TestConfig (Apache_2), and the PathUtf8_Decode_* variants with best-fit on.
func TestLibhtpPathUTF8(t *testing.T) {
	base, _ := Personality("apache_2")
	base.PlusSpaceDecode = true
	for _, tc := range []struct {
		name, raw, decoded string
		set, unset         Flags
	}{
		{"None", "/Ristic.txt", "/Ristic.txt", 0, FlagUTF8Valid | FlagUTF8Overlong | FlagHalfFullRange},
		{"Valid", "/Risti%C4%87.txt", "/Ristic.txt", FlagUTF8Valid, 0},
		{"Overlong2", "/%c0%a6.txt", "/&.txt", FlagUTF8Overlong, 0},
		{"Overlong3", "/%e0%80%a6.txt", "/&.txt", FlagUTF8Overlong, 0},
		{"Overlong4", "/%f0%80%80%a6.txt", "/&.txt", FlagUTF8Overlong, 0},
		{"Invalid", "/Risti%C4%87%80.txt", "/Ristic?.txt", FlagInvalidUTF8, FlagUTF8Valid},
		{"FullWidth", "/%EF%BC%86.txt", "/&.txt", FlagHalfFullRange, 0},
	} {
		for _, conv := range []bool{false, true} {
			c := base
			c.UTF8ConvertBestfit = conv
			got, f := norm(c, tc.raw)
			if f&tc.set != tc.set || f&tc.unset != 0 {
				t.Errorf("%s (bestfit %v): flags %#x, want set %#x unset %#x", tc.name, conv, f, tc.set, tc.unset)
			}
			if conv && got != tc.decoded {
				t.Errorf("PathUtf8_Decode_%s: %q, want %q", tc.name, got, tc.decoded)
			}
		}
	}
}

// libhtp test/hybrid.rs DoubleEncodedUriPath / DoubleEncodedUriQuery.
func TestLibhtpDoubleEncoded(t *testing.T) {
	c, _ := Personality("apache_2")
	c.PlusSpaceDecode = true
	c.DoubleDecodePath = true
	if got, f := norm(c, "/%2500"); got != "/\x00" || f&FlagDoubleEncoded == 0 {
		t.Errorf("path: %q %#x", got, f)
	}
	var u URI
	Parse([]byte("/%2500"), &u)
	var f Flags
	if p := string(c.NormalizePath(nil, u.Path, &f)); p != "/%00" {
		t.Errorf("parsed path: %q", p)
	}
	c.DoubleDecodePath, c.DoubleDecodeQuery = false, true
	if got, f := norm(c, "/?a=%2500"); got != "/?a=\x00" || f&FlagDoubleEncoded == 0 {
		t.Errorf("query: %q %#x", got, f)
	}
}

func BenchmarkNormalize(b *testing.B) {
	c, _ := Personality("ids")
	raw := []byte("/en-us/library/%2e%2e/Ristic%C4%87/a//b/./c/index.aspx?q=%41%42+c&x=y#frag")
	dst := make([]byte, 0, 256)
	var u URI
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Parse(raw, &u)
		var f Flags
		dst = c.Normalize(dst[:0], &u, &f)
	}
}
