#!/usr/bin/env bash
# Signature groups (issue #4): the corpus captures with the ET Open 2024 rules, one Hyperscan
# database per signature group (sgh-mpm-context: auto, the default) against one database per
# protocol class and direction (sgh-mpm-context: single, Suricata's choice for Hyperscan under
# auto), alternating ROUNDS times, --runmode single. Also measures start-up (-T) and its peak
# memory in both modes, cold and with a warm database cache (sgh-mpm-caching). Then, unless
# INPROCESS=0, the packet loop alone: INPROCESS rounds (default 9) of BenchmarkFirewallVsIPS's
# ips (per-group), ips-shared and ips-again (a second per-group engine, the control) modes,
# the capture in memory, engines rebuilt before each replay. Prints medians and per-round
# ratios, writes bench/results/<date>-<host>-groups.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-5}
INPROCESS=${INPROCESS:-9}
SHARED=${SHARED:-../shared}
RULES=${RULES:-$SHARED/corpus/rules/et-open-2024-04}
if [ ! -d "$SHARED/corpus/pcaps" ] || [ ! -d "$RULES" ]; then
	echo "groups.sh: $SHARED/corpus (pcaps and ET Open rules) not found; nothing measured" >&2
	exit 0
fi
if [ ! -x /usr/bin/time ]; then
	echo "groups.sh: /usr/bin/time (Debian package time) is needed for peak memory" >&2
	exit 1
