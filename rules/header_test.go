package rules

import (
	"strings"
	"testing"
)

func rule(hdr, opts string) string { return hdr + " (" + opts + " sid:1;)" }

func TestActions(t *testing.T) {
	for _, tc := range []struct {
		action string
		fw     bool
		want   []Action
		scope  Scope
		err    string
	}{
		{action: "alert", want: []Action{ActionAlert}},
		{action: "ALERT", want: []Action{ActionAlert}},
		{action: "pass", want: []Action{ActionPass}},
		{action: "drop", want: []Action{ActionDrop}},
		{action: "reject", want: []Action{ActionReject}},
		{action: "rejectsrc", want: []Action{ActionRejectSrc}},
		{action: "rejectdst", want: []Action{ActionRejectDst}},
		{action: "rejectboth", want: []Action{ActionRejectBoth}},
		{action: "config", want: []Action{ActionConfig}},
		{action: "drop:packet", want: []Action{ActionDrop}, scope: ScopePacket},
		{action: "drop:flow", want: []Action{ActionDrop}, scope: ScopeFlow},
		{action: "pass:flow", want: []Action{ActionPass}, scope: ScopeFlow},
		{action: "reject:packet", want: []Action{ActionReject}, scope: ScopePacket},
		{action: "config:packet", want: []Action{ActionConfig}, scope: ScopePacket},
		{action: "drop:Flow", err: "invalid action scope"},
		{action: "drop:hook", err: "only 'packet' and 'flow' allowed"},
		{action: "alert:flow", err: "scope only supported for actions"},
		{action: "config:flow", err: "only 'packet' allowed"},
		{action: "accept", err: "'accept' action only supported for firewall rules"},
		{action: "accept:hook", err: "'accept' action only supported for firewall rules"},
		{action: "drop:flow,alert", err: "invalid action scope"},
		{action: "block", err: "invalid action"},
		// firewall rules
		{action: "accept:hook", fw: true, want: []Action{ActionAccept}, scope: ScopeHook},
		{action: "accept:tx", fw: true, want: []Action{ActionAccept}, scope: ScopeTx},
		{action: "accept:packet", fw: true, want: []Action{ActionAccept}, scope: ScopePacket},
		{action: "accept:flow,pass:flow", fw: true, want: []Action{ActionAccept, ActionPass}, scope: ScopeFlow},
		{action: "drop:flow,alert", fw: true, want: []Action{ActionDrop, ActionAlert}, scope: ScopeFlow},
		{action: "accept:hook,pass:flow", fw: true, err: "multi-action rules cannot use different action scopes"},
		{action: "accept", fw: true, err: "firewall rules require setting an explicit action scope"},
		{action: "alert:packet", fw: true, err: "only accept, config, drop and reject actions allowed as primary"},
		{action: "accept:flow,drop:flow", fw: true, err: "not allowed as secondary"},
		{action: "accept:bogus", fw: true, err: "only 'packet', 'flow', 'tx' and 'hook' allowed"},
	} {
		proto := "tcp"
		if tc.fw {
			proto = "tcp:all"
		}
		r, err := ParseWith(rule(tc.action+" "+proto+" any any -> any any", ""), &ParseOptions{Firewall: tc.fw})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want error %q", tc.action, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.action, err)
			continue
		}
		if len(r.Header.Actions) != len(tc.want) || r.Header.Scope != tc.scope {
			t.Errorf("%s: got %v %v", tc.action, r.Header.Actions, r.Header.Scope)
			continue
		}
		for i := range tc.want {
			if r.Header.Actions[i] != tc.want[i] {
				t.Errorf("%s: got %v", tc.action, r.Header.Actions)
			}
		}
	}
}

func TestActionFlags(t *testing.T) {
	h := Header{Actions: []Action{ActionReject}}
	if h.ActionFlags(false) != FlagReject|FlagDrop|FlagAlert || h.ActionFlags(true) != FlagReject|FlagDrop {
		t.Fatalf("reject flags %x %x", h.ActionFlags(false), h.ActionFlags(true))
	}
	h = Header{Actions: []Action{ActionDrop, ActionAlert}}
	if h.ActionFlags(true) != FlagDrop|FlagAlert {
		t.Fatalf("drop,alert firewall flags %x", h.ActionFlags(true))
	}
}

