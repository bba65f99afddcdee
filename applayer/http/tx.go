// Package http is Meerkat's HTTP/1 parser: libhtp's behaviour (rust/htp in Suricata 8.0.6)
// plus Suricata's glue (src/app-layer-htp.c): one Tx per request/response pair, the
// inspection buffers of detection, and what EVE http needs.
package http

import (
	"bytes"

	"github.com/meerkat-ids/meerkat/applayer"
)

// Request progress values (libhtp HtpRequestProgress as Suricata numbers them, §4.1).
const (
	ReqStarted  uint8 = 0 // request_started
	ReqLine     uint8 = 1 // request_line
	ReqHeaders  uint8 = 2 // request_headers
	ReqBody     uint8 = 3 // request_body
	ReqTrailer  uint8 = 4 // request_trailer
	ReqComplete uint8 = 5 // request_complete
)

// Response progress values (libhtp HtpResponseProgress, §4.1).
const (
	ResStarted  uint8 = 0 // response_started
	ResLine     uint8 = 1 // response_line
	ResHeaders  uint8 = 2 // response_headers
	ResBody     uint8 = 3 // response_body
	ResTrailer  uint8 = 4 // response_trailer
	ResComplete uint8 = 5 // response_complete
)

// Protocol versions as libhtp numbers them (HtpProtocol).
const (
	ProtoInvalid = -2 // a protocol string that does not parse
	ProtoUnknown = -1 // none seen (yet)
	Proto09      = 9
	Proto10      = 100
	Proto11      = 101
)

// URIParts is the request-target split as libhtp's parse_uri does (sub-slices of
// Tx.URIRaw; nil parts are absent).
type URIParts struct {
	Scheme, Username, Password, Hostname, Port, Path, Query, Fragment []byte
	HasScheme, HasAuthority                                           bool
}

// hdrRef locates one header's name and value in Headers.buf.
type hdrRef struct {
	nameOff, nameLen, valOff, valLen int32
	flags                            uint8 // hdrRepeated, hdrFolded
}

const (
	hdrRepeated uint8 = 1 << iota // FIELD_REPEATED
	hdrFolded                     // FIELD_FOLDED
)

// Headers is an ordered header table: names keep their first-seen case and order, repeated
// names are merged into the first as libhtp does (process_request_header). Storage is one
// byte slice reused across transactions.
type Headers struct {
	buf  []byte
	refs []hdrRef
}

// Len returns the number of (merged) headers.
func (h *Headers) Len() int { return len(h.refs) }

// At returns the i-th header's name and merged value (0 <= i < Len()).
func (h *Headers) At(i int) (name, value []byte) {
	r := &h.refs[i]
	return h.buf[r.nameOff : r.nameOff+r.nameLen : r.nameOff+r.nameLen],
		h.buf[r.valOff : r.valOff+r.valLen : r.valOff+r.valLen]
}

// Header returns the merged value of the header called name (case-insensitive).
func (h *Headers) Header(name string) ([]byte, bool) {
	if i := h.index(name); i >= 0 {
		_, v := h.At(i)
		return v, true
	}
	return nil, false
}

func (h *Headers) index(name string) int {
	for i := range h.refs {
		r := &h.refs[i]
		if int(r.nameLen) == len(name) && equalFoldBS(h.buf[r.nameOff:r.nameOff+r.nameLen], name) {
			return i
		}
	}
	return -1
}

func (h *Headers) indexB(name []byte) int {
	for i := range h.refs {
		r := &h.refs[i]
		if int(r.nameLen) == len(name) && bytes.EqualFold(h.buf[r.nameOff:r.nameOff+r.nameLen], name) {
			return i
		}
	}
	return -1
}

// add appends a new header.
func (h *Headers) add(name, value []byte) {
	no := len(h.buf)
	h.buf = append(h.buf, name...)
	vo := len(h.buf)
	h.buf = append(h.buf, value...)
	h.refs = append(h.refs, hdrRef{nameOff: int32(no), nameLen: int32(len(name)), valOff: int32(vo), valLen: int32(len(value))})
}

