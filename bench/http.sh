#!/usr/bin/env bash
# HTTP/1 detection's cost, on the real captures of ../shared/corpus/pcaps:
#  (a) whole process, --runmode single -k none, the app layer on in both (it is on by
#      default): every ET Open rule (the engine loads what it supports: the HTTP rules with it)
#      against --disable-detection, ROUNDS each, alternating, the order swapped from round to
#      round: medians, the ratio detection/--disable-detection packets/s (bar 0.4) and its
#      per-round paired ratios, and the heap allocations per packet meerkat prints for the
#      detection runs (bar 0.1: transactions come from pools, a packet that only adds to an
#      existing transaction allocates nothing);
#  (b) how many ET Open rules use HTTP (protocol http, an http sticky buffer or modifier,
#      uricontent, file.data) and how many of those the engine loads (meerkat -T on them alone),
#      and the HTTP flows and transactions of each configuration's replay (app_layer.flow.http,
#      app_layer.tx.http of the last stats record: the app layer must parse alike in both);
#  (c) the HTTP/1 parser alone: go test -bench BenchmarkParse ./applayer/http (a pipelined,
#      chunked, gzip request/response mix), MB/s and allocations per run, BENCHCOUNT times.
# Writes bench/results/<date>-<host>-http.json with every round.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-5}
BENCHCOUNT=${BENCHCOUNT:-3}
SHARED=${SHARED:-../shared}
RULES=${RULES:-$SHARED/corpus/rules/et-open-2024-04}
if [ ! -d "$SHARED/corpus/pcaps" ] || [ ! -d "$RULES" ]; then
	echo "http.sh: $SHARED/corpus (pcaps and ET Open rules) not found; nothing measured" >&2
	exit 0
fi
work=$(mktemp -d /tmp/meerkat-http.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
link_corpus "$work/corpus"
conf=$(cached_config "$work")

# (b) the ET Open rules that use HTTP, and how many of them load.
grep -hE '^[[:space:]]*(alert|drop|reject|pass|rejectsrc|rejectdst|rejectboth)[[:space:]]' "$RULES"/*.rules |
	grep -E '^[^(]*[[:space:]]http[[:space:]]|[(; ]http[._][a-z_.]+[;:]|[(; ]uricontent:|[(; ]file[._]data[;:]' > "$work/http.rules" || true
http_rules=$(wc -l < "$work/http.rules")
"$work/meerkat" -T -c "$conf" -S "$work/http.rules" 2> "$work/http-rules.err" >/dev/null || true
http_summary=$(grep 'rule files processed' "$work/http-rules.err" | sed 's/^meerkat: //' || true)
http_loaded=$(echo "$http_summary" | sed -n 's/.* \([0-9][0-9]*\) rules successfully loaded.*/\1/p')
http_loaded=${http_loaded:-0}

# run NAME ARGS...: one replay; appends its packets/s and allocations per packet to
# $work/NAME.txt and $work/NAME-allocs.txt, keeps its summary in $work/NAME.err and its EVE
# log in $work/log-NAME.
run() {
	local name=$1
	shift
	rm -rf "$work/log-$name"; mkdir -p "$work/log-$name"
	"$work/meerkat" -c "$conf" -r "$work/corpus" -l "$work/log-$name" --runmode single -k none "$@" \
		2> "$work/$name.err" >/dev/null || { cat "$work/$name.err" >&2; echo "http.sh: meerkat failed ($name)" >&2; exit 1; }
	awk '/^packets\/s:/ {print $2}' "$work/$name.err" >> "$work/$name.txt"
	awk '/^heap allocations per packet:/ {print $5}' "$work/$name.err" >> "$work/$name-allocs.txt"
}
for n in detect off; do : > "$work/$n.txt"; : > "$work/$n-allocs.txt"; done
order_json=()
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order=(detect off); else order=(off detect); fi
	for n in "${order[@]}"; do
		case $n in
		detect) run detect -S "$RULES/*.rules" ;;
		off) run off --disable-detection ;;
		esac
	done
	order_json+=("[\"${order[0]}\", \"${order[1]}\"]")
	printf 'round %s (%s): detection %s, --disable-detection %s pkt/s; allocations per packet %s\n' "$r" "${order[*]}" \
		"$(tail -1 "$work/detect.txt")" "$(tail -1 "$work/off.txt")" "$(tail -1 "$work/detect-allocs.txt")"
done
det=$(median < "$work/detect.txt"); off=$(median < "$work/off.txt")
ratio=$(awk -v a="$off" -v b="$det" 'BEGIN {printf "%.3f", b/a}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.4) ? "PASS" : "FAIL"}')
read -r pmed plo phi pall < <(paired_ratios "$work/off.txt" "$work/detect.txt")
allocs=$(median < "$work/detect-allocs.txt")
allocs_off=$(median < "$work/off-allocs.txt")
averdict=$(awk -v a="$allocs" 'BEGIN {print (a <= 0.1) ? "PASS" : "FAIL"}')
packets=$(awk '/^packets:/ {print $2}' "$work/detect.err")
summary=$(grep 'rule files processed' "$work/detect.err" | sed 's/^meerkat: //')
alerts=$(awk '/^alerts:/ {print $2}' "$work/detect.err")
alerts_off=$(awk '/^alerts:/ {print $2}' "$work/off.err")

