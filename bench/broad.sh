#!/usr/bin/env bash
# Broad-rule index at scale (issue #5): the corpus replayed with 1,000 and with 50,000 broad
# rules (bench/gen-broad: IP-only blocklists, lists with negations, port rules, IPv6), alternating,
# ROUNDS times each, --runmode single -k none. The bar: 50k reaches at least 60% of 1k's
# packets/s. Also runs the index's Go benchmarks (lookup and build, bart vs cidranger). Writes
# bench/results/<date>-<host>-broad.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-5}
SHARED=${SHARED:-../shared}
if [ ! -d "$SHARED/corpus/pcaps" ]; then
	echo "broad.sh: $SHARED/corpus/pcaps not found; nothing measured" >&2
	exit 0
fi
work=$(mktemp -d /tmp/meerkat-broad.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
go run ./bench/gen-broad -n 1000 -seed 1 > "$work/1k.rules"
go run ./bench/gen-broad -n 50000 -seed 1 > "$work/50k.rules"
link_corpus "$work/corpus"
: > "$work/1k.txt"; : > "$work/50k.txt"
for r in $(seq "$ROUNDS"); do
	for n in 1k 50k; do
		rm -rf "$work/l"; mkdir -p "$work/l"
		"$work/meerkat" -c suricata.yaml -S "$work/$n.rules" -r "$work/corpus" -l "$work/l" --runmode single -k none 2> "$work/$n.err" >/dev/null
		awk '/^packets\/s:/ {print $2}' "$work/$n.err" >> "$work/$n.txt"
	done
done
a=$(median < "$work/1k.txt"); b=$(median < "$work/50k.txt")
ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b/a}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.6) ? "PASS" : "FAIL"}')
printf '1,000 broad rules: %s packets/s; 50,000: %s packets/s; ratio %s (bar 0.6): %s\n' "$a" "$b" "$ratio" "$verdict"
# The index's own Go benchmarks: lookup and build at 1k/10k/50k rules, bart against
# cidranger side by side in one run.
go test ./prefilter/broad/ -run '^$' -bench . -benchtime 1s -benchmem 2>&1 | grep -E '^Benchmark' > "$work/gobench.txt" || true
cat "$work/gobench.txt"
gobench=$(sed -E 's/[[:space:]]+/ /g; s/^/    "/; s/$/"/' "$work/gobench.txt" | paste -sd, -)
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-broad.json"
cat > "$out" <<JSON
{
  "benchmark": "broad-rule index (issue #5): corpus replay with 1,000 vs 50,000 broad rules (bench/gen-broad -seed 1), --runmode single -k none",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS bench/broad.sh",
  "pps_1k": [$(paste -sd, "$work/1k.txt")],
  "pps_50k": [$(paste -sd, "$work/50k.txt")],
  "median_pps_1k": $a,
  "median_pps_50k": $b,
  "alerts_1k": $(awk '/^alerts:/ {print $2}' "$work/1k.err"),
  "alerts_50k": $(awk '/^alerts:/ {print $2}' "$work/50k.err"),
  "ratio": $ratio,
  "bar": 0.6,
  "verdict": "$verdict",
  "go_benchmarks_command": "go test ./prefilter/broad/ -run '^\$' -bench . -benchtime 1s -benchmem",
  "go_benchmarks": [
$gobench
  ],
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
