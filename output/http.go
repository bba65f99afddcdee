package output

import (
	"bytes"
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/meerkat-ids/meerkat/applayer"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// XFFConfig is an xff section of eve-log, of its http, alert or files type (Suricata's
// HttpXFFCfg, read by HttpXFFGetCfg).
type XFFConfig struct {
	// Enabled is xff.enabled [no].
	Enabled bool
	// Overwrite is mode: overwrite (the XFF address replaces the client's); otherwise
	// extra-data (a top-level "xff" member).
	Overwrite bool
	// Forward is deployment: forward (the first address of the chain); otherwise reverse
	// (the last).
	Forward bool
	// Header is header [X-Forwarded-For].
	Header string
}

// ParseXFFConfig reads an xff section's values as HttpXFFGetCfg does: a mode other than
// overwrite is extra-data, a deployment other than forward is reverse, no header is
// X-Forwarded-For.
func ParseXFFConfig(enabled bool, mode, deployment, header string) XFFConfig {
	if !enabled {
		return XFFConfig{}
	}
	c := XFFConfig{Enabled: true, Header: header}
	c.Overwrite = strings.EqualFold(mode, "overwrite")
	c.Forward = strings.EqualFold(deployment, "forward")
	if c.Header == "" {
		c.Header = "X-Forwarded-For"
	}
	return c
}

// xffChainMin and xffChainMax bound the header values HttpXFFGetIPFromTxAux looks at.
const (
	xffChainMin = 7
	xffChainMax = 256
)

// XFFIP returns the client address an X-Forwarded-For style header of tx gives under cfg
// (HttpXFFGetIPFromTxAux and ParseXFFString): the last address of the chain (after its last
// space) in reverse deployment, the first (before the first comma) in forward; brackets
// and an IPv4 port are taken off; the result must parse as an address. The returned bytes
// point into tx's header storage.
func XFFIP(cfg *XFFConfig, tx *htp.Tx) ([]byte, bool) {
	if cfg == nil || !cfg.Enabled || tx == nil {
		return nil, false
	}
	v, ok := tx.RequestHeaders.Header(cfg.Header)
	if !ok || len(v) < xffChainMin || len(v) >= xffChainMax {
		return nil, false
	}
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i] // Suricata handles the chain as a C string
	}
	if cfg.Forward {
		if i := bytes.IndexByte(v, ','); i >= 0 {
			v = v[:i]
		}
	} else if i := bytes.LastIndexByte(v, ' '); i >= 0 {
		v = v[i+1:]
	}
	return parseXFF(v)
}

// parseXFF is ParseXFFString: "[addr]..." is addr; an IPv4 address with one colon loses its
// port; the rest must be an IPv4 or IPv6 address in inet_pton's syntax.
func parseXFF(v []byte) ([]byte, bool) {
	if len(v) == 0 {
		return nil, false
	}
	if v[0] == '[' {
		end := bytes.IndexByte(v, ']')
		if end < 0 {
			return nil, false
		}
		v = v[1:end]
	} else if bytes.Count(v, []byte{'.'}) == 3 && bytes.Count(v, []byte{':'}) == 1 {
		v = v[:bytes.IndexByte(v, ':')]
	}
	if bytes.IndexByte(v, '%') >= 0 || len(v) == 0 {
		return nil, false // inet_pton has no zones
	}
	if !inetPton4(v) && !inetPton6(v) {
		return nil, false
	}
	return v, true
}

// inetPton4 reports whether v is what inet_pton(AF_INET) accepts: four decimal parts of at
// most 255, no leading zeros.
func inetPton4(v []byte) bool {
	parts, val, digits := 0, 0, 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == '.' {
			if digits == 0 {
				return false
			}
			parts++
			val, digits = 0, 0
			continue
		}
		c := v[i]
		if c < '0' || c > '9' || digits > 0 && val == 0 {
			return false
		}
		val = val*10 + int(c-'0')
		digits++
		if val > 255 {
			return false
		}
	}
	return parts == 4
}

