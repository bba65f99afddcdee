package rules

import (
	"bytes"
	"strings"
)

// bufDir is the set of directions a buffer can be inspected in.
type bufDir uint8

const (
	dirToServer bufDir = 1 << iota
	dirToClient
	dirBoth = dirToServer | dirToClient
)

// bufInfo describes an inspection buffer.
type bufInfo struct {
	d      bufDir
	packet bool // a packet buffer (tcp.hdr, ...)
}

// dir returns the directions of the buffer for a rule bound to alproto.
func (b bufInfo) dir(alproto string) bufDir { return b.d }

// bufferInfos describe the buffers of sticky buffer keywords (by canonical buffer name).
var bufferInfos = map[string]bufInfo{}

// bufferInfo returns what is known of a buffer; app-layer keyword lists not listed count as
// inspected in both directions.
func bufferInfo(name string) bufInfo {
	if b, ok := bufferInfos[name]; ok {
		return b
	}
	return bufInfo{d: dirBoth}
}

// stickyDef declares a sticky buffer keyword.
type stickyDef struct {
	name    string
	aliases []string
	buffer  string // buffer (list) name when it differs from name
	protos  []string
	dir     bufDir
	flags   KeywordFlags
	desc    string
}

var stickyDefs = []stickyDef{
	// HTTP (http1 and http2)
	{name: "http.uri", aliases: []string{"http.uri.normalized"}, protos: []string{"http"}, dir: dirToServer, desc: "normalized HTTP request URI"},
	{name: "http.uri.raw", protos: []string{"http"}, dir: dirToServer, desc: "raw HTTP request URI"},
	{name: "http.method", protos: []string{"http"}, dir: dirToServer, desc: "HTTP request method"},
	{name: "http.request_line", aliases: []string{"http_request_line"}, protos: []string{"http"}, dir: dirToServer, desc: "HTTP request line"},
	{name: "http.response_line", aliases: []string{"http_response_line"}, protos: []string{"http"}, dir: dirToClient, desc: "HTTP response line"},
	{name: "http.user_agent", protos: []string{"http"}, dir: dirToServer, desc: "HTTP User-Agent header value"},
	{name: "http.host", protos: []string{"http"}, dir: dirToServer, desc: "normalized (lower-cased) HTTP Host"},
	{name: "http.host.raw", protos: []string{"http"}, dir: dirToServer, desc: "raw HTTP Host"},
	{name: "http.header", protos: []string{"http"}, dir: dirBoth, desc: "normalized HTTP headers"},
	{name: "http.header.raw", protos: []string{"http"}, dir: dirBoth, desc: "raw HTTP headers"},
	{name: "http.header_names", aliases: []string{"http_header_names"}, protos: []string{"http"}, dir: dirBoth, desc: "HTTP header names"},
	{name: "http.request_header", protos: []string{"http"}, dir: dirToServer, flags: KwMultiBuffer, desc: "one HTTP request header (name: value)"},
	{name: "http.response_header", protos: []string{"http"}, dir: dirToClient, flags: KwMultiBuffer, desc: "one HTTP response header (name: value)"},
	{name: "http.cookie", protos: []string{"http"}, dir: dirBoth, desc: "HTTP Cookie / Set-Cookie value"},
	{name: "http.request_body", protos: []string{"http"}, dir: dirToServer, desc: "HTTP request body"},
	{name: "http.response_body", buffer: "file.data", protos: []string{"http"}, dir: dirBoth, desc: "HTTP response body (the file.data buffer)"},
	{name: "http.stat_code", protos: []string{"http"}, dir: dirToClient, desc: "HTTP response status code"},
	{name: "http.stat_msg", protos: []string{"http"}, dir: dirToClient, desc: "HTTP response status message"},
	{name: "http.protocol", aliases: []string{"http_protocol"}, protos: []string{"http"}, dir: dirBoth, desc: "HTTP protocol version"},
	{name: "http.start", aliases: []string{"http_start"}, protos: []string{"http1"}, dir: dirBoth, desc: "HTTP start line and headers"},
	{name: "http.accept", aliases: []string{"http_accept"}, protos: []string{"http"}, dir: dirToServer, desc: "HTTP Accept header"},
	{name: "http.accept_enc", aliases: []string{"http_accept_enc"}, protos: []string{"http"}, dir: dirToServer, desc: "HTTP Accept-Encoding header"},
	{name: "http.accept_lang", aliases: []string{"http_accept_lang"}, protos: []string{"http"}, dir: dirToServer, desc: "HTTP Accept-Language header"},
	{name: "http.referer", aliases: []string{"http_referer"}, protos: []string{"http"}, dir: dirToServer, desc: "HTTP Referer header"},
	{name: "http.connection", aliases: []string{"http_connection"}, protos: []string{"http"}, dir: dirBoth, desc: "HTTP Connection header"},
	{name: "http.content_type", aliases: []string{"http_content_type"}, protos: []string{"http"}, dir: dirBoth, desc: "HTTP Content-Type header"},
	{name: "http.content_len", aliases: []string{"http_content_len"}, protos: []string{"http"}, dir: dirBoth, desc: "HTTP Content-Length header"},
	{name: "http.location", protos: []string{"http"}, dir: dirToClient, desc: "HTTP Location header"},
	{name: "http.server", protos: []string{"http"}, dir: dirToClient, desc: "HTTP Server header"},
	{name: "http2.header_name", protos: []string{"http2"}, dir: dirBoth, flags: KwMultiBuffer, desc: "HTTP/2 header name"},
	// Files
	{name: "file.data", aliases: []string{"file_data"}, dir: dirBoth, flags: KwOptionalOpt | KwSupportDir | KwMultiBuffer, desc: "file contents"},
	{name: "file.name", dir: dirBoth, flags: KwOptionalOpt | KwSupportDir | KwMultiBuffer, desc: "file name"},
	{name: "file.magic", dir: dirBoth, flags: KwOptionalOpt | KwSupportDir | KwMultiBuffer, desc: "file magic (libmagic description)"},
	// DNS
	{name: "dns.query", aliases: []string{"dns_query"}, protos: []string{"dns"}, dir: dirToServer, flags: KwMultiBuffer, desc: "DNS request query name"},
	{name: "dns.query.name", protos: []string{"dns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "DNS query name"},
	{name: "dns.answer.name", protos: []string{"dns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "DNS answer name"},
	{name: "dns.queries.rrname", protos: []string{"dns", "mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "DNS query rrname"},
	{name: "dns.answers.rrname", protos: []string{"dns", "mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "DNS answer rrname"},
	{name: "dns.additionals.rrname", protos: []string{"dns", "mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "DNS additional rrname"},
	{name: "dns.authorities.rrname", protos: []string{"dns", "mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "DNS authority rrname"},
	{name: "dns.response.rrname", protos: []string{"dns", "mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "DNS response rrname"},
	{name: "mdns.queries.rrname", protos: []string{"mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "mDNS query rrname"},
	{name: "mdns.answers.rrname", protos: []string{"mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "mDNS answer rrname"},
	{name: "mdns.additionals.rrname", protos: []string{"mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "mDNS additional rrname"},
	{name: "mdns.authorities.rrname", protos: []string{"mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "mDNS authority rrname"},
	{name: "mdns.response.rrname", protos: []string{"mdns"}, dir: dirBoth, flags: KwMultiBuffer, desc: "mDNS response rrname"},
	// TLS
	{name: "tls.sni", aliases: []string{"tls_sni"}, protos: []string{"tls"}, dir: dirToServer, desc: "TLS ClientHello SNI"},
	{name: "tls.cert_subject", aliases: []string{"tls_cert_subject"}, protos: []string{"tls"}, dir: dirBoth, desc: "TLS certificate subject"},
	{name: "tls.cert_issuer", aliases: []string{"tls_cert_issuer"}, protos: []string{"tls"}, dir: dirBoth, desc: "TLS certificate issuer"},
	{name: "tls.cert_serial", aliases: []string{"tls_cert_serial"}, protos: []string{"tls"}, dir: dirBoth, desc: "TLS certificate serial"},
	{name: "tls.cert_fingerprint", aliases: []string{"tls_cert_fingerprint"}, protos: []string{"tls"}, dir: dirBoth, desc: "TLS certificate SHA1 fingerprint"},
	{name: "tls.certs", protos: []string{"tls"}, dir: dirBoth, flags: KwMultiBuffer, desc: "TLS certificates (DER)"},
	{name: "tls.subjectaltname", protos: []string{"tls"}, dir: dirBoth, flags: KwMultiBuffer, desc: "TLS certificate SubjectAltName"},
	{name: "tls.alpn", protos: []string{"tls"}, dir: dirBoth, flags: KwMultiBuffer, desc: "TLS ALPN"},
	{name: "tls.random", protos: []string{"tls"}, dir: dirBoth, desc: "TLS random"},
	{name: "tls.random_time", protos: []string{"tls"}, dir: dirBoth, desc: "TLS random (time part)"},
	{name: "tls.random_bytes", protos: []string{"tls"}, dir: dirBoth, desc: "TLS random (bytes part)"},
	{name: "ja3.hash", aliases: []string{"ja3_hash"}, protos: []string{"tls", "quic"}, dir: dirToServer, desc: "JA3 hash"},
	{name: "ja3.string", aliases: []string{"ja3_string"}, protos: []string{"tls", "quic"}, dir: dirToServer, desc: "JA3 string"},
	{name: "ja3s.hash", protos: []string{"tls", "quic"}, dir: dirToClient, desc: "JA3S hash"},
	{name: "ja3s.string", protos: []string{"tls", "quic"}, dir: dirToClient, desc: "JA3S string"},
	{name: "ja4.hash", aliases: []string{"ja4_hash"}, protos: []string{"tls", "quic"}, dir: dirToServer, desc: "JA4 hash"},
	// QUIC
	{name: "quic.sni", protos: []string{"quic"}, dir: dirToServer, desc: "QUIC SNI"},
	{name: "quic.ua", protos: []string{"quic"}, dir: dirToServer, desc: "QUIC user agent"},
	{name: "quic.version", protos: []string{"quic"}, dir: dirBoth, desc: "QUIC version"},
	{name: "quic.cyu.hash", protos: []string{"quic"}, dir: dirToServer, flags: KwMultiBuffer, desc: "QUIC CYU hash"},
	{name: "quic.cyu.string", protos: []string{"quic"}, dir: dirToServer, flags: KwMultiBuffer, desc: "QUIC CYU string"},
	// SSH
	{name: "ssh.proto", aliases: []string{"ssh_proto"}, protos: []string{"ssh"}, dir: dirBoth, desc: "SSH protocol version"},
	{name: "ssh.software", aliases: []string{"ssh_software"}, protos: []string{"ssh"}, dir: dirBoth, desc: "SSH software"},
	{name: "ssh.hassh", aliases: []string{"ssh-hassh"}, protos: []string{"ssh"}, dir: dirToServer, desc: "SSH HASSH"},
	{name: "ssh.hassh.string", aliases: []string{"ssh-hassh-string"}, protos: []string{"ssh"}, dir: dirToServer, desc: "SSH HASSH string"},
	{name: "ssh.hassh.server", aliases: []string{"ssh-hassh-server"}, protos: []string{"ssh"}, dir: dirToClient, desc: "SSH HASSH server"},
	{name: "ssh.hassh.server.string", aliases: []string{"ssh-hassh-server-string"}, protos: []string{"ssh"}, dir: dirToClient, desc: "SSH HASSH server string"},
	// SMB, DCERPC, Kerberos, NFS, FTP, SMTP, SIP, ...
	{name: "smb.named_pipe", aliases: []string{"smb_named_pipe"}, protos: []string{"smb"}, dir: dirToServer, desc: "SMB named pipe"},
	{name: "smb.share", aliases: []string{"smb_share"}, protos: []string{"smb"}, dir: dirToServer, desc: "SMB share"},
	{name: "smb.ntlmssp_user", protos: []string{"smb"}, dir: dirToServer, desc: "SMB NTLMSSP user"},
	{name: "smb.ntlmssp_domain", protos: []string{"smb"}, dir: dirToServer, desc: "SMB NTLMSSP domain"},
	{name: "dcerpc.stub_data", aliases: []string{"dce_stub_data"}, protos: []string{"dcerpc"}, dir: dirBoth, desc: "DCERPC stub data"},
	{name: "krb5.cname", aliases: []string{"krb5_cname"}, protos: []string{"krb5"}, dir: dirBoth, flags: KwMultiBuffer, desc: "Kerberos client name"},
	{name: "krb5.sname", aliases: []string{"krb5_sname"}, protos: []string{"krb5"}, dir: dirBoth, flags: KwMultiBuffer, desc: "Kerberos server name"},
	// The FTP buffers are SIGMATCH_SUPPORT_FIREWALL (src/detect-ftp-*.c).
	{name: "ftp.command", protos: []string{"ftp"}, dir: dirToServer, flags: KwFirewall, desc: "FTP command"},
	{name: "ftp.command_data", protos: []string{"ftp"}, dir: dirToServer, flags: KwFirewall, desc: "FTP command data"},
	{name: "ftp.reply", protos: []string{"ftp"}, dir: dirToClient, flags: KwMultiBuffer | KwFirewall, desc: "FTP reply"},
	{name: "ftp.completion_code", protos: []string{"ftp"}, dir: dirToClient, flags: KwMultiBuffer | KwFirewall, desc: "FTP completion code"},
	{name: "smtp.helo", protos: []string{"smtp"}, dir: dirToServer, desc: "SMTP HELO"},
	{name: "smtp.mail_from", protos: []string{"smtp"}, dir: dirToServer, desc: "SMTP MAIL FROM"},
	{name: "smtp.rcpt_to", protos: []string{"smtp"}, dir: dirToServer, flags: KwMultiBuffer, desc: "SMTP RCPT TO"},
	{name: "email.from", protos: []string{"smtp"}, dir: dirToServer, desc: "email From"},
	{name: "email.subject", protos: []string{"smtp"}, dir: dirToServer, desc: "email Subject"},
	{name: "email.to", protos: []string{"smtp"}, dir: dirToServer, desc: "email To"},
	{name: "email.cc", protos: []string{"smtp"}, dir: dirToServer, desc: "email Cc"},
	{name: "email.date", protos: []string{"smtp"}, dir: dirToServer, desc: "email Date"},
	{name: "email.message_id", protos: []string{"smtp"}, dir: dirToServer, desc: "email Message-Id"},
	{name: "email.x_mailer", protos: []string{"smtp"}, dir: dirToServer, desc: "email X-Mailer"},
	{name: "email.url", protos: []string{"smtp"}, dir: dirToServer, flags: KwMultiBuffer, desc: "email URLs"},
	{name: "email.received", protos: []string{"smtp"}, dir: dirToServer, flags: KwMultiBuffer, desc: "email Received"},
	{name: "sip.method", protos: []string{"sip"}, dir: dirToServer, desc: "SIP method"},
	{name: "sip.uri", protos: []string{"sip"}, dir: dirToServer, desc: "SIP URI"},
	{name: "sip.protocol", protos: []string{"sip"}, dir: dirBoth, desc: "SIP protocol"},
	{name: "sip.stat_code", protos: []string{"sip"}, dir: dirToClient, desc: "SIP status code"},
	{name: "sip.stat_msg", protos: []string{"sip"}, dir: dirToClient, desc: "SIP status message"},
	{name: "sip.request_line", protos: []string{"sip"}, dir: dirToServer, desc: "SIP request line"},
	{name: "sip.response_line", protos: []string{"sip"}, dir: dirToClient, desc: "SIP response line"},
	{name: "sip.from", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SIP From"},
	{name: "sip.to", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SIP To"},
	{name: "sip.via", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SIP Via"},
	{name: "sip.user_agent", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SIP User-Agent"},
	{name: "sip.content_type", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SIP Content-Type"},
	{name: "sip.content_length", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SIP Content-Length"},
	{name: "ike.init_spi", protos: []string{"ike"}, dir: dirToServer, desc: "IKE initiator SPI"},
	{name: "ike.resp_spi", protos: []string{"ike"}, dir: dirToClient, desc: "IKE responder SPI"},
	{name: "ike.vendor", protos: []string{"ike"}, dir: dirBoth, flags: KwMultiBuffer, desc: "IKE vendor id"},
	{name: "ike.key_exchange_payload", protos: []string{"ike"}, dir: dirBoth, desc: "IKE key exchange payload"},
	{name: "ike.nonce_payload", protos: []string{"ike"}, dir: dirBoth, desc: "IKE nonce payload"},
	{name: "snmp.community", protos: []string{"snmp"}, dir: dirBoth, desc: "SNMP community"},
	{name: "snmp.usm", protos: []string{"snmp"}, dir: dirBoth, desc: "SNMP USM"},
	{name: "rfb.name", protos: []string{"rfb"}, dir: dirBoth, desc: "RFB name"},
	{name: "mqtt.connect.clientid", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT client id"},
	{name: "mqtt.connect.username", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT user name"},
	{name: "mqtt.connect.password", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT password"},
	{name: "mqtt.connect.protocol_string", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT protocol string"},
	{name: "mqtt.connect.willtopic", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT will topic"},
	{name: "mqtt.connect.willmessage", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT will message"},
	{name: "mqtt.publish.topic", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT publish topic"},
	{name: "mqtt.publish.message", protos: []string{"mqtt"}, dir: dirBoth, desc: "MQTT publish message"},
	{name: "mqtt.subscribe.topic", protos: []string{"mqtt"}, dir: dirBoth, flags: KwMultiBuffer, desc: "MQTT subscribe topic"},
	{name: "mqtt.unsubscribe.topic", protos: []string{"mqtt"}, dir: dirBoth, flags: KwMultiBuffer, desc: "MQTT unsubscribe topic"},
	{name: "ldap.request.dn", protos: []string{"ldap"}, dir: dirToServer, desc: "LDAP request DN"},
	{name: "ldap.request.attribute_type", protos: []string{"ldap"}, dir: dirToServer, flags: KwMultiBuffer, desc: "LDAP request attribute type"},
	{name: "ldap.responses.dn", protos: []string{"ldap"}, dir: dirToClient, flags: KwMultiBuffer, desc: "LDAP response DN"},
	{name: "ldap.responses.message", protos: []string{"ldap"}, dir: dirToClient, flags: KwMultiBuffer, desc: "LDAP response message"},
	{name: "ldap.responses.attribute_type", protos: []string{"ldap"}, dir: dirToClient, flags: KwMultiBuffer, desc: "LDAP response attribute type"},
	{name: "pgsql.query", protos: []string{"pgsql"}, dir: dirToServer, desc: "PostgreSQL query"},
	{name: "websocket.payload", protos: []string{"websocket"}, dir: dirBoth, desc: "WebSocket payload"},
	{name: "ntp.reference_id", protos: []string{"ntp"}, dir: dirBoth, desc: "NTP reference id"},
	{name: "enip.product_name", protos: []string{"enip"}, dir: dirBoth, desc: "ENIP product name"},
	{name: "enip.service_name", protos: []string{"enip"}, dir: dirBoth, desc: "ENIP service name"},
	{name: "dnp3.data", aliases: []string{"dnp3_data"}, protos: []string{"dnp3"}, dir: dirBoth, desc: "DNP3 data"},
	{name: "sdp.origin", protos: []string{"sip"}, dir: dirBoth, desc: "SDP origin"},
	{name: "sdp.session_name", protos: []string{"sip"}, dir: dirBoth, desc: "SDP session name"},
	{name: "sdp.session_info", protos: []string{"sip"}, dir: dirBoth, desc: "SDP session info"},
	{name: "sdp.uri", protos: []string{"sip"}, dir: dirBoth, desc: "SDP URI"},
	{name: "sdp.email", protos: []string{"sip"}, dir: dirBoth, desc: "SDP email"},
	{name: "sdp.phone_number", protos: []string{"sip"}, dir: dirBoth, desc: "SDP phone number"},
	{name: "sdp.connection_data", protos: []string{"sip"}, dir: dirBoth, desc: "SDP connection data"},
	{name: "sdp.bandwidth", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP bandwidth"},
	{name: "sdp.time", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP time"},
	{name: "sdp.repeat_time", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP repeat time"},
	{name: "sdp.timezone", protos: []string{"sip"}, dir: dirBoth, desc: "SDP timezone"},
	{name: "sdp.encryption_key", protos: []string{"sip"}, dir: dirBoth, desc: "SDP encryption key"},
	{name: "sdp.attribute", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP attribute"},
	{name: "sdp.media.media", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP media description"},
	{name: "sdp.media.media_info", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP media info"},
	{name: "sdp.media.connection_data", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP media connection data"},
	{name: "sdp.media.encryption_key", protos: []string{"sip"}, dir: dirBoth, flags: KwMultiBuffer, desc: "SDP media encryption key"},
	// Packet buffers
	{name: "tcp.hdr", dir: dirBoth, flags: KwPacketBuffer, desc: "TCP header"},
	{name: "udp.hdr", dir: dirBoth, flags: KwPacketBuffer, desc: "UDP header"},
	{name: "ipv4.hdr", dir: dirBoth, flags: KwPacketBuffer, desc: "IPv4 header"},
	{name: "ipv6.hdr", dir: dirBoth, flags: KwPacketBuffer, desc: "IPv6 header"},
	{name: "icmpv4.hdr", dir: dirBoth, flags: KwPacketBuffer, desc: "ICMPv4 header"},
	{name: "icmpv6.hdr", dir: dirBoth, flags: KwPacketBuffer, desc: "ICMPv6 header"},
	{name: "ip.src", dir: dirBoth, flags: KwPacketBuffer, desc: "source IP address (raw bytes)"},
	{name: "ip.dst", dir: dirBoth, flags: KwPacketBuffer, desc: "destination IP address (raw bytes)"},
}

// legacyDef declares a legacy content modifier (Snort style): it moves the preceding content
// into a buffer.
type legacyDef struct {
	name, buffer, proto, desc string
}

var legacyDefs = []legacyDef{
	{"http_uri", "http.uri", "http1", "content modifier: HTTP normalized URI"},
	{"http_raw_uri", "http.uri.raw", "http1", "content modifier: HTTP raw URI"},
	{"http_method", "http.method", "http1", "content modifier: HTTP method"},
	{"http_header", "http.header", "http1", "content modifier: HTTP headers"},
	{"http_raw_header", "http.header.raw", "http1", "content modifier: raw HTTP headers"},
	{"http_cookie", "http.cookie", "http1", "content modifier: HTTP cookie"},
	{"http_user_agent", "http.user_agent", "http1", "content modifier: HTTP User-Agent"},
	{"http_host", "http.host", "http1", "content modifier: HTTP Host"},
	{"http_raw_host", "http.host.raw", "http1", "content modifier: raw HTTP Host"},
	{"http_client_body", "http.request_body", "http1", "content modifier: HTTP request body"},
	{"http_server_body", "file.data", "http1", "content modifier: HTTP response body"},
	{"http_stat_code", "http.stat_code", "http1", "content modifier: HTTP status code"},
	{"http_stat_msg", "http.stat_msg", "http1", "content modifier: HTTP status message"},
}

// transformDefs declare the transforms.
var transformDefs = []struct {
	name  string
	flags KeywordFlags
	desc  string
}{
	{"to_lowercase", KwNoOpt, "lower-case the buffer"},
	{"to_uppercase", KwNoOpt, "upper-case the buffer"},
	{"to_md5", KwNoOpt, "replace the buffer by its MD5 (binary)"},
	{"to_sha1", KwNoOpt, "replace the buffer by its SHA1 (binary)"},
	{"to_sha256", KwNoOpt, "replace the buffer by its SHA256 (binary)"},
	{"dotprefix", KwNoOpt, "prefix the buffer with a dot"},
	{"domain", KwNoOpt, "keep the registrable domain"},
	{"tld", KwNoOpt, "keep the top-level domain"},
	{"strip_whitespace", KwNoOpt, "remove white space"},
	{"compress_whitespace", KwNoOpt, "compress runs of white space"},
	{"url_decode", KwNoOpt, "URL-decode the buffer"},
	{"header_lowercase", KwNoOpt, "lower-case HTTP header names"},
	{"strip_pseudo_headers", KwNoOpt, "remove HTTP/2 pseudo headers"},
	{"xor", KwQuotesMandatory, "XOR the buffer with a key"},
	{"pcrexform", KwQuotesMandatory, "replace the buffer by a regex capture"},
	{"luaxform", KwQuotesOptional, "transform the buffer with a Lua script"},
	{"from_base64", KwOptionalOpt, "base64-decode the buffer"},
	{"gunzip", KwOptionalOpt, "gunzip the buffer"},
	{"zlib_deflate", KwOptionalOpt, "inflate (zlib) the buffer"},
}

func init() {
	for _, d := range stickyDefs {
		d := d
		buf := d.buffer
		if buf == "" {
			buf = d.name
		}
		bufferInfos[buf] = bufInfo{d: d.dir, packet: d.flags&KwPacketBuffer != 0}
		flags := d.flags
		if flags&KwOptionalOpt == 0 {
			flags |= KwNoOpt
		}
		kw := &Keyword{Name: d.name, Aliases: d.aliases, Kind: KindStickyBuffer, Flags: flags,
			AppProtos: d.protos, Buffer: buf, Desc: "sticky buffer: " + d.desc}
		kw.setup = func(p *ruleParser, o *Option, arg string) error { return setupSticky(p, kw, arg) }
		register(kw)
	}
	for _, d := range legacyDefs {
		kw := &Keyword{Name: d.name, Kind: KindModifier, Flags: KwNoOpt, AppProtos: []string{d.proto},
			Buffer: d.buffer, Desc: d.desc}
		kw.setup = func(p *ruleParser, o *Option, arg string) error { return p.contentModifier(kw) }
		register(kw)
	}
	for _, d := range transformDefs {
		kw := &Keyword{Name: d.name, Kind: KindTransform, Flags: d.flags, Desc: "transform: " + d.desc}
		kw.setup = setupTransform
		register(kw)
	}
	register(
		&Keyword{Name: "pkt_data", Kind: KindStickyBuffer, Flags: KwNoOpt | KwFirewall, Buffer: "pkt_data",
			Desc: "reset inspection to the packet payload / stream", setup: setupPktData},
		&Keyword{Name: "base64_data", Kind: KindStickyBuffer, Flags: KwNoOpt, Buffer: listBase64,
			Desc: "inspect the data decoded by base64_decode", setup: setupBase64Data},
	)
}

// setupSticky handles a sticky buffer keyword.
func setupSticky(p *ruleParser, kw *Keyword, arg string) error {
	r := p.r
	switch kw.Buffer {
	case "file.data", "file.name", "file.magic":
		if r.AppProto != "" && !fileProtos[r.AppProto] {
			return errf("The '%s' keyword cannot be used with protocol %s", kw.Name, r.AppProto)
		}
		if kw.Buffer == "file.data" && r.AppProto == "smtp" && p.flowSeen && p.toClient && !p.toServer {
			return errf("The 'file-data' keyword cannot be used with SMTP flow:to_client or flow:from_server.")
		}
		p.inspectsFiles = true
		if kw.Buffer == "file.name" {
			p.needsFilename = true
		}
	}
	if err := p.setActiveList(kw.Buffer, kw.Flags&KwMultiBuffer != 0); err != nil {
		return err
	}
	switch p.forceDir {
	case "to_server":
		p.curbuf.onlyTS = true
	case "to_client":
		p.curbuf.onlyTC = true
	}
	if kw.Name == "http.response_body" {
		// file.data exists in both directions, but the http.response_body sticky buffer
		// takes only the one to the client: the rule becomes to_client
		// (DetectHttpServerBodySetupSticky). The http_server_body modifier does not.
		p.curbuf.onlyTC = true
		if !p.txBoth {
			p.toServer, p.toClient = false, true
		}
	}
	switch len(kw.AppProtos) {
	case 0:
	case 1:
		return p.setAppProto(kw.AppProtos[0])
	default:
		return p.setMultiAppProto(kw.AppProtos)
	}
	return nil
}

func setupPktData(p *ruleParser, o *Option, arg string) error {
	if len(p.pending) > 0 {
		return errf("previous transforms not consumed before 'pkt_data'")
	}
	p.list, p.listName = "", ""
	return nil
}

func setupBase64Data(p *ruleParser, o *Option, arg string) error {
	if p.lastMatch("base64_decode") == nil {
		return errf("\"base64_data\" keyword seen without preceding base64_decode.")
	}
	return p.setBuiltinList(listBase64)
}

// setupTransform queues a transform for the active sticky buffer.
func setupTransform(p *ruleParser, o *Option, arg string) error {
	if p.list == "" {
		return errf("transforms must follow a sticky buffer")
	}
	if !p.listSet {
		return errf("transforms must directly follow stickybuffers")
	}
	switch o.Name {
	case "xor":
		if len(arg)%2 != 0 || len(arg) == 0 || strings.Trim(arg, "0123456789abcdefABCDEF") != "" {
			return errf("xor key must be an even number of hex digits: \"%s\"", arg)
		}
		if len(arg)/2 > 255 {
			return errf("xor key too long (%d bytes, at most 255)", len(arg)/2) // xor_parse_do
		}
		o.Value = `"` + arg + `"`
	case "pcrexform":
		// The argument is a bare PCRE2 pattern, no /delimiters/ nor flags
		// (DetectTransformPcrexformSetup compiles it as is): a leading '/' is a literal.
		if err := checkRegexSyntax(arg); err != nil {
			return err
		}
		o.Value = `"` + arg + `"`
	case "from_base64":
		if arg != "" {
			if err := checkFromBase64(arg); err != nil {
				return err
			}
		}
	}
	if len(p.pending) >= 16 {
		return errf("too many transforms (max 16)")
	}
	p.pending = append(p.pending, o)
	return nil
}

// checkFromBase64 validates from_base64 options: bytes N, offset N, mode strict|rfc4648|rfc2045.
func checkFromBase64(arg string) error {
	for _, part := range strings.Split(arg, ",") {
		f := strings.Fields(part)
		if len(f) != 2 {
			return errf("invalid from_base64 option \"%s\"", strings.TrimSpace(part))
		}
		switch f[0] {
		case "bytes", "offset":
			// parse_transform_base64: both at most 65535.
			if _, err := parseUintStrict(f[1], 0xffff); err != nil {
				return errf("invalid from_base64 %s \"%s\"", f[0], f[1])
			}
		case "mode":
			switch f[1] { // case-sensitive (get_mode_value)
			case "strict", "rfc4648", "rfc2045":
			default:
				return errf("invalid from_base64 mode \"%s\"", f[1])
			}
		default:
			return errf("invalid from_base64 option \"%s\"", f[0])
		}
	}
	return nil
}

// contentModifier moves the last payload content into the buffer of a legacy modifier
// (DetectEngineContentModifierBufferSetup).
func (p *ruleParser) contentModifier(kw *Keyword) error {
	r := p.r
	if p.list != "" {
		return errf("\"%s\" keyword seen with a sticky buffer still set.  Reset sticky buffer with pkt_data before using the modifier.", kw.Name)
	}
	alp := kw.AppProtos[0]
	if r.AppProto != "" && !appProtoEquals(r.AppProto, alp) {
		return errf("rule contains conflicting alprotos set")
	}
	sm := lastInList(p.payload, nil, "content")
	if sm == nil {
		return errf("\"%s\" keyword found inside the rule without a content context.  Please use a \"content\" keyword before using the \"%s\" keyword", kw.Name, kw.Name)
	}
	c := sm.Arg.(*Content)
	if c.Rawbytes {
		return errf("%s rule can not be used with the rawbytes rule keyword", kw.Name)
	}
	if c.Replace != nil {
		return errf("%s rule can not be used with the replace rule keyword", kw.Name)
	}
	r.AppProto = alp
	r.appLayerFlag = true
	if p.curbuf == nil || p.curbuf.id != kw.Buffer {
		if p.curbuf != nil && len(p.curbuf.Matches) == 0 {
			return errf("no matches for previous buffer")
		}
		var reuse *Buffer
		if p.curbuf != nil {
			for _, b := range r.Buffers {
				if p.dynamic(b) && b.id == kw.Buffer {
					reuse = b
					break
				}
			}
		}
		if reuse == nil {
			reuse = p.newBuffer(kw.Buffer, kw.Buffer)
		}
		p.curbuf = reuse
	}
	// Move the content.
	pl := p.payload
	for i, m := range pl.Matches {
		if m == sm {
			pl.Matches = append(pl.Matches[:i:i], pl.Matches[i+1:]...)
			break
		}
	}
	p.curbuf.Matches = append(p.curbuf.Matches, sm)
	p.moveTo(sm, p.curbuf)
	if kw.Buffer == "file.data" {
		p.inspectsFiles = true
	}
	return nil
}

// validateBufferContents applies the buffer-specific content checks Suricata runs when a rule
// is complete (http.host lower case, md5 lengths, ...).
func (p *ruleParser) validateBufferContents() error {
	for _, b := range p.r.Buffers {
		if !p.dynamic(b) {
			continue
		}
		for _, m := range b.Matches {
			c, ok := m.Arg.(*Content)
			if !ok {
				continue
			}
			switch b.Name {
			case "http.host":
				if c.Nocase {
					return errf("http.host keyword specified along with \"nocase\". The hostname buffer is normalized to lowercase, specifying nocase is redundant.")
				}
				if bytes.ContainsFunc(c.Pattern, func(r rune) bool { return r >= 'A' && r <= 'Z' }) {
					return errf("A pattern with uppercase characters detected for http.host. The hostname buffer is normalized to lowercase, please specify a lowercase pattern.")
				}
			case "http.method":
				n := len(c.Pattern)
				if n > 0 {
					switch {
					case c.Pattern[n-1] == ' ':
						return errf("http_method pattern with trailing space")
					case c.Pattern[0] == ' ':
						return errf("http_method pattern with leading space")
					case c.Pattern[n-1] == '\t':
						return errf("http_method pattern with trailing tab")
					case c.Pattern[0] == '\t':
						return errf("http_method pattern with leading tab")
					}
				}
			case "http.protocol":
				if bytes.IndexByte(c.Pattern, ' ') >= 0 {
					return errf("Invalid http.protocol string containing a space")
				}
			case "http.uri", "http.uri.raw", "sip.uri":
				if c.Depth.Set && c.Depth.Var == "" && int(c.Depth.Value) < len(c.Pattern) {
					return errf("depth or urilen %d smaller than content len %d", c.Depth.Value, len(c.Pattern))
				}
			case "ja3.hash", "ja3s.hash", "ssh.hassh", "ssh.hassh.server", "quic.cyu.hash":
				if len(b.Transforms) > 0 {
					continue
				}
				if len(c.Pattern) != 32 {
					return errf("Invalid length for md5-like keyword (should be 32 characters long). This rule will therefore never match.")
				}
				for _, x := range c.Pattern {
					if !isHexDigit(x) {
						return errf("Invalid md5-like string (should be string of hexadecimal characters).This rule will therefore never match.")
					}
				}
			case "tls.cert_fingerprint":
				if len(b.Transforms) > 0 {
					continue
				}
				if len(c.Pattern) != 59 {
					return errf("Invalid length of the specified fingerprint. This rule will therefore never match.")
				}
				if bytes.IndexByte(c.Pattern, ':') < 0 {
					return errf("No colon delimiters ':' detected in content after tls.cert_fingerprint. This rule will therefore never match.")
				}
			case "tls.cert_serial":
				if len(b.Transforms) > 0 {
					continue
				}
				if len(c.Pattern) > 2 && bytes.IndexByte(c.Pattern, ':') < 0 {
					return errf("No colon delimiters ':' detected in content after tls.cert_serial. This rule will therefore never match.")
				}
			}
		}
		if b.Name == "http.header.raw" && p.toServer == p.toClient {
			return errf("http_raw_header signature without a flow direction. Use flow:to_server for inspecting request headers or flow:to_client for inspecting response headers.")
		}
	}
	return nil
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
