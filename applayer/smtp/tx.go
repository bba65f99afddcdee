package smtp

import "github.com/meerkat-ids/meerkat/applayer"

// FileState is a file's state (FILE_STATE_*).
type FileState uint8

// The file states.
const (
	FileOpen FileState = iota + 1
	FileClosed
	FileTruncated
)

// File is an attachment of a mail transaction (or the raw message "rawmsg" with
// raw-extraction): its name, size and the bytes kept for file.data (the first
// inspected-tracker content-limit bytes).
type File struct {
	Name  []byte
	Size  uint64
	State FileState
	Data  []byte
	// inspected is how much of Data detection has seen (the file.data window).
	inspected uint64
}

// Tx is one SMTP transaction (SMTPTransaction): a mail transaction from its first command
// to the reply to the end of its data (or RSET, or STARTTLS).
type Tx struct {
	data  applayer.TxData
	state *State
	// Done is the tx's progress (SMTPStateGetAlstateProgress: done, both directions).
	Done bool
	// isData says the tx has seen a DATA command.
	isData bool
	// MailFrom is the MAIL FROM argument, HasMailFrom whether there was one.
	MailFrom    []byte
	HasMailFrom bool
	// rcpt[:nRcpt] are the RCPT TO arguments.
	rcpt  [][]byte
	nRcpt int
	// Mime is the message's MIME state (nil without DATA or with decode-mime off).
	Mime    *Mime
	mimeBuf Mime
	// files[:nFiles] are the tx's files (to server).
	files  []File
	nFiles int
}

// TxData implements applayer.Tx.
func (t *Tx) TxData() *applayer.TxData { return &t.data }

// RcptTo returns the RCPT TO arguments in order.
func (t *Tx) RcptTo() [][]byte { return t.rcpt[:t.nRcpt] }

// Files returns the tx's files in order.
func (t *Tx) Files() []File { return t.files[:t.nFiles] }

// Helo returns the flow's HELO/EHLO argument (stored per flow: every tx sees it).
func (t *Tx) Helo() ([]byte, bool) {
	if t.state == nil || !t.state.hasHelo {
		return nil, false
	}
	return t.state.helo, true
}

func (t *Tx) reset(st *State, id uint64) {
	t.data.Reset(id)
	t.state = st
	t.Done, t.isData = false, false
	t.MailFrom, t.HasMailFrom = t.MailFrom[:0], false
	t.nRcpt = 0
	t.Mime = nil
	t.nFiles = 0
}

func (t *Tx) addRcpt(v []byte) {
	if t.nRcpt >= MaxRcptTo {
		return
	}
	if t.nRcpt == len(t.rcpt) {
		t.rcpt = append(t.rcpt, nil)
	}
	t.rcpt[t.nRcpt] = append(t.rcpt[t.nRcpt][:0], v...)
	t.nRcpt++
}

// openFile starts a file named name (FileOpenFileWithId).
func (t *Tx) openFile(name []byte) {
	if t.nFiles == len(t.files) {
		t.files = append(t.files, File{})
	}
	f := &t.files[t.nFiles]
	f.Name = append(f.Name[:0], name...)
	f.Size, f.State, f.Data, f.inspected = 0, FileOpen, f.Data[:0], 0
	t.nFiles++
}

// curFile is the last file while it is open, nil otherwise.
func (t *Tx) curFile() *File {
	if t.nFiles == 0 || t.files[t.nFiles-1].State != FileOpen {
		return nil
	}
	return &t.files[t.nFiles-1]
}

// appendFile is FileAppendData on the open file: the bytes are counted, the first
// content-limit of them kept.
func (t *Tx) appendFile(b []byte, limit uint32) {
	f := t.curFile()
	if f == nil || len(b) == 0 {
		return
	}
	f.Size += uint64(len(b))
	if room := int(limit) - len(f.Data); room > 0 {
		f.Data = append(f.Data, b[:min(room, len(b))]...)
	}
}

func (t *Tx) closeFile() {
	if f := t.curFile(); f != nil {
		f.State = FileClosed
	}
}
