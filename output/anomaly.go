package output

import (
	"strings"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// AnomalyOptions are the options of the eve-log anomaly type (Suricata's JsonAnomalyLogConf):
// which kinds of event it logs, and whether decode and stream records carry the packet's
// first bytes.
type AnomalyOptions struct {
	// Decode logs decoder events (types.decode, default off).
	Decode bool
	// Stream logs stream events (types.stream, default off).
	Stream bool
	// AppLayer logs app-layer events (types.applayer, default on).
	AppLayer bool
	// PacketHeader adds the packet's first 32 bytes to decode and stream records (packethdr,
	// default off; Suricata keeps it only when Decode is on).
	PacketHeader bool
}

// Anomaly types, the anomaly object's "type".
const (
	AnomalyDecode   = "decode"
	AnomalyStream   = "stream"
	AnomalyAppLayer = "applayer"
	AnomalyUnknown  = "unknown"
)

// anomalyPacketHdrLen is how much of the packet packethdr logs.
const anomalyPacketHdrLen = 32

// AnomalyEvent classifies a packet event as the anomaly logger writes it: its type and its
// event name. Decoder events are "decode" with Suricata's full name, "decoder." and the
// event's own name ("decoder.ipv4.trunc_pkt"); stream events, whose decode.Event names start
// with "stream.", are "stream" with that name as it is ("stream.3whs_ack_in_wrong_dir", the
// prefix kept, as Suricata writes its event table's name). Suricata counts the decoder's
// generic too_many_layers event, which its table places at the end of the packet events, as a
// stream event, and so does this. An event without a name is "unknown" (name "").
func AnomalyEvent(e decode.Event) (typ, name string) {
	n := e.String()
	switch {
	case n == "":
		return AnomalyUnknown, ""
	case strings.HasPrefix(n, "stream."):
		return AnomalyStream, n
	case n == "too_many_layers":
		return AnomalyStream, "decoder." + n
	}
	return AnomalyDecode, "decoder." + n
}

// AnomalyRecord writes one complete EVE `anomaly` record for the decoder or stream event e of
// packet p, in Suricata's key order (AnomalyDecodeEventJson): the packet header, the anomaly
// object (type and event, or type "unknown" and the event's code), then, with packetHdr, the
// packet's first 32 bytes in base64 and its link type. f may be nil.
func AnomalyRecord(j *JSON, p *decode.Packet, f *flow.Flow, e decode.Event, packetHdr bool) {
	j.Reset()
	j.Begin()
	PacketHeader(j, p, f, "anomaly")
	j.Object("anomaly")
	typ, name := AnomalyEvent(e)
	j.String("type", typ)
	if typ == AnomalyUnknown {
		j.Uint("code", uint64(e))
	} else {
		j.String("event", name)
	}
	j.Close('}')
	if packetHdr {
		data := p.Data
		if len(data) > anomalyPacketHdrLen {
			data = data[:anomalyPacketHdrLen]
		}
		packetObject(j, p.LinkType, data)
	}
	j.End()
}

// AnomalyLogs reports whether opt logs the event e (by its AnomalyEvent type): decode events
// need Decode, stream and unknown ones Stream, as in Suricata, where an event that is not a
// decoder packet event counts as a stream event.
func AnomalyLogs(opt AnomalyOptions, e decode.Event) bool {
	if typ, _ := AnomalyEvent(e); typ == AnomalyDecode {
		return opt.Decode
	}
	return opt.Stream
}

// AnomalyRecords writes the anomaly records of p's decoder and stream events that opt selects,
// one per event in ascending event order, calling line with each complete record (j's buffer,
// reused for the next one). It writes nothing when neither Decode nor Stream is on.
//
// Suricata logs a packet's events in the order they were raised, and an event raised twice
// twice; a decode.EventSet holds each event once, in the order of the event table, which
// follows the order of the layers.
func AnomalyRecords(j *JSON, p *decode.Packet, f *flow.Flow, opt AnomalyOptions, line func(rec []byte)) {
	if !opt.Decode && !opt.Stream || p.Events.Empty() {
		return
	}
	p.Events.Each(func(e decode.Event) {
		if AnomalyLogs(opt, e) {
			AnomalyRecord(j, p, f, e, opt.PacketHeader)
			line(j.B)
		}
	})
}

// AnomalyAppLayerRecord writes one complete EVE `anomaly` record for an app-layer event
// (AnomalyAppLayerDecoderEventJson): the packet header, tx_id when txID is not negative, and
// the anomaly object with app_proto, type "applayer", the event's name and the layer that
// raised it ("proto_detect", "proto_parser" or "parser"). code, with an empty event, writes
// type "unknown" and the event's code instead. f may be nil.
func AnomalyAppLayerRecord(j *JSON, p *decode.Packet, f *flow.Flow, txID int64, appProto, event string, code uint8, layer string) {
	j.Reset()
	j.Begin()
	PacketHeader(j, p, f, "anomaly")
	if txID >= 0 {
		j.Uint("tx_id", uint64(txID))
	}
	j.Object("anomaly")
	j.String("app_proto", appProto)
	if event != "" {
		j.String("type", AnomalyAppLayer)
		j.String("event", event)
	} else {
		j.String("type", AnomalyUnknown)
		j.Uint("code", uint64(code))
	}
	j.String("layer", layer)
	j.Close('}')
	j.End()
}
