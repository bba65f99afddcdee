package ftp

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestDataState follows FTPDataParse and FTPDataGetAlstateProgress: before data both
// directions are finished; the first data of the announced direction takes the command and
// the parent flow; data the other way is ignored; EOF finishes the data direction.
func TestDataState(t *testing.T) {
	f := &flow.Flow{}
	p := &DataPool{}
	cmd := &TransferCmd{FlowID: 77, Cmd: CmdRETR, Dir: flow.ToClient, FileName: []byte("index.html")}
	d := p.Get(applayer.FlowInfo{F: f, Expected: cmd}).(*DataState)
	if d.td.Progress != [2]uint8{1, 1} {
		t.Fatalf("initial progress %v", d.td.Progress)
	}
	d.Parse(flow.ToServer, []byte("x"), 0)
	if d.init {
		t.Fatal("data of the wrong direction initialised the state")
	}
	d.Parse(flow.ToClient, []byte("<html>"), 0)
	if !d.init || f.ParentID != 77 || string(d.FileName) != "index.html" || d.td.Progress != [2]uint8{1, 0} {
		t.Fatalf("after data: parent %d file %q progress %v", f.ParentID, d.FileName, d.td.Progress)
	}
	d.Parse(flow.ToClient, nil, applayer.EOF)
	if !d.Finished || d.td.Progress != [2]uint8{1, 1} {
		t.Errorf("after EOF: progress %v", d.td.Progress)
	}
	m, err := applayer.KeywordFor("ftpdata_command", applayer.ProtoFTPData).Compile("retr", false)
	if err != nil || !m(d, flow.ToClient, nil) {
		t.Errorf("ftpdata_command:retr: %v", err)
	}
	if m, _ := applayer.KeywordFor("ftpdata_command", applayer.ProtoFTPData).Compile(" stor ", false); m(d, flow.ToClient, nil) {
		t.Error("ftpdata_command:stor matched RETR")
	}
	if _, err := applayer.KeywordFor("ftpdata_command", applayer.ProtoFTPData).Compile("RETR", false); err == nil {
		t.Error("upper-case RETR accepted (the regex is case-sensitive)")
	}
	// Without a transfer command the parser fails (FlowGetStorageById returned NULL).
	d2 := p.Get(applayer.FlowInfo{F: f}).(*DataState)
	if r := d2.Parse(flow.ToServer, []byte("x"), 0); r.Err == nil {
		t.Error("no error without a transfer command")
	}
}
