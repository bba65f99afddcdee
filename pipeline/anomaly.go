package pipeline

import "github.com/meerkat-ids/meerkat/output"

// logAnomalies writes the EVE anomaly records of the packet's decoder and stream events, one
// per event, when the anomaly type logs them (types.decode, types.stream). Suricata's anomaly
// logger is a packet logger: it sees every packet, with detection or without, after the
// loggers listed before it in eve-log.types (alert and drop in its suricata.yaml come first).
func (w *worker) logAnomalies(pc *packetCtx) {
	opt := w.cfg.Outputs.Anomaly
	if w.eve.W == nil || !opt.Decode && !opt.Stream || pc.p.Events.Empty() {
		return
	}
	output.AnomalyRecords(&w.json, pc.p, pc.f, opt, w.eve.Line)
}
