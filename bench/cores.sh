#!/usr/bin/env bash
# Cores (issue #8): the same capture and rules with --runmode single and with --runmode workers
# on 1, 2 and N worker threads (N = every core; GOMAXPROCS sets the count), ROUNDS rounds with
# the configurations taking turns. The capture is a synthetic one with many flows
# (bench/gen-traffic), so that flows spread over the workers; the rules are ET-shaped
# (bench/gen-rules) plus the planted-string rules. Prints packets/s medians and the speed-up
# over single, checks that every configuration finds the planted strings equally often, and
# writes bench/results/<date>-<host>-cores.json. On a 2-core machine N is 2: the figures say
# little about scaling beyond that.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-3}
FLOWS=${FLOWS:-8000}
RULES=${RULES:-10000}
work=$(mktemp -d /tmp/meerkat-cores.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
conf=$(cached_config "$work")
go run ./bench/gen-traffic -flows "$FLOWS" -seed 2 -o "$work/traffic.pcap" -rules "$work/planted.rules" 2> "$work/gen.err"
go run ./bench/gen-rules -n "$RULES" -seed 1 > "$work/td.rules"
cat "$work/planted.rules" >> "$work/td.rules"
n=$(nproc)
configs=(single w1 w2)
[ "$n" -gt 2 ] && configs+=("w$n")
run() { # config
	rm -rf "$work/l"; mkdir -p "$work/l"
	case $1 in
	single) "$work/meerkat" -c "$conf" -S "$work/td.rules" -r "$work/traffic.pcap" -l "$work/l" --runmode single -k none ;;
	w*) GOMAXPROCS=${1#w} "$work/meerkat" -c "$conf" -S "$work/td.rules" -r "$work/traffic.pcap" -l "$work/l" --runmode workers -k none ;;
	esac 2> "$work/$1.err" >/dev/null
	awk '/^packets\/s:/ {print $2}' "$work/$1.err" >> "$work/$1.txt"
	grep -o '"signature_id":900000[1-3]' "$work/l/eve.json" | sort | uniq -c | awk '{print $2 "=" $1}' | sed 's/"signature_id"://' | paste -sd' ' > "$work/$1.planted"
}
run single # warm-up: fills the database cache
for c in "${configs[@]}"; do : > "$work/$c.txt"; done
for r in $(seq "$ROUNDS"); do
	for k in $(seq 0 $((${#configs[@]} - 1))); do
		run "${configs[$(((r - 1 + k) % ${#configs[@]}))]}"
	done
done
base=$(median < "$work/single.txt")
printf '\ncapture: go run ./bench/gen-traffic -flows %s -seed 2 (%s); rules: gen-rules -n %s + planted\n' "$FLOWS" "$(grep -m1 "^wrote" "$work/gen.err" | sed "s/^wrote [^:]*: //")" "$RULES"
printf '%-10s %12s %10s  %s\n' config packets/s "vs single" "planted alerts (sid=count)"
json=""
for c in "${configs[@]}"; do
	m=$(median < "$work/$c.txt")
	printf '%-10s %12s %10.3f  %s\n' "$c" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN {print a/b}')" "$(cat "$work/$c.planted")"
	json+="${json:+, }\"$c\": {\"pps\": [$(paste -sd, "$work/$c.txt")], \"median_pps\": $m, \"vs_single\": $(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.3f", a/b}'), \"planted_alerts\": \"$(cat "$work/$c.planted")\"}"
	if [ "$(cat "$work/$c.planted")" != "$(cat "$work/single.planted")" ]; then
		echo "cores.sh: $c found the planted strings $(cat "$work/$c.planted") times, single $(cat "$work/single.planted")" >&2
		exit 1
	fi
done
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-cores.json"
cat > "$out" <<JSON
{
  "benchmark": "cores (issue #8): --runmode single vs --runmode workers with GOMAXPROCS 1, 2 and every core; go run ./bench/gen-traffic -flows $FLOWS -seed 2, go run ./bench/gen-rules -n $RULES -seed 1 plus the planted rules, -k none, sgh-mpm-caching on; w<N> is workers on N threads",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS FLOWS=$FLOWS RULES=$RULES bench/cores.sh",
  "capture": "$(grep -m1 '^wrote' "$work/gen.err" | sed 's/^wrote [^:]*: //; s/"/\\"/g')",
  "configs": {$json},
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
