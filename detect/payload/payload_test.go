package payload

import (
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/rules"
)

func mustProgram(t testing.TB, opts string) *Program {
	t.Helper()
	r, err := rules.Parse("alert tcp any any -> any any (" + opts + " sid:1;)")
	if err != nil {
		t.Fatalf("parse %q: %v", opts, err)
	}
	if len(r.Buffers) == 0 {
		t.Fatalf("no buffer in %q", opts)
	}
	p, err := Compile(r.Buffers[0])
	if err != nil {
		t.Fatalf("compile %q: %v (%s)", opts, err, Reason(err))
	}
	return p
}

type tc struct {
	name string
	opts string
	buf  string
	want bool
}

func runCases(t *testing.T, cases []tc) {
	t.Helper()
	st := NewState()
	for _, c := range cases {
		p := mustProgram(t, c.opts)
		if got := p.Inspect([]byte(c.buf), st); got != c.want {
			t.Errorf("%s: %s on %q = %v, want %v", c.name, c.opts, c.buf, got, c.want)
		}
	}
}

var buf32 = strings.Repeat("A", 32)

func TestIsDataAt(t *testing.T) {
	runCases(t, []tc{
		{"abs 31", `isdataat:31;`, buf32, true},
		{"abs 32", `isdataat:32;`, buf32, false},
		{"abs !32", `isdataat:!32;`, buf32, true},
		{"rel 32", `isdataat:32,relative;`, buf32, true},
		{"rel 33", `isdataat:33,relative;`, buf32, false},
		{"rel after content", `content:"AAAA"; isdataat:28,relative;`, buf32, true},
		{"rel after content 29", `content:"AAAA"; isdataat:29,relative;`, buf32, false},
		{"neg rel", `content:"B"; isdataat:!2,relative;`, "xxBx", true},
		{"neg rel 1", `content:"B"; isdataat:!1,relative;`, "xxBx", false},
		{"neg rel endswith form", `content:"B"; isdataat:!1,relative;`, "xxB", true},
		{"var", `byte_extract:1,0,n; isdataat:n;`, "\x03abc", true},
		{"var out", `byte_extract:1,0,n; isdataat:n;`, "\x04abc", false},
	})
}

func TestContent(t *testing.T) {
	runCases(t, []tc{
		{"plain", `content:"abc";`, "xxabcxx", true},
		{"absent", `content:"abd";`, "xxabcxx", false},
		{"nocase", `content:"ABC"; nocase;`, "xxaBcxx", true},
		{"case", `content:"ABC";`, "xxaBcxx", false},
		{"nocase hex", `content:"|de ad|"; nocase;`, "x\xde\xadx", true},
		{"depth ok", `content:"abc"; depth:5;`, "xxabcxx", true},
		{"depth short", `content:"abc"; depth:4;`, "xxabcxx", false},
		{"offset ok", `content:"abc"; offset:2;`, "xxabcxx", true},
		{"offset past", `content:"abc"; offset:3;`, "xxabcxx", false},
		{"offset depth window", `content:"abc"; offset:3; depth:3;`, "xxxabcx", true},
		{"offset depth window miss", `content:"abc"; offset:3; depth:3;`, "xxxxabc", false},
		{"depth before offset", `content:"abc"; depth:3; offset:3;`, "xxxabcx", true},
		{"startswith", `content:"abc"; startswith;`, "abcxx", true},
		{"startswith miss", `content:"abc"; startswith;`, "xabcx", false},
		{"endswith", `content:"abc"; endswith;`, "xxabc", true},
		{"endswith miss", `content:"abc"; endswith;`, "xxabcx", false},
		{"endswith later occurrence", `content:"abc"; endswith;`, "abcxxabc", true},
		{"distance", `content:"a"; content:"b"; distance:2;`, "axbxxb", true},
		{"distance miss", `content:"a"; content:"b"; distance:2;`, "axb", false},
		{"negative distance", `content:"bc"; content:"ab"; distance:-3;`, "abc", true},
		{"negative distance clamp", `content:"bc"; content:"ab"; distance:-30;`, "abc", true},
		{"within", `content:"a"; content:"b"; within:3;`, "axxb", true},
		{"within miss", `content:"a"; content:"b"; within:3;`, "axxxb", false},
		{"distance within", `content:"a"; content:"b"; distance:2; within:1;`, "axxb", true},
		{"distance within miss", `content:"a"; content:"b"; distance:2; within:1;`, "axb", false},
		{"empty buffer", `content:"a";`, "", false},
		{"empty buffer negated", `content:!"a";`, "", true},
	})
}

