package rules

import (
	"os"
	"testing"
)

// BenchmarkLoadETOpen parses the whole ET Open 2024 set (every file of the corpus set) with
// one Loader, the way the engine loads its rule files. The files are read before timing.
func BenchmarkLoadETOpen(b *testing.B) {
	files := corpusFiles(b, "et-open-2024-04")
	data := make([][]byte, len(files))
	size := 0
	for i, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data[i] = d
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	loaded := 0
	for i := 0; i < b.N; i++ {
		l := NewLoader(nil)
		for j, d := range data {
			l.LoadBytes(files[j], d)
		}
		loaded = l.Stats().Loaded
	}
	b.ReportMetric(float64(loaded), "rules")
}

// BenchmarkParseRule parses one typical ET rule.
func BenchmarkParseRule(b *testing.B) {
	const text = `alert http $HOME_NET any -> $EXTERNAL_NET any (msg:"ET MALWARE Example CnC Checkin"; ` +
		`flow:established,to_server; http.method; content:"POST"; http.uri; content:"/gate.php"; fast_pattern; ` +
		`http.user_agent; content:"Mozilla/4.0"; startswith; http.header_names; content:!"Referer"; ` +
		`reference:url,example.com/a; classtype:trojan-activity; sid:2000001; rev:2; ` +
		`metadata:created_at 2024_01_01, updated_at 2024_01_02;)`
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}
