package hs

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// etRulesDir finds the ET Open 2024-04 rule corpus of the shared reference material.
func etRulesDir() string {
	var cands []string
	if d := os.Getenv("MEERKAT_SHARED"); d != "" {
		cands = append(cands, filepath.Join(d, "corpus", "rules", "et-open-2024-04"))
	}
	cands = append(cands,
		filepath.Join("..", "..", "..", "shared", "corpus", "rules", "et-open-2024-04"),
		"/work/shared/corpus/rules/et-open-2024-04")
	for _, c := range cands {
		if m, _ := filepath.Glob(filepath.Join(c, "*.rules")); len(m) > 0 {
			return c
		}
	}
	return ""
}

var contentRe = regexp.MustCompile(`content:\s*"((?:[^"\\]|\\.)*)"`)

// decodeContent decodes a rule's content string: |hex| sections and backslash escapes.
func decodeContent(s string) ([]byte, bool) {
	var out []byte
	inHex := false
	var hexBuf strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '|':
			if inHex {
				h := strings.Join(strings.Fields(hexBuf.String()), "")
				b, err := hex.DecodeString(h)
				if err != nil {
					return nil, false
				}
				out = append(out, b...)
				hexBuf.Reset()
			}
			inHex = !inHex
		case inHex:
			hexBuf.WriteByte(c)
		case c == '\\' && i+1 < len(s):
			i++
			out = append(out, s[i])
		default:
			out = append(out, c)
		}
	}
	if inHex {
		return nil, false
	}
	return out, true
}

// ruleFastPattern picks one rule's MPM pattern roughly as Suricata does: the content marked
// fast_pattern, else the longest positive content.
func ruleFastPattern(rule string) (Pattern, bool) {
	locs := contentRe.FindAllStringSubmatchIndex(rule, -1)
	var best Pattern
	found, explicit := false, false
	for i, l := range locs {
		b, ok := decodeContent(rule[l[2]:l[3]])
		if !ok || len(b) == 0 {
			continue
		}
		end := len(rule)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		mods := rule[l[1]:end]
		p := Pattern{Bytes: b, Nocase: strings.Contains(mods, "nocase;")}
		fp := strings.Contains(mods, "fast_pattern")
		switch {
		case fp && !explicit:
			best, found, explicit = p, true, true
		case explicit:
		case !found || len(b) > len(best.Bytes):
			best, found = p, true
		}
	}
	return best, found
}

var etOnce = sync.OnceValues(func() ([]Pattern, string) {
	dir := etRulesDir()
	if dir == "" {
		return nil, "ET Open corpus not found (shared/corpus/rules/et-open-2024-04; set MEERKAT_SHARED)"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rules"))
	sort.Strings(files)
	var enabled, disabled []Pattern
	for _, fn := range files {
		f, err := os.Open(fn)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			off := strings.HasPrefix(line, "#")
			line = strings.TrimSpace(strings.TrimLeft(line, "#"))
			if !strings.HasPrefix(line, "alert") && !strings.HasPrefix(line, "drop") {
				continue
			}
			if p, ok := ruleFastPattern(line); ok {
				if off {
					disabled = append(disabled, p)
				} else {
					enabled = append(enabled, p)
				}
			}
		}
		f.Close()
	}
	seen := map[string]bool{}
	var out []Pattern
	for _, p := range append(enabled, disabled...) {
		k := string(p.Bytes)
		if p.Nocase {
			k += "\x00i"
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		p.ID = uint32(len(out))
		out = append(out, p)
	}
	return out, ""
})

// etPatterns returns up to n distinct real ET Open fast patterns (enabled rules first), or
// skips tb when the corpus is missing.
func etPatterns(tb testing.TB, n int) []Pattern {
	tb.Helper()
	ps, why := etOnce()
	if why != "" {
		tb.Skip(why)
	}
	if n <= 0 {
		return ps
	}
	if len(ps) < n {
		tb.Logf("ET corpus has only %d distinct fast patterns (wanted %d)", len(ps), n)
		n = len(ps)
	}
	return ps[:n]
}

func TestETCorpusExtraction(t *testing.T) {
	ps := etPatterns(t, 0)
	nocase, short := 0, 0
	for _, p := range ps {
		if p.Nocase {
			nocase++
		}
		if len(p.Bytes) < 4 {
			short++
		}
	}
	t.Logf("%d distinct fast patterns, %d nocase, %d shorter than 4 bytes", len(ps), nocase, short)
	if len(ps) < 20000 {
		t.Errorf("expected at least 20000 distinct patterns, got %d", len(ps))
	}
}
