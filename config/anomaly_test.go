package config

import (
	"strings"
	"testing"
)

func TestEVEAnomalyOptions(t *testing.T) {
	eve := func(types string) string {
		return header + "outputs:\n  - eve-log:\n      enabled: yes\n      types:\n" + types
	}
	cases := []struct {
		name, types string
		want        AnomalyOptions
		warn        string
	}{
		{"not listed", "        - alert\n", AnomalyOptions{AppLayer: true}, ""},
		{"plain", "        - anomaly\n", AnomalyOptions{Enabled: true, AppLayer: true}, ""},
		{"empty options", "        - anomaly:\n", AnomalyOptions{Enabled: true, AppLayer: true}, ""},
		{"disabled", "        - anomaly:\n            enabled: no\n            types:\n              decode: yes\n",
			AnomalyOptions{AppLayer: true}, ""},
		{"suricata.yaml default", "        - anomaly:\n            enabled: yes\n            types:\n              decode: no\n              stream: no\n              applayer: yes\n",
			AnomalyOptions{Enabled: true, AppLayer: true}, ""},
		{"all", "        - anomaly:\n            types:\n              decode: yes\n              stream: on\n              applayer: no\n            packethdr: yes\n",
			AnomalyOptions{Enabled: true, Decode: true, Stream: true, PacketHeader: true}, ""},
		// A value that is not a true word clears the flag, as SCConfValIsTrue reads it.
		{"not true", "        - anomaly:\n            types:\n              applayer: maybe\n              stream: yes\n",
			AnomalyOptions{Enabled: true, Stream: true}, ""},
		{"packethdr without decode", "        - anomaly:\n            types:\n              stream: yes\n            packethdr: yes\n",
			AnomalyOptions{Enabled: true, Stream: true, AppLayer: true}, "packet headers will not be logged"},
		{"nothing selected", "        - anomaly:\n            types:\n              applayer: no\n",
			AnomalyOptions{Enabled: true}, "no logging types are selected"},
	}
	for _, tc := range cases {
		s := settings(t, load(t, eve(tc.types)))
		if got := s.Outputs.EVE.Anomaly; got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		joined := strings.Join(s.Warnings, "\n")
		if tc.warn == "" && joined != "" || tc.warn != "" && !strings.Contains(joined, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.name, joined, tc.warn)
		}
	}
}
