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
		r, err := Parse(tc.rule)
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		fp, ok := r.FastPattern()
		if ok != tc.ok {
			t.Errorf("%s: ok %v", tc.rule, ok)
			continue
		}
		if !ok {
			continue
		}
		if fp.Buffer != tc.buffer || string(fp.Pattern()) != tc.pattern || fp.Explicit != tc.explict {
			t.Errorf("%s: got %s %q explicit %v", tc.rule, fp.Buffer, fp.Pattern(), fp.Explicit)
		}
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
