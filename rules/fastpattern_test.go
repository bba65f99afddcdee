package rules

import "testing"

func TestFastPattern(t *testing.T) {
	tests := []struct {
		rule    string
		buffer  string
		pattern string
		explict bool
		ok      bool
	}{
		{`alert tcp any any -> any any (content:"ab"; content:"longer"; sid:1;)`, "pkt_data", "longer", false, true},
		{`alert tcp any any -> any any (content:"longest"; content:"ab"; fast_pattern; sid:1;)`, "pkt_data", "ab", true, true},
		{`alert tcp any any -> any any (content:!"verylongnegated"; content:"pos"; sid:1;)`, "pkt_data", "pos", false, true},
		{`alert tcp any any -> any any (content:!"neg"; sid:1;)`, "pkt_data", "neg", false, true},
		{`alert http any any -> any any (http.uri; content:"/a"; http.host; content:"example.org"; sid:1;)`, "http.host", "example.org", false, true},
		{`alert tcp any any -> any any (content:"abcdefgh"; fast_pattern:2,3; sid:1;)`, "pkt_data", "cde", true, true},
		{`alert tcp any any -> any any (content:"aaaa"; content:"a|00|b!"; sid:1;)`, "pkt_data", "a\x00b!", false, true},
		{`alert tcp any any -> any any (flags:S; sid:1;)`, "", "", false, false},
	}
	for _, tc := range tests {
		checkFastPattern(t, tc.rule, tc.buffer, tc.pattern, tc.explict, tc.ok)
	}
}

// checkFastPattern parses rule and checks the fast pattern FastPattern chooses.
func checkFastPattern(t *testing.T, rule, buffer, pattern string, explicit, wantOK bool) {
	t.Helper()
	r, err := Parse(rule)
	if err != nil {
		t.Fatalf("%s: %v", rule, err)
	}
	fp, ok := r.FastPattern()
	if ok != wantOK {
		t.Errorf("%s: ok %v", rule, ok)
		return
	}
	if !ok {
		return
	}
	if fp.Buffer != buffer || string(fp.Pattern()) != pattern || fp.Explicit != explicit {
		t.Errorf("%s: got %s %q explicit %v, want %s %q explicit %v", rule, fp.Buffer, fp.Pattern(), fp.Explicit,
			buffer, pattern, explicit)
	}
}

