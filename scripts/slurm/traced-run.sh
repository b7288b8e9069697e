#!/bin/sh
#SBATCH --job-name=dft-trace
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --time=00:30:00
# traced-run.sh - a traced run, under srun, of an application that
# dft-pipeline annotated and built (after its step_9_build_annotated), then
# the split and the analysis of its traces.
#
# usage: sbatch scripts/slurm/traced-run.sh WORKSPACE PROGRAM [ARG...]
#   WORKSPACE  the run's workspace (workspaces/APP/STAMP)
#   PROGRAM    the annotated program, relative to WORKSPACE/build_ann
# Environment: DFT_DATA_DIR (default all) is DFTRACER_DATA_DIR.
# Traces go to WORKSPACE/traces_slurm_<job>/, records to its records.ndjson.
set -eu

ws=${1:?usage: traced-run.sh WORKSPACE PROGRAM [ARG...]}
shift
[ "$#" -ge 1 ] || { echo "traced-run.sh: no PROGRAM" >&2; exit 2; }
ws=$(cd "$ws" && pwd)
out=$ws/traces_slurm_${SLURM_JOB_ID:-$$}
mkdir -p "$out"

# the environment of the run's builds: module loads, MPI settings
# shellcheck source=/dev/null
. "$ws/scripts/env.sh"
# the tracer the annotated build links
lib=$(sed -n 's/^tracer_lib=//p' "$ws/pipeline.state" | tail -n 1)
[ -n "$lib" ] && LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
DFTRACER_ENABLE=1
DFTRACER_INC_METADATA=1
DFTRACER_LOG_FILE=$out/trace
DFTRACER_DATA_DIR=${DFT_DATA_DIR:-all}
export DFTRACER_ENABLE DFTRACER_INC_METADATA DFTRACER_LOG_FILE DFTRACER_DATA_DIR

cd "$ws/build_ann"
# srun passes the whole environment (--export=ALL is its default)
srun --export=ALL "$@"

# a zero exit status does not mean tracing worked: check for events
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
