package rules

import (
	"strings"
)

// appKeyword declares an app-layer keyword with an argument.
type appKeyword struct {
	name    string
	aliases []string
	proto   string
	flags   KeywordFlags
	max     uint64 // > 0: integer condition up to max
	desc    string
}

var appKeywords = []appKeyword{
	{name: "tls.version", proto: "tls", flags: KwFirewall, desc: "TLS version"},
	{name: "ssl_version", proto: "tls", desc: "SSL/TLS version list"},
	{name: "ssl_state", proto: "tls", desc: "SSL/TLS handshake state"},
	{name: "tls.subject", proto: "tls", flags: KwQuotesMandatory | KwNegation, desc: "TLS certificate subject (legacy)"},
	{name: "tls.issuerdn", proto: "tls", flags: KwQuotesMandatory | KwNegation, desc: "TLS certificate issuer (legacy)"},
	{name: "tls.fingerprint", proto: "tls", flags: KwQuotesMandatory | KwNegation, desc: "TLS certificate fingerprint (legacy)"},
	{name: "tls_cert_notbefore", proto: "tls", desc: "TLS certificate not-before date"},
	{name: "tls_cert_notafter", proto: "tls", desc: "TLS certificate not-after date"},
	{name: "tls.cert_chain_len", proto: "tls", max: 0xffffffff, desc: "TLS certificate chain length"},
	{name: "dns.opcode", proto: "dns", desc: "DNS opcode"},
	{name: "dns.rcode", proto: "dns", desc: "DNS rcode"},
	{name: "dns.rrtype", proto: "dns", desc: "DNS record type"},
	{name: "http2.frametype", proto: "http2", desc: "HTTP/2 frame type"},
	{name: "http2.errorcode", proto: "http2", desc: "HTTP/2 error code"},
	{name: "http2.priority", proto: "http2", desc: "HTTP/2 priority"},
	{name: "http2.window", proto: "http2", desc: "HTTP/2 window"},
	{name: "http2.size_update", proto: "http2", desc: "HTTP/2 size update"},
	{name: "http2.settings", proto: "http2", desc: "HTTP/2 settings"},
	{name: "ssh.protoversion", proto: "ssh", flags: KwDeprecated, desc: "SSH protocol version (legacy)"},
	{name: "ssh.softwareversion", proto: "ssh", flags: KwDeprecated, desc: "SSH software version (legacy)"},
	{name: "nfs_procedure", proto: "nfs", desc: "NFS procedure"},
	{name: "nfs.version", aliases: []string{"nfs_version"}, proto: "nfs", desc: "NFS version"},
	{name: "dnp3_func", aliases: []string{"dnp3.func"}, proto: "dnp3", desc: "DNP3 function code"},
	{name: "dnp3_ind", aliases: []string{"dnp3.ind"}, proto: "dnp3", desc: "DNP3 internal indicators"},
	{name: "dnp3_obj", aliases: []string{"dnp3.obj"}, proto: "dnp3", desc: "DNP3 object"},
	{name: "modbus", proto: "modbus", desc: "Modbus function/access"},
	{name: "enip_command", proto: "enip", desc: "ENIP command"},
	{name: "cip_service", proto: "enip", desc: "CIP service"},
	{name: "enip.capabilities", proto: "enip", desc: "ENIP capabilities"},
	{name: "enip.cip_attribute", proto: "enip", desc: "ENIP CIP attribute"},
	{name: "enip.cip_class", proto: "enip", desc: "ENIP CIP class"},
	{name: "enip.cip_extendedstatus", proto: "enip", desc: "ENIP CIP extended status"},
	{name: "enip.cip_instance", proto: "enip", desc: "ENIP CIP instance"},
	{name: "enip.cip_status", proto: "enip", desc: "ENIP CIP status"},
	{name: "enip.device_type", proto: "enip", desc: "ENIP device type"},
	{name: "enip.identity_status", proto: "enip", desc: "ENIP identity status"},
	{name: "enip.product_code", proto: "enip", desc: "ENIP product code"},
	{name: "enip.protocol_version", proto: "enip", desc: "ENIP protocol version"},
	{name: "enip.revision", proto: "enip", desc: "ENIP revision"},
	{name: "enip.serial", proto: "enip", desc: "ENIP serial"},
	{name: "enip.state", proto: "enip", desc: "ENIP state"},
	{name: "enip.status", proto: "enip", desc: "ENIP status"},
	{name: "enip.vendor_id", proto: "enip", desc: "ENIP vendor id"},
	{name: "krb5_err_code", proto: "krb5", desc: "Kerberos error code"},
	{name: "krb5_msg_type", proto: "krb5", desc: "Kerberos message type"},
	{name: "krb5.ticket_encryption", proto: "krb5", desc: "Kerberos ticket encryption"},
	{name: "ike.exchtype", proto: "ike", desc: "IKE exchange type"},
	{name: "ike.chosen_sa_attribute", proto: "ike", desc: "IKE chosen SA attribute"},
	{name: "ike.key_exchange_payload_length", proto: "ike", max: 0xffffffff, desc: "IKE key exchange payload length"},
	{name: "ike.nonce_payload_length", proto: "ike", max: 0xffffffff, desc: "IKE nonce payload length"},
	{name: "mqtt.type", proto: "mqtt", desc: "MQTT message type"},
	{name: "mqtt.flags", proto: "mqtt", desc: "MQTT flags"},
	{name: "mqtt.qos", proto: "mqtt", desc: "MQTT QoS"},
	{name: "mqtt.reason_code", proto: "mqtt", desc: "MQTT reason code"},
	{name: "mqtt.connack.session_present", proto: "mqtt", desc: "MQTT CONNACK session present"},
	{name: "mqtt.connect.flags", proto: "mqtt", desc: "MQTT CONNECT flags"},
	{name: "mqtt.protocol_version", proto: "mqtt", desc: "MQTT protocol version"},
	{name: "snmp.version", proto: "snmp", flags: KwFirewall, desc: "SNMP version"},
	{name: "snmp.pdu_type", proto: "snmp", flags: KwFirewall, desc: "SNMP PDU type"},
	{name: "snmp.trap_type", proto: "snmp", flags: KwFirewall, desc: "SNMP trap type"},
	{name: "rfb.sectype", proto: "rfb", desc: "RFB security type"},
	{name: "rfb.secresult", proto: "rfb", desc: "RFB security result"},
	{name: "ntp.version", proto: "ntp", flags: KwFirewall, desc: "NTP version"},
	{name: "ntp.mode", proto: "ntp", flags: KwFirewall, desc: "NTP mode"},
	{name: "ntp.stratum", proto: "ntp", flags: KwFirewall, desc: "NTP stratum"},
	{name: "ldap.request.operation", proto: "ldap", desc: "LDAP request operation"},
	{name: "ldap.responses.operation", proto: "ldap", desc: "LDAP response operation"},
	{name: "ldap.responses.count", proto: "ldap", desc: "LDAP response count"},
	{name: "ldap.responses.result_code", proto: "ldap", desc: "LDAP response result code"},
	{name: "websocket.opcode", proto: "websocket", desc: "WebSocket opcode"},
	{name: "websocket.mask", proto: "websocket", desc: "WebSocket mask"},
	{name: "websocket.flags", proto: "websocket", desc: "WebSocket flags"},
	{name: "dhcp.leasetime", proto: "dhcp", desc: "DHCP lease time"},
	{name: "dhcp.rebinding_time", proto: "dhcp", desc: "DHCP rebinding time"},
	{name: "dhcp.renewal_time", proto: "dhcp", desc: "DHCP renewal time"},
	{name: "smb.version", proto: "smb", desc: "SMB version"},
	{name: "dcerpc.iface", aliases: []string{"dce_iface"}, proto: "dcerpc", desc: "DCERPC interface"},
	{name: "dcerpc.opnum", aliases: []string{"dce_opnum"}, proto: "dcerpc", desc: "DCERPC opnum"},
	{name: "ftpdata_command", proto: "ftp-data", flags: KwFirewall, desc: "FTP data command"},
	{name: "ftp.dynamic_port", proto: "ftp", flags: KwFirewall, desc: "FTP dynamic port"},
	{name: "ftp.mode", proto: "ftp", flags: KwFirewall, desc: "FTP mode"},
	{name: "ftp.reply_received", proto: "ftp", flags: KwFirewall, desc: "FTP reply received"},
	{name: "app-layer-state", proto: "", desc: "app-layer transaction state"},
}

