package rules

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// FuzzParseRule checks that no input makes the parser panic or loop, and that every rule it
// accepts prints to a canonical text that parses back to the same canonical text.
func FuzzParseRule(f *testing.F) {
	f.Add(`alert tcp any any -> any any (msg:"x"; content:"a|00|b"; nocase; sid:1;)`)
	f.Add(`alert http $HOME_NET any -> $EXTERNAL_NET any (http.uri; content:"/a"; pcre:"/b/R"; sid:2;)`)
	f.Add(`accept:flow,pass:flow tcp:flow_start $HOME_NET any <> any [80,443] (flow:to_server; alert; sid:3;)`)
	f.Add(`drop:packet,alert ip:pre_flow 10.0.0.0/8 any -> any any (msg:"x"; sid:4;)`)
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
		// Parsed as a firewall rule (action lists, scopes, hooks) it must fail cleanly too, and a
		// firewall rule must print back to a firewall rule.
		fw := &ParseOptions{Firewall: true}
		if r, err := ParseWith(text, fw); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("firewall: error of type %T", err)
			}
		} else if _, err := ParseWith(r.String(), fw); err != nil {
			t.Fatalf("firewall canonical form does not parse: %v\n  in:        %q\n  canonical: %q", err, text, r.String())
		}
		// The file reader and loader must cope with the same bytes.
		l := NewLoader(nil)
		l.Load("fuzz.rules", strings.NewReader(text))
	})
}

// FuzzLoadFile checks the rule-file splitter and the loader on whole files: no panic, every
// rule text a single line shorter than MaxRuleSize, line numbers rising, and the same rules and
// errors whether the file comes as bytes or through a reader.
func FuzzLoadFile(f *testing.F) {
	f.Add([]byte("# comment\nalert tcp any any -> any any (msg:\"a\"; sid:1;)\n"))
	f.Add([]byte("alert tcp any any -> any any (msg:\"a\"; \\\n  content:\"b\"; sid:2;)\r\n\n alert ip any any -> any any (sid:3;)"))
	f.Add([]byte("drop udp any any -> any 53 (sid:9;)\nalert udp any any -> any 53 (sid:4;)\nalert udp any any -> any 53 (sid:4; rev:2;)\n\\"))
	f.Add([]byte("\v\n\f\nalert tcp any any -> any any (sid:5;) \\   \n# tail\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := SplitLines(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		prev := 0
		for _, l := range lines {
			if strings.ContainsRune(l.Text, '\n') || len(l.Text) >= MaxRuleSize || l.Line <= prev {
				t.Fatalf("line %d (after %d), %d bytes: %q", l.Line, prev, len(l.Text), l.Text)
			}
			prev = l.Line
		}
		a, b := NewLoader(nil), NewLoader(nil)
		errsA, stA := a.LoadBytes("f.rules", data)
		errsB, stB := b.Load("f.rules", bytes.NewReader(data))
		if stA != stB || fmt.Sprint(errsA) != fmt.Sprint(errsB) {
			t.Fatalf("LoadBytes %+v %v, Load %+v %v", stA, errsA, stB, errsB)
		}
		if got := stA.Loaded + stA.Failed + stA.Skipped; got > len(lines) {
			t.Fatalf("%d rules counted from %d lines", got, len(lines))
		}
	})
}
