package transform

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/meerkat-ids/meerkat/detect/pcre"
)

// PcrexformMatchTimeout bounds one pcrexform evaluation on the backtracking engine
// (regexp2); a timeout is a matching error, which leaves the buffer unchanged, as a PCRE2
// match-limit error does in DetectTransformPcrexform. Go's regexp is linear-time and needs
// no bound.
var PcrexformMatchTimeout = pcre.DefaultMatchTimeout

// pcreX is pcrexform (src/detect-transform-pcrexform.c): the argument is a bare PCRE2
// pattern (no delimiters, no flags, compiled without UTF: one byte is one character) with
// exactly one capturing group; on a match the buffer becomes group 1 of the first match, on
// no match (or an unset group, or a matching error) it is left unchanged.
//
// detect/pcre translates and runs the pattern, as it does for the pcre keyword: on Go's regexp
// where that can express it, on regexp2 otherwise (lookaround, backreferences, '$', which is
// PCRE's end or before a final newline, \Z, atomic groups...).
type pcreX struct {
	pat string
	re  *pcre.Regexp
}

func compilePcrexform(pat string) (xform, error) {
	if pat == "" {
		return nil, fmt.Errorf("pcrexform: empty pattern")
	}
	re, err := pcre.Compile(pat, pcre.Options{Groups: true})
	if err != nil {
		var pe *pcre.Error
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("pcrexform: pcre2 compile of %q failed: %s", pat, pe.Reason)
		}
		return nil, fmt.Errorf("pcrexform: %v", err)
	}
	if n := re.NumGroups(); n != 1 {
		return nil, fmt.Errorf("pcrexform: pcrexform needs exactly one substring capture, found %d", n)
	}
	return &pcreX{pat: pat, re: re}, nil
}

func (x *pcreX) key() string { return "pcrexform:" + strconv.Quote(x.pat) }

func (x *pcreX) apply(dst, src []byte, s *Scratch) []byte {
	b, e, res := x.re.Group(src, 1, pcre.Limits{Match: PcrexformMatchTimeout}, &s.re)
	if res != pcre.Match || b < 0 {
		return src
	}
	return append(dst[:0], src[b:e]...)
}