func TestNegatedContent(t *testing.T) {
	runCases(t, []tc{
		{"neg absent", `content:!"evil";`, "good stuff", true},
		{"neg present", `content:!"evil";`, "an evil thing", false},
		{"neg with pos", `content:"GET"; content:!"admin";`, "GET /index", true},
		{"neg with pos present", `content:"GET"; content:!"admin";`, "GET /admin", false},
		{"neg window", `content:"a"; content:!"x"; distance:0; within:5;`, "a12345x", true},
		{"neg window hit", `content:"a"; content:!"x"; distance:0; within:5;`, "a12x45", false},
		// the second "a" has no x after it: backtracking finds it
		{"neg window backtrack", `content:"a"; content:!"x"; distance:0; within:2;`, "axa12", true},
		{"neg depth", `content:!"x"; depth:3;`, "abcx", true},
		{"neg depth hit", `content:!"x"; depth:4;`, "abcx", false},
		{"neg offset", `content:!"x"; offset:2;`, "xbcd", true},
	})
}

func TestBacktracking(t *testing.T) {
	runCases(t, []tc{
		{"reference example", `content:"a"; content:"b"; distance:0; within:1;`, "axxab", true},
		{"no occurrence", `content:"a"; content:"b"; distance:0; within:1;`, "axxacb", false},
		{"three level", `content:"a"; content:"b"; within:2; content:"c"; within:2;`, "abxaxbc abc", true},
		{"byte_test relative retry", `content:"k"; byte_test:1,=,0x37,0,relative;`, "k1k2k7", true},
		{"isdataat relative retry", `content:"k"; content:"z"; within:2; isdataat:2,relative;`, "kz kz..", true},
		// distance only: no re-search of the previous content (DISTANCE_NEXT only)
		{"distance only no retry", `content:"a"; content:"b"; distance:0; content:"c"; within:1;`, "abxbc", true},
		{"pcre retry", `pcre:"/k./"; content:"7"; within:1;`, "k1xk27k3k77", true},
		{"pcre retry miss", `pcre:"/k./"; content:"7"; within:1;`, "k1xk2", false},
	})
}

func TestRecursionLimit(t *testing.T) {
	p := mustProgram(t, `content:"a"; content:"b"; distance:0; within:1;`)
	st := NewState()
	buf := []byte(strings.Repeat("a", 5000) + "b")
	// every retry of "a" evaluates "b" once: 5000 a's exceed the default limit of 3000.
	if p.Inspect(buf, st) {
		t.Fatal("match beyond the default recursion limit")
	}
	if st.Recursions != 3000 {
		t.Fatalf("recursions %d", st.Recursions)
	}
	if !p.Inspect([]byte(strings.Repeat("a", 1400)+"b"), st) {
		t.Fatal("no match within the default limit")
	}
}

func TestRecursionLimitHit(t *testing.T) {
	p := mustProgram(t, `content:"a"; content:"b"; distance:0; within:1;`)
	st := NewState()
	old := RecursionLimit
	defer func() { RecursionLimit = old }()
	RecursionLimit = 100
	buf := []byte(strings.Repeat("a", 200) + "b")
	if p.Inspect(buf, st) {
		t.Fatal("match found beyond the recursion limit")
	}
	if st.Recursions != 100 {
		t.Fatalf("recursions %d", st.Recursions)
	}
	buf = []byte(strings.Repeat("a", 40) + "b")
	if !p.Inspect(buf, st) {
		t.Fatal("no match within the limit")
	}
}

