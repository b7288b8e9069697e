# tests/bench/lib/paired.sh - the paired per-call measurement shared by
# tests/bench/runtime.sh (the tracer) and tests/bench/tune.sh (the tuning
# library); sourced with `.`, not a benchmark of its own (make bench runs
# tests/bench/*.sh only).
#
# How (tests/fixtures/runtime/bench.c): one process alternates batches of
# calls through the normal symbol (which a preloaded library intercepts)
# with batches through a pointer to libc's own function (which it does
# not); the median difference per call is the interception's cost, with
# the same libc and kernel work on both sides.  "Alone" settings put
# noop_libc.c's no-op stand-ins behind the library (BENCH_DIRECT=$NOOP), so
# only the library's own code is timed.
#
# Before sourcing: REPO (the checkout) and LIB (the library to time).
# paired_setup TAG: checks LIB, makes TMP (removed at exit), builds
#   $BENCH (bench.c) and $NOOP (noop_libc.c); N and ROUNDS default to
#   100000 calls and 11 rounds.
# paired NAME ENV... -- ARGS: one run of $BENCH ARGS in $RUN_DIR ($TMP;
#   set it after paired_setup to run elsewhere) with ENV, appending its "best paired" line to $TMP/NAME; the
#   traces a traced run writes to $TMP/traces are removed after it.
# stats NAME: "median min max" of column 2 (the paired cost) over rounds.
# report WHAT BASE X TARGET: X's paired cost minus BASE's, median and range.
# Timings are printed, never asserted.
# This file does not: choose the configurations, or say what a target is.

# shellcheck shell=sh
N=${N:-100000}
ROUNDS=${ROUNDS:-11}

paired_setup() {
	if [ ! -f "$LIB" ]; then
		echo "$LIB: not found (build it: make -C runtime)" >&2
		exit 1
	fi
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/dft-$1-bench.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$TMP'" EXIT INT TERM
	RUN_DIR=$TMP
	BENCH="$TMP/bench"
	NOOP="$TMP/noop.so"
	cc -O2 -o "$BENCH" "$REPO/tests/fixtures/runtime/bench.c" -ldl
	cc -O2 -shared -fPIC -o "$NOOP" "$REPO/tests/fixtures/runtime/noop_libc.c"
}

paired() {
	name=$1
	shift
	env_args=""
	while [ "$1" != "--" ]; do
		env_args="$env_args $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	(cd "$RUN_DIR" && env $env_args "$BENCH" "$@") >>"$TMP/$name"
	rm -f "$TMP"/traces/*
}

stats() {
	sort -n -k 2 "$TMP/$1" | awk '{ v[NR] = $2 }
		END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}

report() {
	# shellcheck disable=SC2046
	set -- "$1" $(stats "$2") $(stats "$3") "$4"
	awk -v what="$1" -v b="$2" -v x="$5" -v lo="$6" -v hi="$7" -v target="$8" \
		'BEGIN { printf "  %-46s %+7.1f ns  (rounds %+.1f .. %+.1f)  target %s\n",
			what, x - b, lo - b, hi - b, target }'
}
