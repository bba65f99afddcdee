package verify

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"time"
)

// ParseBuildInfo extracts the feature list from `--build-info` output: the
// words after "Features:" (Suricata prints one such line, "Features: none" when
// it was built with none of its optional features).
func ParseBuildInfo(out string) []string {
	var feats []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "Features:"); ok {
			if strings.TrimSpace(rest) == "none" {
				continue
			}
			feats = append(feats, strings.Fields(rest)...)
		}
	}
	return dedupe(feats)
}

// EngineFeatures runs `<engine> --build-info` and returns the features it
// reports. An engine that fails or reports nothing has no features.
func EngineFeatures(ctx context.Context, engine string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, engine, "--build-info").Output()
	if err != nil {
		return nil, err
	}
	return ParseBuildInfo(string(out)), nil
}
