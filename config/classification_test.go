package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepoClassifications(t *testing.T) {
	cl, err := LoadClassifications(filepath.Join(repoRoot, "classification.config"))
	if err != nil {
		t.Fatal(err)
	}
	// The strings EVE prints as alert.category must be Suricata's exactly.
	want := map[string]struct {
		desc string
		prio int
	}{
		"not-suspicious":           {"Not Suspicious Traffic", 3},
		"unknown":                  {"Unknown Traffic", 3},
		"bad-unknown":              {"Potentially Bad Traffic", 2},
		"attempted-recon":          {"Attempted Information Leak", 2},
		"trojan-activity":          {"A Network Trojan was detected", 1},
		"misc-activity":            {"Misc activity", 3},
		"protocol-command-decode":  {"Generic Protocol Command Decode", 3},
		"inappropriate-content":    {"Inappropriate Content was Detected", 1},
		"tcp-connection":           {"A TCP connection was detected", 4},
		"web-application-activity": {"access to a potentially vulnerable web application", 2},
		"command-and-control":      {"Malware Command and Control Activity Detected", 1},
	}
	for name, w := range want {
		c, ok := cl[name]
		if !ok || c.Description != w.desc || c.Priority != w.prio || c.Name != name {
			t.Errorf("%s = %+v, want %q/%d", name, c, w.desc, w.prio)
		}
	}
	if len(cl) != 43 {
		t.Errorf("%d classtypes, want 43", len(cl))
	}
	if cl["not-suspicious"].ID != 1 || cl["command-and-control"].ID != 43 {
		t.Errorf("IDs: %d %d", cl["not-suspicious"].ID, cl["command-and-control"].ID)
	}
}

// Every classtype of the ET Open file in the shared corpus is present with the same facts.
func TestClassificationsMatchET(t *testing.T) {
	cl, err := LoadClassifications(filepath.Join(repoRoot, "classification.config"))
	if err != nil {
		t.Fatal(err)
	}
	dir := sharedDir(t)
	et, err := LoadClassifications(filepath.Join(dir, "corpus", "rules", "et-open-2024-04", "classification.config"))
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range et {
		c, ok := cl[name]
		if !ok || c.Description != e.Description || c.Priority != e.Priority {
			t.Errorf("%s: ours %+v, ET %+v", name, c, e)
		}
	}
}

func TestParseClassifications(t *testing.T) {
	in := `# comment
  # indented comment

config classification: Not-Suspicious,Not Suspicious Traffic,3
config classification:bad-unknown, Potentially Bad Traffic, 2
config   classification :  a_b-1 ,Text, with, commas ,1
config classification: not-suspicious,Second Definition,1
conig classification: x,y,1
config classification: -bad,Desc,1
config classification: noprio,Desc,
config classification: neg,Desc,-1
config classification: nodesc,,2
config classification: short,3
`
	cl, err := ParseClassifications("c.config", strings.NewReader(in))
	if cl["not-suspicious"].Description != "Not Suspicious Traffic" || cl["not-suspicious"].Priority != 3 {
		t.Errorf("first definition wins, lower-cased: %+v", cl["not-suspicious"])
	}
	if cl["bad-unknown"].Description != "Potentially Bad Traffic" || cl["bad-unknown"].Priority != 2 {
		t.Errorf("bad-unknown = %+v", cl["bad-unknown"])
	}
	if c := cl["a_b-1"]; c.Description != "Text, with, commas " || c.Priority != 1 {
		t.Errorf("a_b-1 = %+v", c)
	}
	if err == nil {
		t.Fatal("bad lines accepted")
	}
	for _, line := range []string{":8:", ":9:", ":10:", ":11:", ":12:", ":13:"} {
		if !strings.Contains(err.Error(), "config: c.config"+line) {
			t.Errorf("error %q lacks line %s", err, line)
		}
	}
	if strings.Contains(err.Error(), ":7:") {
		t.Errorf("a duplicate is not an error: %v", err)
	}

	_, err = LoadClassifications(filepath.Join(t.TempDir(), "none.config"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "none.config") {
		t.Errorf("missing file: %v", err)
	}
}

func TestReferences(t *testing.T) {
	refs, err := LoadReferences(filepath.Join(repoRoot, "reference.config"))
	if err != nil {
		t.Fatal(err)
	}
	for sys, url := range map[string]string{
		"bugtraq":   "https://www.securityfocus.com/bid/",
		"cve":       "https://cve.mitre.org/cgi-bin/cvename.cgi?name=",
		"url":       "https://",
		"md5":       "https://www.threatexpert.com/report.aspx?md5=",
		"arachnids": "https://www.whitehats.com/info/IDS",
		"mcafee":    "https://vil.nai.com/vil/content/v_",
		"nessus":    "https://www.tenable.com/plugins/nessus/",
	} {
		if refs[sys] != url {
			t.Errorf("%s = %q, want %q", sys, refs[sys], url)
		}
	}
	for _, sys := range []string{"bid", "osvdb", "msb", "secunia"} {
		if refs[sys] == "" {
			t.Errorf("%s missing", sys)
		}
	}

	in := "config reference: arachNIDS\thttp://a/\nconfig reference: ARACHNIDS http://b/\nconfig reference: lonely\nconfig ref: x y\n"
	refs, err = ParseReferences("r.config", strings.NewReader(in))
	if refs["arachnids"] != "http://a/" {
		t.Errorf("arachnids = %q (case-insensitive, first wins)", refs["arachnids"])
	}
	if err == nil || !strings.Contains(err.Error(), "r.config:3:") || !strings.Contains(err.Error(), "r.config:4:") {
		t.Errorf("error = %v", err)
	}
}
