package main

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want options
	}{
		{"suricata-verify style", []string{"--set", "classification-file=/x/c.config", "--init-errors-fatal",
			"-l", "out", "-c", "s.yaml", "-r", "in.pcap", "-S", "a.rules", "-k", "none", "--runmode=single"},
			options{sets: []string{"classification-file=/x/c.config"}, initErrorsFatal: true, logDir: "out",
				configFile: "s.yaml", readPath: "in.pcap", exclusiveRules: []string{"a.rules"}, checksums: "none", runmode: "single"}},
		{"attached short values and grouped verbosity", []string{"-cs.yaml", "-vvv", "-Sa.rules", "-Sb.rules", "-s", "c.rules"},
			options{configFile: "s.yaml", verbose: 3, exclusiveRules: []string{"a.rules", "b.rules"}, extraRules: []string{"c.rules"}}},
		{"firewall exclusive with equals", []string{"--firewall-rules-exclusive=fw.rules", "--simulate-ips"},
			options{firewallExclusive: "fw.rules", simulateIPS: true}},
		{"firewall exclusive as next arg", []string{"--firewall-rules-exclusive", "fw.rules"},
			options{firewallExclusive: "fw.rules"}},
		{"list keywords with and without value", []string{"--list-keywords"}, options{listKeywordsSet: true}},
		{"list keywords all", []string{"--list-keywords=all"}, options{listKeywordsSet: true, listKeywords: "all"}},
		{"info flags", []string{"-T", "-V", "--build-info", "--dump-config", "--engine-analysis", "--disable-detection", "--firewall"},
			options{testConfig: true, version: true, buildInfo: true, dumpConfig: true, engineAnalysis: true, disableDetection: true, firewall: true}},
		{"repeated set and include", []string{"--set", "a=1", "--set=b.c=2", "--include", "x.yaml"},
			options{sets: []string{"a=1", "b.c=2"}, includes: []string{"x.yaml"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tc.want)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	tests := [][]string{
		{"--no-such-flag"},
		{"-x"},
		{"-c"},
		{"--runmode"},
		{"-k", "maybe"},
		{"--simulate-ips=yes"},
		{"stray"},
	}
	for _, args := range tests {
		_, err := parseArgs(args)
		if err == nil || !errors.Is(err, errUsage) {
			t.Errorf("parseArgs(%q) = %v, want a usage error", args, err)
		}
	}
}
