package transform

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const (
	decompressDefaultMax = 1024             // DEFAULT_MAX_SIZE
	decompressAbsMax     = 16 * 1024 * 1024 // ABSOLUTE_MAX_SIZE
)

// decompressX is gunzip / zlib_deflate (decompress.rs): the buffer becomes its decompressed
// content, at most maxSize bytes of it (one read of a flate2 decoder into a max-size output:
// the first maxSize bytes, the gzip trailer never checked). Input the decoder rejects (a bad
// header, corrupt deflate data, for zlib a wrong Adler-32 seen within maxSize) gives an empty
// buffer; a truncated stream keeps what it decoded.
type decompressX struct {
	zlib    bool
	maxSize int
}

// compileDecompress parses the option like decompress_parse_do: comma-separated "key value"
// pairs split on single spaces, only max-size (a number with an optional kb/kib/mb/mib/gb/gib
// unit, 1 to 16 MiB), at most once.
func compileDecompress(arg string, isZlib bool) (xform, error) {
	name := "gunzip"
	if isZlib {
		name = "zlib_deflate"
	}
	x := decompressX{zlib: isZlib, maxSize: decompressDefaultMax}
	if arg == "" {
		return x, nil
	}
	seen := false
	for _, p := range strings.Split(arg, ",") {
		kv := strings.Split(p, " ")
		if len(kv) != 2 {
			return nil, fmt.Errorf("%s: Bad key value for decompress transform %s", name, p)
		}
		if kv[0] != "max-size" {
			return nil, fmt.Errorf("%s: Unknown key for decompress transform %s", name, kv[0])
		}
		if seen {
			return nil, fmt.Errorf("%s: Multiple max-size values for decompress transform", name)
		}
		seen = true
		v, ok := parseUintWithUnit(kv[1])
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: Invalid max-size value for decompress transform %s", name, kv[1])
		case v == 0:
			return nil, fmt.Errorf("%s: max-size 0 for decompress transform would always produce an empty buffer", name)
		case v > decompressAbsMax:
			return nil, fmt.Errorf("%s: max-size is too big > %d", name, decompressAbsMax)
		}
		x.maxSize = int(v)
	}
	return x, nil
}

// parseUintWithUnit is detect_parse_uint_with_unit::<u32>: leading digits (a u32), an
// optional case-insensitive unit kib/kb (1024), mib/mb, gib/gb, anything after ignored; a
// product beyond u32 fails.
func parseUintWithUnit(s string) (uint64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:i], 10, 32)
	if err != nil {
		return 0, false
	}
	rest := strings.ToLower(s[i:])
	var unit uint64
	for _, u := range []struct {
		t string
		m uint64
	}{{"kib", 1 << 10}, {"kb", 1 << 10}, {"mib", 1 << 20}, {"mb", 1 << 20}, {"gib", 1 << 30}, {"gb", 1 << 30}} {
		if strings.HasPrefix(rest, u.t) {
			unit = u.m
			break
		}
	}
	if v >= 1 && unit != 0 {
		if (1<<32-1)/unit < v {
			return 0, false
		}
		v *= unit
	}
	return v, true
}

func (x decompressX) key() string {
	n := "gunzip"
	if x.zlib {
		n = "zlib_deflate"
	}
	return n + ":" + strconv.Itoa(x.maxSize)
}

// decompressors are a worker's reusable decoders.
type decompressors struct {
	br  bytes.Reader
	gz  *gzip.Reader
	zr  io.ReadCloser
	one [1]byte
}

func isCorrupt(err error) bool {
	var ce flate.CorruptInputError
	return errors.As(err, &ce)
}

func (x decompressX) apply(dst, src []byte, s *Scratch) []byte {
	d := &s.dec
	d.br.Reset(src)
	var r io.Reader
	if x.zlib {
		var err error
		if d.zr == nil {
			d.zr, err = zlib.NewReader(&d.br)
			if err != nil {
				d.zr = nil
				return dst[:0]
			}
		} else if err = d.zr.(zlib.Resetter).Reset(&d.br, nil); err != nil {
			return dst[:0]
		}
		r = d.zr
	} else {
		if d.gz == nil {
			gz, err := gzip.NewReader(&d.br)
			if err != nil {
				return dst[:0]
			}
			d.gz = gz
		} else if err := d.gz.Reset(&d.br); err != nil {
			return dst[:0]
		}
		// One member: flate2's GzDecoder read never looks past the first.
		d.gz.Multistream(false)
		r = d.gz
	}
	dst = grow(dst, x.maxSize)
	n, err := io.ReadFull(r, dst)
	switch {
	case err == nil:
		// Output full. zlib checks the Adler-32 as soon as it reaches it, even with no output
		// room left: probe for it.
		if x.zlib {
			if _, perr := r.Read(d.one[:]); errors.Is(perr, zlib.ErrChecksum) {
				return dst[:0]
			}
		}
	case isCorrupt(err):
		return dst[:0]
	case x.zlib && errors.Is(err, zlib.ErrChecksum):
		return dst[:0]
	}
	// io.EOF / io.ErrUnexpectedEOF (a short or truncated stream), gzip trailer errors: what
	// was decoded stays.
	return dst[:n]
}
