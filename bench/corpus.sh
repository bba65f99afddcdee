#!/usr/bin/env bash
# Detection throughput (issue #4): the real captures of ../shared/corpus/pcaps replayed with the
# ET Open 2024 rules (every rule the engine can evaluate) against the same replay with
# --disable-detection, alternating, ROUNDS times each, --runmode single. Prints medians and the
# ratio (the bar is 0.4), the rules loaded, the alerts, and writes
# bench/results/<date>-<host>-corpus.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-5}
SHARED=${SHARED:-../shared}
RULES=${RULES:-$SHARED/corpus/rules/et-open-2024-04}
if [ ! -d "$SHARED/corpus/pcaps" ] || [ ! -d "$RULES" ]; then
	echo "corpus.sh: $SHARED/corpus (pcaps and ET Open rules) not found; nothing measured" >&2
	exit 0
fi
work=$(mktemp -d /tmp/meerkat-detect.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
link_corpus "$work/corpus"
conf=$(cached_config "$work")

: > "$work/off.txt"; : > "$work/on.txt"; : > "$work/allocs.txt"
for r in $(seq "$ROUNDS"); do
	rm -rf "$work/l1" "$work/l2"; mkdir -p "$work/l1" "$work/l2"
	"$work/meerkat" -c "$conf" -r "$work/corpus" -l "$work/l1" --runmode single -k none --disable-detection 2> "$work/off.err" >/dev/null
	awk '/^packets\/s:/ {print $2}' "$work/off.err" >> "$work/off.txt"
	"$work/meerkat" -c "$conf" -S "$RULES/*.rules" -r "$work/corpus" -l "$work/l2" --runmode single -k none 2> "$work/on.err" >/dev/null
	awk '/^packets\/s:/ {print $2}' "$work/on.err" >> "$work/on.txt"
	awk '/^heap allocations per packet:/ {print $5}' "$work/on.err" >> "$work/allocs.txt"
done
off=$(median < "$work/off.txt"); on=$(median < "$work/on.txt")
ratio=$(awk -v a="$off" -v b="$on" 'BEGIN {printf "%.3f", b/a}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.4) ? "PASS" : "FAIL"}')
summary=$(grep 'rule files processed' "$work/on.err" | sed 's/^meerkat: //')
alerts=$(awk '/^alerts:/ {print $2}' "$work/on.err")
packets=$(awk '/^packets:/ {print $2}' "$work/on.err")
printf '\npackets %s; rules: %s\n' "$packets" "$summary"
printf '%-22s %14s\n' "--disable-detection" "$off" "ET Open" "$on"
printf 'ratio %s (bar 0.4): %s; alerts %s; heap allocations per packet %s\n' "$ratio" "$verdict" "$alerts" "$(median < "$work/allocs.txt")"
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-corpus.json"
cat > "$out" <<JSON
{
  "benchmark": "detection (issue #4): corpus captures with ET Open 2024 vs --disable-detection, --runmode single, -k none",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS bench/corpus.sh",
  "packets": $packets,
  "rules": "$summary",
  "alerts": $alerts,
  "disable_detection_pps": [$(paste -sd, "$work/off.txt")],
  "detection_pps": [$(paste -sd, "$work/on.txt")],
  "allocs_per_packet": [$(paste -sd, "$work/allocs.txt")],
  "median_disable_detection_pps": $off,
  "median_detection_pps": $on,
  "ratio": $ratio,
  "bar": 0.4,
  "verdict": "$verdict",
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
