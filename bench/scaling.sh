#!/usr/bin/env bash
# Rule-count scaling (issues #8 and #17): the same synthetic capture (bench/gen-traffic)
# replayed with 1k, 10k and 50k ET-shaped rules (bench/gen-rules, every rule loadable by
# today's engine) plus the capture's planted-string rules, --runmode single, in three mixes
# (MIXES): none (bench/gen-rules' default mix), et (5% header-only rules as ET writes them,
# -header-mix et) and scan (5% scan-detection rules on any/any headers, -header-mix scan).
# Per mix the largest size is generated (-seed 1) and each smaller size is an evenly spaced
# subset of its lines (every k-th line), so the sizes share the mix's proportions. ROUNDS
# rounds, each replaying every mix and size once. Prints packets/s medians (the packet loop:
# meerkat's packets/s, load excluded) and each size against the smallest of its mix, judges
# issue #17's bar (scan mix: largest/smallest >= 0.6; the et mix is recorded, not judged),
# checks that every run finds the planted strings as often as the generator planted them, and
# writes bench/results/<date>-<host>-scaling.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-3}
FLOWS=${FLOWS:-2000}
SIZES=${SIZES:-1000 10000 50000}
MIXES=${MIXES:-none et scan}
work=$(mktemp -d /tmp/meerkat-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
conf=$(cached_config "$work")
go run ./bench/gen-traffic -flows "$FLOWS" -seed 1 -o "$work/traffic.pcap" -rules "$work/planted.rules" 2> "$work/gen.err"
largest=$(printf '%s\n' $SIZES | sort -n | tail -1)
first=${SIZES%% *}
for mix in $MIXES; do
	go run ./bench/gen-rules -n "$largest" -seed 1 -header-mix "$mix" > "$work/$mix-all.rules"
	for n in $SIZES; do
		k=$((largest / n))
		awk -v k="$k" -v n="$n" 'NR % k == 1 || k == 1 { if (c++ < n) print }' "$work/$mix-all.rules" > "$work/$mix-$n.rules"
		cat "$work/planted.rules" >> "$work/$mix-$n.rules"
		"$work/meerkat" -c "$conf" -T -S "$work/$mix-$n.rules" 2> "$work/$mix-$n.load" >/dev/null
		: > "$work/$mix-$n.txt"
	done
done
for r in $(seq "$ROUNDS"); do
	for mix in $MIXES; do
		for n in $SIZES; do
			rm -rf "$work/l"; mkdir -p "$work/l"
			"$work/meerkat" -c "$conf" -S "$work/$mix-$n.rules" -r "$work/traffic.pcap" -l "$work/l" --runmode single -k none 2> "$work/$mix-$n.err" >/dev/null
			awk '/^packets\/s:/ {print $2}' "$work/$mix-$n.err" >> "$work/$mix-$n.txt"
			# Alerts of the planted rules (sids 9000001..9000003), from the last round.
			grep -o '"signature_id":900000[1-3]' "$work/l/eve.json" | sort | uniq -c | awk '{print $2 "=" $1}' | sed 's/"signature_id"://' | paste -sd' ' > "$work/$mix-$n.planted"
		done
	done
done
printf '\ncapture: go run ./bench/gen-traffic -flows %s -seed 1 (%s)\n' "$FLOWS" "$(grep -m1 "^wrote" "$work/gen.err" | sed "s/^wrote [^:]*: //")"
ref_planted=$(cat "$work/${MIXES%% *}-$first.planted")
json_mixes=""
verdict_scan=null
for mix in $MIXES; do
	base=$(median < "$work/$mix-$first.txt")
	printf '\nmix %s (go run ./bench/gen-rules -n %s -seed 1 -header-mix %s, smaller sizes every k-th line)\n' "$mix" "$largest" "$mix"
	printf '%-8s %-70s %12s %8s  %s\n' rules loaded packets/s "vs $first" "planted alerts (sid=count)"
	json_sizes=""
	for n in $SIZES; do
		m=$(median < "$work/$mix-$n.txt")
		loaded=$(sed -n 's/^meerkat: //p' "$work/$mix-$n.load" | grep 'rules successfully loaded' | tail -1)
		ratio=$(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.3f", a/b}')
		printf '%-8s %-70s %12s %8s  %s\n' "$n" "$loaded" "$m" "$ratio" "$(cat "$work/$mix-$n.planted")"
		if [ "$(cat "$work/$mix-$n.planted")" != "$ref_planted" ]; then
			echo "scaling.sh: mix $mix with $n rules: the planted strings alerted $(cat "$work/$mix-$n.planted"), the first run $ref_planted" >&2
			exit 1
		fi
		json_sizes+="${json_sizes:+, }\"$n\": {\"loaded\": \"$loaded\", \"pps\": [$(paste -sd, "$work/$mix-$n.txt")], \"median_pps\": $m, \"vs_first\": $ratio, \"planted_alerts\": \"$(cat "$work/$mix-$n.planted")\"}"
	done
	last=$(awk -v a="$(median < "$work/$mix-$largest.txt")" -v b="$base" 'BEGIN {printf "%.3f", a/b}')
	judged=""
	if [ "$mix" = scan ]; then
		v=$(awk -v r="$last" 'BEGIN {print (r >= 0.6) ? "PASS" : "FAIL"}')
		verdict_scan="\"$v\""
		printf 'scan mix: %s rules / %s rules = %s (bar 0.6, issue #17): %s\n' "$largest" "$first" "$last" "$v"
		judged=", \"bar\": \"$largest/$first >= 0.6\", \"verdict\": $verdict_scan"
	fi
	json_mixes+="${json_mixes:+, }\"$mix\": {\"rules\": \"go run ./bench/gen-rules -n $largest -seed 1 -header-mix $mix; size n: every ($largest/n)-th line\", \"largest_vs_first\": $last$judged, \"sizes\": {$json_sizes}}"
done
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-scaling.json"
cat > "$out" <<JSON
{
  "benchmark": "rule-count scaling (issues #8, #17): go run ./bench/gen-traffic -flows $FLOWS -seed 1 replayed with bench/gen-rules rules in three mixes (none, et, scan: -header-mix) plus the planted-string rules, --runmode single -k none, sgh-mpm-caching on",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS FLOWS=$FLOWS SIZES='$SIZES' MIXES='$MIXES' bench/scaling.sh",
  "capture": "$(grep -m1 '^wrote' "$work/gen.err" | sed 's/^wrote [^:]*: //; s/"/\\"/g')",
  "mixes": {$json_mixes},
  "verdict_scan": $verdict_scan,
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
