package ftp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

func init() {
	applayer.Register(DataParser)
	// AppLayerExpectationCreate(f, direction, 0, dyn_port, ALPROTO_FTPDATA, data).
	Expect = func(f *flow.Flow, dir applayer.Dir, dport uint16, cmd *TransferCmd) error {
		applayer.Expect.Create(f, dir, 0, dport, applayer.ProtoFTPData, cmd, f.LastUnixNano/1e9)
		return nil
	}
	applayer.RegisterKeyword(applayer.Keyword{Name: "ftpdata_command", Proto: applayer.ProtoFTPData,
		Dirs: [2]bool{true, true},
		Compile: func(v string, _ bool) (applayer.TxMatch, error) {
			var want uint8
			// DetectFtpdataParse: ^\s*(stor|appe|stou|retr|nlst|list|mlsd)\s*$
			switch strings.TrimSpace(v) {
			case "stor":
				want = CmdSTOR
			case "appe":
				want = CmdAPPE
			case "stou":
				want = CmdSTOU
			case "retr":
				want = CmdRETR
			case "nlst":
				want = CmdNLST
			case "list":
				want = CmdLIST
			case "mlsd":
				want = CmdMLSD
			default:
				return nil, fmt.Errorf("ftpdata_command: invalid command value %q", v)
			}
			return func(tx applayer.Tx, _ applayer.Dir, _ *applayer.GetCtx) bool {
				d, ok := tx.(*DataState)
				return ok && d.Command == want
			}, nil
		}})
}

// DataParser is ftp-data's registration: no pattern or prober (an expectation finds it),
// one tx complete in each direction once the data direction ended.
var DataParser = &applayer.Parser{
	Proto:    applayer.ProtoFTPData,
	IPProto:  6,
	NewPool:  func(any) applayer.Pool { return &DataPool{} },
	Complete: [2]uint8{1, 1},
}

// DataState is an ftp-data flow's state and its single transaction (FtpDataState).
type DataState struct {
	td       applayer.TxData
	f        *flow.Flow
	expected *TransferCmd
	init     bool
	freed    bool
	// Command is the transfer command that opened the connection, FileName its file, Dir
	// the direction the data flows, Finished that it ended.
	Command  uint8
	FileName []byte
	Dir      applayer.Dir
	Finished bool
	// File is the state of the transferred file (FileOpenFileWithId with track id 0 when
	// the command named a file: one file per ftp-data flow), FileSize its bytes so far.
	File     FileState
	FileSize uint64
	pool     *DataPool
}

// FileState is the state of an ftp-data flow's file.
type FileState uint8

// The states of an ftp-data file.
const (
	// FileNone: no file (the command named none, or no data came yet).
	FileNone FileState = iota
	// FileOpen: data is being transferred.
	FileOpen
	// FileClosed: the data direction ended (FileCloseFile at EOF).
	FileClosed
)

var (
	errNoExpectation = errors.New("ftp-data: no transfer command")
	errDataGap       = errors.New("ftp-data: stream gap")
)

// TxData returns the framework data.
func (d *DataState) TxData() *applayer.TxData { return &d.td }

// TxCount is 1 until the tx is freed.
func (d *DataState) TxCount() int {
	if d.freed {
		return 0
	}
	return 1
}

// TxAt returns the tx (the state itself).
func (d *DataState) TxAt(int) applayer.Tx { return d }

// FreeTxs frees the tx.
func (d *DataState) FreeTxs(below uint64) {
	if below > 0 {
		d.freed = true
	}
}

// Reset empties the state.
func (d *DataState) Reset() {
	*d = DataState{pool: d.pool, FileName: d.FileName[:0]}
}

// Gap: ftp-data does not accept gaps either (RegisterFTPParsers sets no
// APP_LAYER_PARSER_OPT_ACCEPT_GAPS).
func (d *DataState) Gap(dir applayer.Dir, _ uint64) applayer.Result {
	r := applayer.Result{Err: errDataGap}
	r.TriggerRaw[dir] = true
	return r
}

// progress is FTPDataGetAlstateProgress: the data direction's state, the other direction
// finished; before the first data no direction is the data direction, so both are finished.
func (d *DataState) progress() {
	for dir := range 2 {
		d.td.Progress[dir] = 1
		if d.init && applayer.Dir(dir) == d.Dir && !d.Finished {
			d.td.Progress[dir] = 0
		}
	}
}

// Parse is FTPDataParse: the first data of the announced direction takes the transfer
// command (the control flow becomes the parent); data of the other direction is ignored;
// EOF of the data direction finishes the tx. A named file is tracked by its size and
// state only: its bytes are not kept (no file.data, no hashes).
func (d *DataState) Parse(dir applayer.Dir, data []byte, flags applayer.Flags) applayer.Result {
	d.td.Updated[dir] = true
	if !d.init && len(data) > 0 {
		cmd := d.expected
		if cmd == nil {
			return applayer.Result{Err: errNoExpectation}
		}
		if cmd.Dir != dir {
			return applayer.Result{Consumed: len(data)}
		}
		d.FileName = append(d.FileName[:0], cmd.FileName...)
		if d.f != nil {
			d.f.ParentID = cmd.FlowID
		}
		d.Command, d.Dir, d.init = cmd.Cmd, cmd.Dir, true
		d.expected = nil
		if len(d.FileName) > 0 {
			d.File, d.FileSize = FileOpen, 0 // FileOpenFileWithId with the first data
		}
	} else if !d.init || dir != d.Dir || d.Finished {
		return applayer.Result{Consumed: len(data)}
	}
	if d.File == FileOpen {
		d.FileSize += uint64(len(data)) // FileAppendData (no file data is kept)
	}
	if flags&applayer.EOF != 0 {
		d.Finished = true
		if d.File == FileOpen {
			d.File = FileClosed // FileCloseFile
		}
	}
	d.progress()
	return applayer.Result{Consumed: len(data)}
}

// DataPool is one worker's pool of ftp-data states.
type DataPool struct{ states []*DataState }

// Get returns a state for a flow an expectation announced (info.Expected: *TransferCmd).
func (p *DataPool) Get(info applayer.FlowInfo) applayer.State {
	var d *DataState
	if n := len(p.states); n > 0 {
		d = p.states[n-1]
		p.states = p.states[:n-1]
	} else {
		d = &DataState{pool: p}
	}
	d.progress()
	d.f = info.F
	d.expected, _ = info.Expected.(*TransferCmd)
	return d
}

// Put takes a state back.
func (p *DataPool) Put(st applayer.State) {
	if d, ok := st.(*DataState); ok && d.pool == p {
		d.Reset()
		p.states = append(p.states, d)
	}
}
