#!/usr/bin/env bash
# The stream engine's cost (issue #16), on the real captures of ../shared/corpus/pcaps:
#  (a) whole process, --disable-detection --runmode single -k none, with the stream engine on
#      and with --set stream.enabled=false, ROUNDS each, alternating: medians and the ratio
#      on/off packets/s; the bar: the stream engine costs at most 25% more (on/off >= 0.8);
#  (b) in process, interleaved (BenchmarkStreamCost, INPROCESS rounds): stream/nostream,
#      the control stream2/stream, detect/stream (ET Open) and each mode's allocations per
#      packet, recorded as the benchmark prints them;
#  (c) whole process, ET Open detection with the stream engine against the same replay with
#      --disable-detection (the stream-on rounds of (a)): the ratio (bar 0.4, as corpus.sh) and
#      the heap allocations per packet meerkat prints (bar 0.05).
# Each round runs the three configurations, in an order that rotates from round to round.
# Writes bench/results/<date>-<host>-stream.json with every round.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-5}
INPROCESS=${INPROCESS:-5}
SHARED=${SHARED:-../shared}
RULES=${RULES:-$SHARED/corpus/rules/et-open-2024-04}
if [ ! -d "$SHARED/corpus/pcaps" ] || [ ! -d "$RULES" ]; then
	echo "stream.sh: $SHARED/corpus (pcaps and ET Open rules) not found; nothing measured" >&2
	exit 0
fi
work=$(mktemp -d /tmp/meerkat-stream.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
link_corpus "$work/corpus"
conf=$(cached_config "$work")

# run NAME ARGS...: one replay; appends its packets/s and allocations per packet to
# $work/NAME.txt and $work/NAME-allocs.txt, keeps its summary in $work/NAME.err.
run() {
	local name=$1
	shift
	rm -rf "$work/log-$name"; mkdir -p "$work/log-$name"
	"$work/meerkat" -c "$conf" -r "$work/corpus" -l "$work/log-$name" --runmode single -k none "$@" \
		2> "$work/$name.err" >/dev/null || { cat "$work/$name.err" >&2; echo "stream.sh: meerkat failed ($name)" >&2; exit 1; }
	awk '/^packets\/s:/ {print $2}' "$work/$name.err" >> "$work/$name.txt"
	awk '/^heap allocations per packet:/ {print $5}' "$work/$name.err" >> "$work/$name-allocs.txt"
}
configs=(on off detect)
for n in "${configs[@]}"; do : > "$work/$n.txt"; : > "$work/$n-allocs.txt"; done
order_json=()
for r in $(seq "$ROUNDS"); do
	order=()
	for k in 0 1 2; do order+=("${configs[$(((r - 1 + k) % 3))]}"); done
	for n in "${order[@]}"; do
		case $n in
		on) run on --disable-detection ;;
		off) run off --disable-detection --set stream.enabled=false ;;
		detect) run detect -S "$RULES/*.rules" ;;
		esac
	done
	order_json+=("[\"${order[0]}\", \"${order[1]}\", \"${order[2]}\"]")
	printf 'round %s (%s): on %s, off %s, detect %s pkt/s\n' "$r" "${order[*]}" \
		"$(tail -1 "$work/on.txt")" "$(tail -1 "$work/off.txt")" "$(tail -1 "$work/detect.txt")"
done
on=$(median < "$work/on.txt"); off=$(median < "$work/off.txt"); det=$(median < "$work/detect.txt")
ratio=$(awk -v a="$off" -v b="$on" 'BEGIN {printf "%.3f", b/a}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.8) ? "PASS" : "FAIL"}')
read -r pmed plo phi pall < <(paired_ratios "$work/off.txt" "$work/on.txt")
dratio=$(awk -v a="$on" -v b="$det" 'BEGIN {printf "%.3f", b/a}')
dverdict=$(awk -v r="$dratio" 'BEGIN {print (r >= 0.4) ? "PASS" : "FAIL"}')
read -r dmed dlo dhi dall < <(paired_ratios "$work/on.txt" "$work/detect.txt")
allocs=$(median < "$work/detect-allocs.txt")
averdict=$(awk -v a="$allocs" 'BEGIN {print (a <= 0.05) ? "PASS" : "FAIL"}')
packets=$(awk '/^packets:/ {print $2}' "$work/detect.err")
summary=$(grep 'rule files processed' "$work/detect.err" | sed 's/^meerkat: //')
alerts=$(awk '/^alerts:/ {print $2}' "$work/detect.err")
alerts_off=$(awk '/^alerts:/ {print $2}' "$work/on.err")

