#!/usr/bin/env bash
# Rule-set load time. Two parts, written to bench/results/<date>-<host>-rules-load.json:
#
#  1. Parsing (issue #3): the full ET Open 2024 set from ../shared/corpus with the rules loader
#     on one core (BenchmarkLoadETOpen, GOMAXPROCS=1), 3 counts of 5 runs.
#  2. Start-up (issue #19 item 5): `meerkat -T` over the same rule files, which parses them and
#     builds the whole detection engine (Hyperscan databases included) as a real run does:
#       cold    the pattern database cache off (--set detect.sgh-mpm-caching=no; each round
#               with a fresh, empty cache folder so nothing can be read back);
#       cached  the cache on (detect.sgh-mpm-caching-path in a folder that one unmeasured run
#               filled first), as a second start-up with Suricata 8's default caching finds it.
#     3 rounds each; wall time and peak RSS from /usr/bin/time -v; medians. Bars: cold under
#     10 s and 1.5 GiB, cached under 2 s.
#
# Environment: SHARED (default ../shared), ROUNDS (default 3), MEERKAT (default bin/meerkat,
# built here from the working tree unless MEERKAT is set).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
SHARED=${SHARED:-../shared}
ROUNDS=${ROUNDS:-3}
rules_glob="$SHARED/corpus/rules/et-open-2024-04/*.rules"
# shellcheck disable=SC2086 # the glob is meant to expand here, only to check it matches
if ! ls $rules_glob >/dev/null 2>&1; then
	echo "no ET Open rules at $rules_glob" >&2
	exit 1
fi
if ! command -v /usr/bin/time >/dev/null || ! /usr/bin/time -v true 2>&1 | grep -q 'Maximum resident'; then
	echo "GNU time (/usr/bin/time -v) is needed: apt-get install time" >&2
	exit 1
fi

# 1. Parsing.
out_txt=$(GOMAXPROCS=1 go test -run '^$' -bench 'LoadETOpen' -benchtime 5x -count 3 ./rules/ 2>&1)
echo "$out_txt" | grep -E '^Benchmark|skip|SKIP' || true
if ! echo "$out_txt" | grep -q '^BenchmarkLoadETOpen'; then
	echo "no benchmark ran (is $SHARED/corpus/rules/et-open-2024-04 there?)" >&2
	exit 1
fi
ns=$(echo "$out_txt" | awk '/^BenchmarkLoadETOpen/ {print $3}' | paste -sd, -)
median_ns=$(echo "$out_txt" | awk '/^BenchmarkLoadETOpen/ {print $3}' | median)

# 2. Start-up.
if [ -z "${MEERKAT:-}" ]; then
	go build -tags hyperscan_v54 -o bin/meerkat ./cmd/meerkat
	MEERKAT=bin/meerkat
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# run_t LABEL ARGS...: one `meerkat -T` under /usr/bin/time -v; appends "wall_s rss_kib" to
# $work/LABEL ("wall_s rss_kib cpu_s load1": CPU is user+sys, load1 the 1-minute load average
# as the run started: on a shared machine the wall time means little without them) and keeps
# the rules summary line.
run_t() {
	local label=$1
	shift
	mkdir -p "$work/log"
	local load1
	load1=$(awk '{print $1}' /proc/loadavg)
	/usr/bin/time -v "$MEERKAT" -T -c suricata.yaml -S "$rules_glob" -l "$work/log" "$@" >"$work/out" 2>"$work/err" || {
		tail -5 "$work/err" >&2
		echo "meerkat -T failed" >&2
		exit 1
	}
	awk -F': ' -v load1="$load1" '
		/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; wall = s}
		/Maximum resident set size/ {rss = $2}
		/User time \(seconds\)/ {cpu += $2}
		/System time \(seconds\)/ {cpu += $2}
		END {printf "%.3f %d %.2f %s\n", wall, rss, cpu, load1}' "$work/err" >>"$work/$label"
	grep -o '[0-9]* rules successfully loaded' "$work/err" | head -1 >"$work/loaded"
}
for r in $(seq "$ROUNDS"); do
	rm -rf "$work/cold-cache"
	mkdir -p "$work/cold-cache"
	run_t cold --set detect.sgh-mpm-caching=no --set "detect.sgh-mpm-caching-path=$work/cold-cache"
	echo "cold round $r: $(tail -1 "$work/cold") (s, KiB)"
