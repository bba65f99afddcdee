package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// runIn runs the binary in dir with args (no -l added) and returns its exit status, stdout
// and stderr.
func runIn(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestNoArgumentsPrintsUsage: plain `meerkat`, like plain `suricata`, prints the usage and
// fails; -h names the configuration file read without -c.
func TestNoArgumentsPrintsUsage(t *testing.T) {
	code, _, stderr := runIn(t, repoRoot, nil)
	if code != 1 || !strings.HasPrefix(stderr, "Usage: meerkat") {
		t.Errorf("no arguments: exit %d, want 1 and the usage:\n%s", code, stderr)
	}
	code, stdout, _ := runIn(t, repoRoot, nil, "-h")
	if code != 0 || !strings.Contains(stdout, "(default: "+DefaultConfigFile) {
		t.Errorf("-h: exit %d, usage does not name %s as -c's default:\n%s", code, DefaultConfigFile, stdout)
	}
}

// TestArgumentsCheckedBeforeRules: bad -l, -r, --runmode and -q are reported before any rule
// is loaded (Suricata checks them while it parses the command line).
func TestArgumentsCheckedBeforeRules(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "captures")
	if err := os.MkdirAll(filepath.Join(nested, "2024"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"-l missing", []string{"-r", "pcaps/sample.pcap", "-l", filepath.Join(dir, "nope")}, "does not exist"},
		{"-l a file", []string{"-r", "pcaps/sample.pcap", "-l", "README.md"}, `"README.md" supplied with -l is not a directory`},
		{"-r missing", []string{"-r", filepath.Join(dir, "none.pcap"), "-l", out}, "none.pcap"},
		{"-r a folder of folders", []string{"-r", nested, "-l", out}, "subdirectories are not read"},
		{"--runmode", []string{"-r", "pcaps/sample.pcap", "-l", out, "--runmode", "turbo"}, `unknown runmode "turbo"`},
		{"-q", []string{"-q", "0", "-l", out}, "NFQUEUE capture (-q 0) is not implemented yet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-c", "suricata.yaml", "-S", "rules/meerkat.rules"}, tc.args...)
			code, _, stderr := runIn(t, repoRoot, nil, args...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want 1 and %q:\n%s", code, tc.want, stderr)
			}
			if strings.Contains(stderr, "rule files processed") {
				t.Errorf("rules were loaded before the argument was checked:\n%s", stderr)
			}
		})
	}
}

// TestTestConfigFailsOnBadRule: -T with a rule that does not load prints the rule's error,
// then "Loading signatures failed.", and exits 1, as Suricata 8.0.7 does (-T sets
// engine.init-failure-fatal). The bundled rules, two of which use keywords Meerkat does not
// evaluate yet (Suricata loads them), pass -T.
func TestTestConfigFailsOnBadRule(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.rules")
	os.WriteFile(bad, []byte("alert tcp any any -> any any (msg:\"bad hex\"; content:\"|4 41|\"; sid:2; rev:1;)\n"), 0o644)
	code, _, stderr := runIn(t, repoRoot, nil, "-c", "suricata.yaml", "-S", bad, "-T")
	ruleErr, failed := strings.Index(stderr, "bad.rules:1: sid 2"), strings.Index(stderr, "Loading signatures failed.")
	if code != 1 || ruleErr < 0 || failed < ruleErr || strings.Contains(stderr, "successfully loaded. Exiting") {
		t.Errorf("-T with a bad rule: exit %d, want 1, the rule's error, then \"Loading signatures failed.\":\n%s", code, stderr)
	}
	code, _, stderr = runIn(t, repoRoot, nil, "-c", "suricata.yaml", "-T")
	if code != 0 || !strings.Contains(stderr, "Configuration provided was successfully loaded") {
		t.Errorf("-T on the bundled files: exit %d\n%s", code, stderr)
	}
}

