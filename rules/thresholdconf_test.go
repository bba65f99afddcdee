package rules

import (
	"strings"
	"testing"
)

func TestParseThresholdConfig(t *testing.T) {
	text := `# comment
threshold gen_id 1, sig_id 1000001, type limit, track by_src, count 1, seconds 60
event_filter gen_id 1, sig_id 2, type both, track by_dst, count 10, seconds 5
suppress gen_id 1, sig_id 2002087
suppress gen_id 1, sig_id 2003614, track by_src, ip 217.110.97.128/25
suppress gen_id 0, sig_id 0, track by_either, ip [10.0.0.0/8,!10.1.0.0/16]
rate_filter gen_id 1, sig_id 1000, track by_rule, count 100, seconds 60, new_action drop, timeout 10

threshold gen_id 1, sig_id 5, type sometimes, track by_src, count 1, seconds 60
suppress gen_id 1, sig_id 5, track by_src
rate_filter gen_id 1, sig_id 9, track by_src, count 1, seconds 1, new_action explode, timeout 1
frobnicate gen_id 1, sig_id 1
threshold gen_id 1, sig_id x, type limit, track by_src, count 1, seconds 60
threshold gen_id 1, sig_id 1, type limit, track by_src, count 1
suppress gen_id 1, sig_id 3, track by_src, ip 300.1.1.1
threshold gen_id 1, sig_id 1, sig_id 2, type limit, track by_src, count 1, seconds 1
`
	entries, errs := ParseThresholdConfig("t.config", strings.NewReader(text), nil)
	if len(entries) != 6 {
		t.Fatalf("%d entries, want 6: %+v", len(entries), entries)
	}
	want := []struct {
		kind  ThresholdEntryKind
		sid   uint32
		track string
	}{
		{EntryThreshold, 1000001, "by_src"}, {EntryThreshold, 2, "by_dst"}, {EntrySuppress, 2002087, ""},
		{EntrySuppress, 2003614, "by_src"}, {EntrySuppress, 0, "by_either"}, {EntryRateFilter, 1000, "by_rule"},
	}
	for i, w := range want {
		if e := entries[i]; e.Kind != w.kind || e.SID != w.sid || e.Track != w.track {
			t.Errorf("entry %d = %+v, want %+v", i, e, w)
		}
	}
	if entries[0].Line != 2 || entries[0].Type != "limit" || entries[0].Count != 1 || entries[0].Seconds != 60 {
		t.Errorf("first entry %+v", entries[0])
	}
	if e := entries[5]; e.NewAction != "drop" || e.Timeout != 10 {
		t.Errorf("rate_filter %+v", e)
	}
	if ip := entries[3].IP; ip == nil || len(ip.V4) != 1 {
		t.Errorf("suppress ip %+v", ip)
	}
	wantErrs := []string{"t.config:9: threshold: type", "t.config:10: suppress: track and ip", "t.config:11: rate_filter: new_action",
		"t.config:12: unknown entry", "t.config:13: threshold: sig_id", "t.config:14: threshold: missing seconds",
		"t.config:15: suppress: ip", "t.config:16: threshold: field \"sig_id\" given twice"}
	if len(errs) != len(wantErrs) {
		t.Fatalf("%d errors, want %d: %v", len(errs), len(wantErrs), errs)
	}
	for i, w := range wantErrs {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i], w)
		}
	}
}

func FuzzParseThresholdConfig(f *testing.F) {
	f.Add("threshold gen_id 1, sig_id 1, type limit, track by_src, count 1, seconds 60\n")
	f.Add("suppress gen_id 1, sig_id 2, track by_either, ip [1.2.3.4,!1.2.3.4/32]\n")
	f.Add("rate_filter gen_id 1, sig_id 1, track by_rule, count 1, seconds 1, new_action drop, timeout 1\n")
	f.Add(",,,\nsuppress\n\x00")
	f.Fuzz(func(t *testing.T, s string) {
		ParseThresholdConfig("fuzz", strings.NewReader(s), nil)
	})
}