func TestProtocols(t *testing.T) {
	for _, tc := range []struct {
		proto string
		fw    bool
		check func(p Protocol) bool
		err   string
	}{
		{proto: "tcp", check: func(p Protocol) bool { return p.Name == "tcp" && len(p.IPProtos) == 1 && p.IPProtos[0] == 6 }},
		{proto: "TCP", check: func(p Protocol) bool { return p.Name == "tcp" }},
		{proto: "tcp-pkt", check: func(p Protocol) bool { return p.OnlyPacket }},
		{proto: "tcp-stream", check: func(p Protocol) bool { return p.OnlyStream }},
		{proto: "udp"}, {proto: "sctp"},
		{proto: "icmp", check: func(p Protocol) bool { return len(p.IPProtos) == 2 }},
		{proto: "icmpv4"}, {proto: "icmpv6"},
		{proto: "ip", check: func(p Protocol) bool { return p.IPProtos == nil }},
		{proto: "pkthdr"},
		{proto: "ipv4", check: func(p Protocol) bool { return p.IPv4Only }},
		{proto: "ip4"}, {proto: "ipv6", check: func(p Protocol) bool { return p.IPv6Only }}, {proto: "ip6"},
		{proto: "http", check: func(p Protocol) bool { return p.AppProto == "http" }},
		{proto: "http1"}, {proto: "http2"}, {proto: "dns", check: func(p Protocol) bool { return len(p.IPProtos) == 2 }},
		{proto: "tls"}, {proto: "ssh"}, {proto: "smtp"}, {proto: "ftp"}, {proto: "ftp-data"}, {proto: "dcerpc"},
		{proto: "smb"}, {proto: "nfs"}, {proto: "krb5"}, {proto: "quic"}, {proto: "mqtt"}, {proto: "ldap"},
		{proto: "ikev2", check: func(p Protocol) bool { return p.AppProto == "ike" }},
		{proto: "tcp:flow_start", check: func(p Protocol) bool { return p.Hook == "flow_start" }},
		{proto: "tcp:pre_flow"}, {proto: "udp:pre_stream"}, {proto: "ip:all"},
		{proto: "http1:request_line", check: func(p Protocol) bool { return p.AppHook && p.HookToServer }},
		{proto: "http1:response_headers", check: func(p Protocol) bool { return p.HookToClient }},
		{proto: "dns:request_complete", check: func(p Protocol) bool { return p.HookToServer }},
		{proto: "tls:client_hello_done"},
		{proto: "HTTP", err: "cannot be used in a signature"},
		{proto: "igmp", err: "cannot be used in a signature"},
		{proto: "6", err: "cannot be used in a signature"},
		{proto: "modbus", err: "detection has been disabled"},
		{proto: "tcp:request_line", err: "does not support hook"},
		{proto: "http1:bogus", err: "does not support hook"},
	} {
		r, err := ParseWith(rule("alert "+tc.proto+" any any -> any any", ""), nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want error %q", tc.proto, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.proto, err)
			continue
		}
		if tc.check != nil && !tc.check(r.Header.Protocol) {
			t.Errorf("%s: unexpected %+v", tc.proto, r.Header.Protocol)
		}
	}
	// Disabled protocols can be enabled.
	if _, err := ParseWith(rule("alert modbus any any -> any any", ""), &ParseOptions{DisabledAppProtos: map[string]bool{}}); err != nil {
		t.Error(err)
	}
	// The auto-accept notation in a firewall rule.
	if _, err := ParseWith(rule("accept:flow tls:<client_hello_done any any -> any any", ""), &ParseOptions{Firewall: true}); err != nil {
		t.Error(err)
	}
	if _, err := ParseWith(rule("accept:packet tls:<client_hello_done any any -> any any", ""), &ParseOptions{Firewall: true}); err == nil {
		t.Error("accept:packet with <hook must fail")
	}
	if _, err := ParseWith(rule("accept:hook tcp any any -> any any", ""), &ParseOptions{Firewall: true}); err == nil ||
		!strings.Contains(err.Error(), "explicit hook") {
		t.Errorf("firewall rule without hook: %v", err)
	}
	if _, err := ParseWith(rule("accept:packet http1:request_line any any -> any any", ""), &ParseOptions{Firewall: true}); err == nil {
		t.Error("packet scope on a non-UDP app hook must fail")
	}
}

