package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSMTPEve replays the capture of SV smtp-keywords (bug-3616-smtp: a mail with a
// quoted-printable attachment NEWS.txt, then QUIT) with the shipped suricata.yaml and
// rules on the email.* and file.data buffers, and checks the smtp, fileinfo and alert
// records: one smtp record for the mail transaction and one for the trailing QUIT tx of
// 8.0.6 (flow end), the attachment's fileinfo with the smtp and email objects, and the
// email buffers matching the message's headers.
func TestSMTPEve(t *testing.T) {
	pcap, err := filepath.Abs(filepath.Join(conformanceDir, "..", "tests-next", "smtp-keywords", "input.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pcap); err != nil {
		t.Skipf("no capture %s", pcap)
	}
	rules := filepath.Join(t.TempDir(), "smtp.rules")
	if err := os.WriteFile(rules, []byte(`alert smtp any any -> any any (msg:"subject"; email.subject; content:"SMTP"; bsize:4; sid:1;)
alert smtp any any -> any any (msg:"from"; email.from; content:"Gurpartap Singh"; sid:2;)
alert smtp any any -> any any (msg:"file"; file.data; content:"Version 4.9.9.1"; startswith; sid:3;)
alert smtp any any -> any any (msg:"url"; email.url; content:"www.w3.org/"; startswith; sid:4;)
alert smtp any any -> any any (msg:"no"; email.subject; content:"nope"; sid:5;)
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runMeerkat(t, "-c", "suricata.yaml", "-r", pcap, "-k", "none", "--runmode", "single", "-S", rules)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var smtpRecs, files int
	sids := map[float64]int{}
	for _, rec := range r.eve {
		switch rec["event_type"] {
		case "smtp":
			smtpRecs++
			s, _ := rec["smtp"].(map[string]any)
			if s["helo"] != "GP" {
				t.Errorf("smtp record without helo GP: %v", rec)
			}
			if rec["tx_id"] == 0.0 {
				e, _ := rec["email"].(map[string]any)
				if e["status"] != "PARSE_DONE" || e["from"] != `"Gurpartap Singh" <gurpartap@patriots.in>` {
					t.Errorf("email object %v", e)
				}
			}
		case "fileinfo":
			files++
			fi, _ := rec["fileinfo"].(map[string]any)
			if fi["filename"] != "NEWS.txt" || fi["state"] != "CLOSED" || rec["app_proto"] != "smtp" || rec["smtp"] == nil {
				t.Errorf("fileinfo %v", rec)
			}
		case "alert":
			a, _ := rec["alert"].(map[string]any)
			sid, _ := a["signature_id"].(float64)
			sids[sid]++
			if rec["smtp"] == nil || rec["email"] == nil {
				t.Errorf("alert without smtp/email objects: %v", rec)
			}
		}
	}
	if smtpRecs != 2 || files != 1 {
		t.Errorf("%d smtp records, %d fileinfo, want 2 and 1", smtpRecs, files)
	}
	for _, sid := range []float64{1, 2, 3, 4} {
		if sids[sid] != 1 {
			t.Errorf("sid %v alerted %d times, want 1", sid, sids[sid])
		}
	}
	if sids[5] != 0 {
		t.Error("sid 5 alerted")
	}
}
