#!/bin/sh
# pipeline.sh - the whole dft job in batch inside a Flux allocation: the
# smoke test is launched with flux run on the allocation's cores.
#
# usage: flux batch -N 1 -n 8 scripts/flux/pipeline.sh URL 'PROGRAM [ARG...]' [dft-pipeline options]
#   e.g. flux batch -N 1 -n 8 scripts/flux/pipeline.sh \
#            https://github.com/hpc/ior.git './src/ior -t 4k -b 1m -F'
# The workspace root is $DFT_WORKSPACES (default ./workspaces).
set -eu

url=${1:?usage: pipeline.sh URL 'PROGRAM [ARG...]' [options]}
prog=${2:?usage: pipeline.sh URL 'PROGRAM [ARG...]' [options]}
shift 2
n=${FLUX_TASKS:-$(flux resource list -no '{ncores}' 2>/dev/null | head -n 1)}
exec dft-pipeline run -y -s "flux run -n ${n:-1} $prog" "$@" "$url"