// inetPton6 reports whether v is what inet_pton(AF_INET6) accepts: eight groups of one to
// four hex digits, one "::" standing for one or more zero groups, an IPv4 address in place of
// the last two.
func inetPton6(v []byte) bool {
	groups, digits := 0, 0
	gap := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == ':':
			if i+1 < len(v) && v[i+1] == ':' {
				if gap || digits == 0 && i > 0 {
					return false
				}
				if digits > 0 {
					groups++
				}
				gap, digits = true, 0
				i++
				if i+1 == len(v) {
					return groups < 8
				}
				continue
			}
			if digits == 0 || i+1 == len(v) {
				return false
			}
			groups++
			digits = 0
		case c == '.':
			// The rest is an IPv4 address: it starts at the current group.
			start := i - digits
			if !inetPton4(v[start:]) {
				return false
			}
			groups += 2
			digits = 0
			i = len(v)
		case hexVal(c) >= 0:
			if digits == 4 {
				return false
			}
			digits++
		default:
			return false
		}
	}
	if digits > 0 {
		groups++
	}
	if gap {
		return groups < 8
	}
	return groups == 8
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// httpXFFFirst is HttpXFFGetIP: the XFF address of the first live transaction that has one
// (alerts that are not tx matches).
func httpXFFFirst(cfg *XFFConfig, st applayer.State) ([]byte, bool) {
	if st == nil {
		return nil, false
	}
	for i, n := 0, st.TxCount(); i < n; i++ {
		if tx, ok := st.TxAt(i).(*htp.Tx); ok {
			if ip, ok := XFFIP(cfg, tx); ok {
				return ip, true
			}
		}
	}
	return nil, false
}

// HTTPOptions are the eve-log http type's options (OutputHttpLogInitSub).
type HTTPOptions struct {
	// Extended is extended [no; yes in the shipped suricata.yaml]: the extended fields.
	Extended bool
	// RequestHeaders and ResponseHeaders are dump-all-headers: request, response or both.
	RequestHeaders, ResponseHeaders bool
	// Custom is the set of custom fields (bit i: HTTPCustomFields[i]).
	Custom uint64
	// XFF is the type's xff section, else eve-log's.
	XFF XFFConfig
}

// httpField is one entry of Suricata's table of custom http fields: the name the
// configuration uses, the header it logs, and whether extended logging already has it.
type httpField struct {
	config, header string
	extended       bool
}

// httpFields is the custom field table of src/output-json-http.c (http_fields[]), in its
// order; "etag" logs a header called etags there, and so here.
var httpFields = [...]httpField{
	{"accept", "accept", false}, {"accept_charset", "accept-charset", false},
	{"accept_encoding", "accept-encoding", false}, {"accept_language", "accept-language", false},
	{"accept_datetime", "accept-datetime", false}, {"authorization", "authorization", false},
	{"cache_control", "cache-control", false}, {"cookie", "cookie", false},
	{"from", "from", false}, {"max_forwards", "max-forwards", false}, {"origin", "origin", false},
	{"pragma", "pragma", false}, {"proxy_authorization", "proxy-authorization", false},
	{"range", "range", false}, {"te", "te", false}, {"via", "via", false},
	{"x_requested_with", "x-requested-with", false}, {"dnt", "dnt", false},
	{"x_forwarded_proto", "x-forwarded-proto", false},
	{"x_authenticated_user", "x-authenticated-user", false},
	{"x_flash_version", "x-flash-version", false}, {"accept_range", "accept-range", false},
	{"age", "age", false}, {"allow", "allow", false}, {"connection", "connection", false},
	{"content_encoding", "content-encoding", false}, {"content_language", "content-language", false},
	{"content_length", "content-length", false}, {"content_location", "content-location", false},
	{"content_md5", "content-md5", false}, {"content_range", "content-range", false},
	{"content_type", "content-type", false}, {"date", "date", false}, {"etag", "etags", false},
	{"expires", "expires", false}, {"last_modified", "last-modified", false}, {"link", "link", false},
	{"location", "location", false}, {"proxy_authenticate", "proxy-authenticate", false},
	{"referer", "referer", true}, {"refresh", "refresh", false}, {"retry_after", "retry-after", false},
	{"server", "server", false}, {"set_cookie", "set-cookie", false}, {"trailer", "trailer", false},
	{"transfer_encoding", "transfer-encoding", false}, {"upgrade", "upgrade", false},
	{"vary", "vary", false}, {"warning", "warning", false},
	{"www_authenticate", "www-authenticate", false}, {"true_client_ip", "true-client-ip", false},
	{"org_src_ip", "org-src-ip", false}, {"x_bluecoat_via", "x-bluecoat-via", false},
}

