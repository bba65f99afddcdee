package txtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/flow"
)

// fuzzRules cover every engine kind: single and multi buffers, both directions, =>,
// transforms, events, urilen, a packet rule with an app protocol, tx xbits set and isset.
var fuzzRules = []string{
	`alert http any any -> any any (http.method; content:"GET"; http.header; content:"A"; sid:1;)`,
	`alert http any any -> any any (http.uri; to_lowercase; content:"/x"; sid:2;)`,
	`alert http any any => any any (http.method; content:"P"; http.stat_code; content:"2"; sid:3;)`,
	`alert http any any -> any any (http.request_header; content:"B"; file.data; content:"c"; sid:4;)`,
	`alert http any any -> any any (app-layer-event:http.missing_host_header; sid:5;)`,
	`alert http any any -> any any (urilen:>3; http.header; content:!"Z"; sid:6;)`,
	`alert http any any -> any any (file.data; from_base64; content:"hi"; sid:7;)`,
	`alert http any any -> any any (content:"G"; sid:8;)`,
	`alert http any any -> any any (content:"c"; fast_pattern; http.method; content:"G"; sid:9;)`,
	`alert http1:request_line any any -> any any (http.method; content:"G"; xbits:set,fz,track tx; sid:10;)`,
	`alert http1:response_line any any -> any any (xbits:isset,fz,track tx; sid:11;)`,
}

// FuzzTxInspect feeds hostile traffic to the stand-in parser and tx detection: op bytes pick
// the direction, pseudo/EOF packets, tx frees and the data length. Detection must not panic,
// and no rule may alert twice for one transaction in one direction (one alert per rule per
// tx, §4.2; the stored state is per direction, DetectEngineStateDirection, so a rule with
// engines in both directions alerts once in each).
func FuzzTxInspect(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	e := build(f, detect.Config{GuessAppLayerTx: true}, fuzzRules...)
	f.Fuzz(func(t *testing.T, in []byte) {
		c := newConn(t, e)
		seen := map[string]bool{}
		for len(in) >= 2 {
			op, n := in[0], int(in[1])
			in = in[2:]
			n = min(n, len(in))
			data := in[:n]
			in = in[n:]
			dir := flow.Direction(op & 1)
			c.free = op&8 != 0
			c.st.Parse(dir, data, 0)
			c.fa.Updated[dir] = len(data) > 0 || op&2 != 0
			p := packet(dir, string(data))
			ctx := applayer.GetCtx{EOF: op&4 != 0}
			if op&16 != 0 {
				p.Source = decode.SourceStreamFlowTimeout
			}
			c.inspect(p, dir, ctx)
			for _, en := range c.tc.Queue.Entries() {
				sid := e.Rule(en.IID).Src.SID
				if en.Flags&0x02 == 0 { // not a state match: a packet rule
					continue
				}
				k := fmt.Sprint(sid, "/", en.TxID, "/", dir)
				if seen[k] {
					t.Fatalf("rule %d alerted twice for tx %d in direction %d", sid, en.TxID, dir)
				}
				seen[k] = true
			}
		}
	})
}

// fuzzSeeds are the checked-in seeds (testdata/fuzz/FuzzTxInspect, written by
// TestWriteFuzzSeeds): pipelined requests and responses, a => pair, events, a flow end.
func fuzzSeeds() map[string][]byte {
	pkt := func(op byte, s string) []byte { return append([]byte{op, byte(len(s))}, s...) }
	cat := func(ps ...[]byte) []byte {
		var out []byte
		for _, p := range ps {
			out = append(out, p...)
		}
		return out
	}
	return map[string][]byte{
		"request":    cat(pkt(0, "GET /X\nA: 1\nB: 2\n\nc\n.\n")),
		"pipelined":  cat(pkt(0, "GET /x1\n\n.\nGET /x2\nA\n\n.\nPOST /y\n"), pkt(0, "\naGk=\n.\n")),
		"response":   cat(pkt(0, "P /\n\n.\n"), pkt(1, "2\nZ: z\n\nbody\n.\n"), pkt(9, "200\n\n.\n")),
		"split":      cat(pkt(0, "GE"), pkt(0, "T /abcd\n"), pkt(2, ""), pkt(0, "A: 1\n"), pkt(0, "\n"), pkt(8, ".\n")),
		"flow-end":   cat(pkt(0, "GET /abcd\nB\n\nc"), pkt(20, ""), pkt(21, "")),
		"no-request": cat(pkt(1, "200\n\n.\n"), pkt(1, "500\n"), pkt(9, "\n.\n")),
	}
}

// TestWriteFuzzSeeds checks that every seed is checked in under testdata/fuzz/FuzzTxInspect
// and testdata/fuzz/FuzzFirewallApp (Go's corpus format); MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	for _, target := range []string{"FuzzTxInspect", "FuzzFirewallApp"} {
		writeSeeds(t, filepath.Join("testdata", "fuzz", target))
	}
}

func writeSeeds(t *testing.T, dir string) {
	seeds := fuzzSeeds()
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seeds[name])
		if os.Getenv("MEERKAT_WRITE_SEEDS") == "1" {
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
			t.Errorf("seed %s is not checked in (MEERKAT_WRITE_SEEDS=1 writes it)", name)
		}
	}
}
