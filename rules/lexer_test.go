package rules

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSplitLines(t *testing.T) {
	in := strings.Join([]string{
		"# comment",
		"",
		"alert tcp any any -> any any (sid:1;)",
		" alert tcp any any -> any any (sid:2;)", // indented: ignored, as Suricata
		"\talert tcp any any -> any any (sid:3;)",
		"alert tcp any any -> any any (msg:\"a\"; \\",
		"  sid:4;)",
		"alert tcp any any -> any any (msg:\"b\"; \\   ",
		"# still part of the rule \\",
		"sid:5;)",
		"alert tcp any any -> any any (sid:6;)\r",
		"alert tcp any any -> any any (sid:7;) \\",
	}, "\n")
	lines, err := SplitLines(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{
		{Line: 3, Text: "alert tcp any any -> any any (sid:1;)"},
		{Line: 6, Text: "alert tcp any any -> any any (msg:\"a\";   sid:4;)"},
		{Line: 8, Text: "alert tcp any any -> any any (msg:\"b\"; # still part of the rule sid:5;)"},
		{Line: 11, Text: "alert tcp any any -> any any (sid:6;)"},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines: %+v", len(lines), lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, lines[i], want[i])
		}
	}
}

func TestSplitLinesTooLong(t *testing.T) {
	long := "alert tcp any any -> any any (msg:\"" + strings.Repeat("a", MaxRuleSize) + "\"; sid:1;)\n" +
		"alert tcp any any -> any any (sid:2;)\n"
	lines, err := SplitLines(strings.NewReader(long))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || !lines[0].TooLong || lines[1].TooLong || lines[1].Line != 2 {
		t.Fatalf("unexpected %+v", lines)
	}
	// Exactly at the limit is fine.
	ok := "alert tcp any any -> any any (msg:\"" + strings.Repeat("a", MaxRuleSize-1-len("alert tcp any any -> any any (msg:\"\"; sid:1;)")) + "\"; sid:1;)"
	lines, _ = SplitLines(strings.NewReader(ok))
	if len(lines) != 1 || lines[0].TooLong || len(lines[0].Text) != MaxRuleSize-1 {
		t.Fatalf("rule of %d bytes: %v", len(ok), lines[0].TooLong)
	}
	if _, err := Parse(ok); err != nil {
		t.Fatal(err)
	}
}

func TestSplitOptions(t *testing.T) {
	opts, err := splitOptions(`msg:"a\;b"; content:"x|3b|"; nocase;  pcre:"/a;b/"`)
	if err == nil {
		t.Fatal("missing final ';' must fail")
	}
	opts, err = splitOptions(`msg:"a\;b"; content : "x"  ;nocase; sid:1;`)
	if err != nil {
		t.Fatal(err)
	}
	want := []rawOption{{"msg", `"a\;b"`, true}, {"content", ` "x"`, true}, {"nocase", "", false}, {"sid", "1", true}}
	if len(opts) != len(want) {
		t.Fatalf("got %+v", opts)
	}
	for i := range want {
		if opts[i] != want[i] {
			t.Errorf("%d: got %+v want %+v", i, opts[i], want[i])
		}
	}
}

func TestHeaderSplitting(t *testing.T) {
	r, err := Parse(`alert tcp [1.1.1.1, 2.2.2.2] [80, 81] -> any any (msg:"x"; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Src.Text != "[1.1.1.1, 2.2.2.2]" || r.Header.SrcPort.Text != "[80, 81]" {
		t.Fatalf("fields %q %q", r.Header.Src.Text, r.Header.SrcPort.Text)
	}
	// Suricata tolerates a missing '(' and extra ')'.
	if _, err := Parse(`alert tcp any any -> any any msg:"x"; sid:1;))`); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`alert tcp any any -> any any`,
		`alert tcp any any ->`,
		`alert`,
		``,
		`alert tcp any any -> any any (sid:1)`,
		"alert tcp any any -> any any (msg:\"\x01\"; sid:1;)",
		"alert tcp any any -> any any (msg:\"\xff\"; sid:1;)",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

// TestSplitLinesEnds covers how a file may end, and a reader that fails part-way: the rules
// read before the failure are kept.
func TestSplitLinesEnds(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"no final line break", "alert tcp any any -> any any (sid:1;)", []string{"alert tcp any any -> any any (sid:1;)"}},
		{"continued before the end", "alert tcp any any -> any any (sid:1; \\\n", nil},
		{"joined, no final line break", "alert tcp any any -> any any (msg:\"a\"; \\\nsid:1;)", []string{"alert tcp any any -> any any (msg:\"a\"; sid:1;)"}},
		{"blank lines only", "\n\n\r\n", nil},
		{"empty", "", nil},
	} {
		lines, err := SplitLines(strings.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, l := range lines {
			got = append(got, l.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	boom := errors.New("boom")
	lines, err := SplitLines(io.MultiReader(strings.NewReader("alert tcp any any -> any any (sid:1;)\n"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) || len(lines) != 1 {
		t.Fatalf("failing reader: %d lines, err %v", len(lines), err)
	}
}

// TestLoadBytesCopiesText: LoadBytes no longer copies its input as a whole, so each rule must
// keep a copy of its own text, unchanged when the caller reuses the buffer.
func TestLoadBytesCopiesText(t *testing.T) {
	data := []byte("alert tcp any any -> any any (msg:\"hello\"; content:\"abc\"; sid:1;)\n")
	l := NewLoader(nil)
	if errs, _ := l.LoadBytes("t.rules", data); len(errs) != 0 {
		t.Fatal(errs)
	}
	for i := range data {
		data[i] = 'x'
	}
	r := l.Rules()[0]
	if r.Msg != "hello" || !strings.Contains(r.Raw, "content:\"abc\"") {
		t.Fatalf("rule changed with its input buffer: msg %q, raw %q", r.Msg, r.Raw)
	}
}