// HTTPCustomField returns the bit of a custom field named as the configuration names it
// (accept_encoding) or by its header (Accept-Encoding, case-insensitive); ok is false for
// a name Suricata does not know (it ignores those).
func HTTPCustomField(name string) (uint64, bool) {
	for i, f := range httpFields {
		if f.config == name || strings.EqualFold(f.header, name) {
			return 1 << i, true
		}
	}
	return 0, false
}

// ParseDumpAllHeaders reads dump-all-headers as Suricata does (by prefix: both, request,
// response; anything else is none).
func ParseDumpAllHeaders(v string) (request, response bool) {
	switch {
	case strings.HasPrefix(v, "both"):
		return true, true
	case strings.HasPrefix(v, "request"):
		return true, false
	case strings.HasPrefix(v, "response"):
		return false, true
	}
	return false, false
}

// setBytes adds a string member from bytes as Suricata's SCJbSetStringFromBytes does:
// valid UTF-8 as it is (JSON-escaped), otherwise every byte above 0x7f written as the four
// characters \xNN (so "\\xNN" in the JSON text).
func setBytes(j *JSON, k string, v []byte) {
	j.key(k)
	j.B = appendStringFromBytes(j.B, v)
}

// httpBasic writes the basic fields of the http object (EveHttpLogJSONBasic).
func httpBasic(j *JSON, tx *htp.Tx) {
	if len(tx.Hostname) > 0 {
		setBytes(j, "hostname", tx.Hostname)
	}
	if tx.Port >= 0 {
		j.Uint("http_port", uint64(tx.Port))
	}
	if tx.HasURI || tx.RequestSynthetic || len(tx.URIRaw) > 0 {
		setBytes(j, "url", tx.URIRaw)
	}
	if v, ok := tx.RequestHeaders.Header("User-Agent"); ok {
		setBytes(j, "http_user_agent", v)
	}
	if v, ok := tx.RequestHeaders.Header("X-Forwarded-For"); ok {
		setBytes(j, "xff", v)
	}
	if v, ok := tx.ResponseHeaders.Header("Content-Type"); ok {
		if i := bytes.IndexByte(v, ';'); i >= 0 {
			v = v[:i] // up to the first ';', nothing trimmed
		}
		setBytes(j, "http_content_type", v)
	}
	if v, ok := tx.ResponseHeaders.Header("Content-Range"); ok {
		j.Object("content_range")
		setBytes(j, "raw", v)
		if cr := &tx.ContentRange; cr.Valid {
			if cr.HasStart && cr.Start >= 0 {
				j.Uint("start", uint64(cr.Start))
			}
			if cr.HasStart && cr.End >= 0 {
				j.Uint("end", uint64(cr.End))
			}
			if cr.HasSize && cr.Size >= 0 {
				j.Uint("size", uint64(cr.Size))
			}
		}
		j.Close('}')
	}
}

