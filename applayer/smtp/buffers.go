package smtp

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// The inspection buffers of SMTP (src/detect-smtp.c, src/detect-email.c,
// src/detect-file-data.c): all to server, inspected from progress 0.

func asTx(x applayer.Tx) *Tx {
	t, _ := x.(*Tx)
	return t
}

var toServer = [2]bool{flow.ToServer: true}

func registerBuffers() {
	reg := func(b applayer.Buffer) {
		b.Proto = applayer.ProtoSMTP
		b.Dirs = toServer
		applayer.RegisterBuffer(b)
	}
	// smtp.helo: the flow's HELO/EHLO argument (GetSmtpHeloData: state->helo).
	reg(applayer.Buffer{Name: "smtp.helo",
		Get: func(x applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil || i != 0 {
				return nil, false
			}
			return t.Helo()
		}})
	reg(applayer.Buffer{Name: "smtp.mail_from",
		Get: func(x applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil || i != 0 || !t.HasMailFrom {
				return nil, false
			}
			return t.MailFrom, true
		}})
	reg(applayer.Buffer{Name: "smtp.rcpt_to", Multi: true,
		Get: func(x applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil || i < 0 || i >= t.nRcpt {
				return nil, false
			}
			return t.rcpt[i], true
		}})
	// email.*: the message's main headers (SCDetectMimeEmailGetData), present once the
	// header block ended.
	for _, h := range []struct{ buf, name string }{
		{"email.from", "from"}, {"email.subject", "subject"}, {"email.to", "to"},
		{"email.cc", "cc"}, {"email.date", "date"}, {"email.message_id", "message-id"},
		{"email.x_mailer", "x-mailer"},
	} {
		name := h.name
		reg(applayer.Buffer{Name: h.buf,
			Get: func(x applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
				t := asTx(x)
				if t == nil || i != 0 || t.Mime == nil {
					return nil, false
				}
				return t.Mime.Header(name)
			}})
	}
	reg(applayer.Buffer{Name: "email.received", Multi: true,
		Get: func(x applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil || t.Mime == nil {
				return nil, false
			}
			return t.Mime.HeaderAt("received", i)
		}})
	reg(applayer.Buffer{Name: "email.url", Multi: true,
		Get: func(x applayer.Tx, _ applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil || t.Mime == nil || i < 0 || i >= t.Mime.nURL {
				return nil, false
			}
			return t.Mime.urls[i], true
		}})
	// file.data: one instance per attachment, through the inspected-tracker window.
	reg(applayer.Buffer{Name: "file.data", Multi: true,
		Get: func(x applayer.Tx, _ applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil || i < 0 || i >= t.nFiles {
				return nil, false
			}
			return t.fileWindow(&t.files[i], ctx)
		},
		Inspected: func(x applayer.Tx, _ applayer.Dir, ctx *applayer.GetCtx) {
			t := asTx(x)
			if t == nil {
				return
			}
			for i := range t.nFiles {
				f := &t.files[i]
				if _, ok := t.fileWindow(f, ctx); ok {
					f.inspected = uint64(len(f.Data))
				}
			}
		}})
}

// fileWindow is FiledataGetDataCallback's window over a file with the SMTP inspect sizes
// (FileSetInspectSizes: content-inspect-window, content-inspect-min-size): nothing new ->
// none; in IDS mode inspection waits for the minimal size, the content limit, the file's
// close, the tx's end or EOF; then the new data plus history making up the window.
func (t *Tx) fileWindow(f *File, ctx *applayer.GetCtx) ([]byte, bool) {
	st := t.state
	if st == nil {
		return nil, false
	}
	c := st.cfg
	limit, minSize, window := uint64(c.ContentLimit), uint64(c.ContentInspectMinSize), uint64(c.ContentInspectWindow)
	have := uint64(len(f.Data))
	if have == 0 || f.inspected >= have {
		return nil, false
	}
	eof := ctx != nil && ctx.EOF
	inline := ctx != nil && ctx.Inline
	if !inline && (limit == 0 || have < limit) && have < minSize && f.State == FileOpen && !t.Done && !eof {
		return nil, false
	}
	var off uint64
	if f.inspected > minSize {
		nw := have - f.inspected
		if nw < window {
			if short := window - nw; f.inspected >= short {
				off = f.inspected - short
			}
		} else {
			off = f.inspected - window/4
		}
	}
	return f.Data[off:], true
}
