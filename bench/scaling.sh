#!/usr/bin/env bash
# Rule-count scaling (issue #8): the same synthetic capture (bench/gen-traffic) replayed with
# 1k, 10k and 50k ET-shaped rules (bench/gen-rules, every rule loadable by today's engine) plus
# the capture's planted-string rules, --runmode single, ROUNDS rounds with the three sizes
# taking turns. Prints packets/s medians and each size against 1k, checks that every size
# finds the planted strings as often as the generator planted them, and writes
# bench/results/<date>-<host>-scaling.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-3}
FLOWS=${FLOWS:-2000}
SIZES=${SIZES:-1000 10000 50000}
work=$(mktemp -d /tmp/meerkat-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
conf=$(cached_config "$work")
go run ./bench/gen-traffic -flows "$FLOWS" -seed 1 -o "$work/traffic.pcap" -rules "$work/planted.rules" 2> "$work/gen.err"
for n in $SIZES; do
	go run ./bench/gen-rules -n "$n" -seed 1 > "$work/$n.rules"
	cat "$work/planted.rules" >> "$work/$n.rules"
	"$work/meerkat" -c "$conf" -T -S "$work/$n.rules" 2> "$work/$n.load" >/dev/null
	: > "$work/$n.txt"
done
for r in $(seq "$ROUNDS"); do
	for n in $SIZES; do
		rm -rf "$work/l"; mkdir -p "$work/l"
		"$work/meerkat" -c "$conf" -S "$work/$n.rules" -r "$work/traffic.pcap" -l "$work/l" --runmode single -k none 2> "$work/$n.err" >/dev/null
		awk '/^packets\/s:/ {print $2}' "$work/$n.err" >> "$work/$n.txt"
		# Alerts of the planted rules (sids 9000001..9000003), from the last round.
		grep -o '"signature_id":900000[1-3]' "$work/l/eve.json" | sort | uniq -c | awk '{print $2 "=" $1}' | sed 's/"signature_id"://' | paste -sd' ' > "$work/$n.planted"
	done
done
first=${SIZES%% *}
base=$(median < "$work/$first.txt")
printf '\ncapture: go run ./bench/gen-traffic -flows %s -seed 1 (%s)\n' "$FLOWS" "$(grep -m1 "^wrote" "$work/gen.err" | sed "s/^wrote [^:]*: //")"
printf '%-8s %-70s %12s %8s  %s\n' rules loaded packets/s "vs $first" "planted alerts (sid=count)"
json_sizes=""
for n in $SIZES; do
	m=$(median < "$work/$n.txt")
	loaded=$(sed -n 's/^meerkat: //p' "$work/$n.load" | grep 'rules successfully loaded' | tail -1)
	printf '%-8s %-70s %12s %8.3f  %s\n' "$n" "$loaded" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN {print a/b}')" "$(cat "$work/$n.planted")"
	if [ "$(cat "$work/$n.planted")" != "$(cat "$work/$first.planted")" ]; then
		echo "scaling.sh: with $n rules the planted strings alerted $(cat "$work/$n.planted"), with $first $(cat "$work/$first.planted")" >&2
		exit 1
	fi
	json_sizes+="${json_sizes:+, }\"$n\": {\"loaded\": \"$loaded\", \"pps\": [$(paste -sd, "$work/$n.txt")], \"median_pps\": $m, \"vs_first\": $(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.3f", a/b}'), \"planted_alerts\": \"$(cat "$work/$n.planted")\"}"
done
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-scaling.json"
cat > "$out" <<JSON
{
  "benchmark": "rule-count scaling (issue #8): go run ./bench/gen-traffic -flows $FLOWS -seed 1 replayed with go run ./bench/gen-rules -n N -seed 1 plus the planted-string rules, --runmode single -k none, sgh-mpm-caching on",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS FLOWS=$FLOWS SIZES='$SIZES' bench/scaling.sh",
  "capture": "$(grep -m1 '^wrote' "$work/gen.err" | sed 's/^wrote [^:]*: //; s/"/\\"/g')",
  "sizes": {$json_sizes},
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
