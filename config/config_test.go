package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// write creates the named files under a new temporary directory and returns the directory.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load parses body as a configuration file.
func load(t *testing.T, body string) *Config {
	t.Helper()
	dir := write(t, map[string]string{"suricata.yaml": body})
	c, err := Load(filepath.Join(dir, "suricata.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func settings(t *testing.T, c *Config) *Settings {
	t.Helper()
	s, err := c.Settings()
	if err != nil {
		t.Fatalf("Settings: %v", err)
	}
	return s
}

const header = "%YAML 1.1\n---\n"

func TestBoolYAML11(t *testing.T) {
	c := load(t, header+`
b:
  yes: yes
  no: no
  on: on
  off: off
  "true": true
  "false": false
  one: 1
  zero: 0
  upper: YES
  mixed: On
  caps: FALSE
  maybe: maybe
  quoted: "yes"
  empty:
  tilde: ~
  map: {a: 1}
`)
	tests := []struct {
		key  string
		def  bool
		want bool
	}{
		{"b.yes", false, true},
		{"b.no", true, false},
		{"b.on", false, true},
		{"b.off", true, false},
		{"b.true", false, true},
		{"b.false", true, false},
		{"b.one", false, true},
		{"b.zero", true, false},
		{"b.upper", false, true},
		{"b.mixed", false, true},
		{"b.caps", true, false},
		{"b.maybe", true, false}, // Suricata: anything not true is false
		{"b.quoted", false, true},
		{"b.empty", true, true}, // null: default
		{"b.tilde", true, true},
		{"b.map", true, true}, // not a value: default
		{"b.missing", true, true},
		{"b.missing", false, false},
	}
	for _, tt := range tests {
		if got := c.Bool(tt.key, tt.def); got != tt.want {
			t.Errorf("Bool(%q, %v) = %v, want %v", tt.key, tt.def, got, tt.want)
		}
	}
	for _, s := range []string{"no", "No", "OFF", "false", "0"} {
		if v, ok := ParseBool(s); !ok || v {
			t.Errorf("ParseBool(%q) = %v, %v", s, v, ok)
		}
	}
	if _, ok := ParseBool("2"); ok {
		t.Error("ParseBool(2) accepted")
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		err  bool
	}{
		{"4096", 4096, false},
		{"0", 0, false},
		{"1kb", 1024, false},
		{"1KB", 1024, false},
		{"10 kb", 10240, false},
		{"1mb", 1 << 20, false},
		{"2gb", 2 << 30, false},
		{"64 MiB", 64 << 20, false},
		{"64MiB", 64 << 20, false},
		{"1 KiB", 1024, false},
		{"1 GiB", 1 << 30, false},
		{"1.5 MiB", 1572864, false},
		{"10.5kb", 10752, false},
		{" 10gb ", 10 << 30, false},
		{"1.9", 1, false},
		{"", 0, true},
		{"abc", 0, true},
		{"-1", 0, true},
		{"1.", 0, true},
		{"1 b", 0, true},
		{"1 tb", 0, true},
		{"1 mbb", 0, true},
		{"1,5mb", 0, true},
		{"99999999999999999999", 0, true},
		{"17179869184 gb", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, err=%v", tt.in, got, err, tt.want, tt.err)
		}
	}

	c := load(t, header+"a: 64 MiB\nb: [1]\nc: 12 XB\n")
	if v, err := c.Size("a", 1); err != nil || v != 64<<20 {
		t.Errorf("Size(a) = %d, %v", v, err)
	}
	if v, err := c.Size("missing", 7); err != nil || v != 7 {
		t.Errorf("Size(missing) = %d, %v", v, err)
	}
	for _, k := range []string{"b", "c"} {
		if _, err := c.Size(k, 1); err == nil || !strings.Contains(err.Error(), k+": ") || !strings.Contains(err.Error(), ".yaml:") {
			t.Errorf("Size(%s) error = %v, want one naming the key and file", k, err)
		}
	}
}

func TestIntAndSeconds(t *testing.T) {
	c := load(t, header+"i: 42\nneg: -3\nbad: 0x10\nsecs: 30\nnegsecs: -1\n")
	if v, err := c.Int("i", 0); err != nil || v != 42 {
		t.Errorf("Int(i) = %d, %v", v, err)
	}
	if v, err := c.Int("neg", 0); err != nil || v != -3 {
		t.Errorf("Int(neg) = %d, %v", v, err)
	}
	if _, err := c.Int("bad", 0); err == nil {
		t.Error("Int(0x10) accepted: Suricata reads base 10")
	}
	if v, err := c.Int("none", 9); err != nil || v != 9 {
		t.Errorf("Int(none) = %d, %v", v, err)
	}
	if v, err := c.Seconds("secs", 0); err != nil || v != 30*time.Second {
		t.Errorf("Seconds(secs) = %v, %v", v, err)
	}
	if _, err := c.Seconds("negsecs", 0); err == nil {
		t.Error("Seconds(-1) accepted")
	}
}

func TestCaseAndUnderscores(t *testing.T) {
	c := load(t, header+`
vars:
  address-groups:
    HOME_NET: "[10.0.0.0/8]"
    Mixed_Case: "1.2.3.4"
  port-groups:
    HTTP_PORTS: "80"
Some_Key:
  Inner_Key: 1
`)
	if v, ok := c.String("vars.address-groups.HOME_NET"); !ok || v != "[10.0.0.0/8]" {
		t.Errorf("HOME_NET = %q, %v", v, ok)
	}
	if _, ok := c.String("vars.address-groups.home_net"); ok {
		t.Error("keys must be case-sensitive")
	}
	if _, ok := c.String("vars.address-groups.Mixed_Case"); !ok {
		t.Error("variable names keep their case and underscores")
	}
	if _, ok := c.String("vars.port-groups.HTTP_PORTS"); !ok {
		t.Error("port variable lost")
	}
	// Elsewhere Suricata turns underscores into dashes (its deprecated spelling).
	if _, ok := c.String("Some-Key.Inner-Key"); !ok {
		t.Errorf("underscores in keys should become dashes; dump: %v", c.Dump())
	}
	s := settings(t, c)
	if got, _ := s.Vars.Address("$HOME_NET"); got != "[10.0.0.0/8]" {
		t.Errorf("Vars HOME_NET = %q", got)
	}
}

const outputsYAML = header + `
outputs:
  - fast:
      enabled: yes
      filename: fast.log
  - eve-log:
      enabled: yes
      filename: eve.json
      types:
        - alert:
            payload: yes
        - drop:
            flows: all
        - flow
`

func TestSetListElement(t *testing.T) {
	c := load(t, outputsYAML)
	before := c.Dump()
	if err := c.Set("outputs.1.eve-log.enabled=no"); err != nil {
		t.Fatal(err)
	}
	after := c.Dump()
	if len(before) != len(after) {
		t.Fatalf("Set changed the shape of the tree:\n%v\n%v", before, after)
	}
	for i := range before {
		if before[i] != after[i] && before[i] != "outputs.1.eve-log.enabled = yes" {
			t.Errorf("line %d changed: %q -> %q", i, before[i], after[i])
		}
	}
	if !slices.Contains(after, "outputs.1.eve-log.enabled = no") {
		t.Errorf("value not set: %v", after)
	}
	s := settings(t, c)
	if s.Outputs.EVE.Enabled || s.Outputs.EVE.Filename != "eve.json" || len(s.Outputs.EVE.Types) != 3 {
		t.Errorf("eve-log = %+v", s.Outputs.EVE)
	}
	if !s.Outputs.Fast.Enabled {
		t.Error("fast output lost")
	}
	// A nested list element.
	if err := c.Set("outputs.1.eve-log.types.1.drop.flows=start"); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.String("outputs.1.eve-log.types.1.drop.flows"); v != "start" {
		t.Errorf("drop.flows = %q", v)
	}
	// Setting under a plain "- flow" entry is refused: it is a value.
	if err := c.Set("outputs.1.eve-log.types.2.flow.x=1"); err == nil {
		t.Error("descending into a value must fail")
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name    string
		kv      string
		key     string
		want    string
		wantErr string
	}{
		{"existing", "stream.midstream=true", "stream.midstream", "true", ""},
		{"spaces trimmed", " stream.midstream =  yes", "stream.midstream", "yes", ""},
		{"creates keys", "app-layer.protocols.tls.enabled=no", "app-layer.protocols.tls.enabled", "no", ""},
		{"creates top key", "default-rule-path=/tmp/rules", "default-rule-path", "/tmp/rules", ""},
		{"null becomes mapping", "empty.sub=1", "empty.sub", "1", ""},
		{"case kept", "vars.address-groups.HOME_NET=any", "vars.address-groups.HOME_NET", "any", ""},
		{"value with =", "x.y=a=b", "x.y", "a=b", ""},
		{"empty value", "x.z=", "x.z", "", ""},
		{"list index", "rule-files.1=b.rules", "rule-files.1", "b.rules", ""},
		{"index past end", "rule-files.2=c.rules", "", "", "cannot add list entries"},
		{"not an index", "rule-files.x=c.rules", "", "", "not an index"},
		{"no equals", "stream.midstream", "", "", "expected key=value"},
		{"empty key", "=1", "", "", "empty key"},
		{"empty part", "stream..x=1", "", "", "empty part"},
		{"into a value", "stream.midstream.x=1", "", "", "is a value"},
		{"replace mapping", "stream=1", "", "", "cannot replace a mapping"},
		{"replace list", "rule-files=x", "", "", "cannot replace a sequence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := load(t, header+"stream:\n  midstream: false\nrule-files:\n  - a.rules\n  - b.rules\nempty:\nvars:\n  address-groups:\n    HOME_NET: x\n")
			err := c.Set(tt.kv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Set(%q) error = %v, want %q", tt.kv, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Set(%q): %v", tt.kv, err)
			}
			n, ok := c.Get(tt.key)
			if !ok || n.Kind != ScalarNode || n.Value != tt.want || n.Null {
				t.Errorf("%s = %+v, want %q", tt.key, n, tt.want)
			}
		})
	}
}

