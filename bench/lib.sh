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
