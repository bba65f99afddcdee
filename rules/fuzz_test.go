package rules

import (
	"strings"
	"testing"
)

// FuzzParseRule checks that no input makes the parser panic or loop, and that every rule it
// accepts prints to a canonical text that parses back to the same canonical text.
func FuzzParseRule(f *testing.F) {
	f.Add(`alert tcp any any -> any any (msg:"x"; content:"a|00|b"; nocase; sid:1;)`)
	f.Add(`alert http $HOME_NET any -> $EXTERNAL_NET any (http.uri; content:"/a"; pcre:"/b/R"; sid:2;)`)
	f.Fuzz(func(t *testing.T, text string) {
		r, err := Parse(text)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
		} else {
			s := r.String()
			r2, err := Parse(s)
			if err != nil {
				t.Fatalf("canonical form does not parse: %v\n  in:        %q\n  canonical: %q", err, text, s)
			}
			if s2 := r2.String(); s2 != s {
				t.Fatalf("canonical form not stable:\n  %q\n  %q", s, s2)
			}
			_ = r.Type()
		}
		// The file reader and loader must cope with the same bytes.
		l := NewLoader(nil)
		l.Load("fuzz.rules", strings.NewReader(text))
	})
}
