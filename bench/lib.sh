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
