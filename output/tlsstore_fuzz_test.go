package output

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// tlsStoreFuzzSeeds are the seed inputs of FuzzTLSStore: a chain of certificates separated by
// two NUL bytes (the last part is also cert0's subject).
func tlsStoreFuzzSeeds() map[string][]byte {
	return map[string][]byte{
		"one":       {0x30, 0x03, 0x02, 0x01, 0x05},
		"chain":     append(append(bytes.Repeat([]byte{0x30}, 48), 0, 0), bytes.Repeat([]byte{0x82}, 97)...),
		"empty":     {},
		"empty-mid": {1, 0, 0, 0, 0, 2},
		"subject":   []byte("C=HU, O=\xff\x00x\nCN=y"),
	}
}

// FuzzTLSStore writes the PEM and .meta contents of arbitrary chains: the PEM decodes back to
// the same certificates in order (lines of at most 64 characters), the .meta has its fixed
// first and last lines; no panic.
func FuzzTLSStore(f *testing.F) {
	for _, s := range tlsStoreFuzzSeeds() {
		f.Add(s)
	}
	p := &decode.Packet{Timestamp: time.Unix(1523912382, 235074000), PcapCnt: 10, SrcIP: netip.MustParseAddr("::1"),
		DstIP: netip.MustParseAddr("::1"), IPProto: decode.ProtoTCP, SrcPort: 8081, DstPort: 58606}
	var buf []byte
	f.Fuzz(func(t *testing.T, in []byte) {
		certs := bytes.Split(in, []byte{0, 0})
		if len(certs) > 16 {
			certs = certs[:16]
		}
		buf = appendCertsPEM(buf[:0], certs)
		rest := buf
		for i, c := range certs {
			var blk *pem.Block
			blk, rest = pem.Decode(rest)
			if blk == nil || blk.Type != "CERTIFICATE" || !bytes.Equal(blk.Bytes, c) {
				t.Fatalf("cert %d does not decode back: %q", i, buf)
			}
		}
		if len(rest) != 0 {
			t.Fatalf("trailing %q", rest)
		}
		for _, l := range bytes.Split(buf, []byte{'\n'}) {
			if len(l) > 64 && !bytes.HasPrefix(l, []byte("-----")) {
				t.Fatalf("line of %d", len(l))
			}
		}
		c := &tls.Conn{HasCert: true, Certs: certs}
		c.Cert.Subject, c.Cert.Issuer, c.Cert.Fingerprint = certs[len(certs)-1], in, []byte("00")
		buf = appendCertMeta(buf[:0], p, flow.Direction(len(in)&1), c)
		if !bytes.HasPrefix(buf, []byte("TIME:              ")) || !bytes.HasSuffix(buf, []byte("\nTLS FINGERPRINT:   00\n")) {
			t.Fatalf("meta %q", buf)
		}
	})
}

// TestWriteTLSStoreFuzzSeeds keeps testdata/fuzz/FuzzTLSStore in step with tlsStoreFuzzSeeds
// (MEERKAT_WRITE_SEEDS=1 rewrites them).
func TestWriteTLSStoreFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzTLSStore")
	seeds := tlsStoreFuzzSeeds()
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
