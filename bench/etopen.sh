#!/usr/bin/env bash
# Full ET Open on the corpus (issue #19): the captures of ../shared/corpus/pcaps that carry TCP
# or UDP flows (MANIFEST.tsv's flows column above 0), replayed --runmode single -k none, the app
# layer on in every configuration:
#  (a) three configurations rotating round by round (the order shifts by one each round):
#      "detect", every ET Open 2024 rule (the engine loads what it supports); "off",
#      --disable-detection; "control", --disable-detection again. Medians, the ratio
#      detect/off packets/s (bar 0.4), per-round paired ratios with a 95% interval, and the
#      control's control/off ratio (its distance from 1 is the noise of the run);
#  (b) the heap allocations per packet meerkat prints for each run (bar 0.1 with detection, as
#      the HTTP issue's bench judges it);
#  (c) how many rules load in all, how many ET Open rules use DNS or TLS (protocol dns or tls, a
#      dns. or tls. keyword, ssl_ or ja3 keywords) and how many of them load alone (meerkat -T),
#      and the DNS and TLS flows and transactions of the replay (app_layer.flow.*, app_layer.tx.*
#      of the last stats record).
# Writes bench/results/<date>-<host>-etopen.json with every round.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-5}
SHARED=${SHARED:-../shared}
RULES=${RULES:-$SHARED/corpus/rules/et-open-2024-04}
MANIFEST=$SHARED/corpus/pcaps/MANIFEST.tsv
if [ ! -d "$SHARED/corpus/pcaps" ] || [ ! -d "$RULES" ] || [ ! -f "$MANIFEST" ]; then
	echo "etopen.sh: $SHARED/corpus (pcaps with MANIFEST.tsv, ET Open rules) not found; nothing measured" >&2
	exit 0
fi
work=$(mktemp -d /tmp/meerkat-etopen.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
conf=$(cached_config "$work")

# The captures with TCP or UDP flows, as numbered links in a fixed order (link_corpus's naming).
mkdir -p "$work/corpus"
i=0
while IFS= read -r f; do
	[ -f "$SHARED/corpus/pcaps/$f" ] || continue
	i=$((i + 1))
	ln -s "$(realpath "$SHARED/corpus/pcaps/$f")" "$work/corpus/$(printf '%04d' $i)-$(basename "$f")"
done < <(awk -F'\t' 'NR > 1 && $11 !~ /^0 flows/ {print $1}' "$MANIFEST" | sort)
captures=$i

# (c) the ET Open rules that use DNS or TLS, and how many of them load alone.
grep -hE '^[[:space:]]*(alert|drop|reject|pass|rejectsrc|rejectdst|rejectboth)[[:space:]]' "$RULES"/*.rules |
	grep -E '^[^(]*[[:space:]](dns|tls)[[:space:]]|[(; ](dns|tls)[._][a-z_.0-9]+[;:]|[(; ](ssl_[a-z_]+|ja3[._a-z0-9]*|ja4[._a-z0-9]*)[;:]' > "$work/dnstls.rules" || true
dnstls_rules=$(wc -l < "$work/dnstls.rules")
"$work/meerkat" -T -c "$conf" -S "$work/dnstls.rules" 2> "$work/dnstls-rules.err" >/dev/null || true
dnstls_summary=$(grep 'rule files processed' "$work/dnstls-rules.err" | sed 's/^meerkat: //' || true)
dnstls_loaded=$(echo "$dnstls_summary" | sed -n 's/.* \([0-9][0-9]*\) rules successfully loaded.*/\1/p')
dnstls_loaded=${dnstls_loaded:-0}

# run NAME ARGS...: one replay; appends its packets/s and allocations per packet to
# $work/NAME.txt and $work/NAME-allocs.txt, keeps its summary in $work/NAME.err and its EVE
# log in $work/log-NAME.
run() {
	local name=$1
	shift
	rm -rf "$work/log-$name"; mkdir -p "$work/log-$name"
	"$work/meerkat" -c "$conf" -r "$work/corpus" -l "$work/log-$name" --runmode single -k none "$@" \
		2> "$work/$name.err" >/dev/null || { cat "$work/$name.err" >&2; echo "etopen.sh: meerkat failed ($name)" >&2; exit 1; }
	awk '/^packets\/s:/ {print $2}' "$work/$name.err" >> "$work/$name.txt"
	awk '/^heap allocations per packet:/ {print $5}' "$work/$name.err" >> "$work/$name-allocs.txt"
}
names=(detect off control)
for n in "${names[@]}"; do : > "$work/$n.txt"; : > "$work/$n-allocs.txt"; done
# A first detection run fills the pattern database cache, so that no measured round compiles.
run warmup -S "$RULES/*.rules"
order_json=()
for r in $(seq "$ROUNDS"); do
	s=$(((r - 1) % 3))
	order=("${names[@]:s}" "${names[@]:0:s}")
	for n in "${order[@]}"; do
		case $n in
		detect) run detect -S "$RULES/*.rules" ;;
		off | control) run "$n" --disable-detection ;;
		esac
	done
	order_json+=("[\"${order[0]}\", \"${order[1]}\", \"${order[2]}\"]")
	printf 'round %s (%s): detection %s, --disable-detection %s, control %s pkt/s; allocations per packet %s\n' "$r" "${order[*]}" \
		"$(tail -1 "$work/detect.txt")" "$(tail -1 "$work/off.txt")" "$(tail -1 "$work/control.txt")" "$(tail -1 "$work/detect-allocs.txt")"
