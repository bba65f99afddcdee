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
	if d.File != FileOpen || d.FileSize != 6 {
		t.Errorf("file %d size %d, want open, 6", d.File, d.FileSize)
	}
	d.Parse(flow.ToClient, []byte("</html>"), 0)
	d.Parse(flow.ToClient, nil, applayer.EOF)
	if !d.Finished || d.td.Progress != [2]uint8{1, 1} {
		t.Errorf("after EOF: progress %v", d.td.Progress)
	}
	// FTPDataParse: FileOpenFileWithId with the first data, FileAppendData, FileCloseFile at
	// EOF; data after the end is not the file's.
	d.Parse(flow.ToClient, []byte("late"), 0)
	if d.File != FileClosed || d.FileSize != 13 {
		t.Errorf("after EOF: file %d size %d, want closed, 13", d.File, d.FileSize)
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

// TestDataStateNoFile: a transfer command without a file name (NLST, LIST) opens no file
// (FTPDataParse opens one only when data->file_name is set).
func TestDataStateNoFile(t *testing.T) {
	for _, c := range []struct {
		cmd  *TransferCmd
		want FileState
	}{
		{&TransferCmd{Cmd: CmdNLST, Dir: flow.ToClient}, FileNone},
		{&TransferCmd{Cmd: CmdLIST, Dir: flow.ToClient}, FileNone},
		{&TransferCmd{Cmd: CmdSTOR, Dir: flow.ToServer, FileName: []byte("up")}, FileClosed},
	} {
		p := &DataPool{}
		d := p.Get(applayer.FlowInfo{F: &flow.Flow{}, Expected: c.cmd}).(*DataState)
		d.Parse(c.cmd.Dir, []byte("a\r\nb\r\n"), 0)
		d.Parse(c.cmd.Dir, nil, applayer.EOF)
		if d.File != c.want {
			t.Errorf("%s: file %d, want %d", CommandName(c.cmd.Cmd), d.File, c.want)
		}
		p.Put(d)
		if d.File != FileNone || d.FileSize != 0 {
			t.Errorf("Reset kept the file")
		}
	}
}
