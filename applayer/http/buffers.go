package http

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// The inspection buffers of HTTP/1 (§5.9; src/detect-http-*.c, detect-file-data.c).
// Progress: L = ReqLine/ResLine, H = ReqHeaders/ResHeaders, B = ReqBody/ResBody. The getters
// build composite buffers into per-tx scratch storage (no allocation once warm).

const (
	scrHeader = iota
	scrHeaderNames
	scrStart
	scrReqHeader
	nScratch
)

var (
	ts = [2]bool{flow.ToServer: true}
	tc = [2]bool{flow.ToClient: true}
	bd = [2]bool{true, true}
)

// BufferIDs are the ids the HTTP/1 buffers got from applayer.RegisterBuffer, by name
// (file.data is registered once for both directions).
var BufferIDs = map[string]applayer.BufferID{}

func reg(b applayer.Buffer) {
	b.Proto = applayer.ProtoHTTP1
	BufferIDs[b.Name] = applayer.RegisterBuffer(b)
}

func prog(l uint8) [2]uint8 { return [2]uint8{l, l} }

func asTx(x applayer.Tx) *Tx { t, _ := x.(*Tx); return t }

// lineParsed says the request (dir ts) or response line was parsed.
func lineParsed(t *Tx, dir applayer.Dir) bool {
	if dir == flow.ToServer {
		return !t.RequestSynthetic && (t.data.Progress[0] >= ReqHeaders || len(t.RequestLine) > 0)
	}
	return len(t.ResponseLine) > 0
}

// headersDone says the header block of dir is complete (progress past HEADERS).
func headersDone(t *Tx, dir applayer.Dir) bool {
	return t.data.Progress[dir] > ReqHeaders
}

func hdrs(t *Tx, dir applayer.Dir) *Headers {
	if dir == flow.ToServer {
		return &t.RequestHeaders
	}
	return &t.ResponseHeaders
}

func simple(name string, dirs [2]bool, p uint8, get func(t *Tx, dir applayer.Dir) ([]byte, bool)) {
	reg(applayer.Buffer{Name: name, Dirs: dirs, Progress: prog(p), Get: func(x applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
		t := asTx(x)
		if t == nil || i != 0 {
			return nil, false
		}
		return get(t, dir)
	}})
}

func headerValue(name string, dirs [2]bool, hdrName [2]string) {
	simple(name, dirs, ReqHeaders, func(t *Tx, dir applayer.Dir) ([]byte, bool) {
		return hdrs(t, dir).Header(hdrName[dir])
	})
}