// TestInitErrorsFatalCounts: a duplicate sid is a failed rule in Suricata (bad_sigs), so the
// summary and the fatal message count it alike.
func TestInitErrorsFatalCounts(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "dup.rules")
	os.WriteFile(rules, []byte(`alert tcp any any -> any any (msg:"a"; sid:1; rev:1;)
alert tcp any any -> any any (msg:"b"; sid:1; rev:1;)
alert tcp any any -> any any (msg:"c"; nosuchkeyword; sid:2;)
`), 0o644)
	code, _, stderr := runIn(t, repoRoot, nil, "-c", "suricata.yaml", "-S", rules, "-r", "pcaps/sample.pcap", "-l", t.TempDir(), "--init-errors-fatal")
	summary := regexp.MustCompile(`(\d+) rules failed`).FindStringSubmatch(stderr)
	fatal := regexp.MustCompile(`Loading signatures failed\. (\d+) rule\(s\) failed`).FindStringSubmatch(stderr)
	if code != 1 || summary == nil || fatal == nil || summary[1] != "2" || fatal[1] != "2" {
		t.Errorf("exit %d; want 2 failed rules (one duplicate, one bad) in the summary and the fatal message:\n%s", code, stderr)
	}
}

// TestRuleFileDirectory: -S naming a directory loads nothing from it and says so; with
// --init-errors-fatal that stops start-up.
func TestRuleFileDirectory(t *testing.T) {
	code, _, stderr := runIn(t, repoRoot, nil, "-c", "suricata.yaml", "-S", "rules", "-T")
	if code != 1 || !strings.Contains(stderr, "rule file rules is a directory") {
		t.Errorf("-T -S rules: exit %d, want 1 and a message:\n%s", code, stderr)
	}
	code, _, stderr = runIn(t, repoRoot, nil, "-c", "suricata.yaml", "-S", "rules", "-r", "pcaps/sample.pcap", "-l", t.TempDir())
	if code != 0 || !strings.Contains(stderr, "warning: rule file rules is a directory") {
		t.Errorf("-S rules: exit %d, want a warning:\n%s", code, stderr)
	}
}

