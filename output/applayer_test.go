package output

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/flow"
)

// TestTxAnomalies: a response without a request raises unable_to_match_response_to_request
// (§4.1); the anomaly record carries tx_id, app_proto http, type applayer, the event as
// Suricata's http_decoder_event_table names it (upper case) and layer proto_parser
// (JsonAnomalyTxLogger); an event is logged once.
func TestTxAnomalies(t *testing.T) {
	st := parseHTTP(t, "", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	tx := httpTx(t, st, 0)
	if tx.TxData().Events.Empty() {
		t.Fatal("the parser raised no event for a response without a request")
	}
	p, f := httpPacket(flow.ToClient)
	fa := &applayer.FlowApp{Proto: applayer.ProtoHTTP1, Parser: htp.Parser, State: st}
	var recs []string
	line := func(b []byte) { recs = append(recs, string(b)) }
	var j JSON
	var logged applayer.Events
	TxAnomalies(&j, p, f, fa, tx, &logged, line)
	found := false
	for _, r := range recs {
		if !json.Valid([]byte(r)) {
			t.Fatalf("invalid JSON: %s", r)
		}
		if bytes.Contains([]byte(r), []byte(`"tx_id":0,"anomaly":{"app_proto":"http","type":"applayer","event":"UNABLE_TO_MATCH_RESPONSE_TO_REQUEST","layer":"proto_parser"}`)) {
			found = true
		}
	}
	if !found {
		t.Errorf("no UNABLE_TO_MATCH_RESPONSE_TO_REQUEST record in %v", recs)
	}
	n := len(recs)
	TxAnomalies(&j, p, f, fa, tx, &logged, line)
	if len(recs) != n {
		t.Errorf("events logged twice: %v", recs[n:])
	}
}

// TestAppLayerAnomalies: packet-level events are logged with layer proto_detect, no tx_id,
// their app_layer_event_pkt_table names (upper case, APPLAYER_ prefix).
func TestAppLayerAnomalies(t *testing.T) {
	p, f := httpPacket(flow.ToServer)
	fa := &applayer.FlowApp{Proto: applayer.ProtoHTTP1}
	fa.Events.Set(applayer.EventMismatchProtocolBothDirections)
	var recs []string
	var j JSON
	AppLayerAnomalies(&j, p, f, fa, func(b []byte) { recs = append(recs, string(b)) })
	want := `"pkt_src":"wire/pcap","anomaly":{"app_proto":"http","type":"applayer","event":"APPLAYER_MISMATCH_PROTOCOL_BOTH_DIRECTIONS","layer":"proto_detect"}}`
	if len(recs) != 1 || !bytes.HasSuffix([]byte(recs[0]), []byte(want)) {
		t.Errorf("records %v, want one ending %s", recs, want)
	}
}

// TestFileInfoRecord: a response file is logged with the server as src (LOG_DIR_FLOW_TOCLIENT),
// the http object, app_proto and the fileinfo object in EveFileInfo's order; md5/sha1 only for
// a closed file and only those forced; stored false.
func TestFileInfoRecord(t *testing.T) {
	c := htp.DefaultConfig()
	c.Randomize, c.ForceHash = false, true
	st := htp.NewPool(&htp.Settings{Default: &c}).NewState(applayer.FlowInfo{})
	st.Parse(flow.ToServer, []byte("GET /a/b.bin HTTP/1.1\r\nHost: h\r\n\r\n"), 0)
	st.Parse(flow.ToClient, []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), 0)
	tx := httpTx(t, st, 0)
	if len(tx.ResponseFiles) != 1 {
		t.Fatalf("%d response files", len(tx.ResponseFiles))
	}
	file := &tx.ResponseFiles[0]
	p, f := httpPacket(flow.ToServer)
	fa := &applayer.FlowApp{Proto: applayer.ProtoHTTP1, Parser: htp.Parser, State: st}
	var j JSON
	opt := &FileOptions{Hashes: FileHashes{MD5: true, SHA256: true}}
	FileInfoRecord(&j, p, f, flow.ToServer, flow.ToClient, fa, tx, file, file.State, opt)
	checkOrder(t, j.B, []string{`"event_type":"fileinfo"`, `"src_ip":"208.69.36.231","src_port":80,"dest_ip":"192.168.2.3","dest_port":37010`,
		`"http":{"hostname":"h","url":"/a/b.bin"`, `"length":5}`, `"app_proto":"http"`,
		`"fileinfo":{"filename":"/a/b.bin","gaps":false,"state":"CLOSED","md5":"5d41402abc4b2a76b9719d911017c592",` +
			`"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824","stored":false,"size":5,"tx_id":0}}`})
	if bytes.Contains(j.B, []byte(`"sha1"`)) {
		t.Errorf("sha1 not forced: %s", j.B)
	}
	// Truncated: no md5/sha1 (EveFileInfo writes them for CLOSED only).
	FileInfoRecord(&j, p, f, flow.ToServer, flow.ToClient, fa, tx, file, htp.FileTruncated, opt)
	if !bytes.Contains(j.B, []byte(`"state":"TRUNCATED","sha256":`)) || bytes.Contains(j.B, []byte(`"md5"`)) {
		t.Errorf("truncated: %s", j.B)
	}
	if !json.Valid(j.B) {
		t.Fatalf("invalid JSON: %s", j.B)
	}
}
