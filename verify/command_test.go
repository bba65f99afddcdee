package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mkTest creates a test folder name under root with the given files
// (name → content) and returns it.
func mkTest(t *testing.T, root, name string, files map[string]string) Test {
	t.Helper()
	dir := filepath.Join(root, name)
	for f, content := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Test{Name: name, Base: name, Dir: dir}
}

var testEngineConfig = &EngineConfig{
	Engine:          "/opt/meerkat",
	SrcDir:          "/repo",
	DefaultConfig:   "/repo/suricata.yaml",
	Classification:  "/repo/classification.config",
	ReferenceConfig: "/repo/reference.config",
	Version:         Version{Parts: []int{8, 0, 6}},
}

// argvFor loads the test and builds its default command line.
func argvFor(t *testing.T, tc Test) []string {
	t.Helper()
	spec, err := LoadSpec(tc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	pcap, sr, err := PcapFor(tc, spec)
	if err != nil || sr != nil {
		t.Fatalf("PcapFor: %v %v", sr, err)
	}
	inv, err := BuildInvocation(tc, spec, testEngineConfig, "/out/"+tc.Name, pcap)
	if err != nil {
		t.Fatalf("BuildInvocation: %v", err)
	}
	return inv.Argv
}

// fixed is the part every default command line has after the args.
func fixed(out string) []string {
	return []string{"--set", "classification-file=/repo/classification.config",
		"--set", "reference-config-file=/repo/reference.config",
		"--init-errors-fatal", "-l", out}
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestCommandLine(t *testing.T) {
	root := t.TempDir()
	type tcase struct {
		name  string
		files map[string]string
		want  func(dir string) []string
	}
	cases := []tcase{
		{"plain-rules", map[string]string{"test.yaml": "args:\n- -k none\n- --set stream.midstream=true\n", "test.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat", "-k", "none", "--set", "stream.midstream=true"}, fixed("/out/plain-rules"),
					[]string{"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "-S", d + "/test.rules"})
			}},
		{"no-rules", map[string]string{"test.yaml": "checks: []\n", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/no-rules"),
					[]string{"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "--disable-detection"})
			}},
		{"fw-only", map[string]string{"test.yaml": "args:\n  - --simulate-ips\n  - -k none\n", "firewall.rules": "", "input.pcap": "", "suricata.yaml": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat", "--simulate-ips", "-k", "none"}, fixed("/out/fw-only"),
					[]string{"-c", d + "/suricata.yaml", "-r", d + "/input.pcap", "--firewall-rules-exclusive", d + "/firewall.rules"})
			}},
		{"fw-td", map[string]string{"test.yaml": "", "firewall.rules": "", "td.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/fw-td"),
					[]string{"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap",
						"--firewall-rules-exclusive", d + "/firewall.rules", "-S", d + "/td.rules"})
			}},
		{"bug-6269-02-ips", map[string]string{"test.yaml": "", "test.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/bug-6269-02-ips"), []string{"--simulate-ips",
					"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "-S", d + "/test.rules"})
			}},
		{"iponly-flow", map[string]string{"test.yaml": "", "test.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/iponly-flow"), []string{
					"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "-S", d + "/test.rules"})
			}},
		{"rules-key", map[string]string{"test.yaml": "rules: ../shared-rules/x.rules\n", "a.rules": "", "b.rules": "", "c.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/rules-key"), []string{
					"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "-S", filepath.Join(filepath.Dir(d), "shared-rules/x.rules")})
			}},
		{"rules-key-empty", map[string]string{"test.yaml": "rules:\n", "test.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/rules-key-empty"), []string{
					"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "--disable-detection"})
			}},
		{"pcap-elsewhere", map[string]string{"test.yaml": "pcap: ../other-test/input.pcap\n", "test.rules": "", "local.pcap": "",
			"../other-test/input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/pcap-elsewhere"), []string{
					"-c", "/repo/suricata.yaml", "-r", filepath.Join(filepath.Dir(d), "other-test/input.pcap"), "-S", d + "/test.rules"})
			}},
		{"args-vars", map[string]string{"test.yaml": "args:\n- --set threshold-file=${TEST_DIR}/threshold.config\n- --set x=${OUTPUT_DIR}/y --set s=${SRCDIR} ${UNKNOWN}\n",
			"test.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat", "--set", "threshold-file=" + d + "/threshold.config",
					"--set", "x=/out/args-vars/y", "--set", "s=/repo", "${UNKNOWN}"}, fixed("/out/args-vars"), []string{
					"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "-S", d + "/test.rules"})
			}},
		{"min-rules-old", map[string]string{"test.yaml": "", "min8.0.0.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/min-rules-old"), []string{
					"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "-S", d + "/min8.0.0.rules"})
			}},
		{"min-rules-new", map[string]string{"test.yaml": "", "min9.0.0.rules": "", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/min-rules-new"), []string{
					"-c", "/repo/suricata.yaml", "-r", d + "/input.pcap", "--disable-detection"})
			}},
		{"no-pcap", map[string]string{"test.yaml": "requires:\n  pcap: false\nargs:\n- -T\n", "test.rules": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat", "-T"}, fixed("/out/no-pcap"), []string{
					"-c", "/repo/suricata.yaml", "-S", d + "/test.rules"})
			}},
		{"pcap-false", map[string]string{"test.yaml": "pcap: false\n", "input.pcap": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/pcap-false"), []string{
					"-c", "/repo/suricata.yaml", "--disable-detection"})
			}},
		{"pcapng", map[string]string{"test.yaml": "", "x.pcapng": ""},
			func(d string) []string {
				return cat([]string{"/opt/meerkat"}, fixed("/out/pcapng"), []string{
					"-c", "/repo/suricata.yaml", "-r", d + "/x.pcapng", "--disable-detection"})
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			test := mkTest(t, root, tc.name, tc.files)
			got := argvFor(t, test)
			want := tc.want(test.Dir)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("argv mismatch\n got: %q\nwant: %q", got, want)
			}
		})
	}
}

