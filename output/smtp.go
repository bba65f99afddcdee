package output

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/meerkat-ids/meerkat/applayer/smtp"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// SMTPOptions are the eve-log smtp type's options as OutputEmailInitConf keeps them: the
// custom email fields (a bit per emailFields entry) and the md5 choices.
type SMTPOptions struct {
	Custom     uint32
	BodyMD5    bool
	SubjectMD5 bool
	// NoHashing is g_disable_hashing: no md5 members.
	NoHashing bool
}

// emailField is one entry of output-json-email-common.c's email_fields.
type emailField struct {
	config, header string
	kind           uint8 // 0 string, 1 array (every header), 2 comma-split
}

var emailFields = []emailField{
	{"reply_to", "reply-to", 0}, {"bcc", "bcc", 2}, {"message_id", "message-id", 0},
	{"subject", "subject", 0}, {"x_mailer", "x-mailer", 0}, {"user_agent", "user-agent", 0},
	{"received", "received", 1}, {"x_originating_ip", "x-originating-ip", 0},
	{"in_reply_to", "in-reply-to", 0}, {"references", "references", 0},
	{"importance", "importance", 0}, {"priority", "priority", 0},
	{"sensitivity", "sensitivity", 0}, {"organization", "organization", 0},
	{"content_md5", "content-md5", 0}, {"date", "date", 0},
}

// EmailCustomField returns the bit of a custom field, named by its config name (exact) or
// header name (any case), as OutputEmailInitConf matches them.
func EmailCustomField(name string) (uint32, bool) {
	for i, f := range emailFields {
		if f.config == name || strings.EqualFold(f.header, name) {
			return 1 << i, true
		}
	}
	return 0, false
}

// SMTPRecord writes the EVE smtp record of tx (JsonSmtpLogger): the flow header with the
// tx id, the smtp object and, when the tx has a MIME state, the email object.
func SMTPRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, tx *smtp.Tx, opt *SMTPOptions) {
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, dir, flow.ToServer, "smtp", nil, nil)
	j.Uint("tx_id", tx.TxData().ID)
	j.Object("smtp")
	SMTPMembers(j, tx)
	j.Close('}')
	if tx.Mime != nil {
		j.Object("email")
		EmailMembers(j, tx.Mime)
		emailCustom(j, tx.Mime, opt)
		j.Close('}')
	}
	j.End()
}

// SMTPAlertObjects writes the smtp and email objects of an alert on tx (AlertAddAppLayer's
// SMTP case: EveSMTPAddMetadata, EveEmailAddMetadata).
func SMTPAlertObjects(j *JSON, tx *smtp.Tx) {
	if tx == nil {
		return
	}
	j.Object("smtp")
	SMTPMembers(j, tx)
	j.Close('}')
	if tx.Mime != nil {
		j.Object("email")
		EmailMembers(j, tx.Mime)
		j.Close('}')
	}
}

// smtpCStr is the value as a C string: up to its first NUL.
func smtpCStr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// SMTPMembers is EveSmtpDataLogger: helo (the flow's), mail_from, rcpt_to.
func SMTPMembers(j *JSON, tx *smtp.Tx) {
	if h, ok := tx.Helo(); ok {
		j.Bytes("helo", smtpCStr(h))
	}
	if tx.HasMailFrom {
		j.Bytes("mail_from", smtpCStr(tx.MailFrom))
	}
	if r := tx.RcptTo(); len(r) > 0 {
		j.Array("rcpt_to")
		for _, v := range r {
			j.elemBytes(smtpCStr(v))
		}
		j.Close(']')
	}
}

// elemBytes adds bytes as the next string element of the current array.
func (j *JSON) elemBytes(v []byte) {
	j.sep()
	j.B = appendJSONBytes(j.B, v)
}

// lossy writes v as String::from_utf8_lossy does: each invalid sequence becomes U+FFFD.
func (j *JSON) lossy(k string, v []byte) {
	if k != "" {
		j.key(k)
	} else {
		j.sep()
	}
	if utf8.Valid(v) {
		j.B = appendJSONBytes(j.B, v)
		return
	}
	j.B = append(j.B, '"')
	for len(v) > 0 {
		r, n := utf8.DecodeRune(v)
		if r == utf8.RuneError && n <= 1 {
			j.B = append(j.B, "\ufffd"...)
			v = v[1:]
			continue
		}
		seg := AppendJSONString(nil, string(v[:n]))
		j.B = append(j.B, seg[1:len(seg)-1]...)
		v = v[n:]
	}
	j.B = append(j.B, '"')
}

