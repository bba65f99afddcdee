package ftp

import (
	"bytes"
	"net/netip"
)

// The port parsers of rust/src/ftp/mod.rs; each returns 0 when the text does not parse.

// cursor is a tiny parser over b (nom's complete combinators).
type cursor struct {
	b  []byte
	ok bool
}

func (c *cursor) tag(s string) {
	if c.ok && bytes.HasPrefix(c.b, []byte(s)) {
		c.b = c.b[len(s):]
		return
	}
	c.ok = false
}

func (c *cursor) space() { // multispace0
	for c.ok && len(c.b) > 0 && (c.b[0] == ' ' || c.b[0] == '\t' || c.b[0] == '\r' || c.b[0] == '\n') {
		c.b = c.b[1:]
	}
}

func (c *cursor) digits() []byte { // digit1
	if !c.ok {
		return nil
	}
	i := 0
	for i < len(c.b) && isDigit(c.b[i]) {
		i++
	}
	if i == 0 {
		c.ok = false
		return nil
	}
	d := c.b[:i]
	c.b = c.b[i:]
	return d
}

// u16 parses digit1 as u16 (u16::from_str: overflow fails).
func (c *cursor) u16() uint16 {
	d := c.digits()
	v := 0
	for _, x := range d {
		v = v*10 + int(x-'0')
		if v > 0xffff {
			c.ok = false
			return 0
		}
	}
	return uint16(v)
}

// getu16 is getu16: white space, digits, white space.
func (c *cursor) getu16() uint16 {
	c.space()
	v := c.u16()
	c.space()
	return v
}

func (c *cursor) until(s string) { // take_until + tag
	if !c.ok {
		return
	}
	i := bytes.Index(c.b, []byte(s))
	if i < 0 {
		c.ok = false
		return
	}
	c.b = c.b[i+len(s):]
}

func (c *cursor) port(hi, lo uint16) uint16 {
	if !c.ok || hi > 255 || lo > 255 {
		return 0
	}
	return hi*256 + lo
}

// parsePORT is ftp_active_port: "PORT", h1 (white space around), ",h2,h3,h4," then the two
// port bytes (each at most 255).
func parsePORT(b []byte) uint16 {
	c := cursor{b: b, ok: true}
	c.tag("PORT")
	c.space()
	c.digits()
	c.space()
	for range 3 {
		c.tag(",")
		c.digits()
	}
	c.tag(",")
	hi := c.u16()
	c.tag(",")
	lo := c.u16()
	return c.port(hi, lo)
}

// parsePASV is ftp_pasv_response: "227", up to "(", four numbers and commas, the port bytes
// (white space allowed around them), ")".
func parsePASV(b []byte) uint16 {
	c := cursor{b: b, ok: true}
	c.tag("227")
	c.until("(")
	for range 4 {
		c.digits()
		c.tag(",")
	}
	hi := c.getu16()
	c.tag(",")
	lo := c.getu16()
	c.tag(")")
	return c.port(hi, lo)
}

// parseEPSV is ftp_epsv_response: "229", up to "|||", the port, "|)".
func parseEPSV(b []byte) uint16 {
	c := cursor{b: b, ok: true}
	c.tag("229")
	c.until("|||")
	p := c.getu16()
	c.tag("|)")
	if !c.ok {
		return 0
	}
	return p
}

// parseEPRT is ftp_active_eprt: "EPRT", three "|"-ended fields, the port, "|".
func parseEPRT(b []byte) uint16 {
	c := cursor{b: b, ok: true}
	c.tag("EPRT")
	for range 3 {
		c.until("|")
	}
	p := c.getu16()
	c.tag("|")
	if !c.ok {
		return 0
	}
	return p
}

// Bounce is DetectFtpbounceMatchArgs: the address of a PORT line (from offset: its first
// digit on) differs from the client's (an FTP bounce). Octets over 256 or a character other
// than a digit, white space before a comma, or a comma end the check with no match.
func Bounce(line []byte, client netip.Addr, offset int) bool {
	if len(line) < 7 || offset+7 >= len(line) {
		return false
	}
	i := offset
	for i < len(line) && !isDigit(line[i]) {
		i++
	}
	octet, digits, n := 0, 0, 0
	var ip uint32
	for ; i < len(line) && digits < 4; i++ {
		c := line[i]
		if isDigit(c) {
			octet = int(c-'0') + octet*10
			digits++
			continue
		}
		if octet > 256 {
			return false
		}
		if isSpace(c) {
			for i < len(line) && isSpace(line[i]) {
				i++
			}
		}
		if i >= len(line) || line[i] != ',' {
			return false
		}
		n++
		digits = 0
		ip = ip<<8 + uint32(octet)
		octet = 0
		if n == 4 {
			// Suricata compares with the first 32 bits of the flow's source address.
			a := client.As16()
			if client.Is4() {
				a4 := client.As4()
				copy(a[:4], a4[:])
			}
			orig := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
			return ip != orig
		}
	}
	return false
}
