package pcre

import (
	"fmt"
	"strings"
)

// translate rewrites a PCRE expression (non-UTF, byte characters) for Go's regexp (net=false)
// or regexp2 (net=true). trim reports a '$' with PCRE's default meaning (end of subject or
// before a final newline) that Go can't express.
func translate(p string, a Options, net bool) (out string, trim bool, err error) {
	var sb strings.Builder
	hexb := func(c byte) { fmt.Fprintf(&sb, `\x%02X`, c) }
	// literal writes one literal byte.
	literal := func(c byte) {
		if c >= 0x80 || c < 0x20 || strings.IndexByte(`\.+*?()|[]{}^$#- /&~'"<>=!:,`, c) >= 0 || c == 0x7f {
			hexb(c)
			return
		}
		sb.WriteByte(c)
	}
	const sClass = `\t\n\x0B\f\r\x20`
	inClass := false
	classStart := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if a.Extended && !inClass {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				continue
			}
			if c == '#' {
				for i < len(p) && p[i] != '\n' {
					i++
				}
				continue
			}
		}
		if c >= 0x80 {
			hexb(c)
			continue
		}
		if c == '\\' {
			if i+1 >= len(p) {
				return "", false, fmt.Errorf("\\ at end of pattern")
			}
			i++
			e := p[i]
			switch {
			case e == 'Q':
				end := strings.Index(p[i+1:], `\E`)
				var lit string
				if end < 0 {
					lit = p[i+1:]
					i = len(p)
				} else {
					lit = p[i+1 : i+1+end]
					i += end + 2
				}
				for j := 0; j < len(lit); j++ {
					literal(lit[j])
				}
			case e == 'E':
				// stray \E is ignored
			case !isAlnum(e):
				literal(e)
			case e == 's':
				if inClass {
					sb.WriteString(sClass)
				} else {
					sb.WriteString("[" + sClass + "]")
				}
			case e == 'S' && !inClass:
				sb.WriteString("[^" + sClass + "]")
			case net && e == 'w':
				if inClass {
					sb.WriteString("a-zA-Z0-9_")
				} else {
					sb.WriteString("[a-zA-Z0-9_]")
				}
			case net && e == 'W' && !inClass:
				sb.WriteString("[^a-zA-Z0-9_]")
			case net && e == 'd':
				if inClass {
					sb.WriteString("0-9")
				} else {
					sb.WriteString("[0-9]")
				}
			case net && e == 'D' && !inClass:
				sb.WriteString("[^0-9]")
			case e == 'h':
				if inClass {
					sb.WriteString(`\t\x20\xA0`)
				} else {
					sb.WriteString(`[\t\x20\xA0]`)
				}
			case e == 'e':
				sb.WriteString(`\x1B`)
			case e == 'x':
				// \xHH, \xH or \x{HHH}
				if i+1 < len(p) && p[i+1] == '{' {
					end := strings.IndexByte(p[i+1:], '}')
					if end < 0 {
						return "", false, fmt.Errorf("missing } in \\x{")
					}
					hexs := p[i+2 : i+1+end]
					var v int
					if _, err := fmt.Sscanf(hexs, "%x", &v); err != nil || v > 0xff {
						return "", false, fmt.Errorf("character code \\x{%s} out of range in non-UTF mode", hexs)
					}
					hexb(byte(v))
					i += end + 1
					continue
				}
				v, n := 0, 0
				for n < 2 && i+1 < len(p) && isHex(p[i+1]) {
					v = v*16 + hexVal(p[i+1])
					i++
					n++
				}
				hexb(byte(v))
			case e == '0':
				// \0 followed by up to two octal digits
				v, n := 0, 0
				for n < 2 && i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '7' {
					v = v*8 + int(p[i+1]-'0')
					i++
					n++
				}
				hexb(byte(v))
			case e >= '1' && e <= '9':
				if inClass {
					// octal in a class
					v, n := int(e-'0'), 1
					for n < 3 && i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '7' {
						v = v*8 + int(p[i+1]-'0')
						i++
						n++
					}
					if e > '7' || v > 0xff {
						return "", false, fmt.Errorf("invalid escape \\%c in class", e)
					}
					hexb(byte(v))
					continue
				}
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				sb.WriteByte('\\')
				sb.WriteByte(e)
				for i+1 < len(p) && p[i+1] >= '0' && p[i+1] <= '9' {
					i++
					sb.WriteByte(p[i])
				}
			case e == 'g':
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				j := i + 1
				name := ""
				if j < len(p) && (p[j] == '{' || p[j] == '<' || p[j] == '\'') {
					cl := map[byte]byte{'{': '}', '<': '>', '\'': '\''}[p[j]]
					end := strings.IndexByte(p[j+1:], cl)
					if end < 0 {
						return "", false, fmt.Errorf("bad \\g")
					}
					name = p[j+1 : j+1+end]
					i = j + 1 + end
				} else {
					for j < len(p) && p[j] >= '0' && p[j] <= '9' {
						j++
					}
					name = p[i+1 : j]
					i = j - 1
				}
				if name == "" || name[0] == '-' || name[0] == '+' {
					return "", false, fmt.Errorf("relative backreference \\g")
				}
				if isAllDigits(name) {
					sb.WriteString(`\` + name)
				} else {
					sb.WriteString(`\k<` + name + `>`)
				}
			case e == 'k':
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				j := i + 1
				if j >= len(p) {
					return "", false, fmt.Errorf("bad \\k")
				}
				cl := map[byte]byte{'{': '}', '<': '>', '\'': '\''}[p[j]]
				end := strings.IndexByte(p[j+1:], cl)
				if cl == 0 || end < 0 {
					return "", false, fmt.Errorf("bad \\k")
				}
				sb.WriteString(`\k<` + p[j+1:j+1+end] + `>`)
				i = j + 1 + end
			case e == 'Z' && !net:
				return "", false, fmt.Errorf("\\Z")
			default:
				sb.WriteByte('\\')
				sb.WriteByte(e)
			}
			continue
		}
		if inClass {
			switch c {
			case ']':
				if i == classStart {
					sb.WriteString(`\x5D`)
					continue
				}
				inClass = false
				sb.WriteByte(c)
			case '[':
				if strings.HasPrefix(p[i:], "[:") {
					end := strings.Index(p[i+2:], ":]")
					if end >= 0 {
						sb.WriteString(p[i : i+2+end+2])
						i += 2 + end + 1
						continue
					}
				}
				sb.WriteString(`\x5B`)
			default:
				if c < 0x20 || c == 0x7f {
					hexb(c)
				} else {
					sb.WriteByte(c)
				}
			}
			continue
		}
		switch c {
		case '[':
			inClass = true
			sb.WriteByte(c)
			classStart = i + 1
			if i+1 < len(p) && p[i+1] == '^' {
				sb.WriteByte('^')
				i++
				classStart = i + 1
			}
		case '$':
			switch {
			case a.Multiline:
				sb.WriteByte('$')
			case a.DollarEndOnly:
				sb.WriteString(`\z`)
			case net:
				sb.WriteByte('$')
			default:
				sb.WriteString(`\z`)
				trim = true
			}
		case '(':
			if strings.HasPrefix(p[i:], "(?P=") {
				if !net {
					return "", false, fmt.Errorf("backreference")
				}
				end := strings.IndexByte(p[i:], ')')
				if end < 0 {
					return "", false, fmt.Errorf("missing )")
				}
				sb.WriteString(`\k<` + p[i+4:i+end] + `>`)
				i += end
				continue
			}
			if net && strings.HasPrefix(p[i:], "(?P<") {
				sb.WriteString("(?<")
				i += 3
				continue
			}
			if strings.HasPrefix(p[i:], "(?#") {
				end := strings.IndexByte(p[i:], ')')
				if end < 0 {
					return "", false, fmt.Errorf("missing ) after comment")
				}
				i += end
				continue
			}
			sb.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '?' {
				sb.WriteByte('?')
				i++
			}
		case '?', '*', '+', '}':
			sb.WriteByte(c)
			if net && a.Ungreedy {
				// regexp2 has no ungreedy flag: swap the greediness of quantifiers.
				switch {
				case i+1 < len(p) && p[i+1] == '?':
					i++ // lazy becomes greedy
				case i+1 < len(p) && p[i+1] == '+':
					// possessive: unchanged
				default:
					sb.WriteByte('?')
				}
			} else if i+1 < len(p) && (p[i+1] == '?' || p[i+1] == '+') {
				sb.WriteByte(p[i+1])
				i++
			}
		default:
			if c < 0x20 || c == 0x7f {
				hexb(c)
			} else {
				sb.WriteByte(c)
			}
		}
	}
	if inClass {
		return "", false, fmt.Errorf("missing terminating ] for character class")
	}
	out = sb.String()
	if !net {
		flags := ""
		if a.Caseless {
			flags += "i"
		}
		if a.Multiline {
			flags += "m"
		}
		if a.DotAll {
			flags += "s"
		}
		if a.Ungreedy {
			flags += "U"
		}
		if flags != "" {
			out = "(?" + flags + ")" + out
		}
		if a.Anchored {
			out = `\A(?:` + out + `)`
		}
	} else if a.Anchored {
		out = `\G(?:` + out + `)`
	}
	return out, trim, nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// hexVal is the value of the hex digit c.
func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}