func TestDirections(t *testing.T) {
	for _, d := range []string{"->", "<>"} {
		r, err := Parse(rule("alert tcp 1.1.1.1 any "+d+" any any", ""))
		if err != nil || string(r.Header.Direction) != d {
			t.Errorf("%s: %v", d, err)
		}
	}
	if _, err := Parse(rule("alert http any any => any any", `http.uri; content:"a"; http.stat_code; content:"200";`)); err != nil {
		t.Errorf("=>: %v", err)
	}
	if _, err := Parse(rule("alert http any any => any any", `http.uri; content:"a";`)); err == nil {
		t.Error("=> with one direction must fail")
	}
	if _, err := ParseWith(rule("accept:hook http1:request_line any any => any any", ""), &ParseOptions{Firewall: true}); err == nil {
		t.Error("=> in a firewall rule must fail")
	}
	for _, d := range []string{"<-", ">", "-->", "<=>"} {
		if _, err := Parse(rule("alert tcp any any "+d+" any any", "")); err == nil || !strings.Contains(err.Error(), "not a valid direction") {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// TestDisabledAppProtos follows Suricata's SCAppLayerProtoDetectConfProtoDetectionEnabledDefault:
// the protocol's enabled key, else the key of each IP protocol it runs on, else its default
// (off for modbus and dnp3); rules naming a disabled protocol fail.
func TestDisabledAppProtos(t *testing.T) {
	cases := []struct {
		name    string
		conf    map[string]string
		off, on []string // rules with these protocols fail / load
		err     string
	}{
		{"nothing said", nil, []string{"modbus", "dnp3"}, []string{"enip", "pgsql", "dns", "http"}, ""},
		{"stock", map[string]string{"pgsql.enabled": "no", "modbus.enabled": "no", "dnp3.enabled": "no", "enip.enabled": "no"},
			[]string{"modbus", "dnp3", "enip", "pgsql"}, []string{"dns"}, ""},
		{"turned on", map[string]string{"modbus.enabled": "yes", "dnp3.enabled": "detection-only", "enip.enabled": "TRUE"},
			nil, []string{"modbus", "dnp3", "enip"}, ""},
		{"dns off", map[string]string{"dns.enabled": "no"}, []string{"dns"}, []string{"tls"}, ""},
		{"dns tcp off, udp by default", map[string]string{"dns.tcp.enabled": "no"}, nil, []string{"dns"}, ""},
		{"dns tcp and udp off", map[string]string{"dns.tcp.enabled": "no", "dns.udp.enabled": "off"}, []string{"dns"}, nil, ""},
		{"the enabled key wins over the per-protocol ones", map[string]string{"dns.enabled": "yes", "dns.udp.enabled": "no", "dns.tcp.enabled": "no"}, nil, []string{"dns"}, ""},
		{"http1 off: http still names http2", map[string]string{"http.enabled": "no"}, []string{"http1"}, []string{"http", "http2"}, ""},
		{"http1 and http2 off", map[string]string{"http.enabled": "no", "http2.enabled": "no"}, []string{"http", "http1", "http2"}, nil, ""},
		{"bad value", map[string]string{"smb.enabled": "maybe"}, nil, nil, "app-layer.protocols.smb.enabled: invalid value"},
		{"smb reads its tcp key only", map[string]string{"smb.tcp.enabled": "no", "smb.udp.enabled": "maybe"}, []string{"smb"}, []string{"snmp"}, ""},
		{"snmp reads its udp key only", map[string]string{"snmp.udp.enabled": "no", "snmp.tcp.enabled": "yes"}, []string{"snmp"}, []string{"smb"}, ""},
		{"ftp-data follows ftp", map[string]string{"ftp.enabled": "no"}, []string{"ftp", "ftp-data"}, nil, ""},
	}
	for _, c := range cases {
		disabled, err := DisabledAppProtos(c.conf)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		opts := &ParseOptions{DisabledAppProtos: disabled}
		for _, p := range c.off {
			if _, err := ParseWith("alert "+p+" any any -> any any (sid:1;)", opts); err == nil || !strings.Contains(err.Error(), "cannot be used in a signature") {
				t.Errorf("%s: alert %s: %v, want refused", c.name, p, err)
			}
		}
		for _, p := range c.on {
			if _, err := ParseWith("alert "+p+" any any -> any any (sid:1;)", opts); err != nil {
				t.Errorf("%s: alert %s: %v", c.name, p, err)
			}
		}
	}
}