// appendValue merges value into header i as `old + ", " + value` (the old value is copied to
// the end of the storage when it is not already last).
func (h *Headers) appendValue(i int, value []byte) {
	r := &h.refs[i]
	if int(r.valOff+r.valLen) != len(h.buf) {
		vo := len(h.buf)
		h.buf = append(h.buf, h.buf[r.valOff:r.valOff+r.valLen]...)
		r.valOff = int32(vo)
	}
	h.buf = append(h.buf, ',', ' ')
	h.buf = append(h.buf, value...)
	r.valLen = int32(len(h.buf)) - r.valOff
}

func (h *Headers) reset() {
	h.buf = h.buf[:0]
	h.refs = h.refs[:0]
}

func equalFoldBS(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Body is what is kept of one message body for detection (HTPCallbackRequestBodyData /
// HTPCallbackResponseBodyData): the first Limit bytes of the de-chunked, decompressed body.
type Body struct {
	// Data holds the first body-limit bytes of the decoded body (all of it when the limit
	// is 0).
	Data []byte
	// Len is the decoded body length seen so far (including bytes past the limit).
	Len uint64
	// Complete says the message body ended.
	Complete bool
	// Truncated says Data stopped at the body limit.
	Truncated bool

	// inspected is how far detection's body inspection has gone (bytes of Data), per
	// direction of the buffers built on it.
	inspected uint64
	// inspectedFile is the same for file.data.
	inspectedFile uint64
}

func (b *Body) reset() {
	b.Data = b.Data[:0]
	b.Len, b.Complete, b.Truncated, b.inspected, b.inspectedFile = 0, false, false, 0, 0
}

// FileState is the state of a tracked file (Suricata's FileState).
type FileState uint8

// File states as EVE fileinfo names them.
const (
	FileNone      FileState = iota // no file
	FileOpen                       // receiving
	FileClosed                     // complete
	FileTruncated                  // ended early (body limit of the file store, flow end)
	FileError                      // error
)

// String is the EVE fileinfo state name.
func (s FileState) String() string {
	switch s {
	case FileOpen:
		return "OPEN"
	case FileClosed:
		return "CLOSED"
	case FileTruncated:
		return "TRUNCATED"
	case FileError:
		return "ERROR"
	}
	return "UNKNOWN"
}

// File is a message body tracked as a file (the response body; request PUT bodies and
// multipart parts), as Suricata's HTPFileOpen/HTPFileStoreChunk/HTPFileClose keep it.
type File struct {
	// Name is the file name: Content-Disposition filename, else the URI's last path segment.
	Name []byte
	// Size is the number of file bytes seen.
	Size uint64
	// State is OPEN while data arrives, then CLOSED, TRUNCATED or ERROR.
	State FileState
	// Gaps says the file lost data to a stream gap.
	Gaps bool
	// Hashed says MD5, SHA1 and SHA256 hold the digests (only with Config.ForceHash and
	// the file closed).
	Hashed bool
	MD5    [16]byte
	SHA1   [20]byte
	SHA256 [32]byte
	// Data is the file content kept for file.data (the first body-limit bytes).
	Data *Body
}

// ContentRange is a parsed response Content-Range header (bytes START-END/SIZE).
type ContentRange struct {
	Raw               []byte
	Start, End, Size  int64
	HasStart, HasSize bool // "*" forms leave them false
	Valid             bool
}

// Tx is one HTTP/1 transaction: a request and its response (libhtp's Transaction). All byte
// slices are owned by the tx and valid until the parser next runs on the flow; the tx and
// its storage come from the worker's pool.
type Tx struct {
	data applayer.TxData

	// RequestLine is the request line without its line ending.
	RequestLine []byte
	// Method is the method token.
	Method []byte
	// MethodKnown says the method is one libhtp knows (HtpMethod other than Unknown).
	MethodKnown bool
	// URIRaw is the request-target exactly as received (http.uri.raw, EVE url).
	URIRaw []byte
	// HasURI says the request line had a request-target.
	HasURI bool
	// URINorm is the normalized URI (http.uri, §5.3).
	URINorm []byte
	// ParsedURI is the request-target split in parts (sub-slices of URIRaw).
	ParsedURI URIParts
	// Protocol is the request protocol string ("HTTP/1.1"), empty for 0.9 requests.
	Protocol []byte
	// ProtocolNumber is the request's protocol as libhtp numbers it (Proto09, Proto10, ...).
	ProtocolNumber int
	// Is09 says the request is HTTP/0.9 (no protocol, no headers).
	Is09 bool
	// Hostname is the normalized request hostname (URI authority, else Host header), §5.5.
	Hostname []byte
	// HostRaw is http.host.raw: the URI authority's host when the request-target is
	// absolute, else the raw Host header value including any port.
	HostRaw []byte
	// HasHostRaw says HostRaw is set.
	HasHostRaw bool
	// Port is the port given in the URI authority or Host header, -1 if none.
	Port int

	// RequestHeaders are the request headers, merged.
	RequestHeaders Headers
	// RequestHeadersRaw is the raw request header block (line endings included, the final
	// empty line too) with any trailer appended.
	RequestHeadersRaw []byte
	// RequestBody is the request body kept for http.request_body.
	RequestBody Body
	// RequestLength is the request body length on the wire (chunk framing included).
	RequestLength uint64
	// RequestFiles are the request's files (PUT body, multipart parts).
	RequestFiles []File

	// ResponseLine is the status line without its line ending.
	ResponseLine []byte
	// ResponseProtocol is the response protocol string.
	ResponseProtocol []byte
	// ResponseProtocolNumber is the response's protocol as libhtp numbers it.
	ResponseProtocolNumber int
	// StatusCode is the status code text as received.
	StatusCode []byte
	// Status is the status code as a number, 0 if it is not in 100..999.
	Status int
	// StatusMsg is the reason phrase.
	StatusMsg []byte
	// ResponseHeaders are the response headers, merged.
	ResponseHeaders Headers
	// ResponseHeadersRaw is the raw response header block with any trailer appended.
	ResponseHeadersRaw []byte
	// ResponseBody is the response body kept for http.response_body / file.data.
	ResponseBody Body
	// ResponseLength is EVE's length: response body bytes transferred (chunk framing
	// included, before decompression).
	ResponseLength uint64
	// ResponseFiles is the response body tracked as a file (at most one).
	ResponseFiles []File
	// ContentRange is the response Content-Range, parsed.
	ContentRange ContentRange
	// ResponseSeen says a response line (or a 0.9 response) was seen for this tx.
	ResponseSeen bool
	// RequestSynthetic says the request was not seen (response without request:
	// URIRaw is /libhtp::request_uri_not_seen).
	RequestSynthetic bool
	// Tunnel says the tx switched the connection to a tunnel (CONNECT 2xx or 101).
	Tunnel bool

	// parser-private state
	reqCL, resCL   int64 // Content-Length, -1 none
	reqChunked     bool
	resChunked     bool
	expectContinue bool
	continueSeen   bool
	reqSmuggling   bool
	hostFromURI    bool
	reqReps        int    // request header repetitions counted (libhtp caps at 64)
	resReps        int    // response header repetitions counted
	flags          uint32 // libhtp HtpFlags the parser tracks (txFlag*)
	hash           *fileHash
	state          *State              // the flow state the tx belongs to (config for getters)
	scratch        [2][nScratch][]byte // composite buffers built by the getters
	hdrEnds        [2][]int            // end of each http.request/response_header instance in its scratch
	partBodies     []Body              // multipart file contents
	multipart      bool                // the request body is multipart (a boundary parameter)
	resFileWait    bool                // the response file opens with the first body data
	mime           mimeState           // its MIME parser
	mimeScratch    []byte              // RFC 2231 parameter sections
}

// XFF returns the raw X-Forwarded-For request header value (EVE http.xff).
func (t *Tx) XFF() ([]byte, bool) { return t.RequestHeaders.Header("X-Forwarded-For") }

// UserAgent returns the User-Agent request header value.
func (t *Tx) UserAgent() ([]byte, bool) { return t.RequestHeaders.Header("User-Agent") }

// ResponseContentType returns the response Content-Type up to the first ';' (EVE
// http_content_type), trimmed.
func (t *Tx) ResponseContentType() ([]byte, bool) {
	v, ok := t.ResponseHeaders.Header("Content-Type")
	if !ok {
		return nil, false
	}
	if i := bytes.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return bytes.TrimSpace(v), true
}

// TxData returns the framework data of the tx.
func (t *Tx) TxData() *applayer.TxData { return &t.data }

// IsRequestComplete reports whether the request side is complete.
func (t *Tx) IsRequestComplete() bool { return t.data.Progress[0] >= ReqComplete }

// IsResponseComplete reports whether the response side is complete.
func (t *Tx) IsResponseComplete() bool { return t.data.Progress[1] >= ResComplete }

// RequestProgress returns the request progress (ReqStarted..ReqComplete).
func (t *Tx) RequestProgress() uint8 { return t.data.Progress[0] }

// ResponseProgress returns the response progress (ResStarted..ResComplete).
func (t *Tx) ResponseProgress() uint8 { return t.data.Progress[1] }

// reset prepares t for reuse as transaction id, keeping its storage.
func (t *Tx) reset(id uint64) {
	t.data.Reset(id)
	t.RequestLine = t.RequestLine[:0]
	t.Method = t.Method[:0]
	t.MethodKnown = false
	t.URIRaw = t.URIRaw[:0]
	t.HasURI = false
	t.URINorm = t.URINorm[:0]
	t.ParsedURI = URIParts{}
	t.Protocol = t.Protocol[:0]
	t.ProtocolNumber = ProtoUnknown
	t.Is09 = false
	t.Hostname = t.Hostname[:0]
	t.HostRaw = t.HostRaw[:0]
	t.HasHostRaw = false
	t.Port = -1
	t.RequestHeaders.reset()
	t.RequestHeadersRaw = t.RequestHeadersRaw[:0]
	t.RequestBody.reset()
	t.RequestLength = 0
	t.RequestFiles = t.RequestFiles[:0]
	t.ResponseLine = t.ResponseLine[:0]
	t.ResponseProtocol = t.ResponseProtocol[:0]
	t.ResponseProtocolNumber = ProtoUnknown
	t.StatusCode = t.StatusCode[:0]
	t.Status = 0
	t.StatusMsg = t.StatusMsg[:0]
	t.ResponseHeaders.reset()
	t.ResponseHeadersRaw = t.ResponseHeadersRaw[:0]
	t.ResponseBody.reset()
	t.ResponseLength = 0
	t.ResponseFiles = t.ResponseFiles[:0]
	t.ContentRange = ContentRange{}
	t.ResponseSeen = false
	t.RequestSynthetic = false
	t.Tunnel = false
	t.reqCL, t.resCL = -1, -1
	t.reqChunked, t.resChunked = false, false
	t.expectContinue, t.continueSeen, t.reqSmuggling, t.hostFromURI = false, false, false, false
	t.reqReps, t.resReps, t.flags = 0, 0, 0
	t.multipart = false
	t.resFileWait = false
	t.mime.reset()
	t.hdrEnds[0], t.hdrEnds[1] = t.hdrEnds[0][:0], t.hdrEnds[1][:0]
	for i := range t.partBodies {
		t.partBodies[i].reset()
	}
}
