package pipeline

import (
	"github.com/meerkat-ids/meerkat/alert"
	"github.com/meerkat-ids/meerkat/applayer"
	dnsp "github.com/meerkat-ids/meerkat/applayer/dns"
	"github.com/meerkat-ids/meerkat/applayer/ftp"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/applayer/smtp"
	"github.com/meerkat-ids/meerkat/applayer/ssh"
	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/output"
)

// The tx loggers' bits in applayer.TxData.Logged: the http logger and the file logger (its
// LOGGER_FILE bit: every file of the tx is logged), and per direction the number of the tx's
// files already logged (bits 8-15 request files, 16-23 response files).
const (
	loggedHTTP  uint32 = 1 << 0
	loggedFiles uint32 = 1 << 1
	loggedSMTP  uint32 = 1 << 2
	loggedSSH   uint32 = 1 << 5
	loggedFTP   uint32 = 1 << 6
	loggedDNS   uint32 = 1 << 7
	loggedTLS   uint32 = 1 << 3
	// loggedTLSStore and loggedTLSStoreClient are the two tls-store loggers (the server's
	// chain, the client's: LOGGER_TLS_STORE, LOGGER_TLS_STORE_CLIENT).
	loggedTLSStore       uint32 = 1 << 4
	loggedTLSStoreClient uint32 = 1 << 24
	fileCountShift              = 8
	fileCountMax                = 0xff
)