# http_counts LOG: the HTTP flows and transactions in the last stats record of an EVE log
# (app_layer.flow.http, app_layer.tx.http; null where the engine does not count them).
http_counts() {
	python3 - "$1" <<'PY'
import json, sys
last = None
try:
    for line in open(sys.argv[1]):
        if '"event_type":"stats"' in line.replace(' ', ''):
            last = json.loads(line)
except OSError:
    pass
al = ((last or {}).get("stats") or {}).get("app_layer") or {}
def get(kind):
    v = (al.get(kind) or {}).get("http")
    return str(v) if isinstance(v, (int, float)) else "null"
print(get("flow"), get("tx"))
PY
}
# Both configurations must parse HTTP alike: the app layer runs with --disable-detection too.
read -r http_flows http_txs < <(http_counts "$work/log-detect/eve.json")
read -r http_flows_off http_txs_off < <(http_counts "$work/log-off/eve.json")

# (c) the parser alone.
parse_lines=""
parse_note="BenchmarkParse ran"
# (the list is read whole first: grep -q ending the pipe early fails it under pipefail)
benchmarks=$(go test -list '^BenchmarkParse$' ./applayer/http 2>/dev/null || true)
if grep -qx 'BenchmarkParse' <<< "$benchmarks"; then
	go test ./applayer/http -run '^$' -bench '^BenchmarkParse$' -benchmem -count "$BENCHCOUNT" > "$work/parse.txt" 2>&1 ||
		{ tail -20 "$work/parse.txt" >&2; echo "http.sh: BenchmarkParse failed" >&2; exit 1; }
	parse_lines=$(grep '^BenchmarkParse' "$work/parse.txt" | tr -s '\t ' ' ')
else
	parse_note="no BenchmarkParse in ./applayer/http: parser throughput not measured"
	echo "http.sh: $parse_note" >&2
fi
# metric UNIT: that unit's figure of each BenchmarkParse line, comma-separated.
metric() { [ -z "$parse_lines" ] || echo "$parse_lines" | awk -v m="$1" '{for (i = 2; i <= NF; i++) if ($i == m) print $(i-1)}' | paste -sd, -; }
mbs=$(metric MB/s); nsop=$(metric ns/op); allocsop=$(metric allocs/op)
mbs_med=$( [ -n "$mbs" ] && echo "$mbs" | tr , '\n' | median || echo null)

printf '\npackets %s; rules: %s\n' "$packets" "$summary"
printf 'ET Open rules using HTTP: %s, loaded alone: %s (%s)\n' "$http_rules" "$http_loaded" "$http_summary"
printf 'HTTP flows, transactions: with detection %s, %s; with --disable-detection %s, %s\n' \
	"$http_flows" "$http_txs" "$http_flows_off" "$http_txs_off"
printf '(a) medians of %s rounds: ET Open %s pkt/s against --disable-detection %s: ratio %s (bar 0.4): %s; per-round median %s [%s, %s]\n' \
	"$ROUNDS" "$det" "$off" "$ratio" "$verdict" "$pmed" "$plo" "$phi"
printf '    heap allocations per packet with detection %s (bar 0.1): %s; --disable-detection %s; alerts %s\n' \
	"$allocs" "$averdict" "$allocs_off" "$alerts"
printf '(c) BenchmarkParse: %s MB/s (median %s), %s ns/op, %s allocs/op (%s)\n' "${mbs:-none}" "$mbs_med" "${nsop:-none}" "${allocsop:-none}" "$parse_note"

host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-http.json"
cat > "$out" <<JSON
{
  "benchmark": "HTTP/1 detection: corpus captures, --runmode single, -k none, the app layer on in both; all ET Open rules against --disable-detection, alternating; the ET Open rules using HTTP loaded alone; BenchmarkParse of ./applayer/http",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS BENCHCOUNT=$BENCHCOUNT bench/http.sh",
  "packets": $packets,
  "rules": "$summary",
  "http_rules": {"in_et_open": $http_rules, "loaded": $http_loaded, "summary": "$http_summary",
    "selection": "rules with protocol http, an http. or http_ keyword, uricontent, file.data or file_data"},
  "http_flows": {"detection": $http_flows, "disable_detection": $http_flows_off},
  "http_transactions": {"detection": $http_txs, "disable_detection": $http_txs_off},
  "round_orders": [$(IFS=,; echo "${order_json[*]}")],
  "whole_process": {
    "detection_pps": [$(paste -sd, "$work/detect.txt")],
    "disable_detection_pps": [$(paste -sd, "$work/off.txt")],
    "detection_allocs_per_packet": [$(paste -sd, "$work/detect-allocs.txt")],
    "disable_detection_allocs_per_packet": [$(paste -sd, "$work/off-allocs.txt")],
    "median_detection_pps": $det,
    "median_disable_detection_pps": $off,
    "alerts_detection": $alerts,
    "alerts_disable_detection": $alerts_off
  },
  "detection": {"ratio_detection_disable_detection_pps": $ratio, "bar": 0.4, "verdict": "$verdict",
    "paired_round_ratios": {"median": $pmed, "ci95": [$plo, $phi], "sorted": [$pall]}},
  "allocations": {"median_detection_allocs_per_packet": $allocs, "median_disable_detection_allocs_per_packet": $allocs_off,
    "bar": "<= 0.1", "verdict": "$averdict"},
  "parser": {"benchmark": "BenchmarkParse ./applayer/http", "count": $BENCHCOUNT, "note": "$parse_note",
    "mb_per_s": [${mbs}], "median_mb_per_s": $mbs_med, "ns_per_op": [${nsop}], "allocs_per_op": [${allocsop}]},
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" || { echo "http.sh: $out is not JSON" >&2; exit 1; }
echo "raw results: $out"
