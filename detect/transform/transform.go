// Package transform implements Suricata 8.0.6's buffer transforms (to_lowercase, dotprefix,
// pcrexform, from_base64, gunzip, ...): a rule's sticky buffer is transformed, in rule order,
// before its contents, pcres and the prefilter inspect it.
//
// Every transform leaves an empty buffer unchanged (Suricata's transforms all return early on
// inspect_len 0), so an empty buffer stays empty through any chain, and Apply returns its input
// itself for it.
//
// Content validation against the transforms at load (DetectEngineBufferTypeValidateTransform)
// is done by the rules package (rules/content.go: checkTransformCompat), not here.
package transform

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/detect/pcre"
	"github.com/meerkat-ids/meerkat/rules"
)

// xform is one compiled transform.
type xform interface {
	// apply transforms src (never empty). It returns src itself when the buffer is left
	// unchanged, or a slice of dst (appended from dst[:0], possibly reallocated) otherwise.
	apply(dst, src []byte, s *Scratch) []byte
	// key is the transform and its canonical arguments.
	key() string
}

// Chain is one buffer's compiled transforms, applied in rule order. A Chain is immutable once
// compiled and may be shared by every worker; the per-worker state lives in a Scratch.
type Chain struct {
	steps []xform
	names []string
	k     string
}

// Compile builds the chain of opts (rules.Buffer.Transforms, in rule order). An error names
// the transform and why; luaxform is refused ("luaxform is not supported (no Lua)").
func Compile(opts []*rules.Option) (*Chain, error) {
	c := &Chain{}
	keys := make([]string, 0, len(opts))
	for _, o := range opts {
		x, err := compileOne(o.Name, o.Value)
		if err != nil {
			return nil, err
		}
		c.steps = append(c.steps, x)
		c.names = append(c.names, o.Name)
		keys = append(keys, x.key())
	}
	c.k = strings.Join(keys, ";")
	return c, nil
}

// unquote strips the double quotes the rules package keeps around xor and pcrexform values.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

func compileOne(name, value string) (xform, error) {
	arg := unquote(strings.TrimSpace(value))
	noArg := func(x xform) (xform, error) {
		if arg != "" {
			return nil, fmt.Errorf("%s: takes no argument (%q)", name, arg)
		}
		return x, nil
	}
	switch name {
	case "to_lowercase":
		return noArg(lowerX{})
	case "to_uppercase":
		return noArg(upperX{})
	case "dotprefix":
		return noArg(dotprefixX{})
	case "strip_whitespace":
		return noArg(stripWSX{})
	case "compress_whitespace":
		return noArg(compressWSX{})
	case "url_decode":
		return noArg(urlDecodeX{})
	case "header_lowercase":
		return noArg(headerLowerX{})
	case "strip_pseudo_headers":
		return noArg(stripPseudoX{})
	case "to_md5":
		return noArg(hashX{kind: hashMD5})
	case "to_sha1":
		return noArg(hashX{kind: hashSHA1})
	case "to_sha256":
		return noArg(hashX{kind: hashSHA256})
	case "domain":
		return noArg(domainX{tld: false})
	case "tld":
		return noArg(domainX{tld: true})
	case "xor":
		return compileXor(arg)
	case "pcrexform":
		return compilePcrexform(arg)
	case "from_base64":
		return compileBase64(arg)
	case "gunzip":
		return compileDecompress(arg, false)
	case "zlib_deflate":
		return compileDecompress(arg, true)
	case "luaxform":
		return nil, fmt.Errorf("luaxform is not supported (no Lua)")
	}
	return nil, fmt.Errorf("%s: unknown transform", name)
}

// Key identifies the chain: chains with the same transforms and the same (canonical)
// arguments have the same key, so detection can share one transformed buffer per
// (buffer, key) per packet, as Suricata shares an inspection buffer per transformed list
// (DetectBufferTypeGetByIdTransforms compares transforms and their TransformId data).
func (c *Chain) Key() string { return c.k }

// Len is the number of transforms in the chain.
func (c *Chain) Len() int { return len(c.steps) }

// Names are the chain's transform names, in order.
func (c *Chain) Names() []string { return c.names }

// Apply returns src transformed by the chain. It returns src itself when the chain is empty,
// when src is empty (an empty buffer stays empty for every transform) or when every transform
// left it unchanged; otherwise the result lies in s's arena and stays valid until s.Reset
// (not just until the next Apply), so detection can keep the results of several chains over
// one packet. Apply never modifies src.
func (c *Chain) Apply(src []byte, s *Scratch) []byte {
	if c == nil || len(c.steps) == 0 || len(src) == 0 {
		return src
	}
	cur := src
	idx := -1 // which s.tmp holds cur, -1: src
	for _, x := range c.steps {
		if len(cur) == 0 {
			break
		}
		d := 0
		if idx == 0 {
			d = 1
		}
		out := x.apply(s.tmp[d][:0], cur, s)
		if sameSlice(out, cur) {
			continue
		}
		if cap(out) > cap(s.tmp[d]) {
			s.tmp[d] = out[:0] // keep the grown buffer
		}
		cur, idx = out, d
	}
	if idx < 0 {
		return src
	}
	if len(cur) == 0 {
		return cur[:0:0]
	}
	out := s.alloc(len(cur))
	copy(out, cur)
	return out
}

func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Scratch is one worker's reusable output space: two intermediate buffers the steps of a
// chain alternate between, and an arena the final results are copied into. Results handed out
// by Apply stay valid until Reset, which detection calls once per packet. After warm-up (the
// arena has grown to a packet's needs) neither Apply nor Reset allocates, except where a
// library forces it (pcrexform on a match, zlib_deflate: see the package tests).
type Scratch struct {
	tmp   [2][]byte
	chunk []byte   // current arena chunk; len is what is handed out
	old   [][]byte // full chunks still referenced by this packet's results
	dec   decompressors
	re    pcre.Scratch
	name  []byte // domain and tld: a name behind a prefix (suffixLen)
}

// NewScratch returns an empty scratch.
func NewScratch() *Scratch { return &Scratch{} }

// arenaRetain bounds the arena kept across Reset.
const arenaRetain = 4 << 20

// alloc hands out n bytes of the arena, valid until Reset.
func (s *Scratch) alloc(n int) []byte {
	if cap(s.chunk)-len(s.chunk) < n {
		if len(s.chunk) > 0 {
			s.old = append(s.old, s.chunk)
		}
		size := max(n, 2*cap(s.chunk), 4096)
		s.chunk = make([]byte, 0, size)
	}
	l := len(s.chunk)
	s.chunk = s.chunk[:l+n]
	return s.chunk[l : l+n : l+n]
}

// Reset ends the packet: every result Apply handed out since the last Reset becomes invalid
// and its space is reused. Where the packet needed more than one arena chunk, the chunks are
// replaced by one of their total size (up to 4 MiB), so the next packet of that size does not
// allocate.
func (s *Scratch) Reset() {
	if len(s.old) > 0 {
		total := cap(s.chunk)
		for i, c := range s.old {
			total += cap(c)
			s.old[i] = nil
		}
		s.old = s.old[:0]
		s.chunk = make([]byte, 0, min(total, arenaRetain))
		return
	}
	if cap(s.chunk) > arenaRetain {
		s.chunk = make([]byte, 0, arenaRetain)
		return
	}
	s.chunk = s.chunk[:0]
}
