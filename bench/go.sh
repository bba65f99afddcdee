#!/usr/bin/env bash
# Per-stage Go micro-benchmarks (issue #8): decode, flow table, capture reader, EVE records,
# worker, Hyperscan scan, candidate set, alert queue, broad-rule index and header witness index,
# each COUNT times (-benchmem). Writes the raw `go test -bench` output, with date, commit and
# machine lines that benchstat reads as configuration, to bench/results/<date>-<host>-go.txt, and
# when an older such file exists compares the two with benchstat (golang.org/x/perf, fetched from
# the module proxy by `go run`; nothing of it is vendored). BASE=<file> picks the file compared
# against.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
COUNT=${COUNT:-6}
BENCHSTAT=${BENCHSTAT:-golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da}
PKGS=${PKGS:-./decode/ ./flow/ ./capture/ ./output/ ./pipeline/ ./prefilter/hs/ ./prefilter/candidates/ ./alert/ ./prefilter/broad/ ./prefilter/header/}
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-go.txt"
base=${BASE:-$(ls bench/results/*-go.txt 2>/dev/null | grep -v "^$out\$" | sort | tail -1 || true)}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $(commit_id)"
	echo "machine: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "command: COUNT=$COUNT bench/go.sh"
	echo "disclaimer: one machine on one day; a shared, noisy VM; compare runs side by side"
	# shellcheck disable=SC2086 # PKGS is a list
	go test -run '^$' -bench . -benchmem -count "$COUNT" $PKGS
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "raw results: $out"
# benchstat comes from the module proxy: without it the raw results still stand.
if [ -n "$base" ] && [ -f "$base" ]; then
	echo "benchstat $base $out:"
	go run "$BENCHSTAT" "$base" "$out" || echo "go.sh: benchstat could not run (module proxy unreachable?)" >&2
else
	go run "$BENCHSTAT" "$out" || echo "go.sh: benchstat could not run (module proxy unreachable?)" >&2
fi