// EmailMembers is log_data (rust/src/mime/smtp_log.rs): from, to and cc (comma-split),
// status PARSE_DONE, the attachments and the URLs (last found first).
func EmailMembers(j *JSON, m *smtp.Mime) {
	if v, ok := m.Header("from"); ok {
		j.lossy("from", v)
	}
	emailComma(j, m, "to", "to")
	emailComma(j, m, "cc", "cc")
	j.String("status", "PARSE_DONE")
	if a := m.Attachments(); len(a) > 0 {
		j.Array("attachment")
		for _, v := range a {
			j.lossy("", v)
		}
		j.Close(']')
	}
	if u := m.URLs(); len(u) > 0 {
		j.Array("url")
		for i := len(u) - 1; i >= 0; i-- {
			j.lossy("", u[i])
		}
		j.Close(']')
	}
}

// emailComma is log_field_comma: the first header named name split at commas outside
// quotes, leading spaces skipped, empty fields left out; no array when none is left.
func emailComma(j *JSON, m *smtp.Mime, key, name string) {
	v, ok := m.Header(name)
	if !ok {
		return
	}
	opened := false
	emit := func(b []byte) {
		if !opened {
			j.Array(key)
			opened = true
		}
		j.lossy("", b)
	}
	start, st := 0, 0
	for i, c := range v {
		switch st {
		case 0:
			if c == ' ' || c == '\t' {
				start++
			} else if c == '"' {
				st = 2
			} else {
				st = 1
			}
		case 1:
			if c == ',' {
				if i > start {
					emit(v[start:i])
				}
				start = i + 1
				st = 0
			} else if c == '"' {
				st = 2
			}
		case 2:
			if c == '"' {
				st = 1
			}
		}
	}
	if len(v) > start {
		emit(v[start:])
	}
	if opened {
		j.Close(']')
	}
}

// emailCustom is EveEmailLogJSONCustom and EveEmailLogJSONMd5 for the smtp record.
func emailCustom(j *JSON, m *smtp.Mime, opt *SMTPOptions) {
	if opt == nil {
		return
	}
	for i, f := range emailFields {
		if opt.Custom&(1<<i) == 0 {
			continue
		}
		switch f.kind {
		case 1:
			n := 0
			for k := 0; ; k++ {
				v, ok := m.HeaderAt(f.header, k)
				if !ok {
					break
				}
				if n == 0 {
					j.Array(f.config)
				}
				j.lossy("", v)
				n++
			}
			if n > 0 {
				j.Close(']')
			}
		case 2:
			emailComma(j, m, f.config, f.header)
		default:
			if v, ok := m.Header(f.header); ok {
				j.lossy(f.config, v)
			}
		}
	}
	if opt.NoHashing {
		return
	}
	if opt.SubjectMD5 {
		if v, ok := m.Header("subject"); ok {
			sum := md5.Sum(v)
			j.String("subject_md5", hex.EncodeToString(sum[:]))
		}
	}
	if opt.BodyMD5 {
		if sum, ok := m.BodyMD5(); ok {
			j.String("body_md5", hex.EncodeToString(sum[:]))
		}
	}
}

// SMTPFileInfoRecord writes the EVE fileinfo record of attachment f of SMTP tx, logged on
// packet p (direction pktDir) of flow fl, with state st (TRUNCATED where the logger ends an
// open file): JsonBuildFileInfoRecord's header in the to-server direction, the smtp and
// email objects (its ALPROTO_SMTP case), app_proto and the fileinfo object (EveFileInfo:
// filename, gaps, state, stored false, size, tx_id; no digests are computed for SMTP files).
func SMTPFileInfoRecord(j *JSON, p *decode.Packet, fl *flow.Flow, pktDir flow.Direction, tx *smtp.Tx, f *smtp.File, st smtp.FileState) {
	j.Reset()
	j.Begin()
	flowHeader(j, p, fl, pktDir, flow.ToServer, "fileinfo", nil, nil)
	SMTPAlertObjects(j, tx)
	j.String("app_proto", "smtp")
	j.Object("fileinfo")
	setBytes(j, "filename", f.Name)
	j.Bool("gaps", false)
	switch st {
	case smtp.FileClosed:
		j.String("state", "CLOSED")
	case smtp.FileTruncated:
		j.String("state", "TRUNCATED")
	default:
		j.String("state", "UNKNOWN")
	}
	j.Bool("stored", false)
	j.Uint("size", f.Size)
	j.Uint("tx_id", tx.TxData().ID)
	j.Close('}')
	j.End()
}