// TestRelativePathsNamed: the bundled suricata.yaml names its rule files relative to the
// working directory, as Suricata reads them; run from elsewhere, the warning says so.
func TestRelativePathsNamed(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join(repoRoot, "suricata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	_, _, stderr := runIn(t, elsewhere, nil, "-c", abs, "-T")
	if !strings.Contains(stderr, `"rules/meerkat.rules"`) || !strings.Contains(stderr, "relative paths are read from the working directory, "+elsewhere) {
		t.Errorf("run from %s: the missing rule file's warning does not name the working directory:\n%s", elsewhere, stderr)
	}
}

// TestListKeywordsMarksRefused: keywords the parser knows and the engine refuses are marked
// in --list-keywords; a rule that uses one fails with "not supported yet".
func TestListKeywordsMarksRefused(t *testing.T) {
	_, out, _ := runIn(t, repoRoot, nil, "--list-keywords")
	if !strings.Contains(out, "- krb5.cname (not supported yet") || !strings.Contains(out, "\n- content\n") ||
		!strings.Contains(out, "\n- http.uri\n") || !strings.Contains(out, "\n- dns.query\n") {
		t.Errorf("--list-keywords does not mark krb5.cname (refused) apart from content, http.uri and dns.query (evaluated):\n%.2000s", out)
	}
	_, out, _ = runIn(t, repoRoot, nil, "--list-keywords=csv")
	if !strings.Contains(out, "\nkrb5.cname;") || !strings.Contains(out, ";no\n") || !strings.Contains(out, ";yes\n") {
		t.Errorf("--list-keywords=csv has no supported column:\n%.2000s", out)
	}
	r := filepath.Join(t.TempDir(), "krb5.rules")
	os.WriteFile(r, []byte("alert krb5 any any -> any any (msg:\"d\"; krb5.cname; content:\"x\"; sid:1;)\n"), 0o644)
	_, _, stderr := runIn(t, repoRoot, nil, "-c", "suricata.yaml", "-S", r, "-T")
	if !strings.Contains(stderr, "not supported yet") {
		t.Errorf("a rule with krb5.cname loaded, yet --list-keywords marks it refused:\n%s", stderr)
	}
}

// TestBuildInfo: the Features line names the optional features Meerkat has in Suricata's
// words (HAVE_JA3 HAVE_JA4, which tests' requires: features name), and the Hyperscan version
// is printed.
func TestBuildInfo(t *testing.T) {
	_, out, _ := runIn(t, repoRoot, nil, "--build-info")
	if !strings.Contains(out, "\nFeatures: HAVE_JA3 HAVE_JA4\n") || !regexp.MustCompile(`\nHyperscan version: \d+\.\d+`).MatchString(out) {
		t.Errorf("--build-info:\n%s", out)
	}
}

var (
	bulkOnce          sync.Once
	bulkDir, bulkPath string
	bulkErr           error
)

// bulkCapture generates (once per test binary run) pcaps/gen's capture of 20,000 flows.
func bulkCapture(t *testing.T) string {
	t.Helper()
	bulkOnce.Do(func() {
		dir, err := os.MkdirTemp("", "meerkat-bulk")
		if err != nil {
			bulkErr = err
			return
		}
		bulkDir = dir
		bulkPath = filepath.Join(dir, "bulk.pcap")
		gen := exec.Command("go", "run", "./pcaps/gen", "-flows", "20000", bulkPath)
		gen.Dir = repoRoot
		if out, err := gen.CombinedOutput(); err != nil {
			bulkErr = fmt.Errorf("gen: %v\n%s", err, out)
		}
	})
	if bulkErr != nil {
		t.Fatal(bulkErr)
	}
	return bulkPath
}

// TestProgressOnTerminal: with stderr on a terminal (a pseudo-terminal here), a replay and
// start-up draw a progress line (packets, packets/s, bytes read of the file's size, elapsed
// time, alerts; rules parsed, databases compiled); with stderr on a pipe nothing of it is
// written. MEERKAT_PROGRESS_INTERVAL shortens the once-a-second redraw so that a run shorter
// than a second shows it.
func TestProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 40 MB capture")
	}
	pcap := bulkCapture(t)
	ruleFile := filepath.Join(t.TempDir(), "many.rules")
	var rules strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&rules, "alert tcp any any -> any %d (msg:\"r%d\"; content:\"needle-%d\"; sid:%d;)\n", 1000+i%500, i, i, 100000+i)
	}
	os.WriteFile(ruleFile, []byte(rules.String()), 0o644)
	args := []string{"-c", "suricata.yaml", "-S", ruleFile, "-r", pcap, "-l", t.TempDir(), "--runmode", "single"}
	env := append(os.Environ(), "MEERKAT_PROGRESS_INTERVAL=5ms")

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(binPath, args...)
	cmd.Dir, cmd.Env, cmd.Stderr = repoRoot, env, tty
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(copied) }()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, screen.String())
	}
	tty.Close()
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
		t.Fatal("the pseudo-terminal did not close")
	}
	got := screen.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\r[^\r\n]*\d+ packets \(\d+/s\), \d+ alerts[^\r\n]*\d+%[^\r\n]*\([\d.]+/[\d.]+ MB`), // bytes of the size
		regexp.MustCompile(`\r[^\r\n]*start-up: \d+ rules parsed, \d+ pattern databases compiled, \d+ read from cache`),
		regexp.MustCompile(`\[\d+s`),                        // elapsed
		regexp.MustCompile(`(\n|\x1b\[K)packets: \d+\r?\n`), // the summary, after the line is erased
	} {
		if !want.MatchString(got) {
			t.Errorf("terminal output lacks %s:\n%q", want, tail(got, 3000))
		}
	}

	cmd = exec.Command(binPath, args...)
	cmd.Dir, cmd.Env = repoRoot, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if s := stderr.String(); strings.Contains(s, "\r") || strings.Contains(s, "packets (") || strings.Contains(s, "start-up:") {
		t.Errorf("stderr is not a terminal, yet a progress line was written:\n%q", tail(s, 2000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestInterruptedReplayExitStatus: a replay stopped by SIGINT or SIGTERM flushes its logs and
// exits 128+signal (130, 143), so a script can tell it from a complete replay; Suricata exits
// 0 there.
func TestInterruptedReplayExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 40 MB capture")
	}
	pcap := bulkCapture(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		// A slow start-up would let the signal arrive before the replay: a named pipe feeds the
		// capture, so the replay is still reading when the signal comes.
		fifo := filepath.Join(t.TempDir(), "slow.pcap")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		cmd := exec.Command(binPath, "-c", "suricata.yaml", "-r", fifo, "-l", t.TempDir(), "--runmode", "single")
		cmd.Dir = repoRoot
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(pcap)
		if err != nil {
			t.Fatal(err)
		}
		go func() { // feed the capture slowly, until the replay stops reading
			for off := 0; off < len(data); off += 64 << 10 {
				if _, err := w.Write(data[off:min(off+64<<10, len(data))]); err != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		time.Sleep(500 * time.Millisecond)
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		w.Close()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != 128+int(sig) || !strings.Contains(stderr.String(), "stopped by signal") {
			t.Errorf("%v: exit %d, want %d after \"stopped by signal\":\n%s", sig, code, 128+int(sig), stderr.String())
		}
	}
}
