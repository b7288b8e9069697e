#!/bin/sh
# tests/bench/tune.sh - cost of the tuning library (runtime/src/tune.c,
# libdft_tune.so) per call with every knob off, measured the way
# tests/bench/runtime.sh measures the tracer: tests/fixtures/runtime/bench.c
# alternates batches of calls through the normal symbol (which the
# preloaded library intercepts) with batches through a pointer to libc's
# own function, in one process; the median difference per call, minus the
# same difference without the library, is the library's cost.  "Alone":
# libc's pread and stat replaced by a no-op stand-in behind the library, so
# only its own code is timed.
# Target (issue 13): <= +20 ns per call with no DFT_TUNE_* variable set.
# Timings are printed, never asserted.
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${LIB:-"$REPO/runtime/build/lib/libdft_tune.so"}
N=${N:-100000}
ROUNDS=${ROUNDS:-11}

if [ ! -f "$LIB" ]; then
	echo "$LIB: not found (build it: make -C runtime)" >&2
	exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dft-tune-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
cc -O2 -o "$TMP/bench" "$REPO/tests/fixtures/runtime/bench.c" -ldl
cc -O2 -shared -fPIC -o "$TMP/noop.so" "$REPO/tests/fixtures/runtime/noop_libc.c"
head -c 4096 /dev/zero >"$TMP/f.bin"
NOOP="$TMP/noop.so"

# run NAME ENV... -- ARGS: appends "best paired" per call to $TMP/NAME
run() {
	name=$1
	shift
	env_args=""
	while [ "$1" != "--" ]; do
		env_args="$env_args $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	env $env_args "$TMP/bench" "$@" >>"$TMP/$name"
}

i=0
while [ "$i" -lt "$ROUNDS" ]; do
	run read_plain X=1 -- read "$TMP/f.bin" "$N"
	run read_off "LD_PRELOAD=$LIB" -- read "$TMP/f.bin" "$N"
	run stat_plain X=1 -- stat "$TMP/f.bin" "$N"
	run stat_off "LD_PRELOAD=$LIB" -- stat "$TMP/f.bin" "$N"
	run a_read_plain "LD_PRELOAD=$NOOP" "BENCH_DIRECT=$NOOP" -- read "$TMP/f.bin" "$N"
	run a_read_off "LD_PRELOAD=$LIB:$NOOP" "BENCH_DIRECT=$NOOP" -- read "$TMP/f.bin" "$N"
	run a_stat_plain "LD_PRELOAD=$NOOP" "BENCH_DIRECT=$NOOP" -- stat "$TMP/f.bin" "$N"
	run a_stat_off "LD_PRELOAD=$LIB:$NOOP" "BENCH_DIRECT=$NOOP" -- stat "$TMP/f.bin" "$N"
	i=$((i + 1))
done

# stats FILE: "median min max" of column 2 (the paired cost) over rounds
stats() {
	sort -n -k 2 "$TMP/$1" | awk '{ v[NR] = $2 }
		END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# report WHAT BASE X: X's paired cost minus BASE's, median and range
report() {
	# shellcheck disable=SC2046
	set -- "$1" $(stats "$2") $(stats "$3")
	awk -v what="$1" -v b="$2" -v x="$5" -v lo="$6" -v hi="$7" \
		'BEGIN { printf "  %-40s %+7.1f ns  (rounds %+.1f .. %+.1f)  target <= +20 ns\n",
			what, x - b, lo - b, hi - b }'
}

echo "tune: extra time per call with libdft_tune.so preloaded and no DFT_TUNE_* set,"
echo "median over $ROUNDS rounds of $N calls, paired with libc's function called directly"
echo "in place (real system calls):"
report "pread 4 KiB" read_plain read_off
report "stat" stat_plain stat_off
echo "library alone (libc calls replaced by a no-op stand-in behind it):"
report "pread 4 KiB" a_read_plain a_read_off
report "stat" a_stat_plain a_stat_off
