#!/bin/sh
# tests/bench/runtime.sh - cost of the bundled tracer (runtime/) per call,
# against an untraced run of the same program in the same benchmark.
# Targets (issue 5, DESIGN.md section 7):
#   traced 4 KiB pread from page cache    <= +1000 ns
#   a call on a path outside DATA_DIR     <= +50 ns
#   library loaded, DFTRACER_ENABLE unset: no measurable cost
#   the re-entry guard and the throttle (issue 16) on an untraced call:
#     <= +20 ns (a START/END pair with tracing off, a call outside DATA_DIR)
#   a START/END pair of a throttled function (folded into an aggregated
#     record) costs a fraction of a traced one
#   per-process cost (issue 16, lz4: short processes): a tiny annotated
#     program (INIT, one region around one open/write/close, FINI) started
#     START_K times a round: untraced build, annotated with tracing off,
#     traced; reported as extra us per process and as ratios; also living
#     5 ms longer, and starting 3 threads while main faults memory in
#
# How (tests/bench/lib/paired.sh): the median paired difference per call
# is the interception's cost, with the same libc and kernel work on both
# sides.  The same is measured without the tracer (about 0: a PLT call
# against a pointer call) and subtracted.  Each configuration runs ROUNDS
# times, interleaved with the others; the report gives the median over
# rounds and the range.
#
# Two settings:
#   in place: real system calls, as an application pays them.  On a busy
#     or virtualised machine one system call varies by more than the
#     tracer costs, so the range is wide; the median is the figure.
#   tracer alone: libc's pread/stat/access replaced, behind the tracer, by
#     a no-op stand-in (noop_libc.c), so only the tracer's own code is
#     timed: steady to a nanosecond or two.
# Timings are printed, never asserted.
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
# LIB: the preload library to time (another build, to compare two)
LIB=${LIB:-"$REPO/runtime/build/lib/libdftracer_preload.so"}
# shellcheck source=tests/bench/lib/paired.sh
. "$REPO/tests/bench/lib/paired.sh"
paired_setup rt
mkdir -p "$TMP/data" "$TMP/other" "$TMP/traces"
head -c 4096 /dev/zero > "$TMP/data/f.bin"
cp "$TMP/data/f.bin" "$TMP/other/f.bin"
cat "$TMP/data/f.bin" > /dev/null
# a relative path is in $TMP/other, outside DATA_DIR
RUN_DIR="$TMP/other"

