#!/bin/sh
# analyze-shards.sh (Slurm) - analyze dftracer traces as a Slurm job array
# and merge the results: one array task (`dft-analyze --partial`) per shard
# of the trace files, then one `dft-analyze --merge` job that runs after
# every task succeeded (sbatch --dependency=afterok on the array, tested on
# a real single-node Slurm in tests/slurm.bats). The merged records equal
# those of one dft-analyze run over every file; the chunks of one split
# trace go to one shard.
#
# usage: analyze-shards.sh [-n shards] [-o dir] [-p preset] [-A account]
#                          [-t time] [--dry-run | --local] trace...
# Results: dir/partial-K.ndjson per shard, dir/analysis.ndjson merged.
# --dry-run prints the sbatch commands instead of submitting them;
# --local runs the same commands here, shards in parallel (no scheduler).
# shellcheck disable=SC2034,SC2154 # shards.sh reads preset, sets popt, merge_cmd
set -eu

shards=4
out=analysis
preset=
account=
limit=00:30:00
dry=0
local=0

usage() {
	echo "usage: analyze-shards.sh [-n shards] [-o dir] [-p preset] [-A account]" >&2
	echo "                         [-t time] [--dry-run | --local] trace..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; shards=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-p) [ $# -ge 2 ] || usage; preset=$2; shift 2 ;;
	-A) [ $# -ge 2 ] || usage; account=$2; shift 2 ;;
	-t) [ $# -ge 2 ] || usage; limit=$2; shift 2 ;;
	--dry-run) dry=1; shift ;;
	--local) local=1; shift ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
case $shards in ''|*[!0-9]*|0) usage ;; esac

# shellcheck source=scripts/shards.sh disable=SC1091
. "$(dirname "$0")/../shards.sh"
shards_setup "$@"
aopt=
[ -n "$account" ] && aopt="--account=$account"
[ "$local" = 1 ] && shards_local

# submit ID OPTION...: sbatch, or (--dry-run) its command line on standard
# error and DRY<ID> as the job id
submit() {
	if [ "$dry" = 1 ]; then
		shift_id=$1
		shift
		echo "sbatch $*" >&2
		echo "DRY$shift_id"
		return 0
	fi
	shift
	# --parsable prints "jobid[;cluster]"
	sbatch --parsable "$@" | cut -d ';' -f 1
}

# one array task per shard: task K (the job's $SLURM_ARRAY_TASK_ID, read
# in the job, not here) keeps shard K+1 of the whole list
rm -f "$out"/partial-*.ndjson "$out/analysis.ndjson"
# shellcheck disable=SC2086 # $aopt and $popt are option words
array=$(submit A $aopt --job-name=dft-analyze --time="$limit" \
	--array="0-$((shards - 1))" --ntasks=1 --cpus-per-task=1 \
	--output="$out/shard-%a.log" \
	--wrap="dft-analyze --partial --shard \$((SLURM_ARRAY_TASK_ID + 1))/$shards $popt <'$out/traces.list' >'$out'/partial-\$SLURM_ARRAY_TASK_ID.ndjson")
# shellcheck disable=SC2086
merge=$(submit M $aopt --job-name=dft-analyze-merge --time="$limit" \
	--ntasks=1 --dependency="afterok:$array" --output="$out/merge.log" \
	--wrap="$merge_cmd")
echo "shards: job array $array (tasks 0-$((shards - 1))); merge: $merge; result: $out/analysis.ndjson"
