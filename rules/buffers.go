package rules

import (
	"strings"
)

// Buffer list handling: the active sticky list, transforms, and where each payload keyword
// goes. It follows Suricata's SignatureInitData logic (SCDetectBufferSetActiveList,
// DetectBufferGetActiveList, SCSigMatchAppendSMToList) so that the same rules are accepted and
// the same matches end up in the same buffers.

const (
	listPayload = ""            // the packet payload / stream (PMATCH)
	listBase64  = "base64_data" // base64_data
)

func (p *ruleParser) newBuffer(name, id string) *Buffer {
	b := &Buffer{Name: name, id: id}
	p.r.Buffers = append(p.r.Buffers, b)
	return b
}

func (p *ruleParser) payloadBuf() *Buffer {
	if p.payload == nil {
		p.payload = &Buffer{Name: "pkt_data", id: "pkt_data"}
		p.r.Buffers = append(p.r.Buffers, p.payload)
	}
	return p.payload
}

func (p *ruleParser) base64Buf() *Buffer {
	if p.base64 == nil {
		p.base64 = &Buffer{Name: listBase64, id: listBase64}
		p.r.Buffers = append(p.r.Buffers, p.base64)
	}
	return p.base64
}

// dynamic reports whether b is a sticky (app-layer or packet header) buffer.
func (p *ruleParser) dynamic(b *Buffer) bool { return b != p.payload && b != p.base64 }

// setActiveList makes a sticky buffer the active list.
func (p *ruleParser) setActiveList(name string, multi bool) error {
	if p.list == listBase64 {
		return errf("Rule buffer cannot be reset after base64_data.")
	}
	if p.list != "" && len(p.pending) > 0 {
		return errf("no matches following transform(s)")
	}
	p.list, p.listName, p.listSet = name, name, true
	if p.curbuf != nil && len(p.curbuf.Matches) == 0 {
		return errf("previous sticky buffer has no matches")
	}
	for _, b := range p.r.Buffers {
		if !p.dynamic(b) || b.id != name {
			continue
		}
		if b.smInit {
			b.smInit = false
			p.curbuf = b
			return nil
		}
		if multi || p.forceDir != "" {
			continue
		}
		p.curbuf = b
		return nil
	}
	b := p.newBuffer(name, name)
	b.multi = multi
	p.curbuf = b
	return nil
}

// setBuiltinList makes base64_data the active list (a built-in list, not a buffer).
func (p *ruleParser) setBuiltinList(name string) error {
	if p.list == listBase64 {
		return errf("Rule buffer cannot be reset after base64_data.")
	}
	if p.list != "" && len(p.pending) > 0 {
		return errf("no matches following transform(s)")
	}
	p.list, p.listName, p.listSet = name, name, true
	return nil
}

// activeList returns the list the next payload keyword goes to, applying pending transforms
// (DetectBufferGetActiveList).
func (p *ruleParser) activeList() (string, error) {
	if p.list != "" && len(p.pending) > 0 {
		if p.list == listBase64 {
			return "", errf("previous transforms not consumed")
		}
		var id strings.Builder
		id.WriteString(p.list)
		for _, t := range p.pending {
			id.WriteByte('|')
			id.WriteString(t.Name)
			if t.Value != "" {
				id.WriteByte(':')
				id.WriteString(t.Value)
			}
		}
		p.list = id.String()
		p.listSet = false
		if p.curbuf != nil && len(p.curbuf.Matches) > 0 {
			multi := p.curbuf.multi
			p.curbuf = p.newBuffer(p.listName, p.list)
			p.curbuf.multi = multi
		}
		if p.curbuf == nil {
			return "", errf("failed to setup buffer")
		}
		p.curbuf.id = p.list
		p.curbuf.Transforms = p.pending
		p.pending = nil
	}
	return p.list, nil
}

