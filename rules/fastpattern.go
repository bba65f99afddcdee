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

// FastPattern returns the rule's prefilter pattern, chosen as Suricata 8 chooses it. ok is
// false for a rule without a content in a buffer the prefilter can use.
//
// A content marked fast_pattern is used as it is, looked for first in the packet payload
// (pkt_data) and then in the sticky buffers in rule order. Otherwise the choice is automatic:
//
//   - Only non-negated contents are considered, or the negated ones when the rule has no
//     other. Contents in base64_data are never considered: that list has no prefilter.
//   - Each buffer holding a considered content has a priority (lower ranks first: 2 for most
//     sticky buffers, 1 for the IKE ones, 3 for pkt_data and http.stat_msg, 4 for
//     http.method and http.stat_code); only the buffers with the best priority among them stay in the running.
//   - Among their contents the longest pattern wins (the full content length: a
//     fast_pattern chop does not count), then the strongest (PatternStrength), then the
//     first met. The buffers are walked payload first, then in rule order; Suricata walks
//     buffers of the same priority in its registration order instead, which Meerkat
//     approximates by rule order, so two equally long and strong contents in different
//     buffers of the same priority may resolve differently.
//   - In a transactional (=>) rule, buffers inspected only to the client (http.stat_code
//     ...) compete only when no other buffer holds a considered content. (Suricata then
//     also leaves the to-client part's own contents out of the length it compares; that
//     corner is not modelled.)
func (r *Rule) FastPattern() (fp FastPatternChoice, ok bool) {
	bufs := r.fastPatternBuffers()
	for _, b := range bufs {
		for _, m := range b.Matches {
			if m.Name == "absent" {
				// Suricata stops looking for fast_pattern in a buffer at absent.
				break
			}
			if c, isContent := m.Arg.(*Content); isContent && c.FastPattern {
				return FastPatternChoice{Buffer: b.Name, Content: c, Explicit: true}, true
			}
		}
	}
	hasPositive := false
	for _, b := range bufs {
		for _, m := range b.Matches {
			if c, isContent := m.Arg.(*Content); isContent && !c.Negated {
				hasPositive = true
			}
		}
	}
	considered := func(m *Option) (*Content, bool) {
		c, isContent := m.Arg.(*Content)
		if !isContent || c.Negated && hasPositive {
			return nil, false
		}
		return c, true
	}
	// In a transactional (=>) rule Suricata prefers a to-server buffer: to-client-only
	// buffers compete only when no other buffer holds a considered content, and then all of
	// them, whatever their priority (RetrieveFPForSig's SIG_FLAG_TXBOTHDIR handling).
	txBoth := r.Header.Direction == DirTransactional
	toClientOnly := func(b *Buffer) bool {
		return txBoth && b.Name != "pkt_data" && bufferInfo(b.Name).d == dirToClient
	}
	holds := func(b *Buffer) bool {
		for _, m := range b.Matches {
			if _, ok := considered(m); ok {
				return true
			}
		}
		return false
	}
	onlyToClient := txBoth
	for _, b := range bufs {
		if holds(b) && !toClientOnly(b) {
			onlyToClient = false
		}
	}
	// The competing buffers: those of the best priority among the buffers holding a
	// considered content (or, in a => rule with no other, every to-client buffer).
	bestPrio := -1
	for _, b := range bufs {
		if !holds(b) || toClientOnly(b) != onlyToClient {
			continue
		}
		if prio := fastPatternPriority(b.Name); bestPrio < 0 || prio < bestPrio {
			bestPrio = prio
		}
	}
	if bestPrio < 0 {
		return FastPatternChoice{}, false
	}
	competes := func(b *Buffer) bool {
		if toClientOnly(b) != onlyToClient {
			return false
		}
		return onlyToClient || fastPatternPriority(b.Name) == bestPrio
	}
	maxLen := -1
	for _, b := range bufs {
		if !competes(b) {
			continue
		}
		for _, m := range b.Matches {
			if c, ok := considered(m); ok && len(c.Pattern) > maxLen {
				maxLen = len(c.Pattern)
			}
		}
	}
	var best FastPatternChoice
	var bestStrength uint32
	for _, b := range bufs {
		if !competes(b) {
			continue
		}
		for _, m := range b.Matches {
			c, ok := considered(m)
			if !ok || len(c.Pattern) != maxLen {
				continue
			}
			if s := PatternStrength(c.Pattern); best.Content == nil || s > bestStrength {
				best, bestStrength = FastPatternChoice{Buffer: b.Name, Content: c}, s
			}
		}
	}
	return best, true
}

// fastPatternBuffers returns the buffers that can hold the prefilter pattern, in the order
// Suricata looks at them: the packet payload first, then the sticky buffers in rule order.
// base64_data has no prefilter and is left out.
func (r *Rule) fastPatternBuffers() []*Buffer {
	bufs := make([]*Buffer, 0, len(r.Buffers))
	for _, b := range r.Buffers {
		if b.Name == "pkt_data" {
			bufs = append(bufs, b)
		}
	}
	for _, b := range r.Buffers {
		if b.Name != "pkt_data" && b.Name != listBase64 {
			bufs = append(bufs, b)
		}
	}
	return bufs
}

// fastPatternPriority is the rank Suricata gives a buffer when it picks a rule's fast pattern
// automatically; a lower number ranks first. The packet payload (pkt_data) ranks 3, as does
// http.stat_msg; http.method and http.stat_code rank 4; the IKE buffers rank 1; every other
// sticky buffer ranks 2 (Suricata 8.0.6's registrations).
func fastPatternPriority(buffer string) int {
	switch buffer {
	case "pkt_data", "http.stat_msg":
		return 3
	case "http.method", "http.stat_code":
		return 4
	case "ike.init_spi", "ike.resp_spi", "ike.key_exchange_payload", "ike.nonce_payload", "ike.vendor":
		return 1
	}
	return 2
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
