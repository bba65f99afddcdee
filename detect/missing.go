package detect

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/detect/transform"
	"github.com/meerkat-ids/meerkat/rules"
)

// Missing is one thing in a rule that the engine cannot evaluate yet: an app-layer protocol,
// a keyword (sticky buffer, transform or match keyword), an app-layer hook or the
// transactional direction. A rule with any of them is not loaded, so nothing runs
// half-evaluated. Its Error text is the reason the loader prints.
type Missing struct {
	// Kind is what is missing: "app-layer protocol" (one without a registered parser),
	// "keyword", "decode-event" or "stream-event" (an event Meerkat's decoder or stream
	// engine does not raise), "app-layer hook" (a proto:state hook whose protocol has no
	// parser naming that state) or "combination" (of inspection
	// kinds the engine cannot run together yet).
	Kind string
	// Name names it: the protocol ("http"), the keyword ("http.uri"), the hook
	// ("http1:request_line") or the combination ("pkt_data+app-layer").
	Name string
}

// Error gives the reason a rule with m fails to load.
func (m Missing) Error() string {
	switch m.Kind {
	case "combination":
		return fmt.Sprintf("%s content together with app-layer buffers in this rule is not supported yet", strings.TrimSuffix(m.Name, "+app-layer"))
	case "app-layer hook":
		return fmt.Sprintf("app-layer hook %s is not supported yet (its protocol has no parser with that state)", m.Name)
	default:
		return fmt.Sprintf("%s %s is not supported yet", m.Kind, m.Name)
	}
}

// Feature names m for a report: the keyword's name, or its kind and name.
func (m Missing) Feature() string {
	if m.Kind == "keyword" {
		return m.Name
	}
	return m.Kind + " " + m.Name
}

// Unsupported lists everything in r the engine cannot evaluate yet, each once, in the order
// the engine checks them (the first is the reason the rule fails with). An empty list means r
// waits for nothing; it can still fail on its own (a pcre neither regexp engine compiles, a
// threshold Suricata refuses).
func Unsupported(r *rules.Rule) []Missing { return missing(r, false) }

// missing finds what Unsupported reports, stopping at the first when firstOnly is set (the
// compile path, which needs only the reason).
func missing(r *rules.Rule, firstOnly bool) []Missing {
	var out []Missing
	add := func(m Missing) bool {
		for _, o := range out {
			if o == m {
				return false
			}
		}
		out = append(out, m)
		return firstOnly
	}
	h := &r.Header
	if h.Protocol.AppHook {
		// A hook is evaluated when its protocol has a parser that names the state
		// (SigParseProtoHookApp resolves it against the parser's progress names).
		if _, ok := hookOf(r); !ok {
			if add(Missing{"app-layer hook", h.Protocol.String()}) {
				return out
			}
		}
	}
	// A header's app-layer protocol is supported when a parser for it is registered (a
	// protocol a keyword implies is refused through that keyword).
	if ap := h.Protocol.AppProto; ap != "" {
		if alp, ok := applayer.ProtoByName(ap); !ok || alp == applayer.ProtoUnknown || len(txRuleProtos(alp)) == 0 {
			if add(Missing{"app-layer protocol", ap}) {
				return out
			}
		}
	}
	var hasTx, hasPkt, hasTCPHdr bool
	for _, b := range r.Buffers {
		if len(b.Matches) == 0 {
			continue
		}
		switch b.Name {
		case "pkt_data":
			hasPkt = true
		case "tcp.hdr":
			hasTCPHdr = true
		case "base64_data":
			// Inspected by the buffer that holds the base64_decode (payload.CompileRule).
		default:
			if isFrameBuffer(b.Name) {
				continue // frames are inspected on the packet (frame.go)
			}
			hasTx = true
		}
	}
	for _, b := range r.Buffers {
		if isFrameBuffer(b.Name) {
			if _, _, ok := frameTypeOf(b.Name); !ok {
				if add(Missing{"keyword", "frame"}) {
					return out
				}
			}
			if len(b.Transforms) > 0 && add(Missing{"keyword", b.Transforms[0].Name}) {
				return out
			}
			continue
		}
		if isTxBuffer(b.Name) && !txBufferKnown(r, b) {
			if add(Missing{"keyword", b.Name}) {
				return out
			}
		}
		for _, t := range b.Transforms {
			// Transforms apply to app-layer buffers (package transform); not yet to the
			// packet payload or tcp.hdr.
			if isTxBuffer(b.Name) {
				if _, err := transform.Compile([]*rules.Option{t}); err == nil {
					continue
				}
			}
			if add(Missing{"keyword", t.Name}) {
				return out
			}
		}
	}
	for _, kw := range r.Keywords() {
		if !Supported(kw) {
			if add(Missing{"keyword", kw}) {
				return out
			}
		}
	}
	if hasTx && hasPkt && h.Direction == rules.DirTransactional {
		// §2.5: the stream inspect engine of a tx rule.
		if add(Missing{"combination", "pkt_data+app-layer"}) {
			return out
		}
	}
	if hasTx && hasTCPHdr {
		if add(Missing{"combination", "tcp.hdr+app-layer"}) {
			return out
		}
	}
	for _, o := range r.Matches {
		if o.Name != "decode-event" && o.Name != "stream-event" {
			continue
		}
		if _, ok := match.DecodeEvent(o); !ok {
			if add(Missing{o.Name, strings.ToLower(o.Value)}) {
				return out
			}
		}
	}
	return out
}
