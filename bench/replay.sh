#!/usr/bin/env bash
# Replay throughput of the foundation (issue #2): packets/s of (a) a plain zero-copy read loop
# over a capture and (b) `meerkat -r FILE --disable-detection --runmode single`, measured in
# alternation, ROUNDS times each, on the same capture in one run. Prints medians, the ratio b/a
# (the bar is 0.5) and meerkat's heap allocations per packet, and writes the raw figures to
# bench/results/<date>-<host>-replay.json.
#
# The ratio uses each program's own packet throughput: the read loop times itself from opening
# the capture to its end; meerkat times its packet loop plus the end-of-capture work (ending
# and logging the remaining flows) and prints packets/s in its summary. Process start-up
# (config parsing, allocating the flow table) is outside both; the wall-clock packets/s of both
# processes, start-up included, are recorded in the JSON as well.
#
# Captures: every capture under ../shared/corpus/pcaps (real traffic, 1,300 files) when that
# folder exists, and a synthetic bulk capture made by pcaps/gen. The bar is judged on the real
# corpus; the synthetic capture (TCP transfers in 1,448-byte segments, whose per-packet TCP
# checksum is work the read loop does not have) is reported beside it as a stress case, and
# judged only when the corpus is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-5}
FLOWS=${FLOWS:-30000}
SHARED=${SHARED:-../shared}
work=$(mktemp -d /tmp/meerkat-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

go build -o "$work/readloop" ./bench/readloop
go build -o "$work/meerkat" ./cmd/meerkat
go run ./pcaps/gen -flows "$FLOWS" "$work/bulk.pcap"

captures=("$work/bulk.pcap")
if [ -d "$SHARED/corpus/pcaps" ]; then
	# The corpus is many small files in folders; readloop and meerkat both take a directory of
	# captures, so gather them (as links) into one.
	link_corpus "$work/corpus"
	captures+=("$work/corpus")
else
	echo "note: $SHARED/corpus/pcaps not found; only the synthetic capture is measured" >&2
fi

now_ns() { date +%s%N; }

host=$(hostname -s 2>/dev/null || echo host)
day=$(date -u +%Y-%m-%d)
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
cores=$(nproc)
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
commit=$(commit_id)
out="bench/results/${day}-${host}-replay.json"
mkdir -p bench/results

json_runs=""
printf '\n%-12s %10s %14s %14s %8s %8s %12s\n' capture packets "read pps" "meerkat pps" ratio verdict "allocs/pkt"
overall=""
for cap in "${captures[@]}"; do
	name=$(basename "$cap")
	: > "$work/a.txt"; : > "$work/b.txt"; : > "$work/allocs.txt"; : > "$work/aw.txt"; : > "$work/bw.txt"
	packets=0
	for r in $(seq "$ROUNDS"); do
		t0=$(now_ns)
		"$work/readloop" "$cap" > "$work/read.out"
		t1=$(now_ns)
		packets=$(awk '/^packets:/ {print $2}' "$work/read.out")
		awk '/^packets_per_s:/ {print $2}' "$work/read.out" >> "$work/a.txt"
		echo "$packets $t0 $t1" | awk '{printf "%.0f\n", $1/(($3-$2)/1e9)}' >> "$work/aw.txt"

		rm -rf "$work/logs"; mkdir -p "$work/logs"
		t0=$(now_ns)
		"$work/meerkat" -r "$cap" -l "$work/logs" --disable-detection --runmode single 2> "$work/meerkat.err" >/dev/null
		t1=$(now_ns)
		mp=$(awk '/^packets:/ {print $2}' "$work/meerkat.err")
		if [ "$mp" != "$packets" ]; then
			echo "meerkat read $mp packets, the read loop $packets" >&2
			exit 1
		fi
		awk '/^packets\/s:/ {print $2}' "$work/meerkat.err" >> "$work/b.txt"
		echo "$mp $t0 $t1" | awk '{printf "%.0f\n", $1/(($3-$2)/1e9)}' >> "$work/bw.txt"
		awk '/^heap allocations per packet:/ {print $5}' "$work/meerkat.err" >> "$work/allocs.txt"
	done
	a=$(median < "$work/a.txt")
	b=$(median < "$work/b.txt")
	allocs=$(median < "$work/allocs.txt")
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b/a}')
	verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.5) ? "PASS" : "FAIL"}')
	if [ "$name" = corpus ] || [ ${#captures[@]} -eq 1 ]; then
		overall=$verdict
	fi
	printf '%-12s %10d %14.0f %14.0f %8s %8s %12s\n' "$name" "$packets" "$a" "$b" "$ratio" "$verdict" "$allocs"
	runs_a=$(paste -sd, "$work/a.txt"); runs_b=$(paste -sd, "$work/b.txt"); runs_al=$(paste -sd, "$work/allocs.txt")
	runs_aw=$(paste -sd, "$work/aw.txt"); runs_bw=$(paste -sd, "$work/bw.txt")
	wratio=$(awk -v a="$(median < "$work/aw.txt")" -v b="$(median < "$work/bw.txt")" 'BEGIN {printf "%.3f", b/a}')
	[ -n "$json_runs" ] && json_runs+=","
	json_runs+=$(printf '\n    {"capture": "%s", "packets": %s, "read_loop_pps": [%s], "meerkat_pps": [%s], "meerkat_allocs_per_packet": [%s], "median_read_loop_pps": %s, "median_meerkat_pps": %s, "ratio": %s, "bar": 0.5, "verdict": "%s", "wall_clock_read_loop_pps": [%s], "wall_clock_meerkat_pps": [%s], "wall_clock_ratio": %s}' \
		"$name" "$packets" "$runs_a" "$runs_b" "$runs_al" "$a" "$b" "$ratio" "$verdict" "$runs_aw" "$runs_bw" "$wratio")
done

cat > "$out" <<JSON
{
  "benchmark": "replay (issue #2): read loop vs meerkat --disable-detection --runmode single",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": {"host": "$host", "cpu": "$cpu", "cores": $cores, "memory": "$mem"},
  "commit": "$commit",
  "command": "ROUNDS=$ROUNDS FLOWS=$FLOWS bench/replay.sh",
  "commands": {
    "read_loop": "readloop CAPTURE",
    "meerkat": "meerkat -r CAPTURE -l DIR --disable-detection --runmode single"
  },
  "method": "packets/s as each program times its own packet loop (meerkat: loop plus end-of-capture flow logging; start-up excluded for both); wall-clock packets/s of whole processes recorded beside it; rounds alternate a and b; medians over rounds",
  "bar": "meerkat packets/s >= 0.5 x read-loop packets/s, judged on the real corpus captures (the synthetic bulk capture is a stress case, judged only without the corpus)",
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures.",
  "overall": "$overall",
  "runs": [$json_runs
  ]
}
JSON
echo
echo "overall: $overall (meerkat must reach at least half of the read loop's packets/s; judged on"
echo "the real corpus when present, the synthetic bulk capture is a stress case reported beside it)"
echo "raw results: $out"