// logTxs writes the transaction records (EVE http, fileinfo, app-layer anomalies) of the
// packet's flow that are ready: Suricata's tx loggers (OutputTxLog) after detection. A
// non-pseudo packet logs only when the app layer was updated in its direction, a TCP packet
// only once the session is established. A tx's http record is written once both its sides
// are complete, or at the flow's end (a pseudo packet) whatever its progress; files as they
// close, or, still open, as truncated at the flow's end (OutputTxLogFiles); the tx's app-layer
// events once each (JsonAnomalyTxLogger). The packet-level app-layer events (protocol
// detection's) are logged first, for every packet, as AnomalyJson logs them.
func (w *worker) logTxs(pc *packetCtx) {
	app := pc.app
	if app == nil || pc.f == nil {
		return
	}
	outs := &w.cfg.Outputs
	if outs.TLSStore != nil {
		w.logTLSStore(pc)
	}
	if w.eve.W == nil {
		return
	}
	if outs.Anomaly.AppLayer && app.Events != 0 {
		output.AppLayerAnomalies(&w.json, pc.p, pc.f, app, w.eve.Line)
	}
	if outs.EVESMTP && app.ProtoOrig == applayer.ProtoSMTP && w.app != nil {
		w.logOldSMTP(pc)
	}
	st := app.State
	if st == nil || app.Parser == nil {
		return
	}
	pseudo := pc.p.Pseudo()
	if !pseudo && !app.Updated[pc.dir] {
		return
	}
	if pc.f.Proto == decode.ProtoTCP && !pc.streamEst {
		return
	}
	// eof: Suricata's last pseudo packet or both directions at EOF. Meerkat's app layer does
	// not report the parsers' EOF flags, so every flow-end pseudo packet counts: their records
	// are the same whichever of the two logs them.
	eof := pseudo
	httpOn := outs.EVEHTTP && app.Proto == applayer.ProtoHTTP1
	anomalies := outs.Anomaly.AppLayer
	smtpOn := outs.EVESMTP && app.Proto == applayer.ProtoSMTP
	comp := app.Parser.Complete
	for i, n := 0, st.TxCount(); i < n; i++ {
		tx := st.TxAt(i)
		td := tx.TxData()
		// done: both sides complete, or the flow's end (the tx loggers' common condition).
		done := eof || td.Progress[flow.ToServer] >= comp[flow.ToServer] && td.Progress[flow.ToClient] >= comp[flow.ToClient]
		if dt, isDNS := tx.(*dnsp.Tx); isDNS {
			w.logTxAnomalies(pc, tx, anomalies)
			// JsonDnsLogger: a tx is complete when made, and logged on the packet that
			// carried it (or the first logging packet after).
			if outs.EVEDNS && td.Logged&loggedDNS == 0 {
				if output.DNSLogged(dt, &outs.DNS) {
					output.DNSRecords(&w.json, pc.p, pc.f, pc.dir, dt, &outs.DNS, w.eve.Line)
				}
				td.Logged |= loggedDNS
			}
			continue
		}
		if st, ok := tx.(*ssh.Tx); ok {
			w.logTxAnomalies(pc, tx, anomalies)
			w.logSSH(pc, app, st, eof)
			continue
		}
		if fd, ok := tx.(*ftp.DataState); ok {
			// OutputTxLogFiles: the file (in its direction's container, FTPDataGetTxFiles)
			// once closed, on a packet of its direction, or at the flow's end (an open one as
			// truncated).
			if outs.EVEFiles && td.Logged&loggedFiles == 0 && fd.File != ftp.FileNone &&
				(eof || fd.File == ftp.FileClosed && pc.dir == fd.Dir) {
				output.FTPDataFileInfoRecord(&w.json, pc.p, pc.f, pc.dir, fd, fd.File)
				w.eve.Line(w.json.B)
				td.Logged |= loggedFiles
			}
			if outs.EVEFTP && td.Logged&loggedFTP == 0 &&
				done {
				output.FTPDataRecord(&w.json, pc.p, pc.f, pc.dir, fd)
				w.eve.Line(w.json.B)
				td.Logged |= loggedFTP
			}
			continue
		}
		if ft, ok := tx.(*ftp.Tx); ok {
			w.logTxAnomalies(pc, tx, anomalies)
			// The JsonFTPLog tx logger: once both sides are complete (the reply is), or at
			// EOF.
			if outs.EVEFTP && td.Logged&loggedFTP == 0 &&
				done {
				output.FTPRecord(&w.json, pc.p, pc.f, pc.dir, ft)
				w.eve.Line(w.json.B)
				td.Logged |= loggedFTP
			}
			continue
		}
		ht, isHTTP := tx.(*htp.Tx)
		if outs.EVEFiles && isHTTP {
			w.logFiles(pc, app, ht, eof)
		}
		w.logTxAnomalies(pc, tx, anomalies)
		if httpOn && isHTTP && td.Logged&loggedHTTP == 0 &&
			done {
			output.HTTPRecord(&w.json, pc.p, pc.f, pc.dir, ht, &outs.HTTP)
			w.eve.Line(w.json.B)
			td.Logged |= loggedHTTP
		}
		if ts, ok := tx.(*tls.State); ok && outs.EVETLS && td.Logged&loggedTLS == 0 && output.TLSReady(ts, eof) {
			// JsonTlsLogger: once per flow, at handshake done or the flow's end; a flow
			// without a certificate (nor resumption, nor TLS 1.3) is marked without a record.
			if output.TLSWanted(ts, &outs.TLS) {
				output.TLSRecord(&w.json, pc.p, pc.f, pc.dir, ts, &outs.TLS, app.ProtoOrig)
				w.eve.Line(w.json.B)
			}
			td.Logged |= loggedTLS
		}
		st, isSMTP := tx.(*smtp.Tx)
		if isSMTP && outs.EVEFiles {
			w.logSMTPFiles(pc, st, eof)
		}
		// smtp: a mail transaction once done (progress 1/1), or at the flow's end
		if isSMTP && smtpOn && td.Logged&loggedSMTP == 0 && (eof || st.Done) {
			output.SMTPRecord(&w.json, pc.p, pc.f, pc.dir, st, &outs.SMTP)
			w.eve.Line(w.json.B)
			td.Logged |= loggedSMTP
		}
	}
}

// logTxAnomalies writes tx's app-layer events not logged yet (JsonAnomalyTxLogger), when
// anomaly records of type applayer are on.
func (w *worker) logTxAnomalies(pc *packetCtx, tx applayer.Tx, on bool) {
	if td := tx.TxData(); on && !td.Events.Empty() {
		output.TxAnomalies(&w.json, pc.p, pc.f, pc.app, tx, &td.EventsLogged, w.eve.Line)
	}
}

