package http

// glue.go binds the parser to applayer/http/uri (normalisation) and
// applayer/http/decompress (bodies). TEMPORARY until those packages are merged: the URI is
// kept raw and bodies are not decompressed.

type uriConfig struct{}

func (c *Config) buildURI() error { return nil }

type uriNormalizer struct{ cfg *Config }

func (n *uriNormalizer) configure(c *Config) { n.cfg = c }

// parseURI splits and normalises t.URIRaw (transaction.rs parse_request_line,
// normalize_parsed_uri).
func (s *State) parseURI(t *Tx) {
	t.URINorm = append(t.URINorm[:0], t.URIRaw...)
}

type bodyDecoder struct {
	active bool
	t      *Tx
}

func (d *bodyDecoder) init()      {}
func (d *bodyDecoder) reset()     { d.active = false }
func (d *bodyDecoder) setupNone() { d.active = false }

func (d *bodyDecoder) setup(s *State, t *Tx, resp bool) { d.active = false }

func (d *bodyDecoder) write(s *State, t *Tx, resp bool, b []byte) { s.storeBody(t, resp, b) }

func (d *bodyDecoder) finish(s *State, t *Tx, resp bool) {}
