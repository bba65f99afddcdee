package output

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/ftp"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestFTPRecord: the ftp object as EveFTPLogCommand writes it for a USER command and its
// reply (the values of the ftp-download-active capture's first record), and for PASV its
// dynamic port and mode.
func TestFTPRecord(t *testing.T) {
	s := ftp.NewPool(nil).NewState(nil)
	s.Parse(flow.ToServer, []byte("USER bob\r\n"), 0)
	s.Parse(flow.ToClient, []byte("220 FTP Sandbox Ready.\r\n331 Please specify the password.\r\n"), 0)
	s.Parse(flow.ToServer, []byte("PASV\r\n"), 0)
	s.Parse(flow.ToClient, []byte("227 Entering Passive Mode (172,23,0,2,39,16).\r\n"), 0)
	p, f := httpPacket(flow.ToClient)
	var j JSON
	FTPRecord(&j, p, f, flow.ToClient, s.TxAt(0).(*ftp.Tx))
	if !json.Valid(j.B) {
		t.Fatalf("invalid JSON %s", j.B)
	}
	want := `"event_type":"ftp",`
	if !bytes.Contains(j.B, []byte(want)) || bytes.Contains(j.B, []byte(`"tx_id"`)) {
		t.Errorf("header: %s", j.B)
	}
	want = `"ftp":{"command":"USER","command_data":"bob","command_truncated":false,"completion_code":["220","331"],` +
		`"reply":["FTP Sandbox Ready.","Please specify the password."],"reply_received":"yes","reply_truncated":false}}`
	if !bytes.HasSuffix(j.B, []byte(want)) {
		t.Errorf("got %s\nwant suffix %s", j.B, want)
	}
	FTPRecord(&j, p, f, flow.ToClient, s.TxAt(1).(*ftp.Tx))
	want = `"ftp":{"command":"PASV","completion_code":["227"],"reply":["Entering Passive Mode (172,23,0,2,39,16)."],` +
		`"dynamic_port":10000,"mode":"passive","reply_received":"yes","reply_truncated":false}}`
	if !bytes.HasSuffix(j.B, []byte(want)) {
		t.Errorf("got %s\nwant suffix %s", j.B, want)
	}
}

// TestFTPDataFileInfoRecord: the fileinfo record of an ftp-data RETR (JsonBuildFileInfoRecord
// with the ftp-data simple logger's ftp_data object; the file of
// ruletype-firewall-111-ftp-download-active: index.html, 39 bytes, closed at EOF), and a
// file still open at the flow's end logged as TRUNCATED.
func TestFTPDataFileInfoRecord(t *testing.T) {
	pool := ftp.DataParser.NewPool(nil)
	cmd := &ftp.TransferCmd{Cmd: ftp.CmdRETR, Dir: flow.ToClient, FileName: []byte("index.html")}
	p, f := httpPacket(flow.ToClient)
	d := pool.Get(applayer.FlowInfo{F: f, Expected: cmd}).(*ftp.DataState)
	d.Parse(flow.ToClient, bytes.Repeat([]byte("x"), 30), 0)
	d.Parse(flow.ToClient, bytes.Repeat([]byte("y"), 9), applayer.EOF)
	var j JSON
	FTPDataFileInfoRecord(&j, p, f, flow.ToClient, d, d.File)
	if !json.Valid(j.B) {
		t.Fatalf("invalid JSON %s", j.B)
	}
	want := `"event_type":"fileinfo",`
	if !bytes.Contains(j.B, []byte(want)) {
		t.Errorf("header: %s", j.B)
	}
	want = `"ftp_data":{"filename":"index.html","command":"RETR"},"app_proto":"ftp-data",` +
		`"fileinfo":{"filename":"index.html","gaps":false,"state":"CLOSED","stored":false,"size":39,"tx_id":0}}`
	if !bytes.HasSuffix(j.B, []byte(want)) {
		t.Errorf("got %s\nwant suffix %s", j.B, want)
	}
	FTPDataFileInfoRecord(&j, p, f, flow.ToClient, d, ftp.FileOpen)
	if !bytes.Contains(j.B, []byte(`"state":"TRUNCATED"`)) {
		t.Errorf("open file at the end: %s", j.B)
	}
}