func TestDump(t *testing.T) {
	c := load(t, header+`
vars:
  address-groups:
    HOME_NET: "[10.0.0.0/8]"
outputs:
  - fast:
      enabled: yes
rule-files:
  - a.rules
none:
`)
	want := []string{
		"vars = (null)",
		"vars.address-groups = (null)",
		"vars.address-groups.HOME_NET = [10.0.0.0/8]",
		"outputs = (null)",
		"outputs.0 = fast",
		"outputs.0.fast = (null)",
		"outputs.0.fast.enabled = yes",
		"rule-files = (null)",
		"rule-files.0 = a.rules",
		"none = (null)",
	}
	if got := c.Dump(); !reflect.DeepEqual(got, want) {
		t.Errorf("Dump:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDuplicateKeysReplace(t *testing.T) {
	c := load(t, header+`
stream:
  memcap: 1mb
  midstream: true
other: 1
stream:
  inline: yes
`)
	if _, ok := c.Get("stream.memcap"); ok {
		t.Error("a key defined again replaces the whole earlier value (Suricata prunes it)")
	}
	if v, _ := c.String("stream.inline"); v != "yes" {
		t.Errorf("stream.inline = %q", v)
	}
	// The replaced key keeps its first position.
	if d := c.Dump(); d[0] != "stream = (null)" {
		t.Errorf("order changed: %v", d)
	}
}

func TestDottedKeys(t *testing.T) {
	c := load(t, header+`
stream:
  memcap: 1mb
  midstream: false
stream.midstream: true
outputs:
  - fast:
      enabled: yes
outputs.0.fast.enabled: no
`)
	if v, _ := c.String("stream.memcap"); v != "1mb" {
		t.Errorf("a dotted key must not prune its parent; memcap = %q", v)
	}
	if !c.Bool("stream.midstream", false) {
		t.Error("stream.midstream not overridden")
	}
	if c.Bool("outputs.0.fast.enabled", true) {
		t.Error("outputs.0.fast.enabled not overridden")
	}
	if _, err := Parse("x.yaml", []byte("outputs: []\noutputs.3.fast: 1\n")); err == nil ||
		!strings.Contains(err.Error(), "cannot add list entries") {
		t.Errorf("dotted key past the end of a list: %v", err)
	}
}

func TestYAMLDirective(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr string
	}{
		{"1.1 header", "%YAML 1.1\n---\na: yes\n", ""},
		{"crlf", "%YAML 1.1\r\n---\r\na: yes\r\n", ""},
		{"no header", "a: yes\n", ""},
		{"document start only", "---\na: yes\n", ""},
		{"1.2", "%YAML 1.2\n---\na: yes\n", ":1: unsupported YAML directive"},
		{"bad line after header", "%YAML 1.1\n---\na: yes\nb: [\n", ".yaml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, map[string]string{"s.yaml": tt.body})
			c, err := Load(filepath.Join(dir, "s.yaml"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.Bool("a", false) {
				t.Error("a should be true")
			}
		})
	}
}

func TestMalformedYAML(t *testing.T) {
	body := header + strings.Repeat("# comment\n", 9) + "a:\n  b: c: d\n"
	dir := write(t, map[string]string{"bad.yaml": body})
	path := filepath.Join(dir, "bad.yaml")
	_, err := Load(path)
	if err == nil {
		t.Fatal("malformed YAML accepted")
	}
	want := "config: " + path + ":13: mapping values are not allowed"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %q, want prefix %q", err, want)
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.File != path || ce.Line != 13 {
		t.Errorf("Error = %+v", ce)
	}

	for name, body := range map[string]string{
		"first line":    "a: b: c\n",
		"tab":           "a:\n\tb: 1\n",
		"top list":      "- a\n- b\n",
		"top scalar":    "hello\n",
		"complex key":   "? [a]\n: 1\n",
		"unknown alias": "a: 1\nb: *nope\n",
	} {
		_, err := Parse("/x/"+name+".yaml", []byte(body))
		var ce *Error
		if err == nil || !errors.As(err, &ce) || ce.Line < 1 || !strings.HasPrefix(err.Error(), "config: /x/"+name+".yaml:") {
			t.Errorf("%s: error = %v, want file and line", name, err)
		}
	}
}

func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nope.yaml")
	_, err := Load(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("error = %v", err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("loading a directory: %v", err)
	}
	// A missing include names the including file and line.
	dir = write(t, map[string]string{"main.yaml": header + "a: 1\ninclude: missing.yaml\n"})
	_, err = Load(filepath.Join(dir, "main.yaml"))
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "main.yaml:4: include ") {
		t.Errorf("missing include: %v", err)
	}
}

func TestInclude(t *testing.T) {
	dir := write(t, map[string]string{
		"main.yaml": header + `
stream:
  memcap: 1mb
  midstream: true
include:
  - a.yaml
  - sub/b.yaml
flow:
  memcap: 2mb
vars:
  address-groups:
    include: groups.yaml
    EXTRA: "1.2.3.4"
outputs: !include outputs.yaml
detect: !include detect.yaml
`,
		"a.yaml": header + `
stream:
  inline: yes
flow:
  hash-size: 1
packet-alert-max: 10
`,
		// Relative includes resolve against the main file's directory, as in Suricata.
		"sub/b.yaml": header + "include: c.yaml\npacket-alert-max: 20\n",
		"c.yaml":     header + "runmode: single\n",
		"groups.yaml": header + `
HOME_NET: "[10.0.0.0/8]"
EXTERNAL_NET: "!$HOME_NET"
`,
		"outputs.yaml": header + "- fast:\n    enabled: yes\n- eve-log:\n    enabled: yes\n",
		"detect.yaml":  header + "profile: high\n",
	})
	c, err := Load(filepath.Join(dir, "main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The include replaced stream as a whole (Suricata semantics).
	if _, ok := c.Get("stream.memcap"); ok {
		t.Error("included stream should replace the earlier one")
	}
	if v, _ := c.String("stream.inline"); v != "yes" {
		t.Errorf("stream.inline = %q", v)
	}
	// flow after the include replaces the included one.
	if _, ok := c.Get("flow.hash-size"); ok {
		t.Error("flow defined after the include should replace it")
	}
	if v, _ := c.String("flow.memcap"); v != "2mb" {
		t.Errorf("flow.memcap = %q", v)
	}
	if v, _ := c.String("packet-alert-max"); v != "20" {
		t.Errorf("packet-alert-max = %q, want the later include's 20", v)
	}
	if v, _ := c.String("runmode"); v != "single" {
		t.Errorf("nested include: runmode = %q", v)
	}
	s := settings(t, c)
	if got, err := s.Vars.ResolveAddress("EXTERNAL_NET"); err != nil || got != "![10.0.0.0/8]" {
		t.Errorf("EXTERNAL_NET = %q, %v", got, err)
	}
	if _, ok := s.Vars.Address("EXTRA"); !ok {
		t.Error("key next to an include lost")
	}
	if !s.Outputs.Fast.Enabled || !s.Outputs.EVE.Enabled {
		t.Errorf("!include of a list: %+v", s.Outputs)
	}
	if s.Detect.Profile != "high" {
		t.Errorf("!include of a mapping: profile = %q", s.Detect.Profile)
	}
	if got := len(c.Files()); got != 7 {
		t.Errorf("Files = %v", c.Files())
	}

	// Config.Include (--include) goes after everything else.
	extra := filepath.Join(dir, "extra.yaml")
	if err := os.WriteFile(extra, []byte(header+"runmode: workers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Include("extra.yaml"); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.String("runmode"); v != "workers" {
		t.Errorf("after Include: runmode = %q", v)
	}
}

func TestIncludeLoop(t *testing.T) {
	dir := write(t, map[string]string{
		"self.yaml": header + "a: 1\ninclude: self.yaml\n",
		"a.yaml":    header + "include: b.yaml\n",
		"b.yaml":    header + "x: !include a.yaml\n",
	})
	for _, f := range []string{"self.yaml", "a.yaml"} {
		_, err := Load(filepath.Join(dir, f))
		if err == nil || !strings.Contains(err.Error(), "include loop") {
			t.Errorf("%s: error = %v, want an include loop", f, err)
		}
	}
	// A long chain without a loop stops at MaxIncludeDepth.
	files := map[string]string{}
	for i := 0; i <= MaxIncludeDepth+2; i++ {
		files[filepath.Join("d", string(rune('a'+i))+".yaml")] = header + "include: " + string(rune('a'+i+1)) + ".yaml\n"
	}
	dir = write(t, files)
	_, err := Load(filepath.Join(dir, "d", "a.yaml"))
	if err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep chain: %v", err)
	}
}

func TestIncludeErrors(t *testing.T) {
	dir := write(t, map[string]string{
		"map.yaml":       header + "include: {a: b}\n",
		"list.yaml":      header + "include: list-body.yaml\n",
		"list-body.yaml": header + "- a\n",
		"bad.yaml":       header + "include: broken.yaml\n",
		"broken.yaml":    header + "a: [\n",
	})
	for name, want := range map[string]string{
		"map.yaml":  "include: must be a file name",
		"list.yaml": "list-body.yaml:3: the top level must be a mapping",
		"bad.yaml":  "broken.yaml:",
	} {
		_, err := Load(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error = %v, want %q", name, err, want)
		}
	}
}

func TestAliases(t *testing.T) {
	c := load(t, header+"base: &b {memcap: 1mb}\nflow: *b\n")
	if v, _ := c.String("flow.memcap"); v != "1mb" {
		t.Errorf("alias not expanded: %q", v)
	}
	// Exponential alias expansion must fail, not exhaust memory.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		p := "*a" + string(rune('0'+i-1))
		if i > 10 {
			p = "*a10"
		}
		name := "a" + string(rune('0'+i))
		if i >= 10 {
			name = "a1" + string(rune('0'+i-10))
		}
		b.WriteString(name + ": &" + name + " [" + strings.Repeat(p+", ", 9) + p + "]\n")
	}
	if _, err := Parse("bomb.yaml", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("alias bomb: %v", err)
	}
}

func TestVars(t *testing.T) {
	v := Vars{
		AddressGroups: map[string]string{
			"HOME_NET":     "[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]",
			"EXTERNAL_NET": "!$HOME_NET",
			"HTTP_SERVERS": "$HOME_NET",
			"AIM_SERVERS":  "$EXTERNAL_NET",
			"LIST":         "1.1.1.1,2.2.2.2",
			"NOT_LIST":     "!$LIST",
			"MIXED":        "[$HTTP_SERVERS,!$LIST,3.3.3.3]",
			"CYCLE_A":      "[$CYCLE_B]",
			"CYCLE_B":      "!$CYCLE_A",
			"SELF":         "$SELF",
			"UNDEF":        "[$NOPE,1.2.3.4]",
			"EMPTY":        "",
			"DOLLAR":       "[$,1.2.3.4]",
		},
		PortGroups: map[string]string{
			"HTTP_PORTS":      "80",
			"FILE_DATA_PORTS": "[$HTTP_PORTS,110,143]",
			"HOME_NET":        "$HTTP_PORTS",
		},
	}
	tests := []struct {
		name, want, err string
		port            bool
	}{
		{name: "HOME_NET", want: "[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]"},
		{name: "EXTERNAL_NET", want: "![192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]"},
		{name: "$EXTERNAL_NET", want: "![192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]"},
		{name: "AIM_SERVERS", want: "![192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]"},
		{name: "LIST", want: "1.1.1.1,2.2.2.2"},
		{name: "NOT_LIST", want: "![1.1.1.1,2.2.2.2]"},
		{name: "MIXED", want: "[[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12],![1.1.1.1,2.2.2.2],3.3.3.3]"},
		{name: "CYCLE_A", err: "cycle: $CYCLE_A -> $CYCLE_B -> $CYCLE_A"},
		{name: "SELF", err: "cycle: $SELF -> $SELF"},
		{name: "UNDEF", err: "undefined address variable $NOPE"},
		{name: "MISSING", err: "undefined address variable $MISSING"},
		{name: "EMPTY", err: "has no value"},
		{name: "DOLLAR", err: "without a variable name"},
		{name: "FILE_DATA_PORTS", want: "[80,110,143]", port: true},
		{name: "HOME_NET", want: "80", port: true}, // ports and addresses are separate namespaces
		{name: "EXTERNAL_NET", err: "undefined port variable", port: true},
	}
	for _, tt := range tests {
		resolve := v.ResolveAddress
		if tt.port {
			resolve = v.ResolvePort
		}
		got, err := resolve(tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("resolve(%q) = %q, %v; want error %q", tt.name, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("resolve(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if got, err := v.ExpandAddress("[$HTTP_SERVERS,!10.0.0.1]"); err != nil ||
		got != "[[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12],!10.0.0.1]" {
		t.Errorf("ExpandAddress = %q, %v", got, err)
	}
	if got, err := v.ExpandPort("any"); err != nil || got != "any" {
		t.Errorf("ExpandPort(any) = %q, %v", got, err)
	}

	// Through Settings, bad variables are errors that name the key and place.
	c := load(t, header+`
vars:
  address-groups:
    HOME_NET: "[10.0.0.0/8]"
    A: "$B"
    B: "$A"
    C: "$NOPE"
`)
	_, err := c.Settings()
	if err == nil {
		t.Fatal("cycle and undefined variable accepted")
	}
	for _, want := range []string{"suricata.yaml:7: vars.address-groups.A: address variable cycle", "suricata.yaml:9: vars.address-groups.C: undefined address variable $NOPE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	s := settings(t, LoadDefault())
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("AddressDefaulted", s.Vars.AddressDefaulted, true)
	check("PortDefaulted", s.Vars.PortDefaulted, true)
	ext, err := s.Vars.ResolveAddress("EXTERNAL_NET")
	check("EXTERNAL_NET", ext, "![192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]")
	check("EXTERNAL_NET err", err, nil)
	check("DefaultRulePath", s.DefaultRulePath, "")
	check("RuleFiles", len(s.RuleFiles), 0)
	check("ClassificationFile", s.ClassificationFile, "/etc/suricata/classification.config")
	check("ReferenceConfigFile", s.ReferenceConfigFile, "/etc/suricata/reference.config")
	check("ThresholdFile", s.ThresholdFile, "/etc/suricata/threshold.config")
	check("DefaultLogDir", s.DefaultLogDir, "/var/log/suricata/")
	check("EVE present", s.Outputs.EVE.Present, false)
	check("Stats", s.Stats, Stats{Enabled: true, Interval: 8 * time.Second, DecoderEvents: true, DecoderEventsPrefix: "decoder.event"})
	check("PacketAlertMax", s.PacketAlertMax, 15)
	check("ActionOrder", s.ActionOrder, []string{"pass", "drop", "reject", "alert"})
	check("Runmode", s.Runmode, "")
	check("MaxPendingPackets", s.MaxPendingPackets, 1024)
	check("HostMode", s.HostMode, "auto")
	check("Flow", s.Flow, Flow{Memcap: 128 << 20, HashSize: 65536, Prealloc: 10000, EmergencyRecovery: 30, Managers: 1, Recyclers: 1})
	check("VLAN", s.VLANUseForTracking, true)
	// Without the key the reassembly depth is unlimited (StreamTcpReassemblyConfig).
	check("Stream", s.Stream, Stream{Memcap: 64 << 20, ChecksumValidation: true, Inline: "auto", DropInvalid: true, Enabled: true,
		Reassembly: Reassembly{Memcap: 256 << 20, Depth: 0, ToServerChunkSize: 2560, ToClientChunkSize: 2560,
			RandomizeChunkSize: true, RandomizeChunkRange: 10, Raw: true, SegmentPrealloc: 2048, MaxRegions: 8}})
	check("Defrag", s.Defrag, Defrag{Memcap: 32 << 20, HashSize: 65536, Trackers: 65535, MaxFrags: 65535, Prealloc: true, Timeout: 60 * time.Second})
	check("Detect", s.Detect, Detect{Profile: "medium", CustomToClientGroups: 20, CustomToServerGroups: 40,
		TCPPriorityPorts: DefaultTCPPriorityPorts, UDPPriorityPorts: DefaultUDPPriorityPorts, SGHMPMContext: "auto",
		SGHMPMCachingPath: "/var/lib/suricata/cache/sgh", SGHMPMCachingMaxAge: 7 * 24 * time.Hour, InspectionRecursionLimit: 3000, StreamTxLogLimit: 4,
		PrefilterDefault: "mpm", Thresholds: Thresholds{HashSize: 16384, Memcap: 16 << 20}})
	check("PCRE", s.PCRE, PCRE{MatchLimit: 3500, MatchLimitRecursion: 1500})
	check("Firewall.PacketFilter", s.Firewall.PacketFilter, []string{"drop:packet"})
	check("Firewall.AppPolicy", s.Firewall.AppPolicy("dns", "request-complete"), []string{"drop:flow"})
	check("Firewall.Enabled", s.Firewall.Enabled, false)
	check("EngineAnalysis", s.EngineAnalysis, EngineAnalysis{})
	check("Logging", s.Logging.DefaultLogLevel, "notice")
	check("FlowTimeouts.TCP", s.FlowTimeouts.TCP, timeouts(30, 300, 10, 100, 10, 100, 5, 50))
	check("FlowTimeouts.UDP", s.FlowTimeouts.UDP, timeouts(30, 300, 0, 100, 10, 100, 0, 50))
	check("Warnings", len(s.Warnings), 0)
	check("RulePath", s.RulePath("x.rules"), "x.rules")
}

func TestFlowTimeoutsFallback(t *testing.T) {
	c := load(t, header+`
flow-timeouts:
  default:
    new: 5
    closed: 7
  tcp:
    established: 100
  udp:
    closed: 99
    emergency-new: 3
  icmp:
    new: oops
`)
	s := settings(t, c)
	ft := s.FlowTimeouts
	if ft.Default.New != 5*time.Second || ft.Default.Closed != 7*time.Second || ft.Default.Established != 300*time.Second {
		t.Errorf("default = %+v", ft.Default)
	}
	// A key tcp lacks keeps tcp's own default; it does not come from the default section.
	if ft.TCP.Established != 100*time.Second || ft.TCP.New != 30*time.Second || ft.TCP.Closed != 10*time.Second {
		t.Errorf("tcp = %+v", ft.TCP)
	}
	// UDP has no closed state in Suricata: the key is ignored.
	if ft.UDP.Closed != 0 || ft.UDP.EmergencyNew != 3*time.Second {
		t.Errorf("udp = %+v", ft.UDP)
	}
	if ft.ICMP.New != 30*time.Second || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "flow-timeouts.icmp.new") {
		t.Errorf("icmp = %+v, warnings %v", ft.ICMP, s.Warnings)
	}
	// Other protocols use the default section.
	if got := ft.For(132); got != ft.Default {
		t.Errorf("For(sctp) = %+v", got)
	}
	if ft.For(6) != ft.TCP || ft.For(17) != ft.UDP || ft.For(58) != ft.ICMP {
		t.Error("For picks the wrong protocol")
	}
}

func TestSettingsValidation(t *testing.T) {
	tests := []struct {
		name, body, err, warn string
	}{
		{"bad memcap", "flow:\n  memcap: 12 XB\n", "suricata.yaml:4: flow.memcap: invalid size", ""},
		{"memcap list", "stream:\n  memcap: [1]\n", "stream.memcap: expected a size", ""},
		{"action-order unknown", "action-order: [pass, drop, reject, accept]\n", "action-order: invalid action \"accept\"", ""},
		{"action-order dup", "action-order: [pass, drop, drop, alert]\n", "listed twice", ""},
		{"action-order short", "action-order: [pass, drop, alert]\n", "must be listed", ""},
		{"profile", "detect:\n  profile: huge\n", "detect.profile: invalid value \"huge\"", ""},
		{"mpm ctx", "detect:\n  sgh-mpm-context: some\n", "detect.sgh-mpm-context", ""},
		{"runmode", "runmode: fast\n", "runmode: invalid value", ""},
		{"pending", "max-pending-packets: 65535\n", "max-pending-packets: 65535 is out of range", ""},
		{"chunk", "stream:\n  reassembly:\n    toserver-chunk-size: 1mb\n", "toserver-chunk-size", ""},
		{"eve filetype", "outputs:\n  - eve-log:\n      filetype: kafka\n", "outputs.0.eve-log.filetype", ""},
		{"stats both off", "outputs:\n  - eve-log:\n      types:\n        - stats:\n            totals: no\n            threads: no\n", "cannot both be disabled", ""},
		{"output scalar", "outputs:\n  - fast\n", "outputs.0: an output must be written", ""},
		{"var map", "vars:\n  address-groups:\n    HOME_NET: {a: 1}\n", "vars.address-groups.HOME_NET: a variable must be a value", ""},
		{"alert max high", "packet-alert-max: 300\n", "", "packet-alert-max: invalid value \"300\""},
		{"alert max zero", "packet-alert-max: 0\n", "", "packet-alert-max"},
		{"alert max text", "packet-alert-max: lots\n", "", "packet-alert-max"},
		{"host-mode", "host-mode: bridge\n", "", "host-mode"},
		{"drop flows", "outputs:\n  - eve-log:\n      types:\n        - drop:\n            flows: some\n", "", "flows: invalid value"},
		{"log level", "logging:\n  default-log-level: loud\n", "", "default-log-level"},
		{"emergency", "flow:\n  emergency-recovery: 200\n", "", "flow.emergency-recovery"},
		{"custom groups", "detect:\n  custom-values:\n    toserver-groups: 70000\n", "", "detect.custom-values.toserver-groups: invalid value \"70000\""},
		{"custom groups text", "detect:\n  custom-values:\n    toclient-groups: many\n", "", "toclient-groups"},
		{"cache max age", "detect:\n  sgh-mpm-caching-max-age: soon\n", "", "detect.sgh-mpm-caching-max-age: invalid duration \"soon\": using 168h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := load(t, header+tt.body)
			s, err := c.Settings()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tt.warn) {
				t.Errorf("warnings = %q, want %q", s.Warnings, tt.warn)
			}
			if strings.HasPrefix(tt.name, "alert max") && s.PacketAlertMax != 15 {
				t.Errorf("PacketAlertMax = %d, want the default 15", s.PacketAlertMax)
			}
		})
	}
}

func TestSettingsValues(t *testing.T) {
	c := load(t, header+`
default-rule-path: /etc/rules
rule-files: [a.rules, /abs/b.rules]
packet-alert-max: 20
action-order: [drop, pass, reject, alert]
runmode: Workers
stream:
  inline: yes
  midstream: true
  reassembly:
    depth: 0
flow:
  memcap: 1gb
outputs:
  - fast:
      enabled: no
  - eve-log:
      enabled: no
      filename: first.json
  - eve-log:
      enabled: yes
      filetype: file
      community-id: yes
      types:
        - alert:
            payload: yes
            tagged-packets: yes
            metadata:
              rule:
                raw: yes
              flow: no
        - anomaly:
            enabled: no
        - dns:
        - http
        - my-plugin:
            x: 1
        - drop:
            alerts: yes
            flows: ALL
        - stats:
            threads: yes
  - stats:
      enabled: yes
  - unknown-thing:
      enabled: yes
stats:
  enabled: off
  interval: 30
`)
	s := settings(t, c)
	if s.RulePath("a.rules") != "/etc/rules/a.rules" || s.RulePath("/abs/b.rules") != "/abs/b.rules" {
		t.Errorf("RulePath: %q %q", s.RulePath("a.rules"), s.RulePath("/abs/b.rules"))
	}
	if s.PacketAlertMax != 20 || !reflect.DeepEqual(s.ActionOrder, []string{"drop", "pass", "reject", "alert"}) || s.Runmode != "workers" {
		t.Errorf("alert max %d, order %v, runmode %q", s.PacketAlertMax, s.ActionOrder, s.Runmode)
	}
	if s.Stream.Inline != "yes" || !s.Stream.InlineFor(false) || !s.Stream.Midstream || s.Stream.Reassembly.Depth != 0 || s.Flow.Memcap != 1<<30 {
		t.Errorf("stream %+v flow %+v", s.Stream, s.Flow)
	}
	if s.Stats.Enabled || s.Stats.Interval != 30*time.Second {
		t.Errorf("stats = %+v", s.Stats)
	}
	o := s.Outputs
	if len(o.All) != 5 || o.All[4].Name != "unknown-thing" || !o.All[4].Enabled || o.Fast.Enabled || !o.Fast.Present {
		t.Errorf("outputs = %+v", o)
	}
	if len(o.EVELogs) != 2 || o.EVE.Filename != "eve.json" || !o.EVE.Enabled || o.EVE.Filetype != "regular" || !o.EVE.CommunityID {
		t.Errorf("eve = %+v", o.EVE)
	}
	var names []string
	for _, ty := range o.EVE.Types {
		names = append(names, ty.Name)
	}
	if !reflect.DeepEqual(names, []string{"alert", "anomaly", "dns", "http", "my-plugin", "drop", "stats"}) {
		t.Errorf("types = %v", names)
	}
	if o.EVE.Has("anomaly") || !o.EVE.Has("dns") || !o.EVE.Has("http") || !o.EVE.Has("my-plugin") || o.EVE.Has("flow") {
		t.Error("Has is wrong")
	}
	if ty, ok := o.EVE.Type("my-plugin"); !ok || ty.Options == nil || ty.Key != "outputs.2.eve-log.types.4.my-plugin" {
		t.Errorf("Type(my-plugin) = %+v", ty)
	}
	if ty, _ := o.EVE.Type("http"); ty.Options != nil || ty.Key != "outputs.2.eve-log.types.3" {
		t.Errorf("Type(http) = %+v", ty)
	}
	a := o.EVE.Alert
	want := AlertOptions{Enabled: true, Payload: true, PayloadBufferSize: 4096, TaggedPackets: true, Metadata: true,
		AppLayer: true, Flow: false, RuleMetadata: true, RuleRaw: true}
	if a != want {
		t.Errorf("alert = %+v\nwant    %+v", a, want)
	}
	if d := o.EVE.Drop; d != (DropOptions{Enabled: true, Alerts: true, Flows: "all"}) {
		t.Errorf("drop = %+v", d)
	}
	if st := o.EVE.Stats; st != (StatsOptions{Enabled: true, Totals: true, Threads: true, NullValues: true}) {
		t.Errorf("stats = %+v", st)
	}

	// metadata: no turns the metadata off.
	c = load(t, header+"outputs:\n  - eve-log:\n      enabled: yes\n      types:\n        - alert:\n            metadata: no\n")
	a = settings(t, c).Outputs.EVE.Alert
	if a.Metadata || a.AppLayer || a.Flow || a.RuleMetadata || !a.Enabled {
		t.Errorf("metadata: no -> %+v", a)
	}
	c = load(t, header+"outputs:\n  - eve-log:\n      enabled: yes\n      types:\n        - alert\n")
	a = settings(t, c).Outputs.EVE.Alert
	if !a.Metadata || !a.AppLayer || !a.Flow || !a.RuleMetadata || a.RuleRaw || !a.Enabled {
		t.Errorf("plain alert -> %+v", a)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"10", 10 * time.Second, true},
		{"0", 0, true},
		{"2H", 2 * time.Hour, true},
		{"1 day", 24 * time.Hour, true},
		{"1w", 7 * 24 * time.Hour, true},
		{"7d", 7 * 24 * time.Hour, true},
		{"1h 30m", 90 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{"1y", 31557600 * time.Second, true},
		{"2 months", 2 * 2629746 * time.Second, true},
		{"", 0, false},
		{"d", 0, false},
		{"10 parsecs", 0, false},
		{"-5s", 0, false},
		{"99999999999999999999s", 0, false},
		{"9999999999y", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestDetectGrouping(t *testing.T) {
	tests := []struct {
		name, body               string
		profile                  string
		toClient, toServer       int
		tcpPriority, udpPriority string
	}{
		{"defaults", "", "medium", 20, 40, DefaultTCPPriorityPorts, DefaultUDPPriorityPorts},
		{"legacy lowest", "detect:\n  profile: lowest\n", "low", 20, 40, DefaultTCPPriorityPorts, DefaultUDPPriorityPorts},
		{"legacy highest", "detect:\n  profile: highest\n", "high", 20, 40, DefaultTCPPriorityPorts, DefaultUDPPriorityPorts},
		{"custom", "detect:\n  profile: custom\n  custom-values:\n    toclient-groups: 3\n    toserver-groups: 0\n",
			"custom", 3, 0, DefaultTCPPriorityPorts, DefaultUDPPriorityPorts},
		{"priority ports", "detect:\n  grouping:\n    tcp-priority-ports: 80, 443\n    udp-priority-ports: 53\n",
			"medium", 20, 40, "80, 443", "53"},
		{"legacy whitelist", "detect:\n  grouping:\n    tcp-whitelist: 8080\n    udp-whitelist: 5060\n",
			"medium", 20, 40, "8080", "5060"},
		{"priority wins over whitelist", "detect:\n  grouping:\n    tcp-priority-ports: 22\n    tcp-whitelist: 8080\n",
			"medium", 20, 40, "22", DefaultUDPPriorityPorts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := settings(t, load(t, header+tt.body)).Detect
			if d.Profile != tt.profile || d.CustomToClientGroups != tt.toClient || d.CustomToServerGroups != tt.toServer ||
				d.TCPPriorityPorts != tt.tcpPriority || d.UDPPriorityPorts != tt.udpPriority {
				t.Errorf("got profile %q groups %d/%d priority %q / %q", d.Profile, d.CustomToClientGroups,
					d.CustomToServerGroups, d.TCPPriorityPorts, d.UDPPriorityPorts)
			}
		})
	}
}

func TestFirewallPolicies(t *testing.T) {
	flat := load(t, header+`
firewall:
  enabled: yes
  rule-path: /etc/fw
  rule-files: [fw.rules, /x/y.rules]
  policies:
    packet-filter: ["reject:packet"]
    packet-pre-flow: ["accept:hook"]
    dns:
      request_started: ["accept:hook"]
      request-complete: ["drop:flow", "alert"]
    http:
      request-line: "drop:flow"
`)
	s := settings(t, flat)
	f := s.Firewall
	if !f.Enabled || !f.EnabledSet || f.Layout != "flat" {
		t.Errorf("firewall = %+v", f)
	}
	if !reflect.DeepEqual(f.RuleFilePaths(), []string{"/etc/fw/fw.rules", "/x/y.rules"}) {
		t.Errorf("RuleFilePaths = %v", f.RuleFilePaths())
	}
	if !reflect.DeepEqual(f.PacketFilter, []string{"reject:packet"}) || !reflect.DeepEqual(f.PacketPreStream, []string{"accept:hook"}) {
		t.Errorf("packet policies = %v %v", f.PacketFilter, f.PacketPreStream)
	}
	if got := f.AppPolicy("dns", "request-started"); !reflect.DeepEqual(got, []string{"accept:hook"}) {
		t.Errorf("dns request-started = %v (underscores become dashes)", got)
	}
	if got := f.AppPolicy("dns", "request-complete"); !reflect.DeepEqual(got, []string{"drop:flow", "alert"}) {
		t.Errorf("dns request-complete = %v", got)
	}
	if got := f.AppPolicy("http", "request-line"); !reflect.DeepEqual(got, []string{"drop:flow"}) {
		t.Errorf("http request-line = %v", got)
	}
	if got := f.AppPolicy("tls", "client-hello"); !reflect.DeepEqual(got, []string{"drop:flow"}) {
		t.Errorf("default app policy = %v", got)
	}

	grouped := load(t, header+`
firewall:
  policies:
    packet:
      filter: [ "accept:hook" ]
    app:
      http1:
        request-started: ["accept:hook"]
        request-line:
          - "accept:tx"
          - "alert"
      tls:
        client-in-progress: [ "accept:flow" ]
`)
	f = settings(t, grouped).Firewall
	if f.Enabled || f.EnabledSet || f.Layout != "grouped" || !reflect.DeepEqual(f.PacketFilter, []string{"accept:hook"}) {
		t.Errorf("firewall = %+v", f)
	}
	if got := f.AppPolicy("http1", "request-line"); !reflect.DeepEqual(got, []string{"accept:tx", "alert"}) {
		t.Errorf("http1 request-line = %v", got)
	}
	if got := f.AppPolicy("tls", "client-in-progress"); !reflect.DeepEqual(got, []string{"accept:flow"}) {
		t.Errorf("tls = %v", got)
	}

	if _, err := load(t, header+"firewall:\n  policies:\n    packet:\n      inside: [x]\n").Settings(); err == nil ||
		!strings.Contains(err.Error(), "firewall.policies.packet.inside") {
		t.Errorf("unknown hook: %v", err)
	}
	if _, err := load(t, header+"firewall:\n  policies:\n    dns:\n      request-started: []\n").Settings(); err == nil ||
		!strings.Contains(err.Error(), "empty policy") {
		t.Errorf("empty policy: %v", err)
	}
}

// repoRoot is the repository root, where suricata.yaml and the .config files live.
const repoRoot = ".."

func TestRepoSuricataYAML(t *testing.T) {
	c, err := Load(filepath.Join(repoRoot, "suricata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := settings(t, c)
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %v", s.Warnings)
	}
	if s.Vars.AddressDefaulted || s.Vars.PortDefaulted || len(s.Vars.AddressGroups) != len(DefaultAddressGroups) ||
		!reflect.DeepEqual(s.Vars.PortGroups, DefaultPortGroups) || !reflect.DeepEqual(s.Vars.AddressGroups, DefaultAddressGroups) {
		t.Errorf("vars = %+v", s.Vars)
	}
	if s.DefaultRulePath != "rules" || !reflect.DeepEqual(s.RuleFiles, []string{"meerkat.rules"}) ||
		s.RulePath("meerkat.rules") != filepath.Join("rules", "meerkat.rules") {
		t.Errorf("rules: %q %v", s.DefaultRulePath, s.RuleFiles)
	}
	if s.ClassificationFile != "classification.config" || s.ReferenceConfigFile != "reference.config" ||
		s.DefaultLogDir != "logs/" || s.ThresholdFile != DefaultThresholdFile {
		t.Errorf("files: %q %q %q %q", s.ClassificationFile, s.ReferenceConfigFile, s.DefaultLogDir, s.ThresholdFile)
	}
	o := s.Outputs
	if !o.Fast.Enabled || o.Fast.Filename != "fast.log" || !o.Fast.Append {
		t.Errorf("fast = %+v", o.Fast)
	}
	e := o.EVE
	if !e.Enabled || e.Filename != "eve.json" || e.Filetype != "regular" || !e.Alert.Enabled || !e.Alert.Metadata ||
		!e.Alert.TaggedPackets || !e.Drop.Enabled || !e.Drop.Alerts || e.Drop.Flows != "start" || !e.Has("flow") ||
		e.Stats != (StatsOptions{Enabled: true, Totals: true, NullValues: true}) {
		t.Errorf("eve = %+v", e)
	}
	if !s.Stats.Enabled || s.Stats.Interval != 8*time.Second {
		t.Errorf("stats = %+v", s.Stats)
	}
	if s.PacketAlertMax != 15 || !reflect.DeepEqual(s.ActionOrder, DefaultActionOrder) || s.Runmode != "" {
		t.Errorf("detect basics: %d %v %q", s.PacketAlertMax, s.ActionOrder, s.Runmode)
	}
	if s.Flow.Memcap != 128<<20 || s.Stream.Memcap != 64<<20 || s.Stream.Reassembly.Memcap != 256<<20 ||
		s.Stream.Reassembly.Depth != 1<<20 || s.Defrag.Memcap != 32<<20 || s.Defrag.Timeout != 60*time.Second {
		t.Errorf("memcaps: flow %+v stream %+v defrag %+v", s.Flow, s.Stream, s.Defrag)
	}
	if s.FlowTimeouts.TCP != timeouts(60, 600, 60, 100, 5, 100, 10, 50) ||
		s.FlowTimeouts.Default != timeouts(30, 300, 0, 100, 10, 100, 0, 50) ||
		s.FlowTimeouts.UDP != timeouts(30, 300, 0, 100, 10, 100, 0, 50) {
		t.Errorf("flow timeouts = %+v", s.FlowTimeouts)
	}
	if s.Detect.Profile != "medium" || s.PCRE.MatchLimit != 3500 || !s.EngineAnalysis.Rules || !s.EngineAnalysis.RulesFastPattern {
		t.Errorf("detect = %+v pcre %+v", s.Detect, s.PCRE)
	}
	// enabled is commented out, as in Suricata's suricata.yaml, so --firewall can turn it on.
	if s.Firewall.Enabled || s.Firewall.EnabledSet || !reflect.DeepEqual(s.Firewall.PacketFilter, []string{"drop:packet"}) ||
		s.Firewall.RulePath != "rules" || !reflect.DeepEqual(s.Firewall.RuleFiles, []string{"firewall.rules"}) {
		t.Errorf("firewall = %+v", s.Firewall)
	}
	if len(s.AFPacket) != 1 || s.NFQ != nil {
		t.Errorf("af-packet %v nfq %v", s.AFPacket, s.NFQ)
	}
	// --set on the repository file, as the suricata-verify runner does.
	for _, kv := range []string{"classification-file=/x/classification.config", "outputs.1.eve-log.enabled=no", "stream.inline=true"} {
		if err := c.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	s = settings(t, c)
	if s.ClassificationFile != "/x/classification.config" || s.Outputs.EVE.Enabled || !s.Outputs.Fast.Enabled || s.Stream.Inline != "yes" {
		t.Errorf("after --set: %q %+v", s.ClassificationFile, s.Outputs)
	}
}

// sharedDir returns the shared reference directory, or skips the test.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MEERKAT_SHARED")
	if dir == "" {
		dir = filepath.Join(repoRoot, "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "conformance", "tests")); err != nil {
		t.Skipf("shared reference material not found at %s (set MEERKAT_SHARED): %v", dir, err)
	}
	return dir
}

func TestConformanceConfigs(t *testing.T) {
	dir := sharedDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "conformance", "tests", "*", "suricata.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance configs: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			c, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Settings()
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Outputs.EVELogs) == 0 || !s.Outputs.EVE.Enabled || !s.Outputs.EVE.Has("alert") && !s.Outputs.EVE.Has("stats") {
				t.Errorf("eve-log = %+v", s.Outputs.EVE)
			}
			if _, err := s.Vars.ResolveAddress("EXTERNAL_NET"); err != nil {
				t.Error(err)
			}
			if len(c.Dump()) == 0 {
				t.Error("empty dump")
			}
		})
	}
	// Spot checks.
	c, err := Load(filepath.Join(dir, "conformance", "tests", "alert-max-20", "suricata.yaml"))
	if err == nil {
		if s := settings(t, c); s.PacketAlertMax != 20 {
			t.Errorf("alert-max-20: PacketAlertMax = %d", s.PacketAlertMax)
		}
	}
	c, err = Load(filepath.Join(dir, "conformance", "tests", "util-action-02", "suricata.yaml"))
	if err == nil {
		if s := settings(t, c); !reflect.DeepEqual(s.ActionOrder, []string{"drop", "pass", "reject", "alert"}) {
			t.Errorf("util-action-02: ActionOrder = %v", s.ActionOrder)
		}
	}
	c, err = Load(filepath.Join(dir, "conformance", "tests", "ruletype-firewall-107-default-app-policy-missed-rule-accept-tx-alert", "suricata.yaml"))
	if err == nil {
		s := settings(t, c)
		if got := s.Firewall.AppPolicy("http1", "request-line"); !reflect.DeepEqual(got, []string{"accept:tx", "alert"}) {
			t.Errorf("firewall-107: %v", got)
		}
	}
}

func TestLargeMapping(t *testing.T) {
	// Loading must stay linear in the number of keys (a linear key lookup would be quadratic).
	var b strings.Builder
	const n = 100000
	for i := 0; i < n; i++ {
		b.WriteString("k" + strconv.Itoa(i) + ": " + strconv.Itoa(i) + "\n")
	}
	b.WriteString("k5: again\n")
	start := time.Now()
	c, err := Parse("big.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.String("k99999"); v != "99999" {
		t.Errorf("k99999 = %q", v)
	}
	if v, _ := c.String("k5"); v != "again" {
		t.Errorf("k5 = %q", v)
	}
	if err := c.Set("k77=x"); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("new-key=y"); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.String("k77"); v != "x" {
		t.Errorf("k77 = %q", v)
	}
	if v, _ := c.String("new-key"); v != "y" {
		t.Errorf("new-key = %q", v)
	}
	if d := len(c.Dump()); d != n+1 {
		t.Errorf("%d dump lines", d)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %v", el)
	}
	if cl := c.Root().Clone(); cl.Child("k99999") == nil || cl.Child("new-key") == nil {
		t.Error("Clone lost its index")
	}
}

// TestPcapFileChecksumChecks reads pcap-file.checksum-checks as Suricata does: auto, a true
// word or a false word; anything else leaves Suricata's zeroed mode, which disables checks.
func TestPcapFileChecksumChecks(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"", "auto"},
		{"pcap-file:\n  checksum-checks: auto\n", "auto"},
		{"pcap-file:\n  checksum-checks: yes\n", "yes"},
		{"pcap-file:\n  checksum-checks: \"on\"\n", "yes"},
		{"pcap-file:\n  checksum-checks: no\n", "no"},
		{"pcap-file:\n  checksum-checks: AUTO\n", "no"},
		{"pcap-file:\n  checksum-checks: maybe\n", "no"},
	} {
		s := settings(t, load(t, "%YAML 1.1\n---\n"+c.yaml))
		if s.PcapFileChecksumChecks != c.want {
			t.Errorf("%q: %q, want %q", c.yaml, s.PcapFileChecksumChecks, c.want)
		}
	}
}

// TestAppLayerEnabled collects the enabled keys under app-layer.protocols, per protocol and
// per IP protocol, as written.
func TestAppLayerEnabled(t *testing.T) {
	s := settings(t, load(t, `%YAML 1.1
---
app-layer:
  protocols:
    dnp3:
      enabled: yes
      detection-ports:
        dp: 20000
    dns:
      tcp:
        enabled: no
      udp:
        enabled: detection-only
    smb:
      enabled:
`))
	want := map[string]string{"dnp3.enabled": "yes", "dns.tcp.enabled": "no", "dns.udp.enabled": "detection-only", "smb.enabled": ""}
	if !reflect.DeepEqual(s.AppLayerEnabled, want) {
		t.Errorf("AppLayerEnabled %v, want %v", s.AppLayerEnabled, want)
	}
}
