package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/config"
)

func TestGroupingFromConfig(t *testing.T) {
	tests := []struct {
		name, yaml string
		tcp, udp   string
		shared     bool
		warn       string
	}{
		{"defaults", "", "[53 80 139 443 445 1433 3306 3389 6666 6667 8080]", "[53 135 5060]", false, ""},
		{"brackets and variables", "vars:\n  port-groups:\n    WEB: \"[8080,8081]\"\ndetect:\n  grouping:\n    tcp-priority-ports: \"[22, [$WEB]]\"\n",
			"[22 8080 8081]", "[53 135 5060]", false, ""},
		{"range refused", "detect:\n  grouping:\n    tcp-priority-ports: 80, 1000:1010\n", "[]", "[53 135 5060]", false,
			"only single ports allowed"},
		{"bad port", "detect:\n  grouping:\n    udp-priority-ports: 53, dns\n", "[53 80 139 443 445 1433 3306 3389 6666 6667 8080]", "[]", false,
			"not a valid value for detect.grouping.udp-priority-ports"},
		{"single context", "detect:\n  sgh-mpm-context: single\n", "[53 80 139 443 445 1433 3306 3389 6666 6667 8080]", "[53 135 5060]", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse("suricata.yaml", []byte("%YAML 1.1\n---\n"+tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			st, err := c.Settings()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			g := grouping(st, &stderr)
			if got := fmt.Sprint(g.TCPPriorityPorts); got != tt.tcp {
				t.Errorf("tcp priority ports %s, want %s", got, tt.tcp)
			}
			if got := fmt.Sprint(g.UDPPriorityPorts); got != tt.udp {
				t.Errorf("udp priority ports %s, want %s", got, tt.udp)
			}
			if g.SharedMPM != tt.shared || g.Profile != "medium" {
				t.Errorf("shared %v profile %q", g.SharedMPM, g.Profile)
			}
			if tt.warn == "" && stderr.Len() > 0 || tt.warn != "" && !strings.Contains(stderr.String(), tt.warn) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.warn)
			}
		})
	}
}