func TestByteTest(t *testing.T) {
	runCases(t, []tc{
		{"eq big", `byte_test:2,=,0x0102,0;`, "\x01\x02", true},
		{"eq little", `byte_test:2,=,0x0201,0,little;`, "\x01\x02", true},
		{"lt", `byte_test:1,<,5,0;`, "\x04", true},
		{"lt no", `byte_test:1,<,5,0;`, "\x05", false},
		{"gt", `byte_test:1,>,5,0;`, "\x06", true},
		{"le", `byte_test:1,<=,5,0;`, "\x05", true},
		{"ge", `byte_test:1,>=,5,0;`, "\x04", false},
		{"and", `byte_test:1,&,0x80,0;`, "\x81", true},
		{"and no", `byte_test:1,&,0x80,0;`, "\x7f", false},
		{"xor", `byte_test:1,^,0x7f,0;`, "\x7f", false},
		{"negated", `byte_test:1,!=,5,0;`, "\x06", true},
		{"negated eq", `byte_test:1,!=,5,0;`, "\x05", false},
		{"string dec", `byte_test:3,=,123,0,string,dec;`, "123x", true},
		{"string dec partial", `byte_test:4,=,12,0,string,dec;`, "12ab", true},
		{"string hex", `byte_test:2,=,255,0,string,hex;`, "ff", true},
		{"string oct", `byte_test:3,=,8,0,string,oct;`, "010", true},
		{"string auto hex", `byte_test:4,=,16,0,string;`, "0x10", true},
		{"string no digits", `byte_test:2,=,0,0,string,dec;`, "ab", false},
		{"out of buffer", `byte_test:4,=,0,0;`, "\x00\x00\x00", false},
		{"relative", `content:"X"; byte_test:1,=,7,1,relative;`, "aX.\x07", true},
		{"relative negative offset", `content:"XY"; byte_test:1,=,0x58,-2,relative;`, "aXY", true},
		{"bitmask", `byte_test:2,=,3,0,bitmask 0x0f00;`, "\x03\xff", true},
		{"absolute negative", `byte_test:1,=,0,-1;`, "\x00", false},
	})
}

func TestByteJump(t *testing.T) {
	runCases(t, []tc{
		{"simple", `byte_jump:1,0; content:"Z"; within:1;`, "\x02abZ", true},
		{"simple miss", `byte_jump:1,0; content:"Z"; within:1;`, "\x01abZ", false},
		{"multiplier", `byte_jump:1,0,multiplier 2; content:"Z"; within:1;`, "\x02abcdZ", true},
		{"align", `byte_jump:1,0,align; content:"Z"; within:1;`, "\x02abcdZ", true},
		{"align miss", `byte_jump:1,0,align; content:"Z"; within:1;`, "\x02abZ", false},
		{"post_offset", `byte_jump:1,0,post_offset 2; content:"Z"; within:1;`, "\x01abcZ", true},
		{"post_offset miss", `byte_jump:1,0,post_offset 2; content:"Z"; within:1;`, "\x01abZ", false},
		{"post_offset negative", `byte_jump:1,0,post_offset -2; content:"a"; within:1;`, "\x02abZ", true},
		{"from_beginning", `byte_jump:1,1,from_beginning; content:"Z"; within:1;`, "x\x03bZ", true},
		{"from_end", `byte_jump:0,0,from_end,post_offset -2; content:"YZ"; within:2;`, "abcYZ", true},
		{"from_end miss", `byte_jump:0,0,from_end,post_offset -3; content:"YZ"; within:2;`, "abcYZ", false},
		{"from_end miss2", `byte_jump:0,0,from_end,post_offset -4; content:"YZ"; within:2;`, "abcYZ", false},
		{"beyond", `byte_jump:1,0; content:"Z"; within:1;`, "\x09Z", false},
		{"to end ok", `byte_jump:1,0; isdataat:!1,relative;`, "\x01Z", true},
		{"string", `byte_jump:2,0,string,dec; content:"Z"; within:1;`, "03abcZ", true},
		{"relative", `content:"L"; byte_jump:1,0,relative; content:"Z"; within:1;`, "L\x01aZ", true},
		{"before start resets", `byte_jump:1,0,post_offset -100; content:"|05|"; within:1;`, "\x05ab", true},
	})
}

