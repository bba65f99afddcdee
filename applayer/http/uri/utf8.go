package uri

// The UTF-8 decoder below is Bjoern Hoehrmann's DFA ("Flexible and Economical
// UTF-8 Decoder", http://bjoern.hoehrmann.de/utf-8/decoder/dfa/, MIT
// licence, Copyright (c) 2008-2009 Bjoern Hoehrmann), driven the way libhtp's
// utf8_decoder.rs drives it: character classes from the variant that allows
// overlong forms, transitions from the strict table.

// utf8Class is the character-class half of the overlong-allowing table.
var utf8Class = [256]uint8{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 3, 3, 6, 6, 6, 6, 5, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
}

// utf8Trans is the state-transition half of the strict table (state 0
// accept, 1 reject, 2..8 incomplete), indexed by state*16+class.
var utf8Trans = [144]uint8{
	0, 1, 2, 3, 5, 8, 7, 1, 1, 1, 4, 6, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1,
	1, 2, 1, 1, 1, 1, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 2, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 3, 1, 3, 1, 1, 1, 1, 1, 1,
	1, 3, 1, 1, 1, 1, 1, 3, 1, 3, 1, 1, 1, 1, 1, 1,
	1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
}

// utf8Decoder is libhtp's Utf8Decoder.
type utf8Decoder struct {
	cfg       *Config
	state     uint32
	seq       uint32
	codepoint uint32
	flags     Flags
	seenValid bool
	out       []byte // output window (aliases the input: written behind the read position)
	w         int
	write     bool
}

func (d *utf8Decoder) push(b byte) {
	if d.write {
		d.out[d.w] = b
	}
	d.w++
}

func (d *utf8Decoder) step(b uint32) {
	t := uint32(utf8Class[b])
	if d.state != 0 {
		d.codepoint = (b & 0x3f) | (d.codepoint << 6)
	} else {
		d.codepoint = (0xff >> t) & b
	}
	idx := d.state*16 + t
	if idx < uint32(len(utf8Trans)) {
		d.state = uint32(utf8Trans[idx])
	} else {
		d.state = 1
	}
}

// decodeByte is Utf8Decoder::decode_byte.
func (d *utf8Decoder) decodeByte(b byte, last bool) {
	for {
		d.seq++
		d.step(uint32(b))
		switch d.state {
		case 0:
			if d.seq == 1 {
				d.push(byte(d.codepoint))
			} else {
				d.seenValid = true
				if (d.seq == 2 && d.codepoint < 0x80) || (d.seq == 3 && d.codepoint < 0x800) || (d.seq == 4 && d.codepoint < 0x10000) {
					d.flags |= FlagUTF8Overlong
				}
				if d.codepoint >= 0xff00 && d.codepoint <= 0xffef {
					d.flags |= FlagHalfFullRange
				}
				if d.codepoint < 0x100 {
					d.push(byte(d.codepoint))
				} else if d.codepoint <= 0xffff {
					d.push(d.cfg.bestfit(uint16(d.codepoint)))
				} else {
					d.push(d.cfg.BestfitReplacement)
				}
			}
			d.seq = 0
			return
		case 1:
			d.flags |= FlagInvalidUTF8
			d.state = 0
			d.codepoint = 0
			d.push(d.cfg.BestfitReplacement)
			if d.seq != 1 {
				// The byte may start the next character: decode it again.
				d.seq = 0
				continue
			}
			d.seq = 0
			return
		default:
			if last {
				for i := uint32(1); i < d.seq; i++ {
					d.push(d.cfg.BestfitReplacement)
				}
			}
			return
		}
	}
}