func init() {
	simple("http.uri", ts, ReqLine, func(t *Tx, _ applayer.Dir) ([]byte, bool) {
		// the synthetic /libhtp::request_uri_not_seen of a response without request is
		// a URI like any other for libhtp
		return t.URINorm, t.HasURI
	})
	simple("http.uri.raw", ts, ReqLine, func(t *Tx, _ applayer.Dir) ([]byte, bool) {
		return t.URIRaw, t.HasURI
	})
	simple("http.method", ts, ReqLine, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		return t.Method, lineParsed(t, d) && len(t.Method) > 0
	})
	simple("http.request_line", ts, ReqLine, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		return t.RequestLine, lineParsed(t, d)
	})
	simple("http.protocol", bd, ReqLine, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		if d == flow.ToServer {
			return t.Protocol, len(t.Protocol) > 0
		}
		return t.ResponseProtocol, len(t.ResponseProtocol) > 0
	})
	simple("http.stat_code", tc, ResLine, func(t *Tx, _ applayer.Dir) ([]byte, bool) {
		return t.StatusCode, len(t.StatusCode) > 0
	})
	simple("http.stat_msg", tc, ResLine, func(t *Tx, _ applayer.Dir) ([]byte, bool) {
		return t.StatusMsg, len(t.ResponseLine) > 0 && len(t.StatusMsg) > 0
	})
	simple("http.response_line", tc, ResLine, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		return t.ResponseLine, lineParsed(t, d)
	})
	simple("http.header", bd, ReqHeaders, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		if !headersDone(t, d) {
			return nil, false
		}
		h := hdrs(t, d)
		skip := "Cookie"
		if d == flow.ToClient {
			skip = "Set-Cookie"
		}
		b := t.scratch[d][scrHeader][:0]
		for i := 0; i < h.Len(); i++ {
			n, v := h.At(i)
			if equalFoldBS(n, skip) {
				continue
			}
			b = append(b, n...)
			b = append(b, ':', ' ')
			b = append(b, v...)
			b = append(b, '\r', '\n')
		}
		t.scratch[d][scrHeader] = b
		return b, len(b) > 0
	})
	simple("http.header.raw", bd, ReqBody, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		if d == flow.ToServer {
			return t.RequestHeadersRaw, headersDone(t, d) && len(t.RequestHeadersRaw) > 0
		}
		return t.ResponseHeadersRaw, headersDone(t, d) && len(t.ResponseHeadersRaw) > 0
	})
	simple("http.header_names", bd, ReqHeaders, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		if !headersDone(t, d) {
			return nil, false
		}
		h := hdrs(t, d)
		b := append(t.scratch[d][scrHeaderNames][:0], '\r', '\n')
		for i := 0; i < h.Len(); i++ {
			n, _ := h.At(i)
			b = append(b, n...)
			b = append(b, '\r', '\n')
		}
		b = append(b, '\r', '\n')
		t.scratch[d][scrHeaderNames] = b
		return b, h.Len() > 0
	})
	simple("http.start", bd, ReqHeaders, func(t *Tx, d applayer.Dir) ([]byte, bool) {
		if !headersDone(t, d) {
			return nil, false
		}
		line := t.RequestLine
		if d == flow.ToClient {
			line = t.ResponseLine
		}
		if len(line) == 0 {
			return nil, false
		}
		h := hdrs(t, d)
		b := append(t.scratch[d][scrStart][:0], line...)
		b = append(b, '\r', '\n')
		for i := 0; i < h.Len(); i++ {
			n, v := h.At(i)
			b = append(b, n...)
			b = append(b, ':', ' ')
			b = append(b, v...)
			b = append(b, '\r', '\n')
		}
		b = append(b, '\r', '\n')
		t.scratch[d][scrStart] = b
		return b, true
	})
	// http.request_header / http.response_header: one "Name: value" instance per header.
	// As GetHttp1HeaderData does, instance 0 builds every instance into one buffer and the
	// others are slices of it, so the instances detection holds at once stay distinct.
	multiHeader := func(name string, dirs [2]bool) {
		reg(applayer.Buffer{Name: name, Dirs: dirs, Progress: prog(ReqHeaders), Multi: true,
			Get: func(x applayer.Tx, d applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
				t := asTx(x)
				if t == nil {
					return nil, false
				}
				h := hdrs(t, d)
				if i < 0 || i >= h.Len() {
					return nil, false
				}
				ends := t.hdrEnds[d]
				if i == 0 || len(ends) != h.Len() {
					b, ends := t.scratch[d][scrReqHeader][:0], ends[:0]
					for j := 0; j < h.Len(); j++ {
						n, v := h.At(j)
						b = append(b, n...)
						b = append(b, ':', ' ')
						b = append(b, v...)
						ends = append(ends, len(b))
					}
					t.scratch[d][scrReqHeader], t.hdrEnds[d] = b, ends
				}
				b, ends := t.scratch[d][scrReqHeader], t.hdrEnds[d]
				start := 0
				if i > 0 {
					start = ends[i-1]
				}
				return b[start:ends[i]:ends[i]], true
			}})
	}
	multiHeader("http.request_header", ts)
	multiHeader("http.response_header", tc)
	headerValue("http.cookie", bd, [2]string{"Cookie", "Set-Cookie"})
	headerValue("http.user_agent", ts, [2]string{"User-Agent", ""})
	simple("http.host", ts, ReqHeaders, func(t *Tx, _ applayer.Dir) ([]byte, bool) {
		return t.Hostname, len(t.Hostname) > 0
	})
	simple("http.host.raw", ts, ReqHeaders, func(t *Tx, _ applayer.Dir) ([]byte, bool) {
		return t.HostRaw, t.HasHostRaw
	})
	headerValue("http.accept", ts, [2]string{"Accept", ""})
	headerValue("http.accept_enc", ts, [2]string{"Accept-Encoding", ""})
	headerValue("http.accept_lang", ts, [2]string{"Accept-Language", ""})
	headerValue("http.referer", ts, [2]string{"Referer", ""})
	headerValue("http.connection", bd, [2]string{"Connection", "Connection"})
	headerValue("http.content_len", bd, [2]string{"Content-Length", "Content-Length"})
	headerValue("http.content_type", bd, [2]string{"Content-Type", "Content-Type"})
	headerValue("http.server", tc, [2]string{"", "Server"})
	headerValue("http.location", tc, [2]string{"", "Location"})

	reg(applayer.Buffer{Name: "http.request_body", Dirs: ts, Progress: prog(ReqBody),
		Get: func(x applayer.Tx, d applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil || i != 0 {
				return nil, false
			}
			return t.bodyWindow(&t.RequestBody, d, ctx, false)
		},
		Inspected: func(x applayer.Tx, d applayer.Dir, ctx *applayer.GetCtx) {
			if t := asTx(x); t != nil {
				if _, ok := t.bodyWindow(&t.RequestBody, d, ctx, false); ok {
					t.RequestBody.inspected = uint64(len(t.RequestBody.Data))
				}
			}
		}})
	// file.data: to_client the response body (http.response_body), to_server the request
	// files (PUT bodies, multipart parts: one instance per file).
	fileBody := func(t *Tx, d applayer.Dir, i int) *Body {
		fs := t.RequestFiles
		if d == flow.ToClient {
			fs = t.ResponseFiles
		}
		if i < 0 || i >= len(fs) {
			return nil
		}
		return fs[i].Data
	}
	reg(applayer.Buffer{Name: "file.data", Dirs: bd, Progress: prog(ReqBody), Multi: true,
		Get: func(x applayer.Tx, d applayer.Dir, i int, ctx *applayer.GetCtx) ([]byte, bool) {
			t := asTx(x)
			if t == nil {
				return nil, false
			}
			b := fileBody(t, d, i)
			if b == nil {
				return nil, false
			}
			return t.bodyWindow(b, d, ctx, true)
		},
		Inspected: func(x applayer.Tx, d applayer.Dir, ctx *applayer.GetCtx) {
			t := asTx(x)
			if t == nil {
				return
			}
			for i := 0; ; i++ {
				b := fileBody(t, d, i)
				if b == nil {
					return
				}
				if _, ok := t.bodyWindow(b, d, ctx, true); ok {
					b.inspectedFile = uint64(len(b.Data))
				}
			}
		}})
}