done
det=$(median < "$work/detect.txt"); off=$(median < "$work/off.txt"); ctl=$(median < "$work/control.txt")
ratio=$(awk -v a="$off" -v b="$det" 'BEGIN {printf "%.3f", b/a}')
cratio=$(awk -v a="$off" -v b="$ctl" 'BEGIN {printf "%.3f", b/a}')
verdict=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.4) ? "PASS" : "FAIL"}')
read -r pmed plo phi pall < <(paired_ratios "$work/off.txt" "$work/detect.txt")
read -r cmed clo chi call < <(paired_ratios "$work/off.txt" "$work/control.txt")
allocs=$(median < "$work/detect-allocs.txt")
allocs_off=$(median < "$work/off-allocs.txt")
allocs_ctl=$(median < "$work/control-allocs.txt")
averdict=$(awk -v a="$allocs" 'BEGIN {print (a <= 0.1) ? "PASS" : "FAIL"}')
packets=$(awk '/^packets:/ {print $2}' "$work/detect.err")
summary=$(grep 'rule files processed' "$work/detect.err" | sed 's/^meerkat: //')
loaded=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) rules successfully loaded.*/\1/p')
failed=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) rules failed.*/\1/p')
alerts=$(awk '/^alerts:/ {print $2}' "$work/detect.err")

# app_counts LOG: the DNS and TLS flows and transactions in the last stats record of an EVE
# log (app_layer.flow.dns_udp + dns_tcp, app_layer.tx.*, tls; null where the engine does not
# count them).
app_counts() {
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
def get(kind, names):
    d = al.get(kind) or {}
    vals = [d[n] for n in names if isinstance(d.get(n), (int, float))]
    return str(sum(vals)) if vals else "null"
dns = ["dns", "dns_udp", "dns_tcp"]
print(get("flow", dns), get("tx", dns), get("flow", ["tls"]), get("tx", ["tls"]))
PY
}
read -r dns_flows dns_txs tls_flows tls_txs < <(app_counts "$work/log-detect/eve.json")
read -r dns_flows_off dns_txs_off tls_flows_off tls_txs_off < <(app_counts "$work/log-off/eve.json")