func TestCommandLineErrors(t *testing.T) {
	root := t.TempDir()
	tc := mkTest(t, root, "three-rules", map[string]string{"test.yaml": "", "a.rules": "", "b.rules": "", "c.rules": "", "i.pcap": ""})
	spec, _ := LoadSpec(tc.Dir)
	if _, err := BuildInvocation(tc, spec, testEngineConfig, "/out", ""); err == nil {
		t.Error("three rule files: want error")
	}
	tc = mkTest(t, root, "two-rules", map[string]string{"test.yaml": "", "a.rules": "", "td.rules": ""})
	spec, _ = LoadSpec(tc.Dir)
	if _, err := BuildInvocation(tc, spec, testEngineConfig, "/out", ""); err == nil {
		t.Error("two rule files that are not firewall+td: want error")
	}
	tc = mkTest(t, root, "two-pcaps", map[string]string{"test.yaml": "", "a.pcap": "", "b.pcap": ""})
	spec, _ = LoadSpec(tc.Dir)
	if _, _, err := PcapFor(tc, spec); err == nil {
		t.Error("two pcaps: want error")
	}
	tc = mkTest(t, root, "no-pcap-at-all", map[string]string{"test.yaml": ""})
	spec, _ = LoadSpec(tc.Dir)
	if _, sr, err := PcapFor(tc, spec); err != nil || sr == nil {
		t.Errorf("no pcap: want skip, got %v %v", sr, err)
	}
	tc = mkTest(t, root, "pcap-missing", map[string]string{"test.yaml": "pcap: ../nowhere/x.pcap\n"})
	spec, _ = LoadSpec(tc.Dir)
	if _, _, err := PcapFor(tc, spec); err == nil {
		t.Error("pcap: pointing at a missing file: want error")
	}
}

