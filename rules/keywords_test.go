package rules

import (
	"strings"
	"testing"
)

// kwCase is one table test: a rule (header + options, sid:1 appended) and either the error
// the parse must give (a substring) or no error.
type kwCase struct {
	hdr  string // default "alert tcp any any -> any any"
	opts string
	err  string
}

func runKeywordCases(t *testing.T, cases []kwCase) {
	t.Helper()
	for _, tc := range cases {
		hdr := tc.hdr
		if hdr == "" {
			hdr = "alert tcp any any -> any any"
		}
		text := hdr + " (" + tc.opts + " sid:1;)"
		r, err := Parse(text)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s\n    unexpected error: %v", text, err)
		case tc.err != "" && err == nil:
			t.Errorf("%s\n    expected error %q", text, tc.err)
		case tc.err != "" && !strings.Contains(err.Error(), tc.err):
			t.Errorf("%s\n    got error %q, want %q", text, err, tc.err)
		case err == nil:
			// Every valid rule prints canonically and reparses to the same text.
			s := r.String()
			r2, err := Parse(s)
			if err != nil {
				t.Errorf("%s\n    canonical %s fails: %v", text, s, err)
			} else if r2.String() != s {
				t.Errorf("%s\n    canonical text not stable: %s -> %s", text, s, r2.String())
			}
		}
	}
}

func TestMetaKeywords(t *testing.T) {
	runKeywordCases(t, []kwCase{
		{opts: `msg:"hello";`},
		{opts: `msg:"a\;b\"c\\d\:e";`},
		{opts: `msg:hello;`, err: "value must be double quoted"},
		{opts: `msg:"a"; msg:"b";`, err: "duplicated 'msg'"},
		{opts: `msg:"unterminated;`, err: "possible missing semicolon"},
		{opts: `msg:"";`, err: "bad input"},
		{opts: `msg;`, err: "invalid formatting or malformed option"},
		{opts: `rev:2;`},
		{opts: `rev:0;`, err: "rev value 0 is invalid"},
		{opts: `rev:1; rev:2;`, err: "duplicated 'rev'"},
		{opts: `rev:x;`, err: "invalid input as arg to rev"},
		{opts: `gid:5;`},
		{opts: `gid:x;`, err: "invalid input as arg to gid"},
		{opts: `classtype:trojan-activity;`},
		{opts: `classtype:not_a_real_one;`}, // unknown classtypes only warn
		{opts: `classtype:1bad;`, err: "invalid value for classtype"},
		{opts: `classtype:"trojan-activity";`, err: "quotes on classtype keyword that doesn't support them"},
		{opts: `priority:1;`},
		{opts: `priority:300;`},
		{opts: `priority:high;`, err: "Invalid Priority"},
		{opts: `priority:-1;`, err: "Invalid Priority"},
		{opts: `reference:url,www.example.com/a?b=c;`},
		{opts: `reference:cve,2021-44228;`},
		{opts: `reference:url,http://example.com;`},
		{opts: `reference:url;`, err: "Unable to parse \"reference\""},
		{opts: `reference:,x;`, err: "Unable to parse \"reference\""},
		{opts: `metadata:created_at 2010_07_30, updated_at 2019_07_26;`},
		{opts: `metadata:nokey;`},
		{opts: `target:src_ip;`}, {opts: `target:dest_ip;`},
		{opts: `target:source;`, err: "invalid target"},
		{opts: `noalert;`},
		{opts: `noalert:1;`, err: "unexpected option to noalert"},
		{opts: `tag:session;`}, {opts: `tag:session,5,packets;`}, {opts: `tag:host,300,seconds,src;`},
		{opts: `tag:session,5;`, err: "invalid tag"},
		{opts: `tag:flow,5,packets;`, err: "invalid tag"},
		{opts: `tag:session,5,packets,src;`, err: "only applies to host tags"},
		{opts: `requires:version >= 7;`},
		{opts: `requires:version >= 7.0.3 < 9;`},
		{opts: `requires:feature ja3, version >= 8.0.1;`},
		{opts: `requires:version >= 8;`},
		{opts: `requires:version >= foo;`, err: "Failed to parse requires expression"},
		{opts: `requires:version >= 7, version < 9;`, err: "Version may only be specified once"},
		{opts: `bogus:1;`, err: "unknown rule keyword 'bogus'"},
		{opts: `BOGUS;`, err: "unknown rule keyword 'BOGUS'"},
		{opts: `MSG:"upper case keyword names work";`},
		{opts: `;`, err: "unknown rule keyword ''"},
	})
	// sid is checked in the first pass.
	for _, tc := range []struct{ text, err string }{
		{`alert tcp any any -> any any (msg:"x";)`, `Signature missing required value "sid"`},
		{`alert tcp any any -> any any (sid:0;)`, "sid value 0 is invalid"},
		{`alert tcp any any -> any any (sid:1; sid:2;)`, "duplicated 'sid'"},
		{`alert tcp any any -> any any (sid:abc;)`, "invalid input as arg to sid"},
		{`alert tcp any any -> any any (sid:4294967296;)`, "invalid input as arg to sid"},
		{`alert tcp any any -> any any (sid:12abc;)`, ""}, // strtoul: trailing text ignored
		{`alert tcp any any -> any any (sid: 7 ;)`, ""},
	} {
		_, err := Parse(tc.text)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: got %v, want %q", tc.text, err, tc.err)
		}
	}
}