// appNoOptKeywords are app-layer keywords without argument.
var appNoOptKeywords = []appKeyword{
	{name: "tls_cert_expired", proto: "tls", desc: "TLS certificate expired"},
	{name: "tls_cert_valid", proto: "tls", desc: "TLS certificate valid"},
	{name: "tls_store", aliases: []string{"tls.store"}, proto: "tls", desc: "store the TLS certificate"},
	{name: "ftpbounce", proto: "ftp", flags: KwFirewall, desc: "FTP bounce attack"},
}

func init() {
	for _, a := range appKeywords {
		a := a
		kw := &Keyword{Name: a.name, Aliases: a.aliases, Kind: KindMatch, Flags: a.flags, Desc: a.desc}
		if a.proto != "" {
			kw.AppProtos = []string{a.proto}
		}
		kw.setup = func(p *ruleParser, o *Option, arg string) error {
			if a.max > 0 {
				m, err := ParseIntMatch(arg, a.max)
				if err != nil {
					return err
				}
				o.Arg = m
				o.Value = m.String()
			}
			if a.proto != "" {
				if err := p.setAppProto(a.proto); err != nil {
					return err
				}
			}
			p.addAppMatch(o)
			return nil
		}
		register(kw)
	}
	for _, a := range appNoOptKeywords {
		a := a
		kw := &Keyword{Name: a.name, Aliases: a.aliases, Kind: KindMatch, Flags: a.flags | KwNoOpt,
			AppProtos: []string{a.proto}, Desc: a.desc}
		kw.setup = func(p *ruleParser, o *Option, arg string) error {
			if err := p.setAppProto(a.proto); err != nil {
				return err
			}
			if a.name == "tls_store" {
				p.addPostMatch(o)
				return nil
			}
			p.addAppMatch(o)
			return nil
		}
		register(kw)
	}
	register(
		&Keyword{Name: "filename", Kind: KindMatch, Flags: KwQuotesOptional | KwNegation, Desc: "file name (legacy)", setup: setupFileKeyword},
		&Keyword{Name: "fileext", Kind: KindMatch, Flags: KwQuotesOptional | KwNegation, Desc: "file extension", setup: setupFileKeyword},
		&Keyword{Name: "filemagic", Kind: KindMatch, Flags: KwQuotesMandatory | KwNegation, Desc: "file magic (legacy)", setup: setupFileKeyword},
		&Keyword{Name: "filemd5", Kind: KindMatch, Flags: KwNegation, Desc: "file MD5 in a list", setup: setupFileKeyword},
		&Keyword{Name: "filesha1", Kind: KindMatch, Flags: KwNegation, Desc: "file SHA1 in a list", setup: setupFileKeyword},
		&Keyword{Name: "filesha256", Kind: KindMatch, Flags: KwNegation, Desc: "file SHA256 in a list", setup: setupFileKeyword},
		&Keyword{Name: "filesize", Kind: KindMatch, Flags: KwSupportDir, Desc: "file size", setup: setupFileSize},
		&Keyword{Name: "filestore", Kind: KindPostMatch, Flags: KwOptionalOpt, Desc: "store the file", setup: setupFilestore},
		&Keyword{Name: "prefilter", Kind: KindModifier, Flags: KwNoOpt, Desc: "use the preceding keyword as prefilter", setup: setupPrefilter},
		&Keyword{Name: "bypass", Kind: KindPostMatch, Flags: KwNoOpt, Desc: "bypass the flow", setup: setupPostFlag},
		&Keyword{Name: "config", Kind: KindPostMatch, Flags: KwFirewall, Desc: "configure the engine for the flow/tx (config rules)", setup: setupConfigKeyword},
		&Keyword{Name: "lua", Aliases: []string{"luajit"}, Kind: KindMatch, Desc: "Lua script match", setup: setupLua},
		&Keyword{Name: "nfq_set_mark", Kind: KindPostMatch, Desc: "set the NFQ mark", setup: setupNFQMark},
	)
}

