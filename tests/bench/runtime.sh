#!/bin/sh
# tests/bench/runtime.sh - cost of the bundled tracer (runtime/) per call,
# against an untraced run of the same program in the same benchmark.
# Prints differences in ns per call; targets (DESIGN.md section 7):
#   traced 4 KiB pread from page cache   <= +1000 ns
#   stat() of a path outside DATA_DIR    <= +50 ns
#   library loaded, DFTRACER_ENABLE unset: no measurable cost
# Each configuration runs ROUNDS times interleaved with the others; the
# best (lowest) time of each is compared, which filters out noise from
# other load on the machine.  Timings are printed, never asserted.
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
LIB="$REPO/runtime/build/lib/libdftracer_preload.so"
N=${N:-100000}
ROUNDS=${ROUNDS:-5}

if [ ! -f "$LIB" ]; then
	echo "runtime not built: make -C runtime" >&2
	exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dft-rt-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$TMP/data" "$TMP/other" "$TMP/traces"
cc -O2 -o "$TMP/bench" "$REPO/tests/fixtures/runtime/bench.c"
head -c 4096 /dev/zero > "$TMP/data/f.bin"
cp "$TMP/data/f.bin" "$TMP/other/f.bin"
cat "$TMP/data/f.bin" > /dev/null

# run NAME ENV... -- ARGS: appends the per-call ns to $TMP/NAME
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
	env $env_args "$TMP/bench" "$@" >> "$TMP/$name"
	rm -f "$TMP"/traces/*
}

ON="DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_DATA_DIR=$TMP/data DFTRACER_LOG_FILE=$TMP/traces/t"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	run read_plain -- read "$TMP/data/f.bin" "$N"
	run read_off "LD_PRELOAD=$LIB" -- read "$TMP/data/f.bin" "$N"
	# shellcheck disable=SC2086
	run read_traced "LD_PRELOAD=$LIB" $ON -- read "$TMP/data/f.bin" "$N"
	# shellcheck disable=SC2086
	run read_meta "LD_PRELOAD=$LIB" $ON DFTRACER_INC_METADATA=1 -- read "$TMP/data/f.bin" "$N"
	# shellcheck disable=SC2086
	run read_meta_plain "LD_PRELOAD=$LIB" $ON DFTRACER_INC_METADATA=1 DFTRACER_TRACE_COMPRESSION=0 -- read "$TMP/data/f.bin" "$N"
	run stat_plain -- stat "$TMP/other/f.bin" "$N"
	run stat_off "LD_PRELOAD=$LIB" -- stat "$TMP/other/f.bin" "$N"
	# shellcheck disable=SC2086
	run stat_outside "LD_PRELOAD=$LIB" $ON -- stat "$TMP/other/f.bin" "$N"
	run access_plain -- access "$TMP/other/missing/f.bin" "$N"
	# shellcheck disable=SC2086
	run access_outside "LD_PRELOAD=$LIB" $ON -- access "$TMP/other/missing/f.bin" "$N"
	i=$((i + 1))
done

# best COLUMN NAME: lowest time per call (1), median of the paired differences (2)
best() {
	sort -n -k "$1" "$TMP/$2" | head -n 1 | cut -d ' ' -f "$1"
}
median() {
	sort -n -k "$1" "$TMP/$2" | awk -v c="$1" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

report() {
	awk -v what="$1" -v base="$(best 1 "$2")" -v x="$(best 1 "$3")" \
		-v pbase="$(median 2 "$2")" -v px="$(median 2 "$3")" -v target="$4" \
		'BEGIN { printf "%-44s %7.1f -> %7.1f ns (x%.2f)  paired %+7.1f ns  target %s\n",
			what, base, x, x / base, px - pbase, target }'
}

echo "runtime: per call over $ROUNDS rounds of $N calls: best CPU time untraced -> traced"
echo "(ratio), and the tracer's cost from calls paired with raw system calls (bench.c)"
report "pread 4 KiB, ENABLE unset (library loaded)" read_plain read_off "no measurable cost"
report "stat, ENABLE unset (library loaded)" stat_plain stat_off "no measurable cost"
report "stat of a path outside DATA_DIR" stat_plain stat_outside "<= +50 ns"
report "access of a missing path outside DATA_DIR" access_plain access_outside "<= +50 ns"
report "pread 4 KiB traced (no metadata, gzip)" read_plain read_traced "<= +1000 ns"
report "pread 4 KiB traced (INC_METADATA=1, gzip)" read_plain read_meta "<= +1000 ns"
report "pread 4 KiB traced (INC_METADATA=1, plain)" read_plain read_meta_plain "<= +1000 ns"
