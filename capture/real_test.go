package capture

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/decode"
)

// sharedPath returns rel in the project's shared reference material (conformance tests,
// corpus): $MEERKAT_SHARED, or ../../shared from this package. It skips the test when the
// path is missing.
func sharedPath(t *testing.T, rel string) string {
	t.Helper()
	dir := os.Getenv("MEERKAT_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not available (%v): real-capture test skipped", p, err)
	}
	return p
}

// countFile reads a whole capture and returns its frame count, the first frame's link type,
// and the error that ended it (nil at a clean end).
func countFile(t *testing.T, path string) (int, decode.LinkType, error) {
	t.Helper()
	s, err := OpenFile(path)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	var f Frame
	n := 0
	var lt decode.LinkType
	for {
		err := s.Next(&f)
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return n, lt, err
		}
		if n == 0 {
			lt = f.LinkType
		}
		n++
		if f.Cnt != uint64(n) || len(f.Data) != f.CaptureLen || f.CaptureLen > f.WireLen {
			t.Fatalf("%s: bad frame %d: %+v", path, n, f)
		}
	}
}

// TestConformanceCaptures reads every capture of the conformance tests.
func TestConformanceCaptures(t *testing.T) {
	root := sharedPath(t, "conformance/tests")
	var files []string
	for _, pat := range []string{"*/*.pcap", "*/*.pcapng"} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skipf("no capture under %s", root)
	}
	total := 0
	for _, p := range files {
		n, _, err := countFile(t, p)
		if err != nil && !errors.Is(err, ErrTruncated) {
			t.Errorf("%v", err)
			continue
		}
		if err != nil {
			t.Logf("warning: %v", err)
		}
		if n == 0 {
			t.Errorf("%s: no packet", p)
		}
		total += n
	}
	t.Logf("%d files, %d packets", len(files), total)
}

// manifestLinkTypes maps the manifest's (Wireshark's) link type names to LINKTYPE_ values.
var manifestLinkTypes = map[string][]decode.LinkType{
	"ether":                {decode.LinkTypeEthernet},
	"null":                 {decode.LinkTypeNull},
	"linux-sll":            {decode.LinkTypeSLL},
	"linux-sll2":           {decode.LinkTypeSLL2},
	"rawip":                {decode.LinkTypeRaw, decode.LinkTypeRawAlt, decode.LinkTypeRawAlt2},
	"rawip4":               {decode.LinkTypeIPv4},
	"rawip6":               {decode.LinkTypeIPv6},
	"ppp":                  {9},
	"ieee-802-11":          {105},
	"ieee-802-11-radiotap": {127},
	"nflog":                {239},
	"ppi":                  {192},
	"chdlc":                {104},
}

// TestCorpusManifest reads every corpus capture and checks its packet count (and link type,
// where the manifest's name is known) against MANIFEST.tsv, which tshark produced.
func TestCorpusManifest(t *testing.T) {
	root := sharedPath(t, "corpus/pcaps")
	mf, err := os.Open(filepath.Join(root, "MANIFEST.tsv"))
	if err != nil {
		t.Skipf("no manifest: %v", err)
	}
	defer mf.Close()
	sc := bufio.NewScanner(mf)
	sc.Buffer(nil, 1<<20)
	col := map[string]int{}
	if sc.Scan() {
		for i, name := range strings.Split(sc.Text(), "\t") {
			col[name] = i
		}
	}
	for _, c := range []string{"file", "packets", "link_type", "format"} {
		if _, ok := col[c]; !ok {
			t.Fatalf("manifest has no %q column", c)
		}
	}
	files, packets, truncated := 0, 0, 0
	for sc.Scan() {
		rec := strings.Split(sc.Text(), "\t")
		if len(rec) <= col["packets"] {
			continue
		}
		want, err := strconv.Atoi(rec[col["packets"]])
		if err != nil {
			t.Errorf("manifest line %q: %v", rec[0], err)
			continue
		}
		path := filepath.Join(root, rec[col["file"]])
		n, lt, err := countFile(t, path)
		switch {
		case errors.Is(err, ErrTruncated):
			truncated++
			t.Logf("warning: %v", err)
		case err != nil:
			t.Errorf("%v", err)
			continue
		}
		if n != want {
			t.Errorf("%s (%s): %d packets, manifest says %d", path, rec[col["format"]], n, want)
		}
		if lts, ok := manifestLinkTypes[rec[col["link_type"]]]; ok && n > 0 {
			found := false
			for _, l := range lts {
				found = found || l == lt
			}
			if !found {
				t.Errorf("%s: link type %d, manifest says %s", path, lt, rec[col["link_type"]])
			}
		}
		files++
		packets += n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d packets, %d truncated", files, packets, truncated)
}
