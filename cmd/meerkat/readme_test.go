package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeUsageCommands returns the shell commands of the first sh block of README.md's Usage
// section, continuation lines joined, comments and blank lines left out.
func readmeUsageCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n## Usage\n")
	if i < 0 {
		t.Fatal("README.md has no ## Usage section")
	}
	section := text[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	start := strings.Index(section, "```sh\n")
	if start < 0 {
		t.Fatal("the Usage section has no sh block")
	}
	block := section[start+len("```sh\n"):]
	end := strings.Index(block, "```")
	if end < 0 {
		t.Fatal("the Usage section's sh block is not closed")
	}
	var cmds []string
	var cur strings.Builder
	for _, line := range strings.Split(block[:end], "\n") {
		line = strings.TrimSpace(line)
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cont, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(cont)
			continue
		}
		cur.WriteString(line)
		cmds = append(cmds, cur.String())
		cur.Reset()
	}
	return cmds
}

// TestReadmeUsage runs every command of README.md's Usage block, as a new user would paste
// it, from the repository root with the bundled files: bin/meerkat is the binary under test
// and /tmp/out a folder of the test's own (which the block must create itself). A command
// that exits non-zero fails the test, and so does one that writes nothing: a command with -l
// must add to the EVE log there, any other must print something.
func TestReadmeUsage(t *testing.T) {
	cmds := readmeUsageCommands(t)
	meerkats := 0
	for _, c := range cmds {
		if strings.HasPrefix(c, "bin/meerkat ") {
			meerkats++
		}
	}
	if meerkats < 5 {
		t.Fatalf("found %d meerkat commands in the Usage block, want at least 5: %q", meerkats, cmds)
	}
	out := filepath.Join(t.TempDir(), "out") // not created: the block's mkdir must do it
	eve := filepath.Join(out, "eve.json")
	size := func() int64 {
		fi, err := os.Stat(eve)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	for _, c := range cmds {
		run := strings.ReplaceAll(c, "/tmp/out", out)
		if rest, ok := strings.CutPrefix(run, "bin/meerkat "); ok {
			run = binPath + " " + rest
		}
		before := size()
		cmd := exec.Command("sh", "-c", run)
		cmd.Dir = repoRoot
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: %v\n%s", c, err, stderr.String())
			continue
		}
		switch {
		case strings.HasPrefix(c, "mkdir "):
			if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
				t.Errorf("%s: no folder", c)
			}
		case strings.Contains(c, " -l /tmp/out"):
			if size() <= before {
				t.Errorf("%s: wrote nothing to eve.json in the -l folder\n%s", c, stderr.String())
			}
		case stdout.Len()+stderr.Len() == 0:
			t.Errorf("%s: printed nothing", c)
		}
	}
}
