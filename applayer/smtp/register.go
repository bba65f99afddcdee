// Package smtp is the SMTP parser (src/app-layer-smtp.c) with its MIME decoder
// (rust/src/mime/smtp.rs): protocol detection, the command/reply state machine with
// pipelining, multi-line replies, DATA and BDAT, RSET and STARTTLS (a protocol change to
// TLS), one transaction per mail transaction, the attachments of a message as files, and
// the buffers smtp.helo, smtp.mail_from, smtp.rcpt_to, email.* and file.data.
package smtp

import (
	"bytes"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// probeMinLen is the probing parser's minimum (SMTPServerProbingParser needs 5 bytes);
// Suricata registers it with max_depth 5, so a banner that does not decide within the
// first data is given up on.
const probeMinLen = 5

// ProbeServer is SMTPServerProbingParser on the first to-client bytes: "220", a space or
// '-', a valid domain name, and the end of the line in the data. Suricata skips the domain
// check when the client side is already known as SMTP and answers "unknown" when the flow
// has no client bytes; a ProbeFunc sees neither, so the domain is always checked.
func ProbeServer(data []byte) applayer.ProbeResult {
	if len(data) < probeMinLen {
		return applayer.ProbeNeedMore
	}
	if data[0] != '2' || data[1] != '2' || data[2] != '0' || (data[3] != ' ' && data[3] != '-') {
		return applayer.ProbeFail
	}
	if validDomain(data[4:]) == 0 {
		return applayer.ProbeFail
	}
	if bytes.IndexByte(data[4:], '\n') >= 0 {
		return applayer.ProbeMatch
	}
	// unknown with at least max_depth bytes: the prober is given up (AppLayerProtoDetectPPGetProto)
	return applayer.ProbeFail
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' }

// label is parse_domain_label: alphanumerics and '-', starting with a letter, not ending
// with '-'; it returns the label's length, 0 for none.
func label(b []byte) int {
	n := 0
	for n < len(b) && (isAlnum(b[n]) || b[n] == '-') {
		n++
	}
	if n == 0 || !isAlpha(b[0]) || b[n-1] == '-' {
		return 0
	}
	return n
}

// validDomain is SCValidateDomain: one or more "label." then a label; it returns the
// length of the domain, 0 when there is none.
func validDomain(b []byte) int {
	off, subs := 0, 0
	for {
		n := label(b[off:])
		if n == 0 {
			break
		}
		if off+n < len(b) && b[off+n] == '.' {
			off += n + 1
			subs++
			continue
		}
		if subs == 0 {
			return 0
		}
		return off + n
	}
	// many1(subdomain) then a label: the last "label." must be followed by a label
	return 0
}

// Parser is SMTP's registration record (RegisterSMTPParsers): EHLO, HELO and QUIT at
// offset 0 to the server (case-insensitive), the banner prober on 25 and 465, progress 1/1
// (a tx is done or not) and no named states.
var Parser = &applayer.Parser{
	Proto:   applayer.ProtoSMTP,
	IPProto: 6,
	Patterns: [2][]applayer.Pattern{
		flow.ToServer: {
			{Bytes: []byte("EHLO"), Offset: 0, Depth: 4, NoCase: true},
			{Bytes: []byte("HELO"), Offset: 0, Depth: 4, NoCase: true},
			{Bytes: []byte("QUIT"), Offset: 0, Depth: 4, NoCase: true},
		},
	},
	Probe:     [2]applayer.ProbeFunc{flow.ToClient: ProbeServer},
	ProbeMin:  probeMinLen,
	ProbeMax:  lineLimit,
	Ports:     "25,465",
	Configure: Configure,
	NewPool:   func(cfg any) applayer.Pool { c, _ := cfg.(*Config); return NewPool(c) },
	Complete:  [2]uint8{1, 1},
	Events:    EventNames,
}

func init() {
	applayer.Register(Parser)
	registerBuffers()
}
