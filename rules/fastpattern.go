package rules

// FastPatternChoice is the content a rule gives the prefilter, and where it is inspected.
type FastPatternChoice struct {
	// Buffer is the buffer the content inspects ("pkt_data" for the packet payload).
	Buffer string
	// Content is the chosen content.
	Content *Content
	// Explicit is true when the rule chose it with fast_pattern.
	Explicit bool
}

// Pattern returns the bytes the prefilter looks for: the content, or the slice chosen by a
// fast_pattern chop.
func (fp FastPatternChoice) Pattern() []byte {
	c := fp.Content
	if c.FastPatternChop {
		start := int(c.ChopOffset)
		end := start + int(c.ChopLength)
		if start <= len(c.Pattern) && end <= len(c.Pattern) {
			return c.Pattern[start:end]
		}
	}
	return c.Pattern
}

// FastPattern returns the rule's prefilter pattern, chosen as Suricata chooses it: the content
// marked fast_pattern; otherwise, preferring non-negated contents (negated ones only when the
// rule has no other), the longest content, and among equally long ones the strongest pattern
// (PatternStrength), then the first. ok is false for a rule without content.
//
// Suricata also ranks buffers by a registered priority before the length; Meerkat does not
// model those priorities yet (every buffer ranks alike), which can pick a different content
// in rules whose longest pattern sits in a lower-priority buffer.
func (r *Rule) FastPattern() (fp FastPatternChoice, ok bool) {
	var best FastPatternChoice
	found := false
	hasPositive := false
	for _, b := range r.Buffers {
		for _, m := range b.Matches {
			c, isContent := m.Arg.(*Content)
			if !isContent {
				continue
			}
			if c.FastPattern {
				return FastPatternChoice{Buffer: b.Name, Content: c, Explicit: true}, true
			}
			if !c.Negated {
				hasPositive = true
			}
		}
	}
	for _, b := range r.Buffers {
		for _, m := range b.Matches {
			c, isContent := m.Arg.(*Content)
			if !isContent || c.Negated && hasPositive {
				continue
			}
			if !found || len(c.Pattern) > len(best.Content.Pattern) ||
				len(c.Pattern) == len(best.Content.Pattern) && PatternStrength(c.Pattern) > PatternStrength(best.Content.Pattern) {
				best = FastPatternChoice{Buffer: b.Name, Content: c}
				found = true
			}
		}
	}
	return best, found
}

// PatternStrength scores how selective a pattern is, as Suricata does when it picks a fast
// pattern: each byte not seen before in the pattern adds 3 for a letter, 4 for another
// printable byte or 0x00, 0x01, 0xFF, and 6 for any other byte; a repeated byte adds 1.
func PatternStrength(p []byte) uint32 {
	var seen [256]bool
	var s uint32
	for _, c := range p {
		if seen[c] {
			s++
			continue
		}
		seen[c] = true
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			s += 3
		case c >= 0x20 && c < 0x7f || c == 0x00 || c == 0x01 || c == 0xff:
			s += 4
		default:
			s += 6
		}
	}
	return s
}
