package output

import (
	"strings"
	"sync"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/dns"
	"github.com/meerkat-ids/meerkat/applayer/ftp"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/applayer/smtp"
	"github.com/meerkat-ids/meerkat/applayer/ssh"
	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// AlertApp is the app-layer part of one alert record: the flow's app-layer view and, for a
// tx match (PACKET_ALERT_FLAG_TX), the transaction.
type AlertApp struct {
	// Flow is the flow's app-layer view on the alerting packet (nil: none).
	Flow *applayer.FlowApp
	// HasTx says the alert is a tx match (or a guessed one: Guessed); TxID is its tx id.
	HasTx, Guessed bool
	TxID           uint64
	// Tx is the transaction TxID names, nil when the flow's state no longer has it.
	Tx applayer.Tx
}

// xff is the alert's XFF address (JsonAlertLogger's part in AlertJson): for an HTTP/1 flow,
// the address of the alert's tx, or for a packet alert that of the first tx that has one;
// overwrite says it replaces an address rather than going into the alert object.
func (a *AlertApp) xff(opt *AlertOptions) (ip []byte, overwrite bool) {
	if a == nil || !opt.XFF.Enabled || a.Flow == nil || a.Flow.Proto != applayer.ProtoHTTP1 {
		return nil, false
	}
	var ok bool
	if a.HasTx {
		tx, _ := a.Tx.(*htp.Tx)
		ip, ok = XFFIP(&opt.XFF, tx)
	} else {
		ip, ok = httpXFFFirst(&opt.XFF, a.Flow.State)
	}
	if !ok {
		return nil, false
	}
	return ip, opt.XFF.Overwrite
}

// appLayer writes what a tx alert adds before app_proto (AlertAddAppLayer, AlertAddFiles):
// with metadata app-layer on, the tx's progress names and the protocol's object (http);
// with rule metadata on, the files of the tx in the packet's direction.
func (a *AlertApp) appLayer(j *JSON, dir flow.Direction, opt *AlertOptions) {
	if a == nil || !a.HasTx || a.Flow == nil {
		return
	}
	fa := a.Flow
	if opt.AppLayer {
		if a.Tx != nil && fa.Parser != nil {
			td := a.Tx.TxData()
			progressMember(j, "ts_progress", fa.Parser, flow.ToServer, td.Progress[flow.ToServer])
			progressMember(j, "tc_progress", fa.Parser, flow.ToClient, td.Progress[flow.ToClient])
		}
		switch fa.Proto {
		case applayer.ProtoHTTP1:
			tx, _ := a.Tx.(*htp.Tx)
			HTTPObject(j, tx, opt.HTTPBodyPrintable, opt.HTTPBody)
		case applayer.ProtoSSH:
			tx, _ := a.Tx.(*ssh.Tx)
			SSHObject(j, tx)
		case applayer.ProtoFTP:
			tx, _ := a.Tx.(*ftp.Tx)
			FTPObject(j, tx)
		case applayer.ProtoFTPData:
			tx, _ := a.Tx.(*ftp.DataState)
			FTPDataObject(j, tx)
		case applayer.ProtoSMTP:
			tx, _ := a.Tx.(*smtp.Tx)
			SMTPAlertObjects(j, tx)
		case applayer.ProtoDNS:
			if tx, ok := a.Tx.(*dns.Tx); ok {
				DNSObject(j, tx)
			}
		case applayer.ProtoTLS:
			st, _ := a.Tx.(*tls.State)
			TLSObject(j, st)
		}
	}
	if opt.Metadata {
		if tx, ok := a.Tx.(*htp.Tx); ok {
			files := tx.RequestFiles
			if dir == flow.ToClient {
				files = tx.ResponseFiles
			}
			if len(files) > 0 {
				j.Array("files")
				for i := range files {
					j.ElemObject()
					FileInfoMembers(j, &files[i], files[i].State, a.TxID, &opt.FileHashes)
					j.Close('}')
				}
				j.Close(']')
			}
		}
	}
}

// progressMember writes a progress value's name (AppLayerParserGetStateNameById); a value
// without a name is left out.
func progressMember(j *JSON, k string, p *applayer.Parser, d flow.Direction, v uint8) {
	if names := p.ProgressNames[d]; int(v) < len(names) {
		j.String(k, names[v])
	}
}

// Anomaly layers of app-layer events.
const (
	LayerProtoDetect = "proto_detect" // packet-level events of protocol detection
	LayerProtoParser = "proto_parser" // transaction events
	LayerParser      = "parser"       // parser-state events
)

// packetEventNames are the packet-level events as the anomaly record names them
// (app_layer_event_pkt_table: upper case).
var packetEventNames = func() (t [8]string) {
	for i := range t {
		t[i] = strings.ToUpper(applayer.PacketEvent(i).String())
	}
	return t
}()

// upperEvents are the protocols whose event tables are Suricata's C tables with upper-case
// names (http_decoder_event_table, tls_decoder_event_table, smtp_decoder_event_table); the
// Rust parsers' derived names are lower case.
func upperEvents(p applayer.Proto) bool {
	return p == applayer.ProtoHTTP1 || p == applayer.ProtoTLS || p == applayer.ProtoSMTP
}

var eventNameCache sync.Map // *applayer.Parser -> []string

// TxEventName returns a transaction event's name as the anomaly record writes it
// (AppLayerParserGetEventInfoById), "" for an id the parser has no name for.
func TxEventName(p *applayer.Parser, id uint8) string {
	if p == nil || int(id) >= len(p.Events) {
		return ""
	}
	if !upperEvents(p.Proto) {
		return p.Events[id]
	}
	if v, ok := eventNameCache.Load(p); ok {
		return v.([]string)[id]
	}
	names := make([]string, len(p.Events))
	for i, n := range p.Events {
		names[i] = strings.ToUpper(n)
	}
	eventNameCache.Store(p, names)
	return names[id]
}

// AppLayerAnomalies writes the anomaly records of the packet-level app-layer events of the
// packet (AnomalyJson's proto_detect part), one per event, calling line with each.
func AppLayerAnomalies(j *JSON, p *decode.Packet, f *flow.Flow, app *applayer.FlowApp, line func([]byte)) {
	if app == nil || app.Events == 0 {
		return
	}
	proto := appProtoName(app.Proto)
	for e := applayer.PacketEvent(0); e < 8; e++ {
		if app.Events.Has(e) {
			AnomalyAppLayerRecord(j, p, f, -1, proto, packetEventNames[e], uint8(e), LayerProtoDetect)
			line(j.B)
		}
	}
}

// TxAnomalies writes the anomaly records of the events of tx not logged yet (JsonAnomalyTxLogger:
// each event once), marking them in logged, calling line with each record.
func TxAnomalies(j *JSON, p *decode.Packet, f *flow.Flow, app *applayer.FlowApp, tx applayer.Tx, logged *applayer.Events, line func([]byte)) {
	td := tx.TxData()
	ev := td.Events
	for w := range ev {
		ev[w] &^= logged[w]
	}
	if ev.Empty() {
		return
	}
	proto := appProtoName(app.Proto)
	ev.Each(func(e uint8) {
		logged.Set(e)
		AnomalyAppLayerRecord(j, p, f, int64(td.ID), proto, TxEventName(app.Parser, e), e, LayerProtoParser)
		line(j.B)
	})
}

// appProtoName is AppLayerGetProtoName for the anomaly record.
func appProtoName(p applayer.Proto) string { return p.String() }