// TestFastPatternPriority covers the buffer priorities of the automatic choice: 2 for most
// sticky buffers, 3 for pkt_data and http.stat_msg, 4 for http.method and http.stat_code; the
// best priority present wins before the length counts.
func TestFastPatternPriority(t *testing.T) {
	tests := []struct {
		name    string
		rule    string
		buffer  string
		pattern string
		explict bool
		ok      bool
	}{
		{"sticky buffer beats longer payload",
			`alert http any any -> any any (content:"longerpayload"; http.uri; content:"/a"; sid:1;)`, "http.uri", "/a", false, true},
		{"legacy modifier maps to the sticky buffer",
			`alert http any any -> any any (content:"longerpayload"; content:"/a"; http_uri; sid:1;)`, "http.uri", "/a", false, true},
		{"payload beats longer http.method",
			`alert http any any -> any any (content:"OPTIONS"; http_method; content:"ab"; sid:1;)`, "pkt_data", "ab", false, true},
		{"payload beats longer http.method sticky",
			`alert http any any -> any any (http.method; content:"OPTIONS"; pkt_data; content:"ab"; sid:1;)`, "pkt_data", "ab", false, true},
		{"http.stat_msg ties payload, longer payload wins",
			`alert http any any -> any any (content:"abcdefgh"; http.stat_msg; content:"Found"; sid:1;)`, "pkt_data", "abcdefgh", false, true},
		{"http.stat_msg ties payload, longer stat_msg wins",
			`alert http any any -> any any (content:"ab"; http.stat_msg; content:"Not Found"; sid:1;)`, "http.stat_msg", "Not Found", false, true},
		{"payload first among equal priority, though later in the rule",
			`alert http any any -> any any (http.stat_msg; content:"abcd"; pkt_data; content:"abcd"; sid:1;)`, "pkt_data", "abcd", false, true},
		{"http.stat_msg beats longer http.stat_code",
			`alert http any any -> any any (http.stat_code; content:"404"; http.stat_msg; content:"OK"; sid:1;)`, "http.stat_msg", "OK", false, true},
		{"http.stat_code and http.method tie, length decides",
			`alert http any any => any any (http.stat_code; content:"404"; http.method; content:"POST"; sid:1;)`, "http.method", "POST", false, true},
		{"=> rule prefers the to-server buffer of equal priority, though weaker",
			`alert http any any => any any (http.method; content:"GET"; http.stat_code; content:"503"; sid:1;)`, "http.method", "GET", false, true},
		{"=> rule prefers a lower-priority to-server buffer over to-client ones",
			`alert http any any => any any (http.stat_msg; content:"Not Found"; http.method; content:"GET"; sid:1;)`, "http.method", "GET", false, true},
		{"=> rule whose to-server buffer holds no content: the to-client ones compete",
			`alert http any any => any any (http.method; bsize:3; http.stat_msg; content:"OK"; http.stat_code; content:"404"; sid:1;)`, "http.stat_code", "404", false, true},
		{"IKE buffers rank before other sticky buffers",
			`alert ike any any -> any any (udp.hdr; content:"longer header"; ike.vendor; content:"ab"; sid:1;)`, "ike.vendor", "ab", false, true},
		{"equal length and strength in equal priority buffers, rule order decides",
			`alert http any any -> any any (http.user_agent; content:"abcd"; http.uri; content:"abcd"; sid:1;)`, "http.user_agent", "abcd", false, true},
		{"negated only, sticky buffer beats longer payload",
			`alert http any any -> any any (content:!"abcdefgh"; http.uri; content:!"/x"; sid:1;)`, "http.uri", "/x", false, true},
		{"negated only, http.method loses to payload",
			`alert http any any -> any any (content:!"ab"; http.method; content:!"OPTIONS"; sid:1;)`, "pkt_data", "ab", false, true},
		{"buffer with only negated contents does not compete",
			`alert http any any -> any any (content:"abc"; http.uri; content:!"/x"; sid:1;)`, "pkt_data", "abc", false, true},
		{"explicit fast_pattern in a low priority buffer wins",
			`alert http any any -> any any (http.uri; content:"/averylonguri"; http.method; content:"GET"; fast_pattern; sid:1;)`, "http.method", "GET", true, true},
		{"explicit fast_pattern in the payload wins",
			`alert http any any -> any any (http.uri; content:"/averylonguri"; pkt_data; content:"ab"; fast_pattern; sid:1;)`, "pkt_data", "ab", true, true},
		{"base64_data content never chosen",
			`alert tcp any any -> any any (content:"ab"; base64_decode; base64_data; content:"longerdecoded"; sid:1;)`, "pkt_data", "ab", false, true},
		{"base64_data content only",
			`alert tcp any any -> any any (base64_decode; base64_data; content:"decoded"; sid:1;)`, "", "", false, false},
		{"chopped content is explicit and keeps its chop",
			`alert http any any -> any any (content:"abcdefghij"; fast_pattern:0,2; http.uri; content:"/longeruri"; sid:1;)`, "pkt_data", "ab", true, true},
		{"transformed sticky buffer keeps its priority",
			`alert http any any -> any any (content:"longerpayload"; http.uri; to_lowercase; content:"/a"; sid:1;)`, "http.uri", "/a", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkFastPattern(t, tc.rule, tc.buffer, tc.pattern, tc.explict, tc.ok)
		})
	}
}

func TestPatternStrength(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want uint32
	}{{"", 0}, {"a", 3}, {"aa", 4}, {"a1", 7}, {"\x00", 4}, {"\x80", 6}, {"ab\x80\x80", 3 + 3 + 6 + 1}} {
		if got := PatternStrength([]byte(tc.p)); got != tc.want {
			t.Errorf("PatternStrength(%q) = %d, want %d", tc.p, got, tc.want)
		}
	}
}