func TestRequiresSkips(t *testing.T) {
	for _, tc := range []struct {
		opts string
		skip bool
	}{
		{`requires:version >= 9;`, true},
		{`requires:version < 8;`, true},
		{`requires:version >= 7 < 8 | >= 8.0.6;`, false},
		{`requires:version >= 7 < 8 | >= 8.0.7;`, true},
		{`requires:feature output::file-store;`, true},
		{`requires:feature ja4;`, false},
		{`requires:keyword ja4.hash;`, false},
		{`requires:keyword nosuchkeyword;`, true},
		{`requires:somethingnew x;`, true},
	} {
		// The requires pass runs first: the unknown keyword after it does not matter when the
		// rule is skipped.
		text := `alert tcp any any -> any any (` + tc.opts + ` sid:1;)`
		if tc.skip {
			text = `alert tcp any any -> any any (` + tc.opts + ` unknownkw:1; sid:1;)`
		}
		_, err := Parse(text)
		if tc.skip {
			e, ok := err.(*Error)
			if !ok || e.Kind != KindSkipped {
				t.Errorf("%s: want skipped, got %v", tc.opts, err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", tc.opts, err)
		}
	}
	_, err := ParseWith(`alert tcp any any -> any any (requires:version >= 9; sid:1;)`, &ParseOptions{Version: "9.0.0"})
	if err != nil {
		t.Errorf("version option: %v", err)
	}
}

func TestContentKeywords(t *testing.T) {
	runKeywordCases(t, []kwCase{
		{opts: `content:"abc";`},
		{opts: `content:!"abc";`},
		{opts: `content:"|41 42|C|0d0a|";`},
		{opts: `content:"|41,42|";`},
		{opts: `content:"a\;b\"c\\d\:e";`},
		{opts: `content:"a:b";`},
		{opts: `content:"|4 41|";`, err: `odd number of hex digits in "|4 41|"`},
		{opts: `content:"|41 4G|";`, err: "invalid hex code"},
		{opts: `content:"|41";`, err: "odd number of '|'"},
		{opts: `content:"a\nb";`, err: "invalid escape"},
		{opts: `content:"a"b";`, err: "unescaped double quote"},
		{opts: `content:abc;`, err: "must be double quoted"},
		{opts: `content:"";`, err: "bad input"},
		{opts: `content:!;`, err: "invalid formatting"},
		{opts: `content:"abc"; nocase;`},
		{opts: `content:"abc"; nocase; nocase;`, err: "multiple nocase"},
		{opts: `nocase;`, err: "nocase needs preceding content"},
		{opts: `content:"abc"; depth:3;`},
		{opts: `content:"abc"; depth:2;`, err: "smaller than content of len 3"},
		{opts: `content:"abc"; depth:3; depth:4;`, err: "multiple depths"},
		{opts: `content:"abc"; depth:x;`, err: "unknown byte_ keyword var"},
		{opts: `content:"abc"; depth:-1;`, err: "invalid value for depth"},
		{opts: `content:"abc"; depth:0x10;`},
		{opts: `content:"abc"; offset:2; depth:3;`},
		{opts: `content:"abc"; offset:2; offset:3;`, err: "multiple offsets"},
		{opts: `depth:3;`, err: "depth needs preceding content"},
		{opts: `content:"abc"; distance:0;`},
		{opts: `content:"abc"; distance:-5;`},
		{opts: `content:"abc"; distance:2000000;`, err: "invalid value for distance"},
		{opts: `content:"abc"; within:3;`},
		{opts: `content:"abc"; within:2;`, err: "less than the content length"},
		{opts: `content:"abc"; within:0;`, err: "less than the content length"},
		{opts: `content:"abc"; within:5; within:6;`, err: "multiple withins"},
		{opts: `content:"abc"; distance:0; distance:1;`, err: "multiple distances"},
		{opts: `content:"abc"; depth:5; distance:0;`, err: "can't use a relative keyword like within/distance with a absolute"},
		{opts: `content:"abc"; within:5; offset:1;`, err: "can't use a relative keyword like within/distance with a absolute"},
		{opts: `content:"abc"; startswith;`},
		{opts: `content:"abc"; depth:3; startswith;`, err: "multiple depth/startswith"},
		{opts: `content:"abc"; startswith; depth:3;`, err: "multiple depths"},
		{opts: `content:"abc"; offset:1; startswith;`, err: "can't mix offset with startswith"},
		{opts: `content:"abc"; startswith; offset:1;`, err: "can't use offset with startswith"},
		{opts: `content:"abc"; distance:0; startswith;`, err: "relative keyword"},
		{opts: `content:"abc"; endswith;`},
		{opts: `endswith;`, err: "endswith needs preceding content"},
		{opts: `content:"abc"; rawbytes;`},
		{opts: `content:"abc"; rawbytes; rawbytes;`, err: "multiple rawbytes"},
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"abc"; rawbytes;`, err: "cannot be combined with the \"http.uri\" sticky buffer"},
		{opts: `content:"abc"; fast_pattern;`},
		{opts: `content:"abc"; fast_pattern:only;`},
		{opts: `content:"abcdef"; fast_pattern:1,4;`},
		{opts: `content:"abc"; fast_pattern:1,4;`, err: "exceeds pattern length"},
		{opts: `content:"abc"; fast_pattern:x;`, err: "parse error"},
		{opts: `content:"abc"; fast_pattern; fast_pattern;`, err: "multiple fast_pattern options for the same content"},
		{opts: `content:"abc"; fast_pattern; content:"def"; fast_pattern;`, err: "only one content"},
		{opts: `content:!"abc"; fast_pattern:only;`, err: "fast_pattern: only; cannot be used with negated content"},
		{opts: `content:"abc"; distance:0; fast_pattern:only;`, err: "fast_pattern: only; cannot be used"},
		{opts: `content:"abc"; fast_pattern:only; distance:0;`, err: "fast_pattern:only"},
		{opts: `content:"abc"; fast_pattern:only; content:"d"; distance:0;`, err: "previous keyword has a fast_pattern:only"},
		{opts: `content:!"abc"; depth:5; fast_pattern;`, err: "cannot be used with negated content, along with relative modifiers"},
		{opts: `content:!"abc"; fast_pattern; depth:5;`, err: "negated keyword set along with 'fast_pattern'"},
		{opts: `fast_pattern;`, err: "without a content context"},
		{opts: `content:"abc"; replace:"def";`},
		{opts: `content:"abc"; replace:"de";`, err: "length different"},
		{opts: `content:!"abc"; replace:"def";`, err: "negated keyword set along with a replacement"},
		{opts: `content:"abc"; replace:!"def";`, err: "Can't negate replacement"},
		{opts: `replace:"abc";`, err: "replace needs"},
		{opts: `content:"abc"; byte_extract:1,0,var; content:"d"; distance:var; within:var;`},
		{opts: `content:"abc"; content:"d"; distance:nosuch;`, err: "unknown byte_ keyword var"},
		{hdr: "alert http any any -> any any", opts: `uricontent:"/a";`},
		{hdr: "alert http any any -> any any", opts: `content:"/a"; http_uri; content:"x"; http_header; nocase;`},
		{hdr: "alert http any any -> any any", opts: `http_uri;`, err: "without a content context"},
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"a"; content:"b"; http_header;`, err: "with a sticky buffer still set"},
		{hdr: "alert dns any any -> any any", opts: `content:"a"; http_uri;`, err: "conflicting alprotos"},
		{hdr: "alert http any any -> any any", opts: `content:"a"; rawbytes; http_uri;`, err: "can not be used with the rawbytes"},
	})
}

func TestBufferKeywords(t *testing.T) {
	runKeywordCases(t, []kwCase{
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"/a"; http.header; content:"b";`},
		{hdr: "alert http any any -> any any", opts: `http.uri; http.header; content:"b";`, err: "previous sticky buffer has no matches"},
		{hdr: "alert http any any -> any any", opts: `content:"x"; http.uri;`, err: "setup buffer http.uri but didn't add matches"},
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"a"; pkt_data; content:"b";`},
		{hdr: "alert tcp any any -> any any", opts: `http.uri; content:"/a";`},
		{hdr: "alert tls any any -> any any", opts: `http.uri; content:"/a";`, err: "already set to tls"},
		{hdr: "alert tls any any -> any any", opts: `tls.sni; content:"example.com";`},
		{hdr: "alert tls any any -> any any", opts: `tls_sni; content:"example.com";`},
		{hdr: "alert dns any any -> any any", opts: `dns.query; content:"a"; dns.query; content:"b";`},
		{hdr: "alert dns any any -> any any", opts: `dns_query; content:"a";`},
		{hdr: "alert tls any any -> any any", opts: `ja3.hash; content:"e7d705a3286e19ea42f587b344ee6865";`},
		{hdr: "alert tls any any -> any any", opts: `ja3.hash; content:"e7d705";`, err: "md5-like"},
		{hdr: "alert tls any any -> any any", opts: `ja4.hash; content:"t13d1516h2_8daaf6152771_02713d6af862";`},
		{hdr: "alert http any any -> any any", opts: `http.host; content:"Example.com";`, err: "uppercase"},
		{hdr: "alert http any any -> any any", opts: `http.host; content:"example.com"; nocase;`, err: "nocase"},
		{hdr: "alert http any any -> any any", opts: `http.method; content:"GET ";`, err: "trailing space"},
		{hdr: "alert http any any -> any any", opts: `http.header.raw; content:"X";`, err: "without a flow direction"},
		{hdr: "alert http any any -> any any", opts: `flow:to_server; http.header.raw; content:"X";`},
		{hdr: "alert http any any -> any any", opts: `http.uri; to_lowercase; content:"abc";`},
		{hdr: "alert http any any -> any any", opts: `http.uri; to_lowercase; content:"ABC";`, err: "incompatible with to_lowercase"},
		{hdr: "alert http any any -> any any", opts: `http.uri; strip_whitespace; content:"a b";`, err: "incompatible with strip_whitespace"},
		{hdr: "alert http any any -> any any", opts: `to_lowercase; content:"abc";`, err: "transforms must follow a sticky buffer"},
		{hdr: "alert http any any -> any any", opts: `http.uri; to_lowercase; http.header; content:"a";`, err: "no matches following transform"},
		{hdr: "alert http any any -> any any", opts: `http.uri; to_lowercase;`, err: "didn't add matches"},
		{hdr: "alert http any any -> any any", opts: `http.uri; xor:"0d0a"; content:"a";`},
		{hdr: "alert http any any -> any any", opts: `http.uri; xor:"0d0"; content:"a";`, err: "xor key"},
		{hdr: "alert http any any -> any any", opts: `http.uri; pcrexform:"/a(.*)b/"; content:"a";`},
		{hdr: "alert http any any -> any any", opts: `http.uri; from_base64:bytes 4, offset 0, mode rfc4648; content:"a";`},
		{hdr: "alert http any any -> any any", opts: `http.uri; from_base64:bits 4; content:"a";`, err: "invalid from_base64 option"},
		{hdr: "alert http any any -> any any", opts: `file.data; content:"MZ";`},
		{hdr: "alert http any any -> any any", opts: `file_data; content:"MZ";`},
		{hdr: "alert http any any -> any any", opts: `file.data:to_client; content:"MZ";`},
		{hdr: "alert http any any -> any any", opts: `file.data:to_somewhere; content:"MZ";`, err: "only accepts to_server or to_client"},
		{hdr: "alert dns any any -> any any", opts: `file.data; content:"MZ";`, err: "cannot be used with protocol dns"},
		{hdr: "alert smtp any any -> any any", opts: `file.data; content:"MZ";`},
		{hdr: "alert tcp any any -> any any", opts: `content:"a"; base64_decode:bytes 10, offset 0, relative; base64_data; content:"b";`},
		{hdr: "alert tcp any any -> any any", opts: `base64_data; content:"b";`, err: "without preceding base64_decode"},
		{hdr: "alert tcp any any -> any any", opts: `content:"a"; base64_decode; base64_data; content:"b"; http.uri; content:"c";`, err: "cannot be reset after base64_data"},
		{hdr: "alert tcp any any -> any any", opts: `tcp.hdr; content:"a";`},
		{hdr: "alert tcp any any -> any any", opts: `pkt_data:1;`, err: "unexpected option"},
		{hdr: "alert http any any -> any any", opts: `http.uri:1;`, err: "unexpected option"},
		{hdr: "alert http any any -> any any", opts: `flow:to_server; http.uri; content:"/a"; http.stat_code; content:"200";`, err: "conflicting directions"},
		{hdr: "alert http any any -> any any", opts: `dsize:>10; http.uri; content:"a";`, err: "combines packet specific matches"},
		{hdr: "alert http any any -> any any", opts: `content:"a"; http_client_body; content:"b"; http_stat_msg;`, err: "conflicting directions"},
		{hdr: "alert http any any -> any any", opts: `http.uri; byte_math:bytes 2, offset 0, oper +, rvalue 1, result x, relative;`, err: "relative specified without previous pattern match"},
		{hdr: "alert http any any -> any any", opts: `content:"200"; http_stat_code; file_data; content:"MZ";`},
	})
}

