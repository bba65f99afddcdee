package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer/ssh"
	"github.com/meerkat-ids/meerkat/flow"
)

func sshTx(t *testing.T, cli, srv string) *ssh.Tx {
	t.Helper()
	s := ssh.NewPool(nil).NewState()
	if cli != "" {
		if r := s.Parse(flow.ToServer, []byte(cli), 0); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if srv != "" {
		if r := s.Parse(flow.ToClient, []byte(srv), 0); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	return s.Tx()
}

// TestSSHRecord: the ssh record of test ssh-banner-only (event_type ssh, client and server
// proto_version/software_version, no tx_id: JsonGenericDirFlowLogger), nothing for a tx
// without any banner (SCSshLogJson returns false), and a software version past 256 bytes
// cut with set_string_from_bytes_limited's note.
func TestSSHRecord(t *testing.T) {
	tx := sshTx(t, "SSH-2.0-OpenSSH_for_Windows_7.7\r\n", "SSH-2.0-OpenSSH_7.4\r\n")
	p, f := httpPacket(flow.ToClient)
	var j JSON
	if !SSHRecord(&j, p, f, flow.ToClient, tx) {
		t.Fatal("not logged")
	}
	if !json.Valid(j.B) {
		t.Fatalf("invalid JSON: %s", j.B)
	}
	want := `"event_type":"ssh",`
	if !bytes.Contains(j.B, []byte(want)) || bytes.Contains(j.B, []byte(`"tx_id"`)) {
		t.Errorf("header: %s", j.B)
	}
	want = `"ssh":{"client":{"proto_version":"2.0","software_version":"OpenSSH_for_Windows_7.7"},"server":{"proto_version":"2.0","software_version":"OpenSSH_7.4"}}}`
	if !bytes.HasSuffix(j.B, []byte(want)) {
		t.Errorf("got %s\nwant suffix %s", j.B, want)
	}
	if SSHRecord(&j, p, f, flow.ToClient, sshTx(t, "", "")) {
		t.Error("a tx without banners was logged")
	}
	long := sshTx(t, "SSH-2.0-"+strings.Repeat("x", 260)+"\n", "")
	SSHRecord(&j, p, f, flow.ToClient, long)
	if !bytes.Contains(j.B, []byte(`"software_version":"`+strings.Repeat("x", 256)+`[truncated 4 additional bytes]"`)) {
		t.Errorf("truncation: %s", j.B)
	}
	if bytes.Contains(j.B, []byte(`"server"`)) {
		t.Errorf("server object without a server banner: %s", j.B)
	}
}
