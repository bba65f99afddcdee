// Package applayer is the app-layer framework: protocol detection on the first bytes of each
// direction of a flow, the per-flow parser state with its transactions, and the registry of
// the inspection buffers detection reads from transactions. One package per protocol under
// it (applayer/http, ...) holds the parser; a parser knows nothing of rules, and detection
// reaches its transactions only through the Buffer getters registered here.
//
// It follows Suricata's app-layer (src/app-layer.c, src/app-layer-parser.c,
// src/app-layer-detect-proto.c) in what it decides; the shape (one Parser record per
// protocol, a State per flow, a TxData per transaction) is that of rust/src/applayer.rs.
package applayer

import "strings"

// Proto is an app-layer protocol (Suricata's AppProto). The values are dense, fixed at
// compile time, so a rule may name a protocol that has no parser yet.
type Proto uint8

// The protocols of Suricata 8.0 (src/app-layer-protos.h). ProtoUnknown is a flow whose
// protocol is not known yet; ProtoFailed one whose detection gave up.
const (
	ProtoUnknown Proto = iota
	ProtoFailed
	ProtoHTTP1
	ProtoHTTP2
	ProtoFTP
	ProtoFTPData
	ProtoSMTP
	ProtoTLS
	ProtoSSH
	ProtoIMAP
	ProtoPOP3
	ProtoSMB
	ProtoDCERPC
	ProtoIRC
	ProtoDNS
	ProtoModbus
	ProtoENIP
	ProtoDNP3
	ProtoNFS
	ProtoNTP
	ProtoTFTP
	ProtoIKE
	ProtoKRB5
	ProtoQUIC
	ProtoDHCP
	ProtoSNMP
	ProtoSIP
	ProtoRFB
	ProtoMQTT
	ProtoPgSQL
	ProtoTelnet
	ProtoWebSocket
	ProtoLDAP
	ProtoDoH2
	ProtoMDNS
	ProtoBittorrentDHT
	ProtoRDP
	ProtoTemplate
	ProtoHTTP // "http" as a rule names it: HTTP/1 or HTTP/2 (never a flow's protocol)
	protoMax
)

// protoNames are the names EVE writes and rules use (AppProtoToString: http1 is "http").
var protoNames = [protoMax]string{
	ProtoUnknown: "unknown", ProtoFailed: "failed", ProtoHTTP1: "http", ProtoHTTP2: "http2",
	ProtoFTP: "ftp", ProtoFTPData: "ftp-data", ProtoSMTP: "smtp", ProtoTLS: "tls", ProtoSSH: "ssh",
	ProtoIMAP: "imap", ProtoPOP3: "pop3", ProtoSMB: "smb", ProtoDCERPC: "dcerpc", ProtoIRC: "irc",
	ProtoDNS: "dns", ProtoModbus: "modbus", ProtoENIP: "enip", ProtoDNP3: "dnp3", ProtoNFS: "nfs",
	ProtoNTP: "ntp", ProtoTFTP: "tftp", ProtoIKE: "ike", ProtoKRB5: "krb5", ProtoQUIC: "quic",
	ProtoDHCP: "dhcp", ProtoSNMP: "snmp", ProtoSIP: "sip", ProtoRFB: "rfb", ProtoMQTT: "mqtt",
	ProtoPgSQL: "pgsql", ProtoTelnet: "telnet", ProtoWebSocket: "websocket", ProtoLDAP: "ldap",
	ProtoDoH2: "doh2", ProtoMDNS: "mdns", ProtoBittorrentDHT: "bittorrent-dht", ProtoRDP: "rdp",
	ProtoTemplate: "template", ProtoHTTP: "http",
}

// String is the protocol's EVE name ("http" for HTTP/1).
func (p Proto) String() string {
	if p < protoMax {
		return protoNames[p]
	}
	return "unknown"
}

// ProtoByName returns the protocol a rule or a config names (AppLayerGetProtoByName): "http"
// is ProtoHTTP (either HTTP version), "http1" HTTP/1, "ikev2" IKE; ok is false for a name
// Suricata does not know.
func ProtoByName(name string) (Proto, bool) {
	switch n := strings.ToLower(name); n {
	case "http":
		return ProtoHTTP, true
	case "http1":
		return ProtoHTTP1, true
	case "ikev2":
		return ProtoIKE, true
	default:
		for p := ProtoFailed; p < ProtoHTTP; p++ {
			if protoNames[p] == n {
				return p, true
			}
		}
		if n == "unknown" {
			return ProtoUnknown, true
		}
	}
	return ProtoUnknown, false
}

// Equals is AppProtoEquals: does the flow protocol have match the protocol sig a rule names?
// http matches HTTP/1 and HTTP/2, http2 also DoH2, dns also DoH2, dcerpc also SMB.
func Equals(sig, have Proto) bool {
	switch sig {
	case ProtoHTTP:
		return have == ProtoHTTP1 || have == ProtoHTTP2 || have == ProtoHTTP
	case ProtoHTTP2, ProtoDNS:
		return have == sig || have == ProtoDoH2
	case ProtoDCERPC:
		return have == ProtoDCERPC || have == ProtoSMB
	}
	return sig == have
}

// Known reports whether p is a detected protocol (neither unknown nor failed).
func (p Proto) Known() bool { return p != ProtoUnknown && p != ProtoFailed }
