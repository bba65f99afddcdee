package detect

import (
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// streamMode is how a rule's payload content meets TCP data (Suricata's
// SIG_FLAG_REQUIRE_STREAM, SIG_FLAG_REQUIRE_PACKET and SIG_FLAG_REQUIRE_STREAM_ONLY, set by
// SigConsolidateTcpBuffer, tcp-stream / tcp-pkt and flow:only_stream / no_stream).
type streamMode struct {
	requireStream bool // inspects the reassembled stream first
	requirePacket bool // inspects packets too (depth/offset, stream_size, tcp-pkt, no_stream)
	onlyStream    bool // flow:only_stream: never the packet payload
	// notOnPseudo: the rule is not evaluated on a flow-end pseudo packet. Suricata's
	// DetectRulePacketRules skips SIG_TYPE_PKT rules there; IP-only rules run in the IP-only
	// engine on a direction's first packet only (DetectRunInspectIPOnly), which a pseudo
	// packet never is; tx rules run in DetectRunTx, which Meerkat does not have yet. The
	// other types (stream and packet+stream rules, like-IP-only, PD-only, DE-only, app-layer
	// rules without inspection engines) are evaluated on it.
	notOnPseudo bool
}

func streamModeOf(r *rules.Rule) streamMode {
	t := r.Type()
	return streamMode{requireStream: r.RequireStream, requirePacket: r.RequirePacket,
		onlyStream:  r.Flow != nil && r.Flow.OnlyStream,
		notOnPseudo: t == rules.TypePkt || t == rules.TypeIPOnly || t == rules.TypeAppTx}
}

// SetStream hands detection what the stream engine has for the next packet inspected:
// chunks, the raw stream data it inspects (one per contiguous block; the packet's StreamData
// must say so), and the session's stream sizes for stream_size (session false: no TCP
// session). The chunks must stay valid until Inspect returns; the pipeline calls SetStream
// before every Inspect of a TCP packet when the stream engine runs.
func (tc *ThreadCtx) SetStream(chunks [][]byte, session bool, clientSize, serverSize uint32) {
	tc.chunks = chunks
	tc.in.Session, tc.in.ClientSize, tc.in.ServerSize = session, clientSize, serverSize
}

// payloadMatches inspects the rule's payload content the way Suricata's
// DetectEngineInspectRulePayloadMatches does: a stream rule inspects the raw stream data of
// the packet first; without a match there, a stream-only rule whose packet went into the
// stream, or a flow:only_stream rule, does not match; otherwise the packet payload decides.
func (r *Rule) payloadMatches(tc *ThreadCtx, p *decode.Packet) bool {
	if !r.stream.requireStream {
		return r.payload.Inspect(p.Payload, tc.pst)
	}
	if p.StreamData {
		for _, c := range tc.chunks {
			if r.payload.Inspect(c, tc.pst) {
				tc.streamMatched = true
				return true
			}
		}
	}
	if !r.stream.requirePacket && p.StreamAdded || r.stream.onlyStream {
		return false
	}
	if p.Pseudo() {
		// A flow-end pseudo packet's payload is NULL (FlowPseudoPacketSetup), and
		// DetectEngineContentInspection matches nothing in a NULL buffer, not even a negated
		// content, which a real packet's empty payload can match.
		return false
	}
	return r.payload.Inspect(p.Payload, tc.pst)
}

// HasStreamRules reports whether any rule inspects the raw stream (REQUIRE_STREAM with
// payload content): without one the stream engine need not keep raw data for detection.
func (e *Engine) HasStreamRules() bool {
	for _, r := range e.rules {
		if r.stream.requireStream && r.payload != nil {
			return true
		}
	}
	return false
}

// RawStream reports whether a rule of the rule group of TCP packet p in direction dir
// inspects the raw stream (SIG_GROUP_HEAD_HAVERAWSTREAM): a stream rule whose group ports
// (destination ports to server, source ports to client) hold the packet's server port.
// Suricata disables raw reassembly of a flow direction whose first rule group has none
// (DetectRunPostGetFirstRuleGroup).
func (e *Engine) RawStream(p *decode.Packet, dir flow.Direction) bool {
	ports := e.rawPorts[dir]
	if ports == nil {
		return false
	}
	port := p.DstPort
	if dir == flow.ToClient {
		port = p.SrcPort
	}
	return ports[port>>6]&(1<<(port&63)) != 0
}

// noteRawStream marks, per direction, the server ports whose rule group holds a rule that
// inspects the raw stream (RawStream).
func (e *Engine) noteRawStream() {
	for _, r := range e.rules {
		if !r.stream.requireStream || r.payload == nil {
			continue
		}
		for _, dir := range [2]flow.Direction{flow.ToServer, flow.ToClient} {
			if !r.groupMember(decode.ProtoTCP, dir) {
				continue
			}
			if e.rawPorts[dir] == nil {
				e.rawPorts[dir] = new([1024]uint64)
			}
			for _, pr := range r.groupPorts(dir) {
				setBits(e.rawPorts[dir][:], uint32(pr.First), uint32(pr.Last))
			}
		}
	}
}

// setBits sets bits first..last (inclusive) of words, a word at a time where it can.
func setBits(words []uint64, first, last uint32) {
	for b := first; b <= last; {
		if b&63 == 0 && last-b >= 63 {
			words[b>>6] = ^uint64(0)
			b += 64
			continue
		}
		words[b>>6] |= 1 << (b & 63)
		b++
	}
}

// UsesStreamSize reports whether a rule uses stream_size: only then does detection need the
// session's stream sizes.
func (e *Engine) UsesStreamSize() bool {
	for _, r := range e.rules {
		for _, o := range r.Src.Matches {
			if o.Name == "stream_size" {
				return true
			}
		}
	}
	return false
}
