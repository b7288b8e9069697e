#!/bin/sh
# tests/bench/tune.sh - cost of the tuning library (runtime/src/tune.c,
# libdft_tune.so) per call with every knob off, measured the way
# tests/bench/runtime.sh measures the tracer (tests/bench/lib/paired.sh):
# the median paired difference per call, minus the same difference
# without the library, is the library's cost.  "Alone":
# libc's pread and stat replaced by a no-op stand-in behind the library, so
# only its own code is timed.
# Target (issue 13): <= +20 ns per call with no DFT_TUNE_* variable set.
# Timings are printed, never asserted.
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${LIB:-"$REPO/runtime/build/lib/libdft_tune.so"}
# shellcheck source=tests/bench/lib/paired.sh
. "$REPO/tests/bench/lib/paired.sh"
paired_setup tune
head -c 4096 /dev/zero >"$TMP/f.bin"

i=0
while [ "$i" -lt "$ROUNDS" ]; do
	paired read_plain X=1 -- read "$TMP/f.bin" "$N"
	paired read_off "LD_PRELOAD=$LIB" -- read "$TMP/f.bin" "$N"
	paired stat_plain X=1 -- stat "$TMP/f.bin" "$N"
	paired stat_off "LD_PRELOAD=$LIB" -- stat "$TMP/f.bin" "$N"
	paired a_read_plain "LD_PRELOAD=$NOOP" "BENCH_DIRECT=$NOOP" -- read "$TMP/f.bin" "$N"
	paired a_read_off "LD_PRELOAD=$LIB:$NOOP" "BENCH_DIRECT=$NOOP" -- read "$TMP/f.bin" "$N"
	paired a_stat_plain "LD_PRELOAD=$NOOP" "BENCH_DIRECT=$NOOP" -- stat "$TMP/f.bin" "$N"
	paired a_stat_off "LD_PRELOAD=$LIB:$NOOP" "BENCH_DIRECT=$NOOP" -- stat "$TMP/f.bin" "$N"
	i=$((i + 1))
done

echo "tune: extra time per call with libdft_tune.so preloaded and no DFT_TUNE_* set,"
echo "median over $ROUNDS rounds of $N calls, paired with libc's function called directly"
echo "in place (real system calls):"
report "pread 4 KiB" read_plain read_off "<= +20 ns"
report "stat" stat_plain stat_off "<= +20 ns"
echo "library alone (libc calls replaced by a no-op stand-in behind it):"
report "pread 4 KiB" a_read_plain a_read_off "<= +20 ns"
report "stat" a_stat_plain a_stat_off "<= +20 ns"
