#!/bin/sh
#SBATCH --job-name=dft-pipeline
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --time=02:00:00
# pipeline.sh - the whole dft job in batch inside a Slurm allocation: the
# smoke test is launched with srun on the job's tasks.
#
# usage: sbatch scripts/slurm/pipeline.sh URL 'PROGRAM [ARG...]' [dft-pipeline options]
#   e.g. sbatch scripts/slurm/pipeline.sh https://github.com/hpc/ior.git \
#            './src/ior -t 4k -b 1m -F' --build-flags=--with-mpiio
# The workspace root is $DFT_WORKSPACES (default ./workspaces).
set -eu

url=${1:?usage: pipeline.sh URL 'PROGRAM [ARG...]' [options]}
prog=${2:?usage: pipeline.sh URL 'PROGRAM [ARG...]' [options]}
shift 2
exec dft-pipeline run -y -s "srun -n ${SLURM_NTASKS:-1} $prog" "$@" "$url"
