package rules

import (
	"strings"
	"testing"
)

// TestFrameKeyword: frame:<proto>.<name> and frame:<name> as DetectFrameSetup parses them;
// the errors are Suricata's (detect-frame.c DetectFrameTestBadRules and its SCLogError
// texts). The rules of SV tcp-urgp-01-oob and eve-payload-07-http-gap load.
func TestFrameKeyword(t *testing.T) {
	for _, c := range []struct {
		rule, buf, alproto, err string
	}{
		{`drop tcp any any -> any 9090 (frame:http1.request; content:"malicious"; nocase; sid:1;)`, "frame:http1.request", "http1", ""},
		{`alert http any any -> any any (frame:http1.response; content:"AAAA"; sid:3;)`, "frame:http1.response", "http", ""},
		{`alert http1 any any -> any any (frame:request; content:"A"; sid:3;)`, "frame:http1.request", "http1", ""},
		{`alert http1 any any -> any any (frame:HTTP1.Request; content:"A"; sid:3;)`, "", "", "unknown frame 'HTTP1.Request' for protocol 'HTTP1'"},
		{`alert tcp-pkt any any -> any any (frame:http1.request; content:"a"; sid:1;)`, "", "", "'frame' keyword only supported for TCP and UDP"},
		{`alert icmp any any -> any any (frame:http1.request; content:"a"; sid:1;)`, "", "", "'frame' keyword only supported for TCP and UDP"},
		{`alert tcp any any -> any any (frame:request; content:"a"; sid:1;)`, "", "", "rule protocol unknown, can't use shorthand notation for frame 'request'"},
		{`alert http1 any any -> any any (frame:http1.pdu; content:"a"; sid:1;)`, "", "", "unknown frame 'pdu' for protocol 'http1'"},
		{`alert dns any any -> any any (frame:http1.request; content:"a"; sid:1;)`, "", "", "frame 'http1.request' protocol 'http1' mismatch with rule protocol 'dns'"},
	} {
		r, err := Parse(c.rule)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.rule, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if r.Buffer(c.buf) == nil || r.AppProto != c.alproto {
			t.Errorf("%s: buffers %v alproto %q, want %s %s", c.rule, r.Buffers, r.AppProto, c.buf, c.alproto)
		}
	}
}
