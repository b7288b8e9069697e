#!/bin/sh
# traced-run.sh - a traced run, under flux run, of an application that
# dft-pipeline annotated and built (after its step_9_build_annotated), then
# the split and the analysis of its traces.
#
# usage: flux batch -N 2 -n 8 scripts/flux/traced-run.sh WORKSPACE PROGRAM [ARG...]
#   WORKSPACE  the run's workspace (workspaces/APP/STAMP)
#   PROGRAM    the annotated program, relative to WORKSPACE/build_ann
# Environment: DFT_DATA_DIR (default all) is DFTRACER_DATA_DIR; FLUX_TASKS
# (default: the size of the allocation) the number of tasks.
#
# Run it inside the allocation (flux batch or flux alloc): the environment
# does not cross `flux proxy`, and `flux run` has no option to pass single
# variables, so everything is exported here, where flux run copies it from.
set -eu

ws=${1:?usage: traced-run.sh WORKSPACE PROGRAM [ARG...]}
shift
[ "$#" -ge 1 ] || { echo "traced-run.sh: no PROGRAM" >&2; exit 2; }
ws=$(cd "$ws" && pwd)
out=$ws/traces_flux_$(flux getattr jobid 2>/dev/null || echo $$)
mkdir -p "$out"

# shellcheck source=/dev/null
. "$ws/scripts/env.sh"
lib=$(sed -n 's/^tracer_lib=//p' "$ws/pipeline.state" | tail -n 1)
[ -n "$lib" ] && LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
DFTRACER_ENABLE=1
DFTRACER_INC_METADATA=1
DFTRACER_LOG_FILE=$out/trace
DFTRACER_DATA_DIR=${DFT_DATA_DIR:-all}
export DFTRACER_ENABLE DFTRACER_INC_METADATA DFTRACER_LOG_FILE DFTRACER_DATA_DIR

tasks=${FLUX_TASKS:-$(flux resource list -no '{ncores}' 2>/dev/null | head -n 1)}
cd "$ws/build_ann"
flux run -n "${tasks:-1}" "$@"

n=0
for f in "$out"/*.pfw.gz; do
	[ -f "$f" ] || continue
	n=$((n + $(gzip -dc "$f" | grep -c '"ph":"X"' || true)))
done
if [ "$n" -eq 0 ]; then
	echo "traced-run.sh: empty trace in $out: the program crashed or exited before FINI" >&2
	exit 1
fi
echo "traced-run.sh: $n events in $out" >&2
dft-split -n "$(basename "$(dirname "$ws")")" -o "$out/split" "$out"/*.pfw.gz \
	>"$out/chunks.ndjson"
dft-analyze <"$out/chunks.ndjson" >"$out/records.ndjson"
dft-analyze --format table <"$out/chunks.ndjson"