fi
work=$(mktemp -d /tmp/meerkat-groups.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
link_corpus "$work/corpus"
for mode in auto single; do
	for cache in no yes; do
		cat > "$work/$mode-$cache.yaml" <<YAML
%YAML 1.1
---
include: $PWD/suricata.yaml
detect:
  sgh-mpm-context: $mode
  sgh-mpm-caching: $cache
  sgh-mpm-caching-path: $work/cache-$mode
YAML
	done
done

for f in auto single ratio; do : > "$work/$f.txt"; done
for r in $(seq "$ROUNDS"); do
	modes=(auto single)
	[ $((r % 2)) -eq 0 ] && modes=(single auto) # alternate which runs first
	for mode in "${modes[@]}"; do
		rm -rf "$work/l"; mkdir -p "$work/l"
		"$work/meerkat" -c "$work/$mode-no.yaml" -S "$RULES/*.rules" -r "$work/corpus" -l "$work/l" --runmode single -k none 2> "$work/$mode.err" >/dev/null
		awk '/^packets\/s:/ {print $2}' "$work/$mode.err" >> "$work/$mode.txt"
		awk '/^alerts:/ {print $2}' "$work/$mode.err" > "$work/$mode.alerts"
	done
	paste <(tail -1 "$work/auto.txt") <(tail -1 "$work/single.txt") | awk '{printf "%.3f\n", $1/$2}' >> "$work/ratio.txt"
done
if ! cmp -s "$work/auto.alerts" "$work/single.alerts"; then
	echo "groups.sh: the two modes gave different alert counts" >&2
	exit 1
fi
# Start-up: -T, cold (no cache), then warm (the cache filled by a first run).
startup() { # mode cache -> "seconds maxrss_kb"
	/usr/bin/time -f '%e %M' -o "$work/time.txt" "$work/meerkat" -c "$work/$1-$2.yaml" -S "$RULES/*.rules" -T > /dev/null 2>&1
	cat "$work/time.txt"
}
declare -A st
for mode in auto single; do
	st[$mode-cold]=$(startup "$mode" no)
	startup "$mode" yes > /dev/null
	st[$mode-warm]=$(startup "$mode" yes)
done
groups=$("$work/meerkat" -c "$work/auto-no.yaml" -S "$RULES/*.rules" -r "$work/corpus/$(ls "$work/corpus" | head -1)" -l "$work/l" -v 2>&1 |
	sed -n 's/^meerkat: info: rule groups: //p' | paste -sd';' | sed 's/"/\\"/g')
inproc='null'
if [ "$INPROCESS" -gt 0 ]; then
	cat "$RULES"/*.rules > "$work/et.rules"
	: > "$work/empty.rules"
	MEERKAT_BENCH_CAPTURE="$work/corpus" MEERKAT_BENCH_TD="$work/et.rules" MEERKAT_BENCH_FW="$work/empty.rules" \
		MEERKAT_BENCH_MODES=ips,ips-shared,ips-again MEERKAT_BENCH_REBUILD=1 \
		go test ./pipeline -run '^$' -bench FirewallVsIPS -benchtime "${INPROCESS}x" > "$work/inproc.txt" 2>&1 ||
		{ tail -20 "$work/inproc.txt" >&2; echo "groups.sh: the in-process benchmark failed" >&2; exit 1; }
	line=$(grep '^BenchmarkFirewallVsIPS' "$work/inproc.txt")
	metric() { echo "$line" | awk -v m="$1" '{for (i = 2; i <= NF; i++) if ($i == m) print $(i-1)}'; }
	inproc="{\"rounds\": $INPROCESS, \"ns_per_packet\": {\"ips\": $(metric ips-ns/pkt), \"ips_shared\": $(metric ips-shared-ns/pkt), \"ips_again\": $(metric ips-again-ns/pkt)}, \"median_round_ratio_pps\": {\"ips_shared/ips\": $(metric ips-shared/ips-pps), \"ips_again/ips\": $(metric ips-again/ips-pps)}}"
	printf 'packet loop in process, %s rounds: ns/packet per-group %s, shared %s, per-group again %s; shared/per-group packets/s %s (control %s)\n' \
		"$INPROCESS" "$(metric ips-ns/pkt)" "$(metric ips-shared-ns/pkt)" "$(metric ips-again-ns/pkt)" "$(metric ips-shared/ips-pps)" "$(metric ips-again/ips-pps)"
fi
auto=$(median < "$work/auto.txt"); single=$(median < "$work/single.txt"); ratio=$(median < "$work/ratio.txt")
printf '\nalerts %s (both modes)\n' "$(cat "$work/auto.alerts")"
printf '%-34s %12s %14s %14s\n' "mode" "packets/s" "start-up cold" "start-up warm"
printf '%-34s %12s %14s %14s\n' "per-group databases (auto)" "$auto" "${st[auto-cold]}" "${st[auto-warm]}" \
	"one per protocol/direction (single)" "$single" "${st[single-cold]}" "${st[single-warm]}"
printf 'per-round ratio auto/single: %s; median %s\n(start-up: seconds and peak KB)\n' "$(paste -sd' ' "$work/ratio.txt")" "$ratio"
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-groups.json"
pair() { echo "{\"seconds\": ${1% *}, \"max_rss_kb\": ${1#* }}"; }
cat > "$out" <<JSON
{
  "benchmark": "signature groups (issue #4): per-group Hyperscan databases (sgh-mpm-context auto) vs one per protocol class and direction (single), corpus captures with ET Open 2024, --runmode single, -k none, alternating rounds; start-up with -T",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS INPROCESS=$INPROCESS bench/groups.sh",
  "alerts": $(cat "$work/auto.alerts"),
  "groups": "$groups",
  "auto_pps": [$(paste -sd, "$work/auto.txt")],
  "single_pps": [$(paste -sd, "$work/single.txt")],
  "ratio_per_round": [$(paste -sd, "$work/ratio.txt")],
  "median_auto_pps": $auto,
  "median_single_pps": $single,
  "median_ratio": $ratio,
  "packet_loop_in_process": $inproc,
  "startup": {"auto_cold": $(pair "${st[auto-cold]}"), "auto_warm": $(pair "${st[auto-warm]}"),
              "single_cold": $(pair "${st[single-cold]}"), "single_warm": $(pair "${st[single-warm]}")},
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
