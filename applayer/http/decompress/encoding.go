// Package decompress undoes HTTP Content-Encoding on body data pushed in
// arbitrary chunks, with the behaviour of Suricata 8's libhtp
// (rust/htp/src/decompressors.rs and the response/request
// initialize_decompressors functions): the Content-Encoding value parsed into
// layers, gzip with a tolerant header parser, deflate as raw or zlib,
// restarts with the other formats when a layer's data does not decode, pass
// through when none does, and the compression-bomb and time limits.
package decompress

import "bytes"

// Encoding is one content-coding layer (libhtp HtpContentEncoding).
type Encoding uint8

const (
	// None is no coding (also "identity", "inflate", "none").
	None Encoding = iota
	// Gzip is "gzip" / "x-gzip" (and, in a list, anything containing "gzip").
	Gzip
	// Deflate is "deflate" / "x-deflate": libhtp tries raw deflate first,
	// then zlib, then gzip.
	Deflate
	// Lzma is "lzma". Suricata 8 decodes it; Meerkat has no LZMA decoder and
	// passes such a layer through (StatusUnsupported).
	Lzma
	// Brotli is "br", recognised by libhtp only as the whole header value.
	// Meerkat has no Brotli decoder and passes it through (StatusUnsupported).
	Brotli
)

func (e Encoding) String() string {
	switch e {
	case Gzip:
		return "gzip"
	case Deflate:
		return "deflate"
	case Lzma:
		return "lzma"
	case Brotli:
		return "br"
	}
	return "none"
}

// Anomaly is what parsing a Content-Encoding value saw.
type Anomaly uint8

const (
	// AnomalyAbnormalCE: a list entry that only contains gzip/deflate, or an
	// unknown coding (abnormal_ce_header).
	AnomalyAbnormalCE Anomaly = 1 << iota
	// AnomalyTooManyLayers: more list entries than the layer limit
	// (too_many_encoding_layers); the rest were ignored.
	AnomalyTooManyLayers
	// AnomalyTooManyLzmaLayers: more "lzma" list entries than the lzma limit
	// (request/response_too_many_lzma_layers); that entry and the rest were
	// ignored.
	AnomalyTooManyLzmaLayers
)

// eqNoCaseNoZero is libhtp Bstr::cmp_nocase_nozero against a lowercase
// literal: NUL bytes in v are skipped, ASCII case is ignored.
func eqNoCaseNoZero(v []byte, lit string) bool {
	j := 0
	for _, c := range v {
		if c == 0 {
			continue
		}
		if j >= len(lit) {
			return false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[j] {
			return false
		}
		j++
	}
	return j == len(lit)
}

func containsFold(v []byte, lit string) bool {
	n := len(lit)
	for i := 0; i+n <= len(v); i++ {
		ok := true
		for k := 0; k < n; k++ {
			c := v[i+k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lit[k] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// ParseContentEncoding parses a Content-Encoding value with no layer limit;
// see ParseContentEncodingLimit.
func ParseContentEncoding(v []byte, layers []Encoding) ([]Encoding, Anomaly) {
	return ParseContentEncodingLimit(v, layers, 0)
}

// ParseContentEncodingLimit parses a Content-Encoding value as libhtp's
// response_initialize_decompressors (request side alike) and appends to
// layers[:0] the decoders in the order the body data goes through them: the
// last coding listed first. The whole value equal (case-insensitively, NULs
// ignored) to gzip, x-gzip, deflate, x-deflate, lzma or br is one layer;
// inflate or none is no layer. Anything else is split on ',' and ' ': each
// non-empty entry counts against limit (0: none; past it the rest is ignored
// with AnomalyTooManyLayers); an entry containing "gzip" or "deflate"
// (case-insensitively) is that coding (abnormal unless exactly gzip/x-gzip or
// deflate/x-deflate), "lzma" is Lzma, inflate/none/identity add nothing and
// anything else is abnormal and adds nothing.
func ParseContentEncodingLimit(v []byte, layers []Encoding, limit int) ([]Encoding, Anomaly) {
	return ParseContentEncodingLimits(v, layers, limit, 0)
}

// ParseContentEncodingLimits is ParseContentEncodingLimit with libhtp's lzma
// layer limit too (lzma-enabled: 0 none): in a list, an "lzma" entry past
// lzmaLimit ends the parse with AnomalyTooManyLzmaLayers
// (response_initialize_decompressors' lzma_layers check).
func ParseContentEncodingLimits(v []byte, layers []Encoding, limit, lzmaLimit int) ([]Encoding, Anomaly) {
	layers = layers[:0]
	lzma := 0
	var an Anomaly
	switch {
	case len(v) == 0:
		return layers, 0
	case eqNoCaseNoZero(v, "gzip") || eqNoCaseNoZero(v, "x-gzip"):
		return append(layers, Gzip), 0
	case eqNoCaseNoZero(v, "deflate") || eqNoCaseNoZero(v, "x-deflate"):
		return append(layers, Deflate), 0
	case eqNoCaseNoZero(v, "lzma"):
		return append(layers, Lzma), 0
	case eqNoCaseNoZero(v, "br"):
		return append(layers, Brotli), 0
	case eqNoCaseNoZero(v, "inflate") || eqNoCaseNoZero(v, "none"):
		return layers, 0
	}
	n := 0
list:
	for len(v) > 0 {
		i := bytes.IndexAny(v, ", ")
		var e []byte
		if i < 0 {
			e, v = v, nil
		} else {
			e, v = v[:i], v[i+1:]
		}
		if len(e) == 0 {
			continue
		}
		n++
		if limit > 0 && n > limit {
			an |= AnomalyTooManyLayers
			break
		}
		enc := None
		switch {
		case containsFold(e, "gzip"):
			if string(e) != "gzip" && string(e) != "x-gzip" {
				an |= AnomalyAbnormalCE
			}
			enc = Gzip
		case containsFold(e, "deflate"):
			if string(e) != "deflate" && string(e) != "x-deflate" {
				an |= AnomalyAbnormalCE
			}
			enc = Deflate
		case string(e) == "lzma":
			lzma++
			if lzmaLimit > 0 && lzma > lzmaLimit {
				an |= AnomalyTooManyLzmaLayers
				break list
			}
			enc = Lzma
		case string(e) == "inflate" || string(e) == "none" || string(e) == "identity":
		default:
			an |= AnomalyAbnormalCE
		}
		if enc != None {
			layers = append(layers, enc)
		}
	}
	// Each coding was prepended to the chain: the last listed sees the data
	// first.
	for i, j := 0, len(layers)-1; i < j; i, j = i+1, j-1 {
		layers[i], layers[j] = layers[j], layers[i]
	}
	return layers, an
}
