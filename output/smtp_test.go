package output

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer/smtp"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// parseSMTP runs a session ("C:" client lines, "S:" server lines) through the SMTP parser
// with cfg (nil: defaults) and returns the state.
func parseSMTP(t *testing.T, cfg *smtp.Config, session string) *smtp.State {
	t.Helper()
	st := smtp.NewPool(cfg).NewState()
	for _, l := range strings.SplitAfter(session, "\n") {
		if l == "" {
			continue
		}
		dir := flow.ToServer
		if strings.HasPrefix(l, "S:") {
			dir = flow.ToClient
		}
		data := []byte(l[2:])
		if r := st.Parse(dir, data, 0); r.Err != nil || r.Consumed != len(data) {
			t.Fatalf("%q: %+v", l, r)
		}
	}
	return st
}

// smtpPacket is a to_server packet of 10.10.1.4:1470 -> 74.53.140.153:25 (the tuple of SV
// bug-3616-smtp, the pcap of smtp-keywords).
func smtpPacket() (*decode.Packet, *flow.Flow) {
	cli, srv := netip.MustParseAddr("10.10.1.4"), netip.MustParseAddr("74.53.140.153")
	p := &decode.Packet{
		Timestamp: time.Date(2009, 10, 5, 6, 6, 12, 248291000, time.UTC),
		PcapCnt:   51, IPVersion: 4, IPProto: decode.ProtoTCP, HasL4: true,
		SrcIP: cli, DstIP: srv, SrcPort: 1470, DstPort: 25,
	}
	f := &flow.Flow{SrcIP: cli, DstIP: srv, SrcPort: 1470, DstPort: 25, Proto: decode.ProtoTCP, IPv: 4}
	return p, f
}

const smtpSession = "S:220 mx.example.com ESMTP\r\n" +
	"C:EHLO GP\r\n" +
	"S:250-mx.example.com\r\n" + "S:250 PIPELINING\r\n" +
	"C:MAIL FROM:<gurpartap@patriots.in> SIZE=1000\r\n" + "S:250 ok\r\n" +
	"C:RCPT TO:<raj_deol2002in@yahoo.co.in>\r\n" + "C:RCPT TO:<second@yahoo.co.in>\r\n" +
	"S:250 ok\r\n" + "S:250 ok\r\n" + "C:DATA\r\n" + "S:354 go\r\n" +
	"C:From: \"Gurpartap Singh\" <gurpartap@patriots.in>\r\n" +
	"C:To: <raj_deol2002in@yahoo.co.in>, \"Doe, J\" <jd@y.org>,\r\n" +
	"C:Cc: \t\r\n" +
	"C:Subject: NEWS\r\n" +
	"C:Received: from a\r\n" + "C:Received: from b\r\n" +
	"C:X-Mailer: Microsoft Office Outlook 12.0\r\n" +
	"C:Content-Type: multipart/mixed; boundary=\"==b\"\r\n" + "C:\r\n" +
	"C:--==b\r\n" + "C:Content-Type: text/html\r\n" + "C:\r\n" +
	"C:<a href=\"http://www.w3.org/TR/REC-html40\">x</a> http://caf\xe9.example/\r\n" +
	"C:--==b\r\n" + "C:Content-Type: text/plain; name=\"NEWS.txt\"\r\n" +
	"C:Content-Transfer-Encoding: base64\r\n" + "C:\r\n" + "C:aGk=\r\n" + "C:--==b--\r\n" +
	"C:.\r\n" + "S:250 queued\r\n"

// TestSMTPRecordGolden writes the smtp records of parsed transactions and compares them
// with testdata/smtp/*.json (MEERKAT_UPDATE_GOLDEN=1 rewrites them; review the diff). The
// members and their order are EveSmtpDataLogger's and log_data's (from; to and cc split at
// commas outside quotes, empty parts dropped, an all-empty cc left out; status; attachment;
// url with the last found first, invalid UTF-8 as U+FFFD).
func TestSMTPRecordGolden(t *testing.T) {
	cfg := smtp.DefaultConfig()
	cfg.BodyMD5 = true
	cases := []struct {
		name, session string
		cfg           *smtp.Config
		opt           SMTPOptions
	}{
		{"mail", smtpSession, nil, SMTPOptions{}},
		{"custom-md5", smtpSession, cfg, SMTPOptions{Custom: customBits(t, "received", "x-mailer", "subject", "bcc"), BodyMD5: true, SubjectMD5: true}},
		{"no-data", "S:220 a.b\r\nC:HELO x\r\nS:250 ok\r\nC:MAIL FROM:<a@b>\r\nS:250 ok\r\nC:RSET\r\nS:250 ok\r\n", nil, SMTPOptions{}},
	}
	for _, tc := range cases {
		st := parseSMTP(t, tc.cfg, tc.session)
		if st.TxCount() < 1 {
			t.Fatalf("%s: no tx", tc.name)
		}
		p, f := smtpPacket()
		var j JSON
		SMTPRecord(&j, p, f, flow.ToServer, st.Tx(0), &tc.opt)
		got := append(append([]byte(nil), j.B...), '\n')
		if !json.Valid(got) {
			t.Fatalf("%s: invalid JSON %s", tc.name, got)
		}
		golden(t, "smtp/"+tc.name+".json", got)
	}
}

func customBits(t *testing.T, names ...string) uint32 {
	var b uint32
	for _, n := range names {
		bit, ok := EmailCustomField(n)
		if !ok {
			t.Fatalf("custom field %s unknown", n)
		}
		b |= bit
	}
	return b
}

// TestSMTPAlertObjects: an alert on an SMTP tx carries the smtp object and, with a MIME
// state, the email object (AlertAddAppLayer), without the custom fields.
func TestSMTPAlertObjects(t *testing.T) {
	st := parseSMTP(t, nil, smtpSession)
	var j JSON
	j.Begin()
	SMTPAlertObjects(&j, st.Tx(0))
	j.End()
	var v map[string]map[string]any
	if err := json.Unmarshal(j.B, &v); err != nil {
		t.Fatalf("%s: %v", j.B, err)
	}
	if v["smtp"]["helo"] != "GP" || v["smtp"]["mail_from"] != "<gurpartap@patriots.in>" ||
		v["email"]["status"] != "PARSE_DONE" || v["email"]["x_mailer"] != nil {
		t.Fatalf("%s", j.B)
	}
	st = parseSMTP(t, nil, "C:HELO x\r\n")
	j.Reset()
	j.Begin()
	SMTPAlertObjects(&j, st.Tx(0))
	j.End()
	if string(j.B) != `{"smtp":{"helo":"x"}}` {
		t.Fatalf("no-mime alert: %s", j.B)
	}
}

// TestSMTPFileInfoGolden: the fileinfo record of an SMTP attachment (JsonBuildFileInfoRecord
// with the smtp and email objects of its ALPROTO_SMTP case).
func TestSMTPFileInfoGolden(t *testing.T) {
	st := parseSMTP(t, nil, smtpSession)
	tx := st.Tx(0)
	files := tx.Files()
	if len(files) != 1 || string(files[0].Data) != "hi" {
		t.Fatalf("files %+v", files)
	}
	p, f := smtpPacket()
	var j JSON
	SMTPFileInfoRecord(&j, p, f, flow.ToServer, tx, &files[0], files[0].State)
	got := append(append([]byte(nil), j.B...), '\n')
	if !json.Valid(got) {
		t.Fatalf("invalid JSON %s", got)
	}
	golden(t, "smtp/fileinfo.json", got)
}
