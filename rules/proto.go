package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// Protocol is the protocol field of a rule header.
type Protocol struct {
	// Name is the protocol as written, lower-cased for the built-in names ("tcp", "ip",
	// "tcp-pkt"); for app-layer protocols it is the name as written ("http1", "dns").
	Name string
	// AppProto is the app-layer protocol when Name is one ("http", "dns", ...; "ikev2" is
	// reported as "ike"), "" otherwise.
	AppProto string
	// IPProtos lists the IP protocol numbers the rule applies to; nil means any IP protocol.
	IPProtos []uint8
	// IPv4Only and IPv6Only are set by ipv4/ip4 and ipv6/ip6.
	IPv4Only bool
	IPv6Only bool
	// OnlyPacket and OnlyStream are set by tcp-pkt and tcp-stream.
	OnlyPacket bool
	OnlyStream bool
	// Hook is the hook of the proto:hook form ("" when none); HookLTE is set by the '<'
	// prefix of firewall app hooks ("tls:<client_hello_done").
	Hook    string
	HookLTE bool
	// AppHook is set when Hook is an app-layer state (the rule is then an app_tx rule);
	// HookToServer and HookToClient give the direction the hook implies.
	AppHook      bool
	HookToServer bool
	HookToClient bool
}

// IP protocol numbers used by protocols.
const (
	protoICMP   = 1
	protoTCP    = 6
	protoUDP    = 17
	protoICMPv6 = 58
	protoSCTP   = 132
)

// appProto describes an app-layer protocol that rules may name.
type appProto struct {
	ipprotos []uint8
	// toServer and toClient are the named states of the protocol's transactions that can be
	// used as hooks, besides the generic request_started/... names.
	toServer, toClient []string
}

var tcpUDP = []uint8{protoTCP, protoUDP}

// appProtos are the app-layer protocol names of Suricata 8.0 (AppLayerGetProtoByName).
var appProtos = map[string]appProto{
	"http":  {ipprotos: []uint8{protoTCP}},
	"http1": {ipprotos: []uint8{protoTCP}, toServer: []string{"request_line", "request_headers", "request_body", "request_trailer"}, toClient: []string{"response_line", "response_headers", "response_body", "response_trailer"}},
	"http2": {ipprotos: []uint8{protoTCP}},
	"ftp":   {ipprotos: []uint8{protoTCP}}, "ftp-data": {ipprotos: []uint8{protoTCP}},
	"smtp": {ipprotos: []uint8{protoTCP}},
	"tls": {ipprotos: []uint8{protoTCP}, toServer: []string{"client_in_progress", "client_hello_done", "client_cert_done", "client_handshake_done", "client_finished"},
		toClient: []string{"server_in_progress", "server_hello", "server_cert_done", "server_hello_done", "server_handshake_done", "server_finished"}},
	// SSH's states get request_/response_ prefixes (rust/derive AppLayerState).
	"ssh": {ipprotos: []uint8{protoTCP}, toServer: []string{"request_in_progress", "request_banner_wait_eol", "request_banner_done", "request_finished"},
		toClient: []string{"response_in_progress", "response_banner_wait_eol", "response_banner_done", "response_finished"}},
	"imap": {ipprotos: []uint8{protoTCP}}, "smb": {ipprotos: tcpUDP}, "dcerpc": {ipprotos: tcpUDP},
	"dns": {ipprotos: tcpUDP}, "modbus": {ipprotos: []uint8{protoTCP}}, "enip": {ipprotos: tcpUDP},
	"dnp3": {ipprotos: []uint8{protoTCP}}, "nfs": {ipprotos: tcpUDP}, "ntp": {ipprotos: []uint8{protoUDP}},
	"tftp": {ipprotos: []uint8{protoUDP}}, "ike": {ipprotos: []uint8{protoUDP}}, "krb5": {ipprotos: tcpUDP},
	"quic": {ipprotos: []uint8{protoUDP}}, "dhcp": {ipprotos: []uint8{protoUDP}}, "sip": {ipprotos: tcpUDP},
	"rfb": {ipprotos: []uint8{protoTCP}}, "mqtt": {ipprotos: []uint8{protoTCP}}, "pgsql": {ipprotos: []uint8{protoTCP}},
	"telnet": {ipprotos: []uint8{protoTCP}}, "websocket": {ipprotos: []uint8{protoTCP}}, "ldap": {ipprotos: tcpUDP},
	"doh2": {ipprotos: []uint8{protoTCP}}, "mdns": {ipprotos: []uint8{protoUDP}}, "rdp": {ipprotos: []uint8{protoTCP}},
	"snmp": {ipprotos: tcpUDP}, "bittorrent-dht": {ipprotos: []uint8{protoUDP}}, "pop3": {ipprotos: []uint8{protoTCP}},
}