done
cache_args=(--set detect.sgh-mpm-caching=yes --set "detect.sgh-mpm-caching-path=$work/sgh-cache")
run_t fill "${cache_args[@]}"
echo "cache filled: $(tail -1 "$work/fill") (s, KiB), $(find "$work/sgh-cache" -type f | wc -l) files"
for r in $(seq "$ROUNDS"); do
	run_t cached "${cache_args[@]}"
	echo "cached round $r: $(tail -1 "$work/cached") (s, KiB)"
done
loaded=$(awk '{print $1}' "$work/loaded")
col() { awk -v c="$2" '{print $c}' "$work/$1" | paste -sd, -; }
med() { awk -v c="$2" '{print $c}' "$work/$1" | median; }
cold_cpu=$(med cold 3)
cached_cpu=$(med cached 3)
cold_wall=$(med cold 1)
cold_rss=$(med cold 2)
cached_wall=$(med cached 1)
cached_rss=$(med cached 2)
mib() { awk -v k="$1" 'BEGIN {printf "%.0f", k/1024}'; }

host=$(hostname -s 2>/dev/null || echo host)
day=$(date -u +%Y-%m-%d)
out="bench/results/${day}-${host}-rules-load.json"
cat >"$out" <<JSON
{
  "benchmark": "rules: parse the full ET Open 2024 set (24,827 enabled rules, 51 files) on one core; meerkat -T over it, cold and from the pattern database cache",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "bench/rules_load.sh (GOMAXPROCS=1 go test -run '^\$' -bench LoadETOpen -benchtime 5x -count 3 ./rules/; /usr/bin/time -v bin/meerkat -T -c suricata.yaml -S '<et-open-2024-04>/*.rules' --set detect.sgh-mpm-caching=no|yes --set detect.sgh-mpm-caching-path=<dir>, $ROUNDS rounds each)",
  "ns_per_load": [$ns],
  "median_seconds": $(awk -v n="$median_ns" 'BEGIN {printf "%.3f", n/1e9}'),
  "bar_seconds": 1.0,
  "test_config": {
    "rules_loaded": ${loaded:-0},
    "cold": {"wall_seconds": [$(col cold 1)], "max_rss_kib": [$(col cold 2)], "cpu_seconds": [$(col cold 3)], "load_1m": [$(col cold 4)],
      "median_wall_seconds": $cold_wall, "median_max_rss_mib": $(mib "$cold_rss"), "median_cpu_seconds": $cold_cpu},
    "cache_fill": {"wall_seconds": [$(col fill 1)], "max_rss_kib": [$(col fill 2)], "cpu_seconds": [$(col fill 3)], "load_1m": [$(col fill 4)]},
    "cached": {"wall_seconds": [$(col cached 1)], "max_rss_kib": [$(col cached 2)], "cpu_seconds": [$(col cached 3)], "load_1m": [$(col cached 4)],
      "median_wall_seconds": $cached_wall, "median_max_rss_mib": $(mib "$cached_rss"), "median_cpu_seconds": $cached_cpu},
    "bar": {"cold_seconds": 10, "cold_max_rss_gib": 1.5, "cached_seconds": 2}
  },
  "disclaimer": "One machine on one day; a shared, noisy VM."
}
JSON
echo "parse: median $(awk -v n="$median_ns" 'BEGIN {printf "%.3f", n/1e9}') s per full ET Open load (bar: 1 s)"
echo "meerkat -T, $loaded rules loaded: cold median $cold_wall s ($cold_cpu s CPU), $(mib "$cold_rss") MiB peak RSS (bars: 10 s, 1.5 GiB); cached median $cached_wall s ($cached_cpu s CPU), $(mib "$cached_rss") MiB (bar: 2 s)"
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "raw results: $out"
