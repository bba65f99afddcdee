package http

import (
	"math/rand/v2"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/flow"
)

func httpNode(t *testing.T, yaml string) *config.Node {
	t.Helper()
	c, err := config.Parse("test.yaml", []byte("%YAML 1.1\n---\n"+yaml))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := c.Get("app-layer.protocols.http")
	return n
}

// Built-in defaults when a key is absent (HTPConfigSetDefaultsPhase1, §5.1).
func TestConfigDefaults(t *testing.T) {
	Rand = rand.New(rand.NewPCG(1, 2))
	st, err := configure(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := st.Default
	if c.Personality != "Minimal" || c.RequestBodyLimit != 4096 || c.ResponseBodyLimit != 4096 || c.MetaFieldLimit != 18000 ||
		c.MaxTx != 512 || c.HeadersLimit != 1024 || c.LayerLimit != 2 || c.BombLimit != 1<<20 || c.LzmaLayers != 0 || !c.Randomize || c.RandomizeRange != 10 {
		t.Fatalf("%+v", c)
	}
	// randomised by at most ±5% (range 10 → (r-0.5)*10/100)
	for _, v := range []struct{ got, base uint64 }{{c.RequestMinInspect, 32768}, {c.RequestInspectWindow, 4096}, {c.ResponseMinInspect, 32768}, {c.ResponseInspectWindow, 4096}} {
		if v.got < v.base*95/100 || v.got > v.base*105/100 {
			t.Errorf("randomised %d from %d", v.got, v.base)
		}
	}
}

// The shipped suricata.yaml values and a server-config entry inheriting the defaults.
func TestConfigParse(t *testing.T) {
	n := httpNode(t, `
app-layer:
  protocols:
    http:
      enabled: yes
      libhtp:
        default-config:
          personality: IDS
          request-body-limit: 100kb
          response-body-limit: 100kb
          request-body-minimal-inspect-size: 32kb
          request-body-inspect-window: 4kb
          response-body-minimal-inspect-size: 40kb
          response-body-inspect-window: 16kb
          response-body-decompress-layer-limit: 2
          http-body-inline: auto
          randomize-inspection-sizes: no
          double-decode-path: no
          double-decode-query: no
          path-url-encoding-invalid-handling: remove_percent
        server-config:
          - apache:
              address: [192.168.1.0/24, 127.0.0.0/8, "::1"]
              personality: Apache_2
              request-body-limit: 4096
          - iis7:
              address:
                - 10.0.0.0/8
              personality: IIS_7_0
              response-body-limit: 0
`)
	st, err := configure(n)
	if err != nil {
		t.Fatal(err)
	}
	d := st.Default
	if d.Personality != "IDS" || d.RequestBodyLimit != 100*1024 || d.ResponseMinInspect != 40*1024 || d.ResponseInspectWindow != 16*1024 || d.URI.InvalidHandling != "remove_percent" {
		t.Fatalf("default %+v", d)
	}
	a := st.For(netip.MustParseAddr("192.168.1.7"))
	if a.Name != "apache" || a.Personality != "Apache_2" || a.RequestBodyLimit != 4096 || a.ResponseBodyLimit != 100*1024 || a.URI.InvalidHandling != "remove_percent" {
		t.Fatalf("apache %+v", a)
	}
	if st.For(netip.MustParseAddr("::1")).Name != "apache" || st.For(netip.MustParseAddr("10.1.2.3")).ResponseBodyLimit != 0 {
		t.Fatal("server lookup")
	}
	if st.For(netip.MustParseAddr("8.8.8.8")) != st.Default {
		t.Fatal("default lookup")
	}
	// the pool picks the config by the flow's server
	p := NewPool(st)
	s := p.NewState(applayer.FlowInfo{F: &flow.Flow{DstIP: netip.MustParseAddr("127.0.0.1")}})
	if s.cfg.Name != "apache" {
		t.Fatal("state config")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct{ kv, key string }{
		{"personality: Foo", "personality"},
		{"request-body-limit: lots", "request-body-limit"},
		{"path-url-encoding-invalid-handling: wat", "path-url-encoding-invalid-handling"},
		{"max-tx: -1", "max-tx"},
		{"http-body-inline: sometimes", "http-body-inline"},
		{"randomize-inspection-range: 200", "randomize-inspection-range"},
		{"meta-field-limit: x", "meta-field-limit"},
	} {
		n := httpNode(t, "app-layer:\n  protocols:\n    http:\n      libhtp:\n        default-config:\n          "+c.kv+"\n")
		_, err := Configure(n)
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: %v", c.kv, err)
		}
	}
}

// The registration: events are the rules package's http1 list in the same order (one
// source of truth here, checked against the rule parser's), patterns of §3.2.
func TestRegistration(t *testing.T) {
	p := applayer.ParserOf(applayer.ProtoHTTP1)
	if p == nil || p.Complete != [2]uint8{5, 5} || len(p.ProgressNames[0]) != 6 || p.ProgressNames[1][5] != "response_complete" {
		t.Fatal("parser record")
	}
	for i, n := range EventNames {
		id, ok := applayer.EventByName(applayer.ProtoHTTP1, strings.ToUpper(n))
		if !ok || int(id) != i {
			t.Errorf("event %s", n)
		}
	}
	src, err := os.ReadFile("../../rules/events_applayer.go")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)"http1": \{(.*?)\}`).FindSubmatch(src)
	names := regexp.MustCompile(`"([a-z0-9_]+)"`).FindAllSubmatch(block[1], -1)
	if len(names) != len(EventNames) {
		t.Fatalf("rules lists %d http1 events, the parser %d", len(names), len(EventNames))
	}
	for i, m := range names {
		if string(m[1]) != EventNames[i] {
			t.Errorf("event %d: rules %s parser %s", i, m[1], EventNames[i])
		}
	}
	match := func(dir int, data string) bool {
		for _, pt := range p.Patterns[dir] {
			if len(data) >= len(pt.Bytes) && strings.EqualFold(data[:len(pt.Bytes)], string(pt.Bytes)) {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		dir  int
		data string
		want bool
	}{{0, "GET / HTTP/1.1", true}, {0, "get /", true}, {0, "PROPFIND\t/", true}, {0, "GETX /", false}, {0, "FOO /", false},
		{1, "HTTP/1.1 200", true}, {1, "http/1.0 200", true}, {1, "HTTP/2 200", false}} {
		if match(c.dir, c.data) != c.want {
			t.Errorf("pattern %d %q", c.dir, c.data)
		}
	}
}
