package rules

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxRuleSize is Suricata's DETECT_MAX_RULE_SIZE: a rule, continuation lines joined, must fit
// in 8192 bytes including the terminating NUL, so at most 8191 bytes of text.
const MaxRuleSize = 8192

// Line is one rule as it comes out of a rule file: continuation lines joined (the backslash
// and the line break dropped), the trailing line break removed.
type Line struct {
	// Line is the 1-based line number where the rule starts.
	Line int
	// Text is the rule text.
	Text string
	// TooLong is set when the rule exceeds MaxRuleSize; Text then holds only its beginning.
	TooLong bool
}

// SplitLines reads a rule file the way Suricata's loader does: a line whose first byte is '#',
// a space, a tab, CR or LF is skipped (so an indented rule is ignored), a line that ends, after
// trailing white space, in '\' continues on the next line (which is appended as it is, even
// when it starts with '#' or white space), and a rule that is still continued at the end of the
// file is dropped. It only fails when the reader fails; the rules read before then are returned.
func SplitLines(r io.Reader) ([]Line, error) {
	data, err := io.ReadAll(r)
	raws := splitRaw(data)
	out := make([]Line, len(raws))
	for i := range raws {
		out[i] = raws[i].toLine()
	}
	return out, err
}

// rawLine is one rule of a rule file before it becomes a string: its text is a slice of the
// file's bytes (or, for a rule continued over several lines, of a joined copy).
type rawLine struct {
	line    int
	text    []byte
	tooLong bool
}

// toLine copies the rule's text into a string of its own.
func (r *rawLine) toLine() Line {
	return Line{Line: r.line, Text: string(r.text), TooLong: r.tooLong}
}

// splitRaw finds the rules in a rule file's bytes, as SplitLines describes, without copying
// the text of one-line rules. The loader turns each into a string just before parsing it, so
// that the rule texts lie in memory in the order they are parsed, whatever the file's order.
func splitRaw(data []byte) []rawLine {
	var out []rawLine
	var cur []byte // the rule being assembled
	start := 0     // its first line
	lineno := 0
	one := func(text []byte) {
		tooLong := false
		if len(text) >= MaxRuleSize {
			tooLong = true
			text = text[:MaxRuleSize-1]
		}
		out = append(out, rawLine{line: start, text: text, tooLong: tooLong})
	}
	for len(data) > 0 {
		var raw []byte
		last := false // the file's last line, without a line break
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i+1], data[i+1:]
		} else {
			raw, data, last = data, nil, true
		}
		lineno++
		if cur == nil {
			if c := raw[0]; c == '#' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				continue
			}
			start = lineno
			// Fast path: a whole rule on one line.
			t := bytes.TrimRight(raw, " \t\r\n\v\f")
			if len(t) > 0 && t[len(t)-1] != '\\' {
				one(bytes.TrimRight(raw, "\r\n"))
				continue
			}
			cur = make([]byte, 0, 2*len(raw))
		}
		cur = append(cur, raw...)
		// Continuation: the last non-space byte is a backslash.
		end := len(cur)
		for end > 0 && isSpace(cur[end-1]) {
			end--
		}
		if end > 0 && cur[end-1] == '\\' {
			if last {
				// Continued at the end of the file: Suricata never parses it.
				return out
			}
			cur = cur[:end-1]
			continue
		}
		one(bytes.TrimRight(cur, "\r\n"))
		cur = nil
	}
	return out
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isBlank is C's isblank.
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// headerFields are the seven fields of a rule header, as text, and the option block.
type headerFields struct {
	action, proto, src, sp, dir, dst, dp string
	opts                                 string
}

// nextToken reads a token up to white space (SigParseToken): leading blanks skipped, the token
// ends at a space, tab, CR or LF. ok is false at the end of the input.
func nextToken(s string, pos int) (tok string, next int, ok bool) {
	if pos < 0 || pos >= len(s) {
		return "", -1, false
	}
	for pos < len(s) && isBlank(s[pos]) {
		pos++
	}
	i := pos
	for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	if i >= len(s) {
		return s[pos:], -1, true
	}
	return s[pos:i], i + 1, true
}

// nextList reads a header field that may be a bracketed list holding spaces (SigParseList):
// leading blanks skipped, the field ends at the first space outside brackets. A field that runs
// to the end of the input is not a field (Suricata then has no options).
func nextList(s string, pos int) (tok string, next int, ok bool) {
	if pos < 0 || pos >= len(s) {
		return "", -1, false
	}
	for pos < len(s) && isBlank(s[pos]) {
		pos++
	}
	depth := 0
	for i := pos; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ' ':
			if depth == 0 {
				return s[pos:i], i + 1, true
			}
		}
	}
	return "", -1, false
}

// splitHeader splits a rule into its header fields and the option block.
func splitHeader(rule string) (headerFields, error) {
	var h headerFields
	pos := 0
	h.action, pos, _ = nextToken(rule, pos)
	h.proto, pos, _ = nextList(rule, pos)
	h.src, pos, _ = nextList(rule, pos)
	h.sp, pos, _ = nextList(rule, pos)
	h.dir, pos, _ = nextToken(rule, pos)
	h.dst, pos, _ = nextList(rule, pos)
	h.dp, pos, _ = nextList(rule, pos)
	if pos < 0 {
		return h, kwErrf("header", "no rule options")
	}
	opts := rule[pos:]
	i := 0
	for i < len(opts) && (isSpace(opts[i]) || opts[i] == '(') {
		i++
	}
	j := len(opts)
	for j > i && (isSpace(opts[j-1]) || opts[j-1] == ')') {
		j--
	}
	h.opts = opts[i:j]
	return h, nil
}

// rawOption is one option of the option block, split the way SigParseOptions does.
type rawOption struct {
	name     string
	value    string // after the first ':', trailing blanks trimmed; may hold leading blanks
	hasValue bool
}

// splitOptions splits the option block: each option ends at the first ';' that is not
// preceded by a backslash; the name is what comes before the first ':'.
func splitOptions(opts string) ([]rawOption, error) {
	out := make([]rawOption, 0, strings.Count(opts, ";"))
	s := opts
	for len(s) > 0 {
		i := 0
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		s = s[i:]
		end := -1
		for k := 0; k < len(s); k++ {
			if s[k] == ';' && (k == 0 || s[k-1] != '\\') {
				end = k
				break
			}
		}
		if end < 0 {
			return out, errf("no terminating \";\" found")
		}
		opt := s[:end]
		s = s[end+1:]
		var ro rawOption
		if c := strings.IndexByte(opt, ':'); c >= 0 {
			ro.hasValue = true
			ro.value = strings.TrimRight(opt[c+1:], " \t")
			opt = opt[:c]
		}
		ro.name = strings.TrimRight(opt, " \t")
		out = append(out, ro)
	}
	return out, nil
}

// checkRuleText applies Suricata's checks on the whole rule text: valid UTF-8 and no control
// characters other than tab, CR and LF.
func checkRuleText(s string) error {
	if !utf8.ValidString(s) {
		return errf("rule is not valid UTF-8")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return errf("rule contains invalid (control) characters")
		}
	}
	return nil
}
