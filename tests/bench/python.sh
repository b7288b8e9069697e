#!/bin/sh
# tests/bench/python.sh - cost of the runtime's Python package (runtime/python)
# to a Python process, against the same program without it.
# Targets (issue 16):
#   import with tracing off (an annotated program run untraced): no ctypes,
#     inspect or json; well under a millisecond
#   a decorated call with tracing off: the function itself, +0 us
#   decorating a function: a few microseconds traced (the argument
#     capture is made at its first call)
#   a decorated call traced (one complete event) or folded by the
#     runtime's throttle: about a microsecond or less, not tens
# Per call: 100,000 calls of a decorated one-line function against the same
# undecorated function in the same process, the median over ROUNDS runs.
# Import: python3 -X importtime's cumulative microseconds of the package's
# modules and what they import, after os, threading, functools and math
# (which applications have loaded anyway); with tracing on, binding the
# library too.  The median over ROUNDS.
# Timings are printed, never asserted.
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PY:-/usr/bin/python3}
ROUNDS=${ROUNDS:-7}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PYTHONPATH="$REPO/runtime/python"
export DFTRACER_LOG_FILE="$TMP/trace" DFTRACER_DATA_DIR="$TMP"
export DFTRACER_LIB="$REPO/runtime/build/lib/libdftracer_core.so"
unset DFTRACER_ENABLE DFTRACER_INIT LD_PRELOAD

cat >"$TMP/percall.py" <<'PY'
import sys, time
from dftracer.python import dft_fn, dftracer
log = dftracer.initialize_log(logfile=None, data_dir=None, process_id=-1)
@dft_fn("BENCH").log
def f(x):
    return x
def g(x):
    return x
n = 100000
t0 = time.perf_counter()
for i in range(n):
    g(i)
t1 = time.perf_counter()
for i in range(n):
    f(i)
t2 = time.perf_counter()
log.finalize()
print("%.3f" % (((t2 - t1) - (t1 - t0)) / n * 1e6))
PY

cat >"$TMP/decorate.py" <<'PY'
import time
from dftracer.python import dft_fn, dftracer
log = dftracer.initialize_log(logfile=None, data_dir=None, process_id=-1)
def mk():
    def f(self, path, algorithms=None, encoding="utf-8", processes=1):
        return path
    return f
fs = [mk() for i in range(2000)]
d = dft_fn("BENCH")
t0 = time.perf_counter()
for f in fs:
    d.log(f)
t1 = time.perf_counter()
log.finalize()
print("%.3f" % ((t1 - t0) / len(fs) * 1e6))
PY

med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# percall ENV...: median extra microseconds per decorated call
percall() {
	i=0
	while [ "$i" -lt "$ROUNDS" ]; do
		env "$@" "$PY" "$TMP/percall.py"
		rm -f "$TMP"/trace*
		i=$((i + 1))
	done | med
}

# decorate ENV...: median microseconds to decorate a function (a program
# decorates each annotated function as it imports it, called or not)
decorate() {
	i=0
	while [ "$i" -lt "$ROUNDS" ]; do
		env "$@" "$PY" "$TMP/decorate.py"
		rm -f "$TMP"/trace*
		i=$((i + 1))
	done | med
}

# imports ENV...: median -X importtime cumulative us of dftracer.python
imports() {
	i=0
	while [ "$i" -lt "$ROUNDS" ]; do
		env "$@" "$PY" -X importtime -c \
			'import functools, math, os, threading
import dftracer.python as p
p._lib_or_none()' 2>&1 |
			awk -F'|' '$3 ~ /^ (dftracer|ctypes|inspect|json)/ { c += $2 }
				END { print c + 0 }'
		i=$((i + 1))
	done | med
}

echo "python per decorated call, over a plain call (us, median of $ROUNDS runs of 100,000):"
echo "  tracing off:                     +$(percall X=1)"
echo "  traced (complete events):        +$(percall DFTRACER_ENABLE=1 DFTRACER_THROTTLE_CALLS=0)"
echo "  traced, folded by the throttle:  +$(percall DFTRACER_ENABLE=1)"
echo "python decorating a function (us, median of $ROUNDS runs of 2,000):"
echo "  tracing off:                     $(decorate X=1)"
echo "  traced:                          $(decorate DFTRACER_ENABLE=1)"
echo "python import of dftracer.python (-X importtime, cumulative us, median of $ROUNDS):"
echo "  tracing off:                     $(imports X=1)"
echo "  tracing on, library bound:       $(imports DFTRACER_ENABLE=1)"