func TestByteExtract(t *testing.T) {
	runCases(t, []tc{
		{"into distance", `byte_extract:1,0,len; content:"Z"; distance:len; within:1;`, "\x02abZ", true},
		{"into distance miss", `byte_extract:1,0,len; content:"Z"; distance:len; within:1;`, "\x01abZ", false},
		{"into depth", `byte_extract:1,0,d; content:"Z"; depth:d;`, "\x03aZ", true},
		{"into depth miss", `byte_extract:1,0,d; content:"Z"; depth:d;`, "\x02aZ", false},
		{"into offset", `byte_extract:1,0,o; content:"Z"; offset:o;`, "\x02Za", false},
		{"into byte_test", `byte_extract:1,0,v; byte_test:1,=,v,1;`, "\x07\x07", true},
		{"into byte_test miss", `byte_extract:1,0,v; byte_test:1,=,v,1;`, "\x07\x08", false},
		{"string", `byte_extract:2,0,v,string,dec; byte_test:1,=,v,2;`, "12\x0c", true},
		{"little", `byte_extract:2,0,v,little; byte_test:2,=,v,2;`, "\x01\x02\x02\x01", true},
		{"multiplier", `byte_extract:1,0,v,multiplier 3; byte_test:1,=,v,1;`, "\x02\x06", true},
		{"align", `byte_extract:1,0,v,align 4; byte_test:1,=,v,1;`, "\x05\x08", true},
		{"relative", `content:"H"; byte_extract:1,0,v,relative; content:"Z"; distance:v; within:1;`, "xH\x01aZ", true},
		{"too short", `byte_extract:4,0,v;`, "\x01", false},
		{"into byte_jump", `byte_extract:1,0,n; byte_jump:n,1; content:"Z"; within:1;`, "\x01\x02abZ", true},
	})
}

func TestByteMath(t *testing.T) {
	runCases(t, []tc{
		{"add", `byte_math:bytes 1,offset 0,oper +,rvalue 2,result r; byte_test:1,=,r,1;`, "\x03\x05", true},
		{"sub", `byte_math:bytes 1,offset 0,oper -,rvalue 2,result r; byte_test:1,=,r,1;`, "\x03\x01", true},
		{"mul", `byte_math:bytes 1,offset 0,oper *,rvalue 2,result r; byte_test:1,=,r,1;`, "\x03\x06", true},
		{"div", `byte_math:bytes 1,offset 0,oper /,rvalue 2,result r; byte_test:1,=,r,1;`, "\x07\x03", true},
		{"div0", `byte_math:bytes 1,offset 0,oper /,rvalue 0,result r;`, "\x07\x03", false},
		{"shl", `byte_math:bytes 1,offset 0,oper <<,rvalue 1,result r; byte_test:1,=,r,1;`, "\x03\x06", true},
		{"shr", `byte_math:bytes 1,offset 0,oper >>,rvalue 1,result r; byte_test:1,=,r,1;`, "\x06\x03", true},
		{"rvalue var", `byte_extract:1,0,x; byte_math:bytes 1,offset 1,oper +,rvalue x,result r; byte_test:1,=,r,2;`, "\x01\x02\x03", true},
		{"into within", `content:"Q"; byte_math:bytes 1,offset 0,oper +,rvalue 1,result r,relative; content:"Z"; within:r;`, "Q\x01Z", true},
		{"string", `byte_math:bytes 2,offset 0,oper +,rvalue 1,result r,string dec; byte_test:1,=,r,2;`, "10\x0b", true},
		{"bitmask", `byte_math:bytes 1,offset 0,oper +,rvalue 0,result r,bitmask 0xf0; byte_test:1,=,r,1;`, "\x35\x03", true},
		{"nbytes 8 no string refused at runtime", `byte_math:bytes 8,offset 0,oper +,rvalue 0,result r;`, "12345678", false},
	})
}

