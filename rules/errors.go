package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// ErrorKind classifies a problem reported while loading rules.
type ErrorKind uint8

const (
	// KindFailed is a rule that Suricata would refuse to load (counted as failed).
	KindFailed ErrorKind = iota
	// KindSkipped is a rule whose requires keyword is not met (counted as skipped).
	KindSkipped
	// KindDuplicate is a rule dropped because another rule with the same gid and sid and an
	// equal or higher rev was loaded first (counted as failed, as in Suricata).
	KindDuplicate
	// KindReplaced is a loaded rule that a later rule with the same gid and sid and a higher
	// rev replaced (a warning: both were counted as loaded, as in Suricata).
	KindReplaced
	// KindUnsupported is a valid rule that uses a keyword the engine cannot evaluate yet
	// (see Loader.Supported); it is counted as failed.
	KindUnsupported
	// KindFile is a problem with a whole file (it could not be opened or read).
	KindFile
	// KindDropped is a rule Suricata drops with only a warning and does not count at all
	// (an app-layer-event naming an event the protocol does not have).
	KindDropped
)

// String returns a short name of the kind ("failed", "skipped", ...).
func (k ErrorKind) String() string {
	switch k {
	case KindFailed:
		return "failed"
	case KindSkipped:
		return "skipped"
	case KindDuplicate:
		return "duplicate"
	case KindReplaced:
		return "replaced"
	case KindUnsupported:
		return "unsupported"
	case KindFile:
		return "file"
	case KindDropped:
		return "dropped"
	}
	return "unknown"
}

// Error is one problem with one rule (or one file). Its text is a single line:
// "FILE:LINE: sid N: KEYWORD: REASON", leaving out the parts that are not known.
type Error struct {
	// File and Line locate the rule (Line is the line where the rule starts); Line is 0 for a
	// rule parsed from a string.
	File string
	Line int
	// SID is the rule's sid when it could be read, 0 otherwise; GID its gid (1 by default).
	SID uint32
	GID uint32
	// Keyword is the keyword (or header field, such as "address") the problem is about.
	Keyword string
	// Msg is the reason.
	Msg string
	// Kind says how the loader counts the problem.
	Kind ErrorKind
}

// Error returns the one-line text of the problem.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.SID != 0 {
		if e.GID > 1 {
			fmt.Fprintf(&b, "gid %d ", e.GID)
		}
		fmt.Fprintf(&b, "sid %d: ", e.SID)
	}
	if e.Keyword != "" {
		b.WriteString(e.Keyword)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// kwError is the error a keyword parser returns: the reason, and optionally the keyword it is
// about when it is not the keyword being parsed.
type kwError struct {
	keyword string
	msg     string
	kind    ErrorKind
}

func (e *kwError) Error() string {
	if e.keyword != "" {
		return e.keyword + ": " + e.msg
	}
	return e.msg
}

// errf builds a keyword error with a formatted reason.
func errf(format string, args ...any) error {
	return &kwError{msg: fmt.Sprintf(format, args...)}
}

// kwErrf builds an error about the named keyword (or header field).
func kwErrf(keyword, format string, args ...any) error {
	return &kwError{keyword: keyword, msg: fmt.Sprintf(format, args...)}
}

// skipErr is returned when a requires keyword is not met.
func skipErr(format string, args ...any) error {
	return &kwError{keyword: "requires", msg: fmt.Sprintf(format, args...), kind: KindSkipped}
}
