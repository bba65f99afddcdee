package rules

import (
	"slices"
	"strings"
)

// FrameBufferPrefix starts the Buffer.Name of a frame sticky buffer: "frame:" and the
// lower-cased "<proto>.<frame type>" (frame:http1.request).
const FrameBufferPrefix = "frame:"

// frameTypes are the frame types per app-layer protocol that Meerkat's parsers produce
// (Suricata's per-parser GetFrameIdByName tables: HTTP/1 HttpFrameTypes). Frames of other
// protocols are refused at rule load as Suricata refuses a name no parser knows.
var frameTypes = map[string][]string{
	"http1": {"request", "response"},
}

// FrameTypeNames returns the frame type names of an app-layer protocol ("http1"), nil for
// none.
func FrameTypeNames(alproto string) []string { return frameTypes[alproto] }

func init() {
	register(&Keyword{Name: "frame", Kind: KindStickyBuffer, Desc: "sticky buffer for inspecting app-layer frames",
		setup: setupFrame})
}

// setupFrame is DetectFrameSetup: frame:<proto>.<name>, or frame:<name> with the rule's own
// protocol; the rule becomes bound to the frame's protocol and the following payload
// keywords inspect the frame's bytes.
func setupFrame(p *ruleParser, o *Option, arg string) error {
	r := p.r
	hp := r.Header.Protocol
	isTCP := hp.IPProtos == nil || slices.Contains(hp.IPProtos, 6)
	isUDP := hp.IPProtos == nil || slices.Contains(hp.IPProtos, 17)
	if !(isTCP || isUDP) || hp.OnlyPacket {
		return errf("'frame' keyword only supported for TCP and UDP")
	}
	val, proto, dotted := arg, "", false
	if i := strings.IndexByte(arg, '.'); i >= 0 {
		proto, val, dotted = arg[:i], arg[i+1:], true
	}
	short := !dotted
	kwProto := ""
	if dotted {
		if alp, ok := lookupAppProto(proto, nil); ok {
			kwProto = alp
		} else {
			short = true
		}
	}
	if short {
		kwProto = r.AppProto
	}
	switch {
	case short && r.AppProto == "":
		return errf("rule protocol unknown, can't use shorthand notation for frame '%s'", arg)
	case r.AppProto == "":
		if err := p.setAppProto(kwProto); err != nil {
			return err
		}
	case appProtoCommon(r.AppProto, kwProto) == "" && appProtoCommon(kwProto, r.AppProto) == "":
		return errf("frame '%s' protocol '%s' mismatch with rule protocol '%s'", arg, kwProto, r.AppProto)
	}
	name := val
	if short {
		name = arg
	}
	// The frame types are those of the protocol's parser; "http" rules reach HTTP/1's.
	types := frameTypes[kwProto]
	if kwProto == "http" {
		types = frameTypes["http1"]
	}
	found := false
	for _, t := range types {
		if strings.EqualFold(t, name) {
			found = true
		}
	}
	if !found {
		pr := proto
		if !dotted {
			pr = "(null)"
		}
		return errf("unknown frame '%s' for protocol '%s'", name, pr)
	}
	buf := strings.ToLower(arg)
	if short {
		buf = strings.ToLower(r.AppProto + "." + arg)
	}
	if strings.HasPrefix(buf, "http.") {
		buf = "http1." + buf[len("http."):]
	}
	return p.setActiveList(FrameBufferPrefix+buf, false)
}