# NOLAYERS: the same preload library without its MPI-IO and HDF5 layers
# (libsym.o, mpi.o, mpiio.o, hdf5.o left out), linked as runtime/Makefile links
# it: the baseline of "a program that uses neither pays nothing".
OBJ="$REPO/runtime/build/obj"
NOLAYERS=""
if [ -f "$OBJ/mpiio.o" ] && [ -f "$OBJ/preload.o" ]; then
	ZLIB_A=$(cc -print-file-name=libz.a)
	case $ZLIB_A in /*) [ -f "$ZLIB_A" ] || ZLIB_A="" ;; *) ZLIB_A="" ;; esac
	# shellcheck disable=SC2046
	cc -shared -pthread -o "$TMP/nolayers.so" $(ls "$OBJ"/*.o |
		grep -v -E '/(libsym|mpi|mpiio|hdf5|tune)\.o$') -Wl,--no-as-needed \
		${ZLIB_A:+-Wl,--exclude-libs,libz.a "$ZLIB_A"} ${ZLIB_A:--lz} \
		-ldl -lpthread -Wl,--as-needed && NOLAYERS="$TMP/nolayers.so"
fi

# starts NAME ENV...: appends the nanoseconds of 50 starts of a program
# that makes one stat call (no MPI, no HDF5) to $TMP/NAME
starts() {
	name=$1
	shift
	t0=$(date +%s%N)
	k=0
	while [ "$k" -lt 50 ]; do
		# shellcheck disable=SC2068
		(cd "$RUN_DIR" && env $@ "$BENCH" stat "$TMP/other/f.bin" 1) >/dev/null
		k=$((k + 1))
	done
	t1=$(date +%s%N)
	echo "x $(( (t1 - t0) / 50 ))" >> "$TMP/$name"
	rm -f "$TMP"/traces/*
}

# per-process cost: startup.c built plain and annotated (linked to the
# core beside LIB, as dft-cc links: -ldftracer_core with its run path)
START_K=${START_K:-20}
LIBDIR=$(dirname "$LIB")
FX="$REPO/tests/fixtures/runtime"
cc -O2 -DPLAIN -pthread -o "$TMP/startup_plain" "$FX/startup.c"
echo x > "$TMP/data/s.bin"
cc -O2 -pthread -o "$TMP/startup" "$FX/startup.c" -I"$REPO/runtime/include" \
	-L"$LIBDIR" -ldftracer_core -Wl,-rpath,"$LIBDIR"

# spawned NAME PROG ENV...: appends "x WALL CPU THREAD" to $TMP/NAME, the
# mean nanoseconds of START_K processes of PROG (one after another): wall,
# CPU of all their threads, and CPU of the main (traced) thread, exec and
# loading included (startup.c's STARTUP_LOG: written after the tracer's
# exit handler)
spawned() {
	name=$1
	prog=$2
	shift 2
	rm -f "$TMP/thread.log"
	# shellcheck disable=SC2068
	wc=$(env STARTUP_LOG="$TMP/thread.log" $@ "$TMP/startup_plain" spawn "$START_K" "$prog" "$TMP/data/s.bin")
	th=$(awk '{ s += $1 } END { printf "%.0f", s / NR }' "$TMP/thread.log")
	echo "x $wc $th" >> "$TMP/$name"
	case "$*" in
	*DFTRACER_ENABLE=1*)
		[ "$(ls "$TMP"/traces | wc -l)" -eq "$START_K" ] ||
			{ echo "$name: not $START_K traces" >&2; exit 1; } ;;
	esac
	rm -f "$TMP"/traces/*
}

ON="DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_DATA_DIR=$TMP/data DFTRACER_LOG_FILE=$TMP/traces/t"
META="DFTRACER_INC_METADATA=1"
# an annotated program initialises itself (DFTRACER_INIT=PRELOAD would
# leave that to a preloaded library)
APP_ON="DFTRACER_ENABLE=1 DFTRACER_DATA_DIR=$TMP/data DFTRACER_LOG_FILE=$TMP/traces/t"
ALONE="BENCH_DIRECT=$NOOP"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	{
	paired read_plain -- read "$TMP/data/f.bin" "$N"
	paired read_off "LD_PRELOAD=$LIB" -- read "$TMP/data/f.bin" "$N"
	paired read_traced "LD_PRELOAD=$LIB" $ON -- read "$TMP/data/f.bin" "$N"
	paired read_outside "LD_PRELOAD=$LIB" $ON -- read "$TMP/other/f.bin" "$N"
	paired read_meta "LD_PRELOAD=$LIB" $ON $META -- read "$TMP/data/f.bin" "$N"
	paired read_meta_plain "LD_PRELOAD=$LIB" $ON $META DFTRACER_TRACE_COMPRESSION=0 -- read "$TMP/data/f.bin" "$N"
	paired stat_plain -- stat "$TMP/other/f.bin" "$N"
	paired stat_off "LD_PRELOAD=$LIB" -- stat "$TMP/other/f.bin" "$N"
	paired stat_outside "LD_PRELOAD=$LIB" $ON -- stat "$TMP/other/f.bin" "$N"
	paired stat_rel "LD_PRELOAD=$LIB" $ON -- stat f.bin "$N"
	paired access_plain -- access "$TMP/other/missing/f.bin" "$N"
	paired access_outside "LD_PRELOAD=$LIB" $ON -- access "$TMP/other/missing/f.bin" "$N"
	paired a_stat_plain "LD_PRELOAD=$NOOP" $ALONE -- stat "$TMP/other/f.bin" "$N"
	paired a_stat_off "LD_PRELOAD=$LIB:$NOOP" $ALONE -- stat "$TMP/other/f.bin" "$N"
	paired a_stat_outside "LD_PRELOAD=$LIB:$NOOP" $ALONE $ON -- stat "$TMP/other/f.bin" "$N"
	paired a_stat_rel "LD_PRELOAD=$LIB:$NOOP" $ALONE $ON -- stat f.bin "$N"
	paired a_read_plain "LD_PRELOAD=$NOOP" $ALONE -- read "$TMP/data/f.bin" "$N"
	paired a_read_traced "LD_PRELOAD=$LIB:$NOOP" $ALONE $ON -- read "$TMP/data/f.bin" "$N"
	paired a_read_outside "LD_PRELOAD=$LIB:$NOOP" $ALONE $ON -- read "$TMP/other/f.bin" "$N"
	paired a_read_meta "LD_PRELOAD=$LIB:$NOOP" $ALONE $ON $META -- read "$TMP/data/f.bin" "$N"
	paired f_plain -- fn - "$N"
	paired f_off "LD_PRELOAD=$LIB" -- fn - "$N"
	paired f_traced "LD_PRELOAD=$LIB" $ON $META DFTRACER_THROTTLE_CALLS=0 -- fn - "$N"
	paired f_throttled "LD_PRELOAD=$LIB" $ON $META DFTRACER_THROTTLE_CALLS=1 -- fn - "$N"
	paired f_throttled_clock "LD_PRELOAD=$LIB" $ON $META DFTRACER_THROTTLE_CALLS=1 DFTRACER_TSC=0 -- fn - "$N"
	paired read_agg "LD_PRELOAD=$LIB" $ON $META DFTRACER_THROTTLE_CALLS=1 -- read "$TMP/data/f.bin" "$N"
	paired read_agg_clock "LD_PRELOAD=$LIB" $ON $META DFTRACER_THROTTLE_CALLS=1 DFTRACER_TSC=0 -- read "$TMP/data/f.bin" "$N"
	paired a_read_agg "LD_PRELOAD=$LIB:$NOOP" $ALONE $ON $META DFTRACER_THROTTLE_CALLS=1 -- read "$TMP/data/f.bin" "$N"
	spawned p_plain "$TMP/startup_plain"
	spawned p_off "$TMP/startup"
	spawned p_traced "$TMP/startup" $APP_ON $META
	# the same, living 5 ms longer
	spawned q_plain "$TMP/startup_plain" STARTUP_SLEEP_US=5000
	spawned q_off "$TMP/startup" STARTUP_SLEEP_US=5000
	spawned q_traced "$TMP/startup" STARTUP_SLEEP_US=5000 $APP_ON $META
	# 3 threads start while main faults 4 MiB in (lz4 -d)
	spawned t_plain "$TMP/startup_plain" STARTUP_THREADS=3
	spawned t_off "$TMP/startup" STARTUP_THREADS=3
	spawned t_traced "$TMP/startup" STARTUP_THREADS=3 $APP_ON $META
	if [ -n "$NOLAYERS" ]; then
		paired n_stat_outside "LD_PRELOAD=$NOLAYERS" $ON -- stat "$TMP/other/f.bin" "$N"
		paired n_read_traced "LD_PRELOAD=$NOLAYERS" $ON -- read "$TMP/data/f.bin" "$N"
		starts s_layers "LD_PRELOAD=$LIB" $ON
		starts s_nolayers "LD_PRELOAD=$NOLAYERS" $ON
	fi
	}
	i=$((i + 1))
done

# ratio WHAT BASE X: X's paired cost minus BASE's, as a multiple of one
# call of BASE (the best time per call of that run without the tracer, the
# median over rounds: column 1)
ratio() {
	u=$(sort -n -k 1 "$TMP/$2" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	# shellcheck disable=SC2046
	set -- "$1" $(stats "$2") $(stats "$3")
	awk -v what="$1" -v b="$2" -v x="$5" -v u="$u" \
		'BEGIN { printf "  %-46s %+7.1f ns = %.2fx an untraced call (%.1f ns)\n",
			what, x - b, (x - b) / u, u }'
}

echo "runtime: extra time per call with the tracer preloaded, median over $ROUNDS rounds"
echo "of $N calls, paired in one process with the same libc function called directly"
echo "in place (real system calls):"
report "pread 4 KiB, DFTRACER_ENABLE unset" read_plain read_off "no measurable cost"
report "stat, DFTRACER_ENABLE unset" stat_plain stat_off "no measurable cost"
report "stat of an absolute path outside DATA_DIR" stat_plain stat_outside "<= +50 ns"
report "stat of a relative path outside DATA_DIR" stat_plain stat_rel "<= +50 ns"
report "access of a missing path outside DATA_DIR" access_plain access_outside "<= +50 ns"
report "pread 4 KiB of a file outside DATA_DIR" read_plain read_outside "<= +50 ns"
report "pread 4 KiB traced (no metadata, gzip)" read_plain read_traced "<= +1000 ns"
report "pread 4 KiB traced (INC_METADATA=1, gzip)" read_plain read_meta "<= +1000 ns"
report "pread 4 KiB traced (INC_METADATA=1, plain)" read_plain read_meta_plain "<= +1000 ns"
echo "tracer alone (libc calls replaced by a no-op stand-in behind the tracer):"
report "stat, DFTRACER_ENABLE unset" a_stat_plain a_stat_off "no measurable cost"
report "stat of an absolute path outside DATA_DIR" a_stat_plain a_stat_outside "<= +50 ns"
report "stat of a relative path outside DATA_DIR" a_stat_plain a_stat_rel "<= +50 ns"
report "pread 4 KiB of a file outside DATA_DIR" a_read_plain a_read_outside "<= +50 ns"
report "pread 4 KiB traced (no metadata, gzip)" a_read_plain a_read_traced "<= +1000 ns"
report "pread 4 KiB traced (INC_METADATA=1, gzip)" a_read_plain a_read_meta "<= +1000 ns"
echo "dftracer START/END pair (initialize_region + finalize_region), against an empty pair:"
report "tracing off (DFTRACER_ENABLE unset)" f_plain f_off "<= +20 ns"
report "traced: one complete event (INC_METADATA=1, gzip)" f_plain f_traced "<= +1000 ns"
report "throttled: folded into an aggregated record" f_plain f_throttled "< traced"
report "throttled, clock_gettime (DFTRACER_TSC=0)" f_plain f_throttled_clock "> TSC"
echo "aggregated I/O (DFTRACER_THROTTLE_IO, past DFTRACER_THROTTLE_CALLS=1) and the cheap"
echo "clock, as multiples of one untraced call in the same run:"
ratio "folded START/END pair, TSC clock" f_plain f_throttled
ratio "folded START/END pair, clock_gettime" f_plain f_throttled_clock
ratio "pread 4 KiB traced, one complete event" read_plain read_meta
ratio "pread 4 KiB aggregated, TSC clock" read_plain read_agg
ratio "pread 4 KiB aggregated, clock_gettime" read_plain read_agg_clock
ratio "tracer alone: pread aggregated, TSC clock" a_read_plain a_read_agg
ratio "tracer alone: pread traced, one event" a_read_plain a_read_meta
# proc WHAT BASE X: X's time per process against BASE's in the same round
# (they run back to back): wall, CPU of all threads and CPU of the main
# thread, the median over rounds of the difference, and the ratio of the
# medians
proc() {
	paste "$TMP/$2" "$TMP/$3" | awk -v what="$1" '
		function med(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return a[int((n + 1) / 2)]
		}
		{
			n++
			dw[n] = $6 - $2; dc[n] = $7 - $3; dt[n] = $8 - $4
			bw[n] = $2; xw[n] = $6; bc[n] = $3; xc[n] = $7; bt[n] = $4; xt[n] = $8
		}
		END {
			printf "  %-44s wall %+5.0f us %.2fx, CPU %+5.0f us %.2fx, main thread %+5.0f us %.2fx\n",
				what, med(dw, n) / 1000, med(xw, n) / med(bw, n),
				med(dc, n) / 1000, med(xc, n) / med(bc, n),
				med(dt, n) / 1000, med(xt, n) / med(bt, n) }'
}
echo "per-process cost: a tiny annotated program (INIT, a region around one write, FINI),"
echo "$START_K processes a round, against the same program built without the tracer"
echo "(main thread: its CPU, exec and loading included, the traced thread's share):"
proc "annotated, DFTRACER_ENABLE unset" p_plain p_off
proc "annotated and traced (INC_METADATA=1, gzip)" p_plain p_traced
proc "traced against annotated with tracing off" p_off p_traced
echo "the same program living 5 ms longer:"
proc "annotated, DFTRACER_ENABLE unset" q_plain q_off
proc "traced against annotated with tracing off" q_off q_traced
echo "the same program starting 3 threads (a region around a write each) while"
echo "main fills 4 MiB of fresh memory (the tracer's mappings at a thread's start"
echo "made the faulting thread wait for the address space's lock):"
proc "annotated, DFTRACER_ENABLE unset" t_plain t_off
proc "traced against annotated with tracing off" t_off t_traced
if [ -n "$NOLAYERS" ]; then
	echo "a program without MPI or HDF5: the library with its MPI-IO and HDF5 layers"
	echo "against the same library without them (tracing on):"
	report "stat of a path outside DATA_DIR" n_stat_outside stat_outside "+0 ns"
	report "pread 4 KiB traced (no metadata, gzip)" n_read_traced read_traced "+0 ns"
	# shellcheck disable=SC2046
	set -- $(stats s_nolayers) $(stats s_layers)
	awk -v b="$1" -v x="$4" -v lo="$5" -v hi="$6" 'BEGIN {
		printf "  %-46s %.3fx  (%.0f us against %.0f us; rounds %.3fx .. %.3fx)  target 1.00x\n",
			"process start-up, with layers / without", x / b, x / 1000, b / 1000, lo / b, hi / b }'
fi
