package dns

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// FuzzParseDNS parses one datagram in each direction: no panic, and every name the message
// holds is within the arena and the length limit.
func FuzzParseDNS(f *testing.F) {
	for _, name := range sortedKeys(udpSeeds()) {
		f.Add(udpSeeds()[name])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := NewState(false)
		for _, d := range []flow.Direction{flow.ToServer, flow.ToClient} {
			s.Parse(d, in, 0)
			ProbeUDP(in, d)
			ProbeTCP(in, d)
		}
		for i := range s.TxCount() {
			m := &s.Tx(i).Msg
			check := func(sp Span) {
				if int(sp.Off+sp.Len) > len(m.arena) {
					t.Fatalf("span %+v outside the arena (%d)", sp, len(m.arena))
				}
			}
			for _, q := range m.Queries {
				check(q.Name)
				if q.Name.Len > maxNameLen {
					t.Fatalf("name of %d bytes", q.Name.Len)
				}
			}
			for _, rrs := range [][]RR{m.Answers, m.Authorities, m.Additionals} {
				for k := range rrs {
					rr := &rrs[k]
					check(rr.Name)
					check(rr.Target)
					check(rr.RName)
					check(rr.Data)
				}
			}
			s.Tx(i).ResponseNames()
		}
	})
}

// FuzzDNSTCP feeds a TCP stream in pieces (the first byte seeds the split points) and checks
// that the messages found are those of parsing it whole, up to the first error.
func FuzzDNSTCP(f *testing.F) {
	for _, name := range sortedKeys(tcpSeeds()) {
		f.Add(tcpSeeds()[name])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 1 {
			return
		}
		seed, data := in[0], in[1:]
		whole := NewState(true)
		rw := whole.Parse(flow.ToServer, data, 0)
		split := NewState(true)
		var buf []byte
		var failed bool
		for pos, step := 0, 0; pos < len(data); step++ {
			n := 1 + int(seed^byte(step*37))%17
			end := min(pos+n, len(data))
			buf = append(buf, data[pos:end]...)
			pos = end
			r := split.Parse(flow.ToServer, buf, 0)
			if r.Err != nil {
				failed = true
				break
			}
			if r.Consumed < 0 || r.Consumed > len(buf) {
				t.Fatalf("consumed %d of %d", r.Consumed, len(buf))
			}
			buf = append(buf[:0], buf[r.Consumed:]...)
		}
		if failed != (rw.Err != nil) {
			t.Fatalf("split error %v, whole %v", failed, rw.Err)
		}
		if split.TxCount() != whole.TxCount() {
			t.Fatalf("%d txs split, %d whole", split.TxCount(), whole.TxCount())
		}
	})
}

func udpSeeds() map[string][]byte {
	longName := bytes.Repeat([]byte{63}, 1)
	longName = append(longName, bytes.Repeat([]byte{'a'}, 63)...)
	return map[string][]byte{
		"query":     googleQuery(),
		"response":  googleResponse(),
		"z-opcode":  newMsg(2, 0x4840, 1, 0, 0, 0).question("a.b", 1).b,
		"forward":   append(newMsg(3, 0x0100, 1, 0, 0, 0).raw(0xc0, 14).u16(1, 1).b, labels("fwd.example")...),
		"loop":      newMsg(4, 0x8180, 1, 1, 0, 0).question("a.b", 1).rr(ptr(21), 1, 0, []byte{1, 2, 3, 4}).b,
		"long-name": newMsg(5, 0x0100, 1, 0, 0, 0).raw(bytes.Repeat(longName, 18)...).raw(0, 0, 1, 0, 1).b,
		"rdata": newMsg(6, 0x8180, 1, 4, 1, 1).question("x.y", 1).
			rr(ptr(12), TypeTXT, 1, []byte{2, 'h', 'i'}).rr(ptr(12), TypeSSHFP, 1, []byte{1, 1, 9}).
			rr(ptr(12), TypeSRV, 1, append([]byte{0, 1, 0, 2, 0, 3}, ptr(12)...)).rr(ptr(12), TypeAAAA, 1, make([]byte, 16)).
			rr(ptr(12), TypeSOA, 1, append(append(ptr(12), ptr(12)...), make([]byte, 20)...)).
			rr([]byte{0}, TypeOPT, 0, []byte{0, 8, 0, 1, 7}).b,
		"bad-authority": newMsg(7, 0x8180, 1, 0, 1, 0).question("x.y", 1).rr([]byte{0x80}, 1, 0, nil).b,
	}
}

func tcpSeeds() map[string][]byte {
	return map[string][]byte{
		"two-queries":  append([]byte{5}, tcp(googleQuery(), googleQuery())...),
		"zero-len":     append([]byte{9, 0, 0}, tcp(googleResponse())...),
		"bad-header":   append([]byte{1}, tcp(make([]byte, 12), googleQuery())...),
		"partial-tail": append([]byte{3}, tcp(googleQuery())[:10]...),
	}
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestWriteFuzzSeeds checks that every seed is checked in under testdata/fuzz/<FuzzName> (Go's
// corpus format); MEERKAT_WRITE_SEEDS=1 writes them.
func TestWriteFuzzSeeds(t *testing.T) {
	for fuzz, seeds := range map[string]map[string][]byte{"FuzzParseDNS": udpSeeds(), "FuzzDNSTCP": tcpSeeds()} {
		dir := filepath.Join("testdata", "fuzz", fuzz)
		for _, name := range sortedKeys(seeds) {
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
				t.Errorf("seed %s/%s is not checked in (run with MEERKAT_WRITE_SEEDS=1): %v", fuzz, name, err)
			}
		}
	}
}
