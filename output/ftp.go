package output

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/ftp"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// FTPRecord writes the EVE ftp record of tx (JsonGenericDirFlowLogger with EveFTPLogCommand):
// the flow-direction header without tx_id, then the ftp object.
func FTPRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, tx *ftp.Tx) {
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, dir, flow.ToServer, "ftp", nil, nil)
	FTPObject(j, tx)
	j.End()
}

// FTPObject writes the "ftp" object (src/output-json-ftp.c EveFTPLogCommand): command,
// command_data and command_truncated for a known command, completion_code and reply arrays
// of the reply lines, dynamic_port, mode for PORT/EPRT/PASV/EPSV, reply_received and
// reply_truncated.
func FTPObject(j *JSON, tx *ftp.Tx) {
	if tx == nil {
		return
	}
	j.Object("ftp")
	if name, ok := tx.Command(); ok {
		j.String("command", name)
		if data, ok := tx.EVECommandData(); ok {
			j.Bytes("command_data", data)
			_, trunc := tx.Request()
			j.Bool("command_truncated", trunc)
		}
	}
	replyTrunc := false
	codes, texts := 0, 0
	for i := range tx.Replies() {
		code, text, trunc := tx.Reply(i)
		replyTrunc = replyTrunc || trunc
		if len(code) > 0 {
			codes++
		}
		if len(text) > 0 {
			texts++
		}
	}
	if codes > 0 {
		j.Array("completion_code")
		for i := range tx.Replies() {
			if code, _, _ := tx.Reply(i); len(code) > 0 {
				elemBytes(j, code)
			}
		}
		j.Close(']')
	}
	if texts > 0 {
		j.Array("reply")
		for i := range tx.Replies() {
			if _, text, _ := tx.Reply(i); len(text) > 0 {
				elemBytes(j, text)
			}
		}
		j.Close(']')
	}
	if tx.DynPort != 0 {
		j.Uint("dynamic_port", uint64(tx.DynPort))
	}
	switch tx.Code() {
	case ftp.CmdPORT, ftp.CmdEPRT, ftp.CmdPASV, ftp.CmdEPSV:
		if tx.Active {
			j.String("mode", "active")
		} else {
			j.String("mode", "passive")
		}
	}
	if tx.Done {
		j.String("reply_received", "yes")
	} else {
		j.String("reply_received", "no")
	}
	j.Bool("reply_truncated", replyTrunc)
	j.Close('}')
}

// elemBytes adds a string from bytes as the next element of the current array.
func elemBytes(j *JSON, v []byte) {
	j.sep()
	j.B = appendJSONBytes(j.B, v)
}

// FTPDataRecord writes the EVE ftp_data record (JsonGenericDirFlowLogger with
// EveFTPDataAddMetadata, event type "ftp_data").
func FTPDataRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, d *ftp.DataState) {
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, dir, flow.ToServer, "ftp_data", nil, nil)
	FTPDataObject(j, d)
	j.End()
}

// FTPDataObject writes the "ftp_data" object: filename when the command named one, and the
// command for the transfer commands.
func FTPDataObject(j *JSON, d *ftp.DataState) {
	if d == nil {
		return
	}
	j.Object("ftp_data")
	if len(d.FileName) > 0 {
		j.Bytes("filename", d.FileName)
	}
	switch d.Command {
	case ftp.CmdSTOR, ftp.CmdAPPE, ftp.CmdSTOU, ftp.CmdRETR, ftp.CmdNLST, ftp.CmdLIST, ftp.CmdMLSD:
		j.String("command", ftp.CommandName(d.Command))
	}
	j.Close('}')
}

// FTPDataFileInfoRecord writes the EVE fileinfo record of ftp-data flow d's file
// (JsonBuildFileInfoRecord for ALPROTO_FTPDATA): the header in the file's direction, the
// ftp_data object (the protocol's simple logger, EveFTPDataAddMetadata), app_proto and the
// fileinfo object with state st (CLOSED, or TRUNCATED for a file still open at the flow's
// end); the file is tx 0, never has gaps (ftp-data stops at a gap) and is not stored.
func FTPDataFileInfoRecord(j *JSON, p *decode.Packet, f *flow.Flow, pktDir flow.Direction, d *ftp.DataState, st ftp.FileState) {
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, pktDir, d.Dir, "fileinfo", nil, nil)
	FTPDataObject(j, d)
	j.String("app_proto", applayer.ProtoFTPData.String())
	j.Object("fileinfo")
	setBytes(j, "filename", d.FileName)
	j.Bool("gaps", false)
	if st == ftp.FileClosed {
		j.String("state", "CLOSED")
	} else {
		j.String("state", "TRUNCATED")
	}
	j.Bool("stored", false)
	j.Uint("size", d.FileSize)
	j.Uint("tx_id", d.TxData().ID)
	j.Close('}')
	j.End()
}
