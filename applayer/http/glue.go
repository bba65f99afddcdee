package http

import (
	"errors"

	"github.com/meerkat-ids/meerkat/applayer/http/decompress"
	"github.com/meerkat-ids/meerkat/applayer/http/uri"
)

// glue.go binds the parser to applayer/http/uri (request-target split and normalisation)
// and applayer/http/decompress (Content-Encoding of bodies).

type uriConfig = uri.Config

type uriFlags = uri.Flags

// buildURI is the URI part of HTPConfigParseParameters: the personality's decoder config
// (set_server_personality with Suricata's lowercase override) with the path-* and decoding
// keys applied on top.
func (c *Config) buildURI() error {
	u, err := uri.Personality(c.Personality)
	if err != nil && !errors.Is(err, uri.ErrPersonalityIgnored) {
		return err
	}
	o := &c.URI
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&u.ConvertBackslash, o.ConvertBackslash)
	set(&u.DecodeSeparators, o.DecodeSeparators)
	set(&u.CompressSeparators, o.CompressSeparators)
	set(&u.UEncodingDecode, o.UEncodingDecode)
	set(&u.UTF8ConvertBestfit, o.UTF8ConvertBestfit)
	set(&u.ConvertLowercase, o.ConvertLowercase)
	set(&u.NulEncodedTerminates, o.NulEncodedTerminates)
	set(&u.NulRawTerminates, o.NulRawTerminates)
	if o.BestfitReplacement != nil {
		u.BestfitReplacement = *o.BestfitReplacement
	}
	if o.InvalidHandling != "" {
		if h, ok := uri.ParseInvalidHandling(o.InvalidHandling); ok {
			u.InvalidHandling = h
		}
	}
	u.DoubleDecodePath, u.DoubleDecodeQuery = o.DoubleDecodePath, o.DoubleDecodeQuery
	u.PlusSpaceDecode, u.IncludeAll = o.PlusSpaceDecode, o.IncludeAll
	c.uriCfg = u
	c.uriBuilt = true
	return nil
}

type uriNormalizer struct{ cfg *uri.Config }

func (n *uriNormalizer) configure(c *Config) { n.cfg = &c.uriCfg }

// parseURI is the tx's parse_request_line (transaction.rs): the request-target split
// (parse_uri, parse_uri_hostport for CONNECT), its normalisation (normalize_parsed_uri)
// and the hostname check (HOSTU_INVALID).
func (s *State) parseURI(t *Tx) {
	var u uri.URI
	if string(t.Method) == "CONNECT" {
		if !uri.ParseHostPort(t.URIRaw, &u) {
			t.flags |= txFlagHostUInvalid
		}
	} else {
		uri.Parse(t.URIRaw, &u)
	}
	t.ParsedURI = URIParts{Scheme: u.Scheme, Username: u.Username, Password: u.Password,
		Hostname: u.Hostname, Port: u.Port, Path: u.Path, Query: u.Query, Fragment: u.Fragment,
		HasScheme: u.HasScheme, HasAuthority: u.HasAuthority}
	var f uri.Flags
	t.URINorm = s.uriNorm.cfg.Normalize(t.URINorm[:0], &u, &f)
	if f&uri.FlagDoubleEncoded != 0 {
		s.event(t, EvDoubleEncodedUri)
	}
	if u.HasAuthority && len(u.Hostname) > 0 {
		t.hostFromURI = true
		t.Hostname = uri.NormalizeHostname(t.Hostname[:0], u.Hostname)
		// http.host.raw of an absolute URI: its host, already lowercased
		t.HostRaw = append(t.HostRaw[:0], t.Hostname...)
		t.HasHostRaw = true
		if !uri.ValidateHostname(u.Hostname) {
			t.flags |= txFlagHostUInvalid
		}
		if len(u.Port) > 0 {
			if p, ok := uri.ParsePort(u.Port); ok {
				t.Port = p
			} else {
				t.flags |= txFlagHostUInvalid
			}
		}
	}
	if f&uri.FlagHostInvalid != 0 {
		t.flags |= txFlagHostUInvalid
	}
}

// bodyDecoder runs one direction's body through decompress.Decompressor when the message
// has a Content-Encoding (request_initialize_decompressors / response_...), else passes it.
type bodyDecoder struct {
	active bool
	d      decompress.Decompressor
	layers []decompress.Encoding
	s      *State
	t      *Tx
	resp   bool
	emitFn func([]byte)
}

func (d *bodyDecoder) init() { d.emitFn = d.emit }

func (d *bodyDecoder) emit(b []byte) { d.s.storeBody(d.t, d.resp, b) }

func (d *bodyDecoder) reset() {
	if d.active {
		d.d.Reset(nil, decompress.Limits{})
	}
	d.active, d.s, d.t = false, nil, nil
}

func (d *bodyDecoder) setupNone() { d.reset() }

// setup reads the message's Content-Encoding; request bodies are decompressed too
// (Suricata enables request decompression).
func (d *bodyDecoder) setup(s *State, t *Tx, resp bool) {
	d.reset()
	h := &t.RequestHeaders
	if resp {
		h = &t.ResponseHeaders
	}
	ce, ok := h.Header("Content-Encoding")
	if !ok || len(ce) == 0 || s.bombs >= s.cfg.BombCount {
		return
	}
	layers, an := decompress.ParseContentEncodingLimits(ce, d.layers[:0], s.cfg.LayerLimit, s.cfg.LzmaLayers)
	d.layers = layers
	if an&decompress.AnomalyAbnormalCE != 0 {
		s.event(t, EvAbnormalCeHeader)
	}
	if an&decompress.AnomalyTooManyLayers != 0 {
		s.event(t, EvTooManyEncodingLayers)
	}
	if an&decompress.AnomalyTooManyLzmaLayers != 0 {
		s.event(t, pick(resp, EvResponseTooManyLzmaLayers, EvRequestTooManyLzmaLayers))
	}
	n := 0
	for _, e := range layers {
		if e != decompress.None {
			n++
		}
	}
	if n == 0 {
		return
	}
	d.d.Reset(layers, decompress.Limits{LayerLimit: s.cfg.LayerLimit, BombLimit: s.cfg.BombLimit, TimeLimit: s.cfg.DecompressLimit})
	d.active, d.s, d.t, d.resp = true, s, t, resp
}

func (d *bodyDecoder) write(s *State, t *Tx, resp bool, b []byte) {
	if !d.active || d.t != t {
		s.storeBody(t, resp, b)
		return
	}
	d.status(d.d.Write(b, d.emitFn))
}

func (d *bodyDecoder) finish(s *State, t *Tx, resp bool) {
	if !d.active || d.t != t {
		return
	}
	d.status(d.d.Close(d.emitFn))
	d.active = false
}

// status turns the decompressor's report into libhtp's log events.
func (d *bodyDecoder) status(st decompress.Status) {
	s, t := d.s, d.t
	if st&(decompress.StatusBomb|decompress.StatusTimeLimit) != 0 {
		s.event(t, EvCompressionBomb)
	}
	if st&decompress.StatusBomb != 0 {
		s.bombs++
		if s.bombs == s.cfg.BombCount {
			s.event(t, EvCompressionBombLimitReached)
		}
	}
	if st&decompress.StatusTooManyLayers != 0 {
		s.event(t, EvTooManyEncodingLayers)
	}
	if st&decompress.StatusCorrupt != 0 {
		s.event(t, EvGzipDecompressionFailed)
	}
}