// bodyWindow is the body inspection window of HttpRequestBodyGetDataCallback /
// FiledataGetDataCallback: nothing new -> none; in IDS mode inspection is deferred until
// the minimal inspect size, the body limit, the end of the body or EOF; then the new data
// plus history (enough to make up the inspect window, else window/4).
func (t *Tx) bodyWindow(b *Body, d applayer.Dir, ctx *applayer.GetCtx, file bool) ([]byte, bool) {
	st := t.state
	if st == nil {
		return nil, false
	}
	c := st.cfg
	limit, minSize, window := c.RequestBodyLimit, c.RequestMinInspect, c.RequestInspectWindow
	if d == flow.ToClient {
		limit, minSize, window = c.ResponseBodyLimit, c.ResponseMinInspect, c.ResponseInspectWindow
	}
	inspected := b.inspected
	if file {
		inspected = b.inspectedFile
	}
	have := uint64(len(b.Data))
	if have == 0 || inspected >= have {
		return nil, false
	}
	eof := ctx != nil && ctx.EOF
	inline := c.BodyInline == BodyInlineYes || (c.BodyInline == BodyInlineAuto && ctx != nil && ctx.Inline)
	if !inline {
		if (limit == 0 || have < limit) && have < minSize && t.data.Progress[d] <= ReqBody && !b.Complete && !eof {
			return nil, false
		}
	}
	var off uint64
	if inspected > minSize {
		nw := have - inspected
		if nw < window {
			short := window - nw
			if inspected >= short {
				off = inspected - short
			}
		} else {
			off = inspected - window/4
		}
	}
	return b.Data[off:], true
}