// logTLSStore runs the two tls-store tx loggers on the flow's TLS state, the server's chain
// first (LogTlsStoreLogger, then LogTlsStoreLoggerClient, in their registration order): each
// once per flow, when its condition holds (the side is marked by tls.store and its first
// certificate decoded), or at the flow's end whatever it says; the packet gating is
// OutputTxLog's, as logTxs has it.
func (w *worker) logTLSStore(pc *packetCtx) {
	ts, ok := pc.app.State.(*tls.State)
	if !ok || pc.app.Parser == nil || ts.TxCount() == 0 {
		return
	}
	pseudo := pc.p.Pseudo()
	if !pseudo && !pc.app.Updated[pc.dir] || pc.f.Proto == decode.ProtoTCP && !pc.streamEst {
		return
	}
	td := ts.TxData()
	store := w.cfg.Outputs.TLSStore
	if td.Logged&loggedTLSStore == 0 && (pseudo || output.TLSStoreReady(&ts.Server)) {
		store.Store(&w.certBuf, pc.p, pc.dir, &ts.Server, false)
		td.Logged |= loggedTLSStore
	}
	if td.Logged&loggedTLSStoreClient == 0 && (pseudo || output.TLSStoreReady(&ts.Client)) {
		store.Store(&w.certBuf, pc.p, pc.dir, &ts.Client, true)
		td.Logged |= loggedTLSStoreClient
	}
}

// logSSH writes tx's ssh record once (the JsonSshLog tx logger): when SCSshTxGetLogCondition
// holds, or at EOF whatever it says. The parser's EOF (APP_LAYER_PARSER_EOF_TS|TC, set with
// NO_INSPECTION when encryption starts, or on a parse error) is the flow's disabled app layer.
func (w *worker) logSSH(pc *packetCtx, app *applayer.FlowApp, tx *ssh.Tx, eof bool) {
	td := tx.TxData()
	if !w.cfg.Outputs.EVESSH || td.Logged&loggedSSH != 0 {
		return
	}
	if !(eof || app.Disabled || tx.LogReady()) {
		return
	}
	td.Logged |= loggedSSH // a tx without banner is done too (SCSshLogJson returned false)
	if output.SSHRecord(&w.json, pc.p, pc.f, pc.dir, tx) {
		w.eve.Line(w.json.B)
	}
}

// logFiles is OutputTxLogFiles for one HTTP tx: the files of the packet's direction that
// closed (at the flow's end every open file, as truncated), those of the other direction at
// the flow's end; the tx is done with files once the packet's direction is complete and the
// other has no file and is complete too (or at the end). A tx without files is done at once
// (not a file tx).
func (w *worker) logFiles(pc *packetCtx, app *applayer.FlowApp, tx *htp.Tx, eof bool) {
	td := tx.TxData()
	comp := app.Parser.Complete
	ready := [2]bool{td.Progress[0] >= comp[0], td.Progress[1] >= comp[1]}
	if len(tx.RequestFiles)+len(tx.ResponseFiles) == 0 {
		if eof || ready[0] && ready[1] { // no file can come any more
			td.Logged |= loggedFiles
		}
		return
	}
	d := pc.dir
	o := 1 - d
	w.logFileList(pc, app, tx, d, eof, eof)
	oppFinished := len(txFiles(tx, o)) == 0 && ready[o]
	if eof {
		w.logFileList(pc, app, tx, o, true, eof)
		oppFinished = true
	}
	if (eof || ready[d]) && oppFinished {
		td.Logged |= loggedFiles
	}
}

// logOldSMTP logs the smtp records of the SMTP state a STARTTLS upgrade set aside: Suricata's
// loggers still see the SMTP state on the packet whose 220 asked for the change (the state is
// swapped when the next data comes), so the STARTTLS transaction is logged there, and any
// other done one at the flow's end.
func (w *worker) logOldSMTP(pc *packetCtx) {
	pseudo := pc.p.Pseudo()
	if !pseudo && !pc.app.Updated[pc.dir] || pc.f.Proto == decode.ProtoTCP && !pc.streamEst {
		return
	}
	op, old := w.app.l.Old(pc.f)
	if op == nil || op.Proto != applayer.ProtoSMTP || old == nil {
		return
	}
	for i, n := 0, old.TxCount(); i < n; i++ {
		tx, ok := old.TxAt(i).(*smtp.Tx)
		if !ok {
			continue
		}
		td := tx.TxData()
		if td.Logged&loggedSMTP == 0 && (pseudo || tx.Done) {
			output.SMTPRecord(&w.json, pc.p, pc.f, pc.dir, tx, &w.cfg.Outputs.SMTP)
			w.eve.Line(w.json.B)
			td.Logged |= loggedSMTP
		}
	}
}

