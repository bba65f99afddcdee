#!/bin/sh
# Test double for meerkat-verify's own tests. It is not the engine and does
# no detection: it plays back canned output so that the runner can be tested
# before (and independently of) the real meerkat binary.
#
# It finds the -l output directory in its arguments, records its argument
# vector there (one per line, file "argv"), and then follows the files in
# $TEST_DIR/fake/ (all optional):
#   eve.json   copied to <outdir>/eve.json
#   fast.log   copied to <outdir>/fast.log
#   stderr     written to standard error
#   sleep      seconds to sleep before exiting
#   signal     signal name to kill itself with (e.g. SEGV)
#   exit       exit status (default 0)
#
# `--build-info` prints a feature line, as Suricata does.
for a in "$@"; do
	if [ "$a" = "--build-info" ]; then
		echo "This is a fake engine for meerkat-verify tests"
		echo "Features: FAKE_FEATURE HAVE_FAKE"
		exit 0
	fi
done

outdir=""
prev=""
for a in "$@"; do
	if [ "$prev" = "-l" ]; then
		outdir="$a"
	fi
	prev="$a"
done

fake="$TEST_DIR/fake"
if [ -n "$outdir" ]; then
	printf '%s\n' "$@" > "$outdir/argv"
	[ -f "$fake/eve.json" ] && cp "$fake/eve.json" "$outdir/eve.json"
	[ -f "$fake/fast.log" ] && cp "$fake/fast.log" "$outdir/fast.log"
fi
[ -f "$fake/stderr" ] && cat "$fake/stderr" >&2
[ -f "$fake/sleep" ] && sleep "$(cat "$fake/sleep")"
[ -f "$fake/signal" ] && kill -s "$(cat "$fake/signal")" $$
if [ -f "$fake/exit" ]; then
	exit "$(cat "$fake/exit")"
fi
exit 0