// appProtoAliases are alternative names of app-layer protocols (case-insensitive).
var appProtoAliases = map[string]string{"ikev2": "ike"}

// DefaultDisabledAppProtos are the app-layer protocols whose detection Suricata's stock
// suricata.yaml leaves disabled; rules naming them fail to load.
var DefaultDisabledAppProtos = map[string]bool{"modbus": true, "dnp3": true, "enip": true, "pgsql": true}

// appProtoOffByDefault are the protocols Suricata 8.0.6 registers with detection off when the
// configuration does not mention them (modbus.rs, app-layer-dnp3.c).
var appProtoOffByDefault = map[string]bool{"modbus": true, "dnp3": true}

// appProtoConfName maps a protocol to its name under app-layer.protocols where they differ
// (HTTP/1 registers as "http", ftp-data under ftp).
var appProtoConfName = map[string]string{"http1": "http", "ftp-data": "ftp"}

// appProtoConfIPProtos are the IP protocols whose enabled keys Suricata 8.0.6 reads for a
// protocol, where they differ from the ones its rules run on (smb.rs reads only the tcp key,
// snmp.rs only the udp one).
var appProtoConfIPProtos = map[string][]uint8{"smb": {protoTCP}, "snmp": {protoUDP}}

// DisabledAppProtos returns the app-layer protocols whose detection a configuration disables,
// decided as Suricata's SCAppLayerProtoDetectConfProtoDetectionEnabledDefault does for each IP
// protocol the app-layer protocol runs on: app-layer.protocols.<name>.enabled, or when that is
// absent app-layer.protocols.<name>.<tcp|udp>.enabled, or else the protocol's default (off for
// modbus and dnp3); a true word or "detection-only" enables, a false word disables, anything
// else is an error (Suricata exits). A protocol is disabled when no IP protocol enables it.
// enabled holds the values written, as config.Settings.AppLayerEnabled does.
func DisabledAppProtos(enabled map[string]string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range AppProtos() { // sorted: the first bad value reported is always the same
		if name == "http" {
			continue // http is http1 or http2: lookupAppProto checks both
		}
		conf := name
		if c, ok := appProtoConfName[name]; ok {
			conf = c
		}
		ipprotos := appProtos[name].ipprotos
		if ipp, ok := appProtoConfIPProtos[name]; ok {
			ipprotos = ipp
		}
		on := false
		for _, ipp := range ipprotos {
			key := conf + ".enabled"
			v, ok := enabled[key]
			if !ok {
				key = conf + "." + map[uint8]string{protoTCP: "tcp", protoUDP: "udp"}[ipp] + ".enabled"
				v, ok = enabled[key]
			}
			if !ok {
				on = on || !appProtoOffByDefault[name]
				continue
			}
			switch {
			case config.IsTrue(v), strings.EqualFold(v, "detection-only"):
				on = true
			case config.IsFalse(v):
			default:
				return nil, fmt.Errorf("app-layer.protocols.%s: invalid value %q (expected yes, no or detection-only)", key, v)
			}
		}
		if !on {
			out[name] = true
		}
	}
	return out, nil
}

