package dcerpc

import "testing"

// TestProbe pins probe() of rust/src/dcerpc/dcerpc.rs: version 5.0, packed_drep[0] & 0xee
// == 0 and packed_drep[1] <= 3 on a whole 16-byte header; types 0 (REQUEST) and 0x0e
// (ALTER_CONTEXT) are requests. The bind header is that of dcerpc-request-http-response's
// scapy script (a DCERPC bind, little-endian drep 10 00 00 00).
func TestProbe(t *testing.T) {
	hdr := func(b ...byte) []byte { return append(b, make([]byte, 16-len(b))...) }
	cases := []struct {
		name        string
		in          []byte
		ok, request bool
	}{
		{"bind", hdr(5, 0, 0x0b, 3, 0x10, 0, 0, 0, 0x48, 0), true, false},
		{"request", hdr(5, 0, 0x00, 3, 0x10, 0, 0, 0), true, true},
		{"alter context", hdr(5, 0, 0x0e, 3, 0x00, 0, 0, 0), true, true},
		{"short", []byte{5, 0, 0, 3, 0x10, 0, 0, 0}, false, false},
		{"minor 1", hdr(5, 1, 0, 3, 0x10, 0, 0, 0), false, false},
		{"version 4", hdr(4, 0, 0, 3, 0x10, 0, 0, 0), false, false},
		{"drep0 bits", hdr(5, 0, 0, 3, 0x12, 0, 0, 0), false, false},
		{"drep0 ebcdic", hdr(5, 0, 0, 3, 0x11, 0, 0, 0), true, true},
		{"drep1 float 4", hdr(5, 0, 0, 3, 0x10, 4, 0, 0), false, false},
		{"drep1 float 3", hdr(5, 0, 0, 3, 0x10, 3, 0, 0), true, true},
	}
	for _, c := range cases {
		ok, req := Probe(c.in)
		if ok != c.ok || ok && req != c.request {
			t.Errorf("%s: %v %v, want %v %v", c.name, ok, req, c.ok, c.request)
		}
		if confirm(c.in) != c.ok {
			t.Errorf("%s: confirm %v", c.name, !c.ok)
		}
	}
	if p := Parser.Patterns; len(p[0]) != 1 || len(p[1]) != 1 || string(p[0][0].Bytes) != "\x05\x00" || p[0][0].Offset != 0 {
		t.Fatalf("patterns %+v", p)
	}
}

// FuzzProbe: the prober never panics, and accepts only a whole header with version 5.0.
func FuzzProbe(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		if ok, _ := Probe(b); ok && (len(b) < headerLen || b[0] != 5 || b[1] != 0) {
			t.Fatalf("accepted %x", b)
		}
	})
}