// appendTo adds a payload match to a list: "" is the payload, base64_data the decoded data,
// anything else a sticky buffer (found or created as SCSigMatchAppendSMToList does).
func (p *ruleParser) appendTo(list, name string, o *Option) *Buffer {
	var b *Buffer
	switch list {
	case listPayload:
		b = p.payloadBuf()
	case listBase64:
		b = p.base64Buf()
	default:
		if p.list != "" && list != p.list {
			p.list, p.listName = "", ""
		}
		if p.curbuf != nil && p.curbuf.id != list {
			for _, x := range p.r.Buffers {
				if p.dynamic(x) && x.id == list && !x.multi {
					p.curbuf = x
					break
				}
			}
		}
		if p.curbuf == nil || p.curbuf.id != list {
			p.curbuf = p.newBuffer(name, list)
			p.curbuf.smInit = true
		}
		b = p.curbuf
	}
	b.Matches = append(b.Matches, o)
	p.placed = append(p.placed, placement{o, b})
	p.matchSeq = append(p.matchSeq, o)
	p.lastSM = o
	return b
}

// appendPayload adds a payload keyword to the active list.
func (p *ruleParser) appendPayload(o *Option) (*Buffer, error) {
	list, err := p.activeList()
	if err != nil {
		return nil, err
	}
	return p.appendTo(list, p.listName, o), nil
}

// listOf returns the list id of the buffer holding a match.
func (p *ruleParser) listOf(o *Option) (list, name string) {
	b := p.bufferOf(o)
	switch {
	case b == nil || b == p.payload:
		return listPayload, ""
	case b == p.base64:
		return listBase64, listBase64
	}
	return b.id, b.Name
}

// lastMatch returns the most recent payload match (in any list) whose keyword is one of
// names (DetectGetLastSMFromLists).
func (p *ruleParser) lastMatch(names ...string) *Option {
	for i := len(p.matchSeq) - 1; i >= 0; i-- {
		o := p.matchSeq[i]
		for _, n := range names {
			if o.Name == n || n == "content" && isContentOpt(o) {
				return o
			}
		}
	}
	return nil
}

// lastInList returns the last match in the given buffer before 'before' (nil: the end) whose
// keyword is one of names.
func lastInList(b *Buffer, before *Option, names ...string) *Option {
	if b == nil {
		return nil
	}
	end := len(b.Matches)
	if before != nil {
		for i, m := range b.Matches {
			if m == before {
				end = i
				break
			}
		}
	}
	for i := end - 1; i >= 0; i-- {
		for _, n := range names {
			if b.Matches[i].Name == n || n == "content" && isContentOpt(b.Matches[i]) {
				return b.Matches[i]
			}
		}
	}
	return nil
}

// relativeTarget picks the list of a payload keyword that may be relative (isdataat,
// byte_test, byte_jump, byte_extract, byte_math): the active sticky list, else the list of
// the previous payload match for a relative keyword, else the payload.
func (p *ruleParser) relativeTarget(relative bool) (list, name string, err error) {
	if p.list != "" {
		l, err := p.activeList()
		return l, p.listName, err
	}
	if relative {
		if prev := p.lastMatch("content", "pcre", "byte_test", "byte_jump", "byte_extract", "isdataat", "byte_math"); prev != nil {
			l, n := p.listOf(prev)
			return l, n, nil
		}
	}
	return listPayload, "", nil
}

// addMatch adds a packet/flow keyword to the match list; addPostMatch to the post-match list.
func (p *ruleParser) addMatch(o *Option) {
	p.r.Matches = append(p.r.Matches, o)
	p.lastSM = o
}

func (p *ruleParser) addPostMatch(o *Option) {
	p.r.PostMatches = append(p.r.PostMatches, o)
	p.lastSM = o
}

// addAppMatch adds an app-layer keyword that Suricata keeps in its own list (tls.version,
// dns.opcode, app-layer-event ...): it becomes a buffer of its own, and the active sticky
// list is reset when it differs, as in Suricata.
func (p *ruleParser) addAppMatch(o *Option) {
	p.appendTo(o.Name, o.Name, o)
}

// isContentOpt reports whether o is a content (content or uricontent).
func isContentOpt(o *Option) bool {
	_, ok := o.Arg.(*Content)
	return ok
}

// bufferOf returns the buffer holding a payload match, or nil.
func (p *ruleParser) bufferOf(o *Option) *Buffer {
	for i := len(p.placed) - 1; i >= 0; i-- {
		if p.placed[i].o == o {
			return p.placed[i].b
		}
	}
	return nil
}

// moveTo records that a payload match moved to another buffer.
func (p *ruleParser) moveTo(o *Option, b *Buffer) {
	for i := range p.placed {
		if p.placed[i].o == o {
			p.placed[i].b = b
		}
	}
}