func setupFileKeyword(p *ruleParser, o *Option, arg string) error {
	if p.r.AppProto != "" && !fileProtos[p.r.AppProto] {
		return errf("The '%s' keyword cannot be used with protocol %s", o.Name, p.r.AppProto)
	}
	switch o.Name {
	case "filename", "fileext", "filemagic":
		if arg == "" {
			return errf("%s needs a value", o.Name)
		}
		if _, err := parseContentBytes(o.Name, arg); err != nil {
			return err
		}
		if o.Name != "filemagic" {
			p.needsFilename = true
		}
	default:
		if strings.TrimSpace(arg) == "" {
			return errf("%s needs a hash list file name", o.Name)
		}
	}
	p.inspectsFiles = true
	p.addAppMatch(o)
	return nil
}

func setupFileSize(p *ruleParser, o *Option, arg string) error {
	m, err := ParseIntMatch(arg, ^uint64(0))
	if err != nil {
		return err
	}
	o.Arg = m
	o.Value = m.String()
	if p.forceDir != "" {
		o.Value = p.forceDir + "," + o.Value
	}
	p.inspectsFiles = true
	p.addAppMatch(o)
	return nil
}

func setupFilestore(p *ruleParser, o *Option, arg string) error {
	if arg != "" {
		parts := splitArgs(arg)
		if len(parts) > 2 {
			return errf("invalid filestore \"%s\"", arg)
		}
		switch parts[0] {
		case "request", "to_server", "response", "to_client", "both", "":
		default:
			return errf("invalid filestore direction \"%s\"", parts[0])
		}
		if len(parts) == 2 {
			switch parts[1] {
			case "file", "tx", "ssn", "flow":
			default:
				return errf("invalid filestore scope \"%s\"", parts[1])
			}
		}
		o.Value = strings.Join(parts, ",")
	}
	p.inspectsFiles = true
	p.addPostMatch(o)
	return nil
}

