package main

import (
	"strings"
	"testing"
)

// FuzzParseArgs feeds arbitrary argument lists (split on NUL) to the command-line parser: it
// must return options or a usage error, never panic.
func FuzzParseArgs(f *testing.F) {
	for _, seed := range []string{
		"-c\x00suricata.yaml\x00-r\x00x.pcap",
		"-vvv\x00--set\x00a.b=c\x00--runmode=single",
		"--firewall-rules-exclusive=\x00-S",
		"-k\x00none\x00-Sfoo\x00--list-keywords=all",
		"--\x00-\x00---x=\x00-c",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := parseArgs(strings.Split(s, "\x00"))
		if err == nil && o == nil {
			t.Fatal("no options and no error")
		}
	})
}