// logSMTPFiles is OutputTxLogFiles for an SMTP tx: its attachments (to server) are logged
// once closed, on a to-server packet, or all at the flow's end (an open one as truncated);
// the tx is done with files once it is done and every file is logged.
func (w *worker) logSMTPFiles(pc *packetCtx, tx *smtp.Tx, eof bool) {
	td := tx.TxData()
	if td.Logged&loggedFiles != 0 || (!eof && pc.dir != flow.ToServer) {
		return
	}
	files := tx.Files()
	done := int(td.Logged >> fileCountShift & fileCountMax)
	for i := done; i < len(files) && done < fileCountMax; i++ {
		st := files[i].State
		if eof && st == smtp.FileOpen {
			st = smtp.FileTruncated
		}
		if st == smtp.FileOpen {
			break
		}
		output.SMTPFileInfoRecord(&w.json, pc.p, pc.f, pc.dir, tx, &files[i], st)
		w.eve.Line(w.json.B)
		done++
	}
	td.Logged = td.Logged&^(fileCountMax<<fileCountShift) | uint32(done)<<fileCountShift
	if eof || tx.Done && done == len(files) {
		td.Logged |= loggedFiles
	}
}

func txFiles(tx *htp.Tx, d flow.Direction) []htp.File {
	if d == flow.ToClient {
		return tx.ResponseFiles
	}
	return tx.RequestFiles
}

// logFileList writes the fileinfo records of the files of direction d not logged yet
// (OutputFileLogFfc): a file is logged once it is no longer open; close or trunc make an open
// one truncated. Files of a direction come one after the other, so the first still open one
// ends the walk; the count of logged files is kept in the tx's Logged bits.
func (w *worker) logFileList(pc *packetCtx, app *applayer.FlowApp, tx *htp.Tx, d flow.Direction, closing, trunc bool) {
	td := tx.TxData()
	files := txFiles(tx, d)
	shift := fileCountShift + 8*uint(d)
	done := int(td.Logged >> shift & fileCountMax)
	for i := done; i < len(files) && done < fileCountMax; i++ {
		f := &files[i]
		st := f.State
		if (closing || trunc) && st < htp.FileClosed {
			st = htp.FileTruncated
		}
		if st <= htp.FileOpen {
			break
		}
		output.FileInfoRecord(&w.json, pc.p, pc.f, pc.dir, d, app, tx, f, st, &w.cfg.Outputs.Files)
		w.eve.Line(w.json.B)
		done++
	}
	td.Logged = td.Logged&^(fileCountMax<<shift) | uint32(done)<<shift
}

// txLogged reports whether every tx logger is done with tx (AppLayerParserTransactionsCleanup's
// logger_expectation): the http logger for HTTP/1 transactions when http records are
// written, the file logger when fileinfo records are.
func (w *worker) txLogged(tx applayer.Tx) bool {
	outs := &w.cfg.Outputs
	if _, ok := tx.(*tls.State); ok && outs.TLSStore != nil {
		const both = loggedTLSStore | loggedTLSStoreClient
		if tx.TxData().Logged&both != both {
			return false
		}
	}
	if w.eve.W == nil {
		return true
	}
	if _, ok := tx.(*dnsp.Tx); ok {
		return !outs.EVEDNS || tx.TxData().Logged&loggedDNS != 0
	}
	if _, ok := tx.(*tls.State); ok {
		return !outs.EVETLS || tx.TxData().Logged&loggedTLS != 0
	}
	if _, ok := tx.(*smtp.Tx); ok {
		l := tx.TxData().Logged
		return (!outs.EVESMTP || l&loggedSMTP != 0) && (!outs.EVEFiles || l&loggedFiles != 0)
	}
	if _, ok := tx.(*ssh.Tx); ok {
		return !outs.EVESSH || tx.TxData().Logged&loggedSSH != 0
	}
	switch tx.(type) {
	case *ftp.Tx, *ftp.DataState:
		return !outs.EVEFTP || tx.TxData().Logged&loggedFTP != 0
	}
	if _, ok := tx.(*htp.Tx); !ok {
		return true
	}
	l := tx.TxData().Logged
	return (!outs.EVEHTTP || l&loggedHTTP != 0) && (!outs.EVEFiles || l&loggedFiles != 0)
}

