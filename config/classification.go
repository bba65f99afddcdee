package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Classification is one classtype of classification.config.
type Classification struct {
	// Name is the short name used by the classtype keyword, lower-cased ("trojan-activity").
	Name string
	// Description is the text EVE prints as alert.category ("A Network Trojan was detected").
	Description string
	// Priority is the default priority of rules with this classtype (EVE alert.severity).
	Priority int
	// ID is the 1-based position of the entry among the entries of the file.
	ID int
}

// LoadClassifications reads a classification.config file: lines
// "config classification: NAME,DESCRIPTION,PRIORITY", with blank lines and lines starting with
// '#' ignored. Names are lower-cased (classtype lookups are case-insensitive in Suricata); when a
// name appears twice the first entry wins, as in Suricata. A line that cannot be read is an
// error naming the file and line; the entries that could be read are returned along with it.
func LoadClassifications(path string) (map[string]Classification, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	return ParseClassifications(path, f)
}

// ParseClassifications is LoadClassifications for any reader; name is used in messages.
func ParseClassifications(name string, r io.Reader) (map[string]Classification, error) {
	out := map[string]Classification{}
	id := 0
	err := eachConfigLine(name, r, func(line int, text string) error {
		id++
		rest, ok := cutDirective(text, "classification")
		if !ok {
			return &Error{File: name, Line: line, Msg: "expected \"config classification: NAME,DESCRIPTION,PRIORITY\""}
		}
		first := strings.IndexByte(rest, ',')
		last := strings.LastIndexByte(rest, ',')
		if first < 0 || last == first {
			return &Error{File: name, Line: line, Msg: "expected \"config classification: NAME,DESCRIPTION,PRIORITY\""}
		}
		ct := strings.TrimSpace(rest[:first])
		desc := strings.TrimLeft(rest[first+1:last], " \t")
		prio := strings.TrimSpace(rest[last+1:])
		if !validName(ct) {
			return &Error{File: name, Line: line, Msg: fmt.Sprintf("invalid classtype name %q", ct)}
		}
		if strings.TrimSpace(desc) == "" {
			return &Error{File: name, Line: line, Msg: fmt.Sprintf("classtype %q has no description", ct)}
		}
		p, err := strconv.Atoi(prio)
		if err != nil || p < 0 || prio[0] == '+' {
			return &Error{File: name, Line: line, Msg: fmt.Sprintf("invalid priority %q for classtype %q", prio, ct)}
		}
		key := strings.ToLower(ct)
		if _, dup := out[key]; !dup {
			out[key] = Classification{Name: key, Description: desc, Priority: p, ID: id}
		}
		return nil
	})
	return out, err
}

// LoadReferences reads a reference.config file: lines "config reference: SYSTEM URL-PREFIX".
// It returns the URL prefix of each reference system, keyed by the lower-cased system name
// (reference systems are case-insensitive in Suricata: "arachNIDS" is found as "arachnids").
// When a system appears twice the first entry wins. Errors name the file and line; the entries
// that could be read are returned along with them.
func LoadReferences(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	return ParseReferences(path, f)
}

// ParseReferences is LoadReferences for any reader; name is used in messages.
func ParseReferences(name string, r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	err := eachConfigLine(name, r, func(line int, text string) error {
		rest, ok := cutDirective(text, "reference")
		if !ok {
			return &Error{File: name, Line: line, Msg: "expected \"config reference: SYSTEM URL\""}
		}
		rest = strings.TrimSpace(rest)
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			return &Error{File: name, Line: line, Msg: "expected \"config reference: SYSTEM URL\""}
		}
		sys, url := rest[:i], strings.TrimSpace(rest[i:])
		if !validName(sys) {
			return &Error{File: name, Line: line, Msg: fmt.Sprintf("invalid reference system name %q", sys)}
		}
		key := strings.ToLower(sys)
		if _, dup := out[key]; !dup {
			out[key] = url
		}
		return nil
	})
	return out, err
}

// openError turns an open failure into an Error naming the file.
func openError(path string, err error) error {
	var pe *os.PathError
	msg := err.Error()
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &Error{File: path, Msg: msg, Err: err}
}

// eachConfigLine calls fn for every line that is neither blank nor a comment, collecting the
// errors it returns.
func eachConfigLine(name string, r io.Reader, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var errs []error
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r\n")
		t := strings.TrimSpace(text)
		if t == "" || t[0] == '#' {
			continue
		}
		if err := fn(line, t); err != nil {
			errs = append(errs, err)
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, &Error{File: name, Line: line + 1, Msg: err.Error(), Err: err})
	}
	return errors.Join(errs...)
}

// cutDirective checks that text is "config WHAT: REST" (spaces allowed around the words and the
// colon) and returns REST.
func cutDirective(text, what string) (string, bool) {
	rest, ok := strings.CutPrefix(text, "config")
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	rest, ok = strings.CutPrefix(rest, what)
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	return strings.CutPrefix(rest, ":")
}

// validName reports whether s is a classtype or reference system name: a letter followed by
// letters, digits, '-' or '_'.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '_'):
		default:
			return false
		}
	}
	return true
}
