package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/flow"
)

// httpFuzzSeeds are the seed inputs of FuzzHTTPRecords: a request and a response separated
// by a NUL byte, then the option byte (bit 0 extended, 1-2 dump-all-headers, 3 xff
// overwrite, 4 xff forward, 5 custom fields).
func httpFuzzSeeds() map[string][]byte {
	s := func(req, resp string, opt byte) []byte {
		return append([]byte(req+"\x00"+resp+"\x00"), opt)
	}
	return map[string][]byte{
		"bug78":         s(bug78Request, bug78Response(), 1),
		"xff":           s("GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: [12::34]:1, 1.2.3.4:5\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0x3f),
		"content-range": s("GET / HTTP/1.1\r\nHost: a\r\n\r\n", "HTTP/1.1 206 P\r\nContent-Range: bytes */9\r\nContent-Length: 0\r\n\r\n", 7),
		"binary":        s("GET /\xff\x00\xc3( HTTP/1.1\r\nHost: \xe9\r\nUser-Agent: \x01\"\\\r\n\r\n", "HTTP/1.1 2XX \xff\r\nLocation: \x7f\r\n\r\n", 0x27),
		"no-request":    s("", "HTTP/1.0 404 Not Found\r\n\r\nbody", 1),
		"http09":        s("GET /x\r\n", "raw body", 7),
	}
}

// FuzzHTTPRecords parses arbitrary request and response bytes and writes every http record,
// alert and fileinfo record of the transactions: no panic, valid JSON each time.
func FuzzHTTPRecords(f *testing.F) {
	for _, s := range httpFuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		parts := bytes.SplitN(in, []byte{0}, 3)
		if len(parts) != 3 || len(parts[2]) == 0 {
			return
		}
		o := parts[2][0]
		c := htp.DefaultConfig()
		c.Randomize = false
		st := htp.NewPool(&htp.Settings{Default: &c}).NewState(applayer.FlowInfo{})
		for d, data := range [2][]byte{parts[0], parts[1]} {
			for range 64 {
				r := st.Parse(flow.Direction(d), data, 0)
				if r.Err != nil || r.Change != nil || r.Consumed <= 0 || r.Consumed >= len(data) {
					break
				}
				data = data[r.Consumed:]
			}
		}
		opt := HTTPOptions{Extended: o&1 != 0, RequestHeaders: o&2 != 0, ResponseHeaders: o&4 != 0,
			XFF: XFFConfig{Enabled: true, Overwrite: o&8 != 0, Forward: o&16 != 0, Header: "X-Forwarded-For"}}
		if o&32 != 0 {
			opt.Custom = 1<<len(httpFields) - 1
		}
		p, fl := httpPacket(flow.Direction(o >> 7))
		fa := &applayer.FlowApp{Proto: applayer.ProtoHTTP1, Parser: htp.Parser, State: st}
		var j JSON
		for i := range st.TxCount() {
			tx := st.Tx(i)
			HTTPRecord(&j, p, fl, flow.Direction(o>>7), tx, &opt)
			if !json.Valid(j.B) {
				t.Fatalf("http record: invalid JSON %s", j.B)
			}
			app := &AlertApp{Flow: fa, HasTx: true, TxID: tx.TxData().ID, Tx: tx}
			AlertRecordApp(&j, p, fl, flow.ToClient, &Alert{TxID: -1}, AlertOptions{Metadata: true, Flow: true, AppLayer: true,
				HTTPBody: true, HTTPBodyPrintable: true, XFF: opt.XFF}, nil, nil, app)
			if !json.Valid(j.B) {
				t.Fatalf("alert record: invalid JSON %s", j.B)
			}
			for k := range tx.ResponseFiles {
				FileInfoRecord(&j, p, fl, flow.ToClient, flow.ToClient, fa, tx, &tx.ResponseFiles[k], htp.FileTruncated, &FileOptions{XFF: opt.XFF})
				if !json.Valid(j.B) {
					t.Fatalf("fileinfo record: invalid JSON %s", j.B)
				}
			}
		}
	})
}

// TestWriteHTTPFuzzSeeds keeps testdata/fuzz/FuzzHTTPRecords in step with httpFuzzSeeds
// (MEERKAT_WRITE_SEEDS=1 rewrites them).
func TestWriteHTTPFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzHTTPRecords")
	seeds := httpFuzzSeeds()
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seeds[name])
		if os.Getenv("MEERKAT_WRITE_SEEDS") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("seed %s missing or stale (run with MEERKAT_WRITE_SEEDS=1): %v", name, err)
		}
	}
}