func TestCommandKey(t *testing.T) {
	root := t.TempDir()
	tc := mkTest(t, root, "cmd", map[string]string{"test.yaml": "command: ${SRCDIR}/src/suricata -T -c ${TEST_DIR}/suricata.yaml -l ${OUTPUT_DIR}\n"})
	spec, _ := LoadSpec(tc.Dir)
	inv, err := BuildInvocation(tc, spec, testEngineConfig, "/out/cmd", "")
	if err != nil {
		t.Fatal(err)
	}
	want := "/opt/meerkat -T -c " + tc.Dir + "/suricata.yaml -l /out/cmd"
	if inv.Shell != want || inv.Argv != nil {
		t.Errorf("command:\n got %q\nwant %q", inv.Shell, want)
	}

	rw := []struct{ in, want string }{
		{"suricata --build-info", "'/x y/meerkat' --build-info"},
		{"${SRCDIR}/src/suricata -V", "'/x y/meerkat' -V"},
		{"$SRCDIR/src/suricata -V", "'/x y/meerkat' -V"},
		{"./src/suricata -V", "'/x y/meerkat' -V"},
		{"src/suricata -V", "'/x y/meerkat' -V"},
		{"cd x && suricata -T; suricata -V", "cd x && '/x y/meerkat' -T; '/x y/meerkat' -V"},
		{"suricata;suricata", "'/x y/meerkat';'/x y/meerkat'"},
		{"echo $(suricata -V)", "echo $('/x y/meerkat' -V)"},
		{"cat suricata.yaml | grep suricata", "cat suricata.yaml | grep suricata"},
		{"suricata -c ${TEST_DIR}/suricata.yaml", "'/x y/meerkat' -c ${TEST_DIR}/suricata.yaml"},
		{"valgrind ${SRCDIR}/src/suricata", "valgrind '/x y/meerkat'"},
		{"suricata", "'/x y/meerkat'"},
	}
	for _, r := range rw {
		if got := RewriteCommand(r.in, "/x y/meerkat"); got != r.want {
			t.Errorf("RewriteCommand(%q) = %q, want %q", r.in, got, r.want)
		}
	}
}

func TestVersionAndRequires(t *testing.T) {
	v := func(s string) Version {
		x, err := ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	if v("8").Compare(v("8.0.0")) != 0 || v("8.0.6").Compare(v("8.0.7")) >= 0 || v("9").Compare(v("8.0.6")) <= 0 {
		t.Error("Compare")
	}
	if !v("7.0.6").MatchesPrefix(v("7")) || !v("7.0.6").MatchesPrefix(v("7.0")) || v("7.1.0").MatchesPrefix(v("7.0")) {
		t.Error("MatchesPrefix")
	}
	if v("8.0.0-dev").String() != "8.0.0" {
		t.Error("suffix")
	}
	if _, err := ParseVersion("x"); err == nil {
		t.Error("bad version accepted")
	}
	p := NewPlatform(v("8.0.6"), []string{"HAVE_FOO"}, "/")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "present"), nil, 0o644)
	os.Setenv("MEERKAT_VERIFY_TEST_ENV", "1")
	cases := []struct {
		yaml string
		run  bool
	}{
		{"min-version: 8", true},
		{"min-version: 8.0.6", true},
		{"min-version: 8.0.7", false},
		{"min-version: 99", false},
		{"lt-version: 9", true},
		{"lt-version: 8.0.6", false},
		{"gt-version: 6.0.11", true},
		{"gt-version: 8.0.6", false},
		{"version: 8", true},
		{"version: 8.0", true},
		{"version: 7", false},
		{"features: [HAVE_FOO]", true},
		{"features: [have_foo]", true},
		{"features: [HAVE_LUA]", false},
		{"env: [MEERKAT_VERIFY_TEST_ENV]", true},
		{"env: [MEERKAT_VERIFY_UNSET_VAR]", false},
		{"files: [present]", true},
		{"files: [absent]", false},
		{"script: [\"true\"]", true},
		{"script: [\"exit 1\"]", false},
		{"lambda: \"True\"", false},
		{"os: " + p.GOOS, true},
		{"os: plan9x", false},
		{"arch: [" + p.GOARCH + "]", true},
		{"arch: [m68k]", false},
		{"pcap: false", true},
	}
	for _, c := range cases {
		spec, err := ParseSpec([]byte("requires:\n  " + c.yaml + "\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.yaml, err)
		}
		sr, err := p.EvalRequires(t.Context(), spec.Requires, dir, os.Environ())
		if err != nil {
			t.Errorf("%s: %v", c.yaml, err)
			continue
		}
		if (sr == nil) != c.run {
			t.Errorf("%s: run=%v, want %v (%v)", c.yaml, sr == nil, c.run, sr)
		}
	}
	spec, _ := ParseSpec([]byte("requires:\n  lambda: x\n"))
	sr, _ := p.EvalRequires(t.Context(), spec.Requires, dir, nil)
	if sr == nil || !strings.Contains(sr.Reason, "python lambdas cannot be evaluated") {
		t.Errorf("lambda reason: %v", sr)
	}
	spec, _ = ParseSpec([]byte("requires:\n  frobnicate: 1\n"))
	if _, err := p.EvalRequires(t.Context(), spec.Requires, dir, nil); err == nil {
		t.Error("unknown requires key: want error")
	}
}

