package main

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/applayer"
	_ "github.com/meerkat-ids/meerkat/applayer/http"  // registers HTTP/1
	_ "github.com/meerkat-ids/meerkat/applayer/http2" // registers HTTP/2 detection
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/rules"
	"github.com/meerkat-ids/meerkat/stream"
)

// appLayerConfig builds the app layer's configuration from suricata.yaml (app-layer.*): per
// registered protocol whether it runs (app-layer.protocols.<name>.enabled or
// .<ipproto>.enabled: yes, no or detection-only; absent is yes), the parser's own settings
// (Parser.Configure reads app-layer.protocols.<name>), and app-layer.error-policy. It
// returns nil when the stream engine is off (the app layer reads its byte streams).
func appLayerConfig(cfg *config.Config, st *config.Settings, sc *stream.Config, ips bool) (*applayer.Config, stream.ExceptionPolicy, error) {
	if sc == nil {
		return nil, stream.ExceptionIgnore, nil
	}
	ac := &applayer.Config{Midstream: sc.Midstream, Inline: sc.Inline}
	for p := applayer.Proto(0); p < applayer.ProtoHTTP; p++ {
		ps := applayer.ParserOf(p)
		if ps == nil {
			continue
		}
		name := confName(p)
		node, _ := cfg.Get("app-layer.protocols." + name)
		on, detOnly, err := protoEnabled(st, name, ps.IPProto)
		if err != nil {
			return nil, 0, err
		}
		pc := applayer.ProtoConfig{Enabled: on, DetectionOnly: detOnly}
		if pc.Ports, err = detectionPorts(cfg, st, name, ps.IPProto); err != nil {
			return nil, 0, err
		}
		if ps.UDP != nil { // also over UDP: its own udp.detection-ports
			if pc.UDPPorts, err = detectionPorts(cfg, st, name, 17); err != nil {
				return nil, 0, err
			}
		}
		if ps.Configure != nil {
			conf, err := ps.Configure(node)
			if err != nil {
				if prefix := "app-layer.protocols." + name; !strings.HasPrefix(err.Error(), prefix) {
					err = fmt.Errorf("%s: %w", prefix, err)
				}
				return nil, 0, err
			}
			pc.Conf = conf
		}
		ac.Protocols[p] = pc
	}
	ep, _ := cfg.String("app-layer.error-policy")
	pol, err := stream.MemcapPolicy("app-layer.error-policy", ep, st.ExceptionPolicy, ips)
	if err != nil {
		return nil, 0, err
	}
	sc.AppLayer = true
	return ac, pol, nil
}

// preconfigureApp runs the parsers' Preconfigure on their app-layer.protocols sections,
// before the rules load (settings that decide whether a rule loads, as ja3-fingerprints).
func preconfigureApp(cfg *config.Config) error {
	for p := applayer.Proto(0); p < applayer.ProtoHTTP; p++ {
		ps := applayer.ParserOf(p)
		if ps == nil || ps.Preconfigure == nil {
			continue
		}
		name := confName(p)
		node, _ := cfg.Get("app-layer.protocols." + name)
		if err := ps.Preconfigure(node); err != nil {
			if prefix := "app-layer.protocols." + name; !strings.HasPrefix(err.Error(), prefix) {
				err = fmt.Errorf("%s: %w", prefix, err)
			}
			return err
		}
	}
	return nil
}

// detectionPorts reads app-layer.protocols.<name>.detection-ports (or
// .<ipproto>.detection-ports, ipproto 6 tcp or 17 udp): dp / toserver is matched against the flow's destination port,
// sp / toclient against its source port (SCAppLayerProtoDetectPPParseConfPorts). Absent, the
// Layer applies the parser's built-in ports (to the destination port).
func detectionPorts(cfg *config.Config, st *config.Settings, name string, ipproto uint8) ([2]func(uint16) bool, error) {
	var out [2]func(uint16) bool
	node, ok := cfg.Get("app-layer.protocols." + name + ".detection-ports")
	if !ok {
		node, ok = cfg.Get("app-layer.protocols." + name + "." + map[uint8]string{6: "tcp", 17: "udp"}[ipproto] + ".detection-ports")
	}
	parse := func(key, v string) (func(uint16) bool, error) {
		p, err := rules.ParsePort(v, &st.Vars)
		if err != nil {
			return nil, fmt.Errorf("app-layer.protocols.%s.detection-ports.%s: %w", name, key, err)
		}
		return p.Contains, nil
	}
	if !ok {
		return out, nil // the Layer falls back to the parser's built-in ports
	}
	for _, c := range node.Children {
		v, _ := c.Scalar()
		var err error
		switch c.Name {
		case "dp", "toserver":
			out[0], err = parse(c.Name, v)
		case "sp", "toclient":
			out[1], err = parse(c.Name, v)
		default:
			err = fmt.Errorf("app-layer.protocols.%s.detection-ports: unknown key %q (dp, sp, toserver or toclient)", name, c.Name)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// confName is the protocol's name under app-layer.protocols (http1 is "http").
func confName(p applayer.Proto) string {
	switch p {
	case applayer.ProtoHTTP1:
		return "http"
	case applayer.ProtoIKE:
		return "ike"
	}
	return p.String()
}

// protoEnabled reads app-layer.protocols.<name>.enabled, else .<ipproto>.enabled, as
// Suricata's SCAppLayerProtoDetectConfProtoDetectionEnabledDefault: absent is yes.
func protoEnabled(st *config.Settings, name string, ipproto uint8) (on, detectionOnly bool, err error) {
	key := name + ".enabled"
	v, ok := st.AppLayerEnabled[key]
	if !ok {
		key = name + "." + map[uint8]string{6: "tcp", 17: "udp"}[ipproto] + ".enabled"
		v, ok = st.AppLayerEnabled[key]
	}
	switch {
	case !ok:
		return true, false, nil
	case strings.EqualFold(v, "detection-only"):
		return true, true, nil
	case config.IsTrue(v):
		return true, false, nil
	case config.IsFalse(v):
		return false, false, nil
	}
	return false, false, fmt.Errorf("app-layer.protocols.%s: invalid value %q (expected yes, no or detection-only)", key, v)
}
