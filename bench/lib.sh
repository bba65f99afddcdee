# Shared helpers of the bench/ scripts (sourced, from the repository root).

# link_corpus DIR: every capture of $SHARED/corpus/pcaps as a numbered link in DIR, so that
# readloop and meerkat can take the whole corpus as one directory, in a fixed order.
link_corpus() {
	mkdir -p "$1"
	local i=0 f
	while IFS= read -r f; do
		i=$((i + 1))
		ln -s "$(realpath "$f")" "$1/$(printf '%04d' $i)-$(basename "$f")"
	done < <(find "$SHARED/corpus/pcaps" -type f ! -name '*.md' ! -name '*.txt' ! -name '*.tsv' ! -name 'LICENSE*' ! -name 'README*' | sort)
}

# median: the median of the numbers on standard input, one per line.
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# cached_config DIR: writes DIR/cached.yaml, the bundled suricata.yaml with the pattern
# database cache on (in DIR/sgh-cache), as Suricata 8's default configuration has it, and
# prints its path. Runs after the first then read the compiled databases back instead of
# compiling them again (seconds per run with per-group databases).
cached_config() {
	cat > "$1/cached.yaml" <<YAML
%YAML 1.1
---
include: $PWD/suricata.yaml
detect:
  sgh-mpm-caching: yes
  sgh-mpm-caching-path: $1/sgh-cache
YAML
	echo "$1/cached.yaml"
}

# machine_json: this machine as the JSON object the results files carry.
machine_json() {
	printf '{"host": "%s", "cpu": "%s", "cores": %s, "memory": "%s"}' "$(hostname -s 2>/dev/null || echo host)" \
		"$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)" "$(nproc)" \
		"$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
}

# paired_ratios A B: for files A and B holding one figure per round (same rounds, same order),
# the per-round ratios B/A: prints the median, its 95% confidence interval (the k-th smallest
# and largest of n, k the largest with P(Binomial(n, 1/2) < k) <= 0.025) and every ratio,
# sorted and comma-separated.
paired_ratios() {
	python3 - "$1" "$2" <<'PY'
import math, sys
a = [float(x) for x in open(sys.argv[1])]
b = [float(x) for x in open(sys.argv[2])]
r = sorted(y / x for x, y in zip(a, b))
n = len(r)
med = r[n // 2] if n % 2 else (r[n // 2 - 1] + r[n // 2]) / 2
k, cum = 0, 0.0
while True:
    p = math.comb(n, k) / 2 ** n
    if cum + p > 0.025:
        break
    cum += p
    k += 1
lo, hi = (r[k - 1], r[n - k]) if k >= 1 else (r[0], r[-1])
print(f"{med:.3f} {lo:.3f} {hi:.3f} {','.join(f'{x:.3f}' for x in r)}")
PY
}

# commit_id: the commit the results come from, with "-dirty" when the working tree differs
# from it (such results cannot be reproduced from the commit alone).
commit_id() {
	local c
	c=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	# Results files being written (or from earlier runs) do not make the code dirty.
	if [ "$c" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no -- . ':!bench/results' 2>/dev/null)" ]; then
		c="$c-dirty"
	fi
	echo "$c"
}

# interleaved_loop CAPTURE TD_RULES FW_RULES ROUNDS WORKDIR: the packet loop in one process with
# IPS, firewall (FW_RULES), firewall with no rules and a second IPS engine (the control)
# interleaved 256 packets at a time, EVE written to /dev/null (BenchmarkFirewallVsIPS with
# MEERKAT_BENCH_INTERLEAVE and MEERKAT_BENCH_EVE; compiled databases cached in WORKDIR/sgh-cache,
# where cached_config keeps meerkat's). Judges the bars: fw/ips >= 0.95, and
# no-rules/ips no further below 1 than the control, with a tolerance of at least 1%. Prints one
# line and sets $inproc to the JSON object the results files record; fails the script if the
# benchmark fails.
interleaved_loop() {
	local capture=$1 td=$2 fw=$3 rounds=$4 dir=$5 line fwr fwer ctl in_fw in_fwe
	MEERKAT_BENCH_CAPTURE="$capture" MEERKAT_BENCH_TD="$td" MEERKAT_BENCH_FW="$fw" \
		MEERKAT_BENCH_MODES=ips,fw,fw-empty,ips-again MEERKAT_BENCH_INTERLEAVE=256 MEERKAT_BENCH_EVE=1 \
		MEERKAT_BENCH_MPM_CACHE="$dir/sgh-cache" \
		go test ./pipeline -run '^$' -bench FirewallVsIPS -benchtime "${rounds}x" > "$dir/inproc.txt" 2>&1 ||
		{ tail -20 "$dir/inproc.txt" >&2; echo "$0: the in-process benchmark failed" >&2; exit 1; }
	line=$(grep '^BenchmarkFirewallVsIPS' "$dir/inproc.txt")
	metric() { echo "$line" | awk -v m="$1" '{for (i = 2; i <= NF; i++) if ($i == m) print $(i-1)}'; }
	fwr=$(metric fw/ips-pps); fwer=$(metric fw-empty/ips-pps); ctl=$(metric ips-again/ips-pps)
	in_fw=$(awk -v r="$fwr" 'BEGIN {print (r >= 0.95) ? "PASS" : "FAIL"}')
	# The control's own distance from 1 is the measurement's noise in this run; below 1% it
	# understates it (controls of earlier runs ranged over 0.993-1.013), so the tolerance is at
	# least 1%.
	in_fwe=$(awk -v r="$fwer" -v c="$ctl" 'BEGIN {t = (c < 1) ? c : 1 / c; if (t > 0.99) t = 0.99; print (r >= t) ? "PASS" : "FAIL"}')
	inproc="{\"rounds\": $rounds, \"interleave_packets\": 256, \"eve\": \"alert, drop and flow records written to /dev/null\", \"verdict_fw\": \"$in_fw\", \"bar_fw\": \"fw/ips >= 0.95\", \"verdict_fw_empty\": \"$in_fwe\", \"bar_fw_empty\": \"fw_empty/ips >= min(control, 1/control, 0.99): no further below 1 than the control ips_again/ips, with a tolerance of at least 1%\", \"ns_per_packet\": {\"ips\": $(metric ips-ns/pkt), \"fw\": $(metric fw-ns/pkt), \"fw_empty\": $(metric fw-empty-ns/pkt), \"ips_again\": $(metric ips-again-ns/pkt)}, \"median_round_ratio_pps\": {\"fw/ips\": $fwr, \"fw_empty/ips\": $fwer, \"ips_again/ips\": $ctl}}"
	printf 'packet loop in process, modes interleaved, %s rounds: ns/packet ips %s, fw %s, fw with no rules %s, ips again %s; fw/ips %s (bar 0.95): %s; no rules/ips %s (bar: no further below 1 than the control %s, tolerance at least 1%%): %s\n' \
		"$rounds" "$(metric ips-ns/pkt)" "$(metric fw-ns/pkt)" "$(metric fw-empty-ns/pkt)" "$(metric ips-again-ns/pkt)" \
		"$fwr" "$in_fw" "$fwer" "$ctl" "$in_fwe"
}
