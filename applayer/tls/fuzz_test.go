package tls

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// FuzzTLS feeds both directions of a flow in random pieces. The input is a control byte
// (encryption-handling, JA3 on, EOF at the end) and chunks: a header byte (bit 7 the
// direction, the low 7 bits the length - 1) and that many bytes. Each direction is handed to
// the parser as the framework does (the unconsumed rest again, Needed honoured). The parser
// must not panic, consume more than it was given, or keep more than its bounds.
func FuzzTLS(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(fuzzTLS)
}

func fuzzTLS(t *testing.T, in []byte) {
	if len(in) < 1 {
		return
	}
	ctl := in[0]
	in = in[1:]
	cfg := DefaultSettings()
	cfg.Enc = EncHandling(ctl % 3)
	cfg.MaxHandshake = 8 << 10
	if ctl&4 != 0 {
		EnableJA3()
		defer ja3On.Store(false)
	}
	s := NewPool(cfg).NewState()
	var pend [2][]byte
	var needed [2]int
	dead := false
	for len(in) > 0 && !dead {
		h := in[0]
		n := min(int(h&0x7f)+1, len(in)-1)
		d := applayer.Dir(h >> 7)
		pend[d] = append(pend[d], in[1:1+n]...)
		in = in[1+n:]
		if len(pend[d]) < needed[d] {
			continue
		}
		r := s.Parse(d, pend[d], 0)
		if r.Consumed < 0 || r.Consumed > len(pend[d]) {
			t.Fatalf("consumed %d of %d", r.Consumed, len(pend[d]))
		}
		if r.Err != nil {
			dead = true
			break
		}
		pend[d] = pend[d][r.Consumed:]
		needed[d] = r.Needed
		// a TLS record is at most 17408+5 bytes, an SSLv2 one 0x7fff+3 (15-bit length)
		if r.Needed > max(recordMaxLen+recordHeaderLen, 0x7fff+3) {
			t.Fatalf("needed %d beyond a record", r.Needed)
		}
	}
	if !dead && ctl&8 != 0 {
		s.Parse(flow.ToServer, nil, applayer.EOF)
		s.Parse(flow.ToClient, nil, applayer.EOF)
	}
	for _, c := range []*Conn{&s.Client, &s.Server} {
		if len(c.hs) > cfg.MaxHandshake || len(c.Certs) > cfg.MaxCerts || len(c.SNI) > 255 || len(c.alpnBuf) > maxALPNBytes {
			t.Fatalf("bounds: hs %d certs %d sni %d alpn %d", len(c.hs), len(c.Certs), len(c.SNI), len(c.alpnBuf))
		}
	}
	_ = s.JA4()
	s.Reset()
}

// chunks encodes data of direction d as FuzzTLS chunks of at most size bytes.
func chunks(d applayer.Dir, data []byte, size int) []byte {
	var out []byte
	for len(data) > 0 {
		n := min(size, len(data), 128)
		out = append(out, byte(d)<<7|byte(n-1))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return out
}

func fuzzSeeds(t testing.TB) map[string][]byte {
	cli, srv := handshake12(t)
	app := record(contentApplication, VersionTLS12, []byte("application data"))
	ccs := record(contentCCS, VersionTLS12, []byte{1})
	fatal := record(contentAlert, VersionTLS12, []byte{2, 40})
	hb := record(contentHeartbeat, VersionTLS12, cat([]byte{1}, u16(4), []byte("ping"), make([]byte, 16)))
	v2body := cat([]byte{v2ClientHello}, u16(0x0002), u16(3), u16(0), u16(16), []byte{1, 0, 0x80}, make([]byte, 16))
	v2 := cat([]byte{0x80, byte(len(v2body))}, v2body)
	tls13 := record(contentHandshake, VersionTLS10, hsMsg(hsClientHello, clientHello(VersionTLS12, []byte{1, 2, 3},
		[]int{4865, 4866}, sniExt("a.test"), ext(extSupportedVersions, []byte{4, 0x7a, 0x7a, 3, 4}), ext(extEarlyData, nil))))
	sh13 := record(contentHandshake, VersionTLS12, hsMsg(hsServerHello, serverHello(VersionTLS12, []byte{1, 2, 3}, 4865,
		ext(extSupportedVersions, u16(0x0304)))))
	seeds := map[string][]byte{
		"handshake12":      cat([]byte{4 | 8}, chunks(0, cli, 128), chunks(1, srv, 128), chunks(0, ccs, 128), chunks(1, app, 128)),
		"handshake12-tiny": cat([]byte{4}, chunks(0, cli, 3), chunks(1, srv, 5)),
		"bypass":           cat([]byte{1}, chunks(0, cli, 64), chunks(1, app, 7), chunks(1, app, 128)),
		"alert-heartbeat":  cat([]byte{2 | 8}, chunks(0, cli, 128), chunks(0, hb, 9), chunks(1, fatal, 128)),
		"sslv2":            cat([]byte{0}, chunks(0, v2, 4)),
		"tls13-resumed":    cat([]byte{4}, chunks(0, tls13, 100), chunks(1, sh13, 128), chunks(0, ccs, 128), chunks(0, app, 128)),
		"garbage":          cat([]byte{0}, chunks(0, []byte{0x16, 3, 1, 0xff, 0xff, 1, 2, 3}, 128), chunks(1, []byte{0x17, 3, 3, 0, 0}, 128)),
	}
	return seeds
}

// TestWriteFuzzSeeds checks that testdata/fuzz/FuzzTLS holds the seeds (MEERKAT_WRITE_SEEDS=1
// writes them), as the house pattern of stream/fuzz_test.go.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzTLS")
	seeds := fuzzSeeds(t)
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
