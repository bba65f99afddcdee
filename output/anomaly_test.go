package output

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

func TestAnomalyEvent(t *testing.T) {
	for _, tc := range []struct {
		e          decode.Event
		typ, event string
	}{
		{decode.EventIPv4TruncPkt, "decode", "decoder.ipv4.trunc_pkt"},
		{decode.EventEthernetPktTooSmall, "decode", "decoder.ethernet.pkt_too_small"},
		{decode.EventIPv6FragOverlap, "decode", "decoder.ipv6.frag_overlap"},
		{decode.EventNone, "unknown", ""},
		{decode.EventCount, "unknown", ""},
	} {
		if typ, ev := AnomalyEvent(tc.e); typ != tc.typ || ev != tc.event {
			t.Errorf("AnomalyEvent(%d %q) = %s %q, want %s %q", tc.e, tc.e.String(), typ, ev, tc.typ, tc.event)
		}
	}
	// Every named event is a decoder event with Suricata's "decoder." name, or a stream event
	// whose name is already "stream.<event>".
	decode.AllEvents(func(e decode.Event) {
		typ, ev := AnomalyEvent(e)
		switch {
		case strings.HasPrefix(e.String(), "stream."):
			if typ != AnomalyStream || ev != e.String() {
				t.Errorf("stream event %s: %s %q", e, typ, ev)
			}
		case typ != AnomalyDecode && e.String() != "too_many_layers" || ev != "decoder."+e.String():
			t.Errorf("decoder event %s: %s %q", e, typ, ev)
		}
	})
}

func TestAnomalyLogs(t *testing.T) {
	d := decode.EventIPv4TruncPkt
	if AnomalyLogs(AnomalyOptions{Stream: true, AppLayer: true}, d) || !AnomalyLogs(AnomalyOptions{Decode: true}, d) {
		t.Error("decode events follow types.decode")
	}
	// Unknown events are not decoder packet events: Suricata logs them with types.stream.
	if !AnomalyLogs(AnomalyOptions{Stream: true}, decode.EventCount) || AnomalyLogs(AnomalyOptions{Decode: true}, decode.EventCount) {
		t.Error("unknown events follow types.stream")
	}
}

func TestAnomalyRecordsGolden(t *testing.T) {
	t.Setenv("TZ", "UTC")
	p := samplePacket()
	p.LinkType = decode.LinkTypeEthernet
	for i := range p.Data {
		p.Data[i] = byte(i)
	}
	p.Events.Add(decode.EventTCPOptInvalidLen)
	p.Events.Add(decode.EventIPv4OptPadRequired)
	f := sampleFlow(p)
	var j JSON
	var all []byte
	line := func(rec []byte) { all = append(append(all, rec...), '\n') }

	// Decode events, in event-table order, with the flow and then without; packethdr.
	AnomalyRecords(&j, p, f, AnomalyOptions{Decode: true}, line)
	AnomalyRecords(&j, p, nil, AnomalyOptions{Decode: true, PacketHeader: true}, line)
	n := len(all)
	// Stream only: no decode events are logged.
	AnomalyRecords(&j, p, f, AnomalyOptions{Stream: true, AppLayer: true}, line)
	if len(all) != n {
		t.Errorf("stream-only logged decode events: %s", all[n:])
	}
	// An unknown event code (Suricata's type "unknown").
	AnomalyRecord(&j, p, f, decode.Event(255), false) // past any event table
	line(j.B)
	// App-layer events: protocol detection (no tx) and a parser event of transaction 0.
	AnomalyAppLayerRecord(&j, p, f, -1, "http", "APPLAYER_MISMATCH_PROTOCOL_BOTH_DIRECTIONS", 0, "proto_detect")
	line(j.B)
	AnomalyAppLayerRecord(&j, p, f, 0, "http", "", 200, "proto_parser")
	line(j.B)

	for i, l := range strings.Split(strings.TrimSpace(string(all)), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("line %d is not JSON: %v\n%s", i+1, err, l)
		}
		if v["event_type"] != "anomaly" {
			t.Errorf("line %d: event_type %v", i+1, v["event_type"])
		}
	}
	golden(t, "anomaly.golden", all)
}

// TestAnomalyRecordShortPacket: packethdr logs the whole packet when it is shorter than 32
// bytes; a packet without events writes nothing.
func TestAnomalyRecordShortPacket(t *testing.T) {
	p := &decode.Packet{Data: []byte{1, 2, 3}, LinkType: decode.LinkTypeRaw}
	var j JSON
	AnomalyRecord(&j, p, (*flow.Flow)(nil), decode.EventIPv4PktTooSmall, true)
	var v struct {
		Packet     []byte         `json:"packet"`
		PacketInfo map[string]any `json:"packet_info"`
		Anomaly    map[string]any `json:"anomaly"`
	}
	if err := json.Unmarshal(j.B, &v); err != nil {
		t.Fatalf("%v: %s", err, j.B)
	}
	if string(v.Packet) != "\x01\x02\x03" || v.PacketInfo["linktype"] != 12.0 || v.Anomaly["event"] != "decoder.ipv4.pkt_too_small" {
		t.Errorf("record %s", j.B)
	}
	called := false
	AnomalyRecords(&j, &decode.Packet{}, nil, AnomalyOptions{Decode: true, Stream: true}, func([]byte) { called = true })
	if called {
		t.Error("a packet without events has no anomaly records")
	}
}