func TestPCRE(t *testing.T) {
	runCases(t, []tc{
		{"simple", `pcre:"/a.c/";`, "xxabcx", true},
		{"caseless", `pcre:"/ABC/i";`, "xxabcx", true},
		{"case", `pcre:"/ABC/";`, "xxabcx", false},
		{"dot no newline", `pcre:"/a.c/";`, "a\nc", false},
		{"dotall", `pcre:"/a.c/s";`, "a\nc", true},
		{"multiline", `pcre:"/^foo/m";`, "x\nfoo", true},
		{"no multiline", `pcre:"/^foo/";`, "x\nfoo", false},
		{"dollar final newline", `pcre:"/foo$/";`, "foo\n", true},
		{"dollar E", `pcre:"/foo$/E";`, "foo\n", false},
		{"extended", `pcre:"/a b c # comment/x";`, "abc", true},
		{"anchored", `pcre:"/bc/A";`, "abc", false},
		{"anchored ok", `pcre:"/ab/A";`, "abc", true},
		{"ungreedy", `pcre:"/a.*b/G"; content:"c"; distance:0; within:1;`, "a1b c a2bc", true},
		{"relative", `content:"X"; pcre:"/^Y/R";`, "aXYz", true},
		{"relative miss", `content:"X"; pcre:"/^Z/R";`, "aXYZ", false},
		{"negated", `content:"a"; pcre:!"/evil/";`, "a good", true},
		{"negated hit", `content:"a"; pcre:!"/evil/";`, "a evil", false},
		{"high bytes dot", `pcre:"/^.{3}$/s";`, "\xff\xfe\x80", true},
		{"high bytes class", `pcre:"/[\x80-\xff]{2}Z/";`, "a\x81\xffZ", true},
		{"high bytes hex", `pcre:"/\xff\x00/";`, "\x01\xff\x00", true},
		{"high byte offset", `pcre:"/\xff/"; content:"Z"; within:1;`, "\x80\x80\xffZ", true},
		{"backreference (regexp2)", `pcre:"/(ab)\1/";`, "xabab", true},
		{"lookahead (regexp2)", `pcre:"/foo(?!bar)/";`, "foobar foobaz", true},
		{"lookahead miss", `pcre:"/foo(?!bar)/";`, "foobar", false},
		{"named backref", `pcre:"/(?P<q>[\x22\x27])x(?P=q)/";`, "a'x'", true},
		{"regexp2 high bytes relative", `pcre:"/(.)\1/"; content:"Z"; within:1;`, "\xfe\xfe\xff\xffZ", true},
		{"space class", `pcre:"/a\sb/";`, "a\vb", true},
		{"capture ignored", `pcre:"/u=(\w+)/,flow:user";`, "u=bob", true},
		{"big repeat (regexp2)", `pcre:"/^A{1,2000}$/";`, "AAA", true},
	})
}

func TestBsize(t *testing.T) {
	for _, c := range []struct {
		opts string
		buf  string
		want bool
	}{
		{`http.uri; bsize:5;`, "abcde", true},
		{`http.uri; bsize:5;`, "abcd", false},
		{`http.uri; bsize:>3; content:"b";`, "abcd", true},
		{`http.uri; bsize:2<>5;`, "abcd", true},
		{`http.uri; bsize:2<>5;`, "abcde", false},
		{`http.uri; content:"x"; bsize:<3;`, "x", true},
	} {
		r, err := rules.Parse("alert http any any -> any any (" + c.opts + " sid:1;)")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(r.Buffers[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Inspect([]byte(c.buf), NewState()); got != c.want {
			t.Errorf("%s on %q = %v", c.opts, c.buf, got)
		}
	}
}

func TestUnsupported(t *testing.T) {
	for _, opts := range []string{
		`content:"a"; byte_test:1,=,1,0,relative,dce;`,
		`content:"a"; entropy:value >5;`,
	} {
		r, err := rules.Parse("alert tcp any any -> any any (" + opts + " sid:1;)")
		if err != nil {
			t.Fatalf("%s: %v", opts, err)
		}
		var lastErr error
		for _, b := range r.Buffers {
			if _, err := Compile(b); err != nil {
				lastErr = err
			}
		}
		if lastErr == nil || !strings.HasSuffix(lastErr.Error(), " is not supported yet") || !strings.HasPrefix(lastErr.Error(), "keyword ") {
			t.Errorf("%s: err %v", opts, lastErr)
		}
	}
	if !Supports("content") || Supports("entropy") {
		t.Error("Supports")
	}
}

func TestZeroAlloc(t *testing.T) {
	buf := []byte(strings.Repeat("GET /index.html HTTP/1.1\r\nHost: example\r\n", 30))
	st := NewState()
	for _, opts := range []string{
		`content:"GET"; depth:3; content:"Host|3a|"; distance:0; content:"example"; within:20; nocase;`,
		`content:"a"; content:"b"; distance:0; within:1;`,
		`byte_extract:1,0,v; byte_test:1,>,v,1; byte_jump:1,2,relative; isdataat:1,relative;`,
		`content:!"zzz"; byte_math:bytes 2,offset 0,oper +,rvalue 1,result r; content:"Host"; distance:r;`,
		`pcre:"/Host: \w+/";`, // Match path (no positions needed)
	} {
		p := mustProgram(t, opts)
		n := testing.AllocsPerRun(100, func() { p.Inspect(buf, st) })
		if n != 0 {
			t.Errorf("%s: %v allocs", opts, n)
		}
	}
}

func BenchmarkContentChain(b *testing.B) {
	payload := []byte(strings.Repeat("x", 1300) + "POST /login.php HTTP/1.1\r\nHost: example.com\r\nUser-Agent: Mozilla\r\n" + strings.Repeat("y", 80))
	payload = payload[:1460]
	p := mustProgram(b, `content:"POST"; content:"/login.php"; distance:1; within:10; content:"Host|3a 20|"; distance:0; content:"user-agent"; nocase; distance:0;`)
	st := NewState()
	if !p.Inspect(payload, st) {
		b.Fatal("no match")
	}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		p.Inspect(payload, st)
	}
}

func BenchmarkContentMiss(b *testing.B) {
	payload := []byte(strings.Repeat("GET /abc ", 200))[:1460]
	p := mustProgram(b, `content:"GET"; content:"evil"; within:10;`)
	st := NewState()
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		p.Inspect(payload, st)
	}
}

