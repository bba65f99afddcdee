package payload

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// base64FuzzRules are the programs FuzzBase64 runs: relative, offset and bytes at their
// edges, a nested base64_decode, shared variables, pcre in the decoded data.
var base64FuzzRules = []string{
	`base64_decode; base64_data; content:"foo";`,
	`content:"="; base64_decode:bytes 7, offset 1, relative; base64_data; content:"a"; content:"b"; distance:0; within:2;`,
	`byte_extract:1,0,n; base64_decode:offset 1; base64_data; isdataat:n; content:"x"; offset:n;`,
	`content:"k"; base64_decode:relative; base64_data; pcre:"/^.{2}\x00/"; byte_test:1,>,7,0,relative;`,
	`base64_decode; base64_data; content:"A"; base64_decode:relative; content:!"z";`,
	`base64_decode:bytes 0, offset 4294967295; base64_data; bsize:>0;`,
	`content:"Zm9v"; base64_decode:relative; base64_data; content:"bar";`,
}

// base64FuzzSeeds are the checked-in seeds (testdata/fuzz/FuzzBase64, written by
// TestWriteBase64FuzzSeeds): each names the program (first byte) and gives the buffer.
func base64FuzzSeeds() map[string][]byte {
	seed := func(prog byte, buf string) []byte { return append([]byte{prog}, buf...) }
	return map[string][]byte{
		"plain":       seed(0, "Zm9v"),
		"padded":      seed(0, "Zg==Zm9v"),
		"relative":    seed(1, "x=YWJiYQ==tail"),
		"shared-var":  seed(2, "\x02AHg="),
		"pcre":        seed(3, "kAAAACA"),
		"nested":      seed(4, "UVVGQg=="),
		"edge-offset": seed(5, "Zm9v"),
		"stale":       seed(6, "Zm9v"),
		"invalid":     seed(0, "=Zm9%$\xff\x00"),
	}
}

func FuzzBase64(f *testing.F) {
	for _, s := range base64FuzzSeeds() {
		f.Add(s)
	}
	progs := make([]*Program, len(base64FuzzRules))
	for i, o := range base64FuzzRules {
		progs[i] = ruleProgram(f, tcpRule(o), "pkt_data")
	}
	st := NewState()
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		buf := in[1:]
		// The program the first byte names, then all of them, within one packet (stale
		// decode state carried over) and across packets.
		st.StartPacket()
		progs[int(in[0])%len(progs)].Inspect(buf, st)
		for _, p := range progs {
			p.Inspect(buf, st)
			if len(st.Base64Decoded()) > Base64DecodeMax {
				t.Fatalf("decoded %d bytes", len(st.Base64Decoded()))
			}
		}
		// The decoder: never more out than in, the same in place, and the standard result
		// on canonical padded base64.
		out := make([]byte, len(buf))
		n := decodeRFC4648(out, buf)
		if n > len(buf) {
			t.Fatalf("%d bytes out of %d", n, len(buf))
		}
		inPlace := append([]byte(nil), buf...)
		if m := decodeRFC4648(inPlace, inPlace); !bytes.Equal(inPlace[:m], out[:n]) {
			t.Fatalf("in place %q, apart %q", inPlace[:m], out[:n])
		}
		if want, err := base64.StdEncoding.Strict().DecodeString(string(buf)); err == nil && len(want) > 0 &&
			!bytes.ContainsAny(buf, "\r\n") && !bytes.Equal(out[:n], want) {
			t.Fatalf("%q: %q, want %q", buf, out[:n], want)
		}
	})
}

// TestWriteBase64FuzzSeeds checks the seed files against base64FuzzSeeds;
// MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteBase64FuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzBase64")
	seeds := base64FuzzSeeds()
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
