#!/usr/bin/env bash
# Peer comparison (issue #8): when a `suricata` binary is on PATH (or SURICATA names one), the
# corpus captures (without the gzip ones) with the ET Open rules meerkat loads and a synthetic
# capture with ET-shaped rules, replayed
# by meerkat and by suricata with the same configuration file (meerkat's suricata.yaml, which
# Suricata reads), --runmode single, ROUNDS rounds taking turns. Nothing of Suricata is shipped
# or built here: without a binary the script says so and measures nothing. Prints wall-clock
# medians (both programs' whole run: Suricata's summary is not meerkat's) and alert counts, and
# writes bench/results/<date>-<host>-peer.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${ROUNDS:-3}
SHARED=${SHARED:-../shared}
SURICATA=${SURICATA:-$(command -v suricata || true)}
if [ -z "$SURICATA" ]; then
	echo "peer.sh: no suricata binary on PATH (set SURICATA=/path/to/suricata); nothing measured" >&2
	exit 0
fi
work=$(mktemp -d /tmp/meerkat-peer.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/meerkat" ./cmd/meerkat
conf=$(cached_config "$work")
go run ./bench/gen-traffic -flows 4000 -seed 1 -o "$work/traffic.pcap" -rules "$work/planted.rules" 2> /dev/null
go run ./bench/gen-rules -n 10000 -seed 1 > "$work/synthetic.rules"
cat "$work/planted.rules" >> "$work/synthetic.rules"
cases=(synthetic)
if [ -d "$SHARED/corpus/pcaps" ] && [ -d "$SHARED/corpus/rules/et-open-2024-04" ]; then
	link_corpus "$work/corpus"
	# Suricata reads no gzip captures; both programs get the rest.
	find "$work/corpus" -name '*.gz' -delete
	# Both programs get the same rules: the ET Open rules meerkat loads (the others wait for
	# app-layer parsing here, and would give Suricata more work).
	cat "$SHARED"/corpus/rules/et-open-2024-04/*.rules > "$work/et-all.rules"
	"$work/meerkat" -c "$conf" -T -S "$work/et-all.rules" 2> "$work/et-load.err" >/dev/null || true
	grep -o 'et-all.rules:[0-9]*' "$work/et-load.err" | cut -d: -f2 | sort -u > "$work/et-bad.lines"
	awk 'NR == FNR {bad[$1] = 1; next} !(FNR in bad)' "$work/et-bad.lines" "$work/et-all.rules" > "$work/corpus.rules"
	cases+=(corpus)
fi
input() { [ "$1" = corpus ] && echo "$work/corpus" || echo "$work/traffic.pcap"; }
run() { # program case
	rm -rf "$work/l"; mkdir -p "$work/l"
	local start end bin=$work/meerkat
	[ "$1" = suricata ] && bin=$SURICATA
	start=$(date +%s.%N)
	if ! "$bin" -c "$conf" -S "$work/$2.rules" -r "$(input "$2")" -l "$work/l" --runmode single -k none > "$work/$1-$2.out" 2>&1; then
		echo "peer.sh: $1 failed on $2: $(tail -3 "$work/$1-$2.out")" >&2
		exit 1
	fi
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}' >> "$work/$1-$2.txt"
	grep -c '"event_type":"alert"' "$work/l/eve.json" > "$work/$1-$2.alerts" 2>/dev/null || echo 0 > "$work/$1-$2.alerts"
}
for c in "${cases[@]}"; do
	for p in meerkat suricata; do : > "$work/$p-$c.txt"; run "$p" "$c"; : > "$work/$p-$c.txt"; done
done
for r in $(seq "$ROUNDS"); do
	for c in "${cases[@]}"; do
		if [ $((r % 2)) -eq 1 ]; then run meerkat "$c"; run suricata "$c"; else run suricata "$c"; run meerkat "$c"; fi
	done
done
version=$("$SURICATA" -V 2>&1 | head -1 | sed 's/"/\\"/g')
printf '\n%s\n%-10s %-10s %12s %8s\n' "$version" case program "wall s" alerts
json=""
for c in "${cases[@]}"; do
	for p in meerkat suricata; do
		printf '%-10s %-10s %12s %8s\n' "$c" "$p" "$(median < "$work/$p-$c.txt")" "$(cat "$work/$p-$c.alerts")"
		json+="${json:+, }\"$p-$c\": {\"wall_seconds\": [$(paste -sd, "$work/$p-$c.txt")], \"median\": $(median < "$work/$p-$c.txt"), \"alerts\": $(cat "$work/$p-$c.alerts")}"
	done
done
host=$(hostname -s 2>/dev/null || echo host)
out="bench/results/$(date -u +%Y-%m-%d)-${host}-peer.json"
cat > "$out" <<JSON
{
  "benchmark": "peer (issue #8): meerkat and suricata ($version) with the same configuration, whole-run wall time, --runmode single -k none; synthetic = gen-traffic -flows 4000 -seed 1 with gen-rules -n 10000 -seed 1 + planted rules; corpus = ../shared/corpus/pcaps with ET Open 2024",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": $(machine_json),
  "commit": "$(commit_id)",
  "command": "ROUNDS=$ROUNDS bench/peer.sh",
  "runs": {$json},
  "disclaimer": "One machine on one day; a shared, noisy VM. Ratios measured side by side are more trustworthy than absolute figures."
}
JSON
echo "raw results: $out"