func setupPrefilter(p *ruleParser, o *Option, arg string) error {
	if len(p.matchSeq) == 0 && len(p.r.Matches) == 0 {
		return errf("prefilter needs preceding match")
	}
	p.r.Prefilter = p.lastSM
	return nil
}

func setupPostFlag(p *ruleParser, o *Option, arg string) error {
	p.addPostMatch(o)
	return nil
}

func setupConfigKeyword(p *ruleParser, o *Option, arg string) error {
	for _, part := range splitArgs(arg) {
		k, v, ok := strings.Cut(part, " ")
		if !ok {
			return errf("invalid config option \"%s\"", part)
		}
		v = strings.TrimSpace(v)
		switch k {
		case "logging":
			if v != "disable" {
				return errf("invalid config logging value \"%s\"", v)
			}
		case "type":
			if v != "tx" {
				return errf("invalid config type \"%s\"", v)
			}
		case "scope":
			if v != "tx" && v != "flow" {
				return errf("invalid config scope \"%s\"", v)
			}
		default:
			return errf("invalid config option \"%s\"", part)
		}
	}
	o.Value = strings.Join(splitArgs(arg), ",")
	p.addPostMatch(o)
	p.r.appLayerFlag = true
	return nil
}

func setupLua(p *ruleParser, o *Option, arg string) error {
	if strings.TrimSpace(arg) == "" {
		return errf("lua needs a script file name")
	}
	p.addMatch(o)
	return nil
}

func setupNFQMark(p *ruleParser, o *Option, arg string) error {
	mark, mask, ok := strings.Cut(strings.TrimSpace(arg), "/")
	if !ok {
		mark, mask = strings.TrimSpace(arg), "0xffffffff"
	}
	if _, err := parseUintC(strings.TrimSpace(mark), 0xffffffff); err != nil {
		return errf("invalid nfq_set_mark mark \"%s\"", mark)
	}
	if _, err := parseUintC(strings.TrimSpace(mask), 0xffffffff); err != nil {
		return errf("invalid nfq_set_mark mask \"%s\"", mask)
	}
	p.addPostMatch(o)
	return nil
}