func TestSkipKey(t *testing.T) {
	p := NewPlatform(Version{Parts: []int{8, 0, 6}}, []string{"HAVE_FOO"}, "/")
	cases := []struct {
		yaml string
		skip bool
	}{
		{"skip: true", true},
		{"skip: false", false},
		{"skip:\n- msg: as root\n  uid: 0", os.Getuid() == 0},
		{"skip:\n- msg: has foo\n  feature: HAVE_FOO", true},
		{"skip:\n- msg: has bar\n  feature: HAVE_BAR", false},
		{"skip:\n- msg: inline\n  config:\n    stream\\.inline: \"yes\"", true},
		{"skip:\n- msg: midstream\n  config:\n    stream\\.midstream: true", false},
	}
	config := EffectiveConfig("/nonexistent", []string{"--set", "stream.inline=true", "--set", "stream.midstream=false"})
	for _, c := range cases {
		spec, err := ParseSpec([]byte(c.yaml + "\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.yaml, err)
		}
		if got := p.EvalSkip(spec.Skip, config) != nil; got != c.skip {
			t.Errorf("%q: skip=%v, want %v", c.yaml, got, c.skip)
		}
	}
}

func TestParseBuildInfo(t *testing.T) {
	out := "This is Suricata version 8.0.6 RELEASE\nFeatures: PCAP_SET_BUFF AF_PACKET HAVE_LUA MAGIC\nSIMD support: SSE_4_2\n"
	got := ParseBuildInfo(out)
	if !reflect.DeepEqual(got, []string{"PCAP_SET_BUFF", "AF_PACKET", "HAVE_LUA", "MAGIC"}) {
		t.Errorf("ParseBuildInfo = %q", got)
	}
}

func TestUnsupportedCause(t *testing.T) {
	cases := map[string]string{
		`test.rules:3: keyword "flowbits" is not supported yet`:               "keyword flowbits is not supported yet",
		`Error: rule 1: keyword 'http.uri' not supported yet`:                 "keyword http.uri is not supported yet",
		`--firewall-rules-exclusive is not implemented yet`:                   "--firewall-rules-exclusive is not implemented yet",
		`[ERROR] app-layer "smtp" not supported yet`:                          "smtp is not supported yet",
		`not supported yet: dataset`:                                          "dataset is not supported yet",
		`E: this is not supported yet in /some/file.rules at line 12`:         "not supported yet: E: this is not supported yet in <path> at line N",
		`<Error> output eve-log type "redis" is not implemented yet (line 4)`: "output eve-log is not implemented yet",
	}
	for in, want := range cases {
		if got := UnsupportedCause(in); got != want {
			t.Errorf("UnsupportedCause(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseBuildInfoNone: Suricata prints "Features: none" when it has none of its optional
// features; that is no feature called "none".
func TestParseBuildInfoNone(t *testing.T) {
	if got := ParseBuildInfo("This is Meerkat version 0.1.0-dev\nFeatures: none\n"); len(got) != 0 {
		t.Errorf("ParseBuildInfo = %q, want no features", got)
	}
}