// logTxsEnd logs, when flow f ends, the transactions no flow-end pseudo packet logged (a run
// without detection has none, nor a flow that needed no flush): Suricata's pseudo packets
// run the tx loggers in every mode. A dropped flow gets no pseudo packet (FlowFinish is not
// run for it) and so nothing here either.
func (w *worker) logTxsEnd(f *flow.Flow) {
	outs := &w.cfg.Outputs
	if w.app == nil || w.eve.W == nil && outs.TLSStore == nil || f.Proto != decode.ProtoTCP || f.Action == flow.ActionDrop {
		return
	}
	app := w.app.l.App(f)
	if app.State == nil || app.State.TxCount() == 0 {
		return
	}
	if !outs.EVEHTTP && !outs.EVEFiles && !outs.EVESMTP && !outs.EVESSH && !outs.EVEFTP && !outs.EVETLS && !outs.Anomaly.AppLayer && outs.TLSStore == nil {
		return
	}
	p := &w.stream.pseudo
	setPseudoPacket(p, f, flow.ToClient, w.flows.Now(), 0)
	saved := app.Events
	app.Events = 0 // the packet-level events were the last real packet's, logged with it
	pc := packetCtx{p: p, f: f, dir: flow.ToClient, streamEst: true, app: app}
	w.logTxs(&pc)
	app.Events = saved
}

// alertApp is the app-layer part of an alert record with flags fl and tx txID on packet pc
// (nil without an app layer): the flow's view and, for a tx match, the tx (found by id among
// the live ones; nil if it is gone).
func (w *worker) alertApp(pc *packetCtx, fl alert.Flags, txID uint64) *output.AlertApp {
	if pc.app == nil {
		return nil
	}
	a := &w.appAlert
	*a = output.AlertApp{Flow: pc.app}
	if fl&alert.FlagTx != 0 && txID != alert.NoTx {
		a.HasTx, a.Guessed, a.TxID = true, fl&alert.FlagTxGuessed != 0, txID
		if st := pc.app.State; st != nil {
			for i, n := 0, st.TxCount(); i < n; i++ {
				if tx := st.TxAt(i); tx.TxData().ID == txID {
					a.Tx = tx
					break
				}
			}
		}
	}
	return a
}

// flowEndApp is, in a run without detection, what the flow-end pseudo packets of an ending
// TCP flow do for the app layer and the tx loggers (FlowFinish's pseudo packets go through
// the app layer and the loggers whether or not rules are loaded): each direction that needs
// it is flushed to the parser with EOF, then the tx loggers run. With detection,
// flushStream's pseudo packets do this.
func (w *worker) flowEndApp(f *flow.Flow) {
	if w.tc != nil || w.app == nil || w.stream == nil || f.Proto != decode.ProtoTCP || f.Action == flow.ActionDrop {
		return
	}
	st := w.stream
	needs := st.t.NeedsFlush(f)
	for _, dir := range [2]flow.Direction{flow.ToServer, flow.ToClient} {
		if !needs[dir] {
			continue
		}
		p := &st.pseudo
		setPseudoPacket(p, f, dir, w.flows.Now(), st.t.NextSeq(f, dir))
		f.SetPacketEstablished(true)
		st.t.PseudoPacket(f, dir)
		pc := packetCtx{p: p, f: f, dir: dir, streamEst: true}
		pc.app = w.appFlush(&pc)
		w.logTxs(&pc)
		w.appEnd(&pc)
	}
}