// AppProtos returns the app-layer protocol names rules may use, sorted.
func AppProtos() []string {
	out := make([]string, 0, len(appProtos))
	for k := range appProtos {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// lookupAppProto resolves an app-layer protocol name the way Suricata does: aliases are
// matched case-insensitively, protocol names exactly.
func lookupAppProto(name string, disabled map[string]bool) (string, bool) {
	for alias, target := range appProtoAliases {
		if strings.EqualFold(alias, name) {
			name = target
		}
	}
	if _, ok := appProtos[name]; !ok {
		return "", false
	}
	if disabled[name] {
		return "", false
	}
	if name == "http" && disabled["http1"] && disabled["http2"] {
		return "", false
	}
	return name, true
}

// parseProtocol parses the protocol field, with its optional hook.
func parseProtocol(text string, disabled map[string]bool) (Protocol, error) {
	var p Protocol
	if len(text) > 32 {
		return p, kwErrf("protocol", "invalid protocol specification '%s'", text)
	}
	name, hook := text, ""
	if strings.IndexByte(text, ':') >= 0 {
		// strtok on ':': empty parts are skipped.
		var parts []string
		for _, s := range strings.Split(text, ":") {
			if s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 {
			return p, kwErrf("protocol", "invalid protocol specification '%s'", text)
		}
		name = parts[0]
		if len(parts) > 1 {
			hook = parts[1]
		}
	}
	lower := strings.ToLower(name)
	builtin := true
	switch lower {
	case "tcp":
		p.IPProtos = []uint8{protoTCP}
	case "tcp-pkt":
		p.IPProtos = []uint8{protoTCP}
		p.OnlyPacket = true
	case "tcp-stream":
		p.IPProtos = []uint8{protoTCP}
		p.OnlyStream = true
	case "udp":
		p.IPProtos = []uint8{protoUDP}
	case "icmpv4":
		p.IPProtos = []uint8{protoICMP}
	case "icmpv6":
		p.IPProtos = []uint8{protoICMPv6}
	case "icmp":
		p.IPProtos = []uint8{protoICMP, protoICMPv6}
	case "sctp":
		p.IPProtos = []uint8{protoSCTP}
	case "ipv4", "ip4":
		p.IPv4Only = true
	case "ipv6", "ip6":
		p.IPv6Only = true
	case "ip", "pkthdr":
	default:
		builtin = false
	}
	if builtin {
		p.Name = lower
		if hook != "" {
			switch hook {
			case "flow_start", "pre_flow", "pre_stream", "all":
				p.Hook = hook
			default:
				return p, kwErrf("protocol", "protocol \"%s\" does not support hook \"%s\"", name, hook)
			}
		}
		return p, nil
	}
	alp, ok := lookupAppProto(name, disabled)
	if !ok {
		return p, kwErrf("protocol", "protocol \"%s\" cannot be used in a signature. Either detection for this protocol is not yet supported OR detection has been disabled for protocol through the yaml option app-layer.protocols.%s.detection-enabled", name, name)
	}
	p.Name = name
	p.AppProto = alp
	p.IPProtos = slices.Clone(appProtos[alp].ipprotos)
	if hook != "" {
		h := hook
		if strings.HasPrefix(h, "<") {
			h = h[1:]
			p.HookLTE = true
		}
		ap := appProtos[alp]
		switch {
		case h == "request_started" || h == "request_complete" || slices.Contains(ap.toServer, h):
			p.HookToServer = true
		case h == "response_started" || h == "response_complete" || slices.Contains(ap.toClient, h):
			p.HookToClient = true
		default:
			return p, kwErrf("protocol", "protocol \"%s\" does not support hook \"%s\"", name, h)
		}
		p.Hook = h
		p.AppHook = true
	}
	return p, nil
}

// String returns the protocol field as it is printed.
func (p Protocol) String() string {
	if p.Hook == "" {
		return p.Name
	}
	if p.HookLTE {
		return p.Name + ":<" + p.Hook
	}
	return p.Name + ":" + p.Hook
}

// appProtoCommon combines the rule's app-layer protocol with one a keyword requires
// (Suricata's AppProtoCommon): "" when they conflict.
func appProtoCommon(sig, kw string) string {
	switch sig {
	case "smb":
		if kw == "dcerpc" {
			return "smb"
		}
	case "http":
		if kw == "http1" || kw == "http2" {
			return kw
		}
	case "http1":
		if kw == "http" {
			return "http1"
		}
	case "http2":
		if kw == "http" {
			return "http2"
		}
	case "doh2":
		if kw == "http" || kw == "http2" || kw == "dns" {
			return "doh2"
		}
	}
	if sig != kw {
		return ""
	}
	return kw
}

// appProtoEquals reports whether a rule for sig applies to flows of al (AppProtoEquals).
func appProtoEquals(sig, al string) bool {
	if sig == al {
		return true
	}
	switch sig {
	case "dns":
		return al == "doh2"
	case "http2":
		return al == "doh2"
	case "doh2":
		return al == "http2" || al == "dns" || al == "http"
	case "http":
		return al == "http1" || al == "http2"
	case "dcerpc":
		return al == "smb"
	}
	return false
}