func BenchmarkPCRE(b *testing.B) {
	payload := []byte(strings.Repeat("x", 1300) + "POST /login.php HTTP/1.1\r\nHost: example.com\r\n" + strings.Repeat("\xff", 200))[:1460]
	for _, c := range []struct{ name, opts string }{
		{"regexp", `pcre:"/Host\x3a\s+[a-z]+\.com/i";`},
		{"regexp2", `pcre:"/Host\x3a\s+(?=[a-z]+\.com)/i";`},
	} {
		p := mustProgram(b, c.opts)
		st := NewState()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				p.Inspect(payload, st)
			}
		})
	}
}

func TestPCREHostileBounded(t *testing.T) {
	p := mustProgram(t, `pcre:"/^(a+)+\1x/";`)
	if p.Engines()[0] != EngineRegexp2 {
		t.Fatal("want regexp2")
	}
	buf := []byte(strings.Repeat("a", 5000))
	start := time.Now()
	if p.Inspect(buf, NewState()) {
		t.Fatal("match")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

// TestPCREPacketBudget: once a packet's regexp2 time is spent, its further regexp2
// evaluations are matching errors (no match, negated or not); the next packet starts afresh.
// Go's regexp expressions are not affected.
func TestPCREPacketBudget(t *testing.T) {
	backref := mustProgram(t, `pcre:"/(ab)\1/";`)  // a backreference: regexp2
	negated := mustProgram(t, `pcre:!"/(zz)\1/";`) // negated, regexp2
	plain := mustProgram(t, `pcre:"/abab/";`)      // Go's regexp
	st := NewState()
	buf := []byte("xxababyy")
	st.StartPacket()
	if !backref.Inspect(buf, st) || !negated.Inspect(buf, st) || !plain.Inspect(buf, st) {
		t.Fatal("no match within the budget")
	}
	st.rx.Spent = PCREPacketBudget
	hits := st.PCREBudgetHits
	if backref.Inspect(buf, st) || negated.Inspect(buf, st) {
		t.Error("a regexp2 expression matched after the packet's budget was spent")
	}
	if st.PCREBudgetHits != hits+2 {
		t.Errorf("budget hits %d, want %d", st.PCREBudgetHits, hits+2)
	}
	if !plain.Inspect(buf, st) {
		t.Error("a Go regexp expression was refused by the regexp2 budget")
	}
	st.StartPacket()
	if !backref.Inspect(buf, st) {
		t.Error("the next packet did not get a fresh budget")
	}
}

// TestPCRETimeoutCounted: a backtracking expression that runs past PCREMatchTimeout is no
// match and is counted in PCRETimeouts.
func TestPCRETimeoutCounted(t *testing.T) {
	old := PCREMatchTimeout
	PCREMatchTimeout = time.Millisecond
	defer func() { PCREMatchTimeout = old }()
	// Catastrophic backtracking (nested quantifiers, then a backreference that keeps
	// regexp2 in charge) over a subject that never matches.
	p := mustProgram(t, `pcre:"/^(a+)+\1c/";`)
	st := NewState()
	st.StartPacket()
	buf := []byte(strings.Repeat("a", 40) + "b")
	if p.Inspect(buf, st) {
		t.Fatal("matched")
	}
	if st.PCRETimeouts != 1 {
		t.Fatalf("timeouts %d, want 1", st.PCRETimeouts)
	}
}