# (b) the packet loop in process, the modes interleaved 256 packets at a time.
MEERKAT_BENCH_CAPTURE="$work/corpus" MEERKAT_BENCH_RULES="$RULES/*.rules" MEERKAT_BENCH_MPM_CACHE="$work/sgh-cache" \
	go test ./pipeline -run '^$' -bench StreamCost -benchtime "${INPROCESS}x" > "$work/inproc.txt" 2>&1 ||
	{ tail -20 "$work/inproc.txt" >&2; echo "stream.sh: the in-process benchmark failed" >&2; exit 1; }
line=$(grep '^BenchmarkStreamCost' "$work/inproc.txt" | tr -s '\t' ' ')
metric() { echo "$line" | awk -v m="$1" '{for (i = 2; i <= NF; i++) if ($i == m) print $(i-1)}'; }

printf '\npackets %s; rules: %s\n' "$packets" "$summary"
printf '(a) --disable-detection, medians of %s rounds: stream on %s pkt/s, stream.enabled=false %s; on/off %s (bar 0.8): %s; per-round on/off median %s [%s, %s]\n' \
	"$ROUNDS" "$on" "$off" "$ratio" "$verdict" "$pmed" "$plo" "$phi"
printf '(b) in process, interleaved, %s rounds: ns/packet nostream %s, stream %s, stream again %s, detect %s; stream/nostream %s, control stream2/stream %s, detect/stream %s; allocs/packet nostream %s, stream %s, stream again %s, detect %s\n' \
	"$INPROCESS" "$(metric nostream-ns/pkt)" "$(metric stream-ns/pkt)" "$(metric stream-again-ns/pkt)" "$(metric detect-ns/pkt)" \
	"$(metric stream/nostream-pps)" "$(metric stream2/stream-pps)" "$(metric detect/stream-pps)" \
	"$(metric nostream-allocs/pkt)" "$(metric stream-allocs/pkt)" "$(metric stream-again-allocs/pkt)" "$(metric detect-allocs/pkt)"
printf '(c) ET Open with the stream engine %s pkt/s against --disable-detection %s: ratio %s (bar 0.4): %s; heap allocations per packet %s (bar 0.05): %s; alerts %s\n' \
	"$det" "$on" "$dratio" "$dverdict" "$allocs" "$averdict" "$alerts"

host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-stream.json"
cat > "$out" <<JSON
{
  "benchmark": "stream engine cost (issue #16): corpus captures, --runmode single, -k none; the stream engine on against --set stream.enabled=false with --disable-detection; ET Open detection with the stream engine against --disable-detection; BenchmarkStreamCost in process",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS INPROCESS=$INPROCESS bench/stream.sh",
  "packets": $packets,
  "rules": "$summary",
  "round_orders": [$(IFS=,; echo "${order_json[*]}")],
  "whole_process": {
    "stream_on_pps": [$(paste -sd, "$work/on.txt")],
    "stream_off_pps": [$(paste -sd, "$work/off.txt")],
    "detection_pps": [$(paste -sd, "$work/detect.txt")],
    "stream_on_allocs_per_packet": [$(paste -sd, "$work/on-allocs.txt")],
    "stream_off_allocs_per_packet": [$(paste -sd, "$work/off-allocs.txt")],
    "detection_allocs_per_packet": [$(paste -sd, "$work/detect-allocs.txt")],
    "median_stream_on_pps": $on,
    "median_stream_off_pps": $off,
    "median_detection_pps": $det,
    "alerts_detection": $alerts,
    "alerts_disable_detection": $alerts_off
  },
  "stream_cost": {"ratio_on_off_pps": $ratio, "bar": "on/off >= 0.8 (the stream engine costs at most 25% more)", "verdict": "$verdict",
    "paired_round_ratios": {"median": $pmed, "ci95": [$plo, $phi], "sorted": [$pall]}},
  "detection": {"ratio_detection_disable_detection_pps": $dratio, "bar": 0.4, "verdict": "$dverdict",
    "paired_round_ratios": {"median": $dmed, "ci95": [$dlo, $dhi], "sorted": [$dall]}},
  "allocations": {"median_detection_allocs_per_packet": $allocs, "bar": "<= 0.05", "verdict": "$averdict"},
  "in_process": {"rounds": $INPROCESS, "interleave_packets": 256, "benchmark": "BenchmarkStreamCost",
    "line": "$line",
    "ns_per_packet": {"nostream": $(metric nostream-ns/pkt), "stream": $(metric stream-ns/pkt), "stream_again": $(metric stream-again-ns/pkt), "detect": $(metric detect-ns/pkt)},
    "median_round_ratio_pps": {"stream/nostream": $(metric stream/nostream-pps), "stream2/stream": $(metric stream2/stream-pps), "detect/stream": $(metric detect/stream-pps)},
    "allocs_per_packet": {"nostream": $(metric nostream-allocs/pkt), "stream": $(metric stream-allocs/pkt), "stream_again": $(metric stream-again-allocs/pkt), "detect": $(metric detect-allocs/pkt)}},
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