// httpExtended writes the extended fields (EveHttpLogJSONExtended).
func httpExtended(j *JSON, tx *htp.Tx) {
	if v, ok := tx.RequestHeaders.Header("Referer"); ok {
		setBytes(j, "http_refer", v)
	}
	if len(tx.Method) > 0 {
		setBytes(j, "http_method", tx.Method)
	}
	if len(tx.Protocol) > 0 {
		setBytes(j, "protocol", tx.Protocol)
	}
	if tx.Status > 0 {
		j.Uint("status", uint64(tx.Status))
	} else if len(tx.StatusCode) > 0 {
		setBytes(j, "status_string", tx.StatusCode)
	}
	if v, ok := tx.ResponseHeaders.Header("Location"); ok {
		setBytes(j, "redirect", v)
	}
	j.Uint("length", tx.ResponseLength)
}

// Header name and value limits of EveHttpLogJSONHeaders (its buffers hold a NUL too).
const (
	httpHeaderNameMax  = 255
	httpHeaderValueMax = 2047
)

// httpHeaders writes request_headers or response_headers (EveHttpLogJSONHeaders): every
// header when that side is dumped, else the custom fields; an empty array is left out.
// Names and values are cut at 255 and 2047 bytes and at a NUL, as Suricata copies them into
// C strings; one that is then not UTF-8 is left out of its object as SCJbSetString leaves
// it.
func httpHeaders(j *JSON, h *htp.Headers, all bool, opt *HTTPOptions, key string) {
	open := false
	for i, n := 0, h.Len(); i < n; i++ {
		name, value := h.At(i)
		if !all && opt.Custom != 0 && !customHas(opt, name) {
			continue
		}
		if !open {
			j.Array(key)
			open = true
		}
		j.ElemObject()
		cString(j, "name", name, httpHeaderNameMax)
		cString(j, "value", value, httpHeaderValueMax)
		j.Close('}')
	}
	if open {
		j.Close(']')
	}
}

func customHas(opt *HTTPOptions, name []byte) bool {
	for i, f := range httpFields {
		if opt.Custom&(1<<i) == 0 || opt.Extended && f.extended {
			continue
		}
		if len(name) == len(f.header) && bytes.EqualFold(name, []byte(f.header)) {
			return true
		}
	}
	return false
}

func cString(j *JSON, k string, v []byte, limit int) {
	if len(v) > limit {
		v = v[:limit]
	}
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	if utf8.Valid(v) {
		j.Bytes(k, v)
	}
}

// HTTPObject writes the http object of an alert or fileinfo record (EveHttpAddMetadata):
// the basic and extended fields, then with body or printable the request and response
// bodies kept for detection (EveHttpLogJSONBodyBase64, EveHttpLogJSONBodyPrintable). tx nil
// writes an empty object, as Suricata does for a transaction it cannot find.
func HTTPObject(j *JSON, tx *htp.Tx, printable, body bool) {
	j.Object("http")
	if tx != nil {
		httpBasic(j, tx)
		httpExtended(j, tx)
		if printable {
			if len(tx.RequestBody.Data) > 0 {
				j.PrintableASCII("http_request_body_printable", tx.RequestBody.Data)
			}
			if len(tx.ResponseBody.Data) > 0 {
				j.PrintableASCII("http_response_body_printable", tx.ResponseBody.Data)
			}
		}
		if body {
			if len(tx.RequestBody.Data) > 0 {
				j.Base64("http_request_body", tx.RequestBody.Data)
			}
			if len(tx.ResponseBody.Data) > 0 {
				j.Base64("http_response_body", tx.ResponseBody.Data)
			}
		}
	}
	j.Close('}')
}