func TestPayloadKeywords(t *testing.T) {
	runKeywordCases(t, []kwCase{
		{opts: `pcre:"/abc/i";`},
		{opts: `pcre:!"/abc/smxAEGOB";`},
		{opts: `pcre:/abc/;`},
		{opts: `pcre:"/a\/b/";`},
		{opts: `pcre:"/(?P<pkt_x>a)/, pkt:x";`},
		{opts: `pcre:"/abc/q";`, err: "unknown regex modifier 'q'"},
		{opts: `pcre:"abc";`, err: "pcre parse error"},
		{opts: `pcre:"/a(b/";`, err: "missing closing parenthesis"},
		{opts: `pcre:"/a[b/";`, err: "missing terminating ]"},
		{opts: `pcre:"/*a/";`, err: "quantifier does not follow"},
		{opts: `pcre:"/abc/R";`, err: "needs preceding match in the same buffer"},
		{opts: `content:"x"; pcre:"/abc/R";`},
		{hdr: "alert http any any -> any any", opts: `pcre:"/abc/U";`},
		{hdr: "alert http any any -> any any", opts: `pcre:"/abc/UR";`, err: "needs preceding match in the same buffer"},
		{hdr: "alert http any any -> any any", opts: `http.uri; pcre:"/abc/R";`},
		{hdr: "alert http any any -> any any", opts: `pcre:"/abc/UH";`, err: "only one pcre option to specify a buffer"},
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"a"; pcre:"/abc/H";`, err: "sticky buffer still set"},
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"a"; pcre:"/abc/U";`},
		{hdr: "alert http any any -> any any", opts: `pcre:"/Host/W";`, err: "uppercase"},
		{hdr: "alert http any any -> any any", opts: `pcre:"/\x41/W";`},
		{hdr: "alert dns any any -> any any", opts: `pcre:"/abc/U";`, err: "conflicting alprotos"},
		{opts: `pcre:"/abc/BU";`, err: "inconsistent with 'B'"},
		{opts: `isdataat:10;`},
		{opts: `isdataat:!1,relative;`},
		{opts: `content:"a"; isdataat:!1,relative;`},
		{opts: `content:"a"; isdataat:5,relative,rawbytes;`},
		{opts: `isdataat:70000;`, err: "isdataat out of range"},
		{opts: `isdataat:1,rawbytes;`, err: "parse error"},
		{opts: `isdataat:var;`, err: "Unknown byte_extract var"},
		{opts: `dsize:>10;`}, {opts: `dsize:10<>20;`}, {opts: `dsize:<=5;`}, {opts: `dsize:!5;`},
		{opts: `dsize:1<>2;`, err: "invalid integer condition"},
		{opts: `dsize:70000;`, err: "invalid integer condition"},
		{opts: `dsize:>10; dsize:<20;`, err: "2 or more dsizes"},
		{opts: `dsize:2; content:"abc";`, err: "exceeds dsize value 2"},
		{hdr: "alert http any any -> any any", opts: `http.uri; bsize:>10;`},
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"abcdef"; bsize:5;`, err: "exceeds bsize value: 5"},
		{hdr: "alert http any any -> any any", opts: `http.uri; content:"abcdef"; bsize:1<>4;`, err: "exceeds bsize range"},
		{opts: `bsize:10;`, err: "needs a sticky buffer"},
		{hdr: "alert http any any -> any any", opts: `urilen:10;`}, {hdr: "alert http any any -> any any", opts: `urilen:>10,raw;`},
		{hdr: "alert http any any -> any any", opts: `urilen:10,bad;`, err: "invalid urilen modifier"},
		{opts: `byte_test:4,>,100,0;`},
		{opts: `byte_test:4,!=,100,0,relative,little;`},
		{opts: `byte_test:4,!,100,0;`},
		{opts: `byte_test:2,&,0x80,0,bitmask 0xff80;`},
		{opts: `byte_test:10,=,1,0,string,dec;`},
		{opts: `byte_test:9,=,1,0;`, err: "more than 8 bytes without \"string\""},
		{opts: `byte_test:24,=,1,0,string;`, err: "more than 23 bytes"},
		{opts: `byte_test:4,=,1,0,hex;`, err: "base without \"string\""},
		{opts: `byte_test:4,~,1,0;`, err: "Invalid operator"},
		{opts: `byte_test:4,=,1,0,foo;`, err: "Unknown value"},
		{opts: `byte_test:4,=,1;`, err: "parse error"},
		{opts: `byte_test:x,=,1,0;`, err: "Unknown byte_extract var"},
		{opts: `byte_jump:4,0;`},
		{opts: `byte_jump:4,0,relative,multiplier 2,little,align,post_offset -4;`},
		{opts: `byte_jump:0,0,from_end,post_offset -8;`},
		{opts: `byte_jump:4,0,from_end,from_beginning;`, err: "cannot be mixed"},
		{opts: `byte_jump:4,0,sideways;`, err: "Unknown option"},
		{opts: `byte_jump:9,0;`, err: "more than 8 bytes"},
		{opts: `byte_extract:4,0,len; byte_test:4,>,len,0;`},
		{opts: `byte_extract:4,0,len,relative,little,multiplier 2,align 4;`},
		{opts: `byte_extract:4,0,len,string,hex;`},
		{opts: `byte_extract:15,0,len,string,hex;`, err: "more than 14 bytes"},
		{opts: `byte_extract:9,0,len;`, err: "more than 8 bytes"},
		{opts: `byte_extract:4,0,len,align 3;`, err: "align"},
		{opts: `byte_extract:4,0,len,hex;`, err: "string must be set first"},
		{opts: `byte_extract:4,0,len,string,big;`, err: "can't specify string and an endian"},
		{opts: `byte_extract:4,0;`, err: "invalid byte_extract values"},
		{opts: `byte_math:bytes 4, offset 0, oper +, rvalue 10, result sum;`},
		{opts: `byte_math:bytes 2, offset 0, oper <<, rvalue 1, result x, relative, endian little;`},
		{opts: `byte_math:bytes 5, offset 0, oper <<, rvalue 1, result x;`, err: "nbytes must be 1 through 4"},
		{opts: `byte_math:bytes 4, offset 0, oper %, rvalue 1, result x;`, err: "unknown oper"},
		{opts: `byte_math:bytes 4, offset 0, oper +, rvalue 1;`, err: "incorrect argument string"},
		{opts: `byte_math:bytes 4, offset 0, oper +, rvalue 1, result x, colour red;`, err: "unknown byte_math keyword"},
		{opts: `entropy:value >5.5;`}, {opts: `entropy:bytes 10, offset 2, value <7;`},
		{opts: `entropy:bytes 10;`, err: "entropy needs a value"},
		{opts: `content:"a"; asn1:bitstring_overflow, oversize_length 100;`},
		{opts: `asn1:bogus;`, err: "invalid asn1 option"},
		{hdr: "alert http any any -> any any", opts: `http.uri; dataset:isset,bad-uris;`},
		{hdr: "alert http any any -> any any", opts: `http.uri; dataset:maybe,bad-uris;`, err: "invalid dataset command"},
	})
}

func TestFlowKeywords(t *testing.T) {
	runKeywordCases(t, []kwCase{
		{opts: `flow:established,to_server;`}, {opts: `flow:from_client,established,no_stream;`},
		{opts: `flow:to_client;`}, {opts: `flow:stateless;`}, {opts: `flow:not_established,only_frag;`},
		{opts: `flow:ESTABLISHED;`},
		{opts: `flow:established,to_server,no_stream,no_frag;`, err: "parse error"},
		{opts: `flow:established,not_established;`, err: "already set"},
		{opts: `flow:to_server,to_client;`, err: "already set"},
		{opts: `flow:only_stream,no_stream;`, err: "already set"},
		{opts: `flow:sideways;`, err: "invalid flow option"},
		{opts: `flow:established; flow:to_server;`, err: "only one flow option"},
		{opts: `flow:only_stream; dsize:>5;`, err: "can't mix packet keywords with tcp-stream"},
		{hdr: "alert http1:request_line any any -> any any", opts: `flow:to_client;`, err: "has flow to_client but a hook to_server"},
		{hdr: "alert http any any => any any", opts: `flow:to_server;`, err: "cannot specify a flow direction"},
		{opts: `flowbits:set,foo;`}, {opts: `flowbits:isset,foo|bar;`}, {opts: `flowbits:noalert;`},
		{opts: `flowbits:toggle,foo;`}, {opts: `flowbits:unset,foo; flowbits:isnotset,bar;`},
		{opts: `flowbits:set;`, err: "needs a name"},
		{opts: `flowbits:noalert,foo;`, err: "takes no name"},
		{opts: `flowbits:flip,foo;`, err: "not supported"},
		{opts: `flowbits:set,foo bar;`, err: "spaces not allowed"},
		{opts: `flowbits:SET,foo;`, err: "not a valid setting"},
		{opts: `flowint:count,+,1;`}, {opts: `flowint:count,>=,10;`}, {opts: `flowint:count,isset;`},
		{opts: `flowint: ET.count, +, 1;`}, {opts: `flowint:count,=,other;`},
		{opts: `flowint:count,+;`, err: "needs a value"},
		{opts: `flowint:count,~,1;`, err: "not a valid setting"},
		{opts: `flowint:count,isset,5;`, err: "not a valid setting"},
		{opts: `xbits:set,foo,track ip_src;`}, {opts: `xbits:isset,foo,track ip_pair,expire 30;`},
		{opts: `xbits:set,foo,track tx;`}, {opts: `xbits:noalert;`},
		{opts: `xbits:set,foo;`, err: "needs a command, a name and a track"},
		{opts: `xbits:toggle,foo,track tx;`, err: "tx xbits only support set and isset"},
		{opts: `xbits:set,foo,track ip_both;`, err: "Invalid xbits tracker"},
		{opts: `xbits:set,foo,track ip_src,expire 0;`, err: "Invalid expire value"},
		{opts: `hostbits:set,foo;`}, {opts: `hostbits:isset,foo,dst;`},
		{opts: `hostbits:set,foo,both;`, err: "'both' not implemented"},
		{opts: `threshold:type limit, track by_src, count 1, seconds 60;`},
		{opts: `threshold: type both,track by_dst,seconds 60,count 5;`},
		{opts: `threshold:type backoff, track by_flow, count 1, multiplier 10;`},
		{opts: `threshold:type backoff, track by_src, count 1, multiplier 10;`, err: "only supported for track by_flow"},
		{opts: `threshold:type limit, track by_src, count 1;`, err: "parse error"},
		{opts: `threshold:type limit, track by_src, count 1, seconds x;`, err: "parse error"},
		{opts: `threshold:type limit, track by_src, count 1, count 2;`, err: "exactly one type, track, count and seconds"},
		{opts: `threshold:type limit, track by_src, count 1, seconds 6; threshold:type limit, track by_src, count 1, seconds 6;`, err: "multiple \"threshold\""},
		{opts: `detection_filter:track by_src, count 5, seconds 60;`},
		{opts: `detection_filter:track by_rule, count 5, seconds 60;`, err: "parse error"},
		{opts: `detection_filter:track by_src, count 5, seconds 60; threshold:type limit, track by_src, count 1, seconds 6;`, err: "are not allowed in the same rule"},
		{opts: `stream_size:server,<,5;`}, {opts: `stream_size:either,>=,100;`},
		{opts: `stream_size:server,~,5;`, err: "invalid stream_size modifier"},
		{opts: `app-layer-protocol:http;`}, {opts: `app-layer-protocol:!tls;`}, {opts: `app-layer-protocol:failed;`},
		{opts: `app-layer-protocol:nosuch;`, err: "unknown protocol"},
		// DetectAppLayerProtocolParse / HasConflicts (SV detect-app-layer-protocol-03/04/05)
		{opts: `app-layer-protocol:!http,final; app-layer-protocol:!tls,final;`},
		{opts: `app-layer-protocol:http1,original; app-layer-protocol:http2,final;`},
		{opts: `app-layer-protocol:http1,to_server; app-layer-protocol:ssh,to_client;`},
		{opts: `app-layer-protocol:http,direction; app-layer-protocol:tls,either;`},
		{opts: `app-layer-protocol:http,sideways;`, err: "unknown mode"},
		{opts: `app-layer-protocol:http, final;`, err: "unknown mode"},
		{opts: `app-layer-protocol:nosuch,final;`, err: "unknown protocol"},
		{opts: `app-layer-protocol:!unknown;`, err: "negation with protocol 'unknown'"},
		{opts: `app-layer-protocol:http,final; app-layer-protocol:tls,final;`, err: "can't mix"},
		{opts: `app-layer-protocol:!http,final; app-layer-protocol:tls,final;`, err: "can't mix"},
		{opts: `app-layer-protocol:!http,final; app-layer-protocol:!http,final;`, err: "can't mix"},
		{opts: `app-layer-protocol:!http; app-layer-protocol:!http,final;`},
		{hdr: "alert http any any -> any any", opts: `app-layer-protocol:http;`, err: "already have the rule match on an app layer protocol"},
		{hdr: "alert pkthdr any any -> any any", opts: `decode-event:ipv4.pkt_too_small;`},
		{hdr: "alert pkthdr any any -> any any", opts: `decode-event:IPV4.PKT_TOO_SMALL;`},
		{hdr: "alert pkthdr any any -> any any", opts: `decode-event:ipv4.nosuch;`, err: "unknown event name"},
		{hdr: "alert tcp any any -> any any", opts: `stream-event:3whs_synack_resend_with_different_ack;`},
		{hdr: "alert http any any -> any any", opts: `app-layer-event:http.request_field_too_long;`},
		{hdr: "alert ip any any -> any any", opts: `app-layer-event:applayer_mismatch_protocol_both_directions;`},
		{hdr: "alert ip any any -> any any", opts: `app-layer-event:no_such_event;`, err: "packet based event"},
		{hdr: "alert ip any any -> any any", opts: `app-layer-event:nosuch.event;`, err: "unknown protocol"},
		{opts: `iprep:src,badhosts,>,50;`},
		{opts: `iprep:src,badhosts,>,500;`, err: "invalid iprep value"},
	})
}

func TestHeaderKeywords(t *testing.T) {
	runKeywordCases(t, []kwCase{
		{opts: `flags:S;`}, {opts: `flags:S,12;`}, {opts: `flags: S,CE;`}, {opts: `tcp.flags:!A;`}, {opts: `flags:+SA;`},
		{opts: `flags:*FPU;`}, {opts: `flags:0;`},
		{opts: `flags:X;`, err: "invalid tcp flags"}, {opts: `flags:s;`, err: "invalid tcp flags"},
		{opts: `flags:S,0;`, err: "invalid tcp flags"},
		{opts: `ttl:64;`}, {opts: `ttl:<5;`}, {opts: `ttl:300;`, err: "invalid integer condition"},
		{hdr: "alert icmp any any -> any any", opts: `itype:8; icode:0;`},
		{hdr: "alert icmp any any -> any any", opts: `itype:3<>6;`},
		{hdr: "alert icmp any any -> any any", opts: `itype:256;`, err: "invalid integer condition"},
		{hdr: "alert icmp any any -> any any", opts: `icmp_id:512; icmp_seq:1;`},
		{hdr: "alert icmp any any -> any any", opts: `icmp_id:70000;`, err: "invalid icmp_id"},
		{opts: `ip_proto:41;`}, {opts: `ip_proto:!TCP;`}, {opts: `ip_proto:GRE;`}, {opts: `ip_proto:>200;`},
		{opts: `ip_proto:256;`, err: "invalid ip_proto"}, {opts: `ip_proto:nosuch;`, err: "unknown protocol name"},
		{opts: `ipopts:rr;`}, {opts: `ipopts:any;`}, {opts: `ipopts:bogus;`, err: "unknown IP option"},
		{opts: `fragbits:M;`}, {opts: `fragbits:!D;`}, {opts: `fragbits:+MR;`}, {opts: `fragbits:X;`, err: "invalid fragbits"},
		{opts: `fragoffset:0;`}, {opts: `fragoffset:>100;`}, {opts: `fragoffset:x;`, err: "invalid fragoffset"},
		{opts: `id:1234;`}, {opts: `id:70000;`, err: "invalid id"},
		{opts: `tos:8;`}, {opts: `tos:!8;`}, {opts: `tos:x1F;`}, {opts: `tos:256;`, err: "invalid tos"},
		{opts: `sameip;`},
		{opts: `seq:0; ack:1; window:55808;`}, {opts: `tcp.seq:12;`}, {opts: `window:!0;`}, {opts: `window:70000;`, err: "invalid"},
		{opts: `tcp.mss:<536;`}, {opts: `tcp.wscale:>14;`},
		{opts: `ipv4-csum:valid;`}, {opts: `tcpv4-csum:invalid;`}, {opts: `icmpv4-csum:Valid;`}, {opts: `ipv4-csum:"valid";`, err: "quotes on ipv4-csum keyword"}, {opts: `udpv6-csum:maybe;`, err: "expected valid or invalid"},
		{opts: `vlan.id:100;`}, {opts: `vlan.layers:>1;`}, {opts: `vlan.id:5000;`, err: "invalid integer condition"},
		{opts: `geoip:src,RU,CN;`}, {opts: `geoip:up,RU;`, err: "invalid geoip direction"},
		{opts: `flow.age:>10;`}, {opts: `flow.pkts:toserver,>10;`},
	})
}

func TestAppKeywords(t *testing.T) {
	runKeywordCases(t, []kwCase{
		{hdr: "alert tls any any -> any any", opts: `tls.version:1.2;`},
		{hdr: "alert tls any any -> any any", opts: `ssl_state:client_hello;`},
		{hdr: "alert tls any any -> any any", opts: `tls.subject:"CN=*.example.com";`},
		{hdr: "alert tls any any -> any any", opts: `tls.subject:CN=x;`, err: "must be double quoted"},
		{hdr: "alert tls any any -> any any", opts: `tls_cert_expired;`},
		{hdr: "alert tls any any -> any any", opts: `tls.store;`},
		{hdr: "alert http any any -> any any", opts: `tls.version:1.2;`, err: "already set to http"},
		{hdr: "alert dns any any -> any any", opts: `dns.opcode:0; dns.rrtype:TXT;`},
		{hdr: "alert ssh any any -> any any", opts: `ssh_proto; content:"2.0";`},
		{hdr: "alert http any any -> any any", opts: `filename:"a.exe"; fileext:"exe"; filemagic:"PE32"; filesize:>100; filestore;`},
		{hdr: "alert http any any -> any any", opts: `filemd5:md5.list;`},
		{hdr: "alert dns any any -> any any", opts: `filename:"a.exe";`, err: "cannot be used with protocol dns"},
		{hdr: "alert http2 any any -> any any", opts: `filename:"a.exe";`, err: "doesn't support file name matching"},
		{hdr: "alert dcerpc any any -> any any", opts: `dce_iface:4b324fc8-1670-01d3-1278-5a47bf6ee188; dce_opnum:0;`},
		{hdr: "alert smb any any -> any any", opts: `dce_stub_data; content:"a";`},
		{hdr: "alert ftp any any -> any any", opts: `ftpbounce;`},
		{hdr: "alert tcp any any -> any any", opts: `content:"a"; prefilter;`},
		{hdr: "alert tcp any any -> any any", opts: `prefilter;`, err: "prefilter needs preceding match"},
		{hdr: "config http any any -> any any", opts: `config:logging disable, type tx, scope tx;`},
		{hdr: "alert tcp any any -> any any", opts: `nfq_set_mark:0x1/0xff;`},
		{hdr: "alert http any any -> any any", opts: `lua:script.lua;`},
	})
}

func TestKeywordRegistry(t *testing.T) {
	kws := Keywords()
	if len(kws) < 300 {
		t.Fatalf("only %d keywords", len(kws))
	}
	seen := map[string]bool{}
	for i, k := range kws {
		if i > 0 && kws[i-1].Name >= k.Name {
			t.Fatalf("not sorted at %s", k.Name)
		}
		if k.setup == nil || k.Kind == 0 || k.Desc == "" {
			t.Errorf("keyword %s incomplete", k.Name)
		}
		for _, n := range append([]string{k.Name}, k.Aliases...) {
			if seen[n] {
				t.Errorf("name %s registered twice", n)
			}
			seen[n] = true
			if Lookup(strings.ToUpper(n)) != k {
				t.Errorf("Lookup(%s)", n)
			}
		}
	}
	for _, name := range []string{"msg", "sid", "rev", "gid", "classtype", "priority", "reference", "metadata",
		"target", "requires", "noalert", "tag", "content", "nocase", "depth", "offset", "distance", "within",
		"rawbytes", "startswith", "endswith", "fast_pattern", "isdataat", "dsize", "bsize", "pcre", "byte_test",
		"byte_jump", "byte_extract", "byte_math", "entropy", "replace", "http.uri", "http_uri", "http.header",
		"file.data", "dns.query", "tls.sni", "ja3.hash", "ja4.hash", "pkt_data", "flow", "flowbits", "flowint",
		"xbits", "hostbits", "flags", "ttl", "itype", "icode", "icmp_id", "icmp_seq", "ip_proto", "ipopts",
		"fragbits", "fragoffset", "id", "tos", "sameip", "seq", "ack", "window", "tcp.mss", "stream_size",
		"app-layer-protocol", "threshold", "detection_filter", "vlan.id"} {
		if Lookup(name) == nil {
			t.Errorf("keyword %s missing", name)
		}
	}
	if k := Lookup("flowbits"); !k.IsIPOnlyCompatible() || !k.IsFirewallSupported() {
		t.Error("flowbits flags")
	}
	if k := Lookup("http_uri"); k.Kind != KindModifier || k.Buffer != "http.uri" {
		t.Error("http_uri")
	}
	if k := Lookup("tls_sni"); k.Name != "tls.sni" || k.Kind != KindStickyBuffer {
		t.Error("tls_sni alias")
	}
}

// TestPrefilterTarget checks that the prefilter keyword names the match before it, of any
// list (Suricata's DetectGetLastSM), skipping keywords that add no match.
func TestPrefilterTarget(t *testing.T) {
	for _, tc := range []struct{ opts, want string }{
		{`flags:S; dsize:0; prefilter;`, "dsize"},
		{`flags:S; prefilter; dsize:0;`, "tcp.flags"},
		{`dsize:0; msg:"x"; prefilter;`, "dsize"},
		{`content:"abc"; nocase; prefilter; flags:S;`, "content"},
		{`flags:S; content:"abc"; prefilter;`, "content"},
		{`content:"abc"; flags:S; prefilter;`, "tcp.flags"},
		{`flowbits:isset,a; prefilter;`, "flowbits"},
		{`flags:S;`, ""},
	} {
		r, err := Parse("alert tcp any any -> any any (" + tc.opts + " sid:1;)")
		if err != nil {
			t.Fatalf("%s: %v", tc.opts, err)
		}
		got := ""
		if r.Prefilter != nil {
			got = r.Prefilter.Name
		}
		if got != tc.want {
			t.Errorf("%s: prefilter on %q, want %q", tc.opts, got, tc.want)
		}
	}
}

// http.response_body makes the rule to_client though file.data exists in both directions
// (DetectHttpServerBodySetupSticky); the http_server_body modifier and file.data do not
// (SV http-post-data-decompression: no alert on the request body).
func TestResponseBodyDirection(t *testing.T) {
	for _, c := range []struct {
		opts   string
		ts, tc bool
	}{
		{`http.response_body; content:"name";`, false, true},
		{`flow:established,to_client; http.response_body; content:"name";`, false, true},
		{`content:"name"; http_server_body;`, true, true},
		{`file.data; content:"name";`, true, true},
	} {
		r, err := Parse(`alert http any any -> any any (` + c.opts + ` sid:1;)`)
		if err != nil {
			t.Fatalf("%s: %v", c.opts, err)
		}
		if r.ToServer != c.ts || r.ToClient != c.tc {
			t.Errorf("%s: to_server %v to_client %v, want %v %v", c.opts, r.ToServer, r.ToClient, c.ts, c.tc)
		}
	}
}
