package http

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// Fuzz targets. Invariants: no panic; per tx the progress never goes back; no more live
// txs than max-tx; the partial-line buffers stay within meta-field-limit and the kept
// bodies within the body limits.

var fuzzRequests = []string{
	"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
	"POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x\r\nhello\r\n0\r\nT: 1\r\n\r\n",
	"POST /u HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcGET /2 HTTP/1.0\r\n\r\n",
	"GET /\r\n",
	"  GET\t/a b\tc HTTP/1.1\r\nX: 1\r\n  fold\r\nX: 2\r\nNoColon\r\n: e\r\n\r\n",
	"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n\x16\x03\x01",
	"POST /f HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 60\r\n\r\n--B\r\nContent-Disposition: form-data; filename=\"x\"\r\n\r\nabc\r\n--B--\r\n",
	"POST /f HTTP/1.1\r\nContent-Type: a; boundary=\"B\"\r\nContent-Length: 99\r\n\n\r\r\n\r\n--B\r\nContent-Disposition: x; filename*0=a; filename*1=\"b\\\"\"\r\nbad\r\n\r\n--B\r\nX:\r\n\r\n--B--",
	"GET / HTTP/1.1\r\n\r\nCONNECT a:443 HTTP/1.1\r\n\r\nGET /in HTTP/1.1\r\nK: v\r\n\x00w\r\n\r\n",
}

var fuzzResponses = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 404 NF\r\n\r\nbody until close",
	"HTTP/1.1 101 Switching\r\nUpgrade: h2c\r\n\r\nPRI * HTTP/2.0",
	"junk line\r\nHTTP/1.1 204 X\r\nContent-Length: 1\r\n\r\nx",
	"HTTP/1.1 206 P\r\nContent-Range: bytes 1-2/3\r\nContent-Disposition: attachment; filename=a\r\nContent-Length: 2\r\n\r\nab",
	"HTTP/1.0 200 m\r\nA: 1\rB: 2\n\rC: 3\r\n\r\r\nD: 4\n\r\r\n\r\nContent-Length: 2\r\rab\n",
	"HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 200 Connected\r\n\r\n",
}

func fuzzConfig(c *Config) {
	c.MaxTx = 8
	c.MetaFieldLimit = 512
	c.RequestBodyLimit = 64
	c.ResponseBodyLimit = 64
	c.HeadersLimit = 16
}

type fuzzCheck struct {
	prog map[uint64][2]uint8
}

func (fc *fuzzCheck) check(t *testing.T, s *State) {
	if s.TxCount() > s.cfg.MaxTx {
		t.Fatalf("%d txs > max-tx", s.TxCount())
	}
	if len(s.rq.line) > s.cfg.MetaFieldLimit || len(s.rs.line) > s.cfg.MetaFieldLimit || len(s.rq.hdr) > s.cfg.MetaFieldLimit || len(s.rs.hdr) > s.cfg.MetaFieldLimit {
		t.Fatalf("line buffers %d %d", len(s.rq.line), len(s.rs.line))
	}
	for i := 0; i < s.TxCount(); i++ {
		tx := s.Tx(i)
		p := tx.data.Progress
		if old, ok := fc.prog[tx.data.ID]; ok && (p[0] < old[0] || (p[1] < old[1] && !(old[1] == ResHeaders && p[1] == ResLine))) {
			// the one step back libhtp takes: a 100 Continue returns to LINE
			t.Fatalf("tx %d progress %v after %v", tx.data.ID, p, old)
		}
		if uint64(len(tx.RequestBody.Data)) > s.cfg.RequestBodyLimit || uint64(len(tx.ResponseBody.Data)) > s.cfg.ResponseBodyLimit {
			t.Fatalf("bodies %d %d", len(tx.RequestBody.Data), len(tx.ResponseBody.Data))
		}
		if p[0] > ReqComplete || p[1] > ResComplete {
			t.Fatalf("progress %v", p)
		}
		fc.prog[tx.data.ID] = p
		// the getters must not panic on any tx
		for id := range BufferIDs {
			b := applayer.BufferOf(BufferIDs[id])
			for d := 0; d < 2; d++ {
				if b.Dirs[d] {
					for k := 0; k < 3; k++ {
						b.Get(tx, applayer.Dir(d), k, &applayer.GetCtx{})
					}
					if b.Inspected != nil {
						b.Inspected(tx, applayer.Dir(d), &applayer.GetCtx{})
					}
				}
			}
		}
	}
}