// HTTPRecord writes a complete EVE `http` record for tx, logged on packet p of direction
// dir of flow f (JsonHttpLogger): the header in flow direction (the client is src) with
// tx_id, the http object, then the XFF address: as top-level xff in extra-data mode, or in
// overwrite mode as a second src_ip (dest_ip when p goes to the client), which Suricata
// appends to the record as it is.
func HTTPRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, tx *htp.Tx, opt *HTTPOptions) {
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, dir, flow.ToServer, "http", nil, nil)
	j.Uint("tx_id", tx.TxData().ID)
	j.Object("http")
	httpBasic(j, tx)
	if opt.Extended {
		httpExtended(j, tx)
	}
	if opt.RequestHeaders || opt.Custom != 0 {
		httpHeaders(j, &tx.RequestHeaders, opt.RequestHeaders, opt, "request_headers")
	}
	if opt.ResponseHeaders || opt.Custom != 0 {
		httpHeaders(j, &tx.ResponseHeaders, opt.ResponseHeaders, opt, "response_headers")
	}
	j.Close('}')
	if ip, ok := XFFIP(&opt.XFF, tx); ok {
		switch {
		case !opt.XFF.Overwrite:
			j.Bytes("xff", ip)
		case dir == flow.ToClient:
			j.Bytes("dest_ip", ip)
		default:
			j.Bytes("src_ip", ip)
		}
	}
	j.End()
}

// flowHeader writes the common header of a record logged in a flow direction
// (CreateEveHeader with LOG_DIR_FLOW, _TOSERVER or _TOCLIENT): the addresses and ports of
// packet p (direction pktDir) as seen in direction logDir (to_server: the client is src).
// src and dst, when not nil, replace the addresses (XFF overwrite). With pktDir == logDir it
// is the packet header (CreateEveHeader with LOG_DIR_PACKET): the packet's own addresses.
func flowHeader(j *JSON, p *decode.Packet, f *flow.Flow, pktDir, logDir flow.Direction, eventType string, src, dst []byte) {
	j.Time("timestamp", p.Timestamp)
	if f != nil {
		j.Uint("flow_id", f.ID())
		if f.ParentID != 0 {
			j.Uint("parent_id", f.ParentID)
		}
	}
	if p.PcapCnt != 0 {
		j.Uint("pcap_cnt", p.PcapCnt)
	}
	j.String("event_type", eventType)
	if p.VLANCount > 0 {
		j.Array("vlan")
		for i := 0; i < int(p.VLANCount) && i < decode.MaxVLANs; i++ {
			j.ElemUint(uint64(p.VLAN[i]))
		}
		j.Close(']')
	}
	if p.IPVersion != 0 {
		sip, dip, sp, dp := p.SrcIP, p.DstIP, p.SrcPort, p.DstPort
		if pktDir != logDir {
			sip, dip, sp, dp = dip, sip, dp, sp
		}
		ports := p.IPProto == decode.ProtoTCP || p.IPProto == decode.ProtoUDP || p.IPProto == decode.ProtoSCTP
		addr(j, "src_ip", sip, src)
		if ports {
			j.Uint("src_port", uint64(sp))
		}
		addr(j, "dest_ip", dip, dst)
		if ports {
			j.Uint("dest_port", uint64(dp))
		}
		j.String("proto", protoName(p.IPProto))
		j.Uint("ip_v", uint64(p.IPVersion))
		if p.HasL4 && (p.IPProto == decode.ProtoICMP || p.IPProto == decode.ProtoICMPv6) {
			j.Uint("icmp_type", uint64(p.ICMPType))
			j.Uint("icmp_code", uint64(p.ICMPCode))
		}
	}
	j.String("pkt_src", p.Source.String())
}

// xffPlace says where a record puts XFF address ip: in extra-data mode as xff; in overwrite
// mode in place of the client's address of a packet in direction dir (dst for to_client,
// else src).
func xffPlace(ip []byte, overwrite bool, dir flow.Direction) (xff, src, dst []byte) {
	switch {
	case !overwrite:
		xff = ip
	case dir == flow.ToClient:
		dst = ip
	default:
		src = ip
	}
	return xff, src, dst
}

func addr(j *JSON, k string, a netip.Addr, override []byte) {
	if override != nil {
		j.Bytes(k, override)
		return
	}
	j.IP(k, a)
}