printf '\n%s captures with TCP or UDP flows, packets %s; rules: %s\n' "$captures" "$packets" "$summary"
printf 'ET Open rules using DNS or TLS: %s, loaded alone: %s (%s)\n' "$dnstls_rules" "$dnstls_loaded" "$dnstls_summary"
printf 'DNS flows, transactions: with detection %s, %s; with --disable-detection %s, %s. TLS: %s, %s; %s, %s\n' \
	"$dns_flows" "$dns_txs" "$dns_flows_off" "$dns_txs_off" "$tls_flows" "$tls_txs" "$tls_flows_off" "$tls_txs_off"
printf '(a) medians of %s rounds: ET Open %s pkt/s against --disable-detection %s: ratio %s (bar 0.4): %s; per-round median %s [%s, %s]\n' \
	"$ROUNDS" "$det" "$off" "$ratio" "$verdict" "$pmed" "$plo" "$phi"
printf '    control (--disable-detection again) %s pkt/s, control/off %s, per-round median %s [%s, %s]\n' "$ctl" "$cratio" "$cmed" "$clo" "$chi"
printf '(b) heap allocations per packet with detection %s (bar 0.1): %s; --disable-detection %s, control %s; alerts %s\n' \
	"$allocs" "$averdict" "$allocs_off" "$allocs_ctl" "$alerts"

host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-etopen.json"
cat > "$out" <<JSON
{
  "benchmark": "full ET Open (issue #19): corpus captures with TCP or UDP flows, --runmode single, -k none, the app layer on in all; every ET Open 2024 rule against --disable-detection and a second --disable-detection run (the control), rotating round by round",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS bench/etopen.sh",
  "captures": $captures,
  "packets": $packets,
  "rules": "$summary",
  "rules_loaded": ${loaded:-null},
  "rules_failed": ${failed:-null},
  "dns_tls_rules": {"in_et_open": $dnstls_rules, "loaded": $dnstls_loaded, "summary": "$dnstls_summary",
    "selection": "rules with protocol dns or tls, a dns. or tls. keyword, ssl_ or ja3/ja4 keywords"},
  "dns": {"flows_detection": $dns_flows, "transactions_detection": $dns_txs, "flows_disable_detection": $dns_flows_off, "transactions_disable_detection": $dns_txs_off},
  "tls": {"flows_detection": $tls_flows, "transactions_detection": $tls_txs, "flows_disable_detection": $tls_flows_off, "transactions_disable_detection": $tls_txs_off},
  "round_orders": [$(IFS=,; echo "${order_json[*]}")],
  "whole_process": {
    "detection_pps": [$(paste -sd, "$work/detect.txt")],
    "disable_detection_pps": [$(paste -sd, "$work/off.txt")],
    "control_pps": [$(paste -sd, "$work/control.txt")],
    "detection_allocs_per_packet": [$(paste -sd, "$work/detect-allocs.txt")],
    "disable_detection_allocs_per_packet": [$(paste -sd, "$work/off-allocs.txt")],
    "control_allocs_per_packet": [$(paste -sd, "$work/control-allocs.txt")],
    "median_detection_pps": $det,
    "median_disable_detection_pps": $off,
    "median_control_pps": $ctl,
    "alerts_detection": $alerts
  },
  "detection": {"ratio_detection_disable_detection_pps": $ratio, "bar": 0.4, "verdict": "$verdict",
    "paired_round_ratios": {"median": $pmed, "ci95": [$plo, $phi], "sorted": [$pall]}},
  "control": {"ratio_control_disable_detection_pps": $cratio,
    "paired_round_ratios": {"median": $cmed, "ci95": [$clo, $chi], "sorted": [$call]}},
  "allocations": {"median_detection_allocs_per_packet": $allocs, "median_disable_detection_allocs_per_packet": $allocs_off,
    "median_control_allocs_per_packet": $allocs_ctl, "bar": "<= 0.1", "verdict": "$averdict"},
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" || { echo "etopen.sh: $out is not JSON" >&2; exit 1; }
echo "raw results: $out"