// fuzzDir parses one direction's data in pieces whose sizes come from the first byte.
func fuzzDir(t *testing.T, dir applayer.Dir, in []byte) {
	if len(in) == 0 {
		return
	}
	split := int(in[0]%32) + 1
	in = in[1:]
	s := testState(t, fuzzConfig)
	if dir == flow.ToClient {
		// a pending request so responses pair with it
		s.Parse(flow.ToServer, []byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), 0)
	}
	fc := &fuzzCheck{prog: map[uint64][2]uint8{}}
	var pend []byte
	for len(in) > 0 {
		n := min(split, len(in))
		pend = append(pend, in[:n]...)
		in = in[n:]
		r := s.Parse(dir, pend, 0)
		fc.check(t, s)
		if r.Err != nil || r.Change != nil {
			return
		}
		if r.Consumed < 0 || r.Consumed > len(pend) {
			t.Fatalf("consumed %d of %d", r.Consumed, len(pend))
		}
		pend = append(pend[:0], pend[r.Consumed:]...)
	}
	s.Parse(dir, pend, applayer.EOF)
	fc.check(t, s)
	s.FreeTxs(1 << 62)
	for i := 0; i < s.TxCount(); i++ {
		if tx := s.Tx(i); tx != s.rq.tx && tx != s.rs.tx {
			t.Fatal("FreeTxs left a tx not being parsed")
		}
	}
}

func FuzzRequest(f *testing.F) {
	for _, s := range fuzzSeeds("FuzzRequest") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) { fuzzDir(t, flow.ToServer, in) })
}

func FuzzResponse(f *testing.F) {
	for _, s := range fuzzSeeds("FuzzResponse") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) { fuzzDir(t, flow.ToClient, in) })
}

// FuzzConnection: records of (byte: bit 7 the direction, bits 0-6 a length, 0x7f a gap)
// followed by the bytes, so the two directions interleave at random splits.
func FuzzConnection(f *testing.F) {
	for _, s := range fuzzSeeds("FuzzConnection") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := testState(t, fuzzConfig)
		fc := &fuzzCheck{prog: map[uint64][2]uint8{}}
		var pend [2][]byte
		for len(in) > 0 {
			dir := applayer.Dir(in[0] >> 7)
			n := int(in[0] & 0x7f)
			in = in[1:]
			var r applayer.Result
			if n == 0x7f {
				r = s.Gap(dir, 5)
			} else {
				n = min(n, len(in))
				pend[dir] = append(pend[dir], in[:n]...)
				in = in[n:]
				r = s.Parse(dir, pend[dir], 0)
				if r.Consumed >= 0 && r.Consumed <= len(pend[dir]) {
					pend[dir] = append(pend[dir][:0], pend[dir][r.Consumed:]...)
				} else {
					t.Fatalf("consumed %d", r.Consumed)
				}
			}
			fc.check(t, s)
			if r.Err != nil || r.Change != nil {
				return
			}
			if s.TxCount() > 4 {
				s.FreeTxs(s.Tx(1).data.ID)
			}
		}
		s.Parse(flow.ToServer, pend[0], applayer.EOF)
		s.Parse(flow.ToClient, pend[1], applayer.EOF)
		fc.check(t, s)
		s.Reset()
	})
}

func connRecord(dir applayer.Dir, data string, split int) []byte {
	var out []byte
	for len(data) > 0 {
		n := min(split, len(data), 0x7e)
		out = append(out, byte(dir)<<7|byte(n))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return out
}

// fuzzSeeds are the checked-in seeds of each target (testdata/fuzz/<target>, written by
// TestWriteFuzzSeeds).
func fuzzSeeds(target string) map[string][]byte {
	seeds := map[string][]byte{}
	switch target {
	case "FuzzRequest":
		for i, r := range fuzzRequests {
			seeds[fmt.Sprintf("req-%d", i)] = append([]byte{byte(i * 5)}, r...)
		}
	case "FuzzResponse":
		for i, r := range fuzzResponses {
			seeds[fmt.Sprintf("resp-%d", i)] = append([]byte{byte(i * 7)}, r...)
		}
	case "FuzzConnection":
		for i := range min(len(fuzzRequests), len(fuzzResponses)) {
			var b []byte
			b = append(b, connRecord(flow.ToServer, fuzzRequests[i], 3+i)...)
			b = append(b, connRecord(flow.ToClient, fuzzResponses[i], 5+i)...)
			b = append(b, connRecord(flow.ToServer, fuzzRequests[(i+1)%len(fuzzRequests)], 40)...)
			if i%2 == 1 {
				b = append(b, 0x7f)
			}
			b = append(b, connRecord(flow.ToClient, fuzzResponses[(i+1)%len(fuzzResponses)], 11)...)
			seeds[fmt.Sprintf("conn-%d", i)] = b
		}
	}
	return seeds
}

func TestWriteFuzzSeeds(t *testing.T) {
	for _, target := range []string{"FuzzRequest", "FuzzResponse", "FuzzConnection"} {
		dir := filepath.Join("testdata", "fuzz", target)
		seeds := fuzzSeeds(target)
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
}
