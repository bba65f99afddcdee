package cert

import (
	"bufio"
	"bytes"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer/tls/ja/tlspcap"
)

// corpusPcaps lists the corpus pcaps MANIFEST.tsv marks as having TLS flows.
func corpusPcaps(t *testing.T) []string {
	dir := tlspcap.Shared("corpus/pcaps")
	if dir == "" {
		t.Skip("corpus not found (shared/corpus/pcaps; set MEERKAT_SHARED)")
	}
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Skipf("corpus manifest: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) >= 11 && cols[0] != "file" && (strings.Contains(cols[10], " tls ") || strings.Contains(cols[10], ": tls ")) {
			out = append(out, filepath.Join(dir, cols[0]))
		}
	}
	return out
}

// Every certificate of the corpus TLS flows: Decode never rejects one that crypto/x509 (a
// stricter parser) accepts, and its validity, serial and DNS/IP SANs agree with crypto/x509.
func TestCorpusCertsAgainstCryptoX509(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus walk skipped in -short")
	}
	pcaps := corpusPcaps(t)
	seen := map[string]bool{}
	var total, decoded, xparsed, rejected int
	var c Cert
	for _, p := range pcaps {
		msgs, err := tlspcap.Read(p)
		if err != nil {
			continue
		}
		for _, m := range msgs {
			if m.Type != tlspcap.Certificate {
				continue
			}
			for _, der := range tlspcap.Certificates(m.Body) {
				if seen[string(der)] {
					continue
				}
				seen[string(der)] = true
				total++
				err := Decode(der, &c)
				if err == nil {
					decoded++
				} else {
					rejected++
				}
				xc, xerr := x509.ParseCertificate(der)
				if xerr != nil {
					continue
				}
				xparsed++
				if err != nil {
					t.Errorf("%s frame %d: crypto/x509 parses a certificate Decode rejects (%v)", filepath.Base(p), m.Frame, err)
					continue
				}
				if xc.NotBefore.Unix() != c.NotBefore || xc.NotAfter.Unix() != c.NotAfter {
					t.Errorf("%s: validity %d..%d, crypto/x509 %d..%d", filepath.Base(p), c.NotBefore, c.NotAfter, xc.NotBefore.Unix(), xc.NotAfter.Unix())
				}
				if xc.SerialNumber.Sign() > 0 {
					b := xc.SerialNumber.Bytes()
					if b[0]&0x80 != 0 {
						b = append([]byte{0}, b...)
					}
					if want := string(appendHexSep(nil, b, "0123456789ABCDEF")); want != string(c.Serial) {
						t.Errorf("%s: serial %s, crypto/x509 %s", filepath.Base(p), c.Serial, want)
					}
				}
				var want []string
				want = append(want, xc.DNSNames...)
				for _, ip := range xc.IPAddresses {
					if v4 := ip.To4(); v4 != nil && len(ip) == 16 && bytes.Equal(ip[:12], []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}) {
						ip = v4
					}
					want = append(want, strings.ReplaceAll(fmt.Sprint([]byte(ip)), " ", ", "))
				}
				var got []string
				for _, s := range c.SANs {
					str := string(s)
					if strings.Contains(str, "(") { // RFC822Name(...), DirectoryName(...): crypto/x509 lists those apart
						continue
					}
					got = append(got, str)
				}
				if len(xc.URIs) == 0 && strings.Join(got, ",") != strings.Join(want, ",") {
					// crypto/x509 groups names by kind; compare as sets when the order differs
					if !sameSet(got, want) {
						t.Errorf("%s: SANs %q, crypto/x509 %q", filepath.Base(p), got, want)
					}
				}
			}
		}
	}
	t.Logf("%d pcaps, %d distinct certificates: %d decoded, %d rejected; %d parsed by crypto/x509", len(pcaps), total, decoded, rejected, xparsed)
	if total == 0 {
		t.Skip("no certificate in the corpus")
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}
