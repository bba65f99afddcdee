package transform

import (
	"bytes"
	"fmt"
	"testing"
)

// benchInputs are a typical buffer per transform (matching, where a transform can fail to
// apply).
func benchInput(spec string) []byte {
	switch spec {
	case "from_base64", "from_base64=mode rfc2045", "from_base64=mode strict":
		return []byte("VGhpcyBpcyBTdXJpY2F0YSwgdGhpcyBpcyBhIGxvbmdlciBiYXNlNjQgYnVmZmVyIQ==")
	case "gunzip":
		return gz(nil, bytes.Repeat([]byte("GET /index.html HTTP/1.1\r\n"), 40))
	case "zlib_deflate":
		return zl(nil, bytes.Repeat([]byte("GET /index.html HTTP/1.1\r\n"), 40))
	case "domain", "tld":
		return []byte("www.images.example.co.uk")
	case "url_decode":
		return []byte("/search?q=%27union%20select%27+from+users%00&x=%ZZ")
	case "header_lowercase", "strip_pseudo_headers":
		return []byte(":method: GET\r\n:path: /\r\nHost: Example.COM\r\nUser-Agent: Mozilla/5.0\r\n")
	case `pcrexform="a(.)"`, `pcrexform="(?=a)(.)"`:
		return []byte("GET /a?x=1 HTTP/1.1 \xff\xfe abc")
	}
	return []byte("GET /Index.HTML?q=Some Value\t with  White   space HTTP/1.1")
}

// libraryAllocs are the transforms whose library allocates per Apply after warm-up, with the
// most allocations testing.AllocsPerRun measured: Go's regexp returns the submatch index slice
// it allocates (FindSubmatchIndex, only reached on a match); regexp2 allocates its Match;
// zlib.Reader.Reset allocates a fresh Adler-32 digest; x/net/publicsuffix.PublicSuffix first
// tries netip.ParseAddr, whose error it drops is allocated.
var libraryAllocs = map[string]float64{
	"domain":               1,
	"tld":                  1,
	`pcrexform="a(.)"`:     1,
	`pcrexform="(?=a)(.)"`: 8,
	"zlib_deflate":         1,
}

func TestAllocs(t *testing.T) {
	if raceOn {
		t.Skip("allocation counts are not meaningful under -race")
	}
	s := NewScratch()
	for _, spec := range allSpecs {
		c := mustChain(t, spec)
		in := benchInput(spec)
		if out := c.Apply(in, s); sameSlice(out, in) {
			t.Errorf("%s: the input leaves the buffer unchanged: pick another", spec)
		}
		for i := 0; i < 3; i++ {
			c.Apply(in, s)
			s.Reset()
		}
		n := testing.AllocsPerRun(200, func() {
			c.Apply(in, s)
			c.Apply(in, s)
			s.Reset()
		}) / 2
		lim := libraryAllocs[spec]
		if n > lim {
			t.Errorf("%s: %.1f allocations per Apply, want <= %.0f", spec, n, lim)
		}
		t.Logf("%-26s %.1f allocs/Apply", spec, n)
	}
	// A chain of several and the arena over many results.
	c := mustChain(t, "url_decode", "to_lowercase", "compress_whitespace", "dotprefix", "to_sha256")
	in := benchInput("url_decode")
	for i := 0; i < 3; i++ {
		for j := 0; j < 50; j++ {
			c.Apply(in, s)
		}
		s.Reset()
	}
	if n := testing.AllocsPerRun(50, func() {
		for j := 0; j < 50; j++ {
			c.Apply(in, s)
		}
		s.Reset()
	}); n != 0 {
		t.Errorf("chain: %.1f allocations per 50 Applies", n)
	}
}

func BenchmarkApply(b *testing.B) {
	for _, spec := range allSpecs {
		c := mustChain(b, spec)
		in := benchInput(spec)
		b.Run(spec, func(b *testing.B) {
			s := NewScratch()
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.Apply(in, s)
				s.Reset()
			}
		})
	}
}

// TestConcurrent: a Chain is shared by workers, each with its own Scratch (run with -race).
func TestConcurrent(t *testing.T) {
	var chains []*Chain
	var ins, wants [][]byte
	ref := NewScratch()
	for _, spec := range allSpecs {
		c := mustChain(t, spec)
		in := benchInput(spec)
		chains = append(chains, c)
		ins = append(ins, in)
		wants = append(wants, append([]byte(nil), c.Apply(in, ref)...))
	}
	done := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			s := NewScratch()
			for n := 0; n < 50; n++ {
				for i, c := range chains {
					if got := c.Apply(ins[i], s); !bytes.Equal(got, wants[i]) {
						done <- fmt.Errorf("%s: %q, want %q", allSpecs[i], got, wants[i])
						return
					}
				}
				s.Reset()
			}
			done <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
