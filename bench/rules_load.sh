#!/usr/bin/env bash
# Rule-language load time (issue #3): parse the full ET Open 2024 set from ../shared/corpus with
# the rules loader on one core (BenchmarkLoadETOpen, GOMAXPROCS=1), 3 counts of 5 runs, and
# write the figures to bench/results/<date>-<host>-rules-load.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
out_txt=$(GOMAXPROCS=1 go test -run '^$' -bench 'LoadETOpen' -benchtime 5x -count 3 ./rules/ 2>&1)
echo "$out_txt" | grep -E '^Benchmark|skip|SKIP' || true
if ! echo "$out_txt" | grep -q '^BenchmarkLoadETOpen'; then
	echo "no benchmark ran (is ../shared/corpus/rules/et-open-2024-04 there?)" >&2
	exit 1
fi
ns=$(echo "$out_txt" | awk '/^BenchmarkLoadETOpen/ {print $3}' | paste -sd, -)
median=$(echo "$out_txt" | awk '/^BenchmarkLoadETOpen/ {print $3}' | sort -g | sed -n 2p)
host=$(hostname -s 2>/dev/null || echo host)
day=$(date -u +%Y-%m-%d)
out="bench/results/${day}-${host}-rules-load.json"
cat > "$out" <<JSON
{
  "benchmark": "rules: parse the full ET Open 2024 set (24,827 enabled rules, 51 files) on one core",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "bench/rules_load.sh (GOMAXPROCS=1 go test -run '^\$' -bench LoadETOpen -benchtime 5x -count 3 ./rules/)",
  "ns_per_load": [$ns],
  "median_seconds": $(awk -v n="$median" 'BEGIN {printf "%.3f", n/1e9}'),
  "bar_seconds": 1.0,
  "disclaimer": "One machine on one day; a shared, noisy VM."
}
JSON
echo "median $(awk -v n="$median" 'BEGIN {printf "%.3f", n/1e9}') s per full ET Open load (bar: 1 s); raw results: $out"
